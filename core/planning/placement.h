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

} // namespace fog
