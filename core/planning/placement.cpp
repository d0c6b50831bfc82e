#include "core/planning/placement.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fog {

namespace {

double dataLeft(const RegionOffer& r, const PlacementModel& m, int w) {
    const double W = std::max(1, m.workers);
    return std::max(0.0, r.dataShare - w / W);
}

double regionCost(const RegionOffer& r, const PlacementModel& m, int w) {
    return w * r.pricePerHour * m.hours + m.egressPerGb * m.dataGb * dataLeft(r, m, w);
}

/// Region i's share of migrationCost for w workers there, `c` running before.
double regionMigration(const RegionOffer& r, const PlacementModel& m, double modelGb, int c, int w) {
    const int kept = std::min(c, std::max(0, r.capacity));
    return m.egressPerGb * (modelGb * std::max(0, kept - w) +
                            m.dataGb * std::max(0.0, dataLeft(r, m, w) - dataLeft(r, m, c)));
}

int floorOf(const RegionOffer& r, const PlacementModel& m) {
    return std::min(std::max(0, m.minPerRegion), std::max(0, r.capacity));
}

int targetOf(const std::vector<RegionOffer>& regions, const PlacementModel& m) {
    int capacity = 0, floors = 0;
    for (const auto& r : regions) {
        capacity += std::max(0, r.capacity);
        floors += floorOf(r, m);
    }
    return std::max(floors, std::min(m.workers, capacity));
}

/// From the minimums, one worker at a time where the marginal cost is least: exact for a sum
/// of costs convex in each w_r. Ties go to more data, then the first region.
template <class Cost>
std::vector<int> greedy(const std::vector<RegionOffer>& regions, const PlacementModel& m, Cost cost) {
    std::vector<int> w;
    int placed = 0;
    for (const auto& r : regions) {
        w.push_back(floorOf(r, m));
        placed += w.back();
    }
    const int target = targetOf(regions, m);
    for (; placed < target; ++placed) {
        std::size_t best = regions.size();
        double bestMarginal = 0;
        for (std::size_t i = 0; i < regions.size(); ++i) {
            if (w[i] >= regions[i].capacity) continue;
            const double marginal = cost(i, w[i] + 1) - cost(i, w[i]);
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

} // namespace

double placementCost(const std::vector<RegionOffer>& regions, const PlacementModel& m, const std::vector<int>& w) {
    double c = 0;
    for (std::size_t i = 0; i < regions.size(); ++i) c += regionCost(regions[i], m, w[i]);
    return c;
}

std::vector<int> placeWorkers(const std::vector<RegionOffer>& regions, const PlacementModel& m) {
    return greedy(regions, m, [&](std::size_t i, int w) { return regionCost(regions[i], m, w); });
}

double migrationCost(const std::vector<RegionOffer>& regions, const PlacementModel& m, double modelGb,
                     const std::vector<int>& current, const std::vector<int>& w) {
    double c = 0;
    for (std::size_t i = 0; i < regions.size(); ++i) c += regionMigration(regions[i], m, modelGb, current[i], w[i]);
    return c;
}

double replanCost(const std::vector<RegionOffer>& regions, const PlacementModel& m, double modelGb,
                  const std::vector<int>& current, const std::vector<int>& w) {
    double c = 0;
    for (std::size_t i = 0; i < regions.size(); ++i)
        c += w[i] * regions[i].pricePerHour * m.hours + regionMigration(regions[i], m, modelGb, current[i], w[i]);
    return c;
}

bool feasiblePlacement(const std::vector<RegionOffer>& regions, const PlacementModel& m, const std::vector<int>& w) {
    if (w.size() != regions.size()) return false;
    int placed = 0;
    for (std::size_t i = 0; i < regions.size(); ++i) {
        if (w[i] < floorOf(regions[i], m) || w[i] > std::max(0, regions[i].capacity)) return false;
        placed += w[i];
    }
    return placed == targetOf(regions, m);
}

Replan replanWorkers(const std::vector<RegionOffer>& regions, const PlacementModel& m, double modelGb,
                     const std::vector<int>& current, double minSaving) {
    Replan r;
    const std::vector<int> best = greedy(regions, m, [&](std::size_t i, int w) {
        return w * regions[i].pricePerHour * m.hours + regionMigration(regions[i], m, modelGb, current[i], w);
    });
    r.bestCost = replanCost(regions, m, modelGb, current, best);
    r.forced = !feasiblePlacement(regions, m, current);
    if (r.forced) {
        r.keepCost = std::numeric_limits<double>::infinity();
        r.workers = best;
    } else {
        r.keepCost = replanCost(regions, m, modelGb, current, current);
        const double gain = r.keepCost - r.bestCost;
        r.saving = r.keepCost > 0 ? gain / r.keepCost : 0.0;
        const bool worth = gain > 1e-12 * std::max(1.0, std::abs(r.keepCost)) && gain >= minSaving * r.keepCost;
        r.workers = worth ? best : current;
    }
    r.changed = r.workers != current;
    r.migration = migrationCost(regions, m, modelGb, current, r.workers);
    return r;
}

} // namespace fog
