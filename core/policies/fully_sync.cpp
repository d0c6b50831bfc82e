// Fully synchronous parameter-server SGD (ToN 2022's baseline): wait for every selected
// trainer still online, average their gradients, take one optimiser step.

#include "core/policies/round_policy.h"
#include "core/policies/sync_factories.h"

namespace fog {

namespace {

class FullySync : public RoundPolicy {
public:
    explicit FullySync(const Engine& e) { aggregator_ = singleRootAggregator(e, "fully-sync"); }

protected:
    bool gradientMode() const override { return true; }
    void aggregate(Engine& e, std::vector<Contribution>& results) override {
        const auto& t = e.scenario().training;
        model_.applyGradient(meanUpdate(results), e.learningRate(), t.momentum, t.weightDecay);
    }
};

} // namespace

std::unique_ptr<SyncPolicy> makeFullySync(const PolicySpec&, const Engine& e) {
    return std::make_unique<FullySync>(e);
}

} // namespace fog
