#pragma once
// AdaCoOpt (IWQoS 2023): per-device batch sizes and one aggregation interval tau chosen to
// minimise a convergence bound of local SGD with heterogeneous data, under a per-round time
// cap (time-dominant) or a total batch budget (cost-dominant); plus its two baselines.
// Pure functions ([code]-level reading of the authors' bound, constants as parameters).

#include <vector>

namespace fog {

struct AdaCoOptConstants {
    double eta = 0.01;  ///< step size
    double c = 0.1;     ///< strong convexity: q = 1 - eta c
    double beta = 1.0;  ///< smoothness
    double rho = 1.0;   ///< Lipschitz constant of the loss
    double delta = 1.0; ///< gradient divergence between devices
    double f0 = 1.0;    ///< F(w0) - F*
    int rounds = 100;   ///< K aggregation rounds the bound looks ahead
};

/// Convergence bound after K rounds of tau local steps, device i with D_i samples using
/// batch b_i: q^(K tau) F0 + [(1 - q^(K tau)) / (1 - q^tau)] [beta eta^2 sum_i D_i^2 /
/// (2 (1 - q) D^2 b_i) + rho h(tau)], h(tau) = (delta / beta)((eta beta + 1)^tau - 1) -
/// eta delta tau.
double adacooptGap(const AdaCoOptConstants& k, int tau, const std::vector<double>& dataSizes,
                   const std::vector<int>& batches);

/// Minimises sum_i D_i^2 / b_i over integers minBatch <= b_i <= caps[i] with sum b_i <=
/// budget (0 = no budget: every b_i = its cap) by adding 1 to the device with the largest
/// D_i^2 / (b_i (b_i + 1)): exact for this separable convex problem.
std::vector<int> greedyBatches(const std::vector<double>& dataSizes, const std::vector<int>& caps,
                               int minBatch, long budget);

struct AdaCoOptPlan {
    int tau = 1;
    std::vector<int> batches;
    double gap = 0.0;
};

struct AdaCoOptLimits {
    double roundTimeS = 0.0; ///< each device's tau steps + communication fit in this; 0 = none
    long batchBudget = 0;    ///< sum of batch sizes per step; 0 = none
    int maxTau = 10;
    int minBatch = 1;
    int maxBatch = 256;
};

/// Per-device cap on the batch so that tau steps at `speeds` (samples/s) plus `commSeconds`
/// fit in the round time (at least minBatch).
std::vector<int> batchCaps(const std::vector<double>& speeds, const std::vector<double>& commSeconds,
                           int tau, const AdaCoOptLimits& lim);
/// AdaCoOpt: for each tau in 1..maxTau the best batches, and the tau of least bound.
AdaCoOptPlan planAdaCoOpt(const AdaCoOptConstants& k, const std::vector<double>& dataSizes,
                          const std::vector<double>& speeds, const std::vector<double>& commSeconds,
                          const AdaCoOptLimits& lim);
/// No-straggler baseline: batches proportional to speed (mean `meanBatch`), so every device
/// finishes its steps at the same time.
std::vector<int> noStragglerBatches(const std::vector<double>& speeds, int meanBatch, int maxBatch);
/// Dynamic-T baseline: uniform batches, only tau chosen (the largest tau whose slowest
/// device still fits the round time is the upper limit).
AdaCoOptPlan planDynamicTau(const AdaCoOptConstants& k, const std::vector<double>& dataSizes,
                            const std::vector<double>& speeds, const std::vector<double>& commSeconds,
                            int batch, const AdaCoOptLimits& lim);

} // namespace fog
