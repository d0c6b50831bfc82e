#pragma once
// What the testbed plays (docs/testbed.md): the scenario's processes and links, and the
// emulator's prediction of the same run, round by round, with the bytes, compute time and
// local work of every job. The testbed moves the same byte counts, its trainers run the same
// local work with the same learner and its aggregator aggregates as the policy does; the
// network is real, and so is the training.

#include "core/engine/local_job_tap.h"
#include "core/policies/server_optimizer.h"
#include "core/spec/scenario.h"
#include "core/system/metrics.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fog::testbed {

/// Records a prediction run (the emulator with the scenario as it is): dispatches, messages,
/// aggregations, and, installed as the thread's LocalJobTap (core/engine/local_job_tap.h)
/// around the run, the data and every job's local work. Observe a run with it, then build
/// the plan.
class PredictionRecorder : public RunObserver, public LocalJobTap {
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
    void onIntervals(const std::vector<NodeInterval>& intervals) override;
    void onEvent(const RunEvent& e) override;
    void onJobEnded(std::uint64_t id, double time) override { ended_.emplace(id, time); }
    void onFinish(const RunSummary& s) override { summary_ = s; }

    void trainingData(const std::shared_ptr<const DataBundle>& data) override { data_ = data; }
    void submitted(const Job& job, const LocalJob& work) override;
    void collected(const Job& job, const LocalResult& result) override;

    const RunInfo& info() const { return info_; }
    const std::vector<JobPlan>& dispatches() const { return dispatches_; }
    const std::vector<Message>& messages() const { return messages_; }
    const std::vector<AggregationRecord>& aggregations() const { return aggregations_; }
    const RunSummary& summary() const { return summary_; }
    /// Per node, when it was offline (from, to), in order (availability changes).
    const std::map<int, std::vector<std::pair<double, double>>>& offline() const { return offline_; }
    /// The jobs that ended without arriving (lost when their trainer went offline, or
    /// cancelled), with the time they ended.
    const std::map<std::uint64_t, double>& ended() const { return ended_; }
    /// What the tap saw (empty when the run did not train or no tap was installed).
    const std::shared_ptr<const DataBundle>& data() const { return data_; }
    /// Each job's local work by job id, without its start model (the trainer trains from
    /// the model it receives) and optimiser state (the trainer keeps its own).
    const std::map<std::uint64_t, std::shared_ptr<const LocalJob>>& works() const { return works_; }
    /// The order (0, 1, ...) in which the engine collected each job's update, by job id.
    const std::map<std::uint64_t, std::size_t>& collectOrder() const { return collectOrder_; }
    /// The model the first job trained from (the initial model, as the engine had it).
    const ParamsPtr& firstStart() const { return firstStart_; }

private:
    RunInfo info_;
    std::vector<JobPlan> dispatches_;
    std::vector<Message> messages_;
    std::map<std::uint64_t, std::size_t> byId_;
    std::vector<AggregationRecord> aggregations_;
    RunSummary summary_;
    std::map<int, std::vector<std::pair<double, double>>> offline_;
    void addOffline(int node, double from, double to);
    std::map<std::uint64_t, double> ended_;
    std::shared_ptr<const DataBundle> data_;
    std::map<std::uint64_t, std::shared_ptr<const LocalJob>> works_;
    std::map<std::uint64_t, std::size_t> collectOrder_;
    ParamsPtr firstStart_;
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
    /// The local work the emulator gave the job (no start model: the trainer trains from the
    /// model it receives); null when the plan does not train.
    std::shared_ptr<const LocalJob> work;
    /// Where the engine's aggregator had this update in its list (arrival order in the
    /// prediction): the testbed's aggregator sums in the same order, so the floating-point
    /// sums are the same bits whatever order the updates reach it in.
    std::size_t aggregationRank = 0;
    /// The job ended without arriving in the prediction, at lostS (absolute): its trainer
    /// went offline, or the policy cancelled it when its round ended without it (n-sync, a
    /// deadline). Its model goes down; no update comes back (upBytes 0), the round does not
    /// wait for one, and it ends no earlier than the loss.
    bool lost = false;
    double lostS = 0.0;
    /// Of the jobs that ended without arriving, one the policy cancelled while its trainer
    /// was online (n-sync's late updates, a deadline): the trainer does train and send, the
    /// aggregator takes the round's first `PlanRound::needed` updates as they come and
    /// discards the later ones.
    bool cancelled = false;
    /// The update's bytes the emulator moved: upBytes, but 0 for a cancelled job whose upload
    /// had not started (one that had: its bytes in full, though the emulator cut it).
    double predictedUpBytes = 0.0;
    /// The job is a child aggregator's session (a tiered tree, core/policies/tiered.h): the
    /// model goes down to that aggregator's process, which plays its sub-rounds
    /// TestbedPlan::subRounds[sessionFirst, sessionFirst + sessionRounds) with its own
    /// children and sends the change of its model since the session began up as this job's
    /// update (upBytes). computeS is 0 (the session's time is measured) and work is null.
    std::size_t sessionFirst = 0;
    int sessionRounds = 0;
    bool session() const { return sessionRounds > 0; }
    /// A session that starts from the initial model with nothing sent down (hierarchical's
    /// first global round: the edges start at t = 0): only a 40-byte start message goes down.
    bool fromInitial = false;
    /// In a round that averages its children's models (PlanRound::averages): this session's
    /// weight, the samples its aggregator's trainers hold (TwoLevelPolicy's group weight).
    double averageWeight = 0.0;
};

