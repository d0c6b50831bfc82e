// Federated averaging / local SGD (McMahan et al. 2017): selected trainers run local SGD
// from the global model; the server sets w = sum_k (n_k / n_S) w_k over those that delivered.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

class FedAvg : public RoundPolicy {
public:
    FedAvg(const PolicyParams& p, const PolicyContext& e) {
        aggregator_ = singleRootAggregator(e, p.policy());
    }

protected:
    bool gradientMode() const override { return false; }
    void onRoundStarted(PolicyContext& e) override {
        const double deadline = e.syncParams().get("deadline_s"); // live
        if (deadline <= 0) return;
        const int round = round_;
        e.at(e.now() + deadline, [this, &e, round] {
            if (round_ == round && !outstanding_.empty() && !waiting_) completeRound(e);
        });
    }
    void aggregate(PolicyContext&, std::vector<Contribution>& results) override {
        model_.addDelta(sampleWeightedUpdate(results));
    }
};

} // namespace

FOG_SYNC_POLICY(fedAvgPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info = {"fedavg",
                  "Federated averaging / local SGD: each selected trainer runs training.local_steps steps "
                  "(or training.local_epochs passes over its data) from the global model; the server "
                  "waits for every selected trainer still online (or the deadline) and sets w = sum_k "
                  "(n_k / n_S) w_k, weighting by sample counts.",
                  "McMahan et al., Communication-efficient learning (FedAvg), AISTATS 2017",
                  {live(realParam("deadline_s", 0.0, 0.0, 1e12,
                             "seconds after the round starts at which late trainers are dropped; 0 = none"))}};
        d.order = 60;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const PolicyContext& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<FedAvg>(p, e);
        };
        d.level = {true, false, "", "deadline_s"};
        return d;
    }();
    return d;
}

} // namespace fog
