#pragma once
// What the validator says about a tiered tree (core/policies/tiered.h): every `aggregate:`
// map (policies known and usable per aggregator, parameters declared by one of them and in
// bounds), and every aggregator's policy against its children (one root; gradient policies
// over trainers only; selections that rank trainers over trainers only).

#include "core/scenario/scenario_io.h"

#include <vector>

namespace fog {

/// Appends the problems of a tiered scenario to `out` (nothing for one that is not tiered).
void addTierProblems(const Scenario& s, std::vector<Diagnostic>& out);

} // namespace fog
