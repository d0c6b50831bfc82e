#include "core/scenario/variants.h"

#include "core/scenario/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>
#include <set>

namespace fog {

namespace {

thread_local int g_suspended = 0;

/// Top-level keys a variant may not set: they describe the set of runs, not one run.
const std::vector<std::string> kOwnKeys{"variants", "vary", "repeats", "lesson"};

std::string firstKey(const std::string& path) {
    return path.substr(0, path.find_first_of(".["));
}

int lineOf(const YAML::Mark& m) { return m.line >= 0 ? m.line + 1 : 0; }
int columnOf(const YAML::Mark& m) { return m.column >= 0 ? m.column + 1 : 0; }

/// Checks a key path's syntax as --set does; reports at the key's place in the file.
bool checkPath(YamlContext& ctx, const std::string& where, const YAML::Mark& at, const std::string& path) {
    if (path.find('=') != std::string::npos) {
        ctx.error(where, at, "'" + path + "' is not a key path like a.b.c (the value goes after ':', not '=')");
        return false;
    }
    try {
        parseOverride(path + "=0");
    } catch (const ScenarioError& e) {
        ctx.error(where, at, e.diagnostics.empty() ? "is not a key path" : e.diagnostics.front().message);
        return false;
    }
    if (std::find(kOwnKeys.begin(), kOwnKeys.end(), firstKey(path)) != kOwnKeys.end()) {
        ctx.error(where, at, "'" + path + "' cannot be set by a variant or the grid: it describes the set of runs");
        return false;
    }
    return true;
}

/// A map's keys in file order with their marks; false (reported) when it is not a map of
/// scalar keys. Duplicate keys are reported.
bool mapEntries(YamlContext& ctx, const YAML::Node& n, const std::string& path, const std::string& what,
                std::vector<std::pair<YAML::Node, YAML::Node>>& out) {
    if (!n.IsDefined() || n.IsNull()) return true;
    if (!n.IsMap()) {
        ctx.error(path, n.Mark(), "must be " + what + ", got " + describeNode(n));
        return false;
    }
    std::set<std::string> seen;
    for (auto it = n.begin(); it != n.end(); ++it) {
        if (!it->first.IsScalar()) {
            ctx.error(path, it->first.Mark(), "has a key that is not text");
            continue;
        }
        const std::string key = it->first.Scalar();
        if (!seen.insert(key).second) {
            ctx.error(childPath(path, key), it->first.Mark(), "is given twice");
            continue;
        }
        out.emplace_back(it->first, it->second);
    }
    return true;
}

/// Writes a node: in flow style when that fits on a short line, else in block style with its
/// parts written the same way. A function of the value only, so saving is byte-stable.
void emitValue(YAML::Emitter& out, const YAML::Node& n) {
    if (n.IsScalar()) {
        out << n.Scalar();
        return;
    }
    if (!n.IsMap() && !n.IsSequence()) {
        out << YAML::Null;
        return;
    }
    const bool flow = canonicalYaml(n).size() <= 72;
    if (n.IsSequence()) {
        if (flow) out << YAML::Flow;
        out << YAML::BeginSeq;
        for (const auto& item : n) {
            if (flow) out << YAML::Flow;
            emitValue(out, item);
        }
        out << YAML::EndSeq;
        return;
    }
    if (flow) out << YAML::Flow;
    out << YAML::BeginMap;
    for (auto it = n.begin(); it != n.end(); ++it) {
        out << YAML::Key << it->first.Scalar() << YAML::Value;
        if (flow) out << YAML::Flow;
        emitValue(out, it->second);
    }
    out << YAML::EndMap;
}

/// Multi-line text as a literal block, one line as a plain (or quoted) scalar.
void emitText(YAML::Emitter& out, const char* key, const std::string& text) {
    if (text.empty()) return;
    out << YAML::Key << key << YAML::Value;
    if (text.find('\n') != std::string::npos) out << YAML::Literal;
    out << text;
}

/// Where a problem found in a variant's load belongs: the setting that caused it.
void relabel(Diagnostic& d, const std::string& fileLabel, const VariantSpec& v, const std::string& who) {
    if (d.file == "--set") {
        const VariantSpec::Setting* best = nullptr;
        for (const auto& s : v.set)
            if (d.path.empty() || pathWithin(d.path, s.path) || pathWithin(s.path, d.path)) {
                best = &s;
                break;
            }
        d.file = fileLabel;
        d.line = best ? best->line : v.line;
        d.column = best ? best->column : v.column;
        if (best && d.path.empty()) d.path = best->path;
    }
    d.message += " (" + who + ")";
}

} // namespace

std::string canonicalYaml(const YAML::Node& n) {
    YAML::Emitter e;
    e.SetMapFormat(YAML::Flow);
    e.SetSeqFormat(YAML::Flow);
    if (n.IsNull() || !n.IsDefined()) e << YAML::Null;
    else e << n;
    return e.c_str();
}

void readLesson(MapReader& root, LessonSpec& out) {
    if (!root.has("lesson")) return;
    YamlContext& ctx = root.context();
    MapReader m(ctx, root.node("lesson"), root.pathOf("lesson"));
    if (!m.valid()) return;
    LessonSpec l;
    m.require("number", "the lesson's place in docs/lessons.md (1, 2, ...)");
    if (m.get("number", l.number) && (l.number < 1 || l.number > 999)) {
        ctx.error(m.pathOf("number"), m.node("number").Mark(),
                  "must be a whole number from 1 to 999, got " + std::to_string(l.number));
        l.number = 0;
    }
    m.require("title", "the lesson's heading");
    m.get("title", l.title);
    m.get("source", l.source);
    m.require("question", "what the lesson asks");
    m.get("question", l.question);
    m.get("look_for", l.lookFor);
    forEachItem(ctx, m.node("steps"), m.pathOf("steps"), [&](const YAML::Node& item, const std::string& p, std::size_t) {
        std::string step;
        if (readValue(ctx, item, p, step)) l.steps.push_back(step);
    });
    m.get("body", l.body);
    // Texts end without a newline: a literal block (`|`) adds one, `|-` does not, and a saved
    // lesson must read back the same whichever the author wrote.
    for (std::string* t : {&l.source, &l.question, &l.lookFor, &l.body})
        while (!t->empty() && t->back() == '\n') t->pop_back();
    for (auto& t : l.steps)
        while (!t.empty() && t.back() == '\n') t.pop_back();
    out = std::move(l);
}

void emitLesson(YAML::Emitter& out, const LessonSpec& l) {
    if (l.empty()) return;
    out << YAML::Key << "lesson" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "number" << YAML::Value << l.number;
    out << YAML::Key << "title" << YAML::Value << l.title;
    emitText(out, "source", l.source);
    emitText(out, "question", l.question);
    emitText(out, "look_for", l.lookFor);
    if (!l.steps.empty()) {
        out << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
        for (const auto& s : l.steps) {
            if (s.find('\n') != std::string::npos) out << YAML::Literal;
            out << s;
        }
        out << YAML::EndSeq;
    }
    emitText(out, "body", l.body);
    out << YAML::EndMap;
}

void readVariantSections(MapReader& root, Scenario& s) {
    YamlContext& ctx = root.context();
    if (root.has("repeats")) {
        int r = 1;
        if (root.get("repeats", r)) {
            if (r < 1 || r > kMaxRepeats)
                ctx.error("repeats", root.node("repeats").Mark(),
                          "must be a whole number from 1 to " + std::to_string(kMaxRepeats) + ", got " + std::to_string(r));
            else
                s.repeats = r;
        }
    }
    // Refused before anything is read (or checked): each variant is checked by a load of the
    // file, so 10,001 of them would cost minutes to be refused at the end.
    if (const YAML::Node list = root.node("variants"); list.IsSequence() && list.size() > static_cast<std::size_t>(kMaxVariantConfigurations)) {
        ctx.error("variants", list.Mark(),
                  "holds " + std::to_string(list.size()) + " variants; at most " +
                      std::to_string(kMaxVariantConfigurations) + " configurations are run from one file");
        readLesson(root, s.lesson);
        root.node("vary"); // known keys: no "unknown key" reports for them
        return;
    }
    std::set<std::string> names;
    forEachItem(ctx, root.node("variants"), "variants", [&](const YAML::Node& item, const std::string& p, std::size_t) {
        MapReader m(ctx, item, p);
        if (!m.valid()) return;
        VariantSpec v;
        v.line = lineOf(item.Mark());
        v.column = columnOf(item.Mark());
        m.require("name", "what the variant's runs are labelled");
        if (m.get("name", v.name)) {
            const YAML::Mark at = m.node("name").Mark();
            if (v.name.empty() || v.name.find_first_not_of(" \t") == std::string::npos)
                ctx.error(m.pathOf("name"), at, "must not be empty");
            else if (!names.insert(v.name).second)
                ctx.error(m.pathOf("name"), at, "'" + v.name + "' names another variant too; names must differ");
        }
        std::vector<std::pair<YAML::Node, YAML::Node>> entries;
        const std::string setPath = m.pathOf("set");
        mapEntries(ctx, m.node("set"), setPath, "a map of key paths to values, e.g. {sync.policy: n-sync, sync.n: 4}",
                   entries);
        for (const auto& [key, value] : entries) {
            const std::string path = key.Scalar();
            const std::string where = childPath(setPath, path);
            ctx.remember(where, key.Mark());
            if (!checkPath(ctx, where, key.Mark(), path)) continue;
            v.set.push_back({path, canonicalYaml(value), lineOf(key.Mark()), columnOf(key.Mark())});
        }
        s.variants.push_back(std::move(v));
    });
    std::vector<std::pair<YAML::Node, YAML::Node>> axes;
    mapEntries(ctx, root.node("vary"), "vary", "a map of key paths to lists of values, e.g. {sync.n: [2, 4, 6]}", axes);
    for (const auto& [key, values] : axes) {
        const std::string path = key.Scalar();
        const std::string where = childPath("vary", path);
        ctx.remember(where, key.Mark());
        if (!checkPath(ctx, where, key.Mark(), path)) continue;
        if (!values.IsSequence() || values.size() == 0) {
            ctx.error(where, values.Mark(), "must be a list of one or more values, e.g. [2, 4, 6], got " + describeNode(values));
            continue;
        }
        VarySpec axis{path, {}, lineOf(key.Mark()), columnOf(key.Mark())};
        for (const auto& v : values) axis.values.push_back(canonicalYaml(v));
        s.vary.push_back(std::move(axis));
    }
    double configs = std::max<std::size_t>(1, s.variants.size());
    for (const auto& a : s.vary) configs *= static_cast<double>(a.values.size());
    if (configs > kMaxVariantConfigurations) {
        const std::string at = root.has("vary") ? "vary" : "variants";
        ctx.error(at, root.node(at).Mark(),
                  "makes " + formatNumber(configs) + " configurations; at most " +
                      std::to_string(kMaxVariantConfigurations) + " are run from one file");
        s.vary.clear();
        s.variants.clear(); // and none of them is checked (a load each)
    }
    readLesson(root, s.lesson);
}

void emitVariantSections(YAML::Emitter& out, const Scenario& s) {
    if (!s.variants.empty()) {
        out << YAML::Key << "variants" << YAML::Value << YAML::BeginSeq;
        for (const auto& v : s.variants) {
            out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << v.name;
            out << YAML::Key << "set" << YAML::Value;
            YAML::Node set(YAML::NodeType::Map);
            for (const auto& st : v.set) set[st.path] = YAML::Load(st.value);
            emitValue(out, set);
            out << YAML::EndMap;
        }
        out << YAML::EndSeq;
    }
    if (!s.vary.empty()) {
        out << YAML::Key << "vary" << YAML::Value << YAML::BeginMap;
        for (const auto& a : s.vary) {
            YAML::Node list(YAML::NodeType::Sequence);
            for (const auto& v : a.values) list.push_back(YAML::Load(v));
            out << YAML::Key << a.path << YAML::Value;
            emitValue(out, list);
        }
        out << YAML::EndMap;
    }
    if (s.repeats != 1) out << YAML::Key << "repeats" << YAML::Value << s.repeats;
    emitLesson(out, s.lesson);
}

bool inVariantSections(const std::string& path) {
    return std::find(kOwnKeys.begin(), kOwnKeys.end(), firstKey(path)) != kOwnKeys.end();
}

SuspendVariantChecks::SuspendVariantChecks() { ++g_suspended; }
SuspendVariantChecks::~SuspendVariantChecks() { --g_suspended; }

bool hasVariants(const Scenario& s) { return !s.variants.empty() || !s.vary.empty() || s.repeats > 1; }

std::vector<Diagnostic> checkVariants(const Scenario& base, const std::string& fileLabel, const VariantLoader& load) {
    std::vector<Diagnostic> out;
    if (g_suspended > 0 || (base.variants.empty() && base.vary.empty())) return out;
    SuspendVariantChecks suspend;
    for (const auto& v : base.variants) {
        std::vector<Override> o;
        for (const auto& st : v.set) o.push_back({st.path, st.value});
        try {
            load(o);
        } catch (const ScenarioError& e) {
            for (Diagnostic d : e.diagnostics) {
                if (inVariantSections(d.path) && d.file != "--set") continue; // the base load says it
                relabel(d, fileLabel, v, "variant '" + v.name + "'");
                out.push_back(std::move(d));
            }
        }
    }
    for (const auto& a : base.vary)
        for (const auto& value : a.values) {
            VariantSpec as;
            as.set.push_back({a.path, value, a.line, a.column});
            as.line = a.line;
            as.column = a.column;
            try {
                load({{a.path, value}});
            } catch (const ScenarioError& e) {
                for (Diagnostic d : e.diagnostics) {
                    if (inVariantSections(d.path) && d.file != "--set") continue;
                    relabel(d, fileLabel, as, "vary " + a.path + "=" + value);
                    out.push_back(std::move(d));
                }
            }
        }
    return out;
}

std::vector<VariantConfig> variantConfigurations(const Scenario& s, const std::string& only) {
    std::vector<VariantConfig> configs;
    if (s.variants.empty()) {
        if (!only.empty())
            throw ScenarioError({{s.sourcePath.empty() ? "--variant" : s.sourcePath, 0, 0, "",
                                  "has no variants, so there is no variant '" + only + "'"}});
        configs.push_back({});
    }
    std::vector<std::string> names;
    for (const auto& v : s.variants) {
        names.push_back(v.name);
        if (!only.empty() && v.name != only) continue;
        VariantConfig c;
        c.label = c.variant = v.name;
        for (const auto& st : v.set) c.overrides.push_back({st.path, st.value});
        configs.push_back(std::move(c));
    }
    if (configs.empty())
        throw ScenarioError({{"--variant", 0, 0, "", "there is no variant '" + only + "'" + didYouMean(only, names) +
                                                        "; the file has " + joinNames(names)}});
    for (const auto& axis : s.vary) {
        std::vector<VariantConfig> next;
        for (const auto& c : configs)
            for (const auto& v : axis.values) {
                VariantConfig n = c;
                n.overrides.push_back({axis.path, v});
                n.label += (n.label.empty() ? "" : " ") + axis.path + "=" + v;
                next.push_back(std::move(n));
            }
        configs = std::move(next);
    }
    for (auto& c : configs)
        if (c.label.empty()) c.label = "(base)";
    return configs;
}

Scenario withoutVariants(Scenario s) {
    s.variants.clear();
    s.vary.clear();
    s.repeats = 1;
    s.lesson = LessonSpec{};
    return s;
}

Scenario loadVariantBase(const std::string& path, const std::vector<Override>& overrides) {
    try {
        return loadScenarioFile(path, overrides);
    } catch (const ScenarioError&) {
        const std::exception_ptr withOverrides = std::current_exception();
        std::vector<Override> sections;
        for (const auto& o : overrides)
            if (inVariantSections(o.path)) sections.push_back(o);
        if (sections.size() == overrides.size()) throw;
        Scenario bare;
        try {
            bare = loadScenarioFile(path, sections);
        } catch (const ScenarioError&) {
            std::rethrow_exception(withOverrides);
        }
        if (bare.variants.empty() && bare.vary.empty()) std::rethrow_exception(withOverrides);
        return bare;
    }
}

Scenario loadVariantFile(const std::string& path, const std::string& name, const std::vector<Override>& overrides) {
    const Scenario base = loadVariantBase(path, overrides);
    const auto configs = variantConfigurations(base, name);
    std::vector<Override> all = configs.front().overrides;
    all.insert(all.end(), overrides.begin(), overrides.end());
    SuspendVariantChecks checked; // the file's variants were checked by the load above
    return withoutVariants(loadScenarioFile(path, all));
}

} // namespace fog
