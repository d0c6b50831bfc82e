#pragma once
// The emulator: a discrete-event engine whose clock is computed, never measured, while the
// real training runs on worker threads. See docs/emulator.md for the semantics.
//
// The engine coordinates its parts, one file each in core/engine/:
//   event_queue   events keyed by (time, seq); a stop is an event
//   node_runtime  availability, billing, energy, the job each trainer runs (compact)
//   batch_feeder  each trainer's sample order
//   dispatch      jobs: planned timeline, arrival, loss, cancellation (flow_dispatch: with
//                 contention)
//   dispatcher    the jobs' training: one submit path to the work pool, codecs
//   timelines     per-node state intervals
//   stop_rules    evaluation schedule and the scenario's stop rules as conditions
//   run_control   what front ends do with a run (pause, step, stop, speed, run until)
//
// Policies see the engine only as a PolicyContext (core/policies/policy_context.h), which it
// implements directly.
//
// Threads: the constructor, run() and everything under "PolicyContext" belong to the thread
// that calls run() (the engine thread). The "Control" methods may be called from any
// thread: they forward to the RunControl (control()), which front ends may also hold
// directly (EngineOptions::control).

#include "core/data/dataset.h"
#include "core/engine/dispatch.h"
#include "core/engine/dispatcher.h"
#include "core/engine/event_queue.h"
#include "core/engine/node_runtime.h"
#include "core/engine/run_control.h"
#include "core/engine/stop_rules.h"
#include "core/engine/timelines.h"
#include "core/model/learner.h"
#include "core/policies/policy_context.h"
#include "core/policies/policy_params.h"
#include "core/spec/scenario.h"
#include "core/system/metrics.h"
#include "core/system/network.h"
#include "core/system/topology.h"
#include "core/util/engine_error.h"
#include "core/util/random.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace fog {

class SyncPolicy;
class SelectionPolicy;
class BatchFeeder;
class TimedEvents;

struct EngineOptions {
    int threads = 1;
    RunObserver* observer = nullptr;
    /// Virtual seconds per wall second for teaching (0 = as fast as possible); applied to
    /// the run control when positive.
    double playbackSpeed = 0.0;
    /// Set from anywhere, even a signal handler, to cancel the run (checked between events).
    const std::atomic<bool>* cancelFlag = nullptr;
    /// The front end's control of this run (pause, step, run until); the engine makes its
    /// own when null.
    std::shared_ptr<RunControl> control;
    /// Reuse data loaded elsewhere (sweeps, tests); loaded from the scenario when null.
    std::shared_ptr<const DataBundle> data;
    /// Snapshots (core/system/run_snapshot.h, RunObserver::onSnapshot): one every this many
    /// virtual seconds (0: none), at t = k * snapshotEverySeconds, k = 1, 2, ...
    double snapshotEverySeconds = 0.0;
    /// And one at each of these instants (Reason::Replay: a fork verifying its replay).
    std::vector<double> snapshotTimes;
};

class Engine final : public PolicyContext {
public:
    /// Builds the topology, loads data and model, and the policies. Throws EngineError,
    /// DataError or ModelError with a clear message.
    Engine(const Scenario& scenario, EngineOptions options);
    ~Engine() override;

    /// Runs to a stop rule, cancellation or failure; returns the summary (also observed).
    RunSummary run();

    // ---- Control, from any thread (see RunControl) ----
    RunControl& control() { return *control_; }
    void pause() { control_->pause(); }
    void resume() { control_->resume(); }
    /// Runs until the next global aggregation, then pauses.
    void stepRound() { control_->stepRound(); }
    void cancel() { control_->cancel(); }
    bool isPaused() const { return control_->isPaused(); }
    /// Virtual seconds per wall second (0 = as fast as possible); applies at once, even
    /// during a run.
    void setPlaybackSpeed(double virtualSecondsPerWallSecond) { control_->setPlaybackSpeed(virtualSecondsPerWallSecond); }
    double playbackSpeed() const { return control_->playbackSpeed(); }
    /// The virtual instant the run has reached, advancing smoothly between events at
    /// teaching speeds (for live views on other threads).
    double clock() const { return control_->clock(); }

