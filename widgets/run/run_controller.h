#pragma once
// Runs a scenario from the studio: the engine on a worker thread, stored in the run store as
// the CLI stores it, controlled from the GUI thread (pause, step, run until, stop, playback
// speed), with its stream handed to the GUI thread in batches at a bounded rate. The control
// state lives in one place, the run's RunControl (core/engine/run_control.h), which this
// class creates before each run and hands to the engine; it only forwards to it.
//
// Threads: a QObject of the GUI thread; call it from there.

#include "core/engine/condition.h"
#include "core/system/metrics.h"
#include "core/spec/scenario.h"
#include "widgets/run/log_entry.h"
#include "widgets/topology/run_activity.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QThread;
class QTimer;

namespace fog {

class Engine;
class RunControl;
class RunStore;
struct EngineOptions;

class RunController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Paused, Finished, Cancelled, Failed };
    Q_ENUM(State)
    /// What runUntil waits for: a global round, a test accuracy (0..1) or a cumulative cost.
    enum class Until { Round, Accuracy, Budget };
    Q_ENUM(Until)

    explicit RunController(QObject* parent = nullptr);
    ~RunController() override; ///< cancels a run still going and waits for its thread

    /// Starts `scenario` on a worker thread, stored in the database at `dbPath` (empty: the
    /// default store) under `runName` (empty: the scenario's name). Returns false (and emits
    /// error) if a run is already going.
    bool start(const Scenario& scenario, const QString& dbPath, int threads = 1, const QString& runName = QString());

    /// What a run does on the worker thread: runs and stores a run in `store` with the
    /// engine `options` (this controller's observer and control), calls `onEngine` as
    /// runAndStore does, fills `summary` and returns the run id. start() runs runAndStore;
    /// a fork runs forkRun (core/fork) through it.
    using Job = std::function<std::int64_t(RunStore& store, const EngineOptions& options, RunSummary& summary,
                                           const std::function<void(Engine*, std::int64_t)>& onEngine)>;
    /// Starts `job` like start() starts a scenario; `scenario` is what the run shows (the
    /// parent's scenario for a fork). Returns false (and emits error) if a run is going.
    bool startJob(const Scenario& scenario, const QString& dbPath, int threads, Job job);

    void pause();
    /// Pauses a run going and waits (at most `timeoutMs`) until its engine stands still, so
    /// that runClock() is the instant an intervention sent now is applied at. True when the
    /// engine holds (a paused run already does).
    bool holdStill(int timeoutMs = 500);
    void resume();
    /// Runs to the next global aggregation, then pauses.
    void stepRound();
    /// Runs until the engine has handled one more event of its queue, then pauses.
    void stepEvent();
    /// Cancels the run; it is stored as cancelled.
    void stop();
    /// Runs (resuming if paused) and pauses as soon as the condition holds, checked on the
    /// engine's thread where its metric changes (round and accuracy at each global
    /// aggregation, cost after each event, time when the clock reaches it). Set before
    /// start(), it applies to the next run. runUntilReached says what held.
    void runUntil(const Condition& condition);
    void runUntil(Until kind, double value);
    /// The armed condition (none once it held or the run ended).
    std::optional<Condition> runUntilCondition() const;
    /// Virtual seconds per wall second (0 = as fast as possible); applies during a run.
    void setPlaybackSpeed(double virtualSecondsPerWallSecond);
    double playbackSpeed() const { return speed_; }

    /// A live intervention (RunControl::intervene): applied by the engine at its current
    /// virtual instant, also while paused; recorded in the stored run's scenario so a re-run
    /// reproduces it. False (and `why` says so) when no run is going.
    bool intervene(const TimedEvent& event, QString* why = nullptr);
    /// The interventions of this run the engine applied so far (their instants set), in order.
    const std::vector<TimedEvent>& interventions() const { return interventions_; }
    /// The virtual instant the run going has reached (0 before it starts).
    double runClock() const;
    /// The scenario of the run going or last run (as started).
    const Scenario& scenario() const { return scenario_; }

    State state() const { return state_; }
    /// Why the run is paused ("paused after round 7 (t = 12.5 s)", "accuracy 78.4% >= 78%
    /// at round 7", ...); empty when it is not.
    QString pauseReason() const;
    bool isActive() const { return state_ == State::Running || state_ == State::Paused; }
    qint64 runId() const { return runId_; }
    const RunInfo& runInfo() const { return info_; }
    static QString stateName(State s);

