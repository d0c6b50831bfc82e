#pragma once
// What the scenario loader and the GUI need to know about the policies without depending on
// the engine: their names, parameters, defaults and one-line explanations.

#include <string>
#include <vector>

namespace fog {

struct PolicyParamInfo {
    std::string key;
    double defaultValue = 0.0;
    double min = 0.0;     ///< inclusive lower bound
    double max = 1e300;   ///< inclusive upper bound
    bool integer = false;
    std::string help;     ///< unit and meaning
    /// Read from the context at each use, so a timed `policy` event may change it during a
    /// run (core/engine/timed_events.h); false: read once when the policy is built.
    bool live = false;
};

/// Which trainers a sync policy uses, by where they sit in the tree (validation refuses
/// trees where some trainer would never be used; core/scenario/progress_check.cpp).
enum class TreeShape {
    /// One parameter server (the single root aggregator) and every trainer of the tree;
    /// aggregators below the server relay (store and forward), they do not aggregate.
    SingleServer,
    /// Edge groups: aggregators right under the single root with their own trainers, and
    /// trainers right under the root as one more group (hierarchical).
    EdgeGroups,
    /// Regions: every root aggregator with the trainers right under it (model averaging).
    Regions,
};

struct PolicyInfo {
    std::string name;
    std::string summary;  ///< what it does, with the formula where there is one
    std::string source;   ///< paper it comes from
    std::vector<PolicyParamInfo> params;
    TreeShape shape = TreeShape::SingleServer; ///< sync policies only
};

const std::vector<PolicyInfo>& syncPolicyInfos();
const std::vector<PolicyInfo>& selectionPolicyInfos();
/// nullptr when unknown.
const PolicyInfo* findSyncPolicy(const std::string& name);
const PolicyInfo* findSelectionPolicy(const std::string& name);

} // namespace fog
