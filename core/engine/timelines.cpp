#include "core/engine/timelines.h"

#include <algorithm>

namespace fog {

Timelines::Timelines(int nodes) : open_(static_cast<std::size_t>(nodes)) {}

void Timelines::setState(int n, NodeState s, double t) {
    Open& o = open_[static_cast<std::size_t>(n)];
    if (t > o.since) pending_.push_back({n, o.state, o.since, t});
    if (t >= o.since) o = {t, s};
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
