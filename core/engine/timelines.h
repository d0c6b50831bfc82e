#pragma once
// Node timelines: each node's state (idle, receiving, computing, sending, offline) as closed
// intervals, handed to the observer in batches. A job's whole timeline is known when it is
// dispatched; its intervals are written when it ends (delivered, lost or cancelled), cut at
// the instant it ended. One byte and one double a node.
//
// Threads: engine thread only.

#include "core/system/metrics.h"

#include <cstdint>
#include <vector>

namespace fog {

class Timelines {
public:
    explicit Timelines(int nodes);

    NodeState state(int n) const { return state_[n]; }
    /// Closes the node's current interval at `t` and starts state `s` there.
    void setState(int n, NodeState s, double t);
    /// Starts state `s` at `t` without writing the interval before (a job's intervals were
    /// written by jobIntervals).
    void restart(int n, NodeState s, double t) {
        state_[n] = s;
        since_[n] = t;
    }
    /// Writes a job's receiving, computing and sending intervals, cut at `until`.
    void jobIntervals(int trainer, double start, double received, double computed, double arrive, double until);
    /// Hands the intervals written so far to `observer`: at once when `force`, else in
    /// batches of 256.
    void flush(RunObserver& observer, bool force);

private:
    std::vector<NodeState> state_;
    std::vector<double> since_;
    std::vector<NodeInterval> pending_;
};

} // namespace fog
