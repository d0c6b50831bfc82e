// Scenario files: YAML -> Scenario (with every problem collected and located), --set
// overrides, and Scenario -> YAML. The range and cross-reference checks live in
// scenario_validate.cpp; this file only deals with the shape and types of the YAML.

#include "core/scenario/scenario_io.h"

#include "core/data/regular_file.h"
#include "core/scenario/aggregate_io.h"
#include "core/scenario/events_io.h"
#include "core/policies/policy_info.h"
#include "core/scenario/schema.h"
#include "core/scenario/schema_yaml.h"
#include "core/scenario/variants.h"
#include "core/scenario/yaml_reader.h"
#include "core/scenario/yaml_set.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fog {

// --- diagnostics -------------------------------------------------------------------------

std::string Diagnostic::format() const {
    std::string out = file;
    if (line > 0) {
        out += ":" + std::to_string(line);
        if (column > 0) out += ":" + std::to_string(column);
    }
    out += ": ";
    if (!path.empty()) out += path + " ";
    return out + message;
}

namespace {
std::string joinDiagnostics(const std::vector<Diagnostic>& d) {
    std::string out;
    for (const auto& x : d)
        out += (out.empty() ? "" : "\n") + x.format();
    return out;
}
} // namespace

ScenarioError::ScenarioError(std::vector<Diagnostic> d)
    : std::runtime_error(joinDiagnostics(d)), diagnostics(std::move(d)) {}

