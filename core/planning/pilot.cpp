#include "core/planning/pilot.h"
#include "core/util/portable_math.h"

#include "core/util/random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace fog {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double mean(const std::vector<double>& v) {
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

} // namespace

DecayFit fitExponentialDecay(const std::vector<double>& losses, double floorMax) {
    DecayFit best;
    const std::size_t n = losses.size();
    if (n == 0) return best;
    best.floor = std::max(0.0, std::min(floorMax, losses.back()));
    best.amplitude = losses.front() - best.floor;
    if (n < 3) {
        best.q = n == 2 && losses[0] > best.floor && losses[1] > best.floor
                     ? std::clamp((losses[1] - best.floor) / (losses[0] - best.floor), 1e-6, 1.0 - 1e-9)
                     : 1.0 - 1e-9;
        return best;
    }
    double bestSse = std::numeric_limits<double>::infinity();
    // q on a grid dense near 1, where slow early training lives: q = 1 - 10^-k.
    for (int i = 0; i <= 4000; ++i) {
        const double q = 1.0 - pmath::pow(10.0, -6.0 + 6.0 * i / 4000.0);
        if (q <= 0.0) continue;
        // Linear least squares in (floor, amplitude) for basis (1, q^s).
        double s1 = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
        for (std::size_t s = 0; s < n; ++s) {
            const double x = pmath::pow(q, static_cast<double>(s));
            s1 += 1;
            sx += x;
            sxx += x * x;
            sy += losses[s];
            sxy += x * losses[s];
        }
        const double det = s1 * sxx - sx * sx;
        double floor = det > 1e-300 ? (sy * sxx - sx * sxy) / det : 0.0;
        floor = std::clamp(floor, 0.0, std::max(0.0, floorMax));
        // Amplitude given the (clamped) floor.
        const double amp = sxx > 0 ? (sxy - floor * sx) / sxx : 0.0;
        double sse = 0;
        for (std::size_t s = 0; s < n; ++s) {
            const double r = losses[s] - floor - amp * pmath::pow(q, static_cast<double>(s));
            sse += r * r;
        }
        if (sse < bestSse) {
            bestSse = sse;
            best = {floor, amp, q, std::sqrt(sse / static_cast<double>(n))};
        }
    }
    return best;
}

double curvatureAlongGradient(const StepProbe& p) {
    const double lr = p.learningRate;
    if (!(lr > 0) || !(p.gradNormSq > 0)) return std::numeric_limits<double>::quiet_NaN();
    return (p.lossAfterGradientStep + p.lossAfterAscentStep - 2.0 * p.loss) / (lr * lr * p.gradNormSq);
}

double LossAccuracyMap::accuracyAt(double loss) const { return pmath::exp(-k * std::max(0.0, loss)); }

double LossAccuracyMap::lossAt(double accuracy) const {
    return -pmath::log(std::clamp(accuracy, 1e-9, 1.0)) / k;
}

LossAccuracyMap fitLossAccuracy(const std::vector<std::pair<double, double>>& points) {
    LossAccuracyMap m;
    std::vector<double> ks;
    for (const auto& [loss, acc] : points)
        if (std::isfinite(loss) && loss > 0 && acc > 0 && acc < 1) ks.push_back(-pmath::log(acc) / loss);
    if (ks.empty()) return m;
    m.k = median(ks);
    m.fitted = true;
    return m;
}

std::string PilotEstimates::describe() const {
    std::ostringstream d;
    d.precision(6);
    d << "pilot=" << trainers << "x" << steps << " pilot_time_s=" << (endTime - startTime) << " pilot_cost=" << cost;
    if (!measuredLoss) {
        d << " pilot_loss=none(timing-only)";
        return d.str();
    }
    d << " F0=" << initialLoss << " F*=" << lossFloor << " q=" << contraction << " c=" << strongConvexity
      << " L=" << smoothness << " sigma2=" << gradientVariance << " grad2=" << gradientNormSq << " rho=" << lipschitz
      << " delta=" << divergence << " acc_k=" << accuracy.k;
    return d.str();
}

