// FedAvg with flexible participation (Ruan et al., AISTATS 2021, [reconstructed]): trainers
// stop computing at a compute deadline and return incomplete work, arrive and leave with
// their availability, and the server weights their updates so the objective stays unbiased.

#include "core/policies/round_policy.h"
#include "core/policies/sync_factories.h"

namespace fog {

namespace {

class Flexible : public RoundPolicy {
public:
    Flexible(const PolicySpec& spec, const Engine& e)
        : computeDeadline_(spec.get("compute_deadline_s", 0.0)), unbiased_(spec.get("weighting", 1) != 0) {
        aggregator_ = singleRootAggregator(e, "flexible");
    }

protected:
    bool gradientMode() const override { return false; }
    DispatchOptions dispatchOptions(Engine& e, int) override {
        DispatchOptions o;
        if (computeDeadline_ > 0) o.computeDeadline = e.now() + computeDeadline_;
        return o;
    }
    void aggregate(Engine& e, std::vector<Contribution>& results) override {
        std::vector<double> sizes;
        for (const auto& c : results) sizes.push_back(static_cast<double>(e.samplesOf(c.trainer)));
        model_.addDelta(weightedSum(results, flexibleWeights(results, sizes, unbiased_)));
        for (const auto& c : results)
            if (c.steps < c.stepsRequested)
                e.emitEvent("partial-work", c.trainer,
                            std::to_string(c.steps) + " of " + std::to_string(c.stepsRequested) + " steps");
    }

private:
    double computeDeadline_;
    bool unbiased_;
};

} // namespace

std::unique_ptr<SyncPolicy> makeFlexible(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<Flexible>(spec, e);
}

} // namespace fog
