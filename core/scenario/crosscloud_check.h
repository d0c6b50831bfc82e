#pragma once
// What the validator says about the cross-cloud modes (docs/policies.md, "Cross-cloud
// modes"): async-ga with several root aggregators (one ASGD-GA server per region) and
// asynchronous model averaging. The regional servers exchange models over the WAN, so every
// two of them need a route: servers in separate trees joined by no topology.links entry
// would exchange instantly and for free, which no WAN does.

#include "core/scenario/scenario_io.h"

#include <vector>

namespace fog {

/// Appends the problems of a cross-cloud scenario to `out` (nothing for any other).
void addCrossCloudProblems(const Scenario& s, std::vector<Diagnostic>& out);

} // namespace fog
