#include "core/engine/event_queue.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <sstream>

namespace fog {

namespace {
constexpr std::size_t kLine = 64;
constexpr std::size_t kLead = 3; ///< keys before the heap's root in the storage
} // namespace

void EventQueue::AlignedFree::operator()(Key* p) const {
    if (bytes >= bigarray::kMinBytes)
        bigarray::release(p, bytes);
    else
        ::operator delete[](p, std::align_val_t(kLine));
}

void EventQueue::checkTime(double t) const {
    if (std::isnan(t) || t < now_) {
        std::ostringstream m;
        m.precision(17);
        m << "internal: an event was scheduled at virtual time " << t << ", before now (" << now_ << ")";
        throw EngineError(m.str());
    }
}

void EventQueue::grow(std::size_t atLeast) {
    std::size_t capacity = std::max<std::size_t>(64, 2 * capacity_);
    while (capacity < atLeast) capacity *= 2;
    // A million keys read at random: on huge pages (big_array.h, 2 MB aligned) once big.
    const std::size_t bytes = (capacity + kLead) * sizeof(Key);
    auto* raw = static_cast<Key*>(bytes >= bigarray::kMinBytes ? bigarray::allocate(bytes)
                                                               : ::operator new[](bytes, std::align_val_t(kLine)));
    std::unique_ptr<Key[], AlignedFree> fresh(raw, AlignedFree{bytes});
    if (heapSize_ > 0) std::memcpy(raw + kLead, heap_, heapSize_ * sizeof(Key));
    storage_ = std::move(fresh);
    heap_ = raw + kLead;
    capacity_ = capacity;
}

void EventQueue::heapPush(Key k) {
    if (heapSize_ == capacity_) grow(heapSize_ + 1);
    std::size_t i = heapSize_++;
    while (i > 0) {
        const std::size_t parent = (i - 1) / 4;
        if (!before(k, heap_[parent])) break;
        heap_[i] = heap_[parent];
        i = parent;
    }
    heap_[i] = k;
}

void EventQueue::siftDown(std::size_t i, Key k) {
    const std::size_t n = heapSize_;
    for (;;) {
        const std::size_t first = 4 * i + 1;
        if (first >= n) break;
        std::size_t best = first;
        const std::size_t end = std::min(first + 4, n);
        for (std::size_t c = first + 1; c < end; ++c)
            if (before(heap_[c], heap_[best])) best = c;
        if (!before(heap_[best], k)) break;
        heap_[i] = heap_[best];
        i = best;
    }
    heap_[i] = k;
}

void EventQueue::popTop() {
    const Key last = heap_[--heapSize_];
    if (heapSize_ > 0) siftDown(0, last);
}

void EventQueue::push(Key k) {
    ++size_;
    const double x = width_ > 0 ? (k.t - base_) / width_ : 0.0;
    if (width_ == 0 || x < static_cast<double>(cur_ + 1)) {
        heapPush(k);
        if (heapSize_ > rebuildAt_) rebuild();
        return;
    }
    if (x < static_cast<double>(buckets_.size()))
        buckets_[static_cast<std::size_t>(x)].push_back(k);
    else
        overflow_.push_back(k);
    if (heapSize_ == 0) refill(); // the next key must be at the heap's top (nextTime)
}

void EventQueue::refill() {
    for (++cur_; cur_ < buckets_.size(); ++cur_) {
        std::vector<Key>& b = buckets_[cur_];
        if (b.empty()) continue;
        if (capacity_ < b.size()) grow(b.size());
        std::memcpy(heap_, b.data(), b.size() * sizeof(Key));
        heapSize_ = b.size();
        for (std::size_t i = (heapSize_ + 2) / 4; i-- > 0;)
            siftDown(i, heap_[i]);
        // A bucket that once held many keys gives its memory back.
        if (b.capacity() > 4096)
            std::vector<Key>().swap(b);
        else
            b.clear();
        return;
    }
    rebuild(); // past the last bucket: lay them out over the overflow
}

void EventQueue::rebuild() {
    constexpr std::size_t kMinCalendar = 4096; ///< fewer pending keys: the heap alone
    constexpr std::size_t kPerBucket = 256;    ///< keys a bucket holds near the front
    std::vector<Key> all;
    all.reserve(size_);
    all.insert(all.end(), heap_, heap_ + heapSize_);
    for (std::size_t b = cur_ + 1; b < buckets_.size(); ++b) {
        all.insert(all.end(), buckets_[b].begin(), buckets_[b].end());
        buckets_[b].clear();
    }
    all.insert(all.end(), overflow_.begin(), overflow_.end());
    overflow_.clear();
    heapSize_ = 0;
    cur_ = 0;
    width_ = 0.0;
    // The width: the span of the nearest sixteenth of the keys (at least 1,024) over the
    // buckets they would fill at kPerBucket each. The buckets then reach at least that far,
    // so that the next rebuild is a sixteenth of the keys away or more.
    if (all.size() >= kMinCalendar) {
        std::vector<double> times;
        times.reserve(all.size());
        for (const Key& k : all)
            if (std::isfinite(k.t)) times.push_back(k.t);
        if (times.size() >= kMinCalendar) {
            const std::size_t k = std::max<std::size_t>(1024, times.size() / 16);
            std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k), times.end());
            const double far = times[k];
            const double near = *std::min_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(k));
            const double w = (far - near) * static_cast<double>(kPerBucket) / static_cast<double>(k);
            if (w > 0 && std::isfinite(w)) {
                width_ = w;
                base_ = near;
                buckets_.resize(std::clamp<std::size_t>(all.size() / kPerBucket, 256, 65536));
            }
        }
    }
    if (width_ == 0) buckets_.clear();
    const std::size_t total = size_;
    for (const Key& k : all) {
        const double x = width_ > 0 ? (k.t - base_) / width_ : 0.0;
        if (width_ == 0 || x < 1.0)
            heapPush(k);
        else if (x < static_cast<double>(buckets_.size()))
            buckets_[static_cast<std::size_t>(x)].push_back(k);
        else
            overflow_.push_back(k);
    }
    // The next rebuild when the heap holds a quarter of the keys, or twice what it holds now
    // (keys of one time cannot be split: doubling keeps their cost linear).
    rebuildAt_ = std::max({kMinCalendar, total / 4, 2 * heapSize_});
    if (heapSize_ == 0 && total > 0) refill();
}

