// N-batch synchronous SGD (ToN 2022): a round ends after the first m mini-batch gradients,
// whichever trainers compute them. A trainer that delivers keeps computing on the same model
// (no new download) until the round ends; work in progress then is abandoned.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

struct NBatchSyncSettings {
    int m = 0; ///< mini-batch gradients per round
};

const ParamTable<NBatchSyncSettings>& nBatchSyncParams() {
    static const auto t = ParamTable<NBatchSyncSettings>()
                              .integer("m", &NBatchSyncSettings::m, 1, 1, "mini-batch gradients aggregated per round")
                              .live();
    return t;
}

class NBatchSync : public RoundPolicy {
public:
    NBatchSync(const PolicyParams& p, const SystemView& e) : ctx_(&e), settings_(nBatchSyncParams()) {
        aggregator_ = singleRootAggregator(e, p.policy());
    }

protected:
    bool gradientMode() const override { return true; }
    std::size_t needed(std::size_t) const override {
        return static_cast<std::size_t>(settings_.of(ctx_->syncParams()).m);
    }
    void onPartial(PolicyContext& e, const Job& job) override {
        if (e.isOnline(job.trainer)) dispatchTo(e, job.trainer, /*download=*/false);
    }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        const auto& t = e.scenario().training;
        model_.applyGradient(meanUpdate(results), e.learningRate(), t.momentum, t.weightDecay);
    }

private:
    const SystemView* ctx_; ///< the engine, which outlives its policies
    LiveParams<NBatchSyncSettings> settings_;
};

} // namespace

FOG_SYNC_POLICY(nBatchSyncPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "n-batch-sync";
        d.info.summary = "Parameter-server SGD that ends a round after the first m mini-batch gradients, "
                         "from whichever trainers deliver them; a fast trainer may give several. E[round] "
                         "= m / (y lambda) with y trainers.";
        d.info.source = "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022";
        d.info.params = nBatchSyncParams().infos();
        d.order = 30;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<NBatchSync>(p, e);
        };
        d.stepsPerDispatch = [](const PolicyParams&) { return 1; };
        d.hasBarrier = true;
        d.barrier.kind = BarrierKind::FirstBatches;
        d.barrier.count = paramRef<nBatchSyncParams, &NBatchSyncSettings::m>();
        return d;
    }();
    return d;
}

} // namespace fog
