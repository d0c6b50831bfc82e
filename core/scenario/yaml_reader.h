#pragma once
// A checked reader over a yaml-cpp tree. Every value is type-checked, every problem becomes
// a Diagnostic located in the file, and keys nobody asked for are reported with a
// did-you-mean suggestion. Nothing here knows about scenarios: it is the generic half of
// the scenario loader.

#include "core/scenario/scenario_io.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fog {

/// The candidate closest to `word` (edit distance <= 2, or one a prefix of the other), or ""
/// when none is close enough to be a plausible typo. Costs O(candidates) for words up to
/// kMaxSuggestLength characters; longer words only get prefix matches.
inline constexpr std::size_t kMaxSuggestLength = 64;
std::string suggestName(const std::string& word, const std::vector<std::string>& candidates);
/// " (did you mean 'x'?)" when suggestName finds something, else "".
std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates);
/// "a, b, c".
std::string joinNames(const std::vector<std::string>& names);
/// Shortest text that reads back as the same double; ".inf" / ".nan" in YAML spelling.
std::string formatNumber(double v);
/// Parses a YAML number (decimal, exponent, .inf, .nan) independently of the C locale.
bool parseNumber(const std::string& text, double& out);
/// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string childPath(const std::string& parent, const std::string& key);
/// "a.list" + 3 -> "a.list[3]".
std::string itemPath(const std::string& parent, std::size_t index);
/// True when `path` is `prefix` itself or lies below it (prefix.x or prefix[i]).
bool pathWithin(const std::string& path, const std::string& prefix);

/// Counts the values of a YAML tree the way a reader walking it sees them: an alias (*name)
/// counts as a full copy of what it refers to. Stops as soon as the count exceeds `budget`
/// and then returns budget + 1, with `where` set to the value at which it ran over; so the
/// cost is bounded by the budget, however much the aliases multiply.
std::size_t countExpandedValues(const YAML::Node& root, std::size_t budget, YAML::Mark& where);

/// Where diagnostics go, and where in the file each key path was found (so that checks run
/// later on the parsed data can still point at the exact line and column).
class YamlContext {
  public:
    explicit YamlContext(std::string file) : file_(std::move(file)) {}

    const std::string& file() const { return file_; }
    void error(const std::string& path, const YAML::Mark& at, const std::string& message);
    /// Located at `path` if it was seen, else at the nearest enclosing path that was.
    void error(const std::string& path, const std::string& message);

    void remember(const std::string& path, const YAML::Mark& at) { marks_[path] = at; }
    /// Mark of `path` or of its nearest enclosing path seen; nullptr when none was.
    const YAML::Mark* locate(const std::string& path) const;

    std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

  private:
    std::string file_;
    std::vector<Diagnostic> diagnostics_;
    std::map<std::string, YAML::Mark> marks_;
};

// Scalar conversions. Each returns true on success; on failure it reports "<path> must be
// ..., got ..." and leaves `out` unchanged, so the caller can simply carry on.
bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, double& out);
bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, int& out);
bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, bool& out);
bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, std::string& out);
bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path, std::uint64_t& out);
bool readValue(YamlContext& ctx, const YAML::Node& n, const std::string& path,
               std::vector<int>& out);

/// `text` in single quotes for a message, as it reads in the file but bounded: at most
/// kMaxQuotedLength characters (then "... (N characters)"), control characters as \xNN. A
/// message never carries more of a file than that (a 6 MB line would otherwise be printed).
inline constexpr std::size_t kMaxQuotedLength = 40;
std::string quoted(const std::string& text);

/// "a map", "a list", "nothing" or the scalar in quotes: the "got ..." part of messages.
std::string describeNode(const YAML::Node& n);

/// One YAML map; absent or null counts as an empty map. Keys are read on demand and every key
/// asked about becomes "known"; when the reader goes out of scope it reports each key of the
/// map that is not known, with a suggestion among the known ones.
class MapReader {
  public:
    MapReader(YamlContext& ctx, const YAML::Node& node, std::string path);
    MapReader(const MapReader&) = delete;
    MapReader& operator=(const MapReader&) = delete;
    ~MapReader();

    YamlContext& context() { return ctx_; }
    const std::string& path() const { return path_; }
    std::string pathOf(const std::string& key) const { return childPath(path_, key); }
    /// False when the node was something other than a map (already reported).
    bool valid() const { return valid_; }

    bool has(const std::string& key);
    /// The value, or an undefined node when absent.
    YAML::Node node(const std::string& key);

    /// Reads an optional key into `out`; true when present and well-typed.
    template <class T> bool get(const std::string& key, T& out) {
        const YAML::Node n = node(key);
        return n.IsDefined() && readValue(ctx_, n, pathOf(key), out);
    }
    /// Reports a missing key; true when present.
    bool require(const std::string& key, const std::string& what = "");
    /// A key of this map that has no meaning in the current setting (e.g. `sigma` of a
    /// noise of kind exponential): reported as an error saying `why` when present.
    void notApplicable(const std::string& key, const std::string& why);
    /// All keys not yet known, in file order; they become known (for open-ended maps).
    std::vector<std::string> remainingKeys();
    YAML::Mark keyMark(const std::string& key) const;

  private:
    struct Entry {
        std::string key;
        YAML::Node keyNode;
        YAML::Node value;
    };
    const Entry* find(const std::string& key) const;
    bool isKnown(const std::string& key) const { return knownSet_.count(key) > 0; }
    void markKnown(const std::string& key);

    YamlContext& ctx_;
    std::string path_;
    bool valid_ = true;
    std::vector<Entry> entries_;
    /// Key -> position in entries_: lookups and the duplicate check stay linear in the size
    /// of the map (a file of 80,000 keys must not take quadratic time).
    std::unordered_map<std::string, std::size_t> index_;
    std::vector<std::string> known_; ///< in the order asked, for the suggestion list
    std::unordered_set<std::string> knownSet_;
    std::map<std::string, std::string> notApplicable_;
};

/// Calls f(item, itemPath, index) for each item of a YAML sequence; absent or null is empty.
template <class F>
void forEachItem(YamlContext& ctx, const YAML::Node& n, const std::string& path, F&& f) {
    if (!n.IsDefined() || n.IsNull()) return;
    if (!n.IsSequence()) {
        ctx.error(path, n.Mark(), "must be a list, got " + describeNode(n));
        return;
    }
    for (std::size_t i = 0; i < n.size(); ++i) {
        const YAML::Node item = n[i];
        ctx.remember(itemPath(path, i), item.Mark());
        f(item, itemPath(path, i), i);
    }
}

/// Parses the one YAML document of a scenario-like file with the loader's limits (size,
/// UTF-8 text, values written and expanded through aliases, a single document); false with
/// located diagnostics in `ctx` otherwise. Every reader of user YAML goes through it.
bool parseScenarioDocument(YamlContext& ctx, const std::string& text, YAML::Node& root);

} // namespace fog
