#pragma once
// The scheduler interface of the cluster emulator and its name-keyed registry. A scheduler
// sees a narrow view (time, the visible pending queue, running tasks, free resources per
// server) at every event and answers with preemptions and placements; the emulator checks
// and applies them. One file per scheduler (sched_*.cpp) holds the scheduler and its
// descriptor, FOG_CLUSTER_SCHEDULER(fn) at the start of a line: the build collects those
// lines (core/cluster/scheduler_list.cmake) into the one list, so a new scheduler is its
// file and its test (docs/extending.md, "Adding a cluster scheduler"). Nothing else knows a
// scheduler by its name: the reader, the writer, the CLI and the studio ask the descriptor.

#include "core/cluster/cluster_scenario.h"
#include "core/util/random.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fog::cluster {

struct TaskState {
    int id = 0;
    int type = 0;
    double arrival = 0.0;
    double work = 0.0;
    double remaining = 0.0;
    double attainedGpuSteps = 0.0; ///< sum of gpus x time run (Tiresias' 2D attained service)
    double firstStart = -1.0;
    double finish = -1.0;
    int server = -1; ///< while running
    int cpus = 0, gpus = 0;
    int preemptions = 0;
    bool running() const { return server >= 0; }
};

struct ServerState {
    int cluster = 0;
    const ServerSpec* spec = nullptr;
    int freeCpus = 0, freeGpus = 0;
    double freeMemoryGb = 0.0, freeBandwidthGbps = 0.0;
};

/// What a scheduler sees at one decision point.
struct SchedulingView {
    double now = 0.0;
    const ClusterScenario* scenario = nullptr;
    std::vector<const TaskState*> queue;   ///< visible pending tasks, oldest first (<= queue_limit)
    std::vector<const TaskState*> running; ///< by id
    std::vector<ServerState> servers;      ///< free resources now
    int backlog = 0;                       ///< pending tasks beyond the visible queue
    int inSystem = 0;                      ///< pending + running
    const TaskType& type(const TaskState& t) const { return scenario->taskTypes[t.type]; }
};

struct Placement {
    int task = 0; ///< task id
    int server = 0;
    int cpus = 0, gpus = 0;
};

/// Preemptions are applied first (the task goes back to the queue, its progress kept), then
/// placements in order; each must fit what is free at that moment.
struct Decision {
    std::vector<int> preempt;
    std::vector<Placement> place;
};

class ClusterScheduler {
public:
    virtual ~ClusterScheduler() = default;
    virtual std::string name() const = 0;
    /// Called once before an episode's first event.
    virtual void beginEpisode(const ClusterScenario&, std::uint64_t /*seed*/) {}
    virtual Decision decide(const SchedulingView& view) = 0;
    /// Called once after the last task finished (time = makespan).
    virtual void endEpisode(double /*time*/) {}
};

/// Free resources as a decision is built, so schedulers never over-commit.
class ResourcePool {
public:
    explicit ResourcePool(const SchedulingView& v);
    bool fits(const TaskType& t, int server, int cpus, int gpus) const;
    /// Largest CPU and GPU counts (<= the type's max) that fit on `server`, or false.
    bool maxFit(const TaskType& t, int server, int& cpus, int& gpus) const;
    void take(const TaskType& t, int server, int cpus, int gpus);
    void give(const TaskType& t, int server, int cpus, int gpus);
    const ServerState& server(int i) const { return servers_[i]; }
    int size() const { return static_cast<int>(servers_.size()); }
    /// The server where (cpus, gpus) fit leaving the fewest GPUs then CPUs free; -1 if none.
    int bestFit(const TaskType& t, int cpus, int gpus) const;

private:
    std::vector<ServerState> servers_;
};

class ClusterPolicy;

/// What FogStudio knows of one scheduler: its descriptor.
struct SchedulerInfo {
    std::string name;    ///< the name cluster files use (scheduler: NAME)
    std::string summary; ///< one line for `fogstudio-cli cluster schedulers` and the studio
    /// The rule in full, for the scheduler table of docs/cluster.md (generated from the
    /// descriptors: clusterSchemaMarkdown()); empty: the summary.
    std::string rule;
    std::string source;  ///< the paper it comes from, or empty
    std::function<std::unique_ptr<ClusterScheduler>(const ClusterScenario&)> make;
    int order = 0;       ///< position in lists (and in `cluster run --scheduler all`)
    /// The keys of the scheduler section it reads besides `name` ("policy", "thresholds"):
    /// the reader reads them only for it, the writer writes them only for it, the studio's
    /// editor enables their fields only for it.
    std::vector<std::string> keys;
    /// For a scheduler run by a policy network: it with the given (e.g. untrained) policy,
    /// which the bench and the studio pass; empty for the others. Such a scheduler needs a
    /// trained policy (`policy` key) to run from a file, and `--scheduler all` leaves it out
    /// without one.
    std::function<std::unique_ptr<ClusterScheduler>(std::shared_ptr<ClusterPolicy>, const ClusterScenario&)> withPolicy;
    bool uses(const std::string& key) const;
};

/// Every scheduler, in `order`.
const std::vector<SchedulerInfo>& schedulerInfos();
std::vector<std::string> schedulerNames();
/// The descriptor named `name`, or nullptr.
const SchedulerInfo* findScheduler(const std::string& name);
/// The names of the schedulers that read `key` ("tiresias" for thresholds).
std::vector<std::string> schedulersUsing(const std::string& key);
/// Throws std::invalid_argument for an unknown name (loaders check names first).
std::unique_ptr<ClusterScheduler> makeScheduler(const std::string& name, const ClusterScenario& s);

/// Defines a scheduler's descriptor: `FOG_CLUSTER_SCHEDULER(fifoScheduler) { ... return d; }`
/// at the start of a line of a core/cluster/*.cpp file.
#define FOG_CLUSTER_SCHEDULER(fn) const ::fog::cluster::SchedulerInfo& fn()

} // namespace fog::cluster
