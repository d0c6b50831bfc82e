#pragma once
// Comparing stored cluster runs: the runs of one scenario and scheduler over several seeds
// form a group, summarised as mean and 95% confidence interval over the seeds (mean and p95
// completion time, makespan, utilisation). Used by the studio's comparison view and the
// exporters (CSV, plots, reports).

#include "core/cluster/cluster_store.h"

#include <string>
#include <vector>

namespace fog::cluster {

/// One stored cluster run with what its group is keyed by.
struct ComparedClusterRun {
    std::int64_t runId = 0;
    std::string scenario; ///< the scenario's name (from the run's name "<scenario> / <scheduler>")
    StoredClusterRun data;
};

struct ClusterGroup {
    std::string scenario, scheduler;
    std::vector<std::int64_t> runIds;
    int incomplete = 0;
    MeanCi meanCompletion, p95Completion, makespan, cpuUtilisation, gpuUtilisation;
};

/// Groups by (scenario, scheduler) in order of first appearance.
std::vector<ClusterGroup> groupClusterRuns(const std::vector<ComparedClusterRun>& runs);

/// Completion times of the tasks that finished, sorted (an empirical CDF's x values).
std::vector<double> sortedCompletionTimes(const ClusterResult& r);

/// Reads the cluster runs among `ids` from the store at `dbPath` (others are skipped);
/// `scenarioOf(id)` gives a run's scenario name (empty: "?").
std::vector<ComparedClusterRun> loadClusterRuns(const std::string& dbPath,
                                                const std::vector<std::int64_t>& ids,
                                                const std::vector<std::string>& scenarioNames = {});

/// CSV, one row per run: run_id, scenario, scheduler, seed, tasks, completed, mean, p50,
/// p95 and max completion, mean wait, makespan, mean pending, cpu and gpu utilisation,
/// preemptions, stop reason.
void writeClusterRunsCsv(const std::vector<ComparedClusterRun>& runs, std::ostream& out);
/// CSV, one row per (scenario, scheduler) group: runs, incomplete, and mean with 95% CI
/// half-width of mean completion, p95 completion, makespan and GPU utilisation.
void writeClusterGroupsCsv(const std::vector<ClusterGroup>& groups, std::ostream& out);
/// CSV, one row per task of every run (as `cluster export` writes one run).
void writeClusterTasksCsv(const std::vector<ComparedClusterRun>& runs, std::ostream& out);

} // namespace fog::cluster