    /// What the policies see of this engine: the engine itself.
    PolicyContext& policyContext() { return *this; }
    const PolicyContext& policyContext() const { return *this; }

    // ---- PolicyContext (engine thread only) ----
    double now() const override { return queue_.now(); }
    const Scenario& scenario() const override { return scenario_; }
    const PolicyParams& syncParams() const override { return syncParams_; }
    const PolicyParams& selectionParams() const override { return selectionParams_; }
    const Topology& topology() const override { return topo_; }
    /// The run's data. In a timing-only run the per-trainer index lists are built at the
    /// first call (the engine itself needs only their sizes).
    const DataBundle& data() const override;
    bool trainsModel() const override { return learner_ != nullptr; }
    bool isOnline(int node) const override { return nodes_.online(node); }
    bool isBusy(int node) const override { return nodes_.job(node) != 0; }
    /// False for a member an `add` event brings, until its event (core/engine/timed_events.h).
    bool hasJoined(int node) const;
    std::int64_t samplesOf(int trainer) const override;
    /// Trainers whose updates go to `aggregator`: those right under it and, under a
    /// single-server sync policy (PolicyInfo::shape), every trainer below it, the
    /// aggregators between relaying (docs/emulator.md, "Which trainers a policy uses").
    std::vector<int> trainersOf(int aggregator) const override;
    int serverOf(int trainer) const override { return server_[static_cast<std::size_t>(trainer)]; }
    int localStepsOf(int trainer) const override;
    double expectedComputeSeconds(int trainer, int steps, int batch) const override;
    double learningRate() const override;
    ParamsPtr initialModel() const override { return initialModel_; }
    double modelBytes() const override { return modelBytes_; }
    int globalRound() const override { return globalRound_; }
    bool stopped() const override { return stopped_; }
    const PilotEstimates* pilot() const override; // pilot_phase.cpp

    std::vector<int> selectTrainers(int aggregator, int round) override;
    /// Sends the model to the trainer, runs the steps there and sends the update back;
    /// the policy hears onArrival or onLost. Returns the job id.
    std::uint64_t dispatch(const DispatchRequest& request) override;
    void cancelJob(std::uint64_t id) override;
    void send(int from, int to, double bytes, std::function<void()> delivered) override;
    /// Calls `fn` at virtual time `t`; throws EngineError for a time before now().
    TimerId at(double t, std::function<void()> fn) override;
    void cancelTimer(TimerId id) override;
    void chargeWork(int node, double seconds) override; // dispatch.cpp
    void reportAggregation(AggregationRecord record, const ParamsPtr& model) override;
    void report(PolicyEvent kind, int node, const std::string& detail) override;
    void notifyTrainerAvailable(int trainer) override;
    void releaseTrainer(int trainer) override;

    void emitEvent(RunEventKind kind, int node, const std::string& detail = {});

    /// Cost so far: per-second billing of held nodes plus traffic prices.
    double costAt(double t) const { return nodes_.costAt(trafficCost_, t); }

    /// The safety net (docs/emulator.md, "Safety net"): a run stops as failed ("no
    /// progress: ...") once more than stallEvents() events and more than stallSeconds()
    /// virtual seconds have passed since an update last reached an aggregator or an
    /// aggregation was reported (or stallEvents() events at one instant). Both limits are
    /// relative to the scenario: 1000 + 10 per node events; 100 times the slowest dispatch
    /// (planned so far, or expected) plus the longest mean offline time; and never before
    /// the last offline interval of a trace has ended.
    std::uint64_t stallEvents() const { return stallEvents_; }
    double stallSeconds() const;

