#include "core/planning/adacoopt.h"
#include "core/util/portable_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace fog {

double adacooptGap(const AdaCoOptConstants& k, int tau, const std::vector<double>& dataSizes,
                   const std::vector<int>& batches) {
    const double q = 1.0 - k.eta * k.c;
    const double D = std::accumulate(dataSizes.begin(), dataSizes.end(), 0.0);
    double variance = 0;
    for (std::size_t i = 0; i < dataSizes.size(); ++i)
        variance += dataSizes[i] * dataSizes[i] / (D * D * std::max(1, batches[i]));
    variance *= k.beta * k.eta * k.eta / (2.0 * (1.0 - q));
    const double h = k.delta / k.beta * (pmath::pow(k.eta * k.beta + 1.0, tau) - 1.0) - k.eta * k.delta * tau;
    const double qKt = pmath::pow(q, static_cast<double>(k.rounds) * tau);
    return qKt * k.f0 + (1.0 - qKt) / (1.0 - pmath::pow(q, tau)) * (variance + k.rho * h);
}

std::vector<int> greedyBatches(const std::vector<double>& dataSizes, const std::vector<int>& caps, int minBatch,
                               long budget) {
    const std::size_t n = dataSizes.size();
    std::vector<int> b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = std::min(std::max(1, minBatch), std::max(1, caps[i]));
    if (budget <= 0) {
        for (std::size_t i = 0; i < n; ++i) b[i] = std::max(b[i], caps[i]);
        return b;
    }
    long used = std::accumulate(b.begin(), b.end(), 0L);
    while (used < budget) {
        // The marginal gain of one more sample in i's batch: D_i^2 (1/b - 1/(b+1)).
        std::size_t best = n;
        double gain = -1;
        for (std::size_t i = 0; i < n; ++i) {
            if (b[i] >= caps[i]) continue;
            const double g = dataSizes[i] * dataSizes[i] / (static_cast<double>(b[i]) * (b[i] + 1.0));
            if (g > gain) {
                gain = g;
                best = i;
            }
        }
        if (best == n) break;
        ++b[best];
        ++used;
    }
    return b;
}

std::vector<int> batchCaps(const std::vector<double>& speeds, const std::vector<double>& commSeconds, int tau,
                           const AdaCoOptLimits& lim) {
    std::vector<int> caps;
    for (std::size_t i = 0; i < speeds.size(); ++i) {
        double cap = lim.maxBatch;
        if (lim.roundTimeS > 0)
            cap = std::min(cap, std::floor(speeds[i] * (lim.roundTimeS - commSeconds[i]) / tau + 1e-9));
        caps.push_back(std::max(std::max(1, lim.minBatch), static_cast<int>(cap)));
    }
    return caps;
}

AdaCoOptPlan planAdaCoOpt(const AdaCoOptConstants& k, const std::vector<double>& dataSizes,
                          const std::vector<double>& speeds, const std::vector<double>& commSeconds,
                          const AdaCoOptLimits& lim) {
    AdaCoOptPlan best;
    best.gap = std::numeric_limits<double>::infinity();
    for (int tau = 1; tau <= std::max(1, lim.maxTau); ++tau) {
        auto b = greedyBatches(dataSizes, batchCaps(speeds, commSeconds, tau, lim), lim.minBatch, lim.batchBudget);
        const double g = adacooptGap(k, tau, dataSizes, b);
        if (std::isfinite(g) && g < best.gap) best = {tau, std::move(b), g};
        else if (best.batches.empty()) best = {tau, std::move(b), g}; // a plan, even if the bound says nothing
    }
    return best;
}

std::vector<int> noStragglerBatches(const std::vector<double>& speeds, int meanBatch, int maxBatch) {
    const double mean = std::accumulate(speeds.begin(), speeds.end(), 0.0) / std::max<std::size_t>(1, speeds.size());
    std::vector<int> b;
    for (double v : speeds)
        b.push_back(std::clamp(static_cast<int>(std::lround(meanBatch * v / mean)), 1, std::max(1, maxBatch)));
    return b;
}

AdaCoOptPlan planDynamicTau(const AdaCoOptConstants& k, const std::vector<double>& dataSizes,
                            const std::vector<double>& speeds, const std::vector<double>& commSeconds, int batch,
                            const AdaCoOptLimits& lim) {
    AdaCoOptPlan best;
    best.gap = std::numeric_limits<double>::infinity();
    const std::vector<int> b(dataSizes.size(), std::max(1, batch));
    for (int tau = 1; tau <= std::max(1, lim.maxTau); ++tau) {
        if (tau > 1 && lim.roundTimeS > 0) {
            bool fits = true;
            for (std::size_t i = 0; i < speeds.size(); ++i)
                fits = fits && tau * b[i] / speeds[i] + commSeconds[i] <= lim.roundTimeS + 1e-9;
            if (!fits) break;
        }
        const double g = adacooptGap(k, tau, dataSizes, b);
        if ((std::isfinite(g) && g < best.gap) || best.batches.empty()) best = {tau, b, g};
    }
    return best;
}

} // namespace fog
