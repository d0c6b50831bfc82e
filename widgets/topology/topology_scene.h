#pragma once
// The canvas scene: a view of a ScenarioDocument's topology. It builds one item per node and
// group, lines for parent links and explicit links, and keeps them in step with the
// document's change signals. User gestures become document edits (a finished drag is one
// moveEntities call, a drawn link one connect call); nothing here changes the model directly.

#include "core/system/metrics.h"
#include "widgets/document/scenario_document.h"
#include "widgets/topology/run_activity.h"
#include "widgets/topology/message_layer.h"
#include "widgets/topology/node_templates.h"

#include <QMap>
#include <QGraphicsScene>
#include <QHash>
#include <QSet>

#include <array>

#include <vector>

class QGraphicsLineItem;

namespace fog {

class EdgeItem;
class MessageLayer;
class NodeItem;
class ScenarioDocument;

class TopologyScene : public QGraphicsScene {
    Q_OBJECT
  public:
    explicit TopologyScene(ScenarioDocument* doc, QObject* parent = nullptr);
    ~TopologyScene() override;
    ScenarioDocument* document() const { return doc_; }

    NodeItem* item(const QString& id) const { return items_.value(id); }
    int itemCount() const { return items_.size(); }
    const QVector<EdgeItem*>& linkItems() const { return links_; }
    /// The item drawing a node id: a node's item, or the group item of a member id (with
    /// the member's index in `member`).
    NodeItem* itemForNodeId(const QString& id, int* member = nullptr) const;

    QStringList selectedIds() const;
    /// The nodes of the run going (RunInfo::nodes indices) drawn by the item `id`: the node
    /// itself, or a group's members (none before a run, or for an unknown id).
    std::vector<int> runNodesOf(const QString& id) const;
    std::vector<int> selectedLinks() const;
    void selectIds(const QStringList& ids);

    bool snapToGrid() const { return snap_; }
    void setSnapToGrid(bool on) { snap_ = on; }
    static constexpr qreal kGrid = 20;
    QPointF snap(QPointF p) const;
    /// Where a dragged item goes: all selected items move by one delta, chosen so that the
    /// item grabbed lands on the grid (the others keep their offsets to it).
    QPointF dragPosition(const NodeItem* item, QPointF proposed) const;
    /// True while the user drags nodes with the mouse (items snap only then).
    bool isDraggingNodes() const { return draggingNodes_; }

    /// Link mode: a left drag from one node to another draws a link (as Shift+drag always does).
    bool linkMode() const { return linkMode_; }
    void setLinkMode(bool on) { linkMode_ = on; }

    /// Adds a node or group from a palette template at `pos` (snapped). Dropped on an
    /// aggregator, a trainer or a relay gets it as parent; a relay dropped on a parent line
    /// is inserted into it. One undo step; returns the new id.
    QString addFromTemplate(NodeTemplate t, QPointF pos, int count = 10);
    /// Adds `relay` between the child of a parent line and its parent (one undo step).
    QString insertRelay(NodeSpec relay, EdgeItem* edge, QPointF pos);

    // --- run view ---
    /// Maps the run's expanded node indices to items (group members to their group).
    void setRunNodes(const std::vector<NodeInfo>& nodes);
    /// The run's shared capacities (RunInfo::links; empty without contention): each is
    /// drawn on the edge between its two nodes' items (a node's interface on its item).
    void setRunLinks(const std::vector<LinkInfo>& links);
    void showFrame(const ActivityFrame& frame);
    void clearRunState();
    /// Messages shown (however many tags draw them) and the tags drawn.
    int messagesShown() const;
    int messageMarksShown() const;
    MessageLayer* messageLayer() const { return messages_; }
    /// Edges drawn with a utilisation now.
    int edgesInUse() const;
    /// The edge a run link is drawn on (nullptr: none, e.g. a node's interface).
    EdgeItem* edgeForRunLink(int link);
    /// Called by the view when its zoom changes (message tags keep their size on screen).
    void viewScaleChanged();

