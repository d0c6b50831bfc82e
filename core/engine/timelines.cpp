#include "core/engine/timelines.h"

#include <algorithm>

namespace fog {

Timelines::Timelines(int nodes)
    : state_(static_cast<std::size_t>(nodes), NodeState::Idle), since_(static_cast<std::size_t>(nodes), 0.0) {}

void Timelines::setState(int n, NodeState s, double t) {
    if (t > since_[n]) pending_.push_back({n, state_[n], since_[n], t});
    if (t >= since_[n]) {
        state_[n] = s;
        since_[n] = t;
    }
}

void Timelines::jobIntervals(int trainer, double start, double received, double computed, double arrive,
                             double until) {
    auto emit = [&](NodeState s, double from, double to) {
        to = std::min(to, until);
        if (to > from) pending_.push_back({trainer, s, from, to});
    };
    emit(NodeState::Receiving, start, received);
    emit(NodeState::Computing, received, computed);
    emit(NodeState::Sending, computed, arrive);
}

void Timelines::flush(RunObserver& observer, bool force) {
    if (pending_.empty() || (!force && pending_.size() < 256)) return;
    observer.onIntervals(pending_);
    pending_.clear();
}

} // namespace fog
