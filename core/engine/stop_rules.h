#pragma once
// Evaluation and stop rules. The scenario's stop rules become conditions (core/engine/
// condition.h), each checked where its metric changes: rounds and target accuracy at each
// global aggregation (in that order), the budget after every event, the time limit as a stop
// event in the queue (after every other event at that instant). The evaluation schedule
// (every k global rounds, and at the last round of a round limit) lives here too, with the
// summary's best and final test figures.
//
// Threads: engine thread only.

#include "core/engine/condition.h"
#include "core/spec/scenario.h"
#include "core/system/metrics.h"

#include <optional>
#include <string>
#include <vector>

namespace fog {

struct StopRule {
    Condition condition;
    std::string reason;                ///< the run summary's stop reason
    std::optional<RunEventKind> event; ///< an event the rule emits when it fires
};

class StopRules {
public:
    explicit StopRules(const StopSpec& stop);

    /// Conditions checked at each global aggregation, in order (round limit, target).
    const std::vector<StopRule>& atRound() const { return atRound_; }
    /// The budget (checked after every event), if any.
    const std::optional<StopRule>& budget() const { return budget_; }
    /// The virtual time limit (a stop event), if any.
    const std::optional<StopRule>& timeLimit() const { return timeLimit_; }

    /// The first rule of atRound() that holds at `p`.
    const StopRule* firedAtRound(const RunProgress& p) const;

private:
    std::vector<StopRule> atRound_;
    std::optional<StopRule> budget_;
    std::optional<StopRule> timeLimit_;
};

/// When to evaluate, and the summary's test figures.
class Evaluation {
public:
    Evaluation(const EvaluationSpec& every, const StopSpec& stop) : every_(every), stop_(stop) {}
    /// Global round `round` (just completed) is evaluated.
    bool due(int round) const {
        return round % std::max(1, every_.everyRounds) == 0 || round == stop_.rounds;
    }
    /// Records an evaluation's result in `summary` (final and best).
    static void record(RunSummary& summary, double loss, double accuracy);

private:
    EvaluationSpec every_;
    StopSpec stop_;
};

} // namespace fog
