// Cluster scenario files: YAML -> ClusterScenario with located diagnostics and back, through
// the tables of cluster_schema.h with the training scenario's machinery: its checked reader
// (core/scenario/yaml_reader.h), its table reader, writer and bounds (schema_yaml.h) and its
// --set (yaml_set.h). The lists, the scheduler section and the rules between keys are here.

#include "core/cluster/cluster_io.h"
#include "core/util/portable_math.h"

#include "core/cluster/cluster_schema.h"
#include "core/cluster/cluster_scheduler.h"
#include "core/data/regular_file.h"
#include "core/scenario/schema_yaml.h"
#include "core/scenario/variants.h"
#include "core/scenario/yaml_reader.h"
#include "core/scenario/yaml_set.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <regex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fog::cluster {

namespace {

/// Reads the list at `key` of `m` (required, said as `what`), one item at a time.
template <class F> void readList(MapReader& m, const std::string& key, const std::string& what, F&& item) {
    m.require(key, what);
    forEachItem(m.context(), m.node(key), m.pathOf(key), [&](const YAML::Node& n, const std::string& p, std::size_t) {
        MapReader r(m.context(), n, p);
        item(r);
    });
}

/// The scheduler section: a name, or a map with the name and the keys its descriptor reads.
void readScheduler(MapReader& m, SchedulerSpec& out) {
    if (!m.has("scheduler")) return;
    YamlContext& ctx = m.context();
    const YAML::Node n = m.node("scheduler");
    if (n.IsScalar()) {
        readValue(ctx, n, "scheduler", out.name);
        return;
    }
    MapReader sm(ctx, n, "scheduler");
    sm.require("name", "one of " + joinNames(schedulerNames()));
    sm.get("name", out.name);
    const std::string& name = out.name;
    // The section's other keys belong to the schedulers whose descriptors list them.
    const SchedulerInfo* info = findScheduler(name);
    const auto usedBy = [&](const std::string& key) {
        if (info && info->uses(key)) return true;
        sm.notApplicable(key, "is only used with name: " + joinNames(schedulersUsing(key)) + ", not " + name);
        return false;
    };
    if (sm.has("policy") && usedBy("policy")) sm.get("policy", out.policyFile);
    if (sm.has("thresholds") && usedBy("thresholds")) {
        std::vector<double> th;
        forEachItem(ctx, sm.node("thresholds"), sm.pathOf("thresholds"),
                    [&](const YAML::Node& x, const std::string& xp, std::size_t) {
                        double v = 0;
                        if (readValue(ctx, x, xp, v)) th.push_back(v);
                    });
        out.thresholds = th;
    }
}

/// The file through the tables (cluster_schema.h): the lists, the scheduler and the
/// version check by code of their own, every other key as the table says.
bool readClusterScenario(YamlContext& ctx, const YAML::Node& root, ClusterScenario& s) {
    MapReader m(ctx, root, "");
    if (!m.valid()) return false;
    if (m.get("schema_version", s.schemaVersion) && s.schemaVersion > kClusterSchemaVersion) {
        ctx.error("schema_version", m.node("schema_version").Mark(),
                  "is " + std::to_string(s.schemaVersion) + ", but this FogStudio reads cluster scenarios up to " +
                      std::to_string(kClusterSchemaVersion) + "; a newer FogStudio wrote this file");
        m.remainingKeys();
        return false;
    }
    std::string kind;
    m.require("kind", "'cluster' for a cluster scenario");
    if (m.get("kind", kind) && kind != "cluster")
        ctx.error("kind", m.node("kind").Mark(), "must be 'cluster' for a cluster scenario, got '" + kind + "'");
    schema::readFields(m, clusterSchema(), "", s, [&](const ClusterField& f, MapReader& r, ClusterScenario& t) {
        const std::string& p = f.path;
        if (p == "schema_version" || p == "kind") return true; // above
        if (p == "clusters") {
            readList(r, "clusters", "a list of edge clusters, each with servers", [&](MapReader& cm) {
                ClusterSpec c;
                cm.require("id", "a unique name");
                schema::readFields(cm, clusterEntrySchema(), "", c, [&](const ClusterEntryField& g, MapReader& sr, ClusterSpec& x) {
                    if (g.path != "servers") return false;
                    readList(sr, "servers", "a list of servers with cpus and gpus", [&](MapReader& vm) {
                        ServerSpec v;
                        vm.require("id", "a unique name");
                        schema::readFields(vm, serverSchema(), "", v);
                        x.servers.push_back(std::move(v));
                    });
                    return true;
                });
                t.clusters.push_back(std::move(c));
            });
        } else if (p == "task_types") {
            readList(r, "task_types", "a list of task types", [&](MapReader& tm) {
                TaskType type;
                tm.require("name", "a unique name");
                schema::readFields(tm, taskTypeSchema(), "", type);
                t.taskTypes.push_back(std::move(type));
            });
        } else if (p == "arrivals.file") {
            r.require("file", "a CSV file time,type[,work]");
            return false; // read as the table says
        } else if (p == "scheduler") {
            readScheduler(r, t.scheduler);
        } else {
            return false;
        }
        return true;
    });
    readLesson(m, s.lesson); // a preset's lesson text (core/scenario/variants.h)
    return true;
}

// ---- --set overrides on cluster files ------------------------------------------------
// The same `key.path[i].key=value` mechanism as training scenarios (core/scenario/yaml_set.h),
// applied to the YAML tree before it is read, so the reader checks an overridden value like
// any other. Cluster files may append a list item (clusters[3].id=...) and write the
// scheduler by its name alone.

const SetOptions kClusterSet = {true, {{"scheduler", "name"}}};

bool positive(double v) { return std::isfinite(v) && v > 0; }

std::string resolve(const std::string& baseDir, const std::string& file) {
    if (file.empty() || baseDir.empty() || std::filesystem::path(file).is_absolute()) return file;
    return (std::filesystem::path(baseDir) / file).lexically_normal().string();
}

} // namespace

