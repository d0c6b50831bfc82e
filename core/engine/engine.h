#pragma once
// The emulator: a discrete-event engine whose clock is computed, never measured, while the
// real training runs on worker threads. See docs/emulator.md for the semantics.

#include "core/data/dataset.h"
#include "core/system/metrics.h"
#include "core/system/topology.h"
#include "core/model/learner.h"
#include "core/policies/policy_context.h"
#include "core/spec/scenario.h"
#include "core/util/random.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <stdexcept>

namespace fog {

class SyncPolicy;
class SelectionPolicy;
class EnginePolicyContext;
class WorkPool;
class WorkItem;

struct EngineOptions {
    int threads = 1;
    RunObserver* observer = nullptr;
    /// Virtual seconds per wall second for teaching (0 = as fast as possible).
    double playbackSpeed = 0.0;
    /// Set from anywhere, even a signal handler, to cancel the run (checked between events).
    const std::atomic<bool>* cancelFlag = nullptr;
    /// Reuse data loaded elsewhere (sweeps, tests); loaded from the scenario when null.
    std::shared_ptr<const DataBundle> data;
};

class Engine {
public:
    /// Builds the topology, loads data and model, and the policies. Throws EngineError,
    /// DataError or ModelError with a clear message.
    Engine(const Scenario& scenario, EngineOptions options);
    ~Engine();

    /// Runs to a stop rule, cancellation or failure; returns the summary (also observed).
    RunSummary run();

    // Control, from any thread.
    void pause();
    void resume();
    /// Runs until the next global aggregation, then pauses.
    void stepRound();
    void cancel();
    bool isPaused() const;
    /// Virtual seconds per wall second (0 = as fast as possible); applies at once, even
    /// during a run.
    void setPlaybackSpeed(double virtualSecondsPerWallSecond);
    double playbackSpeed() const { return playbackSpeed_.load(); }
    /// The virtual instant the run has reached, advancing smoothly between events at
    /// teaching speeds (for live views on other threads).
    double clock() const { return clock_.load(); }

    /// What the policies see of this engine (core/policies/policy_context.h); the
    /// conversions let tests hand an Engine to a policy directly.
    PolicyContext& policyContext();
    const PolicyContext& policyContext() const;
    operator PolicyContext&() { return policyContext(); }
    operator const PolicyContext&() const { return policyContext(); }

    // ---- For policies (engine thread only; policies reach them through PolicyContext) ----
    double now() const { return now_; }
    const Scenario& scenario() const { return scenario_; }
    const Topology& topology() const { return topo_; }
    const DataBundle& data() const { return *data_; }
    bool trainsModel() const { return learner_ != nullptr; }
    bool isOnline(int node) const { return rt_[node].online; }
    bool isBusy(int node) const { return rt_[node].job != 0; }
    /// Samples in a trainer's local data set.
    std::int64_t samplesOf(int trainer) const;
    /// Online, idle trainers of `aggregator`, chosen by the selection policy for `round`.
    std::vector<int> selectTrainers(int aggregator, int round);
    /// Trainers whose updates go to `aggregator`: those right under it and, under a
    /// single-server sync policy (PolicyInfo::shape), every trainer below it, the
    /// aggregators between relaying (docs/emulator.md, "Which trainers a policy uses").
    std::vector<int> trainersOf(int aggregator) const;
    /// The aggregator a trainer's updates go to under this run's sync policy.
    int serverOf(int trainer) const { return server_[static_cast<std::size_t>(trainer)]; }
    /// Local steps a dispatch runs when the policy does not say: training.local_steps, or
    /// local_epochs passes over the trainer's data.
    int localStepsOf(int trainer) const;
    /// Learning rate of the schedule at the current global round.
    double learningRate() const;
    ParamsPtr initialModel() const { return initialModel_; }
    double modelBytes() const { return modelBytes_; }

    /// Sends `model` to `trainer`, runs `steps` local steps there and sends the update back;
    /// the policy hears onArrival or onLost. Returns the job id.
    /// `download` false: the trainer still holds this model (it keeps computing on it).
    std::uint64_t dispatch(int trainer, int aggregator, ParamsPtr model, long version, int steps,
                           bool gradient, int round, int tag = 0, bool download = true);
    std::uint64_t dispatch(int trainer, int aggregator, ParamsPtr model, long version, int steps,
                           bool gradient, int round, const DispatchOptions& options);
    /// Expected seconds of `steps` local steps of `batch` on `trainer` (mean noise 1), for
    /// planners and selection policies.
    double expectedComputeSeconds(int trainer, int steps, int batch) const;
    /// Abandons a job (the trainer becomes idle now; its result will not be delivered).
    void cancelJob(std::uint64_t id);
    /// Moves `bytes` from one node to another (accounting time, traffic and price);
    /// returns the arrival time.
    double send(int from, int to, double bytes);
    /// Calls `fn` at virtual time `t` (>= now).
    void at(double t, std::function<void()> fn);

