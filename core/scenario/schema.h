#pragma once
// The scenario schema: one table with every key of a scenario file (path, type, unit,
// default, bounds, enum values, when it applies, help text) and an accessor to its value.
// The YAML reader and writer, the validator's key-level rules, the studio's editors, the
// document's equality and the key reference in docs/scenario.md are all driven by it, so a
// key is added in one place (docs/extending.md, "Adding a scenario key").
//
// Policy parameters (`sync.n`, `selection.k`, ...) are not listed here: each policy
// describes its own (core/policies/policy_info.h); policyParamBounds() states how the loader
// bounds them, for the validator and the policy panel alike.

#include "core/spec/scenario.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fog {

struct PolicyParamInfo;
struct PolicyInfo;

enum class FieldType {
    Section, ///< a map of further keys (their paths start with this one's)
    Real,    ///< a number
    Integer, ///< a whole number (read as an int)
    Bool,    ///< true / false
    Text,    ///< free text
    Enum,    ///< one of `enumValues`
    Seed,    ///< an integer 0 .. 2^64-1
    IntList, ///< a list of integers, each within the bounds (model.hidden)
    Range,   ///< a number, or in a group {min, max} drawn per member (every point within the bounds)
};

/// A value of any field type: Real and Integer as double, Enum as its spelling.
using FieldValue = std::variant<double, bool, std::string, std::uint64_t, std::vector<int>, Range>;

/// The key applies only while the enum at `path` (a full path in the same table) is one of
/// `values`, e.g. availability.mean_up_s only with availability.kind markov.
struct FieldCondition {
    std::string path;
    std::vector<std::string> values;
};

struct FieldBound {
    double value = 0.0;
    bool inclusive = true;
};

/// A lower bound that replaces the field's own while a condition holds (training.schedule.gamma
/// is > 0 with kind step, >= 0 with inverse-time).
struct ConditionalBound {
    FieldCondition when;
    FieldBound bound;
};

/// What the table says about one key; the accessors live in SchemaField.
struct FieldInfo {
    std::string path;                 ///< "training.learning_rate"; relative to the table's target
    FieldType type = FieldType::Real;
    std::string unit;                 ///< "s", "Mbit/s", "samples", ... ("" when none)
    std::optional<FieldBound> min;    ///< none: unbounded below
    std::optional<FieldBound> max;    ///< none: unbounded (an Integer stops at the int range)
    std::vector<ConditionalBound> minWhen;
    std::vector<std::string> enumValues; ///< Enum: every spelling; Text: the accepted ones, if fixed
    std::optional<FieldCondition> when;  ///< none: applies whenever its section is there
    std::string help;                 ///< one line: what it means
    /// The studio's label of its editor ("Throughput (samples/s)", '&' before the shortcut
    /// letter); "" = made from the key and unit (editorLabel()).
    std::string label;
    std::string defaultNote;          ///< said beside the default, e.g. "0 when a stop map is given"
    std::string typeNote;             ///< the type as the reference states it, when not by `type`
    std::size_t maxItems = 0;         ///< IntList: longest list accepted (0 = no limit)
    bool flow = false;                ///< Section: written on one line, {a: 1, b: 2}
    bool omitEmpty = false;           ///< Text: not written while empty
    bool optional = false;            ///< Section: may be absent altogether (default_link)
    /// Written only when it differs from the default (keys added after files were written,
    /// so that those files save byte for byte as before).
    bool omitDefault = false;
    /// Real: the value that stands for "not given" (nic_mbps 0: unlimited). It is never
    /// written nor checked against the bounds, and refused when a file gives it explicitly.
    std::optional<double> unsetValue;
    /// Node keys: only a group's entry may set it (a plain node keeps the default).
    bool groupsOnly = false;
    /// Read, written, compared and checked by code of its own in scenario_io.cpp /
    /// scenario_validate.cpp (its children too): listed for the documentation.
    bool custom = false;

    std::string key() const;    ///< the last component: "learning_rate"
    /// `label`, else made from the key: "Per flop j (J/FLOP)".
    std::string editorLabel() const;
    FieldInfo& labelled(std::string text) {
        label = std::move(text);
        return *this;
    }
    std::string parent() const; ///< "training"; "" at the top
    bool isNumber() const { return type == FieldType::Real || type == FieldType::Integer; }
    /// Has numeric bounds (numbers, ranges, lists of integers).
    bool isBounded() const { return isNumber() || type == FieldType::Range || type == FieldType::IntList; }
};