PilotEstimates estimatePilot(const std::vector<PilotTrace>& traces, double learningRate, double initialLoss,
                             double initialAccuracy) {
    PilotEstimates e;
    e.trainers = static_cast<int>(traces.size());
    e.learningRate = learningRate;
    double comm = 0;
    for (const auto& t : traces) {
        e.steps = std::max(e.steps, static_cast<int>(t.stepSeconds.size()));
        e.batch = std::max(e.batch, t.batch);
        PilotEstimates::NodeSteps ns;
        ns.node = t.node;
        ns.id = t.id;
        ns.meanSeconds = mean(t.stepSeconds);
        double var = 0;
        for (double s : t.stepSeconds) var += (s - ns.meanSeconds) * (s - ns.meanSeconds);
        if (t.stepSeconds.size() > 1) var /= static_cast<double>(t.stepSeconds.size() - 1);
        ns.cv = ns.meanSeconds > 0 ? std::sqrt(var) / ns.meanSeconds : 0.0;
        e.nodes.push_back(ns);
        for (double s : t.stepSeconds)
            if (t.nominalStepSeconds > 0) e.noiseRatios.push_back(s / t.nominalStepSeconds);
        comm += t.commSeconds;
    }
    if (!traces.empty()) e.meanCommSeconds = comm / static_cast<double>(traces.size());

    e.initialLoss = initialLoss;
    e.initialAccuracy = initialAccuracy;
    std::size_t steps = 0;
    for (const auto& t : traces) steps = std::max(steps, t.probes.size());
    if (steps == 0 || !std::isfinite(initialLoss)) return e;
    e.measuredLoss = true;

    // Mean loss curve over the trainers (each from its own batches), and the probes' constants.
    std::vector<double> curve(steps, 0.0), count(steps, 0.0), curvatures, variances, norms;
    double minLoss = std::numeric_limits<double>::infinity();
    for (const auto& t : traces)
        for (std::size_t s = 0; s < t.probes.size(); ++s) {
            const StepProbe& p = t.probes[s];
            curve[s] += p.loss;
            count[s] += 1;
            minLoss = std::min(minLoss, p.loss);
            const double k = curvatureAlongGradient(p);
            if (std::isfinite(k)) curvatures.push_back(k);
            if (p.probeSamples > 1) variances.push_back(p.sampleVariance);
            if (s == 0) norms.push_back(std::max(0.0, p.gradNormSq - p.sampleVariance / std::max(1, p.batch)));
        }
    for (std::size_t s = 0; s < steps; ++s) curve[s] /= std::max(1.0, count[s]);
    const DecayFit fit = fitExponentialDecay(curve, minLoss);
    e.lossFloor = fit.floor;
    e.contraction = fit.q;
    e.strongConvexity = learningRate > 0 ? (1.0 - fit.q) / learningRate : std::numeric_limits<double>::quiet_NaN();
    e.smoothness = std::max(1e-9, median(curvatures));
    e.gradientVariance = variances.empty() ? 0.0 : mean(variances);
    e.gradientNormSq = norms.empty() ? 0.0 : mean(norms);
    e.lipschitz = std::sqrt(e.gradientNormSq);

    // Divergence: E||g_i - mean g||^2 = delta^2 + sigma^2 / b (each g_i a batch gradient at w0).
    std::vector<const Params*> grads;
    for (const auto& t : traces)
        if (!t.firstGradient.empty()) grads.push_back(&t.firstGradient);
    e.divergence = 0.0;
    if (grads.size() > 1) {
        const std::size_t dim = grads.front()->size();
        std::vector<double> avg(dim, 0.0);
        for (const Params* g : grads)
            for (std::size_t j = 0; j < dim && j < g->size(); ++j) avg[j] += (*g)[j];
        for (double& v : avg) v /= static_cast<double>(grads.size());
        double spread = 0;
        for (const Params* g : grads)
            for (std::size_t j = 0; j < dim && j < g->size(); ++j) spread += ((*g)[j] - avg[j]) * ((*g)[j] - avg[j]);
        spread /= static_cast<double>(grads.size() - 1);
        e.divergence = std::sqrt(std::max(0.0, spread - e.gradientVariance / std::max(1, e.batch)));
    }

    // The trained models only: the relation changes fastest at the start, and the targets
    // lie beyond the pilot, not before it. The initial model if no trained one was evaluated.
    std::vector<std::pair<double, double>> points;
    for (const auto& t : traces) points.emplace_back(t.testLoss, t.testAccuracy);
    e.accuracy = fitLossAccuracy(points);
    if (!e.accuracy.fitted) e.accuracy = fitLossAccuracy({{initialLoss, initialAccuracy}});
    return e;
}

double expectedSlowestSeconds(const std::vector<double>& computeSeconds, const std::vector<double>& commSeconds,
                              const std::vector<double>& noiseRatios, int stepsPerRound, int draws) {
    if (computeSeconds.empty()) return 0.0;
    const int steps = std::max(1, stepsPerRound);
    if (noiseRatios.empty()) {
        double worst = 0;
        for (std::size_t i = 0; i < computeSeconds.size(); ++i)
            worst = std::max(worst, computeSeconds[i] + (i < commSeconds.size() ? commSeconds[i] : 0.0));
        return worst;
    }
    Rng rng(deriveSeed(2023, hashName("pilot-bootstrap")));
    double total = 0;
    for (int d = 0; d < draws; ++d) {
        double worst = 0;
        for (std::size_t i = 0; i < computeSeconds.size(); ++i) {
            double noise = 0;
            for (int s = 0; s < steps; ++s)
                noise += noiseRatios[static_cast<std::size_t>(rng.below(noiseRatios.size()))];
            const double t = computeSeconds[i] * noise / steps + (i < commSeconds.size() ? commSeconds[i] : 0.0);
            worst = std::max(worst, t);
        }
        total += worst;
    }
    return total / draws;
}

} // namespace fog
