#pragma once
// Cloudless-style elastic placement ([reconstructed]): how many workers to run in each
// region given its free capacity, its price and how much of the training data already
// lives there. Pure functions, so tests can check them against brute force.

#include <string>
#include <vector>

namespace fog {

struct RegionOffer {
    std::string name;
    int capacity = 0;           ///< workers available
    double pricePerHour = 0.0;  ///< per worker
    double dataShare = 0.0;     ///< fraction of the training data stored there
};

struct PlacementModel {
    int workers = 1;            ///< W: total workers wanted
    double hours = 1.0;         ///< expected job length, weighs price against data movement
    double dataGb = 0.0;        ///< size of the training data
    double egressPerGb = 0.0;   ///< price of moving data out of a region
    int minPerRegion = 0;       ///< workers every region keeps (e.g. its parameter server's)
};

/// cost(w) = sum_r w_r price_r hours + egress dataGb sum_r max(0, d_r - w_r / W): compute
/// plus the data that must leave a region whose share of workers is below its share of data.
double placementCost(const std::vector<RegionOffer>& regions, const PlacementModel& m, const std::vector<int>& w);

/// Workers per region minimising placementCost with sum w_r = min(W, total capacity) and
/// min(minPerRegion, capacity_r) <= w_r <= capacity_r; greedy on the marginal cost, exact
/// because each region's cost is convex in w_r. Ties go to more data, then the first region.
std::vector<int> placeWorkers(const std::vector<RegionOffer>& regions, const PlacementModel& m);

// ---- Re-planning during a run (issue 18, docs/policies.md "placement") ----

/// What moving from a running plan `current` to `w` costs beyond compute, by the placement
/// model's prices: a model copy (modelGb) for every worker that leaves a region beyond those
/// its lost capacity forces out (those are paid whatever the plan), and the data that must
/// now leave a region on top of what already left under `current`:
/// egress x (modelGb sum_r max(0, min(c_r, capacity_r) - w_r)
///           + dataGb sum_r max(0, max(0, d_r - w_r / W) - max(0, d_r - c_r / W))).
double migrationCost(const std::vector<RegionOffer>& regions, const PlacementModel& m, double modelGb,
                     const std::vector<int>& current, const std::vector<int>& w);

/// The cost a re-plan minimises: compute over m.hours (the remaining horizon) plus
/// migrationCost from `current`.
double replanCost(const std::vector<RegionOffer>& regions, const PlacementModel& m, double modelGb,
                  const std::vector<int>& current, const std::vector<int>& w);

/// The constraints placeWorkers uses: capacities, minimums and the total (min(W, capacity),
/// at least the minimums).
bool feasiblePlacement(const std::vector<RegionOffer>& regions, const PlacementModel& m, const std::vector<int>& w);

struct Replan {
    std::vector<int> workers; ///< the plan from now on: `current` when kept
    bool changed = false;     ///< workers != current
    bool forced = false;      ///< current broke a constraint (capacity lost or regained)
    double keepCost = 0.0;    ///< compute of `current` over the horizon (infinity when forced)
    double bestCost = 0.0;    ///< replanCost of the best plan (compute + migration)
    double migration = 0.0;   ///< migrationCost of the chosen plan
    double saving = 0.0;      ///< (keepCost - bestCost) / keepCost (0 when keepCost is 0)
};

/// Re-plans a running placement `current` with the current offers and m.hours = the
/// remaining horizon. The best plan minimises replanCost (greedy from the minimums, exact:
/// every term is convex in w_r). It replaces `current` when `current` is no longer feasible,
/// or when it saves at least `minSaving` (a fraction) of keepCost and more than nothing:
/// the hysteresis that keeps a small price wiggle from migrating workers back and forth.
Replan replanWorkers(const std::vector<RegionOffer>& regions, const PlacementModel& m, double modelGb,
                     const std::vector<int>& current, double minSaving);

} // namespace fog
