#include "core/engine/stop_rules.h"

#include <cmath>

namespace fog {

StopRules::StopRules(const StopSpec& stop) {
    if (stop.rounds > 0) atRound_.push_back({{ConditionMetric::Round, static_cast<double>(stop.rounds)}, "round limit reached", {}});
    if (stop.targetAccuracy > 0)
        atRound_.push_back({{ConditionMetric::Accuracy, stop.targetAccuracy}, "target accuracy reached", RunEventKind::TargetReached});
    if (stop.budget > 0) budget_ = StopRule{{ConditionMetric::Cost, stop.budget}, "budget reached", RunEventKind::BudgetReached};
    if (stop.virtualTimeS > 0) timeLimit_ = StopRule{{ConditionMetric::Time, stop.virtualTimeS}, "virtual time limit reached", {}};
}

const StopRule* StopRules::firedAtRound(const RunProgress& p) const {
    for (const auto& r : atRound_)
        if (r.condition.holds(p)) return &r;
    return nullptr;
}

void Evaluation::record(RunSummary& summary, double loss, double accuracy) {
    summary.finalTestLoss = loss;
    summary.finalTestAccuracy = accuracy;
    if (std::isnan(summary.bestTestAccuracy) || accuracy > summary.bestTestAccuracy) summary.bestTestAccuracy = accuracy;
}

} // namespace fog
