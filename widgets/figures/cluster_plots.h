#pragma once
// The cluster comparison's figures (issue 17), drawn by the comparison widget and by the
// exporters (plots, reports): completion-time CDFs of the compared cluster runs side by side
// (run i in seriesColor(i), as everywhere in the comparison) and the mean completion time
// per scheduler with its 95% CI over seeds.

#include "core/cluster/cluster_compare.h"

#include <QColor>
#include <QString>

#include <vector>

class QCustomPlot;

namespace fog {

/// One empirical CDF of completion times per run; `colors[i]` and `labels[i]` for run i.
void plotClusterCdfs(QCustomPlot* plot, const std::vector<cluster::ComparedClusterRun>& runs,
                     const std::vector<QString>& labels, const std::vector<QColor>& colors);
/// Mean completion time per group as bars with 95% CI whiskers, p95 as diamonds.
void plotClusterGroups(QCustomPlot* plot, const std::vector<cluster::ClusterGroup>& groups);
/// "12.345 ± 0.678" (no ± for a single run).
QString formatClusterCi(const cluster::MeanCi& m, int decimals = 3);

} // namespace fog
