#pragma once
// Trees of any depth with a policy per aggregator (docs/policies.md, "Per-level policies").
// A scenario is tiered when some aggregator declares `aggregate:` (NodeSpec::aggregate).
// Every aggregator then runs its own sync and selection policy with its children: trainers
// right under it, and the aggregators right under it, whose aggregated models count as
// their updates. The root's aggregations are the global rounds (level 0); an aggregator d
// aggregators below the root reports level d.

#include "core/policies/sync_policy.h"
#include "core/spec/scenario.h"

#include <memory>
#include <string>
#include <vector>

namespace fog {

/// Some node of the topology declares `aggregate:`.
bool isTiered(const TopologySpec& topology);

/// One aggregator's policies as a tiered run uses them.
struct LevelPlan {
    PolicySpec sync;      ///< name and the parameters given (defaults: the descriptor's)
    PolicySpec selection;
    int localSteps = 0;   ///< 0: 1 for gradient policies, else the training section's local work
    int rounds = 1;       ///< rounds per model received from the parent
    std::string serverOptimizer = "none"; ///< aggregate.server_optimizer, else training.server_optimizer
};

/// A problem with an `aggregate:` map: the key (relative to the node, e.g. "aggregate.k"),
/// its line and the message.
struct LevelProblem {
    std::string key;
    int line = 0;
    std::string message;
};

/// The plan of an aggregator whose entry is `entry`: its `aggregate:` over the scenario's
/// sync and selection. Problems (unknown policy, a parameter neither policy declares, or
/// both) go to `problems` when given; the plan then keeps what could be resolved.
LevelPlan resolveLevel(const Scenario& s, const NodeSpec& entry, std::vector<LevelProblem>* problems = nullptr);

/// The tiered policy of a tiered scenario. Throws EngineError for a tree it cannot run on
/// (the validator states the same reasons first: core/scenario/tier_check.h).
std::unique_ptr<SyncPolicy> makeTieredPolicy(const Scenario& s, const SystemView& e);

} // namespace fog
