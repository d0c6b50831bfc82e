#pragma once
// The trials of a search and where they run. A trial (one configuration's repeat) is ONE
// engine run that grows rung by rung: it runs to its rung's budget, waits there (its engine
// held on its own thread, between two events, nothing lost) while the search ranks the
// rung, then either goes on to the next budget or is stopped where it is and stored. So a
// promoted configuration never re-runs the rounds it has already simulated.
//
// TrialRunner is where trials run: LocalTrials runs them on threads of this process
// (runSeek's default); the CLI's MPI path (app/cli/sweep_mpi.cpp) runs them on ranks.

#include "core/spec/scenario.h"
#include "core/store/run_store.h"
#include "core/sweep/captured_run.h"
#include "core/system/metrics.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace fog {

class Engine;

/// Where a trial waits next: after this many global rounds, or at the first global
/// aggregation past this virtual time. None: it runs to the end of its scenario.
struct TrialBudget {
    enum class Kind { None, Rounds, Time };
    Kind kind = Kind::None;
    double value = 0.0;
};

/// One step of a trial: start its run (scenario and stored metadata given) or let a
/// waiting run go on, until `budget`.
struct TrialTask {
    int trial = 0;
    bool start = false;
    Scenario scenario; ///< start only: overrides, seed and stop rules applied
    NewRun meta;       ///< start only
    TrialBudget budget;
};

/// Where a trial stands after a step: waiting at its budget, or ended (stored).
struct TrialReport {
    int trial = 0;
    bool ended = false;
    std::vector<AggregationRecord> level0; ///< every global aggregation so far
    RunSummary summary;                    ///< final once ended; status Running while waiting
    std::int64_t runId = 0;                ///< the stored run (0 until stored, on MPI ranks)
};

class TrialRunner {
  public:
    virtual ~TrialRunner() = default;
    /// Runs the steps (at most `parallel` runs computing at once) and calls `report` for each
    /// as it waits at its budget or ends, one call at a time; returns when every step has
    /// reported (or the search was cancelled: the runs then end as cancelled and report).
    virtual void run(const std::vector<TrialTask>& tasks,
                     const std::function<void(const TrialReport&)>& report) = 0;
    /// Ends waiting trials where they stand; each is stored, finished, with `reason`, and
    /// reported (ended) before this returns.
    virtual void stop(const std::vector<int>& trials, const std::string& reason,
                      const std::function<void(const TrialReport&)>& report) = 0;
};

/// Holds a run for the search: an observer that forwards everything to `inner` (the store
/// recorder or a capture), keeps the global aggregations, and blocks the engine's thread
/// where the run reaches its budget until told to go on or to stop. A run the search stops
/// ends as *finished* with the search's reason (the engine reports it cancelled).
class TrialGate : public RunObserver {
  public:
    /// `cancel` (may be null) is the whole search's flag: a waiting run ends at once with it.
    TrialGate(RunObserver& inner, const Scenario& scenario, const std::atomic<bool>* cancel);

    /// Set before the engine runs (same thread); the gate cancels it to stop the run.
    void attach(Engine* engine) { engine_ = engine; }
    void setBudget(const TrialBudget& b);

    /// Hooks called on the run's thread: before it waits, and once it goes on.
    std::function<void()> onWait, onGoOn;

    /// Blocks until the run waits at its budget or has ended; true when it ended.
    bool waitForStop();
    /// A waiting run goes on to `next`.
    void goOn(const TrialBudget& next);
    /// A waiting run ends where it stands (or a running one at its budget).
    void stopHere(const std::string& reason);
    /// Marks the run ended (the engine's thread, after onFinish or a failure to build).
    void markEnded(const RunSummary& s);

    enum class Stand { Running, Waiting, Ended };
    /// Where the run stands now (does not block).
    Stand stand() const;

    std::vector<AggregationRecord> level0() const;
    RunSummary summary() const;

    void onStart(const RunInfo& i) override { inner_.onStart(i); }
    void onAggregation(const AggregationRecord& r) override;
    void onIntervals(const std::vector<NodeInterval>& v) override { inner_.onIntervals(v); }
    void onEvent(const RunEvent& e) override { inner_.onEvent(e); }
    void onFinish(const RunSummary& s) override;

    /// The summary a run stopped by the search stores (its status finished, the reason).
    static RunSummary stoppedSummary(RunSummary s, const std::string& reason);

  private:
    bool reached(const AggregationRecord& r) const;

    RunObserver& inner_;
    const Scenario& scenario_;
    const std::atomic<bool>* cancel_;
    Engine* engine_ = nullptr;
    mutable std::mutex mutex_;
    std::condition_variable cv_;
    TrialBudget budget_;
    using State = Stand;
    State state_ = State::Running;
    bool go_ = false;   ///< the search answered a wait
    bool stop_ = false; ///< ... with: stop here
    std::string stopReason_;
    std::vector<AggregationRecord> level0_;
    RunSummary summary_;
};

/// Runs trials on threads of this process and stores each run in `store` as it goes.
class LocalTrials : public TrialRunner {
  public:
    LocalTrials(RunStore& store, int parallel, int threadsPerRun, const std::atomic<bool>* cancel);
    ~LocalTrials() override; ///< stops (cancels) runs still waiting

    void run(const std::vector<TrialTask>& tasks,
             const std::function<void(const TrialReport&)>& report) override;
    void stop(const std::vector<int>& trials, const std::string& reason,
              const std::function<void(const TrialReport&)>& report) override;

  private:
    struct Live;
    void acquire();
    void release();
    TrialReport reportOf(const Live& live, int trial) const;

    RunStore& store_;
    int parallel_;
    int threads_;
    const std::atomic<bool>* cancel_;
    std::mutex slotMutex_;
    std::condition_variable slotCv_;
    int busy_ = 0;
    std::map<int, std::unique_ptr<Live>> live_;
};

/// Runs trials for a coordinator in another process (an MPI rank): the same runs as
/// LocalTrials makes, kept in memory and handed over whole when they end. The caller (one
/// thread) starts, continues and stops trials and polls for news.
class TrialHost {
  public:
    TrialHost(int parallel, const std::atomic<bool>* cancel);
    ~TrialHost(); ///< stops (cancels) every run still held

    void start(int trial, const Scenario& scenario, int threads, const TrialBudget& budget);
    void goOn(int trial, const TrialBudget& budget);
    void stop(int trial, const std::string& reason);

    struct News {
        int trial = 0;
        bool ended = false;
        /// Ended: the whole run. Waiting: its global aggregations so far and a Running summary.
        CapturedRun run;
    };
    /// Trials that came to wait at their budget or ended since the last call.
    std::vector<News> poll();
    /// Trials held (running or waiting).
    std::size_t held() const { return trials_.size(); }

  private:
    struct Hosted;
    void acquire();
    void release();

    int parallel_;
    const std::atomic<bool>* cancel_;
    std::mutex slotMutex_;
    std::condition_variable slotCv_;
    int busy_ = 0;
    std::map<int, std::unique_ptr<Hosted>> trials_;
};

} // namespace fog