struct PlanRound {
    int round = 0;
    double startS = 0.0, endS = 0.0; ///< the prediction's (end: the aggregation)
    int participants = 0;
    double learningRate = 0.0; ///< the server's (fully-sync's step), as the prediction had it
    bool evaluate = false;     ///< the prediction evaluated the model after this round
    /// The updates the round aggregates (the prediction's participants): the round ends at
    /// the arrival of the `needed`-th (n-sync), or when none is outstanding.
    int needed = 0;
    /// The policy's round deadline (fedavg's `sync.deadline_s`), seconds from the round's
    /// start; 0: none. The round then also ends at the deadline, with the updates in by then
    /// (the later ones are discarded when they come), as RoundPolicy's deadline does.
    double deadlineS = 0.0;
    std::vector<PlanJob> jobs;
    /// The box that aggregates the round: the root (0) for the global rounds
    /// (TestbedPlan::rounds), an intermediate aggregator for a sub-round (subRounds), whose
    /// times are absolute and whose jobs' offsets are from its start.
    int aggregatorBox = 0;
    /// A sub-round: the global round (index in TestbedPlan::rounds) whose session it is part of.
    std::size_t rootRound = 0;
    /// Hierarchical FL (sync policy hierarchical, core/policies/two_level.h): the root replaces
    /// its model by the weighted average of its children's models (each session sends its model
    /// up, not its change, with its sample-weighted loss sums), in the order of its groups.
    bool averages = false;
};

/// The training the processes do: the learner (the same model on the same data as the
/// prediction's), the model the first round starts from and how the root aggregates.
struct PlanTraining {
    std::shared_ptr<const DataBundle> data;
    std::shared_ptr<const Learner> learner;
    ParamsPtr initial;
    std::size_t parameters = 0;
    /// fully-sync: the server steps with the mean gradient (ServerModel::applyGradient);
    /// fedavg: it adds the sample-weighted change (ServerModel::addDelta).
    bool gradient = false;
    ServerOptimizerConfig serverOptimizer;
    double momentum = 0.0, weightDecay = 0.0;
    /// Each intermediate aggregator's own (by box, tiered trees): whether its trainers send
    /// gradients (fully-sync, n-sync at that level) and the server optimiser it steps with
    /// (aggregate.server_optimizer, else training.server_optimizer). The root's are the two
    /// fields above. A child aggregator's change is always added (ServerModel::addDelta).
    struct Tier {
        bool gradient = false;
        ServerOptimizerConfig serverOptimizer;
    };
    std::map<int, Tier> tiers;
};