const char* toString(WorkSpec::Kind k) {
    switch (k) {
    case WorkSpec::Kind::Fixed: return "fixed";
    case WorkSpec::Kind::Exponential: return "exponential";
    case WorkSpec::Kind::Uniform: return "uniform";
    }
    return "?";
}

const char* toString(ArrivalSpec::Kind k) {
    return k == ArrivalSpec::Kind::Poisson ? "poisson" : "trace";
}

double taskSpeed(const TaskType& t, int cpus, int gpus) {
    const double c = std::min(cpus, t.max.cpus), g = std::min(gpus, t.max.gpus);
    const double fc = t.speed.cpuExponent == 0.0 ? 1.0 : pmath::pow(std::max(c, 0.0), t.speed.cpuExponent);
    const double fg = t.speed.gpuExponent == 0.0 ? 1.0 : pmath::pow(std::max(g, 0.0), t.speed.gpuExponent);
    return t.speed.base * fc * fg;
}

std::vector<ServerRef> flattenServers(const ClusterScenario& s) {
    std::vector<ServerRef> out;
    for (std::size_t c = 0; c < s.clusters.size(); ++c)
        for (const auto& srv : s.clusters[c].servers) out.push_back({static_cast<int>(c), &srv});
    return out;
}

bool isClusterScenarioText(const std::string& yaml) {
    // A line scan, not a parse: this only routes a file to its reader, which then parses it
    // with the loader's limits. A top-level `kind: cluster` (quoted or not, with a comment).
    static const std::regex kind(R"(^kind:[ \t]*(cluster|"cluster"|'cluster')[ \t]*(#.*)?\r?$)");
    std::size_t start = 0;
    while (start < yaml.size()) {
        std::size_t end = yaml.find('\n', start);
        if (end == std::string::npos) end = yaml.size();
        if (yaml.compare(start, 5, "kind:") == 0 && std::regex_match(yaml.begin() + start, yaml.begin() + end, kind))
            return true;
        start = end + 1;
    }
    return false;
}

bool isClusterScenarioFile(const std::string& path) {
    std::string text;
    if (!readScenarioBytes(path, text).empty()) return false; // the scenario loader says why
    return isClusterScenarioText(text);
}

