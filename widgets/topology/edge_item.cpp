#include "widgets/topology/edge_item.h"

#include "widgets/topology/node_item.h"

#include <QApplication>
#include <QPainter>
#include <QGraphicsScene>
#include <QPainterPathStroker>
#include <QWidget>

#include <algorithm>
#include <cmath>

namespace fog {

QPointF exitPoint(const QRectF& r, const QPointF& inside, const QPointF& outside) {
    const QLineF l(inside, outside);
    const QLineF sides[] = {{r.topLeft(), r.topRight()},
                            {r.topRight(), r.bottomRight()},
                            {r.bottomRight(), r.bottomLeft()},
                            {r.bottomLeft(), r.topLeft()}};
    QPointF hit;
    for (const QLineF& s : sides)
        if (l.intersects(s, &hit) == QLineF::BoundedIntersection) return hit;
    return inside;
}

EdgeItem::EdgeItem(NodeItem* from, int fromMember, NodeItem* to, int toMember, int linkIndex)
    : from_(from), fromMember_(fromMember), to_(to), toMember_(toMember), linkIndex_(linkIndex) {
    setZValue(linkIndex < 0 ? 0 : 0.5);
    if (linkIndex >= 0) setFlag(ItemIsSelectable);
    from_->addEdge(this);
    to_->addEdge(this);
    adjust();
}

EdgeItem::~EdgeItem() {
    detach();
}

void EdgeItem::detach() {
    if (from_) from_->removeEdge(this);
    if (to_) to_->removeEdge(this);
    from_ = to_ = nullptr;
}

void EdgeItem::adjust() {
    if (!from_ || !to_) return;
    const QPointF a = from_->anchor(fromMember_), b = to_->anchor(toMember_);
    prepareGeometryChange();
    line_ = QLineF(exitPoint(from_->anchorRect(fromMember_), a, b),
                   exitPoint(to_->anchorRect(toMember_), b, a));
    path_ = QPainterPath(line_.p1());
    curved_ = false;
    if (!isParentLink() && scene() && line_.length() > 1) {
        // An explicit link (between regions' servers, say) whose straight line passes behind
        // another node bends over it, so that it can be seen and clicked.
        bool blocked = false;
        for (QGraphicsItem* it : scene()->items(QRectF(line_.p1(), line_.p2()).normalized().adjusted(-1, -1, 1, 1))) {
            if (it == from_ || it == to_ || it->type() != from_->type()) continue;
            const QRectF box = it->mapRectToScene(it->boundingRect()).adjusted(4, 4, -4, -4);
            const QLineF sides[] = {{box.topLeft(), box.topRight()},
                                    {box.topRight(), box.bottomRight()},
                                    {box.bottomRight(), box.bottomLeft()},
                                    {box.bottomLeft(), box.topLeft()}};
            for (const QLineF& side : sides) blocked = blocked || line_.intersects(side, nullptr) == QLineF::BoundedIntersection;
            if (blocked) break;
        }
        if (blocked) {
            curved_ = true;
            // Bulge up (or left for a vertical line) by a share of the length.
            QPointF normal(line_.dy(), -line_.dx());
            normal /= std::max(1e-9, std::hypot(normal.x(), normal.y()));
            if (normal.y() > 0 || (std::abs(normal.y()) < 1e-9 && normal.x() > 0)) normal = -normal;
            const double bulge = std::max(90.0, 0.35 * line_.length());
            const QPointF control = (line_.p1() + line_.p2()) / 2 + normal * bulge * 2;
            // Leave the end boxes towards the control point, not towards the far end.
            const QPointF p1 = exitPoint(from_->anchorRect(fromMember_), a, control);
            const QPointF p2 = exitPoint(to_->anchorRect(toMember_), b, control);
            path_ = QPainterPath(p1);
            path_.quadTo(control, p2);
            return;
        }
    }
    path_.lineTo(line_.p2());
}

QRectF EdgeItem::boundingRect() const {
    return path_.boundingRect().united(QRectF(line_.p1(), line_.p2()).normalized()).adjusted(-9, -9, 9, 9);
}

QColor EdgeItem::usageColor(double u) {
    u = std::clamp(u, 0.0, 1.0);
    const QColor stops[] = {QColor(68, 170, 153), QColor(238, 204, 102), QColor(204, 51, 17)};
    const double x = u * 2;
    const int i = std::min(1, static_cast<int>(x));
    const double f = x - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(a.redF() + (b.redF() - a.redF()) * f, a.greenF() + (b.greenF() - a.greenF()) * f,
                            a.blueF() + (b.blueF() - a.blueF()) * f);
}

void EdgeItem::setUsage(double utilisation, const QString& text) {
    if (!hasUsage_) idleToolTip_ = toolTip();
    if (utilisation < 0) {
        if (!hasUsage_) return;
        hasUsage_ = false;
        usage_ = -1.0;
        setToolTip(idleToolTip_);
        update();
        return;
    }
    hasUsage_ = true;
    usage_ = std::clamp(utilisation, 0.0, 1.0);
    setToolTip(idleToolTip_.isEmpty() ? text : idleToolTip_ + "\n" + text);
    update();
}

QPainterPath EdgeItem::shape() const {
    QPainterPathStroker s;
    s.setWidth(10);
    return s.createStroke(path_);
}

double EdgeItem::distanceTo(const QPointF& p) const {
    if (!curved_) {
        const QPointF d = line_.p2() - line_.p1();
        const double len2 = d.x() * d.x() + d.y() * d.y();
        const double t = len2 > 0 ? std::clamp(QPointF::dotProduct(p - line_.p1(), d) / len2, 0.0, 1.0) : 0.0;
        return QLineF(line_.p1() + t * d, p).length();
    }
    double best = 1e300;
    for (int i = 0; i <= 64; ++i) best = std::min(best, QLineF(path_.pointAtPercent(i / 64.0), p).length());
    return best;
}

void EdgeItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* w) {
    if (line_.length() < 1) return;
    const QPalette pal = w ? w->palette() : QApplication::palette();
    p->setRenderHint(QPainter::Antialiasing);
    QColor c = pal.color(QPalette::Text);
    if (isParentLink()) c.setAlphaF(0.55);
    QPen pen(isSelected() ? pal.color(QPalette::Highlight) : c, isSelected() ? 3 : 1.6);
    if (!isParentLink()) {
        pen.setStyle(Qt::DashLine);
        pen.setWidthF(isSelected() ? 3 : 2);
    }
    pen.setCapStyle(Qt::RoundCap);
    if (usage_ >= 0) { // run view: a band under the line, wider and redder as the link fills
        QPen band(usageColor(usage_), 4 + 12 * usage_);
        band.setCapStyle(Qt::RoundCap);
        p->setPen(band);
        p->setBrush(Qt::NoBrush);
        p->drawPath(path_);
    }
    p->setPen(pen);
    if (curved_) {
        p->setBrush(Qt::NoBrush);
        p->drawPath(path_);
    } else {
        p->drawLine(line_);
    }
    if (isParentLink()) { // arrow head at the parent: updates flow up this way
        const double angle = std::atan2(line_.dy(), line_.dx());
        const QPointF tip = line_.p2();
        const double len = 9, spread = 0.45;
        const QPointF a = tip - QPointF(std::cos(angle - spread), std::sin(angle - spread)) * len;
        const QPointF b = tip - QPointF(std::cos(angle + spread), std::sin(angle + spread)) * len;
        p->setBrush(pen.color());
        p->setPen(Qt::NoPen);
        p->drawPolygon(QPolygonF({tip, a, b}));
    }
}

} // namespace fog
