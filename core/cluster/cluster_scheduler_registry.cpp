// The one list of cluster schedulers (collected from their files by the build:
// core/cluster/scheduler_list.cmake), lookups by name, and the resource bookkeeping they share.

#include "core/cluster/cluster_scheduler.h"

#include <algorithm>
#include <set>
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

#define FOG_LIST_CLUSTER(fn) FOG_CLUSTER_SCHEDULER(fn);
#include "core/cluster/scheduler_list.inc"
#undef FOG_LIST_CLUSTER

bool SchedulerInfo::uses(const std::string& key) const { return std::find(keys.begin(), keys.end(), key) != keys.end(); }

const std::vector<SchedulerInfo>& schedulerInfos() {
    static const std::vector<SchedulerInfo> infos = [] {
        std::vector<SchedulerInfo> v = {
#define FOG_LIST_CLUSTER(fn) fn(),
#include "core/cluster/scheduler_list.inc"
#undef FOG_LIST_CLUSTER
        };
        std::stable_sort(v.begin(), v.end(), [](const SchedulerInfo& a, const SchedulerInfo& b) { return a.order < b.order; });
        std::set<std::string> names;
        for (const auto& i : v)
            if (!names.insert(i.name).second) throw std::logic_error("two cluster schedulers are named '" + i.name + "'");
        return v;
    }();
    return infos;
}

std::vector<std::string> schedulerNames() {
    std::vector<std::string> out;
    for (const auto& i : schedulerInfos()) out.push_back(i.name);
    return out;
}

const SchedulerInfo* findScheduler(const std::string& name) {
    for (const auto& i : schedulerInfos())
        if (i.name == name) return &i;
    return nullptr;
}

std::vector<std::string> schedulersUsing(const std::string& key) {
    std::vector<std::string> out;
    for (const auto& i : schedulerInfos())
        if (i.uses(key)) out.push_back(i.name);
    return out;
}

std::unique_ptr<ClusterScheduler> makeScheduler(const std::string& name, const ClusterScenario& s) {
    if (const SchedulerInfo* i = findScheduler(name)) return i->make(s);
    throw std::invalid_argument("unknown cluster scheduler '" + name + "'");
}

} // namespace fog::cluster
