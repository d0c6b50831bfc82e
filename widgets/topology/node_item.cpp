#include "widgets/topology/node_item.h"

#include "core/scenario/yaml_reader.h"
#include "widgets/figures/run_plots.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_glyphs.h"
#include "widgets/topology/topology_scene.h"

#include <QApplication>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

constexpr qreal kMemberStep = 18;
constexpr int kMemberColumns = 20;

QPalette paletteOf(QWidget* w) {
    return w ? w->palette() : QApplication::palette();
}

QString shortNumber(double v) {
    if (std::abs(v) >= 1e6) return QString::number(v / 1e6, 'g', 3) + "M";
    if (std::abs(v) >= 1e4) return QString::number(v / 1e3, 'g', 3) + "k";
    return QString::number(v, 'g', 4);
}

QString rangeText(const Range& r) {
    return r.isExact() ? shortNumber(r.min)
                       : shortNumber(r.min) + QStringLiteral("–") + shortNumber(r.max);
}

/// The speed as the node gives it: FLOP/s, a device class, or samples/s.
QString computeText(const ComputeSpec& c) {
    if (c.flops.max > 0) return QObject::tr("%1 GFLOP/s").arg(rangeText(Range(c.flops.min / 1e9, c.flops.max / 1e9)));
    if (!c.deviceClass.empty()) return QString::fromStdString(c.deviceClass);
    return QObject::tr("%1 samples/s").arg(rangeText(c.throughput));
}

QString roleText(Role r) {
    switch (r) {
    case Role::Trainer:
        return QObject::tr("trainer");
    case Role::Aggregator:
        return QObject::tr("aggregator");
    case Role::Both:
        return QObject::tr("trains + aggregates");
    case Role::Relay:
        return QObject::tr("relay");
    }
    return {};
}

} // namespace

// --- MemberItem ------------------------------------------------------------------------------

MemberItem::MemberItem(NodeItem* group, int index) : QGraphicsItem(group), index_(index) {
    setToolTip(group->id() + "-" + QString::number(index));
    setAcceptedMouseButtons(Qt::NoButton); // clicks select and move the group
}

NodeItem* MemberItem::group() const {
    return static_cast<NodeItem*>(parentItem());
}

QRectF MemberItem::boundingRect() const {
    return {-kSize / 2, -kSize / 2, kSize, kSize};
}

void MemberItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* w) {
    const QPalette pal = paletteOf(w);
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(QPen(pal.color(QPalette::WindowText), 1));
    p->setBrush(state_ >= 0 ? stateColor(static_cast<NodeState>(state_))
                            : tierColor(group()->tier()));
    p->drawEllipse(boundingRect().adjusted(1, 1, -1, -1));
}

// --- NodeItem --------------------------------------------------------------------------------

NodeItem::NodeItem(const QString& id) : id_(id) {
    setFlags(ItemIsMovable | ItemIsSelectable | ItemSendsGeometryChanges);
    setAcceptHoverEvents(false);
    setZValue(1);
}

void NodeItem::setId(const QString& id) {
    id_ = id;
    for (MemberItem* m : members_)
        m->setToolTip(id + "-" + QString::number(m->index()));
    update();
}

void NodeItem::setSpec(const NodeSpec& g, const QString& nestedUnder) {
    if (!g.group) {
        const bool wasGroup = group_;
        group_ = false;
        count_ = 1;
        tier_ = g.tier;
        role_ = g.role;
        figures_ = computeText(g.compute);
        cost_ = QStringLiteral("$%1/h · %2").arg(shortNumber(g.pricePerHour.min), roleText(g.role));
        if (wasGroup) setExpanded(false);
        baseToolTip_ = QObject::tr("%1 (%2, %3)").arg(id_, toString(g.tier), roleText(g.role));
        setProblems(problems_);
        update();
        return;
    }
    const bool countChanged = g.count != count_;
    group_ = true;
    count_ = g.count;
    tier_ = g.tier;
    role_ = g.role;
    figures_ = computeText(g.compute);
    cost_ = QStringLiteral("$%1/h · %2").arg(rangeText(g.pricePerHour), roleText(g.role));
    baseToolTip_ = nestedUnder.isEmpty()
                       ? QObject::tr("%1: %2 members %1-0 .. %1-%3 (double-click to %4)")
                             .arg(id_)
                             .arg(g.count)
                             .arg(g.count - 1)
                             .arg(expanded_ ? QObject::tr("collapse") : QObject::tr("expand"))
                       : QObject::tr("%1: %2 members under each member of group %3, named "
                                     "%1-<index of that member>-0 .. %1-…-%4")
                             .arg(id_)
                             .arg(g.count)
                             .arg(nestedUnder)
                             .arg(g.count - 1);
    setProblems(problems_);
    if (expanded_ && countChanged) {
        setExpanded(false);
        setExpanded(true);
    }
    update();
}

