// Largest data first: the k online trainers holding the most samples (the baseline of
// data-value recruitment).

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

class SelectLargestData : public SelectionPolicy {
public:
    explicit SelectLargestData(const PolicyParams& p) : settings_(kParams(), p) {}
    std::vector<int> select(const SystemView& e, int, int, const std::vector<int>& candidates, Rng&) override {
        return smallestK(candidates, static_cast<std::size_t>(settings_.of(e).k), [&e](int t) { return -e.samplesOf(t); }); // most data first
    }

private:
    SelectionSettings<KSettings> settings_;
};
} // namespace

FOG_SELECTION_POLICY(selectLargestDataPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "largest-data";
        d.info.summary = "Largest data first: the k online trainers holding the most samples (the "
                         "baseline data-value recruitment is compared against).";
        d.info.source = "Baseline in device recruitment by data value, WiOpt 2021 / ToN";
        d.info.params = kParams().infos();
        d.order = 80;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            (void)e;
            return std::make_unique<SelectLargestData>(p);
        };
        d.perRound = [](const PolicyParams& p) { return kParams().read(p).k; };
        return d;
    }();
    return d;
}

} // namespace fog
