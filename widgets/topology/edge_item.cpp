#include "widgets/topology/edge_item.h"

#include "widgets/topology/node_item.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPathStroker>
#include <QWidget>

#include <cmath>

namespace fog {

namespace {

/// Where the segment from inside `r` to `outside` leaves the rectangle.
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

} // namespace

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
}

QRectF EdgeItem::boundingRect() const {
    return QRectF(line_.p1(), line_.p2()).normalized().adjusted(-8, -8, 8, 8);
}

QPainterPath EdgeItem::shape() const {
    QPainterPath path(line_.p1());
    path.lineTo(line_.p2());
    QPainterPathStroker s;
    s.setWidth(10);
    return s.createStroke(path);
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
    p->setPen(pen);
    p->drawLine(line_);
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
