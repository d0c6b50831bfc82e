#pragma once
// The cluster part of the comparison (issue 17): completion-time CDFs of the compared
// cluster runs side by side (run i in seriesColor(i), as everywhere in the comparison), the
// mean completion time per scheduler with its 95% CI over seeds, and a table with mean and
// p95 completion (mean ± CI over the runs of one scenario and scheduler). The drawing
// functions are shared with the exporters (plots, reports).

#include "core/cluster/cluster_compare.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QTableWidget;

namespace fog {

/// One empirical CDF of completion times per run; `colors[i]` and `labels[i]` for run i.
void plotClusterCdfs(QCustomPlot* plot, const std::vector<cluster::ComparedClusterRun>& runs,
                     const std::vector<QString>& labels, const std::vector<QColor>& colors);
/// Mean completion time per group as bars with 95% CI whiskers, p95 as diamonds.
void plotClusterGroups(QCustomPlot* plot, const std::vector<cluster::ClusterGroup>& groups);
/// "12.345 ± 0.678" (no ± for a single run).
QString formatClusterCi(const cluster::MeanCi& m, int decimals = 3);

class ClusterComparison : public QWidget {
    Q_OBJECT
  public:
    enum Column {
        ScenarioCol,
        SchedulerCol,
        RunsCol,
        MeanCol,
        P95Col,
        MakespanCol,
        GpuCol,
        ColumnCount
    };
    explicit ClusterComparison(QWidget* parent = nullptr);
    void setRuns(std::vector<cluster::ComparedClusterRun> runs, const std::vector<QString>& labels,
                 const std::vector<QColor>& colors);
    const std::vector<cluster::ComparedClusterRun>& runs() const { return runs_; }
    const std::vector<cluster::ClusterGroup>& groups() const { return groups_; }
    QCustomPlot* cdfPlot() const { return cdf_; }
    QCustomPlot* groupPlot() const { return bars_; }
    QTableWidget* table() const { return table_; }

  protected:
    void changeEvent(QEvent* event) override;

  private:
    void redraw();
    std::vector<cluster::ComparedClusterRun> runs_;
    std::vector<cluster::ClusterGroup> groups_;
    std::vector<QString> labels_;
    std::vector<QColor> colors_;
    QCustomPlot* cdf_;
    QCustomPlot* bars_;
    QTableWidget* table_;
};

} // namespace fog
