#pragma once
// A line between two canvas items: a child's link to its parent (solid, arrow towards the
// parent) or an explicit link of `topology.links` (dashed, selectable, deletable).

#include <QGraphicsItem>
#include <QLineF>
#include <QPainterPath>

namespace fog {

/// Where the segment from inside `r` to `outside` leaves the rectangle (`inside` if it
/// does not).
QPointF exitPoint(const QRectF& r, const QPointF& inside, const QPointF& outside);

class NodeItem;

class EdgeItem : public QGraphicsItem {
  public:
    enum { Type = QGraphicsItem::UserType + 3 };
    /// `linkIndex` < 0: the parent link of `from` (the child) to `to` (the parent).
    EdgeItem(NodeItem* from, int fromMember, NodeItem* to, int toMember, int linkIndex);
    ~EdgeItem() override;
    int type() const override { return Type; }

    NodeItem* from() const { return from_; }
    NodeItem* to() const { return to_; }
    int fromMember() const { return fromMember_; }
    int toMember() const { return toMember_; }
    bool isParentLink() const { return linkIndex_ < 0; }
    int linkIndex() const { return linkIndex_; }
    /// Detaches from the end items (before they go away).
    void detach();

    void adjust();
    QLineF line() const { return line_; }
    /// True when an explicit link bends around a node its straight line would cross.
    bool isCurved() const { return curved_; }
    /// Distance from `p` to the drawn line or curve, in scene units.
    double distanceTo(const QPointF& p) const;
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

    /// Run view: how busy the link is (0..1, drawn as width and colour under the line) and
    /// what to say about it (the tool tip); a negative value clears it.
    void setUsage(double utilisation, const QString& text);
    double usage() const { return usage_; }
    /// The colour of a utilisation (0..1): teal, yellow, red.
    static QColor usageColor(double utilisation);

  private:
    NodeItem* from_;
    int fromMember_;
    NodeItem* to_;
    int toMember_;
    int linkIndex_;
    QLineF line_;
    bool curved_ = false;
    QPainterPath path_; ///< what is drawn: the line, or a curve around nodes in the way
    double usage_ = -1.0;
    QString idleToolTip_;
    bool hasUsage_ = false;
};

} // namespace fog
