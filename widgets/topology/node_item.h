#pragma once
// Canvas items that view one node or one group of the document. They hold a copy of what
// they draw (id, tier, figures) and are refreshed by the scene on the document's signals;
// moving one only moves the drawing until the scene commits the move to the document.

#include "core/system/metrics.h"
#include "core/spec/scenario.h"

#include <QGraphicsItem>
#include <QString>
#include <QStringList>
#include <QVector>

#include <array>

namespace fog {

class EdgeItem;
class NodeItem;

/// One member of an expanded group (a view of `<group>-<k>`).
class MemberItem : public QGraphicsItem {
  public:
    enum { Type = QGraphicsItem::UserType + 2 };
    static constexpr qreal kSize = 14;
    MemberItem(NodeItem* group, int index);
    int type() const override { return Type; }
    int index() const { return index_; }
    NodeItem* group() const;
    void setState(int state) {
        state_ = state;
        update();
    } ///< NodeState, or -1 for none
    QRectF boundingRect() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

  private:
    int index_;
    int state_ = -1;
};

class NodeItem : public QGraphicsItem {
  public:
    enum { Type = QGraphicsItem::UserType + 1 };
    static constexpr qreal kWidth = 160;
    static constexpr qreal kHeight = 58;
    /// Members drawn when a group is expanded; larger groups show the first ones and "+N".
    static constexpr int kMaxShownMembers = 400;

    explicit NodeItem(const QString& id);
    int type() const override { return Type; }

    const QString& id() const { return id_; }
    void setId(const QString& id);
    bool isGroup() const { return group_; }
    Tier tier() const { return tier_; }
    Role role() const { return role_; }
    int count() const { return count_; }
    /// A node or a group; `nestedUnder`: the group a group is placed under every member of.
    void setSpec(const NodeSpec& n, const QString& nestedUnder = {});

    /// A subtitle (figures, state) is at least this many pixels high on screen at every zoom
    /// where text is drawn (0.45 and above; 0.35 to 0.45 keeps the largest scale).
    static constexpr qreal kMinSubtitleScreenPx = 9;
    /// The factor the box's text is enlarged by at view scale `lod` (1 at zoom 1 and above;
    /// times the text boost, up to what the box holds).
    static qreal textScale(qreal lod);
    /// How much larger the canvas writes its text (boxes, message tags):
    /// 1, or presentation mode's 1.5. Every canvas follows it at its next repaint.
    static void setTextBoost(qreal boost);
    static qreal textBoost();
    /// The title's font size in scene pixels at view scale `lod` (a short id; a long one
    /// shrinks to fit the box).
    static qreal titlePixels(qreal lod);
    /// The subtitle's font size in scene pixels at view scale `lod`.
    static qreal subtitlePixels(qreal lod);

    QRectF boxRect() const { return {-kWidth / 2, -kHeight / 2, kWidth, kHeight}; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

    void addEdge(EdgeItem* e) { edges_.append(e); }
    void removeEdge(EdgeItem* e) { edges_.removeAll(e); }
    const QVector<EdgeItem*>& edges() const { return edges_; }
    /// Where edges and messages attach: the box centre, or member k when expanded and shown.
    QPointF anchor(int member = -1) const;
    /// The shape lines are clipped against (box, or member circle), in scene coordinates.
    QRectF anchorRect(int member = -1) const;

    bool isExpanded() const { return expanded_; }
    void setExpanded(bool on);
    MemberItem* member(int k) const;

    /// Run view: a single node's state (-1: none).
    void setRunState(int state);
    /// Run view: how many members are in each NodeState (groups).
    void setRunCounts(const std::array<int, 5>& counts);
    /// Run view: members that `add` events bring and that have not joined yet (groups; not
    /// in runCounts: drawn as "to join", not offline). 0: none, nothing drawn.
    void setNotJoined(int count);
    int notJoined() const { return notJoined_; }
    void setMemberState(int k, int state);
    /// Run view: how many members are in each state (groups; empty when not set).
    const std::array<int, 5>& runCounts() const { return runCounts_; }
    bool hasRunCounts() const { return hasRunCounts_; }
    int runState() const { return runState_; }
    /// Run view: the node's network interface in use (0..1 in and out; negative: not
    /// shown) and what to say about it (tool tip).
    void setNicUsage(double in, double out, const QString& text);
    void clearRun();
    /// The order group counts are drawn in, and their names.
    static const std::array<NodeState, 5>& stateOrder();
    static QString stateName(NodeState s);
    /// Problems the validator found for this node or group (empty: none): a warning
    /// badge on the box, the messages in the tool tip.
    void setProblems(const QStringList& messages);
    const QStringList& problems() const { return problems_; }

  protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) override;

  private:
    void layoutMembers();
    void refreshToolTip();
    void paintRunCounts(QPainter* p, const QRectF& box, const QPalette& pal) const;
    QRectF membersRect() const;

    QString id_;
    QStringList problems_;
    QString baseToolTip_;
    bool group_ = false;
    Tier tier_ = Tier::Device;
    Role role_ = Role::Trainer;
    int count_ = 1;
    QString figures_; ///< "200 samples/s", "100–300 samples/s"
    QString cost_;    ///< "$0.40/h · aggregator"
    bool expanded_ = false;
    QVector<MemberItem*> members_;
    QVector<EdgeItem*> edges_;
    int runState_ = -1;
    std::array<int, 5> runCounts_{};
    bool hasRunCounts_ = false;
    int notJoined_ = 0;
    double nicIn_ = -1.0, nicOut_ = -1.0;
    QString nicText_;
};

} // namespace fog
