#pragma once
// The canvas scene: a view of a ScenarioDocument's topology. It builds one item per node and
// group, lines for parent links and explicit links, and keeps them in step with the
// document's change signals. User gestures become document edits (a finished drag is one
// moveEntities call, a drawn link one connect call); nothing here changes the model directly.

#include "core/system/metrics.h"
#include "widgets/document/scenario_document.h"
#include "widgets/run/run_activity.h"
#include "widgets/topology/node_templates.h"

#include <QMap>
#include <QGraphicsScene>
#include <QHash>

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
    /// aggregator, a trainer gets it as parent. One undo step; returns the new id.
    QString addFromTemplate(NodeTemplate t, QPointF pos, int count = 10);

    // --- run view ---
    /// Maps the run's expanded node indices to items (group members to their group).
    void setRunNodes(const std::vector<NodeInfo>& nodes);
    void showFrame(const ActivityFrame& frame);
    void clearRunState();
    int messagesShown() const;

    /// Marks the items with problems (node or group id -> messages): a warning badge and
    /// the messages in the tool tip. Kept across rebuilds until replaced.
    void markProblems(const QMap<QString, QStringList>& byId);
    QMap<QString, QStringList> problems() const { return problems_; }

  public Q_SLOTS:
    /// Rebuilds every item from the document (after a reset).
    void rebuild();

  Q_SIGNALS:
    /// A finished drag moved these items (already committed to the document).
    void nodesMoved(const QStringList& ids);

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
};

} // namespace fog
