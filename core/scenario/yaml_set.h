#pragma once
// `--set key.path=value` on a YAML tree, before it is read: the one implementation that
// scenario files (scenario_io.cpp) and cluster files (core/cluster/cluster_io.cpp) use, so
// that a value set from the command line is checked by the reader like any other and a
// problem in it is reported as coming from "--set".

#include "core/scenario/scenario_io.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <vector>

namespace fog {

/// The file label of diagnostics about values given with --set.
inline constexpr const char* kSetLabel = "--set";

/// One step of an override path: a map key, or (index >= 0) a list index.
struct PathStep {
    std::string key;
    long index = -1;
};

/// Splits `a.b[2].c`; "" on success, else what is wrong.
std::string splitPath(const std::string& path, std::vector<PathStep>& steps);
/// The path of the first `count` steps, spelt as childPath / itemPath do.
std::string stepsPath(const std::vector<PathStep>& steps, std::size_t count);

/// What a kind of file allows beyond setting what is there or missing map keys.
struct SetOptions {
    /// An index one past a list's end appends an item (cluster files: clusters[3]=...).
    bool appendItems = false;
    /// Top-level keys whose scalar value is short for a map with one key (cluster files:
    /// `scheduler: fifo` is `scheduler: {name: fifo}`), expanded when a key below is set.
    std::map<std::string, std::string> shortForms;
};

/// Applies one override to `root`; on failure adds a "--set" diagnostic to `errors`.
/// `touched` collects the paths whose values now come from the command line (the outermost
/// node that did not exist before, or the path itself).
void applyOverride(YAML::Node& root, const Override& o, std::vector<Diagnostic>& errors,
                   std::vector<std::string>& touched, const SetOptions& options = {});

} // namespace fog
