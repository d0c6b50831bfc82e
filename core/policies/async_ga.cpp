// Asynchronous SGD with gradient accumulation (Cloudless-Training's ASGD-GA): a trainer runs
// k local steps and pushes their accumulated change once, so the WAN carries one message
// per k steps instead of k.

#include "core/policies/async_policy.h"
#include "core/policies/policy_descriptor.h"

namespace fog {

FOG_SYNC_POLICY(asyncGaPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info = {"async-ga",
                  "Asynchronous SGD with gradient accumulation: a trainer runs k local steps, then pushes "
                  "the accumulated change once (one WAN message per k steps); the server adds it on "
                  "arrival, scaled by a (1 + tau)^(-b).",
                  "Tan et al., Cloudless-Training (ASGD-GA), Chinese High Technology Letters 2024",
                  {intParam("k", 4, 1, "local steps accumulated per push"),
                   realParam("staleness_exponent", 0.5, 0.0, 10.0, "b in (1 + tau)^(-b); 0 = constant"),
                   realParam("mixing", 1.0, 0.0, 1.0, "a: scale of every applied update")}};
        d.order = 50;
        d.make = [](const PolicyParams& p, const PolicyContext& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<AsyncPolicy>(p, e, p.integer("k"));
        };
        d.stepsPerDispatch = [](const PolicyParams& p) { return p.integer("k"); };
        return d;
    }();
    return d;
}

} // namespace fog
