// The name-keyed registry of cluster schedulers and the resource bookkeeping they share.

#include "core/cluster/cluster_scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace fog::cluster {

ResourcePool::ResourcePool(const SchedulingView& v) : servers_(v.servers) {}

bool ResourcePool::fits(const TaskType& t, int server, int cpus, int gpus) const {
    const ServerState& s = servers_[server];
    return cpus <= s.freeCpus && gpus <= s.freeGpus && t.memoryGb <= s.freeMemoryGb + 1e-9 &&
           t.bandwidthGbps <= s.freeBandwidthGbps + 1e-9;
}

bool ResourcePool::maxFit(const TaskType& t, int server, int& cpus, int& gpus) const {
    if (!fits(t, server, t.min.cpus, t.min.gpus)) return false;
    cpus = std::min(t.max.cpus, servers_[server].freeCpus);
    gpus = std::min(t.max.gpus, servers_[server].freeGpus);
    return true;
}

void ResourcePool::take(const TaskType& t, int server, int cpus, int gpus) {
    ServerState& s = servers_[server];
    s.freeCpus -= cpus;
    s.freeGpus -= gpus;
    s.freeMemoryGb -= t.memoryGb;
    s.freeBandwidthGbps -= t.bandwidthGbps;
}

void ResourcePool::give(const TaskType& t, int server, int cpus, int gpus) {
    ServerState& s = servers_[server];
    s.freeCpus += cpus;
    s.freeGpus += gpus;
    s.freeMemoryGb += t.memoryGb;
    s.freeBandwidthGbps += t.bandwidthGbps;
}

int ResourcePool::bestFit(const TaskType& t, int cpus, int gpus) const {
    int best = -1;
    for (int i = 0; i < size(); ++i) {
        if (!fits(t, i, cpus, gpus)) continue;
        if (best < 0) {
            best = i;
            continue;
        }
        const auto key = [&](int k) { return std::make_pair(servers_[k].freeGpus - gpus, servers_[k].freeCpus - cpus); };
        if (key(i) < key(best)) best = i;
    }
    return best;
}

const std::vector<SchedulerInfo>& schedulerInfos() {
    static const std::vector<SchedulerInfo> infos = {
        randomSchedulerInfo(), fifoSchedulerInfo(),    minSchedulerInfo(),     tiresiasSchedulerInfo(),
        optimusSchedulerInfo(), drfSchedulerInfo(), learnedSchedulerInfo(),
    };
    return infos;
}

std::vector<std::string> schedulerNames() {
    std::vector<std::string> out;
    for (const auto& i : schedulerInfos()) out.push_back(i.name);
    return out;
}

std::unique_ptr<ClusterScheduler> makeScheduler(const std::string& name, const ClusterScenario& s) {
    for (const auto& i : schedulerInfos())
        if (i.name == name) return i.make(s);
    throw std::invalid_argument("unknown cluster scheduler '" + name + "'");
}

} // namespace fog::cluster
