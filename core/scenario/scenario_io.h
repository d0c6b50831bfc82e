#pragma once
// Reading, validating and writing scenario files (YAML, yaml-cpp).

#include "core/spec/scenario.h"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace fog {

/// One problem found in a scenario, located in its file.
struct Diagnostic {
    std::string file;  ///< path as given, or "<string>" / "--set"
    int line = 0;      ///< 1-based; 0 when unknown
    int column = 0;    ///< 1-based; 0 when unknown
    std::string path;  ///< key path, e.g. topology.links[2].bandwidth_up_mbps
    std::string message;
    /// "file:line:col: path message", the form editors and terminals understand.
    std::string format() const;
};

/// Thrown when a scenario has problems; holds every problem found, not just the first.
struct ScenarioError : std::runtime_error {
    explicit ScenarioError(std::vector<Diagnostic> d);
    std::vector<Diagnostic> diagnostics;
};

/// Largest scenario file read (8 MiB); larger files and texts are refused unread.
inline constexpr std::size_t kMaxScenarioBytes = std::size_t(8) << 20;

/// Limits of what validation accepts: what the engine can run in a few GB of memory and
/// finish, checked before anything is expanded or allocated. docs/scenario.md states them.
struct ScenarioLimits {
    static constexpr int maxNodes = 2000000;          ///< nodes in all, group members counted
    static constexpr int maxSamplesPerTrainer = 1000000;      ///< data: none
    static constexpr double maxTimingSamples = 50e6;  ///< trainers x samples_per_trainer
    static constexpr int maxHiddenUnits = 100000;     ///< per hidden layer
    static constexpr int maxHiddenLayers = 16;
    static constexpr double maxModelParameters = 50e6;
    static constexpr int maxSyntheticFeatures = 100000;
    static constexpr int maxSyntheticClasses = 1000;
    static constexpr double maxSyntheticValues = 250e6; ///< trainers x 2000 x features floats
    static constexpr int maxBatchSize = 1000000;
    static constexpr int maxLocalSteps = 1000000;
    static constexpr int maxLocalEpochs = 10000;
    static constexpr double maxPolicyInteger = 1e9;   ///< integer policy parameters
    static constexpr double minMarkovMeanS = 0.01;    ///< Markov mean up / down time
};

/// A `--set key.path=value` override, applied to the YAML tree before validation.
struct Override {
    std::string path;
    std::string value;
};

/// Parses `key.path=value`; throws ScenarioError on a malformed argument.
Override parseOverride(const std::string& arg);

/// Loads and validates a scenario file. Throws ScenarioError listing every problem. Only
/// regular files are read (a directory, FIFO or device is refused without blocking); relative
/// data paths in it resolve against its folder (DataSpec::baseDir).
Scenario loadScenarioFile(const std::string& path, const std::vector<Override>& overrides = {});
/// Same, from text; `fileLabel` names it in messages.
Scenario loadScenarioText(const std::string& yaml, const std::string& fileLabel = "<string>",
                          const std::vector<Override>& overrides = {});

/// Reads the shape and types only, without the range and cross-reference checks: for
/// fragments such as the editor's clipboard (a device whose parent was not copied). Throws
/// ScenarioError on syntax, type or unknown-key problems. `overrides` apply as in the loader.
Scenario readScenarioTextUnchecked(const std::string& yaml, const std::string& fileLabel,
                                   const std::vector<Override>& overrides = {});

/// A scenario read however many problems it has, for an editor to open and fix.
struct LenientScenario {
    Scenario scenario;
    /// Problems of reading (types, unknown keys): there a default stands in for the value.
    std::vector<Diagnostic> readProblems;
    /// Every problem `loadScenarioText` would report (the read ones included), located.
    std::vector<Diagnostic> problems;
};

/// Reads a scenario like loadScenarioText but keeps what it could read instead of refusing
/// at the first bad value, so that a file with mistakes opens in the studio to be fixed
/// (which then refuses only to run it). Throws ScenarioError only when the text is not a
/// scenario at all (YAML syntax, not a map).
LenientScenario readScenarioTextLenient(const std::string& yaml, const std::string& fileLabel,
                                        const std::string& baseDir = {});
/// The same for a file: only a regular file within the size limit is read (never blocks on a
/// FIFO), and relative data paths resolve against the file's folder, as loadScenarioFile does.
LenientScenario readScenarioFileLenient(const std::string& path);

/// Reads a scenario-like file's bytes into `text`; returns why not ("" when read): only a
/// regular file (never blocks on a FIFO or reads /dev/zero) of at most kMaxScenarioBytes.
std::string readScenarioBytes(const std::string& path, std::string& text);

/// Writes a scenario as YAML that loads back to the same scenario.
std::string saveScenarioText(const Scenario& s);
void saveScenarioFile(const Scenario& s, const std::string& path);

/// Checks cross-references and ranges that do not depend on where the values came from
/// (used by the loader and by editors that change a scenario in memory).
std::vector<Diagnostic> validateScenario(const Scenario& s);

} // namespace fog
