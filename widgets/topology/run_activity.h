#pragma once
// What the topology canvas shows of a running emulation: each node's state and the
// messages in flight, at one virtual instant. The run controller produces frames; the
// canvas only draws them. Node indices are those of the expanded topology (RunInfo::nodes).

#include "core/system/metrics.h"

#include <cstdint>
#include <vector>

namespace fog {

struct MessageInFlight {
    int from = -1;
    int to = -1;
    bool modelDown = true; ///< true: model going down to a trainer; false: update going up
    double progress = 0.0; ///< 0 at departure, 1 at arrival
    std::uint64_t id = 0;  ///< the engine's message id (0: none, or drawn from a job's plan)
    bool cut = false;      ///< cut off at `progress` (shown once; the canvas fades it out)
};

/// The latest closed span of use of one link (RunInfo::links), shown while the link is busy.
struct LinkLoad {
    int link = 0;           ///< LinkInfo::index
    double bytesPerS = 0.0; ///< sum of the rates of its flows
    int flows = 0;
    double since = 0.0;     ///< virtual time the span began
};

struct ActivityFrame {
    double virtualTime = 0.0;
    std::vector<NodeState> states; ///< one per node of RunInfo::nodes
    /// Per node: 1 for a member an `add` event brings that has not joined yet (its state
    /// reads offline; the canvas counts it as "not yet joined"). Empty: none.
    std::vector<char> notJoined;
    std::vector<MessageInFlight> messages;
    /// Links in use now (with contention only; see LiveNetwork::fill for "now").
    std::vector<LinkLoad> links;
};

} // namespace fog
