#pragma once
// The numbers of the comparison's summary table: per run, and mean with a 95% confidence
// interval over the repeats of one sweep configuration.

#include "core/analysis/analysis.h"
#include "core/analysis/run_figures.h"
#include "core/store/run_store.h"

#include <QString>

#include <vector>

namespace fog {

struct ComparedRun {
    StoredRun run;
    std::vector<AggregationRecord> metrics;
};

/// Values of one row; NaN where there is none (not evaluated, target not reached).
struct SummaryValues {
    double finalAccuracy = kNaN;
    double bestAccuracy = kNaN;
    double timeToTarget = kNaN;
    double costToTarget = kNaN;
    double energyToTarget = kNaN;
    double rounds = kNaN;
    double virtualTime = kNaN;
    double cost = kNaN;
    double energyJ = kNaN;
};

SummaryValues summarize(const ComparedRun& run, double target);

/// Repeats of one sweep configuration found among the compared runs (two or more).
struct RepeatGroup {
    qint64 sweepId = 0;
    QString config;
    std::vector<std::size_t> members; ///< indices into the compared runs
    int reached = 0;                  ///< members that reached the target
    /// Mean and 95% CI of each field over the members (target fields over those that reached it).
    MeanCi finalAccuracy, bestAccuracy, timeToTarget, costToTarget, energyToTarget, rounds, virtualTime, cost,
        energyJ;
};

std::vector<RepeatGroup> repeatGroups(const std::vector<ComparedRun>& runs, double target);

} // namespace fog
