#pragma once
// The emulator: a discrete-event engine whose clock is computed, never measured, while the
// real training runs on worker threads. See docs/emulator.md for the semantics.
//
// The engine coordinates its parts, one file each in core/engine/, each owning its state
// and reached only through its own interface:
//   event_queue   events keyed by (time, seq); a stop is an event
//   node_runtime  availability, billing, energy, the job each trainer runs (compact)
//   roster        who trains for whom, on which data
//   run_model     the learner, the initial model, its bytes on the wire and FLOPs
//   jobs          jobs: planned timeline, arrival, loss, cancellation (jobs_flow: with
//                 contention); batch_feeder each trainer's sample order
//   dispatcher    the jobs' training: one submit path to the work pool, codecs
//   accounting    traffic, bytes, samples and the energy work spends
//   pilot_phase   the calibrated planners' pilot before the policies start
//   snapshots     when snapshots are taken
//   safety_net    the stall limits and the events handled
//   pacer         wall time beside virtual time (teaching speed)
//   timelines     per-node state intervals
//   run_record    rounds, aggregations and the summary so far; stop_rules the evaluation
//                 schedule and the scenario's stop rules as conditions
//   timed_events  timed events, traces and interventions, through resources (resources.h)
//   run_control   what front ends do with a run (pause, step, stop, speed, run until)
//
// Policies see the engine only as a PolicyContext (core/policies/policy_context.h), which it
// implements; the jobs and the pilot phase reach it through their Host interfaces
// (Jobs::Host, PilotPhase::Host), which it implements privately.
//
// Threads: the constructor, run() and everything under "PolicyContext" belong to the thread
// that calls run() (the engine thread). The "Control" methods may be called from any
// thread: they forward to the RunControl (control()), which front ends may also hold
// directly (EngineOptions::control).

#include "core/data/dataset.h"
#include "core/engine/accounting.h"
#include "core/engine/event_queue.h"
#include "core/engine/jobs.h"
#include "core/engine/node_runtime.h"
#include "core/engine/pacer.h"
#include "core/engine/pilot_phase.h"
#include "core/engine/roster.h"
#include "core/engine/run_model.h"
#include "core/engine/run_control.h"
#include "core/engine/run_record.h"
#include "core/engine/safety_net.h"
#include "core/engine/snapshots.h"
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

class Engine final : public PolicyContext, private Jobs::Host, private PilotPhase::Host {
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
    const DataBundle& data() const override { return roster_->data(); }
    bool trainsModel() const override { return model_->learner() != nullptr; }
    bool isOnline(int node) const override { return nodes_.online(node); }
    bool isBusy(int node) const override { return nodes_.job(node) != 0; }
    /// False for a member an `add` event brings, until its event (core/engine/timed_events.h).
    bool hasJoined(int node) const;
    std::int64_t samplesOf(int trainer) const override { return roster_->samplesOf(trainer); }
    /// Trainers whose updates go to `aggregator`: those right under it and, under a
    /// single-server sync policy (PolicyInfo::shape), every trainer below it, the
    /// aggregators between relaying (docs/emulator.md, "Which trainers a policy uses").
    std::vector<int> trainersOf(int aggregator) const override { return roster_->trainersOf(aggregator); }
    int serverOf(int trainer) const override { return roster_->serverOf(trainer); }
    int localStepsOf(int trainer) const override;
    double expectedComputeSeconds(int trainer, int steps, int batch) const override;
    double learningRate() const override;
    ParamsPtr initialModel() const override { return model_->initial(); }
    double modelBytes() const override { return model_->wireBytes(); }
    int globalRound() const override { return record_.globalRound(); }
    bool stopped() const override { return record_.stopped(); }
    const PilotEstimates* pilot() const override { return pilot_ ? pilot_->estimates() : nullptr; }