/// A process with its network namespace: the root aggregator (box 0), a trainer, a relay or
/// an intermediate node, or a shared cell (a router the cell's members hang from; its
/// uplink carries the cell's shared capacity).
struct PlanBox {
    std::string label;  ///< node id, or "cell <group> @ <parent>"
    int node = -1;      ///< topology index; -1: a cell
    bool trains = false;
    /// The root, and in a tiered tree each intermediate aggregator: its process is a root to
    /// its children (it sends them its model and aggregates their updates) and, below the
    /// root, a trainer to its parent (it receives the parent's model and sends its change up).
    bool aggregates = false;
    int parent = -1;    ///< box index; -1: the root
    /// The link to the parent box. limited: shaped (rate, latency); else an unshaped veth (a
    /// cell member's port, or a node whose link is instantaneous in the scenario).
    bool limited = false;
    bool modelLink = false; ///< the emulator has this link (counts bytes on it)
    std::string linkName;   ///< as the emulator names it, e.g. "phones -> cloud"
    double upMbps = 0.0, downMbps = 0.0, latencyMs = 0.0;
    /// When the prediction has the node offline (absolute scenario seconds, in order, within
    /// the rounds played): its process is stopped then (SIGSTOP) and resumed after (SIGCONT).
    std::vector<std::pair<double, double>> offline;
    /// The emulator's bytes over this link per direction in the rounds played.
    double predictedUpBytes = 0.0, predictedDownBytes = 0.0;
};

struct TestbedPlan {
    std::string scenarioName;
    std::vector<PlanBox> boxes;
    std::vector<PlanRound> rounds;
    /// The intermediate aggregators' sub-rounds (tiered trees), each session's contiguous and
    /// an aggregator's in the order it plays them; a session job (PlanJob::session) names its own.
    std::vector<PlanRound> subRounds;
    /// Null: the processes only move bytes and hold updates (a timing-only scenario, or
    /// training not asked for).
    std::shared_ptr<const PlanTraining> training;
    /// The availability changes to play, each anchored to the round it happens in (the
    /// offset from that round's start), so that a measured round that runs a little long or
    /// short does not move them against its jobs; in order of round, then offset.
    struct Transition {
        int box = -1;
        std::size_t round = 0;
        double offsetS = 0.0;
        bool online = false; ///< resumed (else stopped)
    };
    std::vector<Transition> availability;
    /// Why the plan must be played with paced compute (a timed throughput change: each job is
    /// held to the compute time the prediction drew at the speed of its dispatch); empty: any.
    std::string pacedOnly;
    /// Per box: the boxes from it up to the root (itself first, the root last).
    std::vector<int> pathToRoot(int box) const;
    /// One-way latency (ms) of a box's path to the root (the sum over its shaped links).
    double pathLatencyMs(int box) const;
    /// The box that aggregates what `box` sends: the nearest aggregating box above it.
    int aggregatorOf(int box) const;
    /// The boxes whose links a message between `box` and its aggregator crosses (`box` first).
    std::vector<int> linksUp(int box) const;
    /// The rounds the jobs of a box's aggregator are in: `rounds` under the root, else `subRounds`.
    const std::vector<PlanRound>& roundsAbove(int box) const {
        return aggregatorOf(box) == 0 ? rounds : subRounds;
    }
};

/// The plan of `scenario` from its prediction. Throws TestbedError (core/testbed/netns.h)
/// naming what the testbed cannot play: more than one root aggregator, aggregators under the
/// root that are not a tiered tree's (`aggregate:`) or hierarchical's edges, a job lost or cancelled or a session
/// abandoned inside a tiered tree, codecs between aggregators, a trainer with an explicit link to the root and nodes under it, timed events, traces other than availability's, availability
/// changes of a node that does not train, a round that aggregates fewer updates than arrived
/// in it, more than `maxBoxes` processes, contention off.
/// With `training` and a prediction that trained (its recorder installed as the tap), the
/// plan trains: then it also refuses what its processes cannot train as the engine did
/// (policies other than fedavg and fully-sync, codecs, a wire size below the model's 4 bytes
/// per parameter).
TestbedPlan buildPlan(const Scenario& scenario, const PredictionRecorder& prediction, int maxBoxes = 64,
                      bool training = true);

} // namespace fog::testbed
