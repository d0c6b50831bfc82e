#pragma once
// A narrow tap on the emulator's training (the testbed, docs/testbed.md): the data the
// learner trains on, each job's local work as the dispatcher hands it to the pool, and each
// update as the aggregator gets it. The testbed records a prediction run through it and has
// its processes run the same local work with the same learner, so that a measured run's
// training values can be held to the prediction's bit for bit.
//
// Threads: a tap is installed per thread, and the engine calls it on its own thread
// (Engine's constructor, Dispatcher::submit and collect), so a tap sees exactly the runs of
// the thread that installed it; ScopedLocalJobTap removes it on that same thread. Nothing
// here runs on the pool's threads.

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/util/job.h"

#include <memory>

namespace fog {

class LocalJobTap {
public:
    virtual ~LocalJobTap() = default;
    /// The run's data, when it trains (the learner is made on them).
    virtual void trainingData(const std::shared_ptr<const DataBundle>& data) = 0;
    /// A job's local work, as it goes to the pool.
    virtual void submitted(const Job& job, const LocalJob& work) = 0;
    /// The job's result as its aggregator gets it (after the uplink codec), in the order the
    /// engine collects updates.
    virtual void collected(const Job& job, const LocalResult& result) = 0;
};

namespace detail {
inline LocalJobTap*& localJobTapSlot() {
    static thread_local LocalJobTap* tap = nullptr;
    return tap;
}
} // namespace detail

/// The tap installed on this thread (null: none, the usual case).
inline LocalJobTap* localJobTap() { return detail::localJobTapSlot(); }

/// Installs `tap` on this thread for its lifetime; the one before comes back after.
class ScopedLocalJobTap {
public:
    explicit ScopedLocalJobTap(LocalJobTap* tap) : previous_(detail::localJobTapSlot()) {
        detail::localJobTapSlot() = tap;
    }
    ~ScopedLocalJobTap() { detail::localJobTapSlot() = previous_; }
    ScopedLocalJobTap(const ScopedLocalJobTap&) = delete;
    ScopedLocalJobTap& operator=(const ScopedLocalJobTap&) = delete;

private:
    LocalJobTap* previous_;
};

} // namespace fog
