// k trainers drawn uniformly without replacement among those online (FedAvg's C fraction).

#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>

namespace fog {

namespace {
class SelectRandomK : public SelectionPolicy {
public:
    std::vector<int> select(const PolicyContext& e, int, int, const std::vector<int>& candidates, Rng& rng) override {
        std::vector<int> pool = candidates;
        // Partial Fisher-Yates: the first k of a uniform permutation.
        const std::size_t k = std::min(static_cast<std::size_t>(e.selectionParams().integer("k")) /* live */, pool.size());
        for (std::size_t i = 0; i < k; ++i) std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
        pool.resize(k);
        std::sort(pool.begin(), pool.end());
        return pool;
    }
};
} // namespace

FOG_SELECTION_POLICY(selectRandomKPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info = {"random-k",
                  "Each round, k trainers drawn uniformly without replacement among those online.",
                  "McMahan et al., FedAvg, AISTATS 2017",
                  {live(intParam("k", 10, 1, "trainers per round"))}};
        d.order = 20;
        d.make = [](const PolicyParams& p, const PolicyContext& e) -> std::unique_ptr<SelectionPolicy> {
            (void)p;
            (void)e;
            return std::make_unique<SelectRandomK>();
        };
        d.perRound = [](const PolicyParams& p) { return p.integer("k"); };
        d.uniform = true;
        return d;
    }();
    return d;
}

} // namespace fog
