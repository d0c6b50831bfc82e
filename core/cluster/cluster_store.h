#pragma once
// Cluster runs in the run store: the run row goes through RunStore (beginRun / finishRun);
// the per-task rows, server intervals (Gantt), queue/utilisation samples, the cluster
// summary and the learned policy's bytes go to tables of their own, created here with
// CREATE TABLE IF NOT EXISTS over a second connection to the same SQLite file (to be folded
// into RunStore's schema migration). Rows cascade when RunStore deletes the run.

#include "core/cluster/cluster_emulator.h"
#include "core/store/run_store.h"

#include <optional>

namespace fog::cluster {

struct StoredClusterRun {
    std::int64_t runId = 0;
    ClusterResult result;
    std::string policyBytes; ///< empty unless the learned scheduler ran
};

class ClusterStore {
public:
    /// Opens the database file (which RunStore created) and makes sure the tables exist.
    explicit ClusterStore(const std::string& dbPath);
    ~ClusterStore();


    void write(std::int64_t runId, const ClusterResult& r, const std::string& policyBytes = {});
    /// Nullopt when the run has no cluster rows (a training run, or unknown id).
    std::optional<StoredClusterRun> read(std::int64_t runId) const;
    /// Run ids that have cluster rows, newest first.
    std::vector<std::int64_t> runIds() const;

private:
    std::unique_ptr<SqliteDb> db_;
};

/// Stores one finished (or stopped) episode: a run row named after the scenario and the
/// scheduler, tagged "cluster", with the scenario file's text and seed, then the cluster rows.
/// RunSummary carries rounds = tasks completed, virtualTime = makespan (steps) and a stop
/// reason with the mean completion time. Returns the run id.
std::int64_t storeClusterRun(RunStore& store, const ClusterScenario& s, const ClusterResult& r, NewRun run,
                             const std::string& policyBytes = {});

} // namespace fog::cluster