    /// The flow-level network, or null when transfers do not contend (topology.contention
    /// off, or no link or interface to share).
    const Network* network() const { return network_.get(); }
    /// Events the run loop has run so far (benchmarks).
    std::uint64_t eventsRun() const { return eventsRun_; }

private:
    /// What timed events, traces and interventions change, and how (engine.cpp): the
    /// resources (core/engine/resources.h) and the TimedEvents::Host of this run.
    struct EventDoors;
    // availability (engine.cpp)
    void startNode(int node);
    void scheduleAvailabilityChange(int node);
    /// The event queue's prefetcher (EventQueue::setPrefetcher): a node's state into the cache.
    static void prefetchNode(void* engine, std::uint32_t node);
    void onAvailabilityChange(int node);
    void goOffline(int node);
    void goOnline(int node);
    /// A member an `add` event brought has started its availability process (TimedEvents).
    void joinNode(int node);
    // dispatch.cpp
    void onArrival(std::uint64_t jobId);
    void endJobCompute(const Job& job, double until);
    void writeJobIntervals(const Job& job, double until);
    /// Energy per byte received (dispatch.cpp; per hop with contention).
    void chargeReceived(int node, double bytes);
    /// Energy of the updates an aggregation folds in (docs/emulator.md, "Energy").
    void chargeAggregation(const AggregationRecord& record);
    double stepSeconds(int trainer, int batch);
    // flow_dispatch.cpp: jobs as state machines when transfers contend
    std::uint64_t dispatchFlows(const DispatchRequest& request);
    /// A new job for `request`: the trainer held (and charged an invocation), ids and start set.
    Job openJob(const DispatchRequest& request);
    void onDownloaded(std::uint64_t jobId);
    void onComputed(std::uint64_t jobId);
    /// Draws a job's steps from virtual time `t`: each batch from the trainer's order and its
    /// duration from the trainer's stream, appended to job.batchSizes, job.samples and
    /// `durations`, stopping before a step (not the first) that would end after `deadline`
    /// (its batch goes back: job.partial). `samples` (null: not tracked) gets the batches'
    /// indices. Returns t plus the steps' durations, added one by one.
    double drawSteps(Job& job, int batchSize, double t, double deadline, std::vector<double>& durations,
                     std::vector<std::int64_t>* samples);
    /// Cuts the job's transfer in progress (cancelled, lost, end of run).
    void cutJobTransfer(std::uint64_t jobId);
    void chargeHop(const Network::HopBytes& h);
    double idealSeconds(int from, int to, double bytes) const { return topo_.transfer(from, to, bytes).seconds; }
    /// Energy of one sample's step on a node (J): energy.per_sample_j, plus per_flop_j x the
    /// model's FLOPs per sample where a device class gives it.
    double energyPerSample(int node) const;
    /// Power a node draws computing: energyPerSample x its throughput (W).
    double computePower(int node) const;
    // pilot_phase.cpp: the calibrated planners' pilot before the policies start
    struct PilotState;
    void startPolicies();
    bool pilotActive() const;
    bool pilotOwns(std::uint64_t jobId) const;
    void pilotArrived(const Job& job, const LocalResult& result);
    void pilotLost(const Job& job);
    void pilotFill();
    void finishPilot();
    std::shared_ptr<PilotState> pilot_; ///< shared_ptr: complete only in pilot_phase.cpp
    // the loop (engine.cpp)
    void paceTo(double t);
    void checkArmedCondition(bool atRound, double accuracy);
    void noteProgress();
    bool stalled() const;
    void stop(RunStatus status, const std::string& reason);
    RunProgress progress(double accuracy) const;
    void evaluateInto(AggregationRecord& r, const ParamsPtr& model);
    RunSummary finish();
    // snapshots (engine_snapshots.cpp)
    /// Takes the snapshots due before the next event (at `nextEventTime`) and any requested one.
    void takeDueSnapshots(double nextEventTime);
    void takeSnapshot(RunSnapshot::Reason reason, double time);
    void checkSnapshotOptions(); ///< throws EngineError; sorts snapshotTimes
    std::uint64_t everySnapshots_ = 0;  ///< periodic snapshots taken so far
    std::size_t nextTimedSnapshot_ = 0; ///< into options_.snapshotTimes (sorted in the constructor)

