#pragma once
// What a goal-seeking study asks: an objective, constraints and the parameters to vary,
// parsed from the command line (or the studio's dialog), and how one trial is scored.
//
//   --objective min:cost            min:time | min:energy | min:bytes | max:accuracy
//   --constraint 'accuracy>=0.8@600'  test accuracy 0.8 reached by virtual time 600 s
//   --constraint 'cost<=5'           also time<=T, energy<=J, bytes<=B
//   --param 'selection.k=int:2..20'  integers (optionally int:2..20:2, a step)
//   --param 'training.learning_rate=real:0.001..0.1'   (log:0.001..0.1 for log-uniform)
//   --param 'sync.policy=choice:fedavg,fully-sync'     values split on top-level commas

#include "core/system/metrics.h"
#include "core/scenario/scenario_io.h"

#include <string>
#include <vector>

namespace fog {

enum class SeekMetric { Accuracy, Cost, Time, Energy, Bytes };
const char* toString(SeekMetric m);

struct SeekObjective {
    SeekMetric metric = SeekMetric::Cost;
    bool maximise = false;
};

struct SeekConstraint {
    SeekMetric metric = SeekMetric::Accuracy;
    bool atLeast = true;     ///< >= (only accuracy); otherwise <=
    double value = 0.0;
    double deadline = 0.0;   ///< accuracy only: reached by this virtual time (0: any time)
};

struct SeekParam {
    enum class Kind { Int, Real, LogReal, Choice };
    std::string path;
    Kind kind = Kind::Int;
    double lo = 0.0, hi = 0.0, step = 1.0; ///< Int, Real, LogReal
    std::vector<std::string> choices;      ///< Choice
    /// Number of distinct values (0 for continuous kinds).
    std::size_t levels() const;
    /// The i-th value of a discrete parameter, as scenario text.
    std::string level(std::size_t i) const;
};

/// Throw ScenarioError with a message naming the option and what is wrong.
SeekObjective parseObjective(const std::string& text);
SeekConstraint parseConstraint(const std::string& text);
SeekParam parseParam(const std::string& text);
std::string describe(const SeekObjective& o);
std::string describe(const SeekConstraint& c);
std::string describe(const SeekParam& p);

/// A trial's score, read from its level-0 aggregations (what one stored run yields).
///
/// The evaluation point is the first aggregation where the accuracy constraint holds (by its
/// deadline) or, without one, the last aggregation inside the resource limits (the run cut
/// at its budget). The objective and the other constraints are read there; maximised
/// accuracy is the best evaluated accuracy up to that point.
struct TrialScore {
    bool feasible = false;
    double objective = kNaN;  ///< NaN when there is nothing to read (no evaluation)
    double violation = 0.0;   ///< 0 when feasible; summed relative shortfalls otherwise
    double accuracy = kNaN;   ///< best test accuracy up to the evaluation point
    double time = kNaN, cost = kNaN, energyJ = kNaN, bytes = kNaN; ///< at that point
};

TrialScore scoreTrial(const std::vector<AggregationRecord>& level0, const RunSummary& summary,
                      const SeekObjective& objective, const std::vector<SeekConstraint>& constraints);

/// Metric value of a record (accuracy: its test accuracy, NaN when not evaluated).
double metricValue(const AggregationRecord& r, SeekMetric m);

} // namespace fog