    /// Marks the items with problems (node or group id -> messages): a warning badge and
    /// the messages in the tool tip. Kept across rebuilds until replaced.
    void markProblems(const QMap<QString, QStringList>& byId);
    QMap<QString, QStringList> problems() const { return problems_; }

  public Q_SLOTS:
    /// Rebuilds every item from the document (after a reset).
    void rebuild();

  protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* e) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent* e) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* e) override;
    void drawBackground(QPainter* p, const QRectF& rect) override;

  private:
    NodeItem* nodeItemAt(QPointF scenePos, int* member = nullptr) const;
  public:
    /// The link whose line passes within a few screen pixels of `scenePos` (as seen in the
    /// view whose viewport is `viewport`), nearest first; nullptr when none.
    EdgeItem* edgeNear(QPointF scenePos, QWidget* viewport = nullptr) const;
  private:
    NodeItem* createItem(const QString& id, EntityRef e);
    /// Refreshes from the document; `e` saves a look-up when the caller knows it.
    void updateItem(NodeItem* item, EntityRef e = {});
    void deleteItem(NodeItem* item);
    /// Positions for items without one come from the tier layout.
    void placeUnpositioned();
    /// placeUnpositioned() once the current change is complete.
    void schedulePlacement();
    bool placementPending_ = false;
    void updateParentEdge(NodeItem* child, const QString& parentId);
    void rebuildParentEdges();
    /// Recreates the explicit link items, keeping selected links selected: `at`/`shift`
    /// describe an insertion (+1) or removal (-1) at index `at` that renumbered them.
    void rebuildLinks(int at = 0, int shift = 0);

    void onNodeAdded(const QString& id);
    void onNodeRemoved(const QString& id);
    void onNodeChanged(const QString& id);
    void onNodeRenamed(const QString& oldId, const QString& newId);

    ScenarioDocument* doc_;
    QHash<QString, NodeItem*> items_;
    QHash<NodeItem*, EdgeItem*> parentEdges_; ///< child item -> its parent link
    QVector<EdgeItem*> links_;
    MessageLayer* messages_ = nullptr;
    bool snap_ = true;
    bool linkMode_ = false;
    bool draggingNodes_ = false;
    QHash<NodeItem*, QPointF> dragStart_;
    NodeItem* grabbed_ = nullptr;
    QGraphicsLineItem* rubberLink_ = nullptr;
    QString linkFrom_;
    /// Run view: per expanded node index, the item and member index (-1 for a node).
    std::vector<std::pair<NodeItem*, int>> runMap_;
    QStringList runIds_; ///< the run's node ids, to map again after a rebuild
    QMap<QString, QStringList> problems_;
    void mapRunNodes();
    /// A message between `a` and an ancestor (or descendant) `b` several drawn lines away:
    /// adds its tag on the line of the path it has reached (false: not such a message).
    bool dotAlongDrawnLines(NodeItem* a, NodeItem* b, const MessageInFlight& m, QVector<MessageLayer::Dot>& dots) const;
    /// Run view: links to edges and interfaces to items, again after any rebuild.
    void mapRunLinks();
    void showLinkLoads(const std::vector<LinkLoad>& loads);
    std::vector<LinkInfo> runLinks_;
    std::vector<EdgeItem*> linkEdge_;   ///< per run link: its edge (nullptr: none)
    std::vector<int> linkDirection_;    ///< per run link: 0 along its edge, 1 against it
    std::vector<NodeItem*> linkNic_;    ///< per run link: the item of an interface
    QHash<EdgeItem*, std::array<int, 2>> edgeLinkCount_; ///< links drawn on an edge, per direction
    QSet<EdgeItem*> usedEdges_;
    QSet<NodeItem*> nicItems_;
    bool linksDirty_ = true;
    void markLinksDirty();
};

} // namespace fog