template <class Target> struct SchemaField : FieldInfo {
    std::function<FieldValue(const Target&)> get; ///< unset for sections
    std::function<void(Target&, const FieldValue&)> set;
    /// Optional sections: whether it is there, and making it so (with its default values).
    std::function<bool(const Target&)> present;
    std::function<void(Target&, bool)> setPresent;
};

using ScenarioField = SchemaField<Scenario>;
using LinkField = SchemaField<LinkParams>;
using NodeField = SchemaField<NodeSpec>;

/// Every key of a scenario except the nodes', groups' and links' own keys, in file order.
const std::vector<ScenarioField>& scenarioSchema();
/// The keys of a link map (default_link, a node's link, the entries of topology.links).
const std::vector<LinkField>& linkSchema();
/// The keys of a topology node or group entry (paths relative to the entry, e.g.
/// "availability.mean_up_s"); `id`, `count` and `position` are custom (the topology checks).
const std::vector<NodeField>& nodeSchema();
const NodeField* findNodeField(const std::string& path);
const ScenarioField* findScenarioField(const std::string& path);

/// The bounds the loader enforces for a number, with conditional bounds resolved against a
/// value getter (nullptr: the field's own, loosest bounds). An Integer without a maximum is
/// bounded by the int range, as the reader is.
struct NumericBounds {
    double min = -std::numeric_limits<double>::infinity();
    bool minInclusive = true;
    double max = std::numeric_limits<double>::infinity();
    bool maxInclusive = true;
    bool integer = false;
    /// Real fields with a maximum are stated as an interval ("must be in [0, 1)"); integer
    /// maxima are safety limits and stated alone ("must be <= 1000000").
    bool interval = false;
};
NumericBounds fieldBounds(const FieldInfo& f);
NumericBounds fieldBounds(const ScenarioField& f, const Scenario& s);
/// How the loader bounds a policy parameter (integers at most ScenarioLimits::maxPolicyInteger;
/// a real parameter's huge sentinel maximum means "none").
NumericBounds policyParamBounds(const PolicyParamInfo& p);

/// "" when `v` is within `b`, else the validator's message: "must be > 0, got -1",
/// "must be in [0, 1), got 1", "must be a finite number, got .inf".
std::string boundsProblem(const NumericBounds& b, double v);

/// The range a spin box showing `decimals` decimals offers for `b`: exclusive ends move in
/// by one step of the last decimal, unbounded ends become the largest finite double (or the
/// int range for integers).
struct SpinRange {
    double min = 0.0;
    double max = 0.0;
};
SpinRange spinRange(const NumericBounds& b, int decimals);

/// True when the field and every section above it apply to `s` (conditions and optional
/// sections present).
bool fieldApplies(const ScenarioField& f, const Scenario& s);
bool fieldApplies(const LinkField& f, const LinkParams& l);
bool fieldApplies(const NodeField& f, const NodeSpec& n);

/// True when `v` is the field's "not given" value (exactly, +0 not -0).
bool isUnset(const FieldInfo& f, const FieldValue& v);

/// The YAML spelling of a value: "0.01", "true", "[200, 100]", "fashion-mnist".
std::string formatFieldValue(const FieldValue& v);
/// The same value in the same spelling (numbers compared as the writer prints them: -0 is
/// not 0, every NaN is NaN).
bool sameFieldValue(const FieldValue& a, const FieldValue& b);

/// True when both scenarios would be written as the same file (saveScenarioText), compared
/// field by field through the schema instead of by writing them: the keys that apply, the
/// policies with their defaults filled in, and the topology.
bool sameScenario(const Scenario& a, const Scenario& b);
bool sameTopology(const TopologySpec& a, const TopologySpec& b);
/// Every stored value equal, whether the file would hold it or not (an edit that changes
/// nothing at all is no edit); source lines do not count.
bool sameNodeSpec(const NodeSpec& a, const NodeSpec& b);
bool sameLinkSpec(const LinkSpec& a, const LinkSpec& b);
bool samePolicy(const PolicySpec& a, const PolicySpec& b, const std::vector<PolicyInfo>& catalogue);

/// The key reference of docs/scenario.md (between its "schema:begin/end" markers), as
/// `fogstudio-cli schema --markdown` prints it.
std::string schemaMarkdown();
/// The tables of sync and selection policies of docs/scenario.md (between its
/// "policies:begin/end" markers): name, parameters with default and bounds, summary, from
/// the descriptors, as `fogstudio-cli policies --markdown` prints them.
std::string policiesMarkdown();

} // namespace fog
