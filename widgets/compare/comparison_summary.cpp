#include "widgets/compare/comparison_summary.h"

#include <cmath>
#include <map>
#include <utility>

namespace fog {

SummaryValues summarize(const ComparedRun& c, double target) {
    SummaryValues v;
    const RunSummary& s = c.run.summary;
    // The stored summary is what the run ended with; the metrics say the same for finished
    // runs and are the only source while a run is still being written.
    v.finalAccuracy = c.metrics.empty() ? s.finalTestAccuracy : finalAccuracy(c.metrics);
    v.bestAccuracy = c.metrics.empty() ? s.bestTestAccuracy : bestAccuracy(c.metrics);
    v.rounds = s.rounds;
    v.virtualTime = s.virtualTime;
    v.cost = s.cost;
    v.energyJ = s.energyJ;
    if (const auto reach = reachTarget(c.metrics, target)) {
        v.timeToTarget = reach->time;
        v.costToTarget = reach->cost;
        v.energyToTarget = reach->energyJ;
    }
    return v;
}

std::vector<RepeatGroup> repeatGroups(const std::vector<ComparedRun>& runs, double target) {
    std::map<std::pair<qint64, std::string>, std::vector<std::size_t>> byConfig;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].run.sweepId) byConfig[{runs[i].run.sweepId, runs[i].run.sweepConfig}].push_back(i);
    std::vector<RepeatGroup> groups;
    for (const auto& [key, members] : byConfig) {
        if (members.size() < 2) continue;
        RepeatGroup g;
        g.sweepId = key.first;
        g.config = QString::fromStdString(key.second);
        g.members = members;
        std::vector<double> fa, ba, tt, ct, et, ro, vt, co, en;
        for (std::size_t i : members) {
            const SummaryValues v = summarize(runs[i], target);
            auto add = [](std::vector<double>& to, double x) {
                if (!std::isnan(x)) to.push_back(x);
            };
            add(fa, v.finalAccuracy);
            add(ba, v.bestAccuracy);
            add(tt, v.timeToTarget);
            add(ct, v.costToTarget);
            add(et, v.energyToTarget);
            add(ro, v.rounds);
            add(vt, v.virtualTime);
            add(co, v.cost);
            add(en, v.energyJ);
            g.reached += std::isnan(v.timeToTarget) ? 0 : 1;
        }
        g.finalAccuracy = meanWithCi(fa);
        g.bestAccuracy = meanWithCi(ba);
        g.timeToTarget = meanWithCi(tt);
        g.costToTarget = meanWithCi(ct);
        g.energyToTarget = meanWithCi(et);
        g.rounds = meanWithCi(ro);
        g.virtualTime = meanWithCi(vt);
        g.cost = meanWithCi(co);
        g.energyJ = meanWithCi(en);
        groups.push_back(std::move(g));
    }
    return groups;
}

} // namespace fog
