#pragma once
// Variants in one scenario file: `variants:` (named lists of overrides), `vary:` (a grid of
// values, crossed with the variants) and `repeats:`, plus a preset's `lesson:` text. The
// overrides are the `--set` ones (scenario_io.h), so a variant can change anything a
// command line can. The loader reads and writes these sections through this file and checks
// every variant by applying it to a copy of the file and validating the result.

#include "core/scenario/scenario_io.h"

#include <functional>
#include <string>
#include <vector>

namespace YAML {
class Emitter;
class Node;
} // namespace YAML

namespace fog {

class MapReader;

/// Largest `repeats:` accepted, and most configurations (variants x grid) in one file.
inline constexpr int kMaxRepeats = 1000;
inline constexpr int kMaxVariantConfigurations = 10000;

/// Reads `variants`, `vary`, `repeats` and `lesson` from the top-level map (shape and types;
/// the values are checked by checkVariants). Called by the scenario reader.
void readVariantSections(MapReader& root, Scenario& s);
/// Writes them after the other keys, in a form that reads back to the same bytes.
void emitVariantSections(YAML::Emitter& out, const Scenario& s);

/// `lesson:` of any preset file (training or cluster).
void readLesson(MapReader& root, LessonSpec& out);
void emitLesson(YAML::Emitter& out, const LessonSpec& lesson);

/// A YAML value as one line of canonical flow text (what a variant's setting stores).
std::string canonicalYaml(const YAML::Node& n);

/// Loads the file the base scenario came from with extra overrides applied first.
using VariantLoader = std::function<Scenario(const std::vector<Override>&)>;
/// Applies each variant, and each value of the grid, to a copy of the file and validates it;
/// the problems found name the variant and point at its setting's line. Returns nothing while
/// checks are suspended (a variant's own load) or when there is nothing to check.
std::vector<Diagnostic> checkVariants(const Scenario& base, const std::string& fileLabel,
                                      const VariantLoader& load);

/// True when a key path lies in the variant sections (variants, vary, repeats, lesson): a
/// problem there does not keep the variants that were read from being checked.
bool inVariantSections(const std::string& path);

/// While alive on this thread, loading a scenario does not check its variants (each
/// variant's own load would otherwise check them all again).
class SuspendVariantChecks {
  public:
    SuspendVariantChecks();
    ~SuspendVariantChecks();
    SuspendVariantChecks(const SuspendVariantChecks&) = delete;
    SuspendVariantChecks& operator=(const SuspendVariantChecks&) = delete;
};

/// True when the scenario is more than one run: variants, a grid or repeats.
bool hasVariants(const Scenario& s);

/// One configuration to run: a variant (or the base) with one point of the grid.
struct VariantConfig {
    std::string label;   ///< "n-sync", "n-sync sync.n=4", "sync.n=4", "(base)"
    std::string variant; ///< the variant's name ("" without variants)
    std::vector<Override> overrides; ///< the variant's settings, then the grid's
};

/// Every configuration, variants outermost and the grid's keys inside (first key slowest).
/// `only` keeps one variant; ScenarioError names the variants there are when it is unknown.
std::vector<VariantConfig> variantConfigurations(const Scenario& s, const std::string& only = {});

/// The scenario of one run: the variant sections and the lesson removed.
Scenario withoutVariants(Scenario s);

/// Loads PATH to read its variants, grid and repeats. With the overrides when the base
/// accepts them (every variant is then checked with them too); otherwise, when the file has
/// variants, without the overrides that lie outside the variant sections: `--set` may hold a
/// value only the chosen variants can run with (`--variant asgd-ga --set k=16`), and each
/// configuration is checked with it when it is loaded. Throws the first load's error when
/// the file has no variants or does not load even without the overrides.
Scenario loadVariantBase(const std::string& path, const std::vector<Override>& overrides);

/// One variant of a scenario file, ready to run: its settings applied (then `overrides`),
/// the variant sections removed, the file's seed kept. Throws ScenarioError (an unknown
/// name lists the names there are).
Scenario loadVariantFile(const std::string& path, const std::string& name, const std::vector<Override>& overrides = {});

} // namespace fog
