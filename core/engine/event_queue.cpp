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

void EventQueue::AlignedFree::operator()(Key* p) const { ::operator delete[](p, std::align_val_t(kLine)); }

void EventQueue::checkTime(double t) const {
    if (std::isnan(t) || t < now_) {
        std::ostringstream m;
        m.precision(17);
        m << "internal: an event was scheduled at virtual time " << t << ", before now (" << now_ << ")";
        throw EngineError(m.str());
    }
}

void EventQueue::grow() {
    const std::size_t capacity = std::max<std::size_t>(64, 2 * capacity_);
    auto* raw = static_cast<Key*>(::operator new[]((capacity + kLead) * sizeof(Key), std::align_val_t(kLine)));
    std::unique_ptr<Key[], AlignedFree> fresh(raw);
    if (size_ > 0) std::memcpy(raw + kLead, heap_, size_ * sizeof(Key));
    storage_ = std::move(fresh);
    heap_ = raw + kLead;
    capacity_ = capacity;
}

void EventQueue::push(Key k) {
    if (size_ == capacity_) grow();
    std::size_t i = size_++;
    while (i > 0) {
        const std::size_t parent = (i - 1) / 4;
        if (!before(k, heap_[parent])) break;
        heap_[i] = heap_[parent];
        i = parent;
    }
    heap_[i] = k;
}

void EventQueue::popTop() {
    const Key last = heap_[--size_];
    const std::size_t n = size_;
    if (n == 0) return;
    std::size_t i = 0;
    for (;;) {
        const std::size_t first = 4 * i + 1;
        if (first >= n) break;
        std::size_t best = first;
        const std::size_t end = std::min(first + 4, n);
        for (std::size_t c = first + 1; c < end; ++c)
            if (before(heap_[c], heap_[best])) best = c;
        if (!before(heap_[best], last)) break;
        heap_[i] = heap_[best];
        i = best;
    }
    heap_[i] = last;
}

void EventQueue::schedule(double t, Callback fn) {
    checkTime(t);
    if (!fn) throw EngineError("internal: an event without a callback");
    if (nextSeq_ >= nextStopSeq_) throw EngineError("internal: more than 10^12 events scheduled in one run");
    std::uint64_t slot;
    if (!freeSlots_.empty()) {
        slot = freeSlots_.back();
        freeSlots_.pop_back();
        callbacks_[slot] = std::move(fn);
    } else {
        if (callbacks_.size() >= kStop)
            throw EngineError("internal: more than 16 million events pending at once (the event queue's limit)");
        slot = callbacks_.size();
        callbacks_.push_back(std::move(fn));
    }
    push({t, nextSeq_++ << kSlotBits | slot});
    ++pendingCallbacks_;
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
    now_ = k.t;
    const std::uint64_t slot = k.order & kStop;
    if (slot != kStop) {
        --pendingCallbacks_;
        Callback fn = std::move(callbacks_[slot]);
        callbacks_[slot] = nullptr;
        freeSlots_.push_back(static_cast<std::uint32_t>(slot));
        return {k.t, std::move(fn), {}};
    }
    auto it = stopReasons_.find(k.order >> kSlotBits);
    std::string reason = it == stopReasons_.end() ? std::string() : std::move(it->second);
    if (it != stopReasons_.end()) stopReasons_.erase(it);
    return {k.t, {}, std::move(reason)};
}

void EventQueue::advanceTo(double t) {
    checkTime(t);
    now_ = t;
}

} // namespace fog
