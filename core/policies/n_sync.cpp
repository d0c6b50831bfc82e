// N-synchronous SGD (ToN 2022): a round ends when the first n selected trainers have
// delivered; the gradients still on their way are discarded.

#include "core/policies/round_policy.h"
#include "core/policies/sync_factories.h"

namespace fog {

namespace {

class NSync : public RoundPolicy {
public:
    NSync(const PolicySpec& spec, const Engine& e) : n_(static_cast<std::size_t>(spec.get("n", 1))) {
        aggregator_ = singleRootAggregator(e, "n-sync");
    }

protected:
    bool gradientMode() const override { return true; }
    std::size_t needed(std::size_t dispatched) const override { return std::min(n_, dispatched); }
    void aggregate(Engine& e, std::vector<Contribution>& results) override {
        const auto& t = e.scenario().training;
        model_.applyGradient(meanUpdate(results), e.learningRate(), t.momentum, t.weightDecay);
    }

private:
    std::size_t n_;
};

} // namespace

std::unique_ptr<SyncPolicy> makeNSync(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<NSync>(spec, e);
}

} // namespace fog
