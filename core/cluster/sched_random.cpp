// Random: visible tasks in random order, each on a random server where its minimum fits, with
// CPU and GPU counts drawn uniformly between its minimum and what fits (up to its maximum).

#include "core/cluster/cluster_scheduler.h"

namespace fog::cluster {

namespace {

class RandomScheduler : public ClusterScheduler {
public:
    std::string name() const override { return "random"; }
    void beginEpisode(const ClusterScenario&, std::uint64_t seed) override {
        rng_ = Rng(deriveSeed(seed, hashName("cluster.scheduler.random")));
    }
    Decision decide(const SchedulingView& v) override {
        Decision d;
        ResourcePool pool(v);
        std::vector<const TaskState*> order = v.queue;
        rng_.shuffle(order);
        for (const TaskState* k : order) {
            const TaskType& t = v.type(*k);
            std::vector<int> candidates;
            for (int i = 0; i < pool.size(); ++i)
                if (pool.fits(t, i, t.min.cpus, t.min.gpus)) candidates.push_back(i);
            if (candidates.empty()) continue;
            const int server = candidates[rng_.below(candidates.size())];
            int maxC = 0, maxG = 0;
            pool.maxFit(t, server, maxC, maxG);
            const int c = t.min.cpus + static_cast<int>(rng_.below(maxC - t.min.cpus + 1));
            const int g = t.min.gpus + static_cast<int>(rng_.below(maxG - t.min.gpus + 1));
            pool.take(t, server, c, g);
            d.place.push_back({k->id, server, c, g});
        }
        return d;
    }

private:
    Rng rng_{1};
};

} // namespace

FOG_CLUSTER_SCHEDULER(randomScheduler) {
    static const SchedulerInfo d = [] {
        SchedulerInfo d;
        d.name = "random";
        d.summary = "Random order, random feasible server, random CPU and GPU counts between min and what fits.";
        d.source = "Li et al., TapFinger, INFOCOM 2023 (baseline)";
        d.rule = "visible tasks in random order, each on a random server where its minimum fits, CPUs and "
                 "GPUs uniform between its minimum and what fits";
        d.order = 10;
        d.make = [](const ClusterScenario&) { return std::make_unique<RandomScheduler>(); };
        return d;
    }();
    return d;
}

} // namespace fog::cluster
