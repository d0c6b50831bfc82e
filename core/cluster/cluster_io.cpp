// Cluster scenario files: YAML -> ClusterScenario with located diagnostics, built on the
// generic checked reader of the training scenario loader (core/scenario/yaml_reader.h).

#include "core/cluster/cluster_io.h"
#include "core/util/portable_math.h"

#include "core/cluster/cluster_scheduler.h"
#include "core/data/regular_file.h"
#include "core/scenario/variants.h"
#include "core/scenario/yaml_reader.h"

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

void readResources(YamlContext& ctx, MapReader& parent, const std::string& key, Resources& r) {
    if (!parent.has(key)) return;
    MapReader m(ctx, parent.node(key), parent.pathOf(key));
    m.get("cpus", r.cpus);
    m.get("gpus", r.gpus);
}

void readTaskType(YamlContext& ctx, const YAML::Node& n, const std::string& path, TaskType& t) {
    MapReader m(ctx, n, path);
    m.require("name", "a unique name");
    m.get("name", t.name);
    m.get("probability", t.probability);
    if (m.has("work")) {
        using K = WorkSpec::Kind;
        MapReader w(ctx, m.node("work"), m.pathOf("work"));
        w.getEnum("kind", t.work.kind, {K::Fixed, K::Exponential, K::Uniform});
        if (w.usedWith("mean", "kind", t.work.kind, {K::Fixed, K::Exponential})) w.get("mean", t.work.mean);
        if (w.usedWith("min", "kind", t.work.kind, {K::Uniform})) w.get("min", t.work.min);
        if (w.usedWith("max", "kind", t.work.kind, {K::Uniform})) w.get("max", t.work.max);
    }
    readResources(ctx, m, "min", t.min);
    readResources(ctx, m, "max", t.max);
    readResources(ctx, m, "request", t.request);
    if (m.has("speed")) {
        MapReader s(ctx, m.node("speed"), m.pathOf("speed"));
        s.get("base", t.speed.base);
        s.get("cpu_exponent", t.speed.cpuExponent);
        s.get("gpu_exponent", t.speed.gpuExponent);
    }
    m.get("memory_gb", t.memoryGb);
    m.get("bandwidth_gbps", t.bandwidthGbps);
}

void readServer(YamlContext& ctx, const YAML::Node& n, const std::string& path, ServerSpec& s) {
    MapReader m(ctx, n, path);
    m.require("id", "a unique name");
    m.get("id", s.id);
    m.get("cpus", s.cpus);
    m.get("gpus", s.gpus);
    m.get("memory_gb", s.memoryGb);
    m.get("bandwidth_gbps", s.bandwidthGbps);
}

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
    m.get("name", s.name);
    m.get("description", s.description);
    readLesson(m, s.lesson); // a preset's lesson text (core/scenario/variants.h)
    m.get("seed", s.seed);
    m.require("clusters", "a list of edge clusters, each with servers");
    forEachItem(ctx, m.node("clusters"), "clusters", [&](const YAML::Node& item, const std::string& p, std::size_t) {
        ClusterSpec c;
        MapReader cm(ctx, item, p);
        cm.require("id", "a unique name");
        cm.get("id", c.id);
        cm.require("servers", "a list of servers with cpus and gpus");
        forEachItem(ctx, cm.node("servers"), cm.pathOf("servers"),
                    [&](const YAML::Node& sn, const std::string& sp, std::size_t) {
                        ServerSpec srv;
                        readServer(ctx, sn, sp, srv);
                        c.servers.push_back(srv);
                    });
        s.clusters.push_back(std::move(c));
    });
    m.require("task_types", "a list of task types");
    forEachItem(ctx, m.node("task_types"), "task_types", [&](const YAML::Node& item, const std::string& p, std::size_t) {
        TaskType t;
        readTaskType(ctx, item, p, t);
        s.taskTypes.push_back(std::move(t));
    });
    if (m.has("arrivals")) {
        using K = ArrivalSpec::Kind;
        MapReader a(ctx, m.node("arrivals"), "arrivals");
        a.getEnum("kind", s.arrivals.kind, {K::Poisson, K::Trace});
        if (a.usedWith("rate_per_step", "kind", s.arrivals.kind, {K::Poisson}))
            a.get("rate_per_step", s.arrivals.ratePerStep);
        if (a.usedWith("tasks", "kind", s.arrivals.kind, {K::Poisson})) a.get("tasks", s.arrivals.tasks);
        if (a.usedWith("file", "kind", s.arrivals.kind, {K::Trace})) {
            a.require("file", "a CSV file time,type[,work]");
            a.get("file", s.arrivals.traceFile);
        }
    }
    m.get("queue_limit", s.queueLimit);
    if (m.has("scheduler")) {
        const YAML::Node n = m.node("scheduler");
        if (n.IsScalar()) {
            readValue(ctx, n, "scheduler", s.scheduler.name);
        } else {
            MapReader sm(ctx, n, "scheduler");
            sm.require("name", "one of " + joinNames(schedulerNames()));
            sm.get("name", s.scheduler.name);
            const std::string& name = s.scheduler.name;
            if (sm.has("policy")) {
                if (name == "learned") sm.get("policy", s.scheduler.policyFile);
                else sm.notApplicable("policy", "is only used with name: learned, not " + name);
            }
            if (sm.has("thresholds")) {
                if (name == "tiresias") {
                    std::vector<double> th;
                    forEachItem(ctx, sm.node("thresholds"), sm.pathOf("thresholds"),
                                [&](const YAML::Node& x, const std::string& xp, std::size_t) {
                                    double v = 0;
                                    if (readValue(ctx, x, xp, v)) th.push_back(v);
                                });
                    s.scheduler.thresholds = th;
                } else {
                    sm.notApplicable("thresholds", "is only used with name: tiresias, not " + name);
                }
            }
        }
    }
    return true;
}

