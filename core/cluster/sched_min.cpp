// Min: every task gets its minimum allocation, in arrival order, wherever it fits (tasks
// that do not fit are skipped, so smaller ones behind them may start).

#include "core/cluster/cluster_scheduler.h"

namespace fog::cluster {

namespace {

class MinScheduler : public ClusterScheduler {
public:
    std::string name() const override { return "min"; }
    Decision decide(const SchedulingView& v) override {
        Decision d;
        ResourcePool pool(v);
        for (const TaskState* k : v.queue) {
            const TaskType& t = v.type(*k);
            const int server = pool.bestFit(t, t.min.cpus, t.min.gpus);
            if (server < 0) continue;
            pool.take(t, server, t.min.cpus, t.min.gpus);
            d.place.push_back({k->id, server, t.min.cpus, t.min.gpus});
        }
        return d;
    }
};

} // namespace

FOG_CLUSTER_SCHEDULER(minScheduler) {
    static const SchedulerInfo d = [] {
        SchedulerInfo d;
        d.name = "min";
        d.summary = "Minimum allocation: each task starts as soon as its minimum CPUs and GPUs fit (TapFinger's Min baseline).";
        d.source = "Li et al., TapFinger, INFOCOM 2023 (baseline)";
        d.rule = "every task its minimum, in arrival order, wherever it fits (smaller tasks may pass a "
                 "blocked one)";
        d.order = 30;
        d.make = [](const ClusterScenario&) { return std::make_unique<MinScheduler>(); };
        return d;
    }();
    return d;
}

} // namespace fog::cluster
