#pragma once
// One condition type for everything that waits for a run to get somewhere: the scenario's
// stop rules (stop.rounds, stop.target_accuracy, stop.virtual_time_s, stop.budget) and the
// front ends' "run until / pause when" (the studio's Run until, `fogstudio-cli run --until`).
// A condition is "<metric> >= <threshold>"; every metric only grows during a run, except the
// test accuracy, which holds from the first evaluation that reaches the threshold.
//
// Threads: plain values; any thread.

#include <limits>
#include <stdexcept>
#include <string>

namespace fog {

enum class ConditionMetric {
    Round,    ///< global rounds completed
    Accuracy, ///< test accuracy of the latest evaluation, 0..1
    Time,     ///< virtual seconds
    Cost,     ///< cumulative cost (machines billed + traffic)
};

/// "round", "accuracy", "time", "cost".
const char* toString(ConditionMetric m);

/// Where a run is, as conditions see it.
struct RunProgress {
    int round = 0;
    double time = 0.0;
    double accuracy = std::numeric_limits<double>::quiet_NaN(); ///< NaN: not evaluated yet
    double cost = 0.0;
};

struct Condition {
    ConditionMetric metric = ConditionMetric::Round;
    double threshold = 0.0;

    /// The metric's value in `p`.
    double valueIn(const RunProgress& p) const;
    /// value >= threshold (a NaN accuracy never holds).
    bool holds(const RunProgress& p) const;
    /// "accuracy >= 80%", "round >= 20", "time >= 600 s", "cost >= 2.5".
    std::string describe() const;
    /// What held, for a status line: "accuracy 81.2% >= 80% at round 7".
    std::string reachedText(const RunProgress& p) const;

    bool operator==(const Condition& o) const { return metric == o.metric && threshold == o.threshold; }
};

/// A condition that cannot be parsed; the message names the argument and says what is
/// accepted.
struct ConditionError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// Parses "accuracy >= 0.8", "accuracy=0.8", "accuracy=80%", "round>=20", "time >= 600",
/// "cost=2.5" (spaces optional; '=' means '>='). `argument` names where the text came from
/// (e.g. "--until") for the error message.
Condition parseCondition(const std::string& text, const std::string& argument);

} // namespace fog
