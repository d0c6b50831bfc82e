// The safety net (see safety_net.h).

#include "core/engine/safety_net.h"

#include <algorithm>
#include <cmath>

namespace fog {

SafetyNet::SafetyNet(const Topology& topo) : stallEvents_(1000 + 10 * static_cast<std::uint64_t>(topo.firstJoining())) {
    for (const auto& n : topo.nodes()) {
        const auto& a = n.spec.availability;
        if (a.kind == AvailabilitySpec::Kind::Markov) longestMeanDown_ = std::max(longestMeanDown_, a.meanDownS);
        if (a.kind == AvailabilitySpec::Kind::Trace)
            for (const auto& iv : a.offline)
                if (std::isfinite(iv.toS)) lastChange_ = std::max(lastChange_, iv.toS);
    }
}

void SafetyNet::expectDispatch(double seconds) {
    expectedSlowestDispatch_ = std::max(expectedSlowestDispatch_, seconds);
}

void SafetyNet::dispatchTook(double seconds) { slowestDispatch_ = std::max(slowestDispatch_, seconds); }

void SafetyNet::changeAt(double t) { lastChange_ = std::max(lastChange_, t); }

void SafetyNet::progressed(double now) {
    eventsSinceProgress_ = 0;
    lastProgress_ = now;
}

void SafetyNet::eventHandled() {
    ++eventsRun_;
    ++eventsSinceProgress_;
}

double SafetyNet::stallSeconds() const {
    return 100.0 * (std::max(expectedSlowestDispatch_, slowestDispatch_) + longestMeanDown_);
}

bool SafetyNet::stalled(double now) const {
    if (eventsSinceProgress_ <= stallEvents_) return false;
    if (now == lastProgress_) return true; // events that never move the clock
    return now - lastProgress_ > stallSeconds() && now > lastChange_;
}

std::string SafetyNet::why(double now) const {
    return "no progress: " + std::to_string(eventsSinceProgress_) + " events and " +
           std::to_string(static_cast<long long>(now - lastProgress_)) +
           " virtual seconds since an update last reached an aggregator (at t = " +
           std::to_string(static_cast<long long>(lastProgress_)) +
           " s); no trainer can deliver under this topology and these policies "
           "(docs/emulator.md, 'Safety net')";
}

} // namespace fog
