#include "core/cluster/cluster_emulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace fog::cluster {

namespace {

double drawWork(const WorkSpec& w, Rng& rng) {
    switch (w.kind) {
    case WorkSpec::Kind::Fixed: return w.mean;
    case WorkSpec::Kind::Exponential: return std::max(1e-6, rng.exponential(w.mean));
    case WorkSpec::Kind::Uniform: return rng.uniform(w.min, w.max);
    }
    return w.mean;
}

int drawType(const std::vector<TaskType>& types, Rng& rng) {
    double total = 0;
    for (const auto& t : types) total += t.probability;
    double u = rng.uniform() * total;
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (u < types[i].probability) return static_cast<int>(i);
        u -= types[i].probability;
    }
    for (std::size_t i = types.size(); i-- > 0;)
        if (types[i].probability > 0) return static_cast<int>(i);
    return 0;
}

} // namespace

std::vector<TaskRecord> generateArrivals(const ClusterScenario& s, std::uint64_t seed) {
    Rng timeRng(deriveSeed(seed, hashName("cluster.arrivals")));
    Rng typeRng(deriveSeed(seed, hashName("cluster.types")));
    Rng workRng(deriveSeed(seed, hashName("cluster.work")));
    std::vector<TaskRecord> out;
    if (s.arrivals.kind == ArrivalSpec::Kind::Trace) {
        for (const auto& a : s.arrivals.trace) {
            TaskRecord r;
            r.id = static_cast<int>(out.size());
            r.type = a.type;
            r.arrival = a.time;
            const double drawn = drawWork(s.taskTypes[a.type].work, workRng); // drawn anyway: streams stay aligned
            r.work = a.work > 0 ? a.work : drawn;
            out.push_back(r);
        }
        return out;
    }
    // The first task arrives at time 0, then exponential gaps with mean 1 / rate.
    double t = 0;
    for (int i = 0; i < s.arrivals.tasks; ++i) {
        if (i > 0) t += timeRng.exponential(1.0 / s.arrivals.ratePerStep);
        TaskRecord r;
        r.id = i;
        r.arrival = t;
        r.type = drawType(s.taskTypes, typeRng);
        r.work = drawWork(s.taskTypes[r.type].work, workRng);
        out.push_back(r);
    }
    return out;
}