// ---- --set overrides on cluster files ------------------------------------------------
// The same `key.path[i].key=value` syntax as training scenarios (fog::Override), applied to
// the YAML tree before it is read, so the reader checks an overridden value like any other.

const char* const kSetLabel = "--set";

struct SetStep {
    std::string key; ///< a map key, or empty for an index
    std::size_t index = 0;
};

std::string stepsText(const std::vector<SetStep>& steps, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n && i < steps.size(); ++i)
        out = steps[i].key.empty() ? itemPath(out, steps[i].index) : childPath(out, steps[i].key);
    return out;
}

/// Splits "a.b[2].c" into steps; returns why not ("" when it could).
std::string splitSetPath(const std::string& path, std::vector<SetStep>& steps) {
    steps.clear();
    std::size_t i = 0;
    const std::size_t n = path.size();
    auto keyChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
    while (i < n) {
        std::size_t start = i;
        while (i < n && keyChar(path[i])) ++i;
        if (i == start) return "is not a key path: expected a key at character " + std::to_string(start + 1) + " of '" + path + "'";
        steps.push_back({path.substr(start, i - start), 0});
        while (i < n && path[i] == '[') {
            const std::size_t close = path.find(']', i);
            const std::string digits = close == std::string::npos ? "" : path.substr(i + 1, close - i - 1);
            if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
                return "is not a key path: '[' must hold a list index such as [0] in '" + path + "'";
            steps.push_back({"", static_cast<std::size_t>(std::stoul(digits))});
            i = close + 1;
        }
        if (i < n) {
            if (path[i] != '.' || i + 1 == n) return "is not a key path: unexpected '" + std::string(1, path[i]) + "' in '" + path + "'";
            ++i;
        }
    }
    return steps.empty() ? "is empty" : "";
}