namespace {

/// Values a scenario file may hold as written, counted on the parser's events before any
/// node is built: yaml-cpp needs about 550 bytes per node, so 500,000 values keep parsing
/// under 300 MB, and no real scenario comes near (the 1,000-device preset has about 2,000).
constexpr std::size_t kMaxWrittenValues = 500000;
/// Values a scenario may hold, counting each use of an alias as a copy: far above any real
/// scenario (the 1,000-device preset has about 2,000), and small enough that reading that
/// many takes well under a second.
constexpr std::size_t kMaxYamlValues = 2000000;
/// More diagnostics than this are summarised: nobody reads 80,000 lines of problems, and a
/// studio's problem list must stay responsive.
constexpr std::size_t kMaxDiagnostics = 200;

/// Line and column (1-based) of byte `at` of `text`.
std::pair<int, int> lineColumn(const std::string& text, std::size_t at) {
    int line = 1;
    std::size_t lineStart = 0;
    for (std::size_t i = 0; i < at && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++line;
            lineStart = i + 1;
        }
    // Columns count characters, not bytes: skip UTF-8 continuation bytes.
    int column = 1;
    for (std::size_t i = lineStart; i < at && i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
    return {line, column};
}

/// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not one
/// (overlong forms, surrogates and code points above U+10FFFF are invalid too).
std::size_t utf8Length(const std::string& text, std::size_t i) {
    const auto byte = [&](std::size_t k) {
        return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
    };
    const unsigned c = byte(i);
    if (c < 0x80) return 1;
    const auto cont = [&](std::size_t k) { return (byte(k) & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        const unsigned c1 = byte(i + 1);
        if (c == 0xE0 && c1 < 0xA0) return 0;  // overlong
        if (c == 0xED && c1 >= 0xA0) return 0; // surrogate
        return cont(i + 1) && cont(i + 2) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        const unsigned c1 = byte(i + 1);
        if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
        if (c == 0xF4 && c1 >= 0x90) return 0; // above U+10FFFF
        return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
    }
    return 0;
}

/// Refuses bytes that are not UTF-8 text before the YAML parser sees them: its messages for
/// binary data ("unknown escape character") would not tell the user what is wrong.
bool checkText(YamlContext& ctx, const std::string& text) {
    auto fail = [&](std::size_t at, const std::string& message) {
        const auto [line, column] = lineColumn(text, at);
        YAML::Mark m;
        m.line = line - 1;
        m.column = column - 1;
        ctx.error("", m, message);
        return false;
    };
    const auto starts = [&](const char* sig, std::size_t n) {
        return text.size() >= n && text.compare(0, n, sig, n) == 0;
    };
    if (starts("\xFF\xFE", 2) || starts("\xFE\xFF", 2))
        return fail(0, "is UTF-16 text; scenario files must be UTF-8: save it as UTF-8");
    // Bytes no text file holds: NUL and the C0 controls other than tab, line feed and
    // carriage return, and DEL (images, archives, databases all have them near the start).
    const auto control = [](unsigned char c) {
        return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F;
    };
    bool binary = false;
    for (char c : text)
        if (control(static_cast<unsigned char>(c))) {
            binary = true;
            break;
        }
    // The first byte that is not UTF-8 text; a file with control bytes, or one whose very
    // first byte is not text (a PNG starts 0x89 'PNG'), is binary rather than badly encoded.
    for (std::size_t i = 0; i < text.size();) {
        const bool isControl = control(static_cast<unsigned char>(text[i]));
        const std::size_t n = isControl ? 0 : utf8Length(text, i);
        if (n == 0) {
            if (binary || i == 0)
                return fail(i, "is not a text/YAML file: it holds binary data (is it an image, "
                               "an archive or a database?)");
            return fail(i, "is not valid UTF-8 text here: save the file as UTF-8");
        }
        i += n;
    }
    return true;
}

// --- reading -----------------------------------------------------------------------------
// Through the tables (core/scenario/schema_yaml.h); the keys with code of their own here.

using schema::readFields;
using schema::readRange;

void readLinkParams(MapReader& m, LinkParams& l) {
    readFields(m, linkSchema(), "", l);
}

void readInterval(YamlContext& ctx, const YAML::Node& n, const std::string& path,
                  std::vector<AvailabilitySpec::Interval>& out) {
    if (!n.IsSequence() || n.size() != 2) {
        ctx.error(path, n.Mark(), "must be a pair [from_s, to_s], got " + describeNode(n));
        return;
    }
    AvailabilitySpec::Interval iv;
    // Both ends are read (no short-circuit) so both get reported when both are wrong.
    const bool fromOk = readValue(ctx, n[0], itemPath(path, 0), iv.fromS);
    const bool toOk = readValue(ctx, n[1], itemPath(path, 1), iv.toS);
    const bool ok = fromOk && toOk;
    if (ok) out.push_back(iv);
}

/// `position: [x, y]`, where the editor draws the node; absent = automatic layout.
void readPosition(YamlContext& ctx, const YAML::Node& n, const std::string& path, NodeSpec& s) {
    if (!n.IsSequence() || n.size() != 2) {
        ctx.error(path, n.Mark(), "must be a list of two numbers [x, y], got " + describeNode(n));
        return;
    }
    double x = 0.0, y = 0.0;
    const bool okX = readValue(ctx, n[0], itemPath(path, 0), x);
    const bool okY = readValue(ctx, n[1], itemPath(path, 1), y);
    if (!okX || !okY) return;
    s.x = x;
    s.y = y;
    s.hasPosition = true;
}

/// A node or group entry (`s.group` says which) through the node table; the id, a group's
/// count, the position and a trace's intervals have readers of their own, and ranges are
/// {min, max} maps only in groups.
void readNode(MapReader& m, NodeSpec& s) {
    YamlContext& ctx = m.context();
    readFields(m, nodeSchema(), "", s, [&](const NodeField& f, MapReader& r, NodeSpec& n) {
        const std::string& p = f.path;
        if (p == "id") {
            r.require("id", n.group ? "members are named <id>-0, <id>-1, ..." : "a unique name");
            r.get("id", n.id);
        } else if (p == "count") {
            // Groups only: in a node's map `count` stays an unknown key.
            if (n.group && r.require("count", "how many members")) r.get("count", n.count);
        } else if (p == "position") {
            if (r.has("position")) readPosition(ctx, r.node("position"), r.pathOf("position"), n);
        } else if (p == "aggregate") { // core/scenario/aggregate_io.h
            if (r.has("aggregate")) readAggregate(ctx, r.node("aggregate"), r.pathOf("aggregate"), n);
        } else if (p == "availability.offline") {
            std::vector<AvailabilitySpec::Interval> offline;
            forEachItem(ctx, r.node("offline"), r.pathOf("offline"),
                        [&](const YAML::Node& item, const std::string& path, std::size_t) {
                            readInterval(ctx, item, path, offline);
                        });
            n.availability.offline = std::move(offline);
        } else if (f.type == FieldType::Range) {
            Range v = std::get<Range>(f.get(n));
            readRange(r, f.key(), v, n.group);
            f.set(n, FieldValue(v));
        } else {
            return false;
        }
        return true;
    });
}

int lineOf(const YAML::Node& n) {
    return n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
}

void readTopology(YamlContext& ctx, const YAML::Node& n, Scenario& s) {
    MapReader m(ctx, n, "topology");
    // default_link and the network settings through the table; the lists below.
    readFields(m, scenarioSchema(), "topology", s);
    TopologySpec& t = s.topology;
    forEachItem(ctx, m.node("nodes"), m.pathOf("nodes"),
                [&](const YAML::Node& item, const std::string& p, std::size_t) {
                    MapReader r(ctx, item, p);
                    NodeSpec s;
                    s.line = lineOf(item);
                    readNode(r, s);
                    t.nodes.push_back(std::move(s));
                });
    forEachItem(ctx, m.node("groups"), m.pathOf("groups"),
                [&](const YAML::Node& item, const std::string& p, std::size_t) {
                    MapReader r(ctx, item, p);
                    NodeSpec g;
                    g.group = true;
                    g.line = lineOf(item);
                    readNode(r, g);
                    t.nodes.push_back(std::move(g));
                });
    forEachItem(ctx, m.node("links"), m.pathOf("links"),
                [&](const YAML::Node& item, const std::string& p, std::size_t) {
                    MapReader r(ctx, item, p);
                    LinkSpec l;
                    l.line = lineOf(item);
                    r.require("from", "a node id");
                    r.require("to", "a node id");
                    r.get("from", l.from);
                    r.get("to", l.to);
                    readLinkParams(r, l.params);
                    t.links.push_back(std::move(l));
                });
}

/// `{policy: name, param: number, ...}`: the parameter keys depend on the policy, so they are
/// only type-checked here; validateScenario checks names and bounds.
void readPolicy(YamlContext& ctx, const YAML::Node& n, const std::string& path, PolicySpec& p) {
    MapReader m(ctx, n, path);
    if (!m.valid()) return;
    p.line = lineOf(n);
    p.params.clear();
    p.paramLines.clear();
    if (m.require("policy", "the policy name")) m.get("policy", p.name);
    for (const auto& key : m.remainingKeys()) {
        double v = 0.0;
        const YAML::Node value = m.node(key);
        if (!readValue(ctx, value, m.pathOf(key), v)) continue;
        p.params[key] = v;
        p.paramLines[key] = lineOf(value);
    }
}

/// False when reading cannot sensibly go on (a file from a newer FogStudio).
bool readScenario(YamlContext& ctx, const YAML::Node& root, Scenario& s) {
    MapReader m(ctx, root, "");
    if (!m.valid()) return false;
    if (m.get("schema_version", s.schemaVersion) && s.schemaVersion > kScenarioSchemaVersion) {
        ctx.error("schema_version", m.node("schema_version").Mark(),
                  "is " + std::to_string(s.schemaVersion) + ", but this FogStudio reads at most " +
                      std::to_string(kScenarioSchemaVersion) +
                      "; a newer FogStudio wrote this file");
        m.remainingKeys(); // the rest is a format we do not know: no point listing its keys
        return false;
    }
    // `kind: cluster` files are the cluster experiment's (core/cluster/cluster_io.h).
    if (std::string kind; m.get("kind", kind) && kind != "training") {
        ctx.error("kind", m.node("kind").Mark(),
                  kind == "cluster" ? "is cluster: a cluster scheduling scenario, run it with 'fogstudio-cli cluster run'"
                                    : "must be training or cluster, got '" + kind + "'");
        m.remainingKeys();
        return false;
    }
    // Everything else through the schema; these keys have readers of their own.
    readFields(m, scenarioSchema(), "", s, [&](const ScenarioField& f, MapReader& r, Scenario& t) {
        const std::string& p = f.path;
        if (p == "schema_version") return true; // read above
        if (p == "topology") {
            if (r.has("topology")) readTopology(ctx, r.node("topology"), t);
            return true;
        }
        if (p == "sync" || p == "selection") {
            if (r.has(p)) readPolicy(ctx, r.node(p), p, p == "sync" ? t.sync : t.selection);
            return true;
        }
        if (p == "events") { // core/scenario/events_io.h
            if (r.has("events")) readEventsSection(ctx, r.node("events"), t);
            return true;
        }
        // A stop block lists the limits wanted: the 10-round default applies only without one.
        if (p == "stop" && r.has("stop")) t.stop.rounds = 0;
        // Synthetic devices come with their own samples: their partition is natural.
        // So do LEAF's users (unless the file says otherwise).
        if (p == "data.partition" && (t.data.kind == DataSpec::Kind::Synthetic || t.data.kind == DataSpec::Kind::Leaf))
            t.data.partition.kind = PartitionSpec::Kind::Natural;
        return false;
    });
    readVariantSections(m, s); // variants, vary, repeats, lesson (core/scenario/variants.h)
    return true;
}

/// Orders diagnostics as a reader expects: command-line ones first, then by position.
void sortDiagnostics(std::vector<Diagnostic>& d) {
    std::stable_sort(d.begin(), d.end(), [](const Diagnostic& a, const Diagnostic& b) {
        const bool aSet = a.file == kSetLabel, bSet = b.file == kSetLabel;
        if (aSet != bSet) return aSet;
        if (a.line != b.line) return a.line < b.line;
        return a.column < b.column;
    });
}

/// Counts the values of a YAML text from the parser's events, without building nodes (so in
/// memory bounded by the nesting depth); stops at the first value over the limit.
class ValueCounter : public YAML::EventHandler {
  public:
    struct Over {
        YAML::Mark at;
    };
    ValueCounter(std::size_t limit, const std::string& text) : limit_(limit), text_(text) {}
    std::size_t documents = 0;
    YAML::Mark secondStart = YAML::Mark::null_mark(); ///< where a second document begins
    /// Where a quoted value starts that no quote closes (yaml-cpp takes the rest of the
    /// file into it, and the file then reads as one with keys missing).
    YAML::Mark unterminated = YAML::Mark::null_mark();
    char unterminatedQuote = 0;

    void OnDocumentStart(const YAML::Mark& m) override {
        if (++documents == 2) secondStart = m;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
    void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t,
                  const std::string&) override {
        count(m);
        if (tag == "!" && unterminated.pos < 0) checkClosed(m);
    }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        count(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        count(m);
    }
    void OnMapEnd() override {}

  private:
    void count(const YAML::Mark& m) {
        if (++values_ > limit_) throw Over{m};
    }
    /// A quoted scalar starting at `m`: finds its closing quote (each scalar's own text is
    /// scanned once, so the whole check is linear).
    void checkClosed(const YAML::Mark& m) {
        if (m.pos < 0 || static_cast<std::size_t>(m.pos) >= text_.size()) return;
        const char q = text_[static_cast<std::size_t>(m.pos)];
        if (q != '"' && q != '\'') return;
        for (std::size_t i = static_cast<std::size_t>(m.pos) + 1; i < text_.size(); ++i) {
            if (q == '"' && text_[i] == '\\') {
                ++i; // an escaped character
                continue;
            }
            if (text_[i] != q) continue;
            if (q == '\'' && i + 1 < text_.size() && text_[i + 1] == '\'') {
                ++i; // '' is a quote inside single quotes
                continue;
            }
            return; // closed
        }
        unterminated = m;
        unterminatedQuote = q;
    }
    std::size_t limit_;
    std::size_t values_ = 0;
    const std::string& text_;
};

/// Parses the one YAML document of a scenario; false (with diagnostics) when the text is
/// not UTF-8, not YAML, holds several documents or expands through aliases beyond reason.
bool parseDocument(YamlContext& ctx, const std::string& text, YAML::Node& root, bool textChecked = false);
} // namespace

bool parseScenarioDocument(YamlContext& ctx, const std::string& text, YAML::Node& root) {
    return parseDocument(ctx, text, root);
}

namespace {
/// `textChecked`: this very text passed every check already (a variant's copy of a file that
/// was just loaded), so only the nodes are built: the counting pass is the second of two
/// parses per load, and checking 10,000 `vary` values loads the copy 10,000 times.
bool parseDocument(YamlContext& ctx, const std::string& text, YAML::Node& root, bool textChecked) {
    if (textChecked) {
        try {
            root = YAML::Load(text);
            return true;
        } catch (const YAML::Exception&) {
            textChecked = false; // not expected; the full path below says what is wrong
        }
    }
    if (text.size() > kMaxScenarioBytes) {
        ctx.error("", YAML::Mark::null_mark(),
                  "is " + std::to_string(text.size()) + " bytes; scenario files are limited to " +
                      std::to_string(kMaxScenarioBytes) + " bytes (8 MiB)");
        return false;
    }
    if (!checkText(ctx, text)) return false;
    // Count first, on events: building the nodes of a 8 MB list of numbers would take GBs.
    // This pass also finds a second document. (Not YAML::LoadAll: yaml-cpp 0.7's LoadAll
    // never returns on some malformed text, e.g. a stray '}' after a plain scalar, found by
    // fuzzing; tests/data/scenarios/bad/loadall_hang.yaml.)
    std::size_t documents = 0;
    YAML::Mark secondStart = YAML::Mark::null_mark();
    try {
        std::istringstream in(text);
        YAML::Parser parser(in);
        ValueCounter counter(kMaxWrittenValues, text);
        while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
        }
        documents = counter.documents;
        secondStart = counter.secondStart;
        if (counter.unterminated.pos >= 0) {
            ctx.error("", counter.unterminated,
                      std::string("a quoted value starts here and is never closed: add the closing ") +
                          counter.unterminatedQuote + " (without it the rest of the file is read as this value)");
            return false;
        }
    } catch (const ValueCounter::Over& over) {
        ctx.error("", over.at,
                  "the file holds more than " + std::to_string(kMaxWrittenValues) +
                      " YAML values; a scenario needs far fewer (use groups for many similar "
                      "nodes)");
        return false;
    } catch (const YAML::Exception&) {
        // Syntax errors are reported below, by the parse that builds the nodes.
    }
    try {
        root = YAML::Load(text); // the first document only
    } catch (const YAML::Exception& e) {
        // yaml-cpp says "bad file" when nesting runs past its depth limit.
        ctx.error("", e.mark,
                  e.msg == "bad file" ? std::string("YAML syntax error: nested too deeply (lists or maps inside each "
                                                    "other beyond what the reader takes; a scenario needs a few levels)")
                                      : "YAML syntax error: " + e.msg);
        return false;
    }
    if (documents > 1) {
        // Silently reading only the first would ignore whatever the user wrote after '---'.
        YAML::Mark at = secondStart;
        if (at.line < 0) { // an empty document has no mark: point at its '---'
            std::size_t pos = 0, seen = 0;
            const bool leading = text.compare(0, 3, "---") == 0;
            for (std::size_t i = 0; i < text.size(); i = text.find('\n', i) + 1) {
                if (text.compare(i, 3, "---") == 0 && ++seen == (leading ? 2u : 1u)) {
                    pos = i;
                    break;
                }
                if (text.find('\n', i) == std::string::npos) break;
            }
            const auto [line, column] = lineColumn(text, pos);
            at.line = line - 1;
            at.column = column - 1;
        }
        ctx.error("", at,
                  "a second YAML document starts here; a scenario file holds exactly one "
                  "(remove the '---' line and what follows, or split the file)");
        return false;
    }
    YAML::Mark where;
    if (countExpandedValues(root, kMaxYamlValues, where) > kMaxYamlValues) {
        ctx.error("", where,
                  "the document holds more than " + std::to_string(kMaxYamlValues) +
                      " values, counting each use of an alias (*name) as a full copy; "
                      "aliases that multiply this much cannot be read in reasonable time");
        return false;
    }
    return true;
}

/// Read problems, to leave out validation problems at or below (or above) the same path.
class ShadowSet {
  public:
    explicit ShadowSet(const std::vector<Diagnostic>& read) {
        for (const auto& d : read)
            if (!d.path.empty()) paths_.push_back(d.path);
        std::sort(paths_.begin(), paths_.end());
        paths_.erase(std::unique(paths_.begin(), paths_.end()), paths_.end());
    }
    /// True when a read problem's path is `path`, encloses it or lies within it: O(depth log n).
    bool shadows(const std::string& path) const {
        if (paths_.empty() || path.empty()) return false;
        // A read problem at `path` or at one of its ancestors.
        for (std::string p = path; !p.empty();) {
            if (std::binary_search(paths_.begin(), paths_.end(), p)) return true;
            const auto at = p.find_last_of(".[");
            if (at == std::string::npos) break;
            p.erase(at);
        }
        // A read problem below `path`: path.x or path[i] (sorted, so those are contiguous).
        for (const char sep : {'.', '['}) {
            const std::string prefix = path + sep;
            const auto it = std::lower_bound(paths_.begin(), paths_.end(), prefix);
            if (it != paths_.end() && it->compare(0, prefix.size(), prefix) == 0) return true;
        }
        return false;
    }

  private:
    std::vector<std::string> paths_;
};

/// `text` with its top-level variant sections (variants, vary, repeats, lesson) removed but
/// for their line breaks: every other line keeps its number and columns, so messages stay
/// exact.
/// Each variant's check loads this, so that checking N variants does not parse the N
/// variants N times (quadratic: 2,000 variants took over a minute). "" when the sections
/// cannot be told apart in the text (then the whole text is loaded, as before).
std::string withoutVariantSectionsText(const std::string& text) {
    static const char* const kKeys[] = {"variants", "vary", "repeats", "lesson"};
    std::string out = text;
    bool blanking = false, any = false;
    for (std::size_t i = 0; i < out.size();) {
        const std::size_t end = std::min(out.find('\n', i), out.size());
        const char c = out[i];
        const bool topLevel = i < end && c != ' ' && c != '\t' && c != '#';
        if (topLevel) {
            if (out.compare(i, 3, "---") == 0 || out.compare(i, 3, "...") == 0) return {};
            blanking = false;
            for (const char* k : kKeys) {
                const std::size_t n = std::strlen(k);
                if (out.compare(i, n, k) == 0 && i + n < end && (out[i + n] == ':' || out[i + n] == ' ')) blanking = true;
            }
            any = any || blanking;
        }
        if (blanking) {
            // The line's text goes, its newline stays: lines keep their numbers and the
            // other lines their columns, and the parser does not scan the sections again.
            out.erase(i, end - i);
            i += 1;
            continue;
        }
        i = end + 1;
    }
    return any ? out : std::string();
}

Scenario load(const std::string& text, const std::string& label,
              const std::vector<Override>& overrides, const std::string& baseDir, bool textChecked = false) {
    YamlContext ctx(label);
    YAML::Node root;
    if (!parseDocument(ctx, text, root, textChecked)) throw ScenarioError(ctx.diagnostics());

    std::vector<Diagnostic> setErrors;
    std::vector<std::string> touched;
    for (const auto& o : overrides)
        applyOverride(root, o, setErrors, touched);
    if (!overrides.empty()) {
        // A --set value may bring its own anchors and aliases: count again, with them.
        YAML::Mark where;
        if (countExpandedValues(root, kMaxYamlValues, where) > kMaxYamlValues) {
            setErrors.push_back({kSetLabel, 0, 0, "",
                                 "with the --set values, the scenario holds more than " +
                                     std::to_string(kMaxYamlValues) +
                                     " values, counting each use of an alias as a full copy"});
            throw ScenarioError(setErrors);
        }
    }

    Scenario s;
    s.data.baseDir = baseDir;
    s.model.baseDir = baseDir;
    bool readable = false;
    try {
        readable = readScenario(ctx, root, s);
    } catch (const YAML::Exception& e) {
        // Not expected (the reader checks every node's type before using it), but a problem
        // report beats an exception escaping from deep inside yaml-cpp.
        ctx.error("", e.mark, std::string("cannot read the scenario: ") + e.what());
    }
    if (!readable) {
        auto d = ctx.diagnostics();
        d.insert(d.begin(), setErrors.begin(), setErrors.end());
        throw ScenarioError(d);
    }

    // Range and cross-reference checks, placed at the exact spot in the file where possible.
    // Where reading already failed, the value is a stand-in default: checks of it, and
    // summary checks of a section containing it ("topology has no aggregator" after a
    // misspelt role), would only repeat the problem, so they are left out.
    const ShadowSet readErrors(ctx.diagnostics());
    for (const auto& d : validateScenario(s)) {
        if (readErrors.shadows(d.path)) continue;
        if (ctx.locate(d.path))
            ctx.error(d.path, d.message);
        else
            ctx.diagnostics().push_back({label, d.line, d.column, d.path, d.message});
    }
    loadScenarioTraces(ctx, s, baseDir); // trace files named in the scenario (events_io.h)

    std::vector<Diagnostic> all = setErrors;
    for (Diagnostic d : ctx.diagnostics()) {
        // Values given with --set have no place in the file: say where they came from.
        for (const auto& t : touched)
            if (pathWithin(d.path, t)) {
                d.file = kSetLabel;
                d.line = d.column = 0;
            }
        all.push_back(std::move(d));
    }
    if (std::all_of(all.begin(), all.end(), [](const Diagnostic& d) { return inVariantSections(d.path); })) {
        // Each variant applied to a copy of the file and validated (variants.h); the copy
        // leaves out the variant sections when the text allows it (the base must then still
        // parse: an alias into a variant section would not).
        std::string base = s.variants.empty() && s.vary.empty() ? std::string() : withoutVariantSectionsText(text);
        if (!base.empty()) {
            try {
                (void)YAML::Load(base);
            } catch (const YAML::Exception&) {
                base.clear();
            }
        }
        const std::string& copy = base.empty() ? text : base;
        auto more = checkVariants(s, label, [&](const std::vector<Override>& v) {
            std::vector<Override> o = v;
            o.insert(o.end(), overrides.begin(), overrides.end());
            // The copy is this text, or this text less its variant sections: checked above.
            return load(copy, label, o, baseDir, true);
        });
        all.insert(all.end(), more.begin(), more.end());
    }
    if (!all.empty()) {
        sortDiagnostics(all);
        if (all.size() > kMaxDiagnostics) {
            const std::size_t more = all.size() - kMaxDiagnostics;
            all.resize(kMaxDiagnostics);
            all.push_back({label, 0, 0, "",
                           "... and " + std::to_string(more) + " more problems (only the first " +
                               std::to_string(kMaxDiagnostics) + " are listed)"});
        }
        throw ScenarioError(std::move(all));
    }
    return s;
}

} // namespace

Override parseOverride(const std::string& arg) {
    const auto eq = arg.find('=');
    auto trim = [](std::string s) {
        const auto b = s.find_first_not_of(" \t");
        const auto e = s.find_last_not_of(" \t");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
    };
    Override o;
    if (eq != std::string::npos) o = {trim(arg.substr(0, eq)), arg.substr(eq + 1)};
    if (eq == std::string::npos || o.path.empty())
        throw ScenarioError({{kSetLabel, 0, 0, "", "expected key.path=value, got '" + arg + "'"}});
    std::vector<PathStep> steps;
    if (std::string bad = splitPath(o.path, steps); !bad.empty())
        throw ScenarioError({{kSetLabel, 0, 0, o.path, bad}});
    return o;
}

Scenario loadScenarioText(const std::string& yaml, const std::string& fileLabel,
                          const std::vector<Override>& overrides) {
    return load(yaml, fileLabel, overrides, {});
}

Scenario readScenarioTextUnchecked(const std::string& yaml, const std::string& fileLabel,
                                   const std::vector<Override>& overrides) {
    YamlContext ctx(fileLabel);
    Scenario s;
    YAML::Node root;
    if (parseDocument(ctx, yaml, root)) {
        std::vector<std::string> touched;
        for (const auto& o : overrides)
            applyOverride(root, o, ctx.diagnostics(), touched);
        try {
            readScenario(ctx, root, s);
        } catch (const YAML::Exception& e) {
            ctx.error("", e.mark, std::string("cannot read the scenario: ") + e.what());
        }
        for (Diagnostic& d : ctx.diagnostics())
            for (const auto& t : touched)
                if (pathWithin(d.path, t)) {
                    d.file = kSetLabel;
                    d.line = d.column = 0;
                }
    }
    if (!ctx.diagnostics().empty()) throw ScenarioError(ctx.diagnostics());
    return s;
}

LenientScenario readScenarioTextLenient(const std::string& yaml, const std::string& fileLabel,
                                        const std::string& baseDir) {
    LenientScenario out;
    out.scenario.data.baseDir = baseDir;
    out.scenario.model.baseDir = baseDir;
    YamlContext ctx(fileLabel);
    YAML::Node root;
    // The same bounded parse as the strict loader (size, text, value and alias limits).
    if (!parseDocument(ctx, yaml, root)) throw ScenarioError(ctx.diagnostics());
    bool readable = false;
    try {
        readable = readScenario(ctx, root, out.scenario);
    } catch (const YAML::Exception& e) {
        ctx.error("", e.mark, std::string("cannot read the scenario: ") + e.what());
    }
    if (!readable) throw ScenarioError(ctx.diagnostics());
    out.readProblems = ctx.diagnostics();
    // The full, located list is the strict loader's, so the studio and `validate` agree.
    try {
        load(yaml, fileLabel, {}, baseDir);
    } catch (const ScenarioError& e) {
        out.problems = e.diagnostics;
    }
    return out;
}

/// Reads a scenario file's bytes, or says why not (not a regular file, too large, unreadable).
std::string readScenarioBytes(const std::string& path, std::string& text) {
    RegularFile f(path);
    if (!f.ok()) return "cannot open scenario file: " + f.error();
    if (f.size() > kMaxScenarioBytes)
        return "is " + std::to_string(f.size()) + " bytes; scenario files are limited to " +
               std::to_string(kMaxScenarioBytes) + " bytes (8 MiB)";
    // One byte more than the cap, in case the file grew since it was measured.
    text.resize(static_cast<std::size_t>(f.size()) + 1);
    const long long got = f.read(text.data(), text.size());
    if (got < 0) return std::string("cannot read scenario file: ") + std::strerror(errno);
    text.resize(static_cast<std::size_t>(got));
    if (text.size() > f.size() && text.size() > kMaxScenarioBytes)
        return "grew beyond " + std::to_string(kMaxScenarioBytes) + " bytes while being read";
    return {};
}

Scenario loadScenarioFile(const std::string& path, const std::vector<Override>& overrides) {
    std::string text;
    if (std::string why = readScenarioBytes(path, text); !why.empty())
        throw ScenarioError({{path, 0, 0, "", why}});
    // Relative data paths are relative to the scenario's folder, as a user who keeps data
    // beside the scenario expects; runs from any working directory then find the same files.
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
    Scenario s = load(text, path, overrides, ec ? std::string() : dir.lexically_normal().string());
    s.sourcePath = path;
    return s;
}

LenientScenario readScenarioFileLenient(const std::string& path) {
    std::string text;
    if (std::string why = readScenarioBytes(path, text); !why.empty())
        throw ScenarioError({{path, 0, 0, "", why}});
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
    LenientScenario out = readScenarioTextLenient(text, path, ec ? std::string() : dir.lexically_normal().string());
    out.scenario.sourcePath = path;
    return out;
}

// --- writing -----------------------------------------------------------------------------

namespace {

/// Numbers go out in their shortest exact form (the emitter's own would print 0.1 as
/// 0.10000000000000001).
std::string num(double v) {
    return formatNumber(v);
}

template <class V> void keyValue(YAML::Emitter& out, const char* key, const V& value) {
    out << YAML::Key << key << YAML::Value << value;
}
void keyNumber(YAML::Emitter& out, const char* key, double v) {
    keyValue(out, key, num(v));
}

using schema::emitFields;

void emitLinkParams(YAML::Emitter& out, const LinkParams& l) {
    emitFields(out, linkSchema(), "", l, [](const LinkField&, YAML::Emitter&, const LinkParams&) { return false; });
}

/// A node or group entry through the node table, in its order; the id, a group's count, the
/// position and a trace's intervals are written here. A node's range-valued keys are single
/// numbers (the validator refuses a range there, but one set in code is written as it is,
/// not cut to its lower end).
void emitNode(YAML::Emitter& out, const NodeSpec& n) {
    out << YAML::BeginMap;
    emitFields(out, nodeSchema(), "", n, [](const NodeField& f, YAML::Emitter& o, const NodeSpec& x) {
        const std::string& p = f.path;
        if (p == "id") {
            keyValue(o, "id", x.id);
        } else if (p == "count") {
            if (x.group) keyValue(o, "count", x.count);
        } else if (p == "position") {
            if (x.hasPosition)
                o << YAML::Key << "position" << YAML::Value << YAML::Flow << YAML::BeginSeq << num(x.x)
                  << num(x.y) << YAML::EndSeq;
        } else if (p == "aggregate") {
            if (x.aggregate) emitAggregate(o, *x.aggregate);
        } else if (p == "availability.offline") {
            if (!x.availability.file.empty() && x.availability.offline.empty()) return true; // a trace file
            o << YAML::Key << "offline" << YAML::Value << YAML::Flow << YAML::BeginSeq;
            for (const auto& iv : x.availability.offline)
                o << YAML::Flow << YAML::BeginSeq << num(iv.fromS) << num(iv.toS) << YAML::EndSeq;
            o << YAML::EndSeq;
        } else {
            return false;
        }
        return true;
    });
    out << YAML::EndMap;
}

void beginList(YAML::Emitter& out, const char* key, bool empty) {
    out << YAML::Key << key << YAML::Value;
    if (empty) out << YAML::Flow; // "[]" on the key's line rather than on a line of its own
    out << YAML::BeginSeq;
}

void emitTopology(YAML::Emitter& out, const Scenario& s) {
    out << YAML::Key << "topology" << YAML::Value << YAML::BeginMap;
    // default_link and the network settings through the table; the lists below.
    emitFields(out, scenarioSchema(), "topology", s, [](const ScenarioField&, YAML::Emitter&, const Scenario&) { return false; });
    const TopologySpec& t = s.topology;
    // One list in memory, two sections in the file: nodes, then groups.
    for (const bool groups : {false, true}) {
        bool empty = true;
        for (const auto& n : t.nodes)
            empty = empty && n.group != groups;
        beginList(out, groups ? "groups" : "nodes", empty);
        for (const auto& n : t.nodes)
            if (n.group == groups) emitNode(out, n);
        out << YAML::EndSeq;
    }
    beginList(out, "links", t.links.empty());
    for (const auto& l : t.links) {
        out << YAML::Flow << YAML::BeginMap;
        keyValue(out, "from", l.from);
        keyValue(out, "to", l.to);
        emitLinkParams(out, l.params);
        out << YAML::EndMap;
    }
    out << YAML::EndSeq << YAML::EndMap;
}

/// The policy's parameters in its documented order, with the defaults of those not given
/// written out so the file shows every knob; unknown keys are kept (the caller validates).
void emitPolicy(YAML::Emitter& out, const char* key, const PolicySpec& p, const PolicyInfo* info) {
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
    keyValue(out, "policy", p.name);
    std::vector<std::string> done;
    if (info)
        for (const auto& param : info->params) {
            keyNumber(out, param.key.c_str(), p.get(param.key, param.defaultValue));
            done.push_back(param.key);
        }
    for (const auto& [k, v] : p.params)
        if (std::find(done.begin(), done.end(), k) == done.end()) keyNumber(out, k.c_str(), v);
    out << YAML::EndMap;
}

} // namespace

std::string saveScenarioText(const Scenario& s) {
    YAML::Emitter out;
    out << YAML::Comment("FogStudio scenario; every key is described in docs/scenario.md");
    out << YAML::BeginMap;
    emitFields(out, scenarioSchema(), "", s, [](const ScenarioField& f, YAML::Emitter& o, const Scenario& x) {
        const std::string& p = f.path;
        if (p == "schema_version") keyValue(o, "schema_version", kScenarioSchemaVersion);
        else if (p == "topology") emitTopology(o, x);
        else if (p == "sync") emitPolicy(o, "sync", x.sync, findSyncPolicy(x.sync.name));
        else if (p == "selection") emitPolicy(o, "selection", x.selection, findSelectionPolicy(x.selection.name));
        else if (p == "events") emitEventsSection(o, x);
        else return false;
        return true;
    });
    emitVariantSections(out, s); // variants, vary, repeats, lesson (core/scenario/variants.h)
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

void saveScenarioFile(const Scenario& s, const std::string& path) {
    const std::string text = saveScenarioText(s);
    // Write beside the target, then rename over it: the rename is atomic, so a failed or
    // interrupted save leaves the old file intact.
    const std::string tmp = path + ".saving";
    auto fail = [&](const std::string& what) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw ScenarioError({{path, 0, 0, "", what}});
    };
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) fail(std::string("cannot write scenario file: ") + std::strerror(errno));
        f << text;
        f.close();
        if (!f) fail("cannot write scenario file (disk full?)");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) fail("cannot replace scenario file: " + ec.message());
}

} // namespace fog
