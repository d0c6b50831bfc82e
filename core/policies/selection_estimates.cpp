#include "core/policies/selection_estimates.h"

#include "core/policies/policy_descriptor.h"

#include <algorithm>
#include <cmath>

namespace fog {

int stepsPerDispatch(const SystemView& e, int trainer) {
    const auto* d = findSyncDescriptor(e.scenario().sync.name);
    if (d && d->stepsPerDispatch) return d->stepsPerDispatch(e.syncParams());
    return std::max(1, e.localStepsOf(trainer));
}

double expectedRoundSeconds(const SystemView& e, int trainer) {
    const int agg = e.serverOf(trainer);
    const double bytes = e.modelBytes();
    return e.topology().transfer(agg, trainer, bytes).seconds +
           e.expectedComputeSeconds(trainer, stepsPerDispatch(e, trainer), e.scenario().training.batchSize) +
           e.topology().transfer(trainer, agg, bytes).seconds;
}

double expectedRoundCost(const SystemView& e, int trainer) {
    const int agg = e.serverOf(trainer);
    const double bytes = e.modelBytes();
    return expectedRoundSeconds(e, trainer) * e.topology().node(trainer).spec.pricePerHour / 3600.0 +
           e.topology().transfer(agg, trainer, bytes).price + e.topology().transfer(trainer, agg, bytes).price;
}

double stationaryAvailability(const SystemView& e, int trainer) {
    const auto& a = e.topology().node(trainer).spec.availability;
    switch (a.kind) {
    case AvailabilitySpec::Kind::Always:
        return 1.0;
    case AvailabilitySpec::Kind::Markov:
        return a.meanUpS / (a.meanUpS + a.meanDownS);
    case AvailabilitySpec::Kind::Trace: {
        // Over the run's time limit if there is one, else up to the end of the last outage.
        double horizon = e.scenario().stop.virtualTimeS;
        if (horizon <= 0)
            for (const auto& iv : a.offline) horizon = std::max(horizon, iv.toS);
        // An outage that never ends: in the long run the node is never there.
        if (!std::isfinite(horizon)) return 1e-6;
        if (horizon <= 0) return 1.0;
        double down = 0;
        for (const auto& iv : a.offline) down += std::min(iv.toS, horizon) - std::min(iv.fromS, horizon);
        return std::clamp(1.0 - down / horizon, 1e-6, 1.0);
    }
    }
    return 1.0;
}

} // namespace fog
