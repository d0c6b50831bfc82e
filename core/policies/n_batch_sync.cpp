// N-batch synchronous SGD (ToN 2022): a round ends after the first m mini-batch gradients,
// whichever trainers compute them. A trainer that delivers keeps computing on the same model
// (no new download) until the round ends; work in progress then is abandoned.

#include "core/policies/round_policy.h"
#include "core/policies/sync_factories.h"

namespace fog {

namespace {

class NBatchSync : public RoundPolicy {
public:
    NBatchSync(const PolicySpec& spec, const Engine& e) : m_(static_cast<std::size_t>(spec.get("m", 1))) {
        aggregator_ = singleRootAggregator(e, "n-batch-sync");
    }

protected:
    bool gradientMode() const override { return true; }
    std::size_t needed(std::size_t) const override { return m_; }
    void onPartial(Engine& e, const Job& job) override {
        if (e.isOnline(job.trainer)) dispatchTo(e, job.trainer, /*download=*/false);
    }
    void aggregate(Engine& e, std::vector<Contribution>& results) override {
        const auto& t = e.scenario().training;
        model_.applyGradient(meanUpdate(results), e.learningRate(), t.momentum, t.weightDecay);
    }

private:
    std::size_t m_;
};

} // namespace

std::unique_ptr<SyncPolicy> makeNBatchSync(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<NBatchSync>(spec, e);
}

} // namespace fog
