#pragma once
// The server side of training: a model with its optimiser state, and the ways updates are
// combined. Plain loops over flat vectors; empty vectors (timing-only runs) are no-ops.

#include "core/model/learner.h"
#include "core/policies/server_optimizer.h"

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace fog {

/// One trainer's delivered work, as a policy keeps it until aggregation.
struct Contribution {
    int trainer = -1;
    std::int64_t samples = 0;
    double loss = 0.0;
    long staleness = 0;
    Params update;
    int steps = 0;          ///< local steps it completed (s_k)
    int stepsRequested = 0; ///< local steps it was asked for (E)
};

class ServerModel {
public:
    /// `optimizer`: the server optimiser addDelta steps with (none: w += Delta).
    explicit ServerModel(ParamsPtr initial = {}, ServerOptimizerConfig optimizer = {})
        : w_(std::move(initial)), optimizer_(optimizer) {}
    const ServerOptimizer& optimizer() const { return optimizer_; }
    const ParamsPtr& params() const { return w_; }
    long version() const { return version_; }
    void set(ParamsPtr w) {
        w_ = std::move(w);
        ++version_;
    }
    /// SGD with momentum and weight decay, as torch.optim.SGD: v = m v + (g + wd w);
    /// w -= lr * scale * v.
    void applyGradient(const Params& g, double lr, double momentum, double weightDecay,
                       double scale = 1.0);
    /// w += scale * delta; with a server optimiser (and scale 1), one step of it on delta.
    void addDelta(const Params& delta, double scale = 1.0);

private:
    ParamsPtr w_;
    ServerOptimizer optimizer_;
    Params velocity_;
    long version_ = 0;
};

/// Sum of updates weighted by `weights` (same order as `contributions`).
Params weightedSum(const std::vector<Contribution>& contributions, const std::vector<double>& weights);
/// Mean of the updates (equal weights).
Params meanUpdate(const std::vector<Contribution>& contributions);
/// Updates weighted by sample count n_k / n_S (FedAvg).
Params sampleWeightedUpdate(const std::vector<Contribution>& contributions);
/// Flexible participation (AISTATS 2021, [reconstructed]). Unbiased: (D_k / D_S) * E_k / s_k
/// with D_k the trainer's data size (`dataSizes`, same order), which scales incomplete local
/// work up to a full round's worth; plain: samples processed / their sum, which favours the
/// trainers that completed more steps.
std::vector<double> flexibleWeights(const std::vector<Contribution>& contributions,
                                    const std::vector<double>& dataSizes, bool unbiased);
/// FedNova (Wang et al., NeurIPS 2020, eq. 6 and 7): weights p_k tau_eff / a_k with
/// p_k = D_k / D_S (D_k: `dataSizes`, same order), a_k = ||a_k||_1 of local SGD with momentum
/// rho over the tau_k = steps the trainer completed, a_k = [tau_k - rho (1 - rho^tau_k) / (1 - rho)]
/// / (1 - rho) (tau_k when rho = 0), and tau_eff = sum_k p_k a_k. Delta = sum_k weight_k Delta_k
/// then moves the model as far as tau_eff normalised steps, whatever steps each one ran.
std::vector<double> fedNovaWeights(const std::vector<Contribution>& contributions,
                                   const std::vector<double>& dataSizes, double momentum);
/// ||a||_1 of FedNova for `steps` local SGD steps with momentum rho.
double fedNovaNorm(int steps, double momentum);
/// SCAFFOLD option II (Karimireddy et al., ICML 2020, eq. 4): the client's new control variate
/// c_i+ = c_i - c - Delta y / (K eta) from its change Delta y after K local steps of size eta.
Params scaffoldClientVariate(const Params& ci, const Params& c, const Params& deltaY, int steps, double lr);
/// SCAFFOLD's variates: the server's c and each client's c_i (empty: zero, not yet sent).
struct ScaffoldVariates {
    Params c;
    std::map<int, Params> ci;
};
/// One SCAFFOLD round at the server (Algorithm 1, option II): every contribution with an
/// update sets its client's c_i+ (scaffoldClientVariate, with `lr`: the local step size of
/// that client's dispatch), then c += (1 / N) sum_i (c_i+ - c_i) with N = `trainers`, the
/// aggregator's trainers. Returns Delta x = (1/|S|) sum_i Delta y_i.
/// `sendUp` (may be empty) is what the uplink does to a client's Delta c_i on its way
/// (a codec: the server adds the decoded Delta c_i to c; the client keeps its exact c_i+).
Params scaffoldRound(ScaffoldVariates& v, const std::vector<Contribution>& contributions,
                     const std::map<int, double>& lr, std::size_t trainers,
                     const std::function<void(int trainer, Params& deltaCi)>& sendUp = {});
/// FedBuff's weights (Nguyen et al., AISTATS 2022): (1 + tau_k)^(-b) / K for the K buffered
/// changes, tau_k their staleness (server versions since the pull).
std::vector<double> fedBuffWeights(const std::vector<Contribution>& buffer, double exponent);
/// Sample-weighted mean of the contributions' losses (NaN when none).
double meanLoss(const std::vector<Contribution>& contributions);
/// Average of whole models, weighted (model averaging, hierarchical aggregation).
Params weightedModelAverage(const std::vector<ParamsPtr>& models, const std::vector<double>& weights);

} // namespace fog
