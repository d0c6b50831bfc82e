#include "core/analysis/run_figures.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace fog {

RunFigures runFigures(const RunSummary& s, bool ended, const std::vector<AggregationRecord>& metrics, double target) {
    RunFigures f;
    const AggregationRecord* last = nullptr;
    for (const auto& r : metrics) {
        if (r.level != 0) continue;
        last = &r;
        if (!std::isnan(r.testAccuracy)) {
            f.lastEvaluatedAccuracy = r.testAccuracy;
            f.lastEvaluatedRound = r.round;
            f.finalTestLoss = r.testLoss;
        }
    }
    const double metricsBest = bestAccuracy(metrics);
    if (ended) {
        // The stored summary is what the run ended with, including the evaluation of the
        // final model that no metrics row holds when the last round was not evaluated.
        f.finalAccuracy = std::isnan(s.finalTestAccuracy) ? f.lastEvaluatedAccuracy : s.finalTestAccuracy;
        if (!std::isnan(s.finalTestLoss)) f.finalTestLoss = s.finalTestLoss;
        f.finalTrainLoss = s.finalTrainLoss;
        f.rounds = s.rounds;
        f.virtualTime = s.virtualTime;
        f.cost = s.cost;
        f.energyJ = s.energyJ;
        f.bytes = s.bytes;
        f.wallSeconds = s.wallSeconds;
    } else {
        f.finalAccuracy = f.lastEvaluatedAccuracy;
        if (last) {
            f.finalTrainLoss = last->trainLoss;
            f.rounds = last->round;
            f.virtualTime = last->time;
            f.cost = last->cost;
            f.energyJ = last->energyJ;
            f.bytes = last->bytes;
            f.wallSeconds = last->wallSeconds;
        }
    }
    f.bestAccuracy = metricsBest;
    for (double a : {s.bestTestAccuracy, f.finalAccuracy})
        if (ended && !std::isnan(a) && (std::isnan(f.bestAccuracy) || a > f.bestAccuracy)) f.bestAccuracy = a;
    if (f.rounds > 0 && !std::isnan(f.virtualTime)) f.meanRoundTime = f.virtualTime / f.rounds;
    f.target = target;
    if (!std::isnan(target))
        if (const auto reach = reachTarget(metrics, target)) {
            f.timeToTarget = reach->time;
            f.costToTarget = reach->cost;
            f.energyToTarget = reach->energyJ;
            f.roundToTarget = reach->round;
        }
    return f;
}

RunFigures runFigures(const RunSummary& summary, const std::string& status,
                      const std::vector<AggregationRecord>& metrics, double target) {
    return runFigures(summary, status != "running", metrics, target);
}

TradeOffPoint tradeOffPoint(const RunFigures& f, TradeOffMode mode) {
    if (mode == TradeOffMode::AtTarget) return {f.timeToTarget, f.costToTarget, f.finalAccuracy};
    return {f.virtualTime, f.cost, f.finalAccuracy};
}

std::vector<std::size_t> tradeOffFront(const std::vector<RunFigures>& figures, TradeOffMode mode) {
    std::vector<TradeOffPoint> pts;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < figures.size(); ++i) {
        const TradeOffPoint p = tradeOffPoint(figures[i], mode);
        if (!std::isfinite(p.time) || !std::isfinite(p.cost)) continue;
        pts.push_back(p);
        index.push_back(i);
    }
    std::vector<std::size_t> out;
    for (std::size_t k : paretoFront2d(pts)) out.push_back(index[k]);
    return out;
}

std::string paretoDefinition(TradeOffMode mode, double target) {
    std::ostringstream s;
    if (mode == TradeOffMode::AtTarget) {
        s << "Pareto front: among the runs that reach " << 100 * target
          << "% test accuracy, those that no other run beats on both the virtual time and the cost to get there";
    } else {
        s << "Pareto front: the runs that no other run beats on both total virtual time and total cost";
    }
    s << " (at least as good in both, better in one).";
    return s.str();
}

TradeOffMode defaultTradeOffMode(const std::vector<double>& endTimes, std::size_t minRuns) {
    if (endTimes.size() < std::max<std::size_t>(2, minRuns)) return TradeOffMode::AtEnd;
    const double first = endTimes.front();
    for (double t : endTimes)
        if (!(std::abs(t - first) <= 0.005 * std::max(1.0, first))) return TradeOffMode::AtEnd;
    return TradeOffMode::AtTarget;
}

} // namespace fog
