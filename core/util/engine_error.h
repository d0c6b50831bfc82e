#pragma once
// The engine's one exception type: a run that cannot start or go on (a scenario it cannot
// run, a policy refusing the tree, a planner without a solution, a broken invariant), with
// a message for the user. At the bottom of core/ so that the event queue, the engine and the
// policies throw the same type without one including the other.

#include <stdexcept>

namespace fog {

struct EngineError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace fog
