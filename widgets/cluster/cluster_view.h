#pragma once
// The studio's plots of cluster episodes (QCustomPlot): summary, queue length, utilisation
// per resource (CPU, GPU, memory, bandwidth), completion-time CDFs, a per-server Gantt chart,
// the task types' resource-speed curves and the learned scheduler's training curve. Fed
// live (batches of samples and finished tasks while an episode runs, training progress per
// episode) or with a whole finished episode.

#include "core/cluster/cluster_emulator.h"
#include "core/cluster/learned_scheduler.h"

#include <QWidget>

class QCustomPlot;
class QLabel;
class QTabWidget;

namespace fog {

class ClusterView : public QWidget {
    Q_OBJECT
public:
    explicit ClusterView(QWidget* parent = nullptr);

    /// A finished (or stopped) episode: every plot redrawn from it.
    void showRun(const cluster::ClusterScenario& s, const cluster::ClusterResult& r);
    /// Clears the episode plots for a live run of `s` with `scheduler`.
    void beginLive(const cluster::ClusterScenario& s, const QString& scheduler, std::uint64_t seed);
    /// Appends what a running episode produced since the last call (replots at most ~30 Hz).
    void appendLive(const std::vector<cluster::ClusterSample>& samples, const std::vector<cluster::TaskRecord>& finished);

    /// Draws each task type's speed against GPUs (at its requested CPUs) and against CPUs
    /// (at its requested GPUs), over what the largest server offers.
    void showSpeedCurves(const cluster::ClusterScenario& s);

    /// Training curve: clears it (for `episodes` planned), then one point per episode.
    void beginTraining(int episodes);
    void appendTraining(const std::vector<cluster::TrainProgress>& progress);
    /// Fits the axes to the episodes trained (after a stop, the planned range is too wide).
    void fitTraining();

    /// Redraws every plot in the current palette's colours (a theme change).
    void restyle();

    QCustomPlot* queuePlot() const { return queue_; }
    QCustomPlot* utilisationPlot() const { return utilisation_; }
    QCustomPlot* cdfPlot() const { return cdf_; }
    QCustomPlot* ganttPlot() const { return gantt_; }
    QCustomPlot* speedPlot() const { return speed_; }
    QCustomPlot* trainingPlot() const { return training_; }
    QTabWidget* tabs() const { return tabs_; }
    QString summaryText() const;
    void setSummaryText(const QString& html);

protected:
    void changeEvent(QEvent* event) override;

private:
    void styleAll();
    void drawCdf();
    void drawGanttFromTasks();
    void scheduleReplot();

    QLabel* summary_;
    QTabWidget* tabs_;
    QCustomPlot *queue_, *utilisation_, *cdf_, *gantt_, *speed_, *training_;
    // Live state.
    cluster::ClusterScenario scenario_;
    std::vector<cluster::TaskRecord> finished_;
    int totalCpus_ = 0, totalGpus_ = 0;
    double totalMemory_ = 0, totalBandwidth_ = 0;
    double trainingWindow_ = 0;
    std::vector<double> trainingValues_;
    bool replotPending_ = false;
};

} // namespace fog
