#include "core/engine/run_control.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace fog {

namespace {

/// "12.5", "3.25", "1200": virtual seconds as the status line shows them.
std::string seconds(double t) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", t);
    return buf;
}

} // namespace

void RunControl::pauseFor(PauseCause cause) {
    paused_ = true;
    step_ = Step::None;
    eventStep_ = false;
    cause_ = cause;
    pauseRound_ = rounds_.load();
    pauseTime_ = clock_.load();
}

void RunControl::pause() {
    std::lock_guard lock(mutex_);
    // A pause asked for while already paused keeps the first reason (a step that ended, a
    // condition that held): that is why it stands still.
    if (paused_) return;
    pauseFor(PauseCause::User);
}

void RunControl::resume() {
    {
        std::lock_guard lock(mutex_);
        paused_ = false;
        step_ = Step::None;
        eventStep_ = false;
        cause_ = PauseCause::None;
    }
    cv_.notify_all();
}

void RunControl::stepRound() {
    {
        std::lock_guard lock(mutex_);
        paused_ = false;
        step_ = Step::Round;
        eventStep_ = false;
        cause_ = PauseCause::None;
    }
    cv_.notify_all();
}

void RunControl::stepEvent() {
    {
        std::lock_guard lock(mutex_);
        paused_ = false;
        step_ = Step::Event;
        eventStep_ = true;
        cause_ = PauseCause::None;
    }
    cv_.notify_all();
}

void RunControl::cancel() {
    cancelled_ = true;
    cv_.notify_all();
}

bool RunControl::isPaused() const {
    std::lock_guard lock(mutex_);
    return paused_;
}

RunControl::PauseReason RunControl::pauseReason() const {
    std::lock_guard lock(mutex_);
    PauseReason r;
    if (!paused_) return r;
    r.cause = cause_;
    r.round = pauseRound_;
    r.time = pauseTime_;
    const std::string at = "t = " + seconds(pauseTime_) + " s";
    switch (cause_) {
    case PauseCause::None: break;
    case PauseCause::User:
        r.text = pauseRound_ == 0 && pauseTime_ == 0.0 ? "paused by you before the first event"
                                                       : "paused by you at round " + std::to_string(pauseRound_) +
                                                             " (" + at + ")";
        break;
    case PauseCause::StepRound:
        r.text = "paused after round " + std::to_string(pauseRound_) + " (" + at + ")";
        break;
    case PauseCause::StepEvent:
        r.text = "paused after one event at " + at + " (round " + std::to_string(pauseRound_) + ")";
        break;
    case PauseCause::Condition: r.text = conditionText_; break;
    }
    return r;
}

void RunControl::setPlaybackSpeed(double virtualSecondsPerWallSecond) {
    speed_ = std::max(0.0, virtualSecondsPerWallSecond);
}

void RunControl::runUntil(const Condition& condition, OnCondition what) {
    {
        std::lock_guard lock(mutex_);
        condition_ = condition;
        onCondition_ = what;
        armed_ = true;
        reached_.clear();
        paused_ = false;
        step_ = Step::None;
        eventStep_ = false;
        cause_ = PauseCause::None;
    }
    cv_.notify_all();
}

std::optional<Condition> RunControl::condition() const {
    std::lock_guard lock(mutex_);
    return condition_;
}

std::string RunControl::takeReached() {
    std::lock_guard lock(mutex_);
    std::string s;
    s.swap(reached_);
    return s;
}

void RunControl::intervene(TimedEvent e) {
    {
        std::lock_guard lock(mutex_);
        interventions_.push_back(std::move(e));
        hasInterventions_ = true;
    }
    cv_.notify_all();
}

std::vector<TimedEvent> RunControl::takeInterventions() {
    std::vector<TimedEvent> out;
    if (!hasInterventions_.load()) return out;
    std::lock_guard lock(mutex_);
    out.swap(interventions_);
    hasInterventions_ = false;
    return out;
}

void RunControl::waitWhilePaused(const std::atomic<bool>* externalCancel) {
    // Not paused: nothing to wait for (a pause asked for meanwhile is seen at the next
    // event, as it would be had it come a moment later).
    if (!paused_.load()) {
        if (holding_.load()) holding_ = false;
        return;
    }
    // The external flag may be set without a notification (a signal handler, a GUI that
    // does not wait for this lock): look at it every 10 ms.
    std::unique_lock lock(mutex_);
    // A pause of the user's stands at the instant the engine holds, which at teaching speeds
    // is after the event it was pacing towards (the clock had not reached it when Pause was
    // pressed): the reason names that instant, where an intervention is applied.
    if (paused_ && cause_ == PauseCause::User && !holding_.load()) {
        pauseRound_ = rounds_.load();
        pauseTime_ = clock_.load();
    }
    while (paused_ && !hasInterventions_.load() && !snapshotRequested_.load() && !checkCancel(externalCancel)) {
        holding_ = true;
        cv_.wait_for(lock, std::chrono::milliseconds(10));
    }
    holding_ = false;
}

void RunControl::requestSnapshot() {
    snapshotRequested_ = true;
    cv_.notify_all();
}

bool RunControl::checkCancel(const std::atomic<bool>* externalCancel) {
    if (externalCancel && externalCancel->load()) cancelled_ = true;
    return cancelled_.load();
}

void RunControl::roundCompleted() {
    std::lock_guard lock(mutex_);
    ++rounds_;
    if (step_ == Step::Round) pauseFor(PauseCause::StepRound);
}

void RunControl::eventHandled() {
    if (!eventStep_.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(mutex_);
    if (step_ == Step::Event) pauseFor(PauseCause::StepEvent);
}

std::optional<Condition> RunControl::armedCondition() const {
    if (!armed_.load()) return std::nullopt;
    std::lock_guard lock(mutex_);
    return condition_;
}

std::optional<RunControl::OnCondition> RunControl::conditionHeld(const Condition& c, const RunProgress& p) {
    std::lock_guard lock(mutex_);
    if (!condition_ || !(*condition_ == c)) return std::nullopt;
    reached_ = c.reachedText(p);
    conditionText_ = reached_;
    condition_.reset();
    armed_ = false;
    if (onCondition_ == OnCondition::Pause) {
        pauseFor(PauseCause::Condition);
        pauseTime_ = p.time;
    }
    return onCondition_;
}

} // namespace fog
