#pragma once
// A front end's hold on a run: pause, resume, step one round or one event, stop, playback
// speed and "run until / pause when <condition>", and why the run is paused. The studio and the CLI create one, hand it to the
// engine through EngineOptions::control (before or after the engine exists: a pause or step
// asked for while the engine is still being built applies when it starts) and keep calling
// it while the run goes. Policies never see it.
//
// Threads: every public method above "Engine side" may be called from any thread at any
// time; none waits for the engine (a mutex guards the state for a few instructions; the
// cancel flag and the clock are atomics). The "Engine side" methods are for the engine's
// thread only.

#include "core/engine/condition.h"
#include "core/spec/events.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fog {

class RunControl {
public:
    /// What a condition does when it holds.
    enum class OnCondition {
        Pause, ///< the studio's "Run until": the run pauses there (and can be resumed)
        Stop,  ///< the CLI's --until: the run ends there as finished, the reason says why
    };

    void pause();
    /// Runs on (ends a pause or a step; a run-until condition stays armed).
    void resume();
    /// Runs until the next global aggregation, then pauses.
    void stepRound();
    /// Runs until the next event of the queue has been handled (a dispatch, an arrival, a
    /// node going offline, ...), then pauses. At teaching speeds the clock first moves on
    /// to that event's time.
    void stepEvent();
    /// Ends the run as cancelled (checked between events and while paused).
    void cancel();
    bool cancelRequested() const { return cancelled_.load(); }
    /// The flag cancel() sets, for work that polls it on other threads.
    const std::atomic<bool>& cancelFlag() const { return cancelled_; }
    /// Paused now, or about to pause (a step that ended, a condition that held).
    bool isPaused() const;
    /// The engine stands still in a pause (waitWhilePaused): the clock is the instant an
    /// intervention sent now is applied at.
    bool holding() const { return holding_.load(); }

    /// Why the run is paused, or is about to pause.
    enum class PauseCause {
        None,      ///< not paused
        User,      ///< pause()
        StepRound, ///< a stepRound() ended at a global aggregation
        StepEvent, ///< a stepEvent() ended after one event
        Condition, ///< a runUntil() condition held (OnCondition::Pause)
    };
    struct PauseReason {
        PauseCause cause = PauseCause::None;
        int round = 0;     ///< global rounds completed when it paused
        double time = 0.0; ///< the virtual instant it paused at
        /// For the user: "paused after round 7 (t = 12.5 s)", "accuracy 78.4% >= 78% at
        /// round 7", "paused after one event at t = 3.25 s (round 2)", "paused by you at
        /// round 3 (t = 4 s)"; empty when not paused.
        std::string text;
    };
    PauseReason pauseReason() const;
    /// Global aggregations the engine has reported so far.
    int roundsCompleted() const { return rounds_.load(); }

    /// Virtual seconds per wall second (0 = as fast as possible); applies at once.
    void setPlaybackSpeed(double virtualSecondsPerWallSecond);
    double playbackSpeed() const { return speed_.load(); }

    /// Arms `condition` (replacing any other) and runs on: once it holds the run pauses or
    /// stops; the condition is then used up.
    void runUntil(const Condition& condition, OnCondition what = OnCondition::Pause);
    std::optional<Condition> condition() const;
    /// What the last condition that held saw ("accuracy 81.2% >= 80% at round 7"), once:
    /// empty when none held since the last call.
    std::string takeReached();

    /// A live intervention: `e` (its trigger is ignored) is queued and the engine applies it
    /// between two events at its current virtual instant, as an `at` event there (also while
    /// paused: the change shows at once and the run stays paused). What was applied, with
    /// the instant and ordering key a re-run needs, reaches RunObserver::onIntervention.
    /// Events naming an unknown target are reported as a RunEvent and not applied.
    void intervene(TimedEvent e);

    /// The virtual instant the run has reached, advancing smoothly between events at
    /// teaching speeds (for live views).
    double clock() const { return clock_.load(); }

    /// Asks for a snapshot of the run's state (RunObserver::onSnapshot, Reason::Requested;
    /// the run store keeps it): taken between two events at the engine's current instant,
    /// also while paused (the run stays paused).
    void requestSnapshot();

    // ---- Engine side (engine thread only) ----
    /// Blocks while paused; returns at once when cancelled, and when an intervention waits
    /// (the engine applies it and calls again). `externalCancel` (may be null) is
    /// a flag set elsewhere, even in a signal handler: it is looked at every 10 ms.
    void waitWhilePaused(const std::atomic<bool>* externalCancel);
    /// True once cancel() was called or `externalCancel` is set (which then counts as cancel()).
    bool checkCancel(const std::atomic<bool>* externalCancel);
    /// A global aggregation happened: a step ends there.
    void roundCompleted();
    /// One event of the queue has been handled: an event step ends there. Cheap (one
    /// atomic load) unless an event step is under way.
    void eventHandled();
    /// The armed condition's metric, if one is armed (cheap: no lock when none).
    std::optional<Condition> armedCondition() const;
    /// The armed condition `c` held at `p`: disarms it, pauses (Pause) and records what held.
    /// Returns what to do; nothing if `c` was replaced meanwhile (from another thread).
    std::optional<OnCondition> conditionHeld(const Condition& c, const RunProgress& p);
    void setClock(double t) { clock_.store(t); }
    /// Interventions queued since the last call, in the order intervene() was called.
    /// Cheap (one atomic load) when there are none.
    std::vector<TimedEvent> takeInterventions();
    /// True once per requestSnapshot() (cheap: one atomic exchange). waitWhilePaused returns
    /// while a request is pending, so that a paused run serves it.
    bool takeSnapshotRequest() { return snapshotRequested_.exchange(false); }

private:
    enum class Step { None, Round, Event };
    /// Sets the pause and its cause (mutex held).
    void pauseFor(PauseCause cause);

    mutable std::mutex mutex_;
    std::condition_variable cv_;
    /// Written with the mutex held; read without it by waitWhilePaused's fast path (one load
    /// an event when the run is not paused).
    std::atomic<bool> paused_{false};
    Step step_ = Step::None;
    std::atomic<bool> eventStep_{false}; ///< step_ == Step::Event, read without the lock
    PauseCause cause_ = PauseCause::None;
    int pauseRound_ = 0;
    double pauseTime_ = 0.0;
    std::atomic<int> rounds_{0};
    std::optional<Condition> condition_;
    OnCondition onCondition_ = OnCondition::Pause;
    std::atomic<bool> armed_{false};
    std::string reached_;
    std::string conditionText_; ///< what the last condition that held saw (kept for pauseReason)
    std::atomic<bool> cancelled_{false};
    std::atomic<double> speed_{0.0};
    std::atomic<double> clock_{0.0};
    std::atomic<bool> holding_{false};
    std::vector<TimedEvent> interventions_;
    std::atomic<bool> hasInterventions_{false};
    std::atomic<bool> snapshotRequested_{false};
};

} // namespace fog
