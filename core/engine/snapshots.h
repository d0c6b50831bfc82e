#pragma once
// When a run takes its snapshots (core/system/run_snapshot.h, RunObserver::onSnapshot):
// periodic ones every EngineOptions::snapshotEverySeconds, and one at each instant of
// snapshotTimes (a fork's replay check). A snapshot at T is the state once every event at or
// before T has run; the engine takes it when the next event lies after T (nothing runs
// between events, so taking it then reads the same state). Taking one changes nothing, so a
// run with snapshots is identical to one without.
//
// Threads: engine thread only.

#include "core/system/run_snapshot.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fog {

class SnapshotSchedule {
public:
    /// Throws EngineError for an interval that is not a number >= 0 (0: none) or an instant
    /// that is not a time >= 0.
    SnapshotSchedule(double everySeconds, std::vector<double> times);

    struct Due {
        RunSnapshot::Reason reason;
        double time;
    };
    /// The next snapshot due before an event at `nextEventTime`, taken off the schedule;
    /// none when the next one lies at or after it.
    std::optional<Due> next(double nextEventTime);

private:
    double every_;
    std::vector<double> times_;         ///< sorted
    std::uint64_t everyTaken_ = 0;      ///< periodic snapshots taken so far
    std::size_t nextTimed_ = 0;         ///< into times_
};

} // namespace fog