Q_SIGNALS:
    void stateChanged(fog::RunController::State state);
    /// A clear message for the user: a scenario the engine refuses, a store that cannot be
    /// opened, a run that failed.
    void error(const QString& message);
    void started(const fog::RunInfo& info, qint64 runId);
    void metrics(const std::vector<fog::AggregationRecord>& records);
    void intervals(const std::vector<fog::NodeInterval>& intervals);
    void events(const std::vector<fog::RunEvent>& events);
    /// Link usage spans (runs with network contention), batched like the intervals.
    void linkUsage(const std::vector<fog::LinkUsage>& spans);
    /// Node states and messages in flight at the run's current virtual instant: every
    /// update at teaching speeds, a few per second otherwise.
    void activity(const fog::ActivityFrame& frame);
    /// A runUntil condition held and the run paused; `what` says what held, e.g.
    /// "accuracy 78.4% >= 78% at round 7".
    void runUntilReached(const QString& what);
    /// The run paused, and why (the text of pauseReason()): a step that ended, a run-until
    /// condition that held, the user's pause.
    void pausedBecause(const QString& why);
    /// A step began: "Stepping to the end of round 8", "Stepping one event".
    void stepping(const QString& what);
    /// What happened since the last batch, in virtual-time order, for the event log:
    /// dispatches, messages, arrivals, aggregations, availability, plans. At most about
    /// 20,000 a batch; past that a Note says how many were left out (the store has them all).
    void log(const std::vector<fog::LogEntry>& entries);
    void finished(const fog::RunSummary& summary, qint64 runId);
    /// The engine applied interventions (in order; trigger At at their instant).
    void intervened(const std::vector<fog::TimedEvent>& applied);

private:
    class Feed;
    void drain();
    void onThreadFinished();
    void setState(State s);
    void enterPaused();

    std::unique_ptr<Feed> feed_;
    /// This run's control (or the next run's, before start()).
    std::shared_ptr<RunControl> control_;
    QThread* thread_ = nullptr;
    QTimer* timer_ = nullptr;
    State state_ = State::Idle;
    double speed_ = 0.0;
    qint64 runId_ = 0;
    RunInfo info_;
    Scenario scenario_;
    std::vector<TimedEvent> interventions_;
    std::vector<AggregationRecord> spareRecords_;
    std::vector<NodeInterval> spareIntervals_;
    std::vector<RunEvent> spareEvents_;
    std::vector<LogEntry> spareLog_;
    bool startedEmitted_ = false;
    int tick_ = 0;
    /// The pause's reason as last emitted, and whether the frame of the engine's hold was shown.
    QString shownPauseReason_;
    bool holdShown_ = false;
};

/// Registers the stream's types for queued connections (the constructor calls it).
void registerRunMetaTypes();

} // namespace fog

Q_DECLARE_METATYPE(fog::RunInfo)
Q_DECLARE_METATYPE(fog::RunSummary)
Q_DECLARE_METATYPE(fog::ActivityFrame)
Q_DECLARE_METATYPE(std::vector<fog::AggregationRecord>)
Q_DECLARE_METATYPE(std::vector<fog::NodeInterval>)
Q_DECLARE_METATYPE(std::vector<fog::RunEvent>)
Q_DECLARE_METATYPE(std::vector<fog::LinkUsage>)
Q_DECLARE_METATYPE(std::vector<fog::TimedEvent>)
