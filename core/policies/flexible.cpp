// FedAvg with flexible participation (Ruan et al., AISTATS 2021, [reconstructed]): trainers
// stop computing at a compute deadline and return incomplete work, arrive and leave with
// their availability, and the server weights their updates so the objective stays unbiased.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

struct FlexibleSettings {
    double computeDeadlineSeconds = 0.0; ///< 0: none
    bool unbiased = false;               ///< weighting 1
};

const ParamTable<FlexibleSettings>& flexibleParams() {
    static const auto t =
        ParamTable<FlexibleSettings>()
            .real("compute_deadline_s", &FlexibleSettings::computeDeadlineSeconds, 0.0, 0.0, 1e12,
                  "seconds after the round starts at which local computing stops; 0 = none")
            .flag("weighting", &FlexibleSettings::unbiased, true,
                  "1 = unbiased (D_k / D_S) E / s_k, 0 = plain samples processed");
    return t;
}

class Flexible : public RoundPolicy {
public:
    Flexible(const FlexibleSettings& s, const std::string& policy, const SystemView& e)
        : computeDeadline_(s.computeDeadlineSeconds), unbiased_(s.unbiased) {
        aggregator_ = singleRootAggregator(e, policy);
    }

protected:
    bool gradientMode() const override { return false; }
    DispatchOptions dispatchOptions(PolicyContext& e, int) override {
        DispatchOptions o;
        if (computeDeadline_ > 0) o.computeDeadline = e.now() + computeDeadline_;
        return o;
    }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        std::vector<double> sizes;
        for (const auto& c : results) sizes.push_back(static_cast<double>(e.samplesOf(c.trainer)));
        model_.addDelta(weightedSum(results, flexibleWeights(results, sizes, unbiased_)));
        for (const auto& c : results)
            if (c.steps < c.stepsRequested)
                e.report(PolicyEvent::PartialWork, c.trainer,
                            std::to_string(c.steps) + " of " + std::to_string(c.stepsRequested) + " steps");
    }

private:
    double computeDeadline_;
    bool unbiased_;
};

} // namespace

FOG_SYNC_POLICY(flexiblePolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "flexible";
        d.info.summary = "FedAvg with flexible participation: each round's trainers run local SGD until "
                         "training.local_steps are done or compute_deadline_s has passed, whichever is "
                         "first, and return what they finished (s_k of E steps); trainers that arrive "
                         "later join the next round, those that leave lose their work. weighting 1 "
                         "(unbiased): w += sum_k (D_k / D_S) (E / s_k) Delta_k over the trainers that "
                         "delivered, D_k their data sizes; weighting 0 (plain): w += sum_k (m_k / m_S) "
                         "Delta_k with m_k the samples processed, which favours fast trainers.";
        d.info.source = "Ruan et al., Towards flexible device participation in FL, AISTATS 2021 "
                        "[reconstructed]";
        d.info.params = flexibleParams().infos();
        d.order = 90;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<Flexible>(flexibleParams().read(p), p.policy(), e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
