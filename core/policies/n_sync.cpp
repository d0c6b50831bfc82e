// N-synchronous SGD (ToN 2022): a round ends when the first n selected trainers have
// delivered; the gradients still on their way are discarded.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

struct NSyncSettings {
    int n = 0; ///< gradients per round
};

const ParamTable<NSyncSettings>& nSyncParams() {
    static const auto t = ParamTable<NSyncSettings>()
                              .integer("n", &NSyncSettings::n, 1, 1, "gradients aggregated per round (trainers)")
                              .live();
    return t;
}

class NSync : public RoundPolicy {
public:
    NSync(const PolicyParams& p, const SystemView& e) : ctx_(&e), settings_(nSyncParams()) {
        aggregator_ = singleRootAggregator(e, p.policy());
    }

protected:
    bool gradientMode() const override { return true; }
    std::size_t needed(std::size_t dispatched) const override {
        return std::min(static_cast<std::size_t>(settings_.of(ctx_->syncParams()).n), dispatched);
    }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        const auto& t = e.scenario().training;
        model_.applyGradient(meanUpdate(results), e.learningRate(), t.momentum, t.weightDecay);
    }

private:
    const SystemView* ctx_; ///< the engine, which outlives its policies
    LiveParams<NSyncSettings> settings_;
};

} // namespace

FOG_SYNC_POLICY(nSyncPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "n-sync";
        d.info.summary = "Parameter-server SGD that ends a round when the first n selected trainers have "
                         "delivered a gradient; later gradients of that round are discarded. E[round] = "
                         "(H_y - H_{y-n}) / lambda with y trainers.";
        d.info.source = "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022";
        d.info.params = nSyncParams().infos();
        d.order = 20;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<NSync>(p, e);
        };
        d.stepsPerDispatch = [](const PolicyParams&) { return 1; };
        d.hasBarrier = true;
        d.barrier.kind = BarrierKind::FirstK;
        d.barrier.count = paramRef<nSyncParams, &NSyncSettings::n>();
        d.level.usable = true;
        d.level.gradient = true;
        d.level.first = paramRef<nSyncParams, &NSyncSettings::n>();
        return d;
    }();
    return d;
}

} // namespace fog
