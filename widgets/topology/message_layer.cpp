#include "widgets/topology/message_layer.h"

#include "widgets/topology/node_item.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QPainter>
#include <QTimer>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace fog {

namespace {

constexpr qreal kTagHeight = 18;     // device pixels
constexpr qreal kScreenMargin = 90;  // device pixels a tag may reach beyond its points

QFont tagFont() {
    QFont f = QApplication::font();
    f.setPixelSize(qRound(11 * NodeItem::textBoost()));
    f.setBold(true);
    return f;
}

} // namespace

MessageLayer::MessageLayer() {
    setZValue(10);
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(false);
    fadeTimer_ = new QTimer(this);
    fadeTimer_->setInterval(33);
    connect(fadeTimer_, &QTimer::timeout, this, [this] { tick(); });
}

QColor MessageLayer::color(bool modelDown) {
    // Paul Tol's vibrant blue and purple: apart from the node-state colours, white text
    // reads on both, and both read on light and dark canvases.
    return modelDown ? QColor(0, 119, 187) : QColor(170, 51, 119);
}

QString MessageLayer::label(bool modelDown) {
    return modelDown ? QObject::tr("model") : QObject::tr("update");
}

void MessageLayer::setMessages(const QVector<Dot>& dots) {
    // Buckets of messages between the same two points going the same way.
    using Key = std::tuple<qreal, qreal, qreal, qreal, bool>;
    std::map<Key, std::vector<double>> live, cut;
    std::map<Key, std::pair<QPointF, QPointF>> ends;
    shown_ = 0;
    for (const Dot& d : dots) {
        const Key k{d.from.x(), d.from.y(), d.to.x(), d.to.y(), d.modelDown};
        const double t = std::clamp(std::isfinite(d.progress) ? d.progress : 0.0, 0.0, 1.0);
        (d.cut ? cut : live)[k].push_back(t);
        ends[k] = {d.from, d.to};
        if (!d.cut) ++shown_;
    }
    auto marksOf = [&](const Key& k, std::vector<double>& ps, bool isCut, QVector<Mark>& out) {
        const auto& [from, to] = ends[k];
        Mark m;
        m.from = from;
        m.to = to;
        m.modelDown = std::get<4>(k);
        m.cut = isCut;
        if (static_cast<int>(ps.size()) <= kIndividual) {
            for (double p : ps) {
                m.progress = m.minProgress = m.maxProgress = p;
                out.append(m);
            }
            return;
        }
        std::sort(ps.begin(), ps.end());
        m.count = static_cast<int>(ps.size());
        m.progress = ps[ps.size() / 2];
        m.minProgress = ps.front();
        m.maxProgress = ps.back();
        out.append(m);
    };
    marks_.clear();
    for (auto& [k, ps] : live) marksOf(k, ps, false, marks_);
    QVector<Mark> newFades;
    for (auto& [k, ps] : cut) marksOf(k, ps, true, newFades);
    for (const Mark& m : std::as_const(newFades)) {
        Fade f{m, {}};
        f.since.start();
        fades_.append(f);
    }
    if (!fades_.isEmpty() && !fadeTimer_->isActive()) fadeTimer_->start();
    updateRect();
}

QVector<MessageLayer::Mark> MessageLayer::fading() const {
    QVector<Mark> out;
    for (const Fade& f : fades_) {
        Mark m = f.mark;
        m.opacity = std::clamp(1.0 - static_cast<double>(f.since.elapsed()) / kFadeMs, 0.0, 1.0);
        out.append(m);
    }
    return out;
}

void MessageLayer::clear() {
    marks_.clear();
    fades_.clear();
    shown_ = 0;
    fadeTimer_->stop();
    updateRect();
}

void MessageLayer::tick() {
    fades_.erase(std::remove_if(fades_.begin(), fades_.end(), [](const Fade& f) { return f.since.elapsed() >= kFadeMs; }),
                 fades_.end());
    if (fades_.isEmpty()) fadeTimer_->stop();
    updateRect();
}

