#pragma once
// Inputs of the ToN 2022 planner taken from a scenario: the sync policy's round barrier (its
// descriptor), the mean worker speed, communication, availability and price, and the
// ton-plan parameters.

#include "core/policies/policy_context.h"
#include "core/policies/policy_params.h"
#include "core/planning/ton_planner.h"

namespace fog {

/// Throws EngineError for a topology or sync policy the planner's model does not cover.
TonPlannerInputs tonPlannerInputs(const PolicyParams& params, const SystemView& e);

} // namespace fog
