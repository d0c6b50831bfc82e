#pragma once
// The engine's future: callbacks keyed by (virtual time, sequence number), so that equal
// times break the same way on every run (in scheduling order). A stop is an event too: it
// pops after every other event at its time.
//
// A million pending events (one availability change per device) must stay cheap: the keys
// are 16 bytes and the callbacks stay put in a slab; the keys of the near future are in a
// small 4-ary heap (four children to a cache line), the later ones in buckets of virtual
// time, unsorted until their bucket comes up (a calendar queue: a push appends, a pop sifts
// a heap of a bucket's size, not of a million keys). Every key pops in (time, sequence)
// order whatever the buckets' width: the width only decides where a key waits.
//
// Threads: engine thread only. The queue has one owner, the engine's run loop; other
// threads reach a run through RunControl, never through the queue.

#include "core/util/big_array.h"
#include "core/util/engine_error.h"

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
    /// A scheduled event's handle (never 0), for cancel().
    using Id = std::uint64_t;

    /// The time of the last popped event (0 before the first).
    double now() const { return now_; }

    /// No hint (schedule's default).
    static constexpr std::uint32_t kNoHint = 0xffffffffu;
    /// Calls `fn` at virtual time `t`. Throws EngineError for a time before now() or NaN.
    /// `hint` names what the event will touch (the engine: a node index); it goes to the
    /// prefetcher once the event is next, so that its state loads while the one before runs.
    Id schedule(double t, Callback fn, std::uint32_t hint = kNoHint);
    /// Called by pop() with the next event's hint (not kNoHint). A hint changes no result:
    /// the prefetcher may only ask for memory to be brought into the cache.
    using Prefetcher = void (*)(void* context, std::uint32_t hint);
    void setPrefetcher(Prefetcher fn, void* context) {
        prefetcher_ = fn;
        prefetchContext_ = context;
    }
    /// Cancels a pending event: its callback is dropped now and never runs, and its slot
    /// (callback, hint) is free at once for the next schedule(). Its 16-byte key stays where
    /// it is, unchanged, and still pops at its time (Popped::cancelled) as one event of the
    /// run, so that what counts events (an intervention's after_event, the safety net, a
    /// front end's event step) and what ends at the last event count the same whether a
    /// policy cancels a timer or lets it run and do nothing; no other key moves, so every
    /// remaining event keeps its (time, seq) place. An event already popped or cancelled:
    /// nothing.
    void cancel(Id id);
    /// Stops the run at `t` for `reason`, after every other event at `t`. Throws EngineError
    /// like schedule().
    void scheduleStop(double t, std::string reason);

    /// No event is left but stops (a cancelled event is one: its time is still to come).
    bool idle() const { return pendingCallbacks_ == 0 && cancelled_ == 0; }
    /// Nothing left to pop: no event, no stop, no cancelled event.
    bool empty() const { return size_ == 0; }
    /// Time of the next event (callback or stop); the queue must not be empty.
    double nextTime() const { return heap_[0].t; }

    struct Popped {
        double t = 0.0;
        Callback fn;            ///< empty for a stop and a cancelled event
        std::string reason;     ///< a stop's reason
        bool cancelled = false; ///< cancel(): nothing to call
        bool isStop() const { return !fn && !cancelled; }
    };
    /// Removes the next event and moves now() to its time.
    Popped pop();
    /// Moves now() forward without an event (a stop that ends the run between events).
    void advanceTo(double t);

    /// Events that will do something when they pop: callbacks and stops (a cancel() makes
    /// it drop at once).
    std::size_t size() const { return size_ - cancelled_; }
    /// Cancelled events still waiting for their time (a key each, no slot).
    std::size_t cancelledPending() const { return cancelled_; }
    /// Callback slots allocated so far, in use or free: what the pending events hold at
    /// most (cancelled ones hold none).
    std::size_t slots() const { return callbacks_.size(); }

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
    /// Into the heap, a bucket or the overflow, by the key's time.
    void push(Key k);
    void heapPush(Key k);
    void popTop();
    /// Places `k` at heap position i or below it (i's subtree is a heap but for i).
    void siftDown(std::size_t i, Key k);
    void grow(std::size_t atLeast);
    /// The heap ran empty: the next non-empty bucket's keys become the heap (or, past the
    /// last bucket, the buckets are laid out again over the overflow).
    void refill();
    /// Lays the buckets out again over every pending key (their width from the nearest keys'
    /// spacing), or none when few keys are pending.
    void rebuild();
    void checkTime(double t) const;

    struct AlignedFree {
        std::size_t bytes; ///< the allocation's size (big ones are on huge pages); value-initialized: 0
        void operator()(Key* p) const;
    };
    /// A 4-ary min-heap: half the depth of a binary one. The storage is 64-byte aligned and
    /// the heap starts 3 keys into it, so node i's children 4i + 1 .. 4i + 4 share a line.
    std::unique_ptr<Key[], AlignedFree> storage_;
    Key* heap_ = nullptr;
    std::size_t heapSize_ = 0, capacity_ = 0;
    std::size_t size_ = 0; ///< every key (cancelled ones too): heap, buckets and overflow
    /// Buckets: a key's position x = (t - base_) / width_ (monotone in t, so keys of equal
    /// time wait together); x < cur_ + 1: the heap; bucket floor(x) up to buckets_.size();
    /// beyond: the overflow. width_ 0: no buckets (every key in the heap).
    std::vector<std::vector<Key>> buckets_;
    std::vector<Key, BigArrayAllocator<Key>> overflow_;
    double base_ = 0.0, width_ = 0.0;
    std::size_t cur_ = 0;
    /// A heap grown past this many keys lays the buckets out again (a width gone too coarse).
    std::size_t rebuildAt_ = 4096;
    std::vector<Callback, BigArrayAllocator<Callback>> callbacks_;
    std::vector<std::uint32_t, BigArrayAllocator<std::uint32_t>> hints_; ///< per slot
    Prefetcher prefetcher_ = nullptr;
    void* prefetchContext_ = nullptr;
    /// Per slot, the order word of the event that holds it (kFree: none), so that cancel()
    /// of an event already popped leaves the slot's next event alone, and a key whose slot
    /// names another order (or none) is a cancelled event's.
    static constexpr std::uint64_t kFree = ~std::uint64_t(0);
    std::vector<std::uint64_t, BigArrayAllocator<std::uint64_t>> slotOrder_;
    std::vector<std::uint32_t> freeSlots_;
    std::map<std::uint64_t, std::string> stopReasons_;
    std::uint64_t nextSeq_ = 0;
    /// Stops take sequence numbers from the top down, after every callback's.
    std::uint64_t nextStopSeq_ = kMaxSeq;
    std::size_t pendingCallbacks_ = 0;
    std::size_t cancelled_ = 0; ///< keys of cancelled events (counted in size_)
    double now_ = 0.0;
};

} // namespace fog
