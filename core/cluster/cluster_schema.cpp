// The tables of a cluster file (cluster_schema.h) and its key reference.

#include "core/cluster/cluster_schema.h"

#include "core/cluster/cluster_scheduler.h"
#include "core/scenario/schema_builder.h"
#include "core/scenario/yaml_reader.h"

namespace fog::cluster {

namespace {

using namespace schema;

std::vector<ClusterField> buildClusterSchema() {
    using AK = ArrivalSpec::Kind;
    Builder<ClusterScenario> b;
    b.integer("schema_version", [](ClusterScenario& s) -> int& { return s.schemaVersion; }, "", atLeast(1),
              atMost(kClusterSchemaVersion), "version of this format; a file from a newer FogStudio is refused")
        .custom = true;
    {
        auto& f = b.add("kind", FieldType::Text, "`cluster` (required): a cluster scenario, not a training one");
        f.custom = true;
        f.typeNote = "`cluster`";
    }
    b.text("name", [](ClusterScenario& s) -> std::string& { return s.name; }, "shown in the run list and reports");
    b.text("description", [](ClusterScenario& s) -> std::string& { return s.description; },
           "free text; use | for several lines")
        .omitEmpty = true;
    {
        auto& f = b.add("seed", FieldType::Seed,
                        "every random draw of an episode derives from it; episode r of `--repeat R` uses seed + r");
        bind(f, [](ClusterScenario& s) -> std::uint64_t& { return s.seed; });
    }
    {
        auto& f = b.add("clusters", FieldType::Section,
                        "the edge clusters (at least one), each with its servers (keys below)");
        f.custom = true;
        f.typeNote = "list of {id, servers}";
    }
    {
        auto& f = b.add("task_types", FieldType::Section, "the kinds of task that arrive (at least one; keys below)");
        f.custom = true;
        f.typeNote = "list of task types";
    }
    b.section("arrivals", false, "how tasks arrive");
    b.enumeration<AK>("arrivals.kind", [](ClusterScenario& s) -> AK& { return s.arrivals.kind; },
                      {AK::Poisson, AK::Trace}, "Poisson arrivals, or the rows of a CSV trace");
    b.real("arrivals.rate_per_step", [](ClusterScenario& s) -> double& { return s.arrivals.ratePerStep; },
           "tasks/step", above(0), std::nullopt, "mean arrivals per time step")
        .when = when("arrivals.kind", {"poisson"});
    b.integer("arrivals.tasks", [](ClusterScenario& s) -> int& { return s.arrivals.tasks; }, "tasks", atLeast(1),
              atMost(kMaxClusterTasks), "tasks per episode (each is held for the run)")
        .when = when("arrivals.kind", {"poisson"});
    {
        auto& f = b.text("arrivals.file", [](ClusterScenario& s) -> std::string& { return s.arrivals.traceFile; },
                         "CSV `time,type[,work]` with a header (type by name or 0-based index; work empty: "
                         "drawn from the type), relative to the file's folder; at most 64 MiB and 1,000,000 "
                         "arrivals");
        f.when = when("arrivals.kind", {"trace"});
        f.defaultNote = "required";
    }
    b.integer("queue_limit", [](ClusterScenario& s) -> int& { return s.queueLimit; }, "tasks", atLeast(1),
              std::nullopt, "pending tasks a scheduler sees (oldest first); the rest wait in a backlog");
    {
        auto& f = b.add("scheduler", FieldType::Section,
                        "`scheduler: NAME`, or a map with `name` and the keys that scheduler reads (schedulers "
                        "below)");
        f.custom = true;
        f.typeNote = "name or map";
    }
    {
        auto& f = b.text("scheduler.name", [](ClusterScenario& s) -> std::string& { return s.scheduler.name; },
                         "one of " + joinNames(schedulerNames()));
        f.custom = true;
    }
    {
        auto& f = b.text("scheduler.policy", [](ClusterScenario& s) -> std::string& { return s.scheduler.policyFile; },
                         "the trained policy a policy-network scheduler runs (or `--policy`), relative to the "
                         "file's folder");
        f.custom = true;
        f.omitEmpty = true;
        f.defaultNote = "only for " + joinNames(schedulersUsing("policy"));
    }
    {
        auto& f = b.add("scheduler.thresholds", FieldType::Section,
                        "GPU-steps of attained service between priority queues, each > 0 and increasing");
        f.custom = true;
        f.typeNote = "list of numbers";
        f.defaultNote = "`[4, 16]`, only for " + joinNames(schedulersUsing("thresholds"));
    }
    return std::move(b.fields);
}

std::vector<ClusterEntryField> buildClusterEntrySchema() {
    Builder<ClusterSpec> b;
    b.text("id", [](ClusterSpec& c) -> std::string& { return c.id; },
           "unique name (required): the unit one agent of the learned scheduler controls")
        .defaultNote = "required";
    auto& f = b.add("servers", FieldType::Section, "its servers (at least one; keys below)");
    f.custom = true;
    f.typeNote = "list of servers";
    return std::move(b.fields);
}

std::vector<ServerField> buildServerSchema() {
    Builder<ServerSpec> b;
    b.text("id", [](ServerSpec& v) -> std::string& { return v.id; }, "unique name (required), among clusters too")
        .defaultNote = "required";
    b.integer("cpus", [](ServerSpec& v) -> int& { return v.cpus; }, "CPUs", atLeast(0), std::nullopt,
              "whole CPUs (a server with neither CPUs nor GPUs is refused)");
    b.integer("gpus", [](ServerSpec& v) -> int& { return v.gpus; }, "GPUs", atLeast(0), std::nullopt, "whole GPUs");
    b.real("memory_gb", [](ServerSpec& v) -> double& { return v.memoryGb; }, "GB", atLeast(0), std::nullopt,
           "memory the tasks running on it share");
    b.real("bandwidth_gbps", [](ServerSpec& v) -> double& { return v.bandwidthGbps; }, "Gbit/s", atLeast(0),
           std::nullopt, "bandwidth the tasks running on it share");
    return std::move(b.fields);
}

/// `{cpus, gpus}` of a task type (min, max, request).
template <class Ref>
void addResources(Builder<TaskType>& b, const std::string& key, Ref res, const std::string& help) {
    b.section(key, true, help);
    b.integer(key + ".cpus", [res](TaskType& t) -> int& { return res(t).cpus; }, "CPUs", atLeast(1), std::nullopt,
              "whole CPUs");
    b.integer(key + ".gpus", [res](TaskType& t) -> int& { return res(t).gpus; }, "GPUs", atLeast(0), std::nullopt,
              "whole GPUs");
}

std::vector<TaskTypeField> buildTaskTypeSchema() {
    using WK = WorkSpec::Kind;
    Builder<TaskType> b;
    b.text("name", [](TaskType& t) -> std::string& { return t.name; }, "unique name (required)").defaultNote =
        "required";
    b.real("probability", [](TaskType& t) -> double& { return t.probability; }, "", atLeast(0), std::nullopt,
           "relative weight of the type among arrivals (normalised over the types)");
    b.section("work", true, "task size in work units: a task of work W on an allocation of speed s takes W / s steps");
    b.enumeration<WK>("work.kind", [](TaskType& t) -> WK& { return t.work.kind; }, {WK::Fixed, WK::Exponential, WK::Uniform},
                      "every task the same size, exponential sizes, or uniform between min and max");
    b.real("work.mean", [](TaskType& t) -> double& { return t.work.mean; }, "work units", above(0), std::nullopt,
           "the fixed size, or the exponential's mean")
        .when = when("work.kind", {"fixed", "exponential"});
    b.real("work.min", [](TaskType& t) -> double& { return t.work.min; }, "work units", above(0), std::nullopt,
           "smallest size (at most max)")
        .when = when("work.kind", {"uniform"});
    b.real("work.max", [](TaskType& t) -> double& { return t.work.max; }, "work units", above(0), std::nullopt,
           "largest size")
        .when = when("work.kind", {"uniform"});
    addResources(b, "min", [](TaskType& t) -> Resources& { return t.min; }, "the least a task runs on");
    addResources(b, "max", [](TaskType& t) -> Resources& { return t.max; },
                 "beyond this a task does not speed up (at least min)");
    addResources(b, "request", [](TaskType& t) -> Resources& { return t.request; },
                 "what a user would ask for, between min and max (FIFO, Tiresias, DRF use it)");
    b.section("speed", true,
              "speed(c, g) = base * c^cpu_exponent * g^gpu_exponent work units per step, c and g capped at max");
    b.real("speed.base", [](TaskType& t) -> double& { return t.speed.base; }, "work units/step", above(0),
           std::nullopt, "speed on one CPU and one GPU");
    b.real("speed.cpu_exponent", [](TaskType& t) -> double& { return t.speed.cpuExponent; }, "", atLeast(0),
           atMost(1), "diminishing returns of CPUs (0: CPUs do not speed it up)");
    b.real("speed.gpu_exponent", [](TaskType& t) -> double& { return t.speed.gpuExponent; }, "", atLeast(0),
           atMost(1), "diminishing returns of GPUs (0: GPUs do not speed it up; above 0 needs min.gpus >= 1)");
    b.real("memory_gb", [](TaskType& t) -> double& { return t.memoryGb; }, "GB", atLeast(0), std::nullopt,
           "held on the server while the task runs");
    b.real("bandwidth_gbps", [](TaskType& t) -> double& { return t.bandwidthGbps; }, "Gbit/s", atLeast(0),
           std::nullopt, "held on the server while the task runs");
    return std::move(b.fields);
}

std::string cell(std::string s) {
    std::string out;
    for (char c : s)
        out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
}

} // namespace

const std::vector<ClusterField>& clusterSchema() {
    static const std::vector<ClusterField> table = buildClusterSchema();
    return table;
}

const std::vector<ClusterEntryField>& clusterEntrySchema() {
    static const std::vector<ClusterEntryField> table = buildClusterEntrySchema();
    return table;
}

const std::vector<ServerField>& serverSchema() {
    static const std::vector<ServerField> table = buildServerSchema();
    return table;
}

const std::vector<TaskTypeField>& taskTypeSchema() {
    static const std::vector<TaskTypeField> table = buildTaskTypeSchema();
    return table;
}

std::string clusterSchemaMarkdown() {
    std::string out;
    out += "**Top-level keys.** ";
    out += "Bounds are inclusive unless marked `>`/`<`; every number must be finite. *only with* names "
           "the kind a key needs (given with another kind it is an error).\n\n";
    out += kMarkdownHead + markdownRows(clusterSchema(), ClusterScenario{}, "");
    out += "\n**Each entry of `clusters`.**\n\n";
    out += kMarkdownHead + markdownRows(clusterEntrySchema(), ClusterSpec{}, "clusters[].");
    out += "\n**Each entry of a cluster's `servers`.**\n\n";
    out += kMarkdownHead + markdownRows(serverSchema(), ServerSpec{}, "clusters[].servers[].");
    out += "\n**Each entry of `task_types`.**\n\n";
    out += kMarkdownHead + markdownRows(taskTypeSchema(), TaskType{}, "task_types[].");
    return out;
}

std::string clusterSchedulersMarkdown() {
    std::string out = "| `scheduler` | its keys | rule | source |\n|---|---|---|---|\n";
    for (const auto& d : schedulerInfos()) {
        std::string keys;
        for (const auto& k : d.keys)
            keys += (keys.empty() ? "`" : ", `") + k + "`";
        out += "| `" + d.name + "` | " + keys + " | " + cell(d.rule.empty() ? d.summary : d.rule) + " | " +
               cell(d.source) + " |\n";
    }
    return out;
}

} // namespace fog::cluster