std::vector<Diagnostic> validateClusterScenario(const ClusterScenario& s) {
    // The bounds of every key are the tables' (cluster_schema.cpp); the rules between keys
    // and items are here.
    std::vector<Diagnostic> out;
    auto err = [&](const std::string& path, const std::string& msg) { out.push_back({"", 0, 0, path, msg}); };
    schema::checkBounds(clusterSchema(), s, "", out);
    if (s.clusters.empty()) err("clusters", "must list at least one cluster");
    std::set<std::string> ids;
    for (std::size_t c = 0; c < s.clusters.size(); ++c) {
        const auto& cl = s.clusters[c];
        const std::string cp = itemPath("clusters", c);
        if (cl.id.empty()) err(childPath(cp, "id"), "must not be empty");
        else if (!ids.insert(cl.id).second) err(childPath(cp, "id"), "'" + cl.id + "' is used twice");
        if (cl.servers.empty()) err(childPath(cp, "servers"), "must list at least one server");
        for (std::size_t i = 0; i < cl.servers.size(); ++i) {
            const auto& srv = cl.servers[i];
            const std::string sp = itemPath(childPath(cp, "servers"), i);
            if (srv.id.empty()) err(childPath(sp, "id"), "must not be empty");
            else if (!ids.insert(srv.id).second) err(childPath(sp, "id"), "'" + srv.id + "' is used twice");
            schema::checkBounds(serverSchema(), srv, sp, out);
            if (srv.cpus == 0 && srv.gpus == 0)
                err(sp, "has zero capacity (cpus: 0, gpus: 0): no task can ever run on it");
        }
    }
    if (s.taskTypes.empty()) err("task_types", "must list at least one task type");
    std::set<std::string> names;
    double totalWeight = 0;
    const auto servers = flattenServers(s);
    for (std::size_t i = 0; i < s.taskTypes.size(); ++i) {
        const auto& t = s.taskTypes[i];
        const std::string tp = itemPath("task_types", i);
        if (t.name.empty()) err(childPath(tp, "name"), "must not be empty");
        else if (!names.insert(t.name).second) err(childPath(tp, "name"), "'" + t.name + "' is used twice");
        schema::checkBounds(taskTypeSchema(), t, tp, out);
        if (t.probability >= 0 && std::isfinite(t.probability)) totalWeight += t.probability;
        const std::string wp = childPath(tp, "work");
        if (t.work.kind == WorkSpec::Kind::Uniform && positive(t.work.min) && positive(t.work.max) &&
            !(t.work.min <= t.work.max))
            err(wp, "uniform work needs 0 < min <= max, got min " + formatNumber(t.work.min) + ", max " +
                        formatNumber(t.work.max));
        if (t.max.cpus < t.min.cpus || t.max.gpus < t.min.gpus)
            err(childPath(tp, "max"), "must be at least min (" + std::to_string(t.min.cpus) + " cpus, " +
                                          std::to_string(t.min.gpus) + " gpus) in both resources");
        if (t.request.cpus < t.min.cpus || t.request.gpus < t.min.gpus || t.request.cpus > t.max.cpus ||
            t.request.gpus > t.max.gpus)
            err(childPath(tp, "request"), "must lie between min and max in both resources");
        if (t.speed.gpuExponent > 0 && t.min.gpus < 1)
            err(childPath(childPath(tp, "min"), "gpus"), "must be >= 1 when speed.gpu_exponent > 0 (on 0 GPUs the task would never progress)");
        if (!servers.empty() && t.min.cpus >= 1) {
            bool fitsMin = false, fitsRequest = false;
            for (const auto& r : servers) {
                const auto& v = *r.spec;
                const bool room = v.memoryGb >= t.memoryGb && v.bandwidthGbps >= t.bandwidthGbps;
                fitsMin |= room && v.cpus >= t.min.cpus && v.gpus >= t.min.gpus;
                fitsRequest |= room && v.cpus >= t.request.cpus && v.gpus >= t.request.gpus;
            }
            if (!fitsMin)
                err(tp, "'" + t.name + "' fits no server: it needs at least " + std::to_string(t.min.cpus) + " cpus, " +
                            std::to_string(t.min.gpus) + " gpus, " + formatNumber(t.memoryGb) + " GB memory and " +
                            formatNumber(t.bandwidthGbps) + " Gbps, more than any server has");
            else if (!fitsRequest)
                err(childPath(tp, "request"), "fits no server (" + std::to_string(t.request.cpus) + " cpus, " +
                                                  std::to_string(t.request.gpus) + " gpus): schedulers using the request could never start it");
        }
    }
    if (!s.taskTypes.empty() && totalWeight <= 0) err("task_types", "the probabilities sum to 0: no task type can arrive");
    const auto known = schedulerNames();
    if (std::find(known.begin(), known.end(), s.scheduler.name) == known.end())
        err(s.scheduler.name.empty() ? "scheduler" : "scheduler.name",
            "unknown scheduler '" + s.scheduler.name + "'" + didYouMean(s.scheduler.name, known) + "; known: " +
                joinNames(known));
    for (std::size_t i = 0; i < s.scheduler.thresholds.size(); ++i)
        if (!positive(s.scheduler.thresholds[i]) || (i > 0 && s.scheduler.thresholds[i] <= s.scheduler.thresholds[i - 1]))
            err(itemPath("scheduler.thresholds", i), "must be > 0 and increasing, got " + formatNumber(s.scheduler.thresholds[i]));
    return out;
}

