#pragma once
// The scheduler interface of the cluster emulator and its name-keyed registry. A scheduler
// sees a narrow view (time, the visible pending queue, running tasks, free resources per
// server) at every event and answers with preemptions and placements; the emulator checks
// and applies them. One file per scheduler (sched_*.cpp), each registering itself through a
// descriptor in cluster_scheduler_registry.cpp.

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

struct SchedulerInfo {
    std::string name;
    std::string summary;
    std::string source;
    std::function<std::unique_ptr<ClusterScheduler>(const ClusterScenario&)> make;
};

const std::vector<SchedulerInfo>& schedulerInfos();
std::vector<std::string> schedulerNames();
/// Throws std::invalid_argument for an unknown name (loaders check names first).
std::unique_ptr<ClusterScheduler> makeScheduler(const std::string& name, const ClusterScenario& s);

/// Descriptors, one per scheduler file.
SchedulerInfo randomSchedulerInfo();
SchedulerInfo fifoSchedulerInfo();
SchedulerInfo minSchedulerInfo();
SchedulerInfo tiresiasSchedulerInfo();
SchedulerInfo optimusSchedulerInfo();
SchedulerInfo drfSchedulerInfo();
SchedulerInfo learnedSchedulerInfo();

} // namespace fog::cluster
