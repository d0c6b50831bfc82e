#pragma once
// Inputs of the ToN 2022 planner taken from a scenario: the sync policy's kind, the mean
// worker speed, communication, availability and price, and the ton-plan parameters.

#include "core/engine/engine.h"
#include "core/planning/ton_planner.h"

namespace fog {

/// Throws EngineError for a topology or sync policy the planner's model does not cover.
TonPlannerInputs tonPlannerInputs(const PolicySpec& spec, const Engine& e);

} // namespace fog
