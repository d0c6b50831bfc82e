// The k online trainers with the shortest expected round trip (straggler avoidance).

#include "core/policies/selection_estimates.h"
#include "core/policies/rank.h"
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

class SelectFastestK : public SelectionPolicy {
public:
    explicit SelectFastestK(const PolicyParams& p) : settings_(kParams(), p) {}
    std::vector<int> select(const SystemView& e, int, int, const std::vector<int>& candidates, Rng&) override {
        return smallestK(candidates, static_cast<std::size_t>(settings_.of(e).k), [&e](int t) { return expectedRoundSeconds(e, t); });
    }

private:
    SelectionSettings<KSettings> settings_;
};
} // namespace

FOG_SELECTION_POLICY(selectFastestKPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "fastest-k";
        d.info.summary = "Each round, the k online trainers with the shortest expected round trip: model "
                         "download + local_steps x batch / throughput + update upload (mean noise). Fast "
                         "but biased towards the data of fast trainers.";
        d.info.source = "Straggler-avoiding baseline (e.g. Lai et al., Oort, OSDI 2021, section 2)";
        d.info.params = kParams().infos();
        d.order = 30;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            (void)e;
            return std::make_unique<SelectFastestK>(p);
        };
        d.perRound = [](const PolicyParams& p) { return kParams().read(p).k; };
        return d;
    }();
    return d;
}

} // namespace fog
