// FedProx (Li et al., MLSys 2020): FedAvg whose trainers minimise F_k(w) + mu/2 ||w - w_t||^2,
// so every local gradient gets mu (w - w_t) added (core/model/learner.cpp, GradientTerms); the
// server averages as FedAvg does. The term costs no bytes; its compute is one more vector
// operation per step, which the clock does not price (it prices samples, not flops).

#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

namespace fog {

namespace {

struct FedProxSettings {
    double mu = 0.0;              ///< proximal weight
    double deadlineSeconds = 0.0; ///< 0: none
};

const ParamTable<FedProxSettings>& fedProxParams() {
    static const auto t = ParamTable<FedProxSettings>()
                              .real("mu", &FedProxSettings::mu, 0.01, 0.0, 1e6, "proximal weight mu")
                              .real("deadline_s", &FedProxSettings::deadlineSeconds, 0.0, 0.0, 1e12,
                                    "seconds after the round starts at which late trainers are dropped; 0 = none")
                              .live();
    return t;
}

class FedProx : public RoundPolicy {
public:
    FedProx(const PolicyParams& p, const SystemView& e) : mu_(fedProxParams().read(p).mu), live_(fedProxParams()) {
        aggregator_ = singleRootAggregator(e, p.policy());
    }

protected:
    bool gradientMode() const override { return false; }
    void prepareDispatch(PolicyContext&, DispatchRequest& r) override { r.proxMu = mu_; }
    double roundDeadline(PolicyContext& e) override { return live_.of(e.syncParams()).deadlineSeconds; }
    void aggregate(PolicyContext&, std::vector<Contribution>& results) override {
        model_.addDelta(sampleWeightedUpdate(results));
    }

private:
    double mu_;                         ///< read once
    LiveParams<FedProxSettings> live_; ///< deadline_s, read at each round
};

} // namespace

FOG_SYNC_POLICY(fedProxPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "fedprox";
        d.info.summary = "FedProx: FedAvg whose trainers minimise F_k(w) + (mu / 2) ||w - w_t||^2 from "
                         "the global model w_t: every local step's gradient is g + mu (w - w_t) (before "
                         "the optimizer's weight decay and momentum); the server sets w = sum_k (n_k / "
                         "n_S) w_k. mu 0 is FedAvg.";
        d.info.source = "Li et al., Federated optimization in heterogeneous networks (FedProx), MLSys 2020";
        d.info.params = fedProxParams().infos();
        d.order = 61;
        d.roundDeadline = paramRef<fedProxParams, &FedProxSettings::deadlineSeconds>();
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<FedProx>(p, e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
