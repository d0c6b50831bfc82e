#pragma once
// One descriptor per policy, defined in the policy's own file: what it is (name, summary,
// source, parameters with defaults and bounds), how to build it, which trees it accepts and
// what the rest of FogStudio may assume about it (steps per dispatch, closed form, what the
// planners model). Nothing else in FogStudio knows a policy by its name: the scenario
// validator, the progress check, the closed forms, the planners, the GUI and the CLI ask
// the descriptors. Nor does it know a policy's parameter by its key: what others read of one
// (a barrier's count, a tier's first n or deadline) is a ParamRef, the policy's typed read
// (core/policies/param_table.h). docs/extending.md, "Adding a sync policy", shows how to add one.
//
// Registration: a policy file defines its descriptor with FOG_SYNC_POLICY(fn) or
// FOG_SELECTION_POLICY(fn) at the start of a line; the build collects those lines
// (core/CMakeLists.txt, core/policies/policy_list.cmake) into the one list of descriptors.

#include "core/policies/param_table.h"
#include "core/policies/policy_context.h"
#include "core/policies/policy_info.h"
#include "core/policies/policy_params.h"

#include <memory>
#include <string>
#include <vector>

namespace fog {

class SyncPolicy;
class SelectionPolicy;

/// The barrier a synchronous round ends at, over trainers whose step times are i.i.d.
enum class BarrierKind {
    FullySync,   ///< waits for all n: E = shift + H_n / lambda
    FirstK,      ///< first k of n (n-sync): E = shift + (H_n - H_{n-k}) / lambda
    FirstBatches ///< first m mini-batches from n (n-batch-sync): E = shift + m / (n lambda)
};

/// A sync policy whose rounds are one mini-batch gradient per trainer ending at a barrier:
/// it has a closed-form round time (core/analysis/closed_form.h) and the ToN planner models it.
struct RoundBarrier {
    BarrierKind kind = BarrierKind::FullySync;
    /// k (FirstK) or m (FirstBatches), read by the policy from its typed parameters; empty:
    /// none (FullySync).
    ParamRef<int> count;
};

/// What the tree check of a sync policy knows about the topology.
struct PolicyTreeFacts {
    long long trainers = 0; ///< trainers in all, group members counted
    int aggregators = 0;
    std::vector<std::string> roots; ///< aggregators with no aggregator above them
    bool nested = false;            ///< some aggregator has an aggregator above it
};

/// How a sync policy runs as one aggregator's policy in a tiered tree (docs/policies.md,
/// "Per-level policies"). Not usable: a policy that is a tree of its own (hierarchical,
/// model averaging) or needs more than one round barrier (async, n-batch-sync, planners).
struct LevelUse {
    bool usable = false;
    /// Trainer children send one mini-batch gradient and the aggregator takes an optimiser
    /// step; otherwise they run local SGD and send the change. Aggregator children always
    /// send the change of their model since they received it.
    bool gradient = false;
    /// The round ends at the first n deliveries; empty: at all of them.
    ParamRef<int> first;
    /// Seconds after which late children are dropped (0: none); empty: never.
    ParamRef<double> deadlineSeconds;
};

struct SyncPolicyDescriptor {
    PolicyInfo info;  ///< name, summary, source, parameters, tree shape (what the GUI shows)
    int order = 0;    ///< position in lists (GUI, CLI, messages): ascending
    /// Builds the policy for a run: what its constructor reads of the system (the topology,
    /// the scenario, the initial model). What it does in the run it gets in its callbacks.
    std::unique_ptr<SyncPolicy> (*make)(const PolicyParams& params, const SystemView& e) = nullptr;
    /// Local steps one dispatch runs on any trainer; nullptr: the training section's local
    /// work (training.local_steps or local_epochs). Selection estimates use it.
    int (*stepsPerDispatch)(const PolicyParams& params) = nullptr;
    /// Set for the barrier policies (closed form, ToN planner).
    bool hasBarrier = false;
    RoundBarrier barrier;
    /// Refuses a tree at validation: the message (after "sync.policy "), or empty when the
    /// tree is accepted. nullptr: the default check of info.shape (treeShapeRefusal).
    std::string (*refuseTree)(const std::string& name, const PolicyTreeFacts& tree) = nullptr;
    /// As one aggregator's policy in a tiered tree.
    LevelUse level;
    /// Its rounds' deadline (seconds after a round starts; 0 = none): the round ends with the
    /// updates in by then and the later ones are dropped (RoundPolicy::beginRound). Unset:
    /// no deadline. The testbed plays it.
    ParamRef<double> roundDeadline;
    /// A single-server policy that also runs with several root aggregators: each root is a
    /// regional server for every trainer below it, and the servers average their models
    /// (async-ga: docs/policies.md, "Cross-cloud modes"). Its refuseTree accepts them.
    bool serverPerRoot = false;
    /// With these parameters the regional servers average asynchronously (a server mixes in
    /// the newest models received and goes on): only the server that mixes spends the
    /// aggregation energy of an averaging, and validation names the mode. nullptr: never.
    bool (*asyncAveraging)(const PolicyParams& params) = nullptr;
    /// Its server adds the averaged local-SGD changes (ServerModel::addDelta), so a server
    /// optimiser (training.server_optimizer, docs/learning.md) can step with them instead.
    bool serverOptimizer = false;
};

struct SelectionPolicyDescriptor {
    PolicyInfo info;
    int order = 0;
    std::unique_ptr<SelectionPolicy> (*make)(const PolicyParams& params, const SystemView& e) = nullptr;
    /// The most trainers it selects per round (its k); nullptr: no fixed number. Async sync
    /// policies keep at most this many trainers busy.
    int (*perRound)(const PolicyParams& params) = nullptr;
    /// Picks uniformly among alike trainers (min(perRound, n) of n, all without perRound):
    /// the closed-form round time holds.
    bool uniform = false;
    /// Only sync policies with a round barrier (the ToN planner's model).
    bool needsBarrierSync = false;
    /// Uses only the trainers right under the single parameter server; the phrase says why,
    /// e.g. "plans and rents only the trainers right under the parameter server".
    std::string serverTrainersOnly;
};

/// The one list of descriptors, in `order`.
const std::vector<const SyncPolicyDescriptor*>& syncDescriptors();
const std::vector<const SelectionPolicyDescriptor*>& selectionDescriptors();
/// nullptr when unknown.
const SyncPolicyDescriptor* findSyncDescriptor(const std::string& name);
const SelectionPolicyDescriptor* findSelectionDescriptor(const std::string& name);

/// The parameters of a scenario's section with the defaults filled; EngineError "unknown
/// sync policy 'x' (known: ...)" for an unknown name.
PolicyParams resolveSyncParams(const PolicySpec& spec);
PolicyParams resolveSelectionParams(const PolicySpec& spec);

/// The default tree check of a shape: the message for a refused tree, empty if accepted.
std::string treeShapeRefusal(TreeShape shape, const std::string& name, const PolicyTreeFacts& tree);
/// The descriptor's check (refuseTree, else its shape's).
std::string refuseTree(const SyncPolicyDescriptor& d, const PolicyTreeFacts& tree);
/// "a, b or c": the sync policies with a round barrier (what needsBarrierSync accepts).
std::string barrierSyncNames();

/// Helpers for parameter lists written out (a policy that reads its parameters into a typed
/// struct declares them with a ParamTable instead: core/policies/param_table.h).
inline PolicyParamInfo intParam(std::string key, double def, double min, std::string help, double max = 1e9) {
    return {std::move(key), def, min, max, true, std::move(help)};
}
inline PolicyParamInfo realParam(std::string key, double def, double min, double max, std::string help) {
    return {std::move(key), def, min, max, false, std::move(help)};
}
/// `p`, marked as read at each use (timed policy events may change it).
inline PolicyParamInfo live(PolicyParamInfo p) {
    p.live = true;
    return p;
}

} // namespace fog

/// Defines the descriptor function of a policy file; the build lists it (see above).
#define FOG_SYNC_POLICY(fn) const ::fog::SyncPolicyDescriptor& fn()
#define FOG_SELECTION_POLICY(fn) const ::fog::SelectionPolicyDescriptor& fn()