    Scenario scenario_;
    EngineOptions options_;
    std::shared_ptr<RunControl> control_;
    Topology topo_;
    mutable std::shared_ptr<const DataBundle> data_;
    /// Timing-only data not yet expanded into index lists: every trainer holds this many
    /// samples (-1: data_ is complete).
    mutable std::int64_t uniformPart_ = -1;
    std::vector<double> dataWeights_;
    std::unique_ptr<Learner> learner_;
    /// The jobs' training: local work, the pool, the wire codecs (dispatcher.h).
    std::unique_ptr<Dispatcher> dispatcher_;
    std::unique_ptr<SyncPolicy> sync_;
    std::unique_ptr<SelectionPolicy> selection_;
    PolicyParams syncParams_, selectionParams_; ///< resolved once (defaults filled)
    ObserverList nullObserver_;
    RunObserver* observer_;
    ParamsPtr initialModel_;
    double modelBytes_ = 0.0;
    double flopsPerSample_ = 0.0; ///< training FLOPs per sample, for nodes given in FLOP/s
    std::vector<int> trainerPart_; ///< node index -> index into data_->parts (-1: none)
    std::vector<int> server_;      ///< node index -> serverOf (-1: none)
    std::map<int, std::vector<int>> trainersOf_; ///< aggregator -> trainersOf (built once)
    /// Energy: the regional servers that fold every region's model at a level-0 aggregation
    /// (sync shape Regions; empty otherwise), and whether any node spends per update.
    std::vector<int> regionServers_;
    bool anyAggregationEnergy_ = false;
    Rng selectionRng_{1};

    EventQueue queue_;
    NodeRuntime nodes_;
    Timelines timelines_;
    std::unique_ptr<BatchFeeder> feeder_;
    StopRules stopRules_;
    Evaluation evaluation_;
    std::map<std::uint64_t, Job> jobs_;
    /// Per job in flight with contention: what the later stages need.
    struct FlowJob {
        JobInput input;
        std::uint64_t transfer = 0;  ///< the network transfer in progress (0: none)
        int batchSize = 0;
        double deadline = 0.0;
        bool gradient = false;
        bool drawn = false;             ///< steps drawn at dispatch (durations below)
        std::vector<double> durations;
        /// With a compute deadline: the samples drawn at dispatch, submitted once the model is there.
        std::vector<std::int64_t> samples;
    };
    std::map<std::uint64_t, FlowJob> flowJobs_;
    std::unique_ptr<Network> network_;
    std::unique_ptr<EventDoors> eventDoors_; ///< before events_, which holds references into it
    std::unique_ptr<TimedEvents> events_;
    std::uint64_t nextJobId_ = 1;
    /// Prices, availability or throughput changed (an event, a trace row, a node going
    /// offline or online): the selection hears it once the instant's events are done.
    bool offersChanged_ = false;
    std::set<int> releaseAfterJob_; ///< releaseTrainer on a busy trainer: at its job's end
    void releaseIfAsked(int trainer);

    int globalRound_ = 0;
    int aggregations_ = 0;
    double trafficCost_ = 0.0;
    double bytes_ = 0.0;
    std::int64_t samplesComputed_ = 0;
    int lostJobs_ = 0;
    bool stopped_ = false;
    RunSummary summary_;
    AggregationRecord last_;
    bool lastEvaluated_ = true;
    double wallStart_ = 0.0;

    // Safety net (engine thread).
    std::uint64_t stallEvents_ = 0;
    double expectedSlowestDispatch_ = 0.0; ///< from the scenario, before any dispatch
    double slowestDispatch_ = 0.0;         ///< longest dispatch planned so far
    double longestMeanDown_ = 0.0;         ///< Markov availability
    double lastTraceChange_ = 0.0;         ///< end of the last finite trace interval
    std::uint64_t eventsSinceProgress_ = 0;
    std::uint64_t eventsRun_ = 0;
    double lastProgress_ = 0.0;

    // Teaching-speed pacing: wall time follows virtual time from this anchor (engine thread).
    double paceSpeed_ = 0.0, paceWall_ = 0.0, paceVirtual_ = 0.0;
};

} // namespace fog
