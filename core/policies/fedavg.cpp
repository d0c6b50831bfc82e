// Federated averaging / local SGD (McMahan et al. 2017): selected trainers run local SGD
// from the global model; the server sets w = sum_k (n_k / n_S) w_k over those that delivered.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

struct FedAvgSettings {
    double deadlineSeconds = 0.0; ///< 0: none
};

const ParamTable<FedAvgSettings>& fedAvgParams() {
    static const auto t = ParamTable<FedAvgSettings>()
                              .real("deadline_s", &FedAvgSettings::deadlineSeconds, 0.0, 0.0, 1e12,
                                    "seconds after the round starts at which late trainers are dropped; 0 = none")
                              .live();
    return t;
}

class FedAvg : public RoundPolicy {
public:
    FedAvg(const PolicyParams& p, const SystemView& e) : settings_(fedAvgParams()) {
        aggregator_ = singleRootAggregator(e, p.policy());
    }

protected:
    bool gradientMode() const override { return false; }
    double roundDeadline(PolicyContext& e) override { return settings_.of(e.syncParams()).deadlineSeconds; }
    void aggregate(PolicyContext&, std::vector<Contribution>& results) override {
        model_.addDelta(sampleWeightedUpdate(results));
    }

private:
    LiveParams<FedAvgSettings> settings_;
};

} // namespace

FOG_SYNC_POLICY(fedAvgPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "fedavg";
        d.info.summary = "Federated averaging / local SGD: each selected trainer runs "
                         "training.local_steps steps (or training.local_epochs passes over its data) from "
                         "the global model; the server waits for every selected trainer still online (or "
                         "the deadline) and sets w = sum_k (n_k / n_S) w_k, weighting by sample counts.";
        d.info.source = "McMahan et al., Communication-efficient learning (FedAvg), AISTATS 2017";
        d.info.params = fedAvgParams().infos();
        d.order = 60;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<FedAvg>(p, e);
        };
        d.level.usable = true;
        d.level.deadlineSeconds = paramRef<fedAvgParams, &FedAvgSettings::deadlineSeconds>();
        d.roundDeadline = d.level.deadlineSeconds;
        return d;
    }();
    return d;
}

} // namespace fog
