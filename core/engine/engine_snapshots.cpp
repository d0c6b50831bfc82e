// Snapshots of a run's state (core/system/run_snapshot.h): periodic, at given instants (a
// fork's replay check) and on request. Taking one reads the engine's state and changes
// nothing, so a run with snapshots is identical to one without.

#include "core/engine/engine.h"
#include "core/policies/sync_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fog {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}

void Engine::checkSnapshotOptions() {
    const double every = options_.snapshotEverySeconds;
    if (!(every >= 0) || std::isinf(every))
        throw EngineError("the snapshot interval must be a number of virtual seconds >= 0 (0: none), got " +
                          std::to_string(every));
    auto& times = options_.snapshotTimes;
    for (double t : times)
        if (!std::isfinite(t) || t < 0)
            throw EngineError("snapshot instants must be virtual times >= 0, got " + std::to_string(t));
    std::sort(times.begin(), times.end());
}

void Engine::takeDueSnapshots(double nextEventTime) {
    // A snapshot at T is the state once every event at or before T has run: take it when the
    // next event lies after T. Nothing runs between events, so taking it later (now, before
    // that event) reads the same state.
    if (!std::isfinite(nextEventTime)) return;
    const double every = options_.snapshotEverySeconds;
    const auto& times = options_.snapshotTimes;
    for (;;) {
        const double periodic = every > 0 ? every * static_cast<double>(everySnapshots_ + 1) : kInfinity;
        const double timed = nextTimedSnapshot_ < times.size() ? times[nextTimedSnapshot_] : kInfinity;
        const double t = std::min(periodic, timed);
        if (!(t < nextEventTime)) return;
        if (timed <= periodic) {
            ++nextTimedSnapshot_;
            takeSnapshot(RunSnapshot::Reason::Replay, timed);
        } else {
            ++everySnapshots_;
            takeSnapshot(RunSnapshot::Reason::Every, periodic);
        }
    }
}

void Engine::takeSnapshot(RunSnapshot::Reason reason, double time) {
    RunSnapshot s;
    s.reason = reason;
    s.time = time;
    s.round = globalRound_;
    s.eventsHandled = eventsRun_;
    s.cost = costAt(s.time);
    s.energyJ = nodes_.energyAt(s.time).total;
    s.bytes = bytes_;
    s.samplesComputed = samplesComputed_;
    // During a calibrated planner's pilot phase (pilot_phase.cpp) the sync policy has not
    // started and holds no model yet: the global model is still the initial one.
    if (learner_) s.model = pilotActive() || !sync_->globalModel() ? initialModel_ : sync_->globalModel();
    observer_->onSnapshot(s);
}

} // namespace fog
