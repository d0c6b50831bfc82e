#pragma once
// The engine's one exception type, EngineError (a scenario it cannot run or a broken
// invariant, with a message for the user), is declared with the policy context, which
// policies throw it from too.

#include "core/policies/policy_context.h"
