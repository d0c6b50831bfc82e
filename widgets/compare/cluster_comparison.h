#pragma once
// The cluster part of the comparison (issue 17): the completion-time CDFs and the mean
// completion time per scheduler (widgets/figures/cluster_plots.h, shared with the exporters)
// above a table with mean and p95 completion (mean ± CI over the runs of one scenario and
// scheduler).

#include "core/cluster/cluster_compare.h"
#include "widgets/figures/cluster_plots.h"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

class QCustomPlot;
class QTableWidget;

namespace fog {

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
