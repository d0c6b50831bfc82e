#include "core/policies/rdp_accountant.h"
#include "core/util/portable_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace fog {

double sampledGaussianRdp(double q, double sigma, int alpha) {
    if (sigma <= 0) return std::numeric_limits<double>::infinity();
    if (q <= 0) return 0.0;
    // log-sum-exp of the terms, each in log space (lgamma for the binomial coefficients).
    const double a = alpha;
    std::vector<double> logs;
    double top = -std::numeric_limits<double>::infinity();
    for (int k = 0; k <= alpha; ++k) {
        const double kk = k;
        double t = pmath::lgamma(a + 1) - pmath::lgamma(kk + 1) - pmath::lgamma(a - kk + 1);
        if (alpha - k > 0) {
            if (q >= 1) continue; // (1 - q)^(alpha - k) = 0
            t += (a - kk) * pmath::log1p(-q);
        }
        if (k > 0) t += kk * pmath::log(q);
        t += (kk * kk - kk) / (2 * sigma * sigma);
        logs.push_back(t);
        top = std::max(top, t);
    }
    double sum = 0.0;
    for (double t : logs) sum += pmath::exp(t - top);
    return (top + pmath::log(sum)) / (a - 1);
}

double rdpEpsilon(double q, double sigma, long steps, double delta, int* order) {
    if (steps <= 0 || q <= 0) {
        if (order) *order = 0;
        return 0.0;
    }
    double best = std::numeric_limits<double>::infinity();
    int bestOrder = 0;
    for (int alpha = 2; alpha <= 256; ++alpha) {
        const double e = static_cast<double>(steps) * sampledGaussianRdp(q, sigma, alpha) +
                         pmath::log(1 / delta) / (alpha - 1);
        if (e < best) {
            best = e;
            bestOrder = alpha;
        }
    }
    if (order) *order = bestOrder;
    return best;
}

} // namespace fog
