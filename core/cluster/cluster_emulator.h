#pragma once
// The discrete-event cluster emulator. Tasks arrive (Poisson or a trace), wait in a pending
// queue (the scheduler sees the first queue_limit), run on one server with the CPUs and GPUs
// the scheduler gave them at speed(c, g) (cluster_scenario.h), and leave when their work is
// done. Events are arrivals and completions, processed in (time, task id) order; after the
// events of one instant the scheduler decides. Virtual time is in steps; every random draw
// comes from a stream derived from the seed, so a (scenario, scheduler, seed) gives the same
// result on any machine.

#include "core/cluster/cluster_scheduler.h"

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace fog::cluster {

/// A scheduler broke the rules (over capacity, unknown task): a bug, reported with details.
struct ClusterError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct TaskRecord {
    int id = 0;
    int type = 0;
    double arrival = 0.0, work = 0.0, firstStart = -1.0, finish = -1.0;
    int server = -1; ///< the last server it ran on
    int cpus = 0, gpus = 0; ///< its last allocation
    int preemptions = 0;
    double completionTime() const { return finish - arrival; }
};

/// One task on one server with a fixed allocation, for Gantt charts and capacity checks.
struct ServerInterval {
    int server = 0;
    int task = 0;
    double start = 0.0, end = 0.0;
    int cpus = 0, gpus = 0;
    double memoryGb = 0.0, bandwidthGbps = 0.0;
};

/// State right after one decision point.
struct ClusterSample {
    double time = 0.0;
    int pending = 0; ///< visible queue + backlog
    int running = 0;
    int usedCpus = 0, usedGpus = 0;
    double usedMemoryGb = 0.0, usedBandwidthGbps = 0.0;
};

struct ClusterSummary {
    std::string scheduler;
    std::uint64_t seed = 0;
    int tasks = 0;
    int completed = 0;
    bool complete = false;
    std::string stopReason;
    double meanCompletion = 0.0, p50Completion = 0.0, p95Completion = 0.0, maxCompletion = 0.0;
    double meanWait = 0.0;
    double makespan = 0.0;
    double meanPending = 0.0; ///< time average over [0, makespan]
    double cpuUtilisation = 0.0, gpuUtilisation = 0.0; ///< time averages in [0, 1]
    int preemptions = 0;
    int decisions = 0;
    double wallSeconds = 0.0;
};

struct ClusterResult {
    ClusterSummary summary;
    std::vector<TaskRecord> tasks;
    std::vector<ServerInterval> intervals;
    std::vector<ClusterSample> samples;
};

struct ClusterRunOptions {
    const std::atomic<bool>* cancel = nullptr;
    /// Called after each decision point (live views); may be empty.
    std::function<void(const ClusterSample&)> onSample;
    std::function<void(const TaskRecord&)> onTaskFinished;
    /// Called after each decision point with every server's free resources (in
    /// flattenServers order; live per-server views); may be empty.
    std::function<void(double time, const std::vector<ServerState>&)> onServers;
};

/// The tasks of one episode (arrival time, type, work), drawn from the seed's streams.
std::vector<TaskRecord> generateArrivals(const ClusterScenario& s, std::uint64_t seed);

/// Runs one episode to the last completion (or a stall / cancel, said in the summary).
ClusterResult runCluster(const ClusterScenario& s, ClusterScheduler& scheduler, std::uint64_t seed,
                         const ClusterRunOptions& options = {});

/// Mean and half-width of a 95% confidence interval (Student t) of values.
struct MeanCi {
    double mean = 0.0, halfWidth = 0.0;
    int n = 0;
};
MeanCi meanCi(const std::vector<double>& values);

} // namespace fog::cluster
