// The snapshot schedule (see snapshots.h).

#include "core/engine/snapshots.h"
#include "core/util/engine_error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace fog {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

SnapshotSchedule::SnapshotSchedule(double everySeconds, std::vector<double> times)
    : every_(everySeconds), times_(std::move(times)) {
    if (!(every_ >= 0) || std::isinf(every_))
        throw EngineError("the snapshot interval must be a number of virtual seconds >= 0 (0: none), got " +
                          std::to_string(every_));
    for (double t : times_)
        if (!std::isfinite(t) || t < 0)
            throw EngineError("snapshot instants must be virtual times >= 0, got " + std::to_string(t));
    std::sort(times_.begin(), times_.end());
}

std::optional<SnapshotSchedule::Due> SnapshotSchedule::next(double nextEventTime) {
    if (!std::isfinite(nextEventTime)) return std::nullopt;
    const double periodic = every_ > 0 ? every_ * static_cast<double>(everyTaken_ + 1) : kInfinity;
    const double timed = nextTimed_ < times_.size() ? times_[nextTimed_] : kInfinity;
    const double t = std::min(periodic, timed);
    if (!(t < nextEventTime)) return std::nullopt;
    if (timed <= periodic) {
        ++nextTimed_;
        return Due{RunSnapshot::Reason::Replay, timed};
    }
    ++everyTaken_;
    return Due{RunSnapshot::Reason::Every, periodic};
}

} // namespace fog
