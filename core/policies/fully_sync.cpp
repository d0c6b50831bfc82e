// Fully synchronous parameter-server SGD (ToN 2022's baseline): wait for every selected
// trainer still online, average their gradients, take one optimiser step.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

class FullySync : public RoundPolicy {
public:
    FullySync(const PolicyParams& p, const SystemView& e) { aggregator_ = singleRootAggregator(e, p.policy()); }

protected:
    bool gradientMode() const override { return true; }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        const auto& t = e.scenario().training;
        model_.applyGradient(meanUpdate(results), e.learningRate(), t.momentum, t.weightDecay);
    }
};

} // namespace

FOG_SYNC_POLICY(fullySyncPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "fully-sync";
        d.info.summary = "Parameter-server SGD. Each round every selected trainer still online computes "
                         "one mini-batch gradient on the current model; the server waits for all of them, "
                         "averages the gradients and takes one optimiser step. Round time = slowest "
                         "trainer (E = H_n / lambda for exponential step times).";
        d.info.source = "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022";
        d.order = 10;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<FullySync>(p, e);
        };
        d.stepsPerDispatch = [](const PolicyParams&) { return 1; };
        d.hasBarrier = true;
        d.barrier.kind = BarrierKind::FullySync;
        d.level.usable = true;
        d.level.gradient = true;
        return d;
    }();
    return d;
}

} // namespace fog
