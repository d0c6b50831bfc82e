// k trainers drawn uniformly without replacement among those online (FedAvg's C fraction).

#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>

namespace fog {

namespace {

struct KSettings {
    int k = 0; ///< trainers per round
};

const ParamTable<KSettings>& kParams() {
    static const auto t = ParamTable<KSettings>().integer("k", &KSettings::k, 10, 1, "trainers per round").live();
    return t;
}

class SelectRandomK : public SelectionPolicy {
public:
    explicit SelectRandomK(const PolicyParams& p) : settings_(kParams(), p) {}
    std::vector<int> select(const SystemView& e, int, int, const std::vector<int>& candidates, Rng& rng) override {
        std::vector<int> pool = candidates;
        // Partial Fisher-Yates: the first k of a uniform permutation.
        const std::size_t k = std::min(static_cast<std::size_t>(settings_.of(e).k), pool.size());
        for (std::size_t i = 0; i < k; ++i) std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
        pool.resize(k);
        std::sort(pool.begin(), pool.end());
        return pool;
    }

private:
    SelectionSettings<KSettings> settings_;
};
} // namespace

FOG_SELECTION_POLICY(selectRandomKPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "random-k";
        d.info.summary = "Each round, k trainers drawn uniformly without replacement among those online.";
        d.info.source = "McMahan et al., FedAvg, AISTATS 2017";
        d.info.params = kParams().infos();
        d.order = 20;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            (void)e;
            return std::make_unique<SelectRandomK>(p);
        };
        d.perRound = [](const PolicyParams& p) { return kParams().read(p).k; };
        d.uniform = true;
        return d;
    }();
    return d;
}

} // namespace fog
