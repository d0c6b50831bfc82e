#pragma once
// Forks: a new run that continues a stored run from one virtual instant with a changed
// setting. The engine's state cannot be serialised (its queue holds closures), so a fork
// reaches its parent's state by deterministic replay: it runs the parent's stored scenario
// (with every event the parent recorded) from t = 0, the changes being `at` events at the
// fork instant, and runs on. Its metric rows therefore cover the whole run, the replayed
// prefix identical to the parent's. The replay is checked on the way: each metric row before
// the fork instant against the parent's, and the model at each of the parent's snapshots
// before it (core/system/run_snapshot.h); a difference ends the fork as failed ("the replay
// diverged from run 12 at t = 600 s: ...") instead of running on from a state the parent
// never had. docs/emulator.md, "Snapshots and forks".

#include "core/engine/engine.h"
#include "core/spec/scenario.h"
#include "core/store/run_store.h"
#include "core/system/metrics.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fog {

/// Why a fork cannot be made: the message is for the user as it stands.
struct ForkError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// What a fork changes at its instant.
struct ForkChanges {
    /// "KEY=VALUE" for a key that maps to an event action (forkSettableKeys()):
    /// sync.PARAM / selection.PARAM, ID.price_per_hour, ID.throughput,
    /// ID.bandwidth_up_mbps, ID.bandwidth_down_mbps, ID.latency_ms (ID: a node, group or
    /// member id, or topology.nodes[i] / topology.groups[i]), topology.links[i].KEY.
    std::vector<std::string> sets;
    /// Event actions as `--event` takes them, without the trigger: "link edge-1.up=2",
    /// "node spot price=0.9", "offline phones fraction=0.5", "policy sync.n=4".
    std::vector<std::string> events;
    bool empty() const { return sets.empty() && events.empty(); }
};

/// What `--set` may name in a fork, for messages and help (one line per form).
std::vector<std::string> forkSettableKeys();

/// The event action a fork's "KEY=VALUE" stands for in `scenario`
/// ("edge-1.bandwidth_up_mbps=2" -> "link edge-1.up=2"). Throws ForkError for any other key,
/// listing what a fork can change.
std::string forkSetToAction(const Scenario& scenario, const std::string& set);

/// A fork prepared and checked, not yet run: what runFork runs.
struct ForkPlan {
    std::int64_t parentId = 0;
    std::string parentName;
    double atSeconds = 0.0;
    /// The parent's stored scenario, the changes added as `at` events at atSeconds. The
    /// parent's live interventions at or after atSeconds (events with after_event) are left
    /// out: they were reactions in the parent's timeline; its file events stay.
    Scenario scenario;
    int interventionsLeftOut = 0;
    /// The changes as event actions (the --set ones translated), in the order given.
    std::vector<std::string> actions;
    /// "fork of run 12 at 600 s: edge-1 up 2 Mbps" (the stored run's name).
    std::string label;
    /// The parent's metric rows before atSeconds, and its snapshots before atSeconds: the
    /// replay must reproduce them bit for bit.
    std::vector<AggregationRecord> parentRows;
    std::vector<StoredSnapshot> verify;
    /// The parent's `plan` events before atSeconds (a calibrated planner's pilot estimates
    /// and plans): state a snapshot does not hold, re-derived by the replay and checked too.
    std::vector<RunEvent> parentPlans;
    /// Whether the parent was computed with this process's kernel set (core/util/numerics.h):
    /// then training values must replay bit for bit; otherwise by the cross-kernel rule
    /// (core/analysis/reproduction.h), and kernelNote says so ("" when the same).
    bool exactTraining = true;
    std::string kernelNote;
};

/// Prepares a fork of stored run `parentRunId` at `atSeconds`. Throws ForkError with a clear
/// message: no such run; a cluster-scheduling run; a run without a stored scenario (or one
/// this program cannot read); a parent that did not reach atSeconds (it failed, was cancelled
/// or was interrupted before, or its process ended); a negative time; a change a fork cannot
/// make (and what it can). A parent still running (the studio's paused run) can be forked
/// up to its last stored metric row or snapshot: to fork it at its current instant, call
/// RunControl::requestSnapshot() and wait until the snapshot and the rows before it are
/// stored (the recorder writes rows within about half a second).
ForkPlan planFork(const RunStore& store, std::int64_t parentRunId, double atSeconds, const ForkChanges& changes);

/// Runs `plan` and stores it like runAndStore (core/sweep/sweep.h): named plan.label, the
/// parent's tags plus "fork", with a fork record (RunStore::fork). The replay is checked
/// against plan.parentRows and plan.verify; on a difference the run ends as failed, its
/// reason "the replay diverged from run P at t = T s: ...". `options` as for runAndStore
/// (threads, observer, control, snapshotEverySeconds); its snapshotTimes are replaced by the
/// parent's snapshot instants. Returns the new run's id. Throws StoreError if the store fails.
std::int64_t runFork(RunStore& store, const ForkPlan& plan, const EngineOptions& options, RunSummary& summary,
                     const std::function<void(Engine*, std::int64_t)>& onEngine = {});

/// planFork + runFork.
std::int64_t forkRun(RunStore& store, std::int64_t parentRunId, double atSeconds, const ForkChanges& changes,
                     const EngineOptions& options = {}, RunSummary* summary = nullptr);

/// A stored fork as the studio draws it beside its parent (comparison view): both from
/// t = 0, the fork's own curve branching at atSeconds.
struct ForkInfo {
    std::int64_t runId = 0;
    std::int64_t parentId = 0;
    double atSeconds = 0.0;
    std::vector<std::string> changes; ///< event actions, e.g. "link edge-1.up=2"
    std::string label;                ///< "fork of run 12 at 600 s: link edge-1.up=2"
    bool parentStored = false;        ///< false once the parent was deleted
};
/// The fork record of `runId`; nothing when it is not a fork.
std::optional<ForkInfo> forkInfo(const RunStore& store, std::int64_t runId);
/// The forks of `parentId`, by id.
std::vector<ForkInfo> forksOf(const RunStore& store, std::int64_t parentId);
/// Index of the first of `rows` (a fork's metric rows, in order) at or after the fork
/// instant: the rows before it are the replayed prefix, equal to the parent's.
std::size_t forkBranchRow(const std::vector<AggregationRecord>& rows, double atSeconds);

/// "edge-1 up 2 Mbps", "spot price 0.9/h", "sync.n = 4", "phones offline (50%)": one
/// change for a label.
std::string describeChange(const TimedEvent& e);
/// "fork of run 12 at 600 s: edge-1 up 2 Mbps, sync.n = 4" ("no change" when none).
std::string forkLabel(std::int64_t parentId, double atSeconds, const std::vector<TimedEvent>& changes);

} // namespace fog
