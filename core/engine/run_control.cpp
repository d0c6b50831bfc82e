#include "core/engine/run_control.h"

#include <algorithm>
#include <chrono>

namespace fog {

void RunControl::pause() {
    std::lock_guard lock(mutex_);
    paused_ = true;
    stepping_ = false;
}

void RunControl::resume() {
    {
        std::lock_guard lock(mutex_);
        paused_ = false;
        stepping_ = false;
    }
    cv_.notify_all();
}

void RunControl::stepRound() {
    {
        std::lock_guard lock(mutex_);
        paused_ = false;
        stepping_ = true;
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
        stepping_ = false;
    }
    cv_.notify_all();
}

void RunControl::clearCondition() {
    std::lock_guard lock(mutex_);
    condition_.reset();
    armed_ = false;
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

void RunControl::waitWhilePaused(const std::atomic<bool>* externalCancel) {
    // The external flag may be set without a notification (a signal handler, a GUI that
    // does not wait for this lock): look at it every 10 ms.
    std::unique_lock lock(mutex_);
    while (paused_ && !checkCancel(externalCancel)) cv_.wait_for(lock, std::chrono::milliseconds(10));
}

bool RunControl::checkCancel(const std::atomic<bool>* externalCancel) {
    if (externalCancel && externalCancel->load()) cancelled_ = true;
    return cancelled_.load();
}

void RunControl::roundCompleted() {
    std::lock_guard lock(mutex_);
    if (stepping_) {
        stepping_ = false;
        paused_ = true;
    }
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
    condition_.reset();
    armed_ = false;
    if (onCondition_ == OnCondition::Pause) {
        paused_ = true;
        stepping_ = false;
    }
    return onCondition_;
}

} // namespace fog
