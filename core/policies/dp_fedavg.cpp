// DP-FedAvg (McMahan et al., Learning differentially private recurrent language models, ICLR
// 2018): client-level differential privacy. Every delivered change is clipped to L2 norm S,
// the server averages with the fixed denominator m (the trainers selected) and Gaussian noise
// of standard deviation sigma S / m is added, at the server or as m shares of the clients'
// own noise. A Renyi-DP accountant (core/policies/rdp_accountant.h) reports after every round
// the epsilon spent at `delta`, with sampling rate q = m / N (N the server's trainers).

#include "core/policies/policy_descriptor.h"
#include "core/policies/rdp_accountant.h"
#include "core/policies/round_policy.h"
#include "core/util/random.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fog {

namespace {

struct DpFedAvgSettings {
    double clip = 0.0;            ///< S
    double noiseMultiplier = 0.0; ///< sigma
    double delta = 0.0;
    bool clientNoise = false;     ///< noise_at 1
    double elementsPerSecond = 0.0;
};

const ParamTable<DpFedAvgSettings>& dpFedAvgParams() {
    static const auto t =
        ParamTable<DpFedAvgSettings>()
            .real("clip", &DpFedAvgSettings::clip, 1.0, 1e-12, 1e12, "clipping norm S of a client's change")
            .real("noise_multiplier", &DpFedAvgSettings::noiseMultiplier, 1.0, 0.0, 1e6,
                  "sigma: noise standard deviation over S")
            .real("delta", &DpFedAvgSettings::delta, 1e-5, 1e-300, 0.999999, "delta of the reported (epsilon, delta)")
            .flag("noise_at", &DpFedAvgSettings::clientNoise, false,
                  "0 = Gaussian noise added at the server, 1 = on the clients")
            .real("elements_per_s", &DpFedAvgSettings::elementsPerSecond, 0.0, 0.0, 1e15,
                  "coordinates a node clips or draws noise for per second: the client's clipping "
                  "(and noise share) is work after its steps, the server's noise delays the "
                  "aggregation; charged as compute energy; 0 = free");
    return t;
}

class DpFedAvg : public RoundPolicy {
public:
    DpFedAvg(const DpFedAvgSettings& s, const std::string& policy, const SystemView& e)
        : clip_(s.clip), sigma_(s.noiseMultiplier), delta_(s.delta), clientNoise_(s.clientNoise),
          rate_(s.elementsPerSecond), rng_(deriveSeed(e.scenario().seed, hashName("dp-fedavg"))) {
        aggregator_ = singleRootAggregator(e, policy);
    }

protected:
    bool gradientMode() const override { return false; }
    /// One pass over the P coordinates at elements_per_s: the client clips (norm and scale)
    /// and, with noise_at 1, draws its noise share (a second pass) after its last step.
    double pass(const SystemView& e) const { return rate_ > 0 ? e.modelBytes() / 4.0 / rate_ : 0.0; }
    void prepareDispatch(PolicyContext& e, DispatchRequest& r) override {
        r.options.workAfterSeconds = (clientNoise_ ? 2.0 : 1.0) * pass(e);
    }
    /// With noise_at 0 the server draws the noise (one pass) before it can aggregate.
    double serverWorkSeconds(PolicyContext& e, std::size_t contributions) override {
        return clientNoise_ || contributions == 0 ? 0.0 : pass(e);
    }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        const double m = static_cast<double>(std::max<std::size_t>(1, dispatched_));
        const double stddev = sigma_ * clip_ / m;
        Params sum;
        for (auto& c : results) {
            if (c.update.empty()) continue;
            double norm2 = 0.0;
            for (float x : c.update) norm2 += static_cast<double>(x) * x;
            const double scale = std::min(1.0, clip_ / std::max(std::sqrt(norm2), 1e-300));
            if (sum.empty()) sum.assign(c.update.size(), 0.0f);
            Rng client(deriveSeed(deriveSeed(e.scenario().seed, hashName("dp-client-noise"),
                                             hashName(e.topology().id(c.trainer))),
                                  static_cast<std::uint64_t>(round_)));
            for (std::size_t i = 0; i < sum.size(); ++i) {
                double v = c.update[i] * scale;
                // m shares of variance (sigma S)^2 / m: their sum has the server's noise.
                if (clientNoise_) v += client.normal() * sigma_ * clip_ / std::sqrt(m);
                sum[i] += static_cast<float>(v);
            }
        }
        if (!sum.empty()) {
            for (float& x : sum) {
                double v = x / m;
                if (!clientNoise_) v += rng_.normal() * stddev;
                x = static_cast<float>(v);
            }
            model_.addDelta(sum);
        }
        ++dpRounds_;
        const double population = static_cast<double>(std::max<std::size_t>(1, e.trainersOf(aggregator_).size()));
        const double q = std::min(1.0, m / population);
        int order = 0;
        const double eps = rdpEpsilon(q, sigma_, dpRounds_, delta_, &order);
        char detail[200];
        std::snprintf(detail, sizeof detail, "epsilon=%.6g delta=%g rounds=%ld q=%.6g sigma=%g order=%d", eps, delta_,
                      dpRounds_, q, sigma_, order);
        e.report(PolicyEvent::Privacy, -1, detail);
    }

private:
    double clip_, sigma_, delta_;
    bool clientNoise_;
    double rate_; ///< elements_per_s; 0: clipping and noise take no time
    Rng rng_;
    long dpRounds_ = 0;
};

} // namespace

FOG_SYNC_POLICY(dpFedAvgPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "dp-fedavg";
        d.info.summary = "DP-FedAvg (client-level DP): each delivered change is clipped, Delta_k *= "
                         "min(1, S / ||Delta_k||); w += (1/m) sum_k Delta_k + N(0, (sigma S / m)^2 I), m "
                         "the trainers selected (fixed denominator); the noise is added at the server "
                         "(noise_at 0) or as each client's N(0, sigma^2 S^2 / m) (noise_at 1). After "
                         "every round the Renyi-DP accountant of the sampled Gaussian mechanism (q = m / "
                         "N, N the server's trainers) reports epsilon at delta as a privacy event. Cost "
                         "at elements_per_s r: P / r s of client work after the steps (clip), P / r more "
                         "with noise_at 1; with noise_at 0, P / r s at the server before it aggregates.";
        d.info.source = "McMahan et al., Learning differentially private recurrent language models, ICLR "
                        "2018; accountant: Mironov, Talwar and Zhang 2019 (Sec. 3.3), Mironov 2017 (Prop. "
                        "3)";
        d.info.params = dpFedAvgParams().infos();
        d.order = 63;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<DpFedAvg>(dpFedAvgParams().read(p), p.policy(), e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
