#include "widgets/compare/comparison_summary.h"

#include <cmath>
#include <map>
#include <utility>

namespace fog {

SummaryValues summarize(const ComparedRun& c, double target) {
    // The one definition of a run's figures (core/analysis/run_figures): the report and
    // `fogstudio-cli runs show` print the same numbers.
    const RunFigures f = runFigures(c.run.summary, c.run.status, c.metrics, target);
    SummaryValues v;
    v.finalAccuracy = f.finalAccuracy;
    v.bestAccuracy = f.bestAccuracy;
    v.rounds = f.rounds;
    v.virtualTime = f.virtualTime;
    v.cost = f.cost;
    v.energyJ = f.energyJ;
    v.timeToTarget = f.timeToTarget;
    v.costToTarget = f.costToTarget;
    v.energyToTarget = f.energyToTarget;
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
