#pragma once
// Reading and checking cluster scenario files (`kind: cluster`). Problems come out as
// fog::ScenarioError with every Diagnostic located at file:line:column, like the training
// scenario loader whose YAML helpers this reuses.

#include "core/cluster/cluster_scenario.h"
#include "core/scenario/scenario_io.h"

#include <string>
#include <vector>

namespace fog::cluster {

/// True when the YAML text's top level says `kind: cluster` (cheap; no validation).
bool isClusterScenarioText(const std::string& yaml);
bool isClusterScenarioFile(const std::string& path);

/// Loads and validates; throws fog::ScenarioError listing every problem. Trace and policy
/// files named in it are resolved relative to the file's folder; the trace is read here.
/// `overrides` (`--set key.path=value`, parsed with fog::parseOverride) change the YAML tree
/// before it is read: a problem in a value set there is reported as `--set: key.path ...`,
/// every other problem at its file:line:column. With overrides, `sourceText` is the changed
/// tree written back as YAML (so a stored run re-runs with the values it used).
ClusterScenario loadClusterScenarioFile(const std::string& path, const std::vector<Override>& overrides = {});
/// Same from text; `label` names it in messages, `baseDir` resolves relative file names.
ClusterScenario loadClusterScenarioText(const std::string& yaml, const std::string& label = "<string>",
                                        const std::string& baseDir = "",
                                        const std::vector<Override>& overrides = {});

/// Writes a cluster scenario as YAML that loads back to the same scenario (every key
/// written; an arrival trace by its file name, as written).
std::string saveClusterScenarioText(const ClusterScenario& s);
/// Writes the file; throws std::runtime_error naming the path when it cannot.
void saveClusterScenarioFile(const ClusterScenario& s, const std::string& path);

/// Range and consistency checks on a scenario in memory (key paths, no positions).
std::vector<Diagnostic> validateClusterScenario(const ClusterScenario& s);

/// Reads an arrival trace CSV (`time,type[,work]` with a header; type by name or 0-based
/// index). Problems name the file, line and field.
std::vector<TraceArrival> readArrivalTrace(const std::string& path, const std::vector<TaskType>& types,
                                           std::vector<Diagnostic>& problems);

} // namespace fog::cluster
