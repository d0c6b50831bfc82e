#pragma once
// Wall time beside virtual time: when the run started on the wall clock, and the teaching
// speed (RunControl::playbackSpeed), at which wall time follows virtual time. Nothing here
// changes a result: it only waits, and moves the clock front ends see.
//
// Threads: engine thread only (the control it reads is thread-safe).

#include "core/engine/run_control.h"

#include <atomic>

namespace fog {

class Pacer {
public:
    /// `cancelFlag` (may be null): the run's own cancellation besides the control's.
    Pacer(RunControl& control, const std::atomic<bool>* cancelFlag) : control_(control), cancelFlag_(cancelFlag) {}

    /// The run starts now (wall clock).
    void start();
    /// Wall seconds since start().
    double wallSeconds() const;
    /// At a teaching speed, waits until wall time reaches virtual time `t` from `now`,
    /// moving the control's clock as it goes, in short sleeps so that pause, cancel and
    /// speed changes stay quick. Returns at once as fast as possible, paused or cancelled.
    void paceTo(double now, double t);

private:
    RunControl& control_;
    const std::atomic<bool>* cancelFlag_;
    double wallStart_ = 0.0;
    // Wall time follows virtual time from this anchor.
    double speed_ = 0.0, wall_ = 0.0, virtual_ = 0.0;
};

} // namespace fog
