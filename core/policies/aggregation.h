#pragma once
// The server side of training: a model with its optimiser state, and the ways updates are
// combined. Plain loops over flat vectors; empty vectors (timing-only runs) are no-ops.

#include "core/model/learner.h"

#include <cstdint>
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
    explicit ServerModel(ParamsPtr initial = {}) : w_(std::move(initial)) {}
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
    /// w += scale * delta.
    void addDelta(const Params& delta, double scale = 1.0);

private:
    ParamsPtr w_;
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
/// Sample-weighted mean of the contributions' losses (NaN when none).
double meanLoss(const std::vector<Contribution>& contributions);
/// Average of whole models, weighted (model averaging, hierarchical aggregation).
Params weightedModelAverage(const std::vector<ParamsPtr>& models, const std::vector<double>& weights);

} // namespace fog