std::vector<TraceArrival> readArrivalTrace(const std::string& path, const std::vector<TaskType>& types,
                                           std::vector<Diagnostic>& problems) {
    std::vector<TraceArrival> out;
    // Only a regular file: a FIFO or a device named as a trace would block or never end.
    FileStamp stamp;
    if (std::string why = checkRegularFile(path, &stamp); !why.empty()) {
        problems.push_back({path, 0, 0, "", "cannot open arrival trace: " + why});
        return out;
    }
    // Sized before reading: a sparse 2 GiB file is one 2 GiB line of zeros.
    constexpr std::uint64_t kMaxTraceBytes = std::uint64_t(64) << 20;
    if (stamp.size > kMaxTraceBytes) {
        problems.push_back({path, 0, 0, "",
                            "arrival traces are limited to " + std::to_string(kMaxTraceBytes) + " bytes; this file has " +
                                std::to_string(stamp.size)});
        return out;
    }
    // A bad trace of a million rows gives the first problems, not a million lines.
    constexpr std::size_t kMaxTraceProblems = 50;
    const std::size_t problemsBefore = problems.size();
    std::ifstream in(path);
    if (!in) {
        problems.push_back({path, 0, 0, "", std::string("cannot open arrival trace: ") + std::strerror(errno)});
        return out;
    }
    std::string line;
    int lineNo = 0;
    int timeCol = -1, typeCol = -1, workCol = -1;
    double last = 0;
    auto bad = [&](int col, const std::string& field, const std::string& msg) {
        problems.push_back({path, lineNo, col, field, msg});
    };
    while (std::getline(in, line)) {
        ++lineNo;
        if (problems.size() - problemsBefore >= kMaxTraceProblems) {
            problems.push_back({path, lineNo, 0, "",
                                "and maybe more problems from here on (only the first " +
                                    std::to_string(kMaxTraceProblems) + " are listed)"});
            return out;
        }
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cells;
        std::vector<int> cols;
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = line.find(',', start);
            std::string cell = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            const auto b = cell.find_first_not_of(" \t"), e = cell.find_last_not_of(" \t");
            cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
            cols.push_back(static_cast<int>(start) + 1);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
        if (timeCol < 0) { // the header
            for (std::size_t i = 0; i < cells.size(); ++i) {
                if (cells[i] == "time") timeCol = static_cast<int>(i);
                else if (cells[i] == "type") typeCol = static_cast<int>(i);
                else if (cells[i] == "work") workCol = static_cast<int>(i);
            }
            if (timeCol < 0 || typeCol < 0) {
                // Nothing of the line is quoted: a file that is not a trace (a system file a
                // stored scenario names) must not have its contents printed.
                bad(1, "", "is not an arrival trace: its first line must be the header time,type[,work] (the "
                           "line's text is not shown)");
                return out;
            }
            for (std::size_t i = 0; i < cells.size(); ++i)
                if (cells[i] != "time" && cells[i] != "type" && cells[i] != "work")
                    bad(cols[i], "", "unknown column " + fog::quoted(cells[i]) + "; expected time, type and optionally work");
            continue;
        }
        TraceArrival a;
        const int need = std::max({timeCol, typeCol, workCol});
        if (static_cast<int>(cells.size()) <= need) {
            bad(1, "", "has " + std::to_string(cells.size()) + " fields, the header names " + std::to_string(need + 1));
            continue;
        }
        if (!parseNumber(cells[timeCol], a.time) || !std::isfinite(a.time) || a.time < 0) {
            bad(cols[timeCol], "time", "must be a number >= 0, got " + fog::quoted(cells[timeCol]));
            continue;
        }
        if (a.time < last) {
            bad(cols[timeCol], "time", "goes back in time (" + fog::quoted(cells[timeCol]) + " after " + formatNumber(last) + "); sort the trace by time");
            continue;
        }
        last = a.time;
        const std::string& ty = cells[typeCol];
        a.type = -1;
        for (std::size_t i = 0; i < types.size(); ++i)
            if (types[i].name == ty) a.type = static_cast<int>(i);
        if (a.type < 0) {
            double idx = 0;
            if (parseNumber(ty, idx) && idx >= 0 && idx < types.size() && idx == std::floor(idx)) a.type = static_cast<int>(idx);
        }
        if (a.type < 0) {
            std::vector<std::string> tn;
            for (const auto& t : types) tn.push_back(t.name);
            bad(cols[typeCol], "type", "unknown task type " + fog::quoted(ty) + didYouMean(ty, tn) + "; known: " + joinNames(tn));
            continue;
        }
        if (workCol >= 0 && !cells[workCol].empty()) {
            if (!parseNumber(cells[workCol], a.work) || !positive(a.work)) {
                bad(cols[workCol], "work", "must be a number > 0 (or empty: drawn from the type), got " + fog::quoted(cells[workCol]));
                continue;
            }
        }
        out.push_back(a);
        if (out.size() > static_cast<std::size_t>(kMaxClusterTasks)) {
            problems.push_back({path, lineNo, 0, "",
                                "holds more than " + std::to_string(kMaxClusterTasks) + " arrivals, the most a run takes"});
            return out;
        }
    }
    if (timeCol >= 0 && out.empty() && problems.empty()) problems.push_back({path, lineNo, 0, "", "has no arrivals"});
    if (timeCol < 0 && problems.empty()) problems.push_back({path, 0, 0, "", "is empty: expected a header time,type[,work]"});
    return out;
}