void NodeItem::setProblems(const QStringList& messages) {
    const bool changed = messages != problems_;
    problems_ = messages;
    refreshToolTip();
    if (changed) update();
}

void NodeItem::refreshToolTip() {
    QString tip = baseToolTip_;
    if (hasRunCounts_) {
        QStringList parts;
        for (NodeState s : stateOrder())
            parts << QStringLiteral("%1 %2").arg(stateName(s)).arg(runCounts_[static_cast<std::size_t>(s)]);
        tip += "\n" + parts.join(QStringLiteral(" · "));
        if (notJoined_ > 0) {
            int joined = 0;
            for (int c : runCounts_) joined += c;
            tip += "\n" + QObject::tr("joined %1 · not yet joined %2 (add events)").arg(joined).arg(notJoined_);
        }
    } else if (runState_ >= 0) {
        tip += "\n" + stateName(static_cast<NodeState>(runState_));
    }
    if (!nicText_.isEmpty()) tip += "\n" + nicText_;
    if (!problems_.isEmpty()) tip += "\n\n" + QObject::tr("Problems:") + "\n• " + problems_.join("\n• ");
    setToolTip(tip);
}

const std::array<NodeState, 5>& NodeItem::stateOrder() {
    static const std::array<NodeState, 5> order{NodeState::Computing, NodeState::Sending, NodeState::Receiving,
                                                NodeState::Idle, NodeState::Offline};
    return order;
}

QString NodeItem::stateName(NodeState s) {
    switch (s) {
    case NodeState::Idle: return QObject::tr("idle");
    case NodeState::Receiving: return QObject::tr("receiving");
    case NodeState::Computing: return QObject::tr("computing");
    case NodeState::Sending: return QObject::tr("sending");
    case NodeState::Offline: return QObject::tr("offline");
    }
    return {};
}

QRectF NodeItem::membersRect() const {
    const int shown = std::min(count_, kMaxShownMembers);
    const int cols = std::min(shown, kMemberColumns);
    const int rows = (shown + cols - 1) / std::max(cols, 1);
    const qreal w = cols * kMemberStep, h = rows * kMemberStep;
    return {-w / 2, kHeight / 2 + 10, w, h + (count_ > shown ? 16 : 0)};
}

QRectF NodeItem::boundingRect() const {
    QRectF r = boxRect().adjusted(-4, -12, 10, 4); // room for the problem badge
    if (expanded_) r = r.united(membersRect().adjusted(-2, -2, 2, 2));
    return r;
}

QPainterPath NodeItem::shape() const {
    QPainterPath path;
    path.addRoundedRect(boxRect(), 8, 8);
    if (expanded_) path.addRect(membersRect());
    return path;
}

namespace {
qreal textBoost_ = 1.0;
} // namespace

void NodeItem::setTextBoost(qreal boost) { textBoost_ = std::clamp(boost, 1.0, 2.0); }
qreal NodeItem::textBoost() { return textBoost_; }

qreal NodeItem::textScale(qreal lod) {
    // The subtitle's 10 px at zoom 1 would be 6 px at the zoom a preset is fitted to in a
    // 1280x720 window: scaled up to at least kMinSubtitleScreenPx on screen, up to twice
    // (below the box-only zoom of 0.35 no text is drawn). Presentation mode asks for half
    // as much again; twice is what the box holds (a title and one line).
    if (lod <= 0) return textBoost_;
    return std::clamp(textBoost_ * kMinSubtitleScreenPx / (10.0 * lod), textBoost_, 2.0);
}

