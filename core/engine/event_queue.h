#pragma once
// The engine's future: callbacks keyed by (virtual time, sequence number), so that equal
// times break the same way on every run (in scheduling order). A stop is an event too: it
// pops after every other event at its time.
//
// Threads: engine thread only. The queue has one owner, the engine's run loop; other
// threads reach a run through RunControl, never through the queue.

#include "core/engine/engine_error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace fog {

class EventQueue {
public:
    using Callback = std::function<void()>;

    /// The time of the last popped event (0 before the first).
    double now() const { return now_; }

    /// Calls `fn` at virtual time `t`. Throws EngineError for a time before now() or NaN.
    void schedule(double t, Callback fn);
    /// Stops the run at `t` for `reason`, after every other event at `t`. Throws EngineError
    /// like schedule().
    void scheduleStop(double t, std::string reason);

    /// No event is left but stops: nothing more can happen.
    bool idle() const { return pendingCallbacks_ == 0; }
    bool empty() const { return heap_.empty(); }
    /// Time of the next event (callback or stop); the queue must not be empty.
    double nextTime() const { return heap_.front().t; }

    struct Popped {
        double t = 0.0;
        Callback fn;        ///< empty for a stop
        std::string reason; ///< a stop's reason
        bool isStop() const { return !fn; }
    };
    /// Removes the next event and moves now() to its time.
    Popped pop();
    /// Moves now() forward without an event (a stop that ends the run between events).
    void advanceTo(double t);

    std::size_t size() const { return heap_.size(); }

private:
    /// The heap holds small keys; the callbacks stay put in a slab (a sift moves 24 bytes,
    /// not a std::function). Stops have no slot: their reason is in stopReasons_.
    static constexpr std::uint32_t kStop = UINT32_MAX;
    struct Key {
        double t;
        std::uint64_t seq;
        std::uint32_t slot; ///< into callbacks_; kStop for a stop
    };
    /// Earliest (t, seq) first: a strict total order (seq is unique), so the events pop in
    /// the same order whatever the heap's shape.
    static bool before(const Key& a, const Key& b) { return a.t != b.t ? a.t < b.t : a.seq < b.seq; }
    void push(Key k);
    void popTop();
    void checkTime(double t) const;

    /// A 4-ary min-heap: half the depth of a binary one, its four children in 96 bytes.
    std::vector<Key> heap_;
    std::vector<Callback> callbacks_;
    std::vector<std::uint32_t> freeSlots_;
    std::map<std::uint64_t, std::string> stopReasons_;
    std::uint64_t nextSeq_ = 0;
    /// Stops take sequence numbers from the top down, after every callback's.
    std::uint64_t nextStopSeq_ = UINT64_MAX;
    std::size_t pendingCallbacks_ = 0;
    double now_ = 0.0;
};

} // namespace fog
