// Cloudless-style elastic placement ([reconstructed]): once, decide how many workers run in
// each region from its free capacity (its trainers), its price and its share of the data
// (core/planning/placement.h); every round each region's cheapest (then fastest) online
// trainers fill its quota. Combine with async-ga in one region or model-averaging across
// regions, as Cloudless-Training does.

#include "core/planning/placement.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace fog {

namespace {

/// A trainer's region: its `region` label, else the parameter server (root) it reports to.
std::string regionOf(const PolicyContext& e, int trainer) {
    const Node& n = e.topology().node(trainer);
    if (!n.spec.region.empty()) return n.spec.region;
    int a = n.aggregator;
    while (a >= 0 && e.topology().node(a).aggregator >= 0) a = e.topology().node(a).aggregator;
    return a >= 0 ? e.topology().node(a).spec.id : std::string();
}

class SelectPlacement : public SelectionPolicy {
public:
    SelectPlacement(std::map<std::string, int> quota, std::string summary)
        : quota_(std::move(quota)), summary_(std::move(summary)) {}

    void start(PolicyContext& e) override { e.report(PolicyEvent::Placement, -1, summary_); }

    std::vector<int> select(const PolicyContext& e, int aggregator, int, const std::vector<int>& candidates, Rng&) override {
        std::map<std::string, std::vector<std::tuple<double, double, int>>> byRegion;
        for (int t : candidates)
            byRegion[regionOf(e, t)].emplace_back(expectedRoundCost(e, t), expectedRoundSeconds(e, t), t);
        // Under async policies selection tops up after each arrival: workers still busy
        // already fill part of their region's quota.
        std::map<std::string, int> busy;
        for (int t : e.trainersOf(aggregator))
            if (e.isBusy(t)) ++busy[regionOf(e, t)];
        std::vector<int> out;
        for (auto& [region, list] : byRegion) {
            std::sort(list.begin(), list.end());
            const auto it = quota_.find(region);
            const int free = (it == quota_.end() ? 0 : it->second) - busy[region];
            const std::size_t n = static_cast<std::size_t>(std::max(0, free));
            for (std::size_t i = 0; i < std::min(n, list.size()); ++i) out.push_back(std::get<2>(list[i]));
        }
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    std::map<std::string, int> quota_;
    std::string summary_;
};

} // namespace

static std::unique_ptr<SelectionPolicy> makeSelectPlacement(const PolicyParams& p, const PolicyContext& e) {
    std::map<std::string, RegionOffer> offers;
    double total = 0;
    for (int t : e.topology().trainers()) {
        auto& r = offers[regionOf(e, t)];
        r.name = regionOf(e, t);
        ++r.capacity;
        r.pricePerHour += e.topology().node(t).spec.pricePerHour; // a sum until divided below
        r.dataShare += static_cast<double>(e.samplesOf(t));
        total += static_cast<double>(e.samplesOf(t));
    }
    std::vector<RegionOffer> regions;
    for (auto& [name, r] : offers) {
        r.pricePerHour /= r.capacity;
        r.dataShare = total > 0 ? r.dataShare / total : 0.0;
        regions.push_back(r);
    }
    PlacementModel m;
    m.workers = p.integer("workers");
    m.hours = p.get("hours");
    m.egressPerGb = p.get("egress_per_gb");
    m.minPerRegion = p.integer("min_per_region");
    m.dataGb = p.get("data_gb");
    if (m.dataGb <= 0) {
        const auto& d = e.data().train;
        m.dataGb = static_cast<double>(d.size()) * (4.0 * d.featureCount() + 8.0) / 1e9;
    }
    const auto w = placeWorkers(regions, m);
    std::map<std::string, int> quota;
    std::ostringstream summary;
    for (std::size_t i = 0; i < regions.size(); ++i) {
        quota[regions[i].name] = w[i];
        summary << regions[i].name << "=" << w[i] << " ";
    }
    summary << "predicted_cost=" << placementCost(regions, m, w);
    return std::make_unique<SelectPlacement>(std::move(quota), summary.str());
}

FOG_SELECTION_POLICY(selectPlacementPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info = {"placement",
                  "Elastic placement across regions: once, choose w_r workers per region (a region = the "
                  "trainers' region label, else their parameter server) minimising sum_r w_r price_r hours + "
                  "egress x data_gb x sum_r max(0, d_r - w_r / W) (compute plus the data that must leave a "
                  "region with less than its data share d_r of the workers), sum w_r = W, min_per_region "
                  "<= w_r <= the region's trainers; greedy on marginal cost (exact, convex). Each round a "
                  "region's cheapest, then fastest, online trainers fill its quota. Combine with async-ga "
                  "or model-averaging.",
                  "Tan et al., Cloudless-Training, Chinese High Technology Letters 2024 [reconstructed]",
                  {intParam("workers", 4, 1, "W: workers in all regions together"),
                   realParam("hours", 1.0, 0.0, 1e9, "expected job length in hours (weighs prices)"),
                   realParam("data_gb", 0.0, 0.0, 1e12, "training data size in GB; 0 = from the data set"),
                   realParam("egress_per_gb", 0.09, 0.0, 1e9, "price of moving 1 GB out of a region"),
                   intParam("min_per_region", 1, 0, "workers each region keeps (its server needs one)")}};
        d.order = 100;
        d.make = makeSelectPlacement;
        return d;
    }();
    return d;
}

} // namespace fog
