#include "core/engine/event_queue.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace fog {

void EventQueue::checkTime(double t) const {
    if (std::isnan(t) || t < now_) {
        std::ostringstream m;
        m.precision(17);
        m << "internal: an event was scheduled at virtual time " << t << ", before now (" << now_ << ")";
        throw EngineError(m.str());
    }
}

void EventQueue::push(Key k) {
    std::size_t i = heap_.size();
    heap_.push_back(k);
    while (i > 0) {
        const std::size_t parent = (i - 1) / 4;
        if (!before(k, heap_[parent])) break;
        heap_[i] = heap_[parent];
        i = parent;
    }
    heap_[i] = k;
}

void EventQueue::popTop() {
    const Key last = heap_.back();
    heap_.pop_back();
    const std::size_t n = heap_.size();
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
    std::uint32_t slot;
    if (!freeSlots_.empty()) {
        slot = freeSlots_.back();
        freeSlots_.pop_back();
        callbacks_[slot] = std::move(fn);
    } else {
        if (callbacks_.size() >= kStop) throw EngineError("internal: more than 4 billion events pending");
        slot = static_cast<std::uint32_t>(callbacks_.size());
        callbacks_.push_back(std::move(fn));
    }
    push({t, nextSeq_++, slot});
    ++pendingCallbacks_;
}

void EventQueue::scheduleStop(double t, std::string reason) {
    checkTime(t);
    stopReasons_[nextStopSeq_] = std::move(reason);
    push({t, nextStopSeq_--, kStop});
}

EventQueue::Popped EventQueue::pop() {
    const Key k = heap_.front();
    popTop();
    now_ = k.t;
    if (k.slot != kStop) {
        --pendingCallbacks_;
        Callback fn = std::move(callbacks_[k.slot]);
        callbacks_[k.slot] = nullptr;
        freeSlots_.push_back(k.slot);
        return {k.t, std::move(fn), {}};
    }
    auto it = stopReasons_.find(k.seq);
    std::string reason = it == stopReasons_.end() ? std::string() : std::move(it->second);
    if (it != stopReasons_.end()) stopReasons_.erase(it);
    return {k.t, {}, std::move(reason)};
}

void EventQueue::advanceTo(double t) {
    checkTime(t);
    now_ = t;
}

} // namespace fog
