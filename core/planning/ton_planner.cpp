#include "core/planning/ton_planner.h"
#include "core/util/portable_math.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace fog {

namespace {

double harmonic(int n) {
    double h = 0;
    for (int i = 1; i <= n; ++i) h += 1.0 / i;
    return h;
}

/// P(y = k) for y ~ Bin(n, q), k = 0 .. n (through logs: n may be large).
std::vector<double> binomial(int n, double q) {
    std::vector<double> p(static_cast<std::size_t>(n) + 1, 0.0);
    if (q >= 1.0) {
        p[static_cast<std::size_t>(n)] = 1.0;
        return p;
    }
    if (q <= 0.0) {
        p[0] = 1.0;
        return p;
    }
    for (int k = 0; k <= n; ++k)
        p[static_cast<std::size_t>(k)] = pmath::exp(pmath::lgamma(n + 1.0) - pmath::lgamma(k + 1.0) - pmath::lgamma(n - k + 1.0) +
                                                  k * pmath::log(q) + (n - k) * pmath::log1p(-q));
    return p;
}

} // namespace

double binomialPositiveProbability(int n, double q) { return 1.0 - binomial(n, q)[0]; }

double iterationSeconds(const TonPlannerInputs& in, int y) {
    switch (in.sync) {
    case TonPlannerInputs::Sync::Full:
        return harmonic(y) / in.lambda;
    case TonPlannerInputs::Sync::NSync:
        return (harmonic(y) - harmonic(y - std::min(in.syncN, y))) / in.lambda;
    case TonPlannerInputs::Sync::NBatchSync:
        return in.syncN / (y * in.lambda);
    }
    return 0.0;
}

TonPlanPoint evaluateTonPlan(const TonPlannerInputs& in, int n) {
    TonPlanPoint pt;
    pt.n = n;
    const auto p = binomial(n, in.availability);
    const double up = 1.0 - p[0];
    if (up <= 0) {
        pt.J = -1;
        pt.why = "no worker is ever up";
        return pt;
    }
    // E[1/y_eff | y > 0] and E[R(y) | y > 0].
    double invY = 0, runtime = 0;
    for (int y = 1; y <= n; ++y) {
        const double w = p[static_cast<std::size_t>(y)] / up;
        const int eff = in.sync == TonPlannerInputs::Sync::Full ? y
                        : in.sync == TonPlannerInputs::Sync::NSync ? std::min(in.syncN, y)
                                                                   : in.syncN;
        invY += w / eff;
        runtime += w * iterationSeconds(in, y);
    }
    const double contraction = 1.0 - in.eta * in.c * in.mu;
    pt.errorFloor = in.eta * in.L * in.M * invY / (2.0 * in.c * in.mu * in.batch);
    std::ostringstream why;
    if (in.initialGap <= in.targetGap) {
        pt.J = 0;
    } else if (pt.errorFloor >= in.targetGap) {
        pt.J = -1;
        why << "error floor " << pt.errorFloor << " >= target " << in.targetGap;
    } else if (contraction <= 0.0 || contraction >= 1.0) {
        pt.J = -1;
        why << "eta c mu must be in (0, 1), is " << in.eta * in.c * in.mu;
    } else {
        // Smallest J with contraction^J (F0 - A) + A <= eps.
        const double ratio = (in.targetGap - pt.errorFloor) / (in.initialGap - pt.errorFloor);
        const double j = std::ceil(pmath::log(ratio) / pmath::log(contraction) - 1e-12);
        if (std::isfinite(j) && j >= 0 && j < 1e15) {
            pt.J = static_cast<long>(j);
        } else {
            pt.J = -1; // NaN inputs (e.g. an availability of 0/0) must not become a count
            why << "the bound gives no iteration count (error floor " << pt.errorFloor << ", ratio " << ratio << ")";
        }
    }
    if (pt.J < 0) {
        pt.why = why.str();
        return pt;
    }
    // An iteration with nobody up makes no progress but takes time: J / P(y > 0) tries.
    pt.expectedSeconds = static_cast<double>(pt.J) * (runtime + in.commSeconds) / up;
    pt.expectedCost = n * in.availability * in.pricePerHour * pt.expectedSeconds / 3600.0;
    pt.feasible = in.deadlineS <= 0 || pt.expectedSeconds <= in.deadlineS;
    if (!pt.feasible) {
        why << "expected " << pt.expectedSeconds << " s > deadline " << in.deadlineS << " s";
        pt.why = why.str();
    }
    return pt;
}

TonPlan planTon(const TonPlannerInputs& in) {
    TonPlan plan;
    for (int n = 1; n <= std::max(1, in.maxWorkers); ++n) plan.grid.push_back(evaluateTonPlan(in, n));
    for (std::size_t i = 0; i < plan.grid.size(); ++i) {
        const auto& pt = plan.grid[i];
        if (!pt.feasible) continue;
        if (plan.best >= 0) {
            const auto& b = plan.grid[static_cast<std::size_t>(plan.best)];
            if (pt.expectedCost > b.expectedCost) continue;
            if (pt.expectedCost == b.expectedCost && pt.expectedSeconds >= b.expectedSeconds) continue;
        }
        plan.best = static_cast<int>(i);
    }
    return plan;
}

} // namespace fog
