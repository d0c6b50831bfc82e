#include "core/analysis/analysis.h"

#include <cmath>

namespace fog {

std::optional<TargetReach> reachTarget(const std::vector<AggregationRecord>& metrics, double target) {
    // The starting point: before any training, nothing is reached; interpolation begins at
    // the previous evaluation (or the run's start).
    const AggregationRecord* prev = nullptr;
    for (const auto& r : metrics) {
        if (r.level != 0 || std::isnan(r.testAccuracy)) continue;
        if (r.testAccuracy >= target) {
            TargetReach t{r.time, r.cost, r.energyJ, static_cast<double>(r.round)};
            if (prev && r.testAccuracy > prev->testAccuracy) {
                const double f = (target - prev->testAccuracy) / (r.testAccuracy - prev->testAccuracy);
                auto lerp = [f](double a, double b) { return a + f * (b - a); };
                t = {lerp(prev->time, r.time), lerp(prev->cost, r.cost), lerp(prev->energyJ, r.energyJ),
                     lerp(prev->round, r.round)};
            }
            return t;
        }
        prev = &r;
    }
    return std::nullopt;
}

double bestAccuracy(const std::vector<AggregationRecord>& metrics) {
    double best = kNaN;
    for (const auto& r : metrics)
        if (!std::isnan(r.testAccuracy) && (std::isnan(best) || r.testAccuracy > best)) best = r.testAccuracy;
    return best;
}

double finalAccuracy(const std::vector<AggregationRecord>& metrics) {
    for (auto it = metrics.rbegin(); it != metrics.rend(); ++it)
        if (!std::isnan(it->testAccuracy)) return it->testAccuracy;
    return kNaN;
}

namespace {

double acc(const TradeOffPoint& p) { return std::isnan(p.accuracy) ? -1e300 : p.accuracy; }

template <class Dominates>
std::vector<std::size_t> front(const std::vector<TradeOffPoint>& pts, Dominates dominates) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        bool dominated = false;
        for (std::size_t j = 0; j < pts.size() && !dominated; ++j)
            dominated = j != i && dominates(pts[j], pts[i]);
        if (!dominated) out.push_back(i);
    }
    return out;
}

} // namespace

std::vector<std::size_t> paretoFront(const std::vector<TradeOffPoint>& points) {
    return front(points, [](const TradeOffPoint& a, const TradeOffPoint& b) {
        const bool noWorse = a.time <= b.time && a.cost <= b.cost && acc(a) >= acc(b);
        const bool better = a.time < b.time || a.cost < b.cost || acc(a) > acc(b);
        return noWorse && better;
    });
}

std::vector<std::size_t> paretoFront2d(const std::vector<TradeOffPoint>& points) {
    return front(points, [](const TradeOffPoint& a, const TradeOffPoint& b) {
        return a.time <= b.time && a.cost <= b.cost && (a.time < b.time || a.cost < b.cost);
    });
}

double studentT95(std::size_t df) {
    static const double table[] = {0,      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
                                   2.228,  2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093,
                                   2.086,  2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
                                   2.042};
    if (df == 0) return kNaN;
    if (df <= 30) return table[df];
    if (df <= 40) return 2.021;
    if (df <= 60) return 2.000;
    if (df <= 120) return 1.980;
    return 1.960;
}

MeanCi meanWithCi(const std::vector<double>& values) {
    MeanCi m;
    double sum = 0;
    for (double v : values)
        if (!std::isnan(v)) {
            sum += v;
            ++m.n;
        }
    if (m.n == 0) return m;
    m.mean = sum / static_cast<double>(m.n);
    if (m.n < 2) return m;
    double ss = 0;
    for (double v : values)
        if (!std::isnan(v)) ss += (v - m.mean) * (v - m.mean);
    const double sd = std::sqrt(ss / static_cast<double>(m.n - 1));
    m.halfWidth = studentT95(m.n - 1) * sd / std::sqrt(static_cast<double>(m.n));
    return m;
}

} // namespace fog
