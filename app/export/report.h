#pragma once
// Reports for one run or a comparison of runs, as a self-contained HTML file or a PDF:
// scenario summary, topology figure, plots, summary table, Pareto front, and the commands
// that reproduce each run and each figure (set apart from the prose, under the figure's
// own heading).

#include "core/analysis/run_figures.h"
#include "core/cluster/cluster_store.h"
#include "core/store/run_store.h"

#include <QString>

#include <optional>

class QTextDocument;

#include <vector>

namespace fog {

struct ReportRun {
    StoredRun run;
    std::vector<AggregationRecord> metrics;
    std::vector<NodeInterval> intervals;
    std::vector<NodeInfo> nodes;
    std::vector<RunEvent> events; ///< DP-FedAvg's privacy events give the epsilon figure
    /// A cluster run's tasks, intervals and summary (issue 17); empty for training runs.
    std::optional<cluster::StoredClusterRun> cluster;
};

/// Loads what a report needs of the given runs (the cluster tables for cluster runs).
std::vector<ReportRun> loadReportRuns(const RunStore& store, const std::vector<std::int64_t>& ids);

struct ReportOptions {
    double target = 0.8;  ///< accuracy for the time/cost-to-target columns
    QString dbPath;       ///< named in the reproduce commands
    /// What the trade-off plot and the Pareto column compare: totals or what it took to
    /// reach the target (as chosen in the studio's comparison).
    TradeOffMode tradeOff = TradeOffMode::AtEnd;
};

/// The labels a report (and the studio's comparison) gives these runs: "#id " and what
/// tells each apart (core/analysis/run_labels).
std::vector<QString> reportLabels(const std::vector<StoredRun>& runs);

/// Moves every heading that would end a page, or sit at its foot without room for what
/// follows it, to the next page. `doc` must have its page size set.
void keepHeadingsWithNext(QTextDocument& doc);

/// HTML or PDF by the file's extension. Needs a QGuiApplication (offscreen is fine).
bool writeReport(const std::vector<ReportRun>& runs, const QString& path, const ReportOptions& options,
                 QString* error = nullptr);

} // namespace fog
