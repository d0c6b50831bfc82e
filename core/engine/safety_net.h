#pragma once
// The safety net (docs/emulator.md, "Safety net"): a run stops as failed ("no progress:
// ...") once more than stallEvents() events and more than stallSeconds() virtual seconds
// have passed since an update last reached an aggregator or an aggregation was reported (or
// stallEvents() events at one instant). Both limits are relative to the scenario: 1000 + 10
// per node events; 100 times the slowest dispatch (planned so far, or expected) plus the
// longest mean offline time; and never before the last offline interval of a trace, or the
// last change a timed event or an intervention makes, has passed. It also counts the events
// the run loop has handled.
//
// Threads: engine thread only.

#include "core/system/topology.h"

#include <cstdint>
#include <string>

namespace fog {

class SafetyNet {
public:
    /// The limits that follow from the topology (its size, Markov availability, traces).
    explicit SafetyNet(const Topology& topo);

    /// A dispatch from the scenario (before any ran) would take this long at least.
    void expectDispatch(double seconds);
    /// A dispatch planned (or took) `seconds` from its start to its arrival.
    void dispatchTook(double seconds);
    /// Something changes the system at `t` (a timed event, a trace, an intervention): no
    /// stall before it.
    void changeAt(double t);
    /// Progress at `now`: an update reached an aggregator, or an aggregation was reported.
    void progressed(double now);
    /// The run loop handled one more event.
    void eventHandled();

    /// True when the run has made no progress for too long (see above).
    bool stalled(double now) const;
    /// The failure's reason, for a stalled run.
    std::string why(double now) const;

    std::uint64_t stallEvents() const { return stallEvents_; }
    double stallSeconds() const;
    /// Events handled so far.
    std::uint64_t eventsRun() const { return eventsRun_; }

private:
    std::uint64_t stallEvents_ = 0;
    double expectedSlowestDispatch_ = 0.0; ///< from the scenario, before any dispatch
    double slowestDispatch_ = 0.0;         ///< longest dispatch planned so far
    double longestMeanDown_ = 0.0;         ///< Markov availability
    double lastChange_ = 0.0;              ///< end of the last finite trace interval, last event
    std::uint64_t eventsSinceProgress_ = 0;
    std::uint64_t eventsRun_ = 0;
    double lastProgress_ = 0.0;
};

} // namespace fog
