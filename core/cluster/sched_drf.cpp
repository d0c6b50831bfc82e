// Dominant resource fairness (Ghodsi et al., NSDI 2011) with task types as the users: the
// type with the smallest dominant share (its largest share of any resource, over the whole
// cluster, counting what its running tasks hold) starts its oldest waiting task with the
// requested resources; repeat until no type can start another task.

#include "core/cluster/cluster_scheduler.h"

#include <algorithm>
#include <array>

namespace fog::cluster {

namespace {

class DrfScheduler : public ClusterScheduler {
public:
    std::string name() const override { return "drf"; }
    Decision decide(const SchedulingView& v) override {
        const auto& types = v.scenario->taskTypes;
        std::array<double, 4> total{0, 0, 0, 0};
        for (const auto& s : v.servers) {
            total[0] += s.spec->cpus;
            total[1] += s.spec->gpus;
            total[2] += s.spec->memoryGb;
            total[3] += s.spec->bandwidthGbps;
        }
        // What each type (user) holds now, running tasks included.
        std::vector<std::array<double, 4>> held(types.size(), {0, 0, 0, 0});
        auto dominant = [&](std::size_t u) {
            double m = 0;
            for (int r = 0; r < 4; ++r)
                if (total[r] > 0) m = std::max(m, held[u][r] / total[r]);
            return m;
        };
        auto hold = [&](const TaskType& t, std::size_t u, int cpus, int gpus) {
            held[u][0] += cpus;
            held[u][1] += gpus;
            held[u][2] += t.memoryGb;
            held[u][3] += t.bandwidthGbps;
        };
        for (const TaskState* k : v.running) hold(v.type(*k), k->type, k->cpus, k->gpus);

        Decision d;
        ResourcePool pool(v);
        std::vector<const TaskState*> waiting = v.queue;
        for (;;) {
            int bestUser = -1, bestServer = -1;
            const TaskState* bestTask = nullptr;
            for (std::size_t u = 0; u < types.size(); ++u) {
                const TaskType& t = types[u];
                const auto it = std::find_if(waiting.begin(), waiting.end(),
                                             [&](const TaskState* k) { return k->type == static_cast<int>(u); });
                if (it == waiting.end()) continue;
                const int server = pool.bestFit(t, t.request.cpus, t.request.gpus);
                if (server < 0) continue;
                if (bestUser < 0 || dominant(u) < dominant(bestUser) - 1e-12) {
                    bestUser = static_cast<int>(u);
                    bestServer = server;
                    bestTask = *it;
                }
            }
            if (bestUser < 0) break;
            const TaskType& t = types[bestUser];
            pool.take(t, bestServer, t.request.cpus, t.request.gpus);
            hold(t, bestUser, t.request.cpus, t.request.gpus);
            d.place.push_back({bestTask->id, bestServer, t.request.cpus, t.request.gpus});
            waiting.erase(std::find(waiting.begin(), waiting.end(), bestTask));
        }
        return d;
    }
};

} // namespace

FOG_CLUSTER_SCHEDULER(drfScheduler) {
    static const SchedulerInfo d = [] {
        SchedulerInfo d;
        d.name = "drf";
        d.summary = "Dominant resource fairness between task types, each task with its requested resources.";
        d.source = "Ghodsi et al., Dominant Resource Fairness, NSDI 2011";
        d.rule = "dominant resource fairness with the task types as users: the type with the smallest "
                 "dominant share (CPUs, GPUs, memory, bandwidth over the cluster totals, counting its "
                 "running tasks) starts its oldest waiting task with its request, until none can";
        d.order = 60;
        d.make = [](const ClusterScenario&) { return std::make_unique<DrfScheduler>(); };
        return d;
    }();
    return d;
}

} // namespace fog::cluster
