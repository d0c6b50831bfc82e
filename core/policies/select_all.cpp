// Every online trainer takes part.

#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

namespace fog {

namespace {
class SelectAll : public SelectionPolicy {
public:
    std::vector<int> select(const SystemView&, int, int, const std::vector<int>& candidates, Rng&) override {
        return candidates;
    }
};
} // namespace

FOG_SELECTION_POLICY(selectAllPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "all";
        d.info.summary = "Every trainer that is online takes part in every round.";
        d.order = 10;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            (void)p;
            (void)e;
            return std::make_unique<SelectAll>();
        };
        d.uniform = true;
        return d;
    }();
    return d;
}

} // namespace fog
