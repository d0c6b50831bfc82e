#pragma once
// The drawn view of a cluster scenario (issue 17): each edge server is a box inside the frame
// of its cluster, labelled with its CPUs, GPUs, memory and bandwidth; each resource has a
// track whose length is the server's capacity relative to the largest server's, filled with
// the share in use (live while a run goes, the episode's time average after it). Boxes and
// frames move by drag (layout only, not saved); dropping a server on another cluster's frame
// moves it there. Adding, duplicating and removing go through the editor's server table (the
// canvas holds no scenario of its own), so every change gets the editor's checks; selection
// is the same on both sides.

#include "core/cluster/cluster_emulator.h"

#include <QHash>
#include <QPointF>
#include <QWidget>

#include <array>

class QAction;
class QGraphicsScene;
class QGraphicsView;
class QLabel;

namespace fog {

class ClusterEditor;

class ClusterCanvas : public QWidget {
    Q_OBJECT
  public:
    explicit ClusterCanvas(ClusterEditor* editor, QWidget* parent = nullptr);
    ~ClusterCanvas() override;

    /// Redraws the boxes from the editor's server table (called on every edit).
    void rebuild();

    /// Resources of a box's fill bars.
    enum Resource { Cpu, Gpu, Memory, Bandwidth, Resources };
    /// A live run of `s` starts: the boxes show its servers' use from now on.
    void beginLive(const cluster::ClusterScenario& s);
    /// The servers' free resources at one instant (flattenServers order of beginLive's scenario).
    void setLive(const std::vector<cluster::ServerState>& servers);
    /// The episode ended: each box shows its time-average use over the episode.
    void showMeans(const cluster::ClusterScenario& s, const cluster::ClusterResult& r);
    /// Back to capacities only.
    void clearUse();

    /// Table rows of the selected server boxes (a selected cluster frame counts its servers).
    QList<int> selectedRows() const;
    /// The row's box drawn share in use of `resource`, in [0, 1]; -1 when it shows none.
    double shownUse(int row, Resource resource) const;
    /// Server boxes drawn / cluster frames drawn.
    int boxCount() const;
    int frameCount() const;
    /// Scene position of the row's box (tests drag and click it); null point when none.
    QPointF boxCenter(int row) const;
    QPointF frameTitlePoint(const QString& cluster) const;
    QGraphicsView* graphicsView() const { return view_; }

    QAction* addClusterAction() const { return addCluster_; }
    QAction* duplicateAction() const { return duplicate_; }
    QAction* removeAction() const { return remove_; }

    /// The context menu's actions at a scene point (tests trigger them by text).
    QList<QAction*> contextActions(const QPointF& scenePos, QObject* owner);

    // Called by the items.
    void serverDropped(int row, const QString& fromCluster, const QPointF& scenePos,
                       const QPointF& local);
    void frameMoved(const QString& cluster, const QPointF& pos);
    void editRow(int row);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void sceneSelectionChanged();
    void tableSelectionChanged();
    void addServerHere();
    void duplicateSelected();
    void removeSelected();
    void updateActions();

    ClusterEditor* editor_;
    QGraphicsScene* scene_;
    QGraphicsView* view_;
    QLabel* mode_;
    QAction *addCluster_, *addServer_, *duplicate_, *remove_;
    bool syncing_ = false;
    QHash<QString, QPointF> clusterPos_; ///< frames the user moved
    QHash<QString, QPointF> serverPos_;  ///< boxes the user moved (in their frame)
    // Use shown, by server id: share in use of each resource, or -1.
    QHash<QString, std::array<double, Resources>> use_;
    std::vector<QString> liveIds_; ///< flattenServers index -> server id of the live run
    std::vector<std::array<double, Resources>> liveCaps_;
};

} // namespace fog
