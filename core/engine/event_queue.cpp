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

void EventQueue::schedule(double t, Callback fn) {
    checkTime(t);
    if (!fn) throw EngineError("internal: an event without a callback");
    heap_.push_back({t, nextSeq_++, std::move(fn)});
    std::push_heap(heap_.begin(), heap_.end(), later);
    ++pendingCallbacks_;
}

void EventQueue::scheduleStop(double t, std::string reason) {
    checkTime(t);
    stopReasons_[nextStopSeq_] = std::move(reason);
    heap_.push_back({t, nextStopSeq_--, {}});
    std::push_heap(heap_.begin(), heap_.end(), later);
}

EventQueue::Popped EventQueue::pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    Entry e = std::move(heap_.back());
    heap_.pop_back();
    now_ = e.t;
    if (e.fn) {
        --pendingCallbacks_;
        return {e.t, std::move(e.fn), {}};
    }
    auto it = stopReasons_.find(e.seq);
    std::string reason = it == stopReasons_.end() ? std::string() : std::move(it->second);
    if (it != stopReasons_.end()) stopReasons_.erase(it);
    return {e.t, {}, std::move(reason)};
}

void EventQueue::advanceTo(double t) {
    checkTime(t);
    now_ = t;
}

} // namespace fog
