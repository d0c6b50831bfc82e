// FIFO: tasks start in arrival order with the resources they request, on the best-fitting
// server; the head of the queue blocks the rest when it does not fit (no backfilling).

#include "core/cluster/cluster_scheduler.h"

namespace fog::cluster {

namespace {

class FifoScheduler : public ClusterScheduler {
public:
    std::string name() const override { return "fifo"; }
    Decision decide(const SchedulingView& v) override {
        Decision d;
        ResourcePool pool(v);
        for (const TaskState* k : v.queue) {
            const TaskType& t = v.type(*k);
            const int server = pool.bestFit(t, t.request.cpus, t.request.gpus);
            if (server < 0) break; // head-of-line blocking
            pool.take(t, server, t.request.cpus, t.request.gpus);
            d.place.push_back({k->id, server, t.request.cpus, t.request.gpus});
        }
        return d;
    }
};

} // namespace

FOG_CLUSTER_SCHEDULER(fifoScheduler) {
    static const SchedulerInfo d = [] {
        SchedulerInfo d;
        d.name = "fifo";
        d.summary = "First come, first served with each task's requested CPUs and GPUs; the head of the queue blocks.";
        d.rule = "arrival order with the requested resources on the best-fitting server; the head of the "
                 "queue blocks the rest";
        d.order = 20;
        d.make = [](const ClusterScenario&) { return std::make_unique<FifoScheduler>(); };
        return d;
    }();
    return d;
}

} // namespace fog::cluster