void MessageLayer::refreshGeometry() {
    updateRect();
}

void MessageLayer::updateRect() {
    QRectF r;
    auto add = [&r](const Mark& m) { r = r.united(QRectF(m.from, m.to).normalized()); };
    for (const Mark& m : std::as_const(marks_)) add(m);
    for (const Fade& f : std::as_const(fades_)) add(f.mark);
    // Tags keep their size on screen: the margin in scene units grows as the view zooms out.
    qreal scale = 1.0;
    if (scene())
        for (QGraphicsView* v : scene()->views()) scale = std::min(scale, std::abs(v->transform().m11()));
    // (Capped: the layer's rect also widens the scene's scroll range.)
    const qreal margin = std::min<qreal>(kScreenMargin / std::max(scale, 1e-3), 1500);
    prepareGeometryChange();
    rect_ = r.isNull() && marks_.isEmpty() && fades_.isEmpty() ? QRectF() : r.adjusted(-margin, -margin, margin, margin);
    update();
}

void MessageLayer::paintMark(QPainter* p, const Mark& m, const QColor& outline) const {
    // Drawn in device pixels: a tag is as big on screen at any zoom.
    const QTransform world = p->worldTransform();
    const QPointF a = world.map(m.from), b = world.map(m.to);
    const QPointF d = b - a;
    const qreal len = std::hypot(d.x(), d.y());
    const QPointF dir = len > 1e-9 ? d / len : QPointF(0, 1);
    const QColor c = color(m.modelDown);
    p->save();
    p->resetTransform();
    p->setOpacity(m.opacity);
    if (m.count > 1 && m.maxProgress > m.minProgress) {
        QColor band = c;
        band.setAlphaF(0.35);
        QPen pen(band, 8);
        pen.setCapStyle(Qt::RoundCap);
        p->setPen(pen);
        p->drawLine(a + d * m.minProgress, a + d * m.maxProgress);
    }
    const QPointF at = a + d * m.progress;
    QString text = label(m.modelDown);
    if (m.count > 1) text += QStringLiteral(" × %1").arg(m.count);
    if (m.cut) text += QObject::tr(" cut");
    const QFont f = tagFont();
    const qreal w = QFontMetricsF(f).horizontalAdvance(text) + 24;
    const qreal h = kTagHeight * NodeItem::textBoost(); // presentation mode: larger, as the text
    const QRectF tag(at.x() - w / 2, at.y() - h / 2, w, h);
    QPen border(outline, 1.5);
    if (m.cut) border.setStyle(Qt::DashLine);
    p->setPen(border);
    p->setBrush(c);
    p->drawRoundedRect(tag, h / 2, h / 2);
    // An arrow at the tag's left points the way the message goes.
    const QPointF q(tag.left() + 10, tag.center().y());
    const QPointF perp(-dir.y(), dir.x());
    p->setPen(Qt::NoPen);
    p->setBrush(Qt::white);
    // Long and narrow, so that its tip reads at any angle.
    p->drawPolygon(QPolygonF({q + dir * 6, q - dir * 4 + perp * 3.3, q - dir * 4 - perp * 3.3}));
    p->setPen(Qt::white);
    p->setFont(f);
    p->drawText(tag.adjusted(17, 0, -5, 0), Qt::AlignCenter, text);
    p->restore();
}

void MessageLayer::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* w) {
    const QPalette pal = w ? w->palette() : QApplication::palette();
    p->setRenderHint(QPainter::Antialiasing);
    p->setRenderHint(QPainter::TextAntialiasing);
    const QColor outline = pal.color(QPalette::Base);
    for (const Mark& m : fading()) paintMark(p, m, outline);
    for (const Mark& m : std::as_const(marks_)) paintMark(p, m, outline);
}

} // namespace fog