ClusterScenario loadClusterScenarioText(const std::string& yaml, const std::string& label, const std::string& baseDir,
                                        const std::vector<Override>& overrides) {
    YamlContext ctx(label);
    YAML::Node root;
    if (!parseScenarioDocument(ctx, yaml, root)) throw ScenarioError(ctx.diagnostics());
    std::vector<Diagnostic> setErrors;
    std::vector<std::string> touched;
    if (!overrides.empty() && !root.IsMap()) {
        // Not a map: the reader says so at the file's position; overrides cannot apply.
    } else {
        for (const auto& o : overrides) applyOverride(root, o, setErrors, touched, kClusterSet);
    }
    if (!overrides.empty()) {
        // A --set value may bring its own anchors and aliases: count again, with them.
        constexpr std::size_t kBudget = 1000000;
        YAML::Mark where;
        if (countExpandedValues(root, kBudget, where) > kBudget) {
            setErrors.push_back({kSetLabel, 0, 0, "", "with the --set values, the scenario holds more than " +
                                                          std::to_string(kBudget) + " values"});
            throw ScenarioError(setErrors);
        }
    }
    // Problems in values given with --set have no place in the file: say where they came from.
    auto relabel = [&](std::vector<Diagnostic> all) {
        for (Diagnostic& d : all)
            for (const auto& t : touched)
                // Below a value set there, or about a section it changed (a server whose
                // capacities were both set to 0).
                if (d.file == label && (pathWithin(d.path, t) || (!d.path.empty() && pathWithin(t, d.path)))) {
                    d.file = kSetLabel;
                    d.line = d.column = 0;
                }
        all.insert(all.begin(), setErrors.begin(), setErrors.end());
        return all;
    };
    ClusterScenario s;
    ctx.remember("", root.Mark()); // missing top-level keys are located at the document's start
    bool readable = false;
    try {
        readable = readClusterScenario(ctx, root, s);
    } catch (const YAML::Exception& e) {
        ctx.error("", e.mark, std::string("cannot read the cluster scenario: ") + e.what());
    }
    if (!readable) throw ScenarioError(relabel(ctx.diagnostics()));
    const std::vector<Diagnostic> readErrors = ctx.diagnostics();
    for (const auto& d : validateClusterScenario(s)) {
        const bool shadowed = std::any_of(readErrors.begin(), readErrors.end(), [&](const Diagnostic& r) {
            return !r.path.empty() && (pathWithin(d.path, r.path) || pathWithin(r.path, d.path));
        });
        if (!shadowed) ctx.error(d.path, d.message);
    }
    s.arrivals.traceResolved = resolve(baseDir, s.arrivals.traceFile);
    s.scheduler.policyResolved = resolve(baseDir, s.scheduler.policyFile);
    std::vector<Diagnostic> all = relabel(ctx.diagnostics());
    if (all.empty() && s.arrivals.kind == ArrivalSpec::Kind::Trace) {
        std::vector<Diagnostic> traceProblems;
        s.arrivals.trace = readArrivalTrace(s.arrivals.traceResolved, s.taskTypes, traceProblems);
        if (!traceProblems.empty()) {
            ctx.error("arrivals.file", "names a trace with problems (listed below)");
            all = relabel(ctx.diagnostics());
            all.insert(all.end(), traceProblems.begin(), traceProblems.end());
        }
    }
    if (!all.empty()) {
        // --set problems first, then this file's by position, then other files' (a trace).
        auto rank = [&](const Diagnostic& d) { return d.file == kSetLabel ? 0 : d.file == label ? 1 : 2; };
        std::stable_sort(all.begin(), all.end(), [&](const Diagnostic& a, const Diagnostic& b) {
            if (rank(a) != rank(b)) return rank(a) < rank(b);
            return a.line != b.line ? a.line < b.line : a.column < b.column;
        });
        throw ScenarioError(std::move(all));
    }
    if (overrides.empty()) {
        s.sourceText = yaml;
    } else {
        std::string header = "# " + label + " with";
        for (const auto& o : overrides) header += " --set " + o.path + "=" + o.value;
        YAML::Emitter out;
        out << root;
        s.sourceText = header + "\n" + out.c_str() + "\n";
    }
    return s;
}

