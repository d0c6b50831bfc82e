#include "core/scenario/crosscloud_check.h"

#include "core/policies/policy_descriptor.h"
#include "core/policies/tiered.h"
#include "core/system/topology.h"

#include <memory>
#include <set>

namespace fog {

void addCrossCloudProblems(const Scenario& s, std::vector<Diagnostic>& out) {
    if (isTiered(s.topology)) return; // one root: core/scenario/tier_check.h
    const SyncPolicyDescriptor* d = findSyncDescriptor(s.sync.name);
    if (!d) return;
    PolicyParams p;
    try {
        p = resolveSyncParams(s.sync);
    } catch (const std::exception&) {
        return;
    }
    const bool ma = d->info.shape == TreeShape::Regions; // synchronous or asynchronous
    const bool asyncMa = ma && d->asyncAveraging && d->asyncAveraging(p);
    const bool severalGa = d->serverPerRoot;
    if (!ma && !severalGa) return;
    std::unique_ptr<Topology> topo;
    try {
        topo = std::make_unique<Topology>(s.topology, s.seed);
    } catch (const std::exception&) {
        return; // the topology checks have said why
    }
    const auto roots = topo->rootAggregators();
    if (roots.size() < 2) return;
    // The regional servers: roots with trainers right under them (model averaging) or
    // anywhere below them (async-ga relays through the aggregators below its server).
    std::set<int> servers;
    for (int t : topo->trainers()) {
        int a = topo->aggregator(t);
        if (a < 0) continue;
        if (severalGa)
            while (topo->aggregator(a) >= 0) a = topo->aggregator(a);
        if (topo->aggregator(a) < 0) servers.insert(a);
    }
    const std::string file = s.sourcePath.empty() ? "<scenario>" : s.sourcePath;
    const std::string mode = asyncMa ? "asynchronous model averaging"
                             : ma    ? "model averaging"
                                     : "async-ga with several root aggregators";
    int told = 0;
    for (auto a = servers.begin(); a != servers.end() && told < 5; ++a)
        for (auto b = std::next(a); b != servers.end() && told < 5; ++b) {
            if (!topo->path(*a, *b).empty()) continue;
            ++told;
            out.push_back({file, s.sync.line, 0, "sync.policy",
                           mode + " exchanges models between the regional servers '" + topo->id(*a) + "' and '" +
                               topo->id(*b) + "' over the WAN, but no link joins them (they are in separate trees), "
                               "so the models would cross instantly and for free; add a topology.links entry "
                               "{from: " + topo->id(*a) + ", to: " + topo->id(*b) + ", ...}"});
        }
}

} // namespace fog
