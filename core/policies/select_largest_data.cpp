// Largest data first: the k online trainers holding the most samples (the baseline of
// data-value recruitment).

#include "core/policies/rank.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>

namespace fog {

namespace {
class SelectLargestData : public SelectionPolicy {
public:
    std::vector<int> select(const PolicyContext& e, int, int, const std::vector<int>& candidates, Rng&) override {
        return smallestK(candidates, static_cast<std::size_t>(e.selectionParams().integer("k")) /* live */, [&e](int t) { return -e.samplesOf(t); }); // most data first
    }
};
} // namespace

FOG_SELECTION_POLICY(selectLargestDataPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info = {"largest-data",
                  "Largest data first: the k online trainers holding the most samples (the baseline "
                  "data-value recruitment is compared against).",
                  "Baseline in device recruitment by data value, WiOpt 2021 / ToN",
                  {live(intParam("k", 10, 1, "trainers per round"))}};
        d.order = 80;
        d.make = [](const PolicyParams& p, const PolicyContext& e) -> std::unique_ptr<SelectionPolicy> {
            (void)p;
            (void)e;
            return std::make_unique<SelectLargestData>();
        };
        d.perRound = [](const PolicyParams& p) { return p.integer("k"); };
        return d;
    }();
    return d;
}

} // namespace fog
