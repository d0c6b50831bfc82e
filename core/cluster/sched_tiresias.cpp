// Tiresias (Gu et al., NSDI 2019), discretised two-dimensional least-attained-service: a
// task's attained service is GPUs x time it has run; thresholds split tasks into priority
// queues (fewer GPU-steps = higher priority, FIFO within a queue). At every event the
// highest-priority tasks get their requested resources, preempting running tasks of lower
// priority when needed (their progress is kept, as with Tiresias' checkpointing).

#include "core/cluster/cluster_scheduler.h"

#include <algorithm>

namespace fog::cluster {

namespace {

class TiresiasScheduler : public ClusterScheduler {
public:
    explicit TiresiasScheduler(std::vector<double> thresholds) : thresholds_(std::move(thresholds)) {}
    std::string name() const override { return "tiresias"; }

    int level(const TaskState& k) const {
        int q = 0;
        for (double th : thresholds_)
            if (k.attainedGpuSteps >= th) ++q;
        return q;
    }

    Decision decide(const SchedulingView& v) override {
        std::vector<const TaskState*> all = v.running;
        all.insert(all.end(), v.queue.begin(), v.queue.end());
        std::stable_sort(all.begin(), all.end(), [&](const TaskState* a, const TaskState* b) {
            const int la = level(*a), lb = level(*b);
            if (la != lb) return la < lb;
            if (a->arrival != b->arrival) return a->arrival < b->arrival;
            return a->id < b->id;
        });
        // Start from the whole capacity: every running task is reconsidered in priority order.
        ResourcePool pool(v);
        for (const TaskState* k : v.running) pool.give(v.type(*k), k->server, k->cpus, k->gpus);
        Decision d;
        std::vector<const TaskState*> keep;
        for (const TaskState* k : all) {
            const TaskType& t = v.type(*k);
            if (k->running()) {
                if (pool.fits(t, k->server, k->cpus, k->gpus)) {
                    pool.take(t, k->server, k->cpus, k->gpus);
                    keep.push_back(k);
                } else {
                    d.preempt.push_back(k->id);
                }
                continue;
            }
            const int server = pool.bestFit(t, t.request.cpus, t.request.gpus);
            if (server < 0) continue;
            pool.take(t, server, t.request.cpus, t.request.gpus);
            d.place.push_back({k->id, server, t.request.cpus, t.request.gpus});
        }
        return d;
    }

private:
    std::vector<double> thresholds_;
};

} // namespace

FOG_CLUSTER_SCHEDULER(tiresiasScheduler) {
    static const SchedulerInfo d = [] {
        SchedulerInfo d;
        d.name = "tiresias";
        d.summary = "Discretised 2D least attained service (GPUs x time) with preemption; thresholds in GPU-steps (scheduler.thresholds).";
        d.source = "Gu et al., Tiresias, NSDI 2019";
        d.rule = "discretised two-dimensional least attained service: attained service = GPUs x steps run; "
                 "`thresholds` (GPU-steps, default [4, 16]) split tasks into priority queues, FIFO inside "
                 "a queue; at every event the highest-priority tasks get their requested resources, "
                 "preempting lower-priority running tasks";
        d.order = 40;
        d.make = [](const ClusterScenario& s) { return std::make_unique<TiresiasScheduler>(s.scheduler.thresholds); };
        d.keys = {"thresholds"};
        return d;
    }();
    return d;
}

} // namespace fog::cluster
