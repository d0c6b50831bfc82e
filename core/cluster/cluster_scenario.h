#pragma once
// The cluster experiment (issue 17, after TapFinger, INFOCOM 2023): edge clusters of servers
// with CPU/GPU/memory/bandwidth capacities, ML task types with resource-speed curves, an
// arrival process, and the scheduler that places tasks. A second kind of scenario beside the
// training one (`kind: cluster` in the YAML file); no Qt here.

#include "core/spec/scenario.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fog::cluster {

inline constexpr int kClusterSchemaVersion = 1;
/// Most tasks in one run (arrivals.tasks, the rows of an arrival trace): each is held for the run.
inline constexpr int kMaxClusterTasks = 1000000;

struct ServerSpec {
    std::string id;
    int cpus = 16;
    int gpus = 4;
    double memoryGb = 64.0;
    double bandwidthGbps = 10.0;
};

/// One edge cluster: the unit one agent of the learned scheduler controls.
struct ClusterSpec {
    std::string id;
    std::vector<ServerSpec> servers;
};

struct Resources {
    int cpus = 1;
    int gpus = 1;
};

/// Task sizes, in work units (a task of work W on an allocation of speed s takes W / s steps).
struct WorkSpec {
    enum class Kind { Fixed, Exponential, Uniform };
    Kind kind = Kind::Exponential;
    double mean = 10.0; ///< fixed value, or the exponential's mean
    double min = 1.0;   ///< uniform
    double max = 10.0;  ///< uniform
};

/// Throughput of a task on c CPUs and g GPUs (work units per step):
///   speed(c, g) = base * c^cpu_exponent * g^gpu_exponent   (x^0 = 1, also for x = 0)
/// with exponents in [0, 1]: each extra CPU or GPU helps less than the one before
/// (diminishing returns), and a resource with exponent 0 does not speed the task up.
struct SpeedCurve {
    double base = 1.0;
    double cpuExponent = 0.3;
    double gpuExponent = 0.6;
};

struct TaskType {
    std::string name;
    double probability = 1.0; ///< relative weight among the types (normalised)
    WorkSpec work;
    Resources min;            ///< the least a task can run on
    Resources max{8, 4};      ///< more than this does not speed it up
    Resources request{4, 2};  ///< what a user would ask for (FIFO, Tiresias, DRF use it)
    SpeedCurve speed;
    double memoryGb = 0.0;      ///< held while running, whatever the CPUs/GPUs
    double bandwidthGbps = 0.0; ///< held while running
};

/// One task of an arrival trace.
struct TraceArrival {
    double time = 0.0;
    int type = 0;
    double work = -1.0; ///< < 0: drawn from the type's work distribution
};

struct ArrivalSpec {
    enum class Kind { Poisson, Trace };
    Kind kind = Kind::Poisson;
    double ratePerStep = 1.0; ///< Poisson
    int tasks = 200;          ///< Poisson: tasks per episode
    std::string traceFile;    ///< as written in the file
    std::string traceResolved; ///< relative to the scenario's folder
    std::vector<TraceArrival> trace; ///< loaded with the scenario
};

struct SchedulerSpec {
    std::string name = "fifo";
    std::string policyFile;     ///< learned: the trained policy, as written
    std::string policyResolved; ///< relative to the scenario's folder
    std::vector<double> thresholds{4.0, 16.0}; ///< tiresias: GPU-steps between priority queues
};

struct ClusterScenario {
    int schemaVersion = kClusterSchemaVersion;
    std::string name = "untitled cluster";
    std::string description;
    std::uint64_t seed = 1;
    std::vector<ClusterSpec> clusters;
    std::vector<TaskType> taskTypes;
    ArrivalSpec arrivals;
    int queueLimit = 10; ///< pending tasks a scheduler sees; the rest wait in a backlog
    SchedulerSpec scheduler;
    std::string sourcePath;
    std::string sourceText; ///< the file as read, stored with runs
    LessonSpec lesson; ///< a preset's lesson text (core/scenario/variants.h)
};

/// speed(c, g) of the formula above, with c and g capped at the type's max.
double taskSpeed(const TaskType& t, int cpus, int gpus);

/// A flat list of every server, with the index of its cluster.
struct ServerRef {
    int cluster = 0;
    const ServerSpec* spec = nullptr;
};
std::vector<ServerRef> flattenServers(const ClusterScenario& s);

const char* toString(WorkSpec::Kind k);
const char* toString(ArrivalSpec::Kind k);

} // namespace fog::cluster
