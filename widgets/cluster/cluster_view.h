#pragma once
// The studio's view of one cluster episode: summary, queue length, utilisation per
// resource, completion-time CDF and a per-server Gantt chart (QCustomPlot).

#include "core/cluster/cluster_emulator.h"

#include <QWidget>

class QCustomPlot;
class QLabel;
class QTabWidget;

namespace fog {

class ClusterView : public QWidget {
    Q_OBJECT
public:
    explicit ClusterView(QWidget* parent = nullptr);
    void showRun(const cluster::ClusterScenario& s, const cluster::ClusterResult& r);

    QCustomPlot* queuePlot() const { return queue_; }
    QCustomPlot* utilisationPlot() const { return utilisation_; }
    QCustomPlot* cdfPlot() const { return cdf_; }
    QCustomPlot* ganttPlot() const { return gantt_; }
    QString summaryText() const;

private:
    QLabel* summary_;
    QTabWidget* tabs_;
    QCustomPlot *queue_, *utilisation_, *cdf_, *gantt_;
};

/// Loads a `kind: cluster` file, runs one episode with its scheduler and seed, and shows it
/// in a window of its own. False (with `error`) when the file or the scheduler cannot be used.
bool openClusterWindow(const QString& path, QWidget* parent, QString* error);

} // namespace fog
