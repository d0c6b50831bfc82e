#pragma once
// The ToN 2022 planner (Zhang et al., ML on volatile instances, [reconstructed]): given a
// loss target and a deadline, choose the number of workers n and iterations J of
// parameter-server SGD that minimise expected cost, from the closed-form runtime of an
// iteration with y ~ Bin(n, q) active workers and the SGD error bound.

#include <string>
#include <vector>

namespace fog {

struct TonPlannerInputs {
    enum class Sync { Full, NSync, NBatchSync };
    Sync sync = Sync::Full;
    int syncN = 1;              ///< n-sync: gradients per iteration; n-batch-sync: m
    // Error bound: strongly convex c, smooth L, gradient-noise constants mu and M.
    double eta = 0.01;          ///< step size
    double c = 1.0;
    double mu = 1.0;
    double L = 1.0;
    double M = 1.0;
    int batch = 1;              ///< mini-batch b per gradient
    double initialGap = 1.0;    ///< F(w0) - F*
    double targetGap = 0.1;     ///< eps: wanted F(w_J) - F*
    // Runtime and price.
    double lambda = 1.0;        ///< gradient computations per second of one worker (exponential)
    double commSeconds = 0.0;   ///< model down + gradient up per iteration
    double availability = 1.0;  ///< q: probability a worker is up in an iteration
    double pricePerHour = 0.0;  ///< per worker, billed while up
    double deadlineS = 0.0;     ///< 0 = none
    int maxWorkers = 1;
};

struct TonPlanPoint {
    int n = 0;
    long J = 0;                  ///< iterations; -1 when the target is below the error floor
    double errorFloor = 0.0;     ///< A(n) = eta L M E[1/y_eff] / (2 c mu b)
    double expectedSeconds = 0.0;
    double expectedCost = 0.0;
    bool feasible = false;
    std::string why;             ///< why not feasible
};

struct TonPlan {
    std::vector<TonPlanPoint> grid; ///< n = 1 .. maxWorkers
    int best = -1; ///< index of the least-cost feasible point (then shortest, then fewest workers)
};

/// E[f(y) | y > 0] for y ~ Bin(n, q), and P(y > 0).
double binomialPositiveProbability(int n, double q);
/// Expected seconds of one iteration given y > 0 active workers (closed forms, no comm).
double iterationSeconds(const TonPlannerInputs& in, int y);
/// The planner's model for n workers.
TonPlanPoint evaluateTonPlan(const TonPlannerInputs& in, int n);
/// Every n from 1 to maxWorkers and the best.
TonPlan planTon(const TonPlannerInputs& in);

} // namespace fog
