#pragma once
// Automatic labels for compared runs: runs of one preset all carry the preset's name, so
// legends and tables tell them apart by what differs between their scenarios (policy,
// parameters, seed...), e.g. "n-batch-sync m=4" beside "fully-sync".

#include <cstdint>
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
    std::int64_t sweepId = 0; ///< the sweep the run belongs to (0: none)
};

/// Labels of compared runs, in this order of preference: a name the user gave (the run's
/// name differs from its scenario's name), a sweep run's varied values and repeat, what
/// differs between the runs' scenarios, else the run's name.
std::vector<std::string> runLabels(const std::vector<RunLabelInput>& runs);

/// A sweep configuration as labels show it: "sync.policy=n-sync sync.n=3 training.lr=0.0100000002"
/// reads "n-sync n=3 lr=0.01": a policy by its value, other keys by their last name (the
/// full path where two of them share it), numbers to 4 significant digits. Words without
/// "=" (a lesson variant's name) stay as they are.
std::string shortConfigLabel(const std::string& config);

/// The compared runs as configurations: the repeats of one sweep configuration (same sweep,
/// same varied values) are one group, any other run is a group of its own. Groups come in the
/// order of their first run; each lists its runs' indices in order.
std::vector<std::vector<std::size_t>> configurationGroups(const std::vector<RunLabelInput>& runs);

/// The name the studio gives a run it starts, "<title> #<n>" (never "untitled"): the title is
/// the scenario's name, or for an untitled scenario the stem of its file, else "scenario"; n
/// is one more than the highest number that a run in
/// `storedNames` of that title carries.
std::string studioRunName(const std::string& scenarioName, const std::string& fileStem,
                          const std::vector<std::string>& storedNames);
/// That title alone: the scenario's name, else the file's stem, else "scenario".
std::string runTitle(const std::string& scenarioName, const std::string& fileStem);
/// Whether `name` is a name studioRunName gives a run of the scenario named `scenarioName`
/// (runLabels treats it as automatic, not as a name the user chose).
bool isStudioRunName(const std::string& name, const std::string& scenarioName);

} // namespace fog
