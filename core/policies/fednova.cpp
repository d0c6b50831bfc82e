// FedNova (Wang et al., Tackling the objective inconsistency problem in heterogeneous FL,
// NeurIPS 2020): trainers that ran different numbers of local steps (a compute deadline,
// local epochs over unequal data) would pull FedAvg towards the objectives of those that ran
// more; FedNova divides each change by its steps' norm a_k and rescales by tau_eff
// (core/policies/aggregation.h, fedNovaWeights). Costs nothing on the wire: the step count
// travels with the update.

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

struct FedNovaSettings {
    double computeDeadlineSeconds = 0.0; ///< 0: none
};

const ParamTable<FedNovaSettings>& fedNovaParams() {
    static const auto t = ParamTable<FedNovaSettings>().real(
        "compute_deadline_s", &FedNovaSettings::computeDeadlineSeconds, 0.0, 0.0, 1e12,
        "seconds after the round starts at which local computing stops; 0 = none");
    return t;
}

class FedNova : public RoundPolicy {
public:
    FedNova(const FedNovaSettings& s, const std::string& policy, const SystemView& e)
        : computeDeadline_(s.computeDeadlineSeconds) {
        aggregator_ = singleRootAggregator(e, policy);
        const auto& t = e.scenario().training;
        if (t.optimizer != "sgd")
            throw EngineError("sync policy fednova normalises local SGD (with momentum); training.optimizer " +
                              t.optimizer + " has no such normalisation in the paper");
        momentum_ = t.momentum;
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
        model_.addDelta(weightedSum(results, fedNovaWeights(results, sizes, momentum_)));
        for (const auto& c : results)
            if (c.steps < c.stepsRequested)
                e.report(PolicyEvent::PartialWork, c.trainer,
                         std::to_string(c.steps) + " of " + std::to_string(c.stepsRequested) + " steps");
    }

private:
    double computeDeadline_;
    double momentum_ = 0.0;
};

} // namespace

FOG_SYNC_POLICY(fedNovaPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "fednova";
        d.info.summary = "FedNova: normalised averaging for unequal local work. Trainer k ran tau_k local "
                         "SGD steps (fewer when compute_deadline_s cut it, more with local_epochs on more "
                         "data); with p_k = D_k / D_S (data sizes of those that delivered), a_k = tau_k "
                         "(momentum rho: [tau_k - rho (1 - rho^tau_k) / (1 - rho)] / (1 - rho)) and "
                         "tau_eff = sum_k p_k a_k, w += tau_eff sum_k p_k Delta_k / a_k. Equal steps give "
                         "FedAvg's data-weighted mean.";
        d.info.source = "Wang et al., Tackling the objective inconsistency problem in heterogeneous "
                        "federated optimization (FedNova), NeurIPS 2020";
        d.info.params = fedNovaParams().infos();
        d.order = 91;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<FedNova>(fedNovaParams().read(p), p.policy(), e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