/// Sets the value at steps[i..] below `node`; returns why not. Missing map keys are created
/// (a value for a key the reader does not know is then reported by the reader, with a
/// suggestion); list items must exist (or be the next one, to append).
std::string setClusterValue(YAML::Node node, const std::vector<SetStep>& steps, std::size_t i, const YAML::Node& value,
                            std::string& created) {
    const SetStep& step = steps[i];
    const bool last = i + 1 == steps.size();
    if (step.key.empty()) {
        if (!node.IsSequence())
            return "'" + stepsText(steps, i) + "' is " + describeNode(node) + ", not a list, so it has no item [" +
                   std::to_string(step.index) + "]";
        if (step.index > node.size())
            return "'" + stepsText(steps, i) + "' has " + std::to_string(node.size()) + " items (indexes from 0), so [" +
                   std::to_string(step.index) + "] cannot be set";
        if (step.index == node.size()) { // append
            if (!last) return "'" + stepsText(steps, i + 1) + "' does not exist; set the whole item first";
            node.push_back(value);
            created = stepsText(steps, i + 1);
            return {};
        }
        if (last) {
            node[step.index] = value;
            created = stepsText(steps, i + 1);
            return {};
        }
        return setClusterValue(node[step.index], steps, i + 1, value, created);
    }
    if (node.IsNull() || !node.IsDefined()) node = YAML::Node(YAML::NodeType::Map);
    if (!node.IsMap())
        return "'" + stepsText(steps, i) + "' is " + describeNode(node) + ", not a map, so it has no key '" + step.key + "'";
    if (last) {
        node[step.key] = value;
        created = stepsText(steps, i + 1);
        return {};
    }
    YAML::Node child = node[step.key];
    if (!child.IsDefined() || child.IsNull()) {
        if (steps[i + 1].key.empty())
            return "'" + stepsText(steps, i + 1) + "' does not exist, so it has no item [" + std::to_string(steps[i + 1].index) + "]";
        YAML::Node map(YAML::NodeType::Map);
        node[step.key] = map;
        created = stepsText(steps, i + 1);
        std::string below;
        const std::string why = setClusterValue(node[step.key], steps, i + 1, value, below);
        return why;
    }
    if (i == 0 && step.key == "scheduler" && child.IsScalar()) {
        // `scheduler: fifo` is short for `scheduler: {name: fifo}`; keep the name when one of
        // its keys is set.
        YAML::Node map(YAML::NodeType::Map);
        map["name"] = child.Scalar();
        node[step.key] = map;
        child.reset(node[step.key]);
    }
    return setClusterValue(child, steps, i + 1, value, created);
}

