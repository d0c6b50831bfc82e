#pragma once
// What the testbed plays (docs/testbed.md): the scenario's processes and links, and the
// emulator's prediction of the same run, round by round, with the bytes and compute time of
// every job. The testbed moves the same byte counts and holds each update for the same
// compute time; only the network is real.

#include "core/spec/scenario.h"
#include "core/system/metrics.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fog::testbed {

/// Records a prediction run (the emulator with the scenario as it is): dispatches, messages,
/// aggregations. Observe a run with it, then build the plan.
class PredictionRecorder : public RunObserver {
public:
    struct Message {
        int from = -1, to = -1;
        double depart = 0.0, end = -1.0, bytes = 0.0;
        bool model = true;
    };
    void onStart(const RunInfo& info) override { info_ = info; }
    void onDispatch(const JobPlan& p) override { dispatches_.push_back(p); }
    void onMessage(const LinkMessage& m) override;
    void onMessageEnd(std::uint64_t id, double time, bool arrived) override;
    void onAggregation(const AggregationRecord& r) override { aggregations_.push_back(r); }
    void onFinish(const RunSummary& s) override { summary_ = s; }

    const RunInfo& info() const { return info_; }
    const std::vector<JobPlan>& dispatches() const { return dispatches_; }
    const std::vector<Message>& messages() const { return messages_; }
    const std::vector<AggregationRecord>& aggregations() const { return aggregations_; }
    const RunSummary& summary() const { return summary_; }

private:
    RunInfo info_;
    std::vector<JobPlan> dispatches_;
    std::vector<Message> messages_;
    std::map<std::uint64_t, std::size_t> byId_;
    std::vector<AggregationRecord> aggregations_;
    RunSummary summary_;
};

/// One job of a round: the model goes down, the trainer holds it for its compute time, the
/// update goes up.
struct PlanJob {
    int trainerBox = -1;
    double offsetS = 0.0;   ///< dispatch after the round's start (scenario seconds)
    double downBytes = 0.0; ///< the model's bytes, as the emulator moved them
    double computeS = 0.0;  ///< the compute time the emulator drew for the job
    double upBytes = 0.0;
    double predictedReceivedS = 0.0; ///< when the emulator had the model arrive (absolute)
    double predictedArriveS = 0.0;   ///< when the emulator had the update arrive (absolute)
};

struct PlanRound {
    int round = 0;
    double startS = 0.0, endS = 0.0; ///< the prediction's (end: the aggregation)
    int participants = 0;
    std::vector<PlanJob> jobs;
};

/// A process with its network namespace: the root aggregator (box 0), a trainer, a relay or
/// an intermediate node, or a shared cell (a router the cell's members hang from; its
/// uplink carries the cell's shared capacity).
struct PlanBox {
    std::string label;  ///< node id, or "cell <group> @ <parent>"
    int node = -1;      ///< topology index; -1: a cell
    bool trains = false;
    int parent = -1;    ///< box index; -1: the root
    /// The link to the parent box. limited: shaped (rate, latency); else an unshaped veth (a
    /// cell member's port, or a node whose link is instantaneous in the scenario).
    bool limited = false;
    bool modelLink = false; ///< the emulator has this link (counts bytes on it)
    std::string linkName;   ///< as the emulator names it, e.g. "phones -> cloud"
    double upMbps = 0.0, downMbps = 0.0, latencyMs = 0.0;
    /// The emulator's bytes over this link per direction in the rounds played.
    double predictedUpBytes = 0.0, predictedDownBytes = 0.0;
};

struct TestbedPlan {
    std::string scenarioName;
    std::vector<PlanBox> boxes;
    std::vector<PlanRound> rounds;
    /// Per box: the boxes from it up to the root (itself first, the root last).
    std::vector<int> pathToRoot(int box) const;
    /// One-way latency (ms) of a box's path to the root (the sum over its shaped links).
    double pathLatencyMs(int box) const;
};

/// The plan of `scenario` from its prediction. Throws TestbedError (core/testbed/netns.h)
/// naming what the testbed cannot play: more than one root aggregator or tiers of
/// aggregation, explicit links, availability changes or timed events, a policy that does
/// not aggregate every update it asked for, more than `maxBoxes` processes, contention off.
TestbedPlan buildPlan(const Scenario& scenario, const PredictionRecorder& prediction, int maxBoxes = 64);

} // namespace fog::testbed
