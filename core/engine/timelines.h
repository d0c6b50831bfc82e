#pragma once
// Node timelines: each node's state (idle, receiving, computing, sending, offline) as closed
// intervals, handed to the observer in batches. A job's whole timeline is known when it is
// dispatched; its intervals are written when it ends (delivered, lost or cancelled), cut at
// the instant it ended. One double and one byte a node, side by side (one cache line read
// per change at a million nodes).
//
// Threads: engine thread only.

#include "core/system/metrics.h"
#include "core/util/big_array.h"

#include <cstdint>
#include <vector>

namespace fog {

class Timelines {
public:
    explicit Timelines(int nodes);

    NodeState state(int n) const { return open_[static_cast<std::size_t>(n)].state; }
    /// Asks for node n's open state to be brought into the cache (see NodeRuntime::prefetch).
    void prefetch(int n) const { prefetchLine(open_.data() + n); }
    /// Closes the node's current interval at `t` and starts state `s` there.
    void setState(int n, NodeState s, double t);
    /// Starts state `s` at `t` without writing the interval before (a job's intervals were
    /// written by jobIntervals).
    void restart(int n, NodeState s, double t) { open_[static_cast<std::size_t>(n)] = {t, s}; }
    /// Writes a job's receiving, computing and sending intervals, cut at `until`.
    void jobIntervals(int trainer, double start, double received, double computed, double arrive, double until);
    /// Hands the intervals written so far to `observer`: at once when `force`, else in
    /// batches of 256.
    void flush(RunObserver& observer, bool force);

private:
    struct Open {
        double since = 0.0;
        NodeState state = NodeState::Idle;
    };
    std::vector<Open, BigArrayAllocator<Open>> open_; ///< each node's current state and since when (huge pages)
    std::vector<NodeInterval> pending_;
};

} // namespace fog