void applyClusterOverride(YAML::Node& root, const Override& o, std::vector<Diagnostic>& errors,
                          std::vector<std::string>& touched) {
    std::vector<SetStep> steps;
    if (std::string bad = splitSetPath(o.path, steps); !bad.empty()) {
        errors.push_back({kSetLabel, 0, 0, o.path, bad});
        return;
    }
    YAML::Node value;
    try {
        value = YAML::Load(o.value);
    } catch (const YAML::Exception& e) {
        errors.push_back({kSetLabel, 0, 0, o.path, "value '" + o.value + "' is not valid YAML: " + e.msg});
        return;
    }
    if (!value.IsDefined()) value = YAML::Node(YAML::NodeType::Null);
    std::string created;
    if (std::string bad = setClusterValue(root, steps, 0, value, created); !bad.empty()) {
        errors.push_back({kSetLabel, 0, 0, o.path, "cannot be set: " + bad});
        return;
    }
    touched.push_back(o.path);
    if (!created.empty() && created != o.path) touched.push_back(created);
}

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
    std::vector<Diagnostic> out;
    auto err = [&](const std::string& path, const std::string& msg) { out.push_back({"", 0, 0, path, msg}); };
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
            if (srv.cpus < 0) err(childPath(sp, "cpus"), "must be >= 0, got " + std::to_string(srv.cpus));
            if (srv.gpus < 0) err(childPath(sp, "gpus"), "must be >= 0, got " + std::to_string(srv.gpus));
            if (srv.cpus == 0 && srv.gpus == 0)
                err(sp, "has zero capacity (cpus: 0, gpus: 0): no task can ever run on it");
            if (!(srv.memoryGb >= 0) || !std::isfinite(srv.memoryGb))
                err(childPath(sp, "memory_gb"), "must be a number >= 0, got " + formatNumber(srv.memoryGb));
            if (!(srv.bandwidthGbps >= 0) || !std::isfinite(srv.bandwidthGbps))
                err(childPath(sp, "bandwidth_gbps"), "must be a number >= 0, got " + formatNumber(srv.bandwidthGbps));
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
        if (!(t.probability >= 0) || !std::isfinite(t.probability))
            err(childPath(tp, "probability"), "must be a number >= 0, got " + formatNumber(t.probability));
        else totalWeight += t.probability;
        const std::string wp = childPath(tp, "work");
        if (t.work.kind != WorkSpec::Kind::Uniform && !positive(t.work.mean))
            err(childPath(wp, "mean"), "must be > 0, got " + formatNumber(t.work.mean));
        if (t.work.kind == WorkSpec::Kind::Uniform && !(positive(t.work.min) && positive(t.work.max) && t.work.min <= t.work.max))
            err(wp, "uniform work needs 0 < min <= max, got min " + formatNumber(t.work.min) + ", max " +
                        formatNumber(t.work.max));
        auto checkRes = [&](const char* key, const Resources& r, int least) {
            if (r.cpus < least) err(childPath(childPath(tp, key), "cpus"), "must be >= " + std::to_string(least) + ", got " + std::to_string(r.cpus));
            if (r.gpus < 0) err(childPath(childPath(tp, key), "gpus"), "must be >= 0, got " + std::to_string(r.gpus));
        };
        checkRes("min", t.min, 1);
        checkRes("max", t.max, 1);
        checkRes("request", t.request, 1);
        if (t.max.cpus < t.min.cpus || t.max.gpus < t.min.gpus)
            err(childPath(tp, "max"), "must be at least min (" + std::to_string(t.min.cpus) + " cpus, " +
                                          std::to_string(t.min.gpus) + " gpus) in both resources");
        if (t.request.cpus < t.min.cpus || t.request.gpus < t.min.gpus || t.request.cpus > t.max.cpus ||
            t.request.gpus > t.max.gpus)
            err(childPath(tp, "request"), "must lie between min and max in both resources");
        const std::string spp = childPath(tp, "speed");
        if (!positive(t.speed.base)) err(childPath(spp, "base"), "must be > 0, got " + formatNumber(t.speed.base));
        if (!(t.speed.cpuExponent >= 0 && t.speed.cpuExponent <= 1))
            err(childPath(spp, "cpu_exponent"), "must lie in [0, 1] (diminishing returns), got " + formatNumber(t.speed.cpuExponent));
        if (!(t.speed.gpuExponent >= 0 && t.speed.gpuExponent <= 1))
            err(childPath(spp, "gpu_exponent"), "must lie in [0, 1] (diminishing returns), got " + formatNumber(t.speed.gpuExponent));
        if (t.speed.gpuExponent > 0 && t.min.gpus < 1)
            err(childPath(childPath(tp, "min"), "gpus"), "must be >= 1 when speed.gpu_exponent > 0 (on 0 GPUs the task would never progress)");
        if (!(t.memoryGb >= 0) || !std::isfinite(t.memoryGb)) err(childPath(tp, "memory_gb"), "must be a number >= 0");
        if (!(t.bandwidthGbps >= 0) || !std::isfinite(t.bandwidthGbps)) err(childPath(tp, "bandwidth_gbps"), "must be a number >= 0");
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
    if (s.arrivals.kind == ArrivalSpec::Kind::Poisson) {
        if (!positive(s.arrivals.ratePerStep))
            err("arrivals.rate_per_step", "must be > 0, got " + formatNumber(s.arrivals.ratePerStep));
        if (s.arrivals.tasks < 1) err("arrivals.tasks", "must be >= 1, got " + std::to_string(s.arrivals.tasks));
        // Every task is held for the run (and its statistics): 10^9 of them would take GBs.
        if (s.arrivals.tasks > kMaxClusterTasks)
            err("arrivals.tasks", "must be <= " + std::to_string(kMaxClusterTasks) + ", got " +
                                      std::to_string(s.arrivals.tasks));
    }
    if (s.queueLimit < 1) err("queue_limit", "must be >= 1, got " + std::to_string(s.queueLimit));
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
        for (const auto& o : overrides) applyClusterOverride(root, o, setErrors, touched);
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

namespace {

void emitResources(YAML::Emitter& out, const char* key, const Resources& r) {
    out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "cpus" << YAML::Value << r.cpus
        << YAML::Key << "gpus" << YAML::Value << r.gpus << YAML::EndMap;
}

/// Numbers as the shortest text that reads back the same (YAML::Emitter's default precision
/// would round some).
std::string num(double v) { return formatNumber(v); }

} // namespace

