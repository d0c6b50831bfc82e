#pragma once
// The engine's one exception type: a scenario it cannot run or a broken invariant, with a
// message for the user.

#include <stdexcept>

namespace fog {

struct EngineError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace fog
