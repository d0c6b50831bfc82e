#include "core/planning/placement.h"

#include <algorithm>

namespace fog {

namespace {
double regionCost(const RegionOffer& r, const PlacementModel& m, int w) {
    const double W = std::max(1, m.workers);
    return w * r.pricePerHour * m.hours + m.egressPerGb * m.dataGb * std::max(0.0, r.dataShare - w / W);
}
} // namespace

double placementCost(const std::vector<RegionOffer>& regions, const PlacementModel& m, const std::vector<int>& w) {
    double c = 0;
    for (std::size_t i = 0; i < regions.size(); ++i) c += regionCost(regions[i], m, w[i]);
    return c;
}

std::vector<int> placeWorkers(const std::vector<RegionOffer>& regions, const PlacementModel& m) {
    std::vector<int> w;
    int capacity = 0, placed = 0;
    for (const auto& r : regions) {
        w.push_back(std::min(std::max(0, m.minPerRegion), std::max(0, r.capacity)));
        capacity += std::max(0, r.capacity);
        placed += w.back();
    }
    const int target = std::max(placed, std::min(m.workers, capacity));
    for (; placed < target; ++placed) {
        std::size_t best = regions.size();
        double bestMarginal = 0;
        for (std::size_t i = 0; i < regions.size(); ++i) {
            if (w[i] >= regions[i].capacity) continue;
            const double marginal = regionCost(regions[i], m, w[i] + 1) - regionCost(regions[i], m, w[i]);
            if (best == regions.size() || marginal < bestMarginal - 1e-12 ||
                (marginal <= bestMarginal + 1e-12 && regions[i].dataShare > regions[best].dataShare)) {
                best = i;
                bestMarginal = marginal;
            }
        }
        ++w[best];
    }
    return w;
}

} // namespace fog
