// Optimus-style marginal-gain allocation (after Peng et al., EuroSys 2018): every waiting
// task that fits starts with its minimum; then, one CPU or one GPU at a time, the spare
// resources go to the new task whose remaining time drops most per unit of resource (the
// unit's share of the cluster total), until no addition shortens any task. Running tasks
// keep their allocation (no resizing: a simplification of Optimus' periodic reallocation).

#include "core/cluster/cluster_scheduler.h"

namespace fog::cluster {

namespace {

class OptimusScheduler : public ClusterScheduler {
public:
    std::string name() const override { return "optimus"; }
    Decision decide(const SchedulingView& v) override {
        Decision d;
        ResourcePool pool(v);
        double totalCpus = 0, totalGpus = 0;
        for (const auto& s : v.servers) {
            totalCpus += s.spec->cpus;
            totalGpus += s.spec->gpus;
        }
        std::vector<const TaskState*> started;
        for (const TaskState* k : v.queue) {
            const TaskType& t = v.type(*k);
            const int server = pool.bestFit(t, t.min.cpus, t.min.gpus);
            if (server < 0) continue;
            pool.take(t, server, t.min.cpus, t.min.gpus);
            d.place.push_back({k->id, server, t.min.cpus, t.min.gpus});
            started.push_back(k);
        }
        for (;;) {
            int best = -1;
            bool bestGpu = false;
            double bestGain = 1e-12;
            for (std::size_t i = 0; i < started.size(); ++i) {
                const TaskState& k = *started[i];
                const TaskType& t = v.type(k);
                Placement& p = d.place[i];
                const double now = k.remaining / taskSpeed(t, p.cpus, p.gpus);
                const ServerState& sv = pool.server(p.server);
                if (p.cpus < t.max.cpus && sv.freeCpus > 0 && totalCpus > 0) {
                    const double gain = (now - k.remaining / taskSpeed(t, p.cpus + 1, p.gpus)) * totalCpus;
                    if (gain > bestGain) { bestGain = gain; best = static_cast<int>(i); bestGpu = false; }
                }
                if (p.gpus < t.max.gpus && sv.freeGpus > 0 && totalGpus > 0) {
                    const double gain = (now - k.remaining / taskSpeed(t, p.cpus, p.gpus + 1)) * totalGpus;
                    if (gain > bestGain) { bestGain = gain; best = static_cast<int>(i); bestGpu = true; }
                }
            }
            if (best < 0) break;
            Placement& p = d.place[best];
            const TaskType& t = v.type(*started[best]);
            pool.give(t, p.server, p.cpus, p.gpus);
            (bestGpu ? p.gpus : p.cpus) += 1;
            pool.take(t, p.server, p.cpus, p.gpus);
        }
        return d;
    }
};

} // namespace

FOG_CLUSTER_SCHEDULER(optimusScheduler) {
    static const SchedulerInfo d = [] {
        SchedulerInfo d;
        d.name = "optimus";
        d.summary = "Marginal-gain allocation: start waiting tasks at their minimum, then give each spare CPU or GPU to the task "
            "whose remaining time drops most per unit of cluster share.";
        d.source = "Peng et al., Optimus, EuroSys 2018";
        d.rule = "waiting tasks start at their minimum; then one CPU or GPU at a time goes to the new task "
                 "whose remaining time drops most per unit of cluster share (the unit divided by the "
                 "cluster's total of that resource), until no addition helps; running tasks are not "
                 "resized";
        d.order = 50;
        d.make = [](const ClusterScenario&) { return std::make_unique<OptimusScheduler>(); };
        return d;
    }();
    return d;
}

} // namespace fog::cluster