qreal NodeItem::subtitlePixels(qreal lod) { return 10.0 * textScale(lod); }

qreal NodeItem::titlePixels(qreal lod) { return std::max(13.0 * textBoost_, 11.0 * textScale(lod)); }

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) {
    const QPalette pal = paletteOf(w);
    const qreal lod = o->levelOfDetailFromTransform(p->worldTransform());
    const QRectF box = boxRect();
    p->setRenderHint(QPainter::Antialiasing);

    QColor fill = pal.color(QPalette::Base);
    if (runState_ >= 0) {
        QColor s = stateColor(static_cast<NodeState>(runState_));
        fill = QColor::fromRgbF(0.55 * s.redF() + 0.45 * fill.redF(),
                                0.55 * s.greenF() + 0.45 * fill.greenF(),
                                0.55 * s.blueF() + 0.45 * fill.blueF());
    }
    const QColor accent = tierColor(tier_);
    if (group_) { // a second outline behind: "several"
        p->setPen(QPen(accent, 1.5));
        p->setBrush(pal.color(QPalette::AlternateBase));
        p->drawRoundedRect(box.translated(4, -4), 8, 8);
    }
    p->setPen(isSelected() ? QPen(pal.color(QPalette::Highlight), 3) : QPen(accent, 2));
    p->setBrush(fill);
    p->drawRoundedRect(box, 8, 8);

    if (!problems_.isEmpty()) {
        // A problem: red outline and a "!" badge at the top right, seen at any zoom.
        const QColor warn(213, 60, 30);
        p->setPen(QPen(warn, 2.5, Qt::DashLine));
        p->setBrush(Qt::NoBrush);
        p->drawRoundedRect(box.adjusted(-3, -3, 3, 3), 9, 9);
        const QRectF badge(box.right() - 12, box.top() - 10, 20, 20);
        p->setPen(QPen(Qt::white, 1.5));
        p->setBrush(warn);
        p->drawEllipse(badge);
        QFont bf = QApplication::font();
        bf.setPixelSize(14);
        bf.setBold(true);
        p->setFont(bf);
        p->drawText(badge, Qt::AlignCenter, QStringLiteral("!"));
    }

    if (lod < 0.35) { // far out: boxes only (text would be unreadable), a group's states as a bar
        if (group_ && hasRunCounts_) {
            int total = 0;
            for (int c : runCounts_) total += c;
            const QRectF bar = box.adjusted(6, box.height() / 2, -6, -6);
            qreal x = bar.left();
            p->setPen(Qt::NoPen);
            for (NodeState st : stateOrder()) {
                if (total <= 0) break;
                const qreal w = bar.width() * runCounts_[static_cast<std::size_t>(st)] / total;
                p->setBrush(stateColor(st));
                p->drawRect(QRectF(x, bar.top(), w, bar.height()));
                x += w;
            }
        }
        return;
    }

    // A group during a run shows its members per state: a small glyph, the title, then
    // the counts in two rows across the box. Zoomed out (a preset fitted into a 1280x720
    // window), the text grows in scene units so that it stays readable on screen; past a
    // point the glyph gets small and one line of figures gives way to the larger text.
    const qreal up = textScale(lod);
    const bool compact = up > 1.3;
    const bool counts = group_ && hasRunCounts_;
    const QRectF glyph = counts || compact ? QRectF(box.left() + 6, box.top() + 4, 20, 20)
                                           : QRectF(box.left() + 6, box.top() + 9, 38, 38);
    if (role_ == Role::Relay)
        paintRelayGlyph(p, glyph, tier_, pal.color(QPalette::Text));
    else
        paintTierGlyph(p, glyph, tier_, group_, pal.color(QPalette::Text));

    const QRectF text(glyph.right() + 6, box.top() + 4, box.right() - glyph.right() - 10,
                      box.height() - 8);
    QFont f = QApplication::font();
    f.setPixelSize(qRound(titlePixels(lod)));
    f.setBold(true);
    p->setFont(f);
    p->setPen(pal.color(QPalette::Text));
    const QString title = group_ ? QStringLiteral("%1 × %2").arg(id_).arg(count_) : id_;
    // A long id shrinks before it is cut ("phone-0 × 1..." told nothing).
    while (f.pixelSize() > qRound(subtitlePixels(lod)) && QFontMetrics(f).horizontalAdvance(title) > text.width())
        f.setPixelSize(f.pixelSize() - 1);
    p->setFont(f);
    const qreal titleH = QFontMetrics(f).height();
    p->drawText(QRectF(text.left(), text.top(), text.width(), titleH), Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(f).elidedText(title, Qt::ElideMiddle, int(text.width())));
    f.setPixelSize(qRound(subtitlePixels(lod)));
    f.setBold(false);
    p->setFont(f);
    QColor dim = pal.color(QPalette::Text);
    dim.setAlphaF(0.75);
    p->setPen(dim);
    const QFontMetrics fm(f);
    const qreal lineH = fm.height();
    if (counts) {
        paintRunCounts(p, box, pal);
    } else {
        // A node during a run says what it does now.
        const QString last = runState_ >= 0 ? stateName(static_cast<NodeState>(runState_)) : cost_;
        qreal y = text.top() + titleH + 1;
        if (!compact || runState_ < 0) {
            // Compact and idle: the figures (throughput, link) are the line that stays.
            p->drawText(QRectF(text.left(), y, text.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                        fm.elidedText(figures_, Qt::ElideRight, int(text.width())));
            y += lineH;
        }
        if (!compact || runState_ >= 0) {
            if (runState_ >= 0) {
                QFont b = f;
                b.setBold(true);
                p->setFont(b);
                p->setPen(pal.color(QPalette::Text));
            }
            p->drawText(QRectF(text.left(), y, text.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                        fm.elidedText(last, Qt::ElideRight, int(text.width())));
        }
        p->setFont(f);
        p->setPen(dim);
    }
    if (nicIn_ >= 0 || nicOut_ >= 0) { // the network interface's meters at the right edge
        const QRectF meters(box.right() - 11, box.top() + 8, 7, box.height() - 16);
        int k = 0;
        QColor empty = pal.color(QPalette::Text);
        empty.setAlphaF(0.15);
        for (double u : {nicIn_, nicOut_}) {
            const QRectF m(meters.left() + k++ * 4, meters.top(), 3, meters.height());
            p->setPen(Qt::NoPen);
            p->setBrush(empty);
            p->drawRect(m);
            if (u > 0) {
                p->setBrush(EdgeItem::usageColor(u));
                const qreal h = m.height() * std::clamp(u, 0.0, 1.0);
                p->drawRect(QRectF(m.left(), m.bottom() - h, m.width(), h));
            }
        }
    }
    if (expanded_ && count_ > kMaxShownMembers) {
        p->setPen(dim);
        const QRectF m = membersRect();
        p->drawText(QRectF(m.left(), m.bottom() - lineH, m.width(), lineH), Qt::AlignCenter,
                    QObject::tr("+ %1 more").arg(count_ - kMaxShownMembers));
    }
}

void NodeItem::paintRunCounts(QPainter* p, const QRectF& box, const QPalette& pal) const {
    QFont f = QApplication::font();
    f.setPixelSize(11);
    f.setBold(true);
    p->setFont(f);
    const qreal left = box.left() + 7, width = box.width() - 14;
    const qreal cell = width / 3;
    QColor zero = pal.color(QPalette::Text);
    zero.setAlphaF(0.35);
    int k = 0;
    for (NodeState s : stateOrder()) {
        const int row = k < 3 ? 0 : 1, col = k < 3 ? k : k - 3;
        ++k;
        const QRectF r(left + col * cell, box.top() + 27 + row * 14, cell, 13);
        const int n = runCounts_[static_cast<std::size_t>(s)];
        QColor c = stateColor(s);
        if (n == 0) c.setAlphaF(0.3);
        p->setPen(QPen(pal.color(QPalette::Text), 0.6));
        p->setBrush(c);
        p->drawRect(QRectF(r.left(), r.center().y() - 4.5, 9, 9));
        p->setPen(n == 0 ? zero : pal.color(QPalette::Text));
        p->drawText(r.adjusted(12, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, shortNumber(n));
    }
    if (notJoined_ > 0) { // the free sixth cell: members still to join, a dashed empty square
        const QRectF r(left + 2 * cell, box.top() + 27 + 14, cell, 13);
        p->setPen(QPen(pal.color(QPalette::Text), 0.8, Qt::DashLine));
        p->setBrush(Qt::NoBrush);
        p->drawRect(QRectF(r.left(), r.center().y() - 4.5, 9, 9));
        p->setPen(pal.color(QPalette::Text));
        p->drawText(r.adjusted(12, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("+") + shortNumber(notJoined_));
    }
}

void NodeItem::setNotJoined(int count) {
    if (count == notJoined_) return;
    notJoined_ = count;
    refreshToolTip();
    update();
}

void NodeItem::setNicUsage(double in, double out, const QString& text) {
    if (in == nicIn_ && out == nicOut_ && text == nicText_) return;
    nicIn_ = in;
    nicOut_ = out;
    nicText_ = text;
    refreshToolTip();
    update();
}

QPointF NodeItem::anchor(int member) const {
    if (MemberItem* m = this->member(member)) return m->scenePos();
    return scenePos();
}

QRectF NodeItem::anchorRect(int member) const {
    if (MemberItem* m = this->member(member)) return m->sceneBoundingRect();
    return boxRect().translated(scenePos());
}

MemberItem* NodeItem::member(int k) const {
    return expanded_ && k >= 0 && k < members_.size() ? members_[k] : nullptr;
}

void NodeItem::layoutMembers() {
    const QRectF r = membersRect();
    for (int k = 0; k < members_.size(); ++k)
        members_[k]->setPos(r.left() + (k % kMemberColumns + 0.5) * kMemberStep,
                            r.top() + (k / kMemberColumns + 0.5) * kMemberStep);
}

void NodeItem::setExpanded(bool on) {
    if (on == expanded_ || (on && !group_)) return;
    prepareGeometryChange();
    expanded_ = on;
    qDeleteAll(members_);
    members_.clear();
    if (on) {
        const int shown = std::min(count_, kMaxShownMembers);
        members_.reserve(shown);
        for (int k = 0; k < shown; ++k)
            members_.append(new MemberItem(this, k));
        layoutMembers();
    }
    for (EdgeItem* e : edges_)
        e->adjust();
    update();
}

void NodeItem::setRunState(int state) {
    if (state == runState_) return;
    runState_ = state;
    refreshToolTip();
    update();
}

void NodeItem::setRunCounts(const std::array<int, 5>& counts) {
    if (hasRunCounts_ && counts == runCounts_) return;
    runCounts_ = counts;
    hasRunCounts_ = true;
    refreshToolTip();
    update();
}

void NodeItem::setMemberState(int k, int state) {
    if (MemberItem* m = member(k)) m->setState(state);
}

void NodeItem::clearRun() {
    runState_ = -1;
    hasRunCounts_ = false;
    runCounts_ = {};
    notJoined_ = 0;
    nicIn_ = nicOut_ = -1.0;
    nicText_.clear();
    for (MemberItem* m : members_)
        m->setState(-1);
    refreshToolTip();
    update();
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant& value) {
    if (change == ItemPositionChange)
        if (auto* s = qobject_cast<TopologyScene*>(scene()); s && s->isDraggingNodes())
            return s->dragPosition(this, value.toPointF());
    if (change == ItemPositionHasChanged)
        for (EdgeItem* e : edges_)
            e->adjust();
    return QGraphicsItem::itemChange(change, value);
}

void NodeItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) {
    if (group_ && e->button() == Qt::LeftButton) {
        setExpanded(!expanded_);
        e->accept();
        return;
    }
    QGraphicsItem::mouseDoubleClickEvent(e);
}

} // namespace fog
