#pragma once
// A testbed run in the run store, and prediction against measurement (docs/testbed.md).
// The measured run is a run like any other: tag `testbed`, a `testbed` event at t = 0 naming
// its prediction's run and how it was measured, one metric row per round (times converted
// back to scenario seconds), the trainers' intervals, and a `testbed` event per link with
// the bytes predicted, moved by the processes and counted by the kernel.

#include "core/system/metrics.h"
#include "core/testbed/testbed.h"

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fog {
class RunStore;
struct NewRun;
} // namespace fog

namespace fog::testbed {

/// The name of the testbed's run events in the store (a kind of its own, stored by name
/// like every kind: readers that do not know it keep and show it as it is).
inline constexpr const char* kEventKind = "testbed";

/// One metric row per measured round (level 0): time, participants, cumulative bytes over
/// the scenario's links (the payload, counted per hop as the emulator does); the training
/// values the processes computed (NaN when they did not train), cost and energy NaN (not
/// measured). A tiered tree's (or hierarchical FL's) sub-rounds come as their aggregators'
/// rows (level > 0) before the global round they are part of, as the emulator reports them
/// (not after a cancel: their processes report them at the end).
std::vector<AggregationRecord> measuredRecords(const TestbedPlan& plan, const TestbedResult& result);

/// The trainers' intervals (receiving, computing, sending), node indices of the topology.
std::vector<NodeInterval> measuredIntervals(const TestbedPlan& plan, const TestbedResult& result);

/// The `testbed` events: the run's description (t = 0) and one per link.
std::vector<RunEvent> testbedEvents(const TestbedPlan& plan, const TestbedResult& result, std::int64_t predictionRun);

/// The prediction's payload over box `box`'s link (up, down) in the first `rounds` rounds:
/// all of PlanBox's predicted bytes for a run that played them all, less after a Ctrl-C.
std::pair<double, double> predictedBytes(const TestbedPlan& plan, int box, std::size_t rounds);

/// Stores the measured run; returns its id.
std::int64_t storeTestbedRun(RunStore& store, NewRun meta, const RunInfo& info, const TestbedPlan& plan,
                             const TestbedResult& result, std::int64_t predictionRun);

struct ComparedRound {
    int round = 0;
    double predictedS = 0.0, measuredS = 0.0; ///< the round's duration
    double predictedEndS = 0.0, measuredEndS = 0.0;
    double errorPct = 0.0; ///< (measured - predicted) / predicted of the duration
};

struct Comparison {
    std::vector<ComparedRound> rounds;
    double predictedEndS = 0.0, measuredEndS = 0.0;
    double totalErrorPct = 0.0;
    double meanAbsErrorPct = 0.0, maxAbsErrorPct = 0.0;
};

/// Round by round, over the rounds both have (level-0 rows).
Comparison compareRuns(const std::vector<AggregationRecord>& predicted, const std::vector<AggregationRecord>& measured);

/// The table `fogstudio-cli testbed` prints.
void printComparison(std::ostream& out, const Comparison& c);

/// Per round, the spread of the transfers: the shortest and longest model download and
/// update upload, predicted and measured (how far TCP is from max-min's equal shares), and
/// TCP's retransmissions.
void printTransfers(std::ostream& out, const TestbedPlan& plan, const TestbedResult& result);

/// A tiered tree's sub-rounds (each intermediate aggregator's, in the order of the plan):
/// predicted and measured duration and the error; nothing for a flat tree or after a cancel.
void printSubRounds(std::ostream& out, const TestbedPlan& plan, const TestbedResult& result);

/// A round's training values, predicted and measured.
struct TrainingRound {
    int round = 0;
    double predictedTrainLoss = kNaN, measuredTrainLoss = kNaN;
    double predictedTestLoss = kNaN, measuredTestLoss = kNaN;
    double predictedTestAccuracy = kNaN, measuredTestAccuracy = kNaN;
    bool same = false; ///< all three are the same bits (NaN where both are NaN)
};

/// Round by round over the rounds both have (level-0 rows).
std::vector<TrainingRound> compareTraining(const std::vector<AggregationRecord>& predicted,
                                           const std::vector<AggregationRecord>& measured);

/// The training table `fogstudio-cli testbed` prints when the processes trained.
void printTraining(std::ostream& out, const std::vector<TrainingRound>& rounds);

/// The prediction's run id named by a measured run's `testbed` event; none when the run is
/// not a testbed run or its prediction was not stored.
std::optional<std::int64_t> predictionOf(const std::vector<RunEvent>& events);

/// A link's bytes as a measured run stores them (its `testbed` event per link, testbedEvents):
/// predicted, moved by the processes (payload and headers) and counted by the kernel (wire).
struct StoredLink {
    std::string name; ///< as the emulator names it, e.g. "dev-0 -> server"
    double predictedUp = 0.0, predictedDown = 0.0;
    double payloadUp = 0.0, payloadDown = 0.0;
    double wireUp = 0.0, wireDown = 0.0;
};

/// The scenario's links of a measured run, in the order stored (an unshaped port of a cell,
/// which the emulator does not have, is left out).
std::vector<StoredLink> storedLinks(const std::vector<RunEvent>& events);

} // namespace fog::testbed
