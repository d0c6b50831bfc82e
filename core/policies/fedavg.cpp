// Federated averaging / local SGD (McMahan et al. 2017): selected trainers run local SGD
// from the global model; the server sets w = sum_k (n_k / n_S) w_k over those that delivered.

#include "core/policies/round_policy.h"
#include "core/policies/sync_factories.h"

namespace fog {

namespace {

class FedAvg : public RoundPolicy {
public:
    FedAvg(const PolicySpec& spec, const Engine& e) : deadline_(spec.get("deadline_s", 0.0)) {
        aggregator_ = singleRootAggregator(e, "fedavg");
    }

protected:
    bool gradientMode() const override { return false; }
    void onRoundStarted(Engine& e) override {
        if (deadline_ <= 0) return;
        const int round = round_;
        e.at(e.now() + deadline_, [this, &e, round] {
            if (round_ == round && !outstanding_.empty() && !waiting_) completeRound(e);
        });
    }
    void aggregate(Engine&, std::vector<Contribution>& results) override {
        model_.addDelta(sampleWeightedUpdate(results));
    }

private:
    double deadline_;
};

} // namespace

std::unique_ptr<SyncPolicy> makeFedAvg(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<FedAvg>(spec, e);
}

} // namespace fog