EventQueue::Id EventQueue::schedule(double t, Callback fn, std::uint32_t hint) {
    checkTime(t);
    if (!fn) throw EngineError("internal: an event without a callback");
    if (nextSeq_ >= nextStopSeq_) throw EngineError("internal: more than 10^12 events scheduled in one run");
    std::uint64_t slot;
    if (!freeSlots_.empty()) {
        slot = freeSlots_.back();
        freeSlots_.pop_back();
        callbacks_[slot] = std::move(fn);
        hints_[slot] = hint;
    } else {
        if (callbacks_.size() >= kStop)
            throw EngineError("internal: more than 16 million events pending at once (the event queue's limit)");
        slot = callbacks_.size();
        callbacks_.push_back(std::move(fn));
        hints_.push_back(hint);
        slotOrder_.push_back(kFree);
    }
    const std::uint64_t order = nextSeq_++ << kSlotBits | slot;
    slotOrder_[slot] = order;
    push({t, order});
    ++pendingCallbacks_;
    return order + 1; // order 0 is a valid event: ids start at 1
}

void EventQueue::cancel(Id id) {
    if (id == 0) return;
    const std::uint64_t order = id - 1;
    const std::uint64_t slot = order & kStop;
    if (slot >= slotOrder_.size() || slotOrder_[slot] != order) return; // popped (or never scheduled)
    // What it holds (a policy's state) goes now and the slot is free for the next event; the
    // key stays in place and pops later as a cancelled event (its slot names another order).
    callbacks_[slot] = nullptr;
    slotOrder_[slot] = kFree;
    freeSlots_.push_back(static_cast<std::uint32_t>(slot));
    --pendingCallbacks_;
    ++cancelled_;
}

void EventQueue::scheduleStop(double t, std::string reason) {
    checkTime(t);
    if (nextStopSeq_ <= nextSeq_) throw EngineError("internal: more than 10^12 events scheduled in one run");
    stopReasons_[nextStopSeq_] = std::move(reason);
    push({t, nextStopSeq_-- << kSlotBits | kStop});
}

EventQueue::Popped EventQueue::pop() {
    const Key k = heap_[0];
    popTop();
    --size_;
    if (heapSize_ == 0 && size_ > 0) refill();
    // Memory-level parallelism at a million pending events (their callbacks and their
    // nodes' state do not fit in a cache): the next event (most likely the new top) gets its
    // hint's state asked for, the one after it (the least of the top's children) its
    // callback and hint, so that their lines load while this event runs.
    if (heapSize_ > 0) {
        const std::uint64_t next = heap_[0].order & kStop;
        if (next != kStop) {
            __builtin_prefetch(&callbacks_[next]);
            if (prefetcher_ && hints_[next] != kNoHint) prefetcher_(prefetchContext_, hints_[next]);
        }
        if (heapSize_ > 1) {
            std::size_t best = 1;
            const std::size_t end = std::min<std::size_t>(5, heapSize_);
            for (std::size_t c = 2; c < end; ++c)
                if (before(heap_[c], heap_[best])) best = c;
            const std::uint64_t after = heap_[best].order & kStop;
            if (after != kStop) {
                __builtin_prefetch(&callbacks_[after]);
                __builtin_prefetch(&hints_[after]);
            }
        }
    }
    now_ = k.t;
    const std::uint64_t slot = k.order & kStop;
    if (slot != kStop) {
        if (slotOrder_[slot] != k.order) { // cancelled: its slot went back at cancel()
            --cancelled_;
            return {k.t, {}, {}, true};
        }
        --pendingCallbacks_;
        Callback fn = std::move(callbacks_[slot]);
        callbacks_[slot] = nullptr;
        slotOrder_[slot] = kFree;
        freeSlots_.push_back(static_cast<std::uint32_t>(slot));
        return {k.t, std::move(fn), {}, false};
    }
    auto it = stopReasons_.find(k.order >> kSlotBits);
    std::string reason = it == stopReasons_.end() ? std::string() : std::move(it->second);
    if (it != stopReasons_.end()) stopReasons_.erase(it);
    return {k.t, {}, std::move(reason), false};
}

void EventQueue::advanceTo(double t) {
    checkTime(t);
    now_ = t;
}

} // namespace fog
