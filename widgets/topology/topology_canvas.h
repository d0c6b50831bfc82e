#pragma once
// The topology editor's view: zoom (wheel, fit), pan (middle button or scroll bars),
// rubber-band selection, drops from the palette, and the editing actions the main window
// puts in its menus. It shows a TopologyScene, which views a ScenarioDocument.

#include "core/system/metrics.h"
#include "widgets/topology/run_activity.h"
#include "widgets/topology/node_templates.h"

#include <QGraphicsView>

#include <functional>

class QAction;
class QMenu;

namespace fog {

class RunLegend;
class ScenarioDocument;
class TopologyScene;

class TopologyCanvas : public QGraphicsView {
    Q_OBJECT
  public:
    explicit TopologyCanvas(ScenarioDocument* doc, QWidget* parent = nullptr);
    TopologyScene* topologyScene() const { return scene_; }
    ScenarioDocument* document() const { return doc_; }

    /// Editing actions with standard shortcuts (context: this widget and its children; a
    /// main window that puts them in menus may widen it). Also in QWidget::actions().
    QAction* deleteAction() const { return delete_; }
    QAction* cutAction() const { return cut_; }
    QAction* copyAction() const { return copy_; }
    QAction* pasteAction() const { return paste_; }
    QAction* selectAllAction() const { return selectAll_; }
    QAction* autoLayoutAction() const { return autoLayout_; }
    QAction* zoomInAction() const { return zoomIn_; }
    QAction* zoomOutAction() const { return zoomOut_; }
    QAction* zoomFitAction() const { return zoomFit_; }
    QAction* snapAction() const { return snap_; }         ///< checkable
    QAction* linkModeAction() const { return linkMode_; } ///< checkable

    qreal zoom() const { return transform().m11(); }

    // Run view (forwarded to the scene).
    void setRunNodes(const std::vector<NodeInfo>& nodes);
    void setRunLinks(const std::vector<LinkInfo>& links);
    void showFrame(const ActivityFrame& frame);
    void clearRunState();
    /// The key to messages, states and link use, shown during a run.
    RunLegend* runLegend() const { return legend_; }

    /// Adds entries to the context menu for what was right-clicked: a NodeItem, a
    /// MemberItem or an EdgeItem (nullptr: the background). The run view's interventions
    /// (widgets/intervene/intervene_menu.h) come in this way.
    using ContextMenuHook = std::function<void(QMenu& menu, QGraphicsItem* item)>;
    void setContextMenuHook(ContextMenuHook hook) { menuHook_ = std::move(hook); }
    /// What a right click at viewport position `pos` is about (node, member, then a link
    /// within a few pixels), or nullptr.
    QGraphicsItem* menuItemAt(const QPoint& pos) const;
    /// Fills `menu` as a right click at viewport position `pos` does.
    void fillContextMenu(QMenu& menu, const QPoint& pos);

  public Q_SLOTS:
    void deleteSelection();
    void cut();
    void copy();
    void paste();
    void selectAll();
    void autoLayout();
    void zoomIn();
    void zoomOut();
    void zoomFit();
    void toggleSnap(bool on);
    void setLinkMode(bool on);
    /// Adds a template at the centre of the view (palette double-click).
    QString addAtCentre(fog::NodeTemplate t, int count);

  protected:
    void wheelEvent(QWheelEvent* e) override;
    void contextMenuEvent(QContextMenuEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dragMoveEvent(QDragMoveEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

  private:
    void zoomBy(qreal factor);
    void updateActions();
    void placeLegend();

    ScenarioDocument* doc_;
    TopologyScene* scene_;
    QAction* delete_;
    QAction* cut_;
    QAction* copy_;
    QAction* paste_;
    QAction* selectAll_;
    QAction* autoLayout_;
    QAction* zoomIn_;
    QAction* zoomOut_;
    QAction* zoomFit_;
    QAction* snap_;
    QAction* linkMode_;
    bool panning_ = false;
    QPoint panFrom_;
    int pasteCount_ = 0;
    RunLegend* legend_ = nullptr;
    ContextMenuHook menuHook_;
};

} // namespace fog