ClusterScenario loadClusterScenarioFile(const std::string& path, const std::vector<Override>& overrides) {
    std::string text;
    if (std::string why = readScenarioBytes(path, text); !why.empty())
        throw ScenarioError({{path, 0, 0, "", why}});
    ClusterScenario s = loadClusterScenarioText(text, path, std::filesystem::path(path).parent_path().string(), overrides);
    s.sourcePath = path;
    return s;
}

} // namespace fog::cluster

namespace fog::cluster {

std::string saveClusterScenarioText(const ClusterScenario& s) {
    // Every key through the tables, in their order; the lists, the version and the
    // scheduler's own keys here.
    YAML::Emitter out;
    out << YAML::BeginMap;
    schema::emitFields(out, clusterSchema(), "", s, [](const ClusterField& f, YAML::Emitter& o, const ClusterScenario& x) {
        const std::string& p = f.path;
        if (p == "schema_version") {
            o << YAML::Key << "schema_version" << YAML::Value << kClusterSchemaVersion;
        } else if (p == "kind") {
            o << YAML::Key << "kind" << YAML::Value << "cluster";
        } else if (p == "description") {
            if (!x.description.empty()) o << YAML::Key << "description" << YAML::Value << YAML::Literal << x.description;
        } else if (p == "clusters") {
            o << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq;
            for (const auto& c : x.clusters) {
                o << YAML::BeginMap;
                schema::emitFields(o, clusterEntrySchema(), "", c, [](const ClusterEntryField& g, YAML::Emitter& e, const ClusterSpec& y) {
                    if (g.path != "servers") return false;
                    e << YAML::Key << "servers" << YAML::Value << YAML::BeginSeq;
                    for (const auto& v : y.servers) {
                        e << YAML::Flow << YAML::BeginMap;
                        schema::emitFields(e, serverSchema(), "", v);
                        e << YAML::EndMap;
                    }
                    e << YAML::EndSeq;
                    return true;
                });
                o << YAML::EndMap;
            }
            o << YAML::EndSeq;
        } else if (p == "task_types") {
            o << YAML::Key << "task_types" << YAML::Value << YAML::BeginSeq;
            for (const auto& t : x.taskTypes) {
                o << YAML::BeginMap;
                schema::emitFields(o, taskTypeSchema(), "", t);
                o << YAML::EndMap;
            }
            o << YAML::EndSeq;
        } else if (p == "scheduler") {
            o << YAML::Key << "scheduler" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value
              << x.scheduler.name;
            const SchedulerInfo* scheduler = findScheduler(x.scheduler.name);
            if (scheduler && scheduler->uses("policy") && !x.scheduler.policyFile.empty())
                o << YAML::Key << "policy" << YAML::Value << x.scheduler.policyFile;
            if (scheduler && scheduler->uses("thresholds")) {
                o << YAML::Key << "thresholds" << YAML::Value << YAML::Flow << YAML::BeginSeq;
                for (double v : x.scheduler.thresholds)
                    o << formatNumber(v);
                o << YAML::EndSeq;
            }
            o << YAML::EndMap;
        } else {
            return false;
        }
        return true;
    });
    emitLesson(out, s.lesson);
    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

void saveClusterScenarioFile(const ClusterScenario& s, const std::string& path) {
    const std::string text = saveClusterScenarioText(s);
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    f.close();
    if (!f) throw std::runtime_error(path + ": cannot write the cluster scenario: " + std::strerror(errno));
}

} // namespace fog::cluster
