#pragma once
// The engine's future: callbacks keyed by (virtual time, sequence number), so that equal
// times break the same way on every run (in scheduling order). A stop is an event too: it
// pops after every other event at its time.
//
// A million pending events (one availability change per device) must stay cheap: the heap
// holds 16-byte keys, four children to a cache line, and the callbacks stay put in a slab.
//
// Threads: engine thread only. The queue has one owner, the engine's run loop; other
// threads reach a run through RunControl, never through the queue.

#include "core/engine/engine_error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
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
    bool empty() const { return size_ == 0; }
    /// Time of the next event (callback or stop); the queue must not be empty.
    double nextTime() const { return heap_[0].t; }

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

    std::size_t size() const { return size_; }

private:
    /// A key's order word is the sequence number (40 bits) above the callback's slot (24
    /// bits): comparing (t, order) is comparing (t, seq). Stops have no slot (kStop): their
    /// reason is in stopReasons_.
    static constexpr int kSlotBits = 24;
    static constexpr std::uint64_t kStop = (std::uint64_t(1) << kSlotBits) - 1;
    static constexpr std::uint64_t kMaxSeq = (std::uint64_t(1) << (64 - kSlotBits)) - 1;
    struct Key {
        double t;
        std::uint64_t order; ///< seq << kSlotBits | slot
    };
    /// Earliest (t, seq) first: a strict total order (seq is unique), so the events pop in
    /// the same order whatever the heap's shape.
    static bool before(const Key& a, const Key& b) { return a.t != b.t ? a.t < b.t : a.order < b.order; }
    void push(Key k);
    void popTop();
    void grow();
    void checkTime(double t) const;

    struct AlignedFree {
        void operator()(Key* p) const;
    };
    /// A 4-ary min-heap: half the depth of a binary one. The storage is 64-byte aligned and
    /// the heap starts 3 keys into it, so node i's children 4i + 1 .. 4i + 4 share a line.
    std::unique_ptr<Key[], AlignedFree> storage_;
    Key* heap_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0;
    std::vector<Callback> callbacks_;
    std::vector<std::uint32_t> freeSlots_;
    std::map<std::uint64_t, std::string> stopReasons_;
    std::uint64_t nextSeq_ = 0;
    /// Stops take sequence numbers from the top down, after every callback's.
    std::uint64_t nextStopSeq_ = kMaxSeq;
    std::size_t pendingCallbacks_ = 0;
    double now_ = 0.0;
};

} // namespace fog
