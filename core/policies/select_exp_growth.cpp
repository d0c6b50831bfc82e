// Exponential growth of the number of workers (ToN 2022): n0 trainers in the first period,
// growth times more every period, up to a cap; drawn uniformly among those online.

#include "core/policies/exp_growth.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>
#include <cmath>

namespace fog {

int expGrowthCount(int round, int n0, int period, double growth, int cap) {
    const int steps = (std::max(1, round) - 1) / std::max(1, period);
    double n = n0;
    for (int i = 0; i < steps && n < cap; ++i) n *= growth; // stop early: no overflow
    return std::min(cap, static_cast<int>(std::floor(n + 1e-9)));
}

namespace {

struct ExpGrowthSettings {
    int n0 = 0;          ///< trainers in the first period
    int period = 0;      ///< rounds between growth steps
    double growth = 0.0; ///< factor per period
    int cap = 0;         ///< most trainers per round; 0: all
};

const ParamTable<ExpGrowthSettings>& expGrowthParams() {
    static const auto t =
        ParamTable<ExpGrowthSettings>()
            .integer("n0", &ExpGrowthSettings::n0, 1, 1, "trainers in the first period")
            .integer("period", &ExpGrowthSettings::period, 5, 1, "rounds between growth steps")
            .real("growth", &ExpGrowthSettings::growth, 2.0, 1.0, 100.0, "factor per period (2 = doubling)")
            .integer("cap", &ExpGrowthSettings::cap, 0, 0, "most trainers per round; 0 = all trainers");
    return t;
}

class SelectExpGrowth : public SelectionPolicy {
public:
    explicit SelectExpGrowth(const ExpGrowthSettings& s)
        : n0_(s.n0), period_(s.period), growth_(s.growth), cap_(s.cap) {}

    std::vector<int> select(const SystemView& e, int aggregator, int round, const std::vector<int>& candidates,
                            Rng& rng) override {
        const int cap = cap_ > 0 ? cap_ : static_cast<int>(e.trainersOf(aggregator).size());
        // Under async policies selection tops up after each arrival: busy workers count.
        int busy = 0;
        for (int t : e.trainersOf(aggregator)) busy += e.isBusy(t) ? 1 : 0;
        const auto k = static_cast<std::size_t>(std::max(0, expGrowthCount(round, n0_, period_, growth_, cap) - busy));
        std::vector<int> pool = candidates;
        const std::size_t n = std::min(k, pool.size());
        for (std::size_t i = 0; i < n; ++i) std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
        pool.resize(n);
        std::sort(pool.begin(), pool.end());
        return pool;
    }

private:
    int n0_, period_;
    double growth_;
    int cap_;
};
} // namespace

FOG_SELECTION_POLICY(selectExpGrowthPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "exp-growth";
        d.info.summary = "Exponential growth of the number of workers: round t (from 1) uses n_t = min(n0 "
                         "* growth^floor((t - 1) / period), cap) trainers drawn uniformly among those "
                         "online. Few noisy-but-cheap rounds first, more workers (less gradient noise) "
                         "later; combine with any sync policy.";
        d.info.source = "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022 [reconstructed]";
        d.info.params = expGrowthParams().infos();
        d.order = 40;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            (void)e;
            return std::make_unique<SelectExpGrowth>(expGrowthParams().read(p));
        };
        return d;
    }();
    return d;
}

} // namespace fog