    std::vector<int> selectTrainers(int aggregator, int round) override;
    /// Sends the model to the trainer, runs the steps there and sends the update back;
    /// the policy hears onArrival or onLost. Returns the job id.
    std::uint64_t dispatch(const DispatchRequest& request) override { return jobs_->dispatch(request); }
    void cancelJob(std::uint64_t id) override { jobs_->cancel(id); }
    void send(int from, int to, double bytes, std::function<void()> delivered) override;
    /// Calls `fn` at virtual time `t`; throws EngineError for a time before now().
    TimerId at(double t, std::function<void()> fn) override;
    /// Drops the timer's callback and frees its slot at once (EventQueue::cancel).
    void cancelTimer(TimerId id) override;
    void chargeWork(int node, double seconds) override { accounting_->chargeWork(node, seconds); }
    void reportAggregation(AggregationRecord record, const ParamsPtr& model) override;
    void report(PolicyEvent kind, int node, const std::string& detail) override;
    void notifyTrainerAvailable(int trainer) override;
    void releaseTrainer(int trainer) override { jobs_->releaseTrainer(trainer); }

    void emitEvent(RunEventKind kind, int node, const std::string& detail = {});

    /// Cost so far: per-second billing of held nodes plus traffic prices.
    double costAt(double t) const { return accounting_->costAt(t); }

    /// The safety net (core/engine/safety_net.h; docs/emulator.md, "Safety net").
    std::uint64_t stallEvents() const { return safety_.stallEvents(); }
    double stallSeconds() const { return safety_.stallSeconds(); }

    /// The flow-level network, or null when transfers do not contend (topology.contention
    /// off, or no link or interface to share).
    const Network* network() const { return network_.get(); }
    /// Events the run loop has run so far (benchmarks).
    std::uint64_t eventsRun() const { return safety_.eventsRun(); }

private:
    /// The timed events, traces and interventions of this run with what they change: the
    /// resources (core/engine/resources.h) and the TimedEvents::Host (engine.cpp).
    struct EventDoors;

    // ---- Jobs::Host
    void jobArrived(const Job& job, LocalResult& result) override;
    void jobLost(const Job& job) override;
    void updateArrived() override { safety_.progressed(now()); }
    void dispatchTook(double seconds) override { safety_.dispatchTook(seconds); }
    void emit(RunEventKind kind, int node, const std::string& detail) override { emitEvent(kind, node, detail); }
    // ---- PilotPhase::Host
    void giveBack(int trainer) override { nodes_.giveBack(trainer, now()); }
    double costNow() const override { return costAt(now()); }
    void pilotFinished(const PilotEstimates& estimates) override;

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
    /// The pilot phase first if a planner asks for one (pilot_phase.h), else the policies.
    void startPolicies();
    bool pilotActive() const { return pilot_ && pilot_->active(); }
    // the loop (engine.cpp)
    void checkArmedCondition(bool atRound, double accuracy);
    void stop(RunStatus status, const std::string& reason);
    RunProgress progress(double accuracy) const;
    void evaluateInto(AggregationRecord& r, const ParamsPtr& model);
    void takeSnapshot(RunSnapshot::Reason reason, double time);
    RunSummary finish();

    // The run's setting and its front end.
    Scenario scenario_;
    const std::atomic<bool>* cancelFlag_;
    std::shared_ptr<RunControl> control_;
    RunObserver* observer_;
    // The system.
    Topology topo_;
    NodeRuntime nodes_;
    Timelines timelines_;
    // What the run has produced, when it takes snapshots, when it stalls, its wall clock.
    RunRecord record_;
    SnapshotSchedule snapshots_;
    SafetyNet safety_;
    Pacer pacer_;
    std::unique_ptr<Roster> roster_;
    // The model and the policies.
    std::unique_ptr<RunModel> model_;
    std::unique_ptr<SyncPolicy> sync_;
    std::unique_ptr<SelectionPolicy> selection_;
    PolicyParams syncParams_, selectionParams_; ///< resolved once (defaults filled)
    Rng selectionRng_{1};
    // The run's moving parts.
    EventQueue queue_;
    std::unique_ptr<Network> network_;
    std::unique_ptr<Accounting> accounting_;
    std::unique_ptr<Jobs> jobs_; ///< after what it refers to; its work pool goes first (~Engine)
    std::unique_ptr<PilotPhase> pilot_;
    std::unique_ptr<EventDoors> events_;
    /// Prices, availability or throughput changed (an event, a trace row, a node going
    /// offline or online): the selection hears it once the instant's events are done.
    bool offersChanged_ = false;
};

} // namespace fog
