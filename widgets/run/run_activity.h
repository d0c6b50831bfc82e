#pragma once
// What the topology canvas shows of a running emulation: each node's state and the
// messages in flight, at one virtual instant. The run controller produces frames; the
// canvas only draws them. Node indices are those of the expanded topology (RunInfo::nodes).

#include "core/system/metrics.h"

#include <vector>

namespace fog {

struct MessageInFlight {
    int from = -1;
    int to = -1;
    bool modelDown = true; ///< true: model going down to a trainer; false: update going up
    double progress = 0.0; ///< 0 at departure, 1 at arrival
};

struct ActivityFrame {
    double virtualTime = 0.0;
    std::vector<NodeState> states; ///< one per node of RunInfo::nodes
    std::vector<MessageInFlight> messages;
};

} // namespace fog
