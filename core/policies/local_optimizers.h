#pragma once
// The local optimisers training.optimizer names (implemented in core/model/learner.cpp, where
// LibTorch is): their descriptions for the CLI, the studio and docs/learning.md.

#include "core/model/learner.h"
#include "core/policies/policy_info.h"

#include <string>
#include <vector>

namespace fog {

/// sgd, nesterov, adam, adamw: formula, source and the training keys each one reads.
const std::vector<PolicyInfo>& localOptimizerInfos();
/// The optimiser of a name from localOptimizerInfos (sgd for anything else: the validator
/// refuses unknown names before a run starts).
LocalOptimizer localOptimizerOf(const std::string& name);

} // namespace fog
