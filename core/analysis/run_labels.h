#pragma once
// Automatic labels for compared runs: runs of one preset all carry the preset's name, so
// legends and tables tell them apart by what differs between their scenarios (policy,
// parameters, seed...), e.g. "n-batch-sync m=4" beside "fully-sync".

#include <string>
#include <vector>

namespace fog {

/// Flattens a scenario's YAML into "key.path=value" leaves (lists as key[i]); the name and
/// description are left out. Unreadable text gives no leaves.
std::vector<std::pair<std::string, std::string>> scenarioLeaves(const std::string& yaml);

/// One label per scenario naming the values that are not the same in all of them, at most
/// `maxParts` of them (then "…"). A policy is named by its value alone ("n-sync"), other
/// keys as "leaf=value" (the full key path where two differing keys share a leaf name);
/// keys a scenario does not set are left out of its label, unless it sets none of them
/// (then "key=default"). Empty labels when all are alike.
std::vector<std::string> differingLabels(const std::vector<std::string>& scenarioYamls, std::size_t maxParts = 3);

/// The `name:` of a scenario's YAML ("" when it has none or cannot be read).
std::string scenarioNameOf(const std::string& yaml);

/// What a run's label is made from.
struct RunLabelInput {
    std::string name;         ///< the run's name in the store (the user may have renamed it)
    std::string scenarioYaml; ///< the scenario it ran
    std::string sweepConfig;  ///< the varied values of a sweep run, else empty
    int repeat = 0;
};

/// Labels of compared runs, in this order of preference: a name the user gave (the run's
/// name differs from its scenario's name), a sweep run's varied values and repeat, what
/// differs between the runs' scenarios, else the run's name.
std::vector<std::string> runLabels(const std::vector<RunLabelInput>& runs);

} // namespace fog
