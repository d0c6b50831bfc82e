#pragma once
// A snapshot of a run's state at one virtual instant: the global model and the run's
// counters. The engine takes one every EngineOptions::snapshotEverySeconds, at the instants
// EngineOptions::snapshotTimes lists, and when a front end asks (RunControl::requestSnapshot);
// it reaches the observers (RunObserver::onSnapshot) and the run store keeps it compressed
// (RunStore::saveSnapshot). A fork uses its parent's snapshots to verify its replay
// (core/fork/fork.h, docs/emulator.md "Snapshots and forks").

#include <cstdint>
#include <memory>
#include <vector>

namespace fog {

struct RunSnapshot {
    enum class Reason {
        Every,     ///< EngineOptions::snapshotEverySeconds
        Requested, ///< RunControl::requestSnapshot (the studio's "Snapshot now")
        Replay,    ///< EngineOptions::snapshotTimes (a fork verifying its replay)
    };
    Reason reason = Reason::Every;
    /// The virtual instant: the state after every event at or before it and before any
    /// later one.
    double time = 0.0;
    int round = 0;                   ///< global aggregations completed
    std::uint64_t eventsHandled = 0; ///< queue events the engine has run
    double cost = 0.0;               ///< cumulative, at `time`
    double energyJ = 0.0;            ///< cumulative
    double bytes = 0.0;              ///< cumulative bytes moved
    std::int64_t samplesComputed = 0;
    /// The global model's parameters (the sync policy's globalModel()); empty for a
    /// timing-only run. The learner keeps no optimiser state across rounds (a local job's
    /// momentum starts at zero). Gradient policies keep a server momentum
    /// (core/policies/aggregation.h) that is not in the snapshot: a fork recomputes it by
    /// replay, and a difference in it would show in the next snapshot's model.
    std::shared_ptr<const std::vector<float>> model;
};

const char* toString(RunSnapshot::Reason r);

} // namespace fog
