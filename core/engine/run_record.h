#pragma once
// What a run has produced so far and when it ends: the global round and the aggregations
// reported, the last aggregation's record, the summary being built (its stop, its best and
// final test figures), and the rules that end it (the scenario's stop rules and the
// evaluation schedule, stop_rules.h). A stop is recorded once: the first reason stays.
//
// Threads: engine thread only.

#include "core/engine/stop_rules.h"
#include "core/spec/scenario.h"
#include "core/system/metrics.h"

#include <string>

namespace fog {

class RunRecord {
public:
    explicit RunRecord(const Scenario& scenario)
        : stopRules_(scenario.stop), evaluation_(scenario.evaluation, scenario.stop) {}

    const StopRules& stopRules() const { return stopRules_; }
    /// Global aggregations reported so far.
    int globalRound() const { return globalRound_; }
    int aggregations() const { return aggregations_; }

    /// Ends the run with `status` for `reason`, unless it was stopped already.
    void stop(RunStatus status, const std::string& reason);
    bool stopped() const { return stopped_; }

    /// Counts an aggregation of `level`; level 0 advances the global round. True when that
    /// round's model is to be evaluated now (the evaluation schedule).
    bool countAggregation(int level);
    /// An evaluation's result: the summary's final and best test figures.
    void evaluated(double loss, double accuracy) { Evaluation::record(summary_, loss, accuracy); }
    /// The aggregation as reported (the last one).
    void keep(const AggregationRecord& record) { last_ = record; }
    const AggregationRecord& last() const { return last_; }
    /// The last global round's model was evaluated (or none was reported yet).
    bool lastEvaluated() const { return lastEvaluated_; }

    /// The summary being built (its status and stop reason are stop()'s).
    RunSummary& summary() { return summary_; }

private:
    StopRules stopRules_;
    Evaluation evaluation_;
    int globalRound_ = 0;
    int aggregations_ = 0;
    bool stopped_ = false;
    RunSummary summary_;
    AggregationRecord last_;
    bool lastEvaluated_ = true;
};

} // namespace fog
