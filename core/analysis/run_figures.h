#pragma once
// A run's summary figures, computed in one place for every face that shows them: the
// studio's comparison table and read-outs, the HTML/PDF report and `fogstudio-cli runs
// show`. Each figure says what it is; where two sources could disagree (the stored summary
// and the metrics rows) the rule is written here once.

#include "core/analysis/analysis.h"
#include "core/system/metrics.h"

#include <string>
#include <vector>

namespace fog {

/// NaN wherever there is no value (never evaluated, target not reached).
struct RunFigures {
    /// Test accuracy of the model the run ended with. The engine evaluates the final model
    /// when the last round was not an evaluation round, so this can be newer than the last
    /// evaluated metrics row (whose value is `lastEvaluatedAccuracy`).
    double finalAccuracy = kNaN;
    double bestAccuracy = kNaN;          ///< best evaluated test accuracy, the final one included
    double lastEvaluatedAccuracy = kNaN; ///< test accuracy of the last evaluated metrics row
    int lastEvaluatedRound = 0;          ///< its global round (0: none)
    double finalTestLoss = kNaN;
    double finalTrainLoss = kNaN;
    double rounds = kNaN;      ///< global rounds
    double virtualTime = kNaN; ///< s
    double cost = kNaN;
    double energyJ = kNaN;
    double bytes = kNaN;
    double meanRoundTime = kNaN; ///< virtualTime / rounds
    double wallSeconds = kNaN;
    /// Where test accuracy first reached the target (interpolated, see reachTarget).
    double target = kNaN;
    double timeToTarget = kNaN;
    double costToTarget = kNaN;
    double energyToTarget = kNaN;
    double roundToTarget = kNaN;
};

/// The figures of one run. `ended`: the run is over (finished, cancelled, failed,
/// interrupted), so its stored summary is complete; while a run is still being written the
/// metrics rows are the only source. `target` is an accuracy in [0, 1] (NaN: none).
RunFigures runFigures(const RunSummary& summary, bool ended, const std::vector<AggregationRecord>& metrics,
                      double target = kNaN);
/// Same, for a stored run's status text ("running" is the only one not ended).
RunFigures runFigures(const RunSummary& summary, const std::string& status,
                      const std::vector<AggregationRecord>& metrics, double target = kNaN);
/// (A literal status would otherwise convert to the bool overload.)
inline RunFigures runFigures(const RunSummary& summary, const char* status,
                             const std::vector<AggregationRecord>& metrics, double target = kNaN) {
    return runFigures(summary, std::string(status), metrics, target);
}

/// What the trade-off compares runs on: each run's totals, or what it took to reach the
/// target accuracy (runs that never reach it have no point).
enum class TradeOffMode { AtEnd, AtTarget };

/// The (time, cost) point of a run in a mode, with its final accuracy; time and cost are NaN
/// when the run has no point in that mode.
TradeOffPoint tradeOffPoint(const RunFigures& f, TradeOffMode mode);

/// The runs on the Pareto front, the one definition every view uses: among the runs with a
/// point in `mode`, those that no other run beats on both virtual time and cost (at least
/// as good in both, better in one). Indices into `figures`, in input order.
std::vector<std::size_t> tradeOffFront(const std::vector<RunFigures>& figures, TradeOffMode mode);

/// The trade-off a comparison shows until the user chooses: at the target when there are at
/// least `minRuns` runs and they all ended at one virtual time (within 0.5%: they stopped at
/// one time limit, so the totals are alike and the scatter of totals degenerate), else at the end.
TradeOffMode defaultTradeOffMode(const std::vector<double>& endTimes, std::size_t minRuns = 2);

/// One sentence stating that definition, for tool tips, captions and reports.
std::string paretoDefinition(TradeOffMode mode, double target);

} // namespace fog
