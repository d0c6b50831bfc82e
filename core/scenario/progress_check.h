#pragma once
// Trees under which the chosen policies could never use some of the trainers, or none at
// all: a run of such a scenario would only advance its clock, or silently leave their data
// untouched (issue 10). Each sync policy declares the shape it uses (PolicyInfo::shape);
// trainers elsewhere are refused here, with the node and key that place them there. The rules are in docs/emulator.md ("Which trainers
// a policy uses").

#include "core/scenario/scenario_io.h"

#include <vector>

namespace fog {

/// Appends to `problems` what the shape rules find in `s` and returns the whole list. Does
/// nothing while `problems` already holds errors about the tree's structure or the sync
/// policy (they would only be repeated). Linear in the number of nodes and groups; groups
/// are not expanded.
std::vector<Diagnostic> addProgressProblems(const Scenario& s, std::vector<Diagnostic> problems);

} // namespace fog
