// Exponential growth of the number of workers (ToN 2022): n0 trainers in the first period,
// growth times more every period, up to a cap; drawn uniformly among those online.

#include "core/policies/exp_growth.h"
#include "core/policies/selection_factories.h"

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
class SelectExpGrowth : public SelectionPolicy {
public:
    explicit SelectExpGrowth(const PolicySpec& spec)
        : n0_(static_cast<int>(spec.get("n0", 1))), period_(static_cast<int>(spec.get("period", 5))),
          growth_(spec.get("growth", 2.0)), cap_(static_cast<int>(spec.get("cap", 0))) {}

    std::vector<int> select(const Engine& e, int aggregator, int round, const std::vector<int>& candidates,
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

std::unique_ptr<SelectionPolicy> makeSelectExpGrowth(const PolicySpec& spec, const Engine&) {
    return std::make_unique<SelectExpGrowth>(spec);
}

} // namespace fog
