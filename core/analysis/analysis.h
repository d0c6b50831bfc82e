#pragma once
// What users compare runs by: time, cost and energy to reach an accuracy, final and best
// accuracy, Pareto fronts over (time, cost, accuracy), and means with confidence intervals.

#include "core/system/metrics.h"

#include <optional>
#include <string>
#include <vector>

namespace fog {

/// Where a run's test accuracy first reached a target, linearly interpolated between the
/// two evaluations around the crossing.
struct TargetReach {
    double time = 0.0;
    double cost = 0.0;
    double energyJ = 0.0;
    double round = 0.0;
};

/// Empty when the target was never reached ("not reached").
std::optional<TargetReach> reachTarget(const std::vector<AggregationRecord>& metrics, double target);

/// Largest evaluated test accuracy (NaN if never evaluated).
double bestAccuracy(const std::vector<AggregationRecord>& metrics);
/// Last evaluated test accuracy (NaN if never evaluated).
double finalAccuracy(const std::vector<AggregationRecord>& metrics);

/// A point of the trade-off space: lower time and cost are better, higher accuracy is.
struct TradeOffPoint {
    double time = 0.0;
    double cost = 0.0;
    double accuracy = 0.0;
};

/// Indices of the points no other point dominates (at least as good in all three criteria
/// and better in one), in input order. NaN accuracy counts as worst.
std::vector<std::size_t> paretoFront(const std::vector<TradeOffPoint>& points);
/// Two-criteria front over (time, cost), both minimised, for scatter plots.
std::vector<std::size_t> paretoFront2d(const std::vector<TradeOffPoint>& points);

/// Sample mean with a two-sided 95% Student-t confidence interval.
struct MeanCi {
    double mean = kNaN;
    double halfWidth = kNaN; ///< NaN with fewer than two values
    std::size_t n = 0;
};
MeanCi meanWithCi(const std::vector<double>& values);
/// Two-sided 95% quantile of Student's t with `df` degrees of freedom.
double studentT95(std::size_t df);

} // namespace fog