MeanCi meanCi(const std::vector<double>& v) {
    MeanCi ci;
    ci.n = static_cast<int>(v.size());
    if (v.empty()) return ci;
    ci.mean = std::accumulate(v.begin(), v.end(), 0.0) / v.size();
    if (v.size() < 2) return ci;
    double ss = 0;
    for (double x : v) ss += (x - ci.mean) * (x - ci.mean);
    const double sd = std::sqrt(ss / (v.size() - 1));
    // Student t quantiles (0.975) for small samples, 1.96 beyond 30.
    static const double t975[] = {0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                  2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                  2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    const std::size_t df = v.size() - 1;
    const double t = df <= 30 ? t975[df] : 1.96;
    ci.halfWidth = t * sd / std::sqrt(static_cast<double>(v.size()));
    return ci;
}

ClusterResult runCluster(const ClusterScenario& s, ClusterScheduler& scheduler, std::uint64_t seed,
                         const ClusterRunOptions& options) {
    const auto wallStart = std::chrono::steady_clock::now();
    ClusterResult result;
    result.tasks = generateArrivals(s, seed);
    const auto refs = flattenServers(s);
    const int nTasks = static_cast<int>(result.tasks.size());

    std::vector<TaskState> tasks(nTasks);
    for (int i = 0; i < nTasks; ++i) {
        const auto& r = result.tasks[i];
        tasks[i].id = r.id;
        tasks[i].type = r.type;
        tasks[i].arrival = r.arrival;
        tasks[i].work = r.work;
        tasks[i].remaining = r.work;
    }
    std::vector<ServerState> servers(refs.size());
    int totalCpus = 0, totalGpus = 0;
    for (std::size_t i = 0; i < refs.size(); ++i) {
        servers[i].cluster = refs[i].cluster;
        servers[i].spec = refs[i].spec;
        servers[i].freeCpus = refs[i].spec->cpus;
        servers[i].freeGpus = refs[i].spec->gpus;
        servers[i].freeMemoryGb = refs[i].spec->memoryGb;
        servers[i].freeBandwidthGbps = refs[i].spec->bandwidthGbps;
        totalCpus += refs[i].spec->cpus;
        totalGpus += refs[i].spec->gpus;
    }
    std::vector<int> pending; // ids, ordered by (arrival, id) = by id
    std::vector<int> running; // ids, ordered by id
    std::vector<int> openInterval(nTasks, -1);
    int next = 0, done = 0;
    double t = 0.0;
    double pendingArea = 0, cpuArea = 0, gpuArea = 0;
    int usedCpus = 0, usedGpus = 0;
    double usedMem = 0, usedBw = 0;

    auto stop = [&](double at, const std::string& why) {
        auto& sm = result.summary;
        sm.stopReason = why;
        sm.makespan = at;
    };
    auto release = [&](TaskState& k, double at) {
        ServerState& sv = servers[k.server];
        const TaskType& ty = s.taskTypes[k.type];
        sv.freeCpus += k.cpus;
        sv.freeGpus += k.gpus;
        sv.freeMemoryGb += ty.memoryGb;
        sv.freeBandwidthGbps += ty.bandwidthGbps;
        usedCpus -= k.cpus;
        usedGpus -= k.gpus;
        usedMem -= ty.memoryGb;
        usedBw -= ty.bandwidthGbps;
        result.intervals[openInterval[k.id]].end = at;
        openInterval[k.id] = -1;
        k.server = -1;
    };

    scheduler.beginEpisode(s, seed);
    bool cancelled = false;
    for (;;) {
        // Arrivals of this instant.
        while (next < nTasks && tasks[next].arrival <= t) pending.push_back(next++);

        // The scheduler's turn.
        SchedulingView view;
        view.now = t;
        view.scenario = &s;
        const int visible = std::min<int>(static_cast<int>(pending.size()), s.queueLimit);
        for (int i = 0; i < visible; ++i) view.queue.push_back(&tasks[pending[i]]);
        for (int id : running) view.running.push_back(&tasks[id]);
        view.servers = servers;
        view.backlog = static_cast<int>(pending.size()) - visible;
        view.inSystem = static_cast<int>(pending.size() + running.size());
        const Decision d = scheduler.decide(view);
        ++result.summary.decisions;
        for (int id : d.preempt) {
            if (id < 0 || id >= nTasks || !tasks[id].running())
                throw ClusterError("scheduler " + scheduler.name() + " preempted task " + std::to_string(id) +
                                   ", which is not running at time " + std::to_string(t));
            TaskState& k = tasks[id];
            release(k, t);
            ++k.preemptions;
            running.erase(std::find(running.begin(), running.end(), id));
            pending.insert(std::lower_bound(pending.begin(), pending.end(), id), id);
        }
        // Placements may name what the scheduler saw waiting, or what it just preempted.
        std::vector<int> visibleIds;
        for (const TaskState* k : view.queue) visibleIds.push_back(k->id);
        visibleIds.insert(visibleIds.end(), d.preempt.begin(), d.preempt.end());
        for (const Placement& p : d.place) {
            const bool inQueue = std::find(visibleIds.begin(), visibleIds.end(), p.task) != visibleIds.end();
            if (!inQueue || tasks[p.task].running())
                throw ClusterError("scheduler " + scheduler.name() + " placed task " + std::to_string(p.task) +
                                   ", which is not in the visible pending queue at time " + std::to_string(t));
            if (p.server < 0 || p.server >= static_cast<int>(servers.size()))
                throw ClusterError("scheduler " + scheduler.name() + " placed task " + std::to_string(p.task) +
                                   " on unknown server " + std::to_string(p.server));
            TaskState& k = tasks[p.task];
            const TaskType& ty = s.taskTypes[k.type];
            ServerState& sv = servers[p.server];
            if (p.cpus < ty.min.cpus || p.gpus < ty.min.gpus || p.cpus > ty.max.cpus || p.gpus > ty.max.gpus)
                throw ClusterError("scheduler " + scheduler.name() + " gave task " + std::to_string(p.task) + " (" +
                                   ty.name + ") " + std::to_string(p.cpus) + " cpus, " + std::to_string(p.gpus) +
                                   " gpus, outside its min..max");
            if (p.cpus > sv.freeCpus || p.gpus > sv.freeGpus || ty.memoryGb > sv.freeMemoryGb + 1e-9 ||
                ty.bandwidthGbps > sv.freeBandwidthGbps + 1e-9)
                throw ClusterError("scheduler " + scheduler.name() + " placed task " + std::to_string(p.task) +
                                   " on server " + sv.spec->id + " beyond its free capacity at time " + std::to_string(t));
            sv.freeCpus -= p.cpus;
            sv.freeGpus -= p.gpus;
            sv.freeMemoryGb -= ty.memoryGb;
            sv.freeBandwidthGbps -= ty.bandwidthGbps;
            usedCpus += p.cpus;
            usedGpus += p.gpus;
            usedMem += ty.memoryGb;
            usedBw += ty.bandwidthGbps;
            k.server = p.server;
            k.cpus = p.cpus;
            k.gpus = p.gpus;
            if (k.firstStart < 0) k.firstStart = t;
            openInterval[k.id] = static_cast<int>(result.intervals.size());
            result.intervals.push_back({p.server, k.id, t, t, p.cpus, p.gpus, ty.memoryGb, ty.bandwidthGbps});
            pending.erase(std::find(pending.begin(), pending.end(), k.id));
            running.insert(std::lower_bound(running.begin(), running.end(), k.id), k.id);
        }
        ClusterSample sample{t, static_cast<int>(pending.size()), static_cast<int>(running.size()),
                             usedCpus, usedGpus, usedMem, usedBw};
        result.samples.push_back(sample);
        if (options.onSample) options.onSample(sample);
        if (options.onServers) options.onServers(t, servers);

        if (done == nTasks) break;
        if (options.cancel && options.cancel->load()) {
            cancelled = true;
            break;
        }
        // The next event: an arrival or the earliest completion.
        double tNext = next < nTasks ? tasks[next].arrival : std::numeric_limits<double>::infinity();
        for (int id : running) {
            const TaskState& k = tasks[id];
            tNext = std::min(tNext, t + k.remaining / taskSpeed(s.taskTypes[k.type], k.cpus, k.gpus));
        }
        if (!std::isfinite(tNext)) {
            stop(t, "stalled: scheduler " + scheduler.name() + " left " + std::to_string(pending.size()) +
                        " tasks pending on an idle cluster with no arrivals to come");
            break;
        }
        const double dt = tNext - t;
        pendingArea += pending.size() * dt;
        cpuArea += usedCpus * dt;
        gpuArea += usedGpus * dt;
        std::vector<int> finished;
        for (int id : running) {
            TaskState& k = tasks[id];
            const double speed = taskSpeed(s.taskTypes[k.type], k.cpus, k.gpus);
            const double finishAt = t + k.remaining / speed;
            k.attainedGpuSteps += k.gpus * dt;
            if (finishAt <= tNext + 1e-12 * std::max(1.0, tNext)) {
                k.remaining = 0;
                finished.push_back(id);
            } else {
                k.remaining = std::max(0.0, k.remaining - speed * dt);
            }
        }
        t = tNext;
        for (int id : finished) { // ids ascending: ties break the same way every run
            TaskState& k = tasks[id];
            TaskRecord& r = result.tasks[id];
            r.server = k.server;
            r.cpus = k.cpus;
            r.gpus = k.gpus;
            release(k, t);
            k.finish = t;
            r.finish = t;
            r.firstStart = k.firstStart;
            r.preemptions = k.preemptions;
            running.erase(std::find(running.begin(), running.end(), id));
            ++done;
            if (options.onTaskFinished) options.onTaskFinished(r);
        }
    }
    scheduler.endEpisode(t);

    // Tasks still running or pending at a stop: their records say so (finish < 0).
    for (int id : running) {
        result.tasks[id].server = tasks[id].server;
        result.tasks[id].cpus = tasks[id].cpus;
        result.tasks[id].gpus = tasks[id].gpus;
        result.tasks[id].firstStart = tasks[id].firstStart;
        result.intervals[openInterval[id]].end = t;
    }
    for (auto& r : result.tasks) r.preemptions = tasks[r.id].preemptions;

    auto& sm = result.summary;
    sm.scheduler = scheduler.name();
    sm.seed = seed;
    sm.tasks = nTasks;
    sm.completed = done;
    sm.complete = done == nTasks;
    if (sm.complete) sm.stopReason = "all " + std::to_string(nTasks) + " tasks completed";
    else if (cancelled) sm.stopReason = "cancelled";
    sm.makespan = t;
    std::vector<double> jct;
    double wait = 0;
    for (const auto& r : result.tasks)
        if (r.finish >= 0) {
            jct.push_back(r.completionTime());
            wait += r.firstStart - r.arrival;
        }
    std::sort(jct.begin(), jct.end());
    if (!jct.empty()) {
        sm.meanCompletion = std::accumulate(jct.begin(), jct.end(), 0.0) / jct.size();
        auto rank = [&](double q) { return jct[std::min(jct.size() - 1, static_cast<std::size_t>(std::ceil(q * jct.size())) - 1)]; };
        sm.p50Completion = rank(0.5);
        sm.p95Completion = rank(0.95);
        sm.maxCompletion = jct.back();
        sm.meanWait = wait / jct.size();
    }
    if (t > 0) {
        sm.meanPending = pendingArea / t;
        sm.cpuUtilisation = totalCpus > 0 ? cpuArea / t / totalCpus : 0.0;
        sm.gpuUtilisation = totalGpus > 0 ? gpuArea / t / totalGpus : 0.0;
    }
    for (const auto& k : tasks) sm.preemptions += k.preemptions;
    sm.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return result;
}

} // namespace fog::cluster