    /// Reports an aggregation. For level 0 it advances the global round, evaluates `model`
    /// every evaluation.every_rounds rounds, and applies the stop rules.
    void reportAggregation(AggregationRecord record, const ParamsPtr& model);
    int globalRound() const { return globalRound_; }
    bool stopped() const { return stopped_; }
    void emitEvent(const std::string& kind, int node, const std::string& detail = {});

    /// Cost so far: per-second billing of held nodes plus traffic prices.
    double costAt(double t) const;

    /// The safety net (docs/emulator.md, "Safety net"): a run stops as failed ("no
    /// progress: ...") once more than stallEvents() events and more than stallSeconds()
    /// virtual seconds have passed since an update last reached an aggregator or an
    /// aggregation was reported (or stallEvents() events at one instant). Both limits are
    /// relative to the scenario: 1000 + 10 per node events; 100 times the slowest dispatch
    /// (planned so far, or expected) plus the longest mean offline time; and never before
    /// the last offline interval of a trace has ended.
    std::uint64_t stallEvents() const { return stallEvents_; }
    double stallSeconds() const;

private:
    struct Event {
        double t;
        std::uint64_t seq;
        std::function<void()> fn;
        bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
    };
    struct NodeRuntime {
        bool online = true;
        double nextChange = 0.0; ///< next availability change (infinity: none)
        bool acquired = false;   ///< billed from its first use until the end, while online
        bool holding = false;
        double holdSince = 0.0;
        double billed = 0.0;     ///< cost of closed holding intervals
        std::uint64_t job = 0;
        NodeState state = NodeState::Idle;
        double stateSince = 0.0;
        std::size_t traceIndex = 0;
        Rng computeRng{1}, availabilityRng{1}, dataRng{1};
        std::vector<std::int64_t> order; ///< current epoch's shuffled sample order
        std::size_t cursor = 0;
        std::uint64_t jobsRun = 0;
        double energy = 0.0;
    };

    void initAvailability(int node);
    void scheduleAvailabilityChange(int node);
    void onAvailabilityChange(int node);
    void goOffline(int node);
    void goOnline(int node);
    void hold(int node);
    void release(int node);
    void onArrival(std::uint64_t jobId);
    void setState(int node, NodeState s, double t);
    void emitJobIntervals(const Job& job, double until);
    void flushIntervals(bool force);
    void finishJobCompute(const Job& job, double until);
    double stepSeconds(int trainer, int batch);
    std::vector<std::int64_t> nextBatch(int trainer, int size);
    void putBackBatch(int trainer, std::size_t size);
    void waitWhilePaused();
    /// The cancel flag or cancel(), whichever came first.
    bool cancelRequested();
    void noteProgress();
    bool stalled() const;
    void stop(RunStatus status, const std::string& reason);
    void evaluateInto(AggregationRecord& r, const ParamsPtr& model);
    RunSummary finish();

    Scenario scenario_;
    EngineOptions options_;
    Topology topo_;
    std::shared_ptr<const DataBundle> data_;
    std::unique_ptr<Learner> learner_;
    std::unique_ptr<WorkPool> pool_;
    std::unique_ptr<EnginePolicyContext> policyContext_;
    std::unique_ptr<SyncPolicy> sync_;
    std::unique_ptr<SelectionPolicy> selection_;
    ObserverList nullObserver_;
    RunObserver* observer_;
    ParamsPtr initialModel_;
    double modelBytes_ = 0.0;
    std::vector<int> trainerPart_; ///< node index -> index into data_->parts (-1: none)
    std::vector<int> server_;      ///< node index -> serverOf (-1: none)
    Rng selectionRng_{1};

    std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
    std::uint64_t eventSeq_ = 0;
    std::map<std::uint64_t, Job> jobs_;
    std::uint64_t nextJobId_ = 1;
    std::vector<NodeRuntime> rt_;
    std::vector<NodeInterval> pendingIntervals_;

    double now_ = 0.0;
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
    ParamsPtr lastModel_;
    double wallStart_ = 0.0;

    // Safety net (engine thread).
    std::uint64_t stallEvents_ = 0;
    double expectedSlowestDispatch_ = 0.0; ///< from the scenario, before any dispatch
    double slowestDispatch_ = 0.0;         ///< longest dispatch planned so far
    double longestMeanDown_ = 0.0;         ///< Markov availability
    double lastTraceChange_ = 0.0;         ///< end of the last finite trace interval
    std::uint64_t eventsSinceProgress_ = 0;
    double lastProgress_ = 0.0;

    mutable std::mutex controlMutex_;
    std::condition_variable controlCv_;
    bool paused_ = false;
    bool stepping_ = false;
    std::atomic<bool> cancelled_{false};
    std::atomic<double> playbackSpeed_{0.0};
    std::atomic<double> clock_{0.0};
    // Teaching-speed pacing: wall time follows virtual time from this anchor (engine thread).
    double paceSpeed_ = 0.0, paceWall_ = 0.0, paceVirtual_ = 0.0;
};

} // namespace fog