std::string saveClusterScenarioText(const ClusterScenario& s) {
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "schema_version" << YAML::Value << kClusterSchemaVersion;
    out << YAML::Key << "kind" << YAML::Value << "cluster";
    out << YAML::Key << "name" << YAML::Value << s.name;
    if (!s.description.empty()) out << YAML::Key << "description" << YAML::Value << YAML::Literal << s.description;
    out << YAML::Key << "seed" << YAML::Value << s.seed;
    out << YAML::Key << "clusters" << YAML::Value << YAML::BeginSeq;
    for (const auto& c : s.clusters) {
        out << YAML::BeginMap << YAML::Key << "id" << YAML::Value << c.id << YAML::Key << "servers" << YAML::Value
            << YAML::BeginSeq;
        for (const auto& v : c.servers)
            out << YAML::Flow << YAML::BeginMap << YAML::Key << "id" << YAML::Value << v.id << YAML::Key << "cpus"
                << YAML::Value << v.cpus << YAML::Key << "gpus" << YAML::Value << v.gpus << YAML::Key << "memory_gb"
                << YAML::Value << num(v.memoryGb) << YAML::Key << "bandwidth_gbps" << YAML::Value << num(v.bandwidthGbps)
                << YAML::EndMap;
        out << YAML::EndSeq << YAML::EndMap;
    }
    out << YAML::EndSeq;
    out << YAML::Key << "task_types" << YAML::Value << YAML::BeginSeq;
    for (const auto& t : s.taskTypes) {
        out << YAML::BeginMap;
        out << YAML::Key << "name" << YAML::Value << t.name;
        out << YAML::Key << "probability" << YAML::Value << num(t.probability);
        out << YAML::Key << "work" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "kind" << YAML::Value
            << toString(t.work.kind);
        if (t.work.kind == WorkSpec::Kind::Uniform)
            out << YAML::Key << "min" << YAML::Value << num(t.work.min) << YAML::Key << "max" << YAML::Value << num(t.work.max);
        else
            out << YAML::Key << "mean" << YAML::Value << num(t.work.mean);
        out << YAML::EndMap;
        emitResources(out, "min", t.min);
        emitResources(out, "max", t.max);
        emitResources(out, "request", t.request);
        out << YAML::Key << "speed" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "base" << YAML::Value
            << num(t.speed.base) << YAML::Key << "cpu_exponent" << YAML::Value << num(t.speed.cpuExponent) << YAML::Key
            << "gpu_exponent" << YAML::Value << num(t.speed.gpuExponent) << YAML::EndMap;
        out << YAML::Key << "memory_gb" << YAML::Value << num(t.memoryGb);
        out << YAML::Key << "bandwidth_gbps" << YAML::Value << num(t.bandwidthGbps);
        out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    out << YAML::Key << "arrivals" << YAML::Value << YAML::BeginMap << YAML::Key << "kind" << YAML::Value
        << toString(s.arrivals.kind);
    if (s.arrivals.kind == ArrivalSpec::Kind::Poisson)
        out << YAML::Key << "rate_per_step" << YAML::Value << num(s.arrivals.ratePerStep) << YAML::Key << "tasks"
            << YAML::Value << s.arrivals.tasks;
    else
        out << YAML::Key << "file" << YAML::Value << s.arrivals.traceFile;
    out << YAML::EndMap;
    out << YAML::Key << "queue_limit" << YAML::Value << s.queueLimit;
    out << YAML::Key << "scheduler" << YAML::Value << YAML::BeginMap << YAML::Key << "name" << YAML::Value
        << s.scheduler.name;
    if (s.scheduler.name == "learned" && !s.scheduler.policyFile.empty())
        out << YAML::Key << "policy" << YAML::Value << s.scheduler.policyFile;
    if (s.scheduler.name == "tiresias") {
        out << YAML::Key << "thresholds" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (double x : s.scheduler.thresholds) out << num(x);
        out << YAML::EndSeq;
    }
    out << YAML::EndMap;
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
