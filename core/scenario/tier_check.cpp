#include "core/scenario/tier_check.h"

#include "core/policies/policy_descriptor.h"
#include "core/policies/tiered.h"
#include "core/scenario/schema.h"
#include "core/scenario/yaml_reader.h"
#include "core/system/topology.h"

#include <set>

namespace fog {

namespace {

std::string levelPolicyNames() {
    std::vector<std::string> names;
    for (const auto* d : syncDescriptors())
        if (d->level.usable) names.push_back(d->info.name);
    return joinNames(names);
}

} // namespace

void addTierProblems(const Scenario& s, std::vector<Diagnostic>& out) {
    const TopologySpec& t = s.topology;
    if (!isTiered(t)) return;
    const std::string file = s.sourcePath.empty() ? "<scenario>" : s.sourcePath;
    auto error = [&](const std::string& path, int line, const std::string& message) {
        out.push_back({file, line, 0, path, message});
    };

    // The maps themselves, once per entry.
    std::set<std::size_t> badEntries;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        const NodeSpec& n = t.nodes[i];
        if (!n.aggregate) continue;
        const AggregateSpec& a = *n.aggregate;
        const std::string path = t.pathOf(i) + ".aggregate";
        const std::size_t before = out.size();
        if (!roleAggregates(n.role) || n.role == Role::Both) {
            error(path, a.line,
                  "is only for aggregators, but '" + n.id + "' has role " + toString(n.role) +
                      (n.role == Role::Both ? " (in a tiered tree a node either trains or aggregates: give the "
                                              "training to a trainer child)"
                                            : ""));
            badEntries.insert(i);
            continue;
        }
        if (!a.sync.empty()) {
            const SyncPolicyDescriptor* d = findSyncDescriptor(a.sync);
            if (!d) {
                std::vector<std::string> known;
                for (const auto* x : syncDescriptors()) known.push_back(x->info.name);
                error(path + ".sync", a.line, "unknown sync policy '" + a.sync + "'" + didYouMean(a.sync, known));
            } else if (!d->level.usable) {
                error(path + ".sync", a.line,
                      "sync policy " + a.sync + " cannot run as one aggregator's policy (per-level policies: " +
                          levelPolicyNames() + ")");
            }
        }
        if (!a.selection.empty() && !findSelectionDescriptor(a.selection)) {
            std::vector<std::string> known;
            for (const auto* x : selectionDescriptors()) known.push_back(x->info.name);
            error(path + ".selection", a.line,
                  "unknown selection policy '" + a.selection + "'" + didYouMean(a.selection, known));
        }
        // rounds and local_steps: the schema's bounds (checkNodeFields).
        if (out.size() > before) {
            badEntries.insert(i);
            continue;
        }
        std::vector<LevelProblem> problems;
        const LevelPlan plan = resolveLevel(s, n, &problems);
        for (const auto& p : problems) error(t.pathOf(i) + "." + p.key, p.line, p.message);
        for (const auto& [spec, infos] : {std::make_pair(&plan.sync, &syncPolicyInfos()),
                                          std::make_pair(&plan.selection, &selectionPolicyInfos())})
            for (const auto& info : *infos)
                if (info.name == spec->name)
                    for (const auto& param : info.params) {
                        const auto it = spec->params.find(param.key);
                        if (it == spec->params.end() || !a.params.count(param.key)) continue;
                        const std::string why = boundsProblem(policyParamBounds(param), it->second);
                        if (!why.empty()) error(path + "." + param.key, spec->paramLines.at(param.key), why);
                    }
        if (out.size() > before) badEntries.insert(i);
    }

    // The tree, on the expanded topology (nothing to say when it does not build: the
    // topology checks have said why).
    std::unique_ptr<Topology> topo;
    try {
        topo = std::make_unique<Topology>(t, s.seed);
    } catch (const std::exception&) {
        return;
    }
    const auto roots = topo->rootAggregators();
    if (roots.size() != 1) {
        std::vector<std::string> names;
        for (int r : roots) names.push_back(topo->id(r));
        error("topology", 0,
              "a tiered tree (some node declares aggregate:) needs exactly one root aggregator, found " +
                  std::to_string(roots.size()) + (names.empty() ? std::string() : ": " + joinNames(names)) +
                  "; put the regions under one cloud aggregator");
        return;
    }
    std::set<std::size_t> told; // one message per entry (a group's members share it)
    for (int node = 0; node < topo->size(); ++node) {
        if (!topo->aggregates(node)) continue;
        const auto entry = static_cast<std::size_t>(topo->entryIndex(node));
        if (badEntries.count(entry) || told.count(entry)) continue;
        const NodeSpec& n = t.nodes[entry];
        const std::string path = t.pathOf(entry);
        const int line = n.aggregate ? n.aggregate->line : n.line;
        if (n.role == Role::Both) {
            error(path + ".role", n.line,
                  "is both, but in a tiered tree a node either trains or aggregates: give '" + n.id +
                      "' the role aggregator and its training to a trainer child");
            told.insert(entry);
            continue;
        }
        const auto trainers = topo->trainersOf(node);
        const auto below = topo->childAggregatorsOf(node);
        if (trainers.empty() && below.empty()) continue; // nothing to aggregate: takes no part
        const LevelPlan plan = resolveLevel(s, n);
        const std::string own = n.aggregate && !n.aggregate->sync.empty() ? "its sync policy "
                                                                          : "the scenario's sync policy ";
        const SyncPolicyDescriptor* sd = findSyncDescriptor(plan.sync.name);
        if (sd && !sd->level.usable) {
            error(n.aggregate ? path + ".aggregate" : path, line,
                  "aggregator '" + topo->id(node) + "' runs " + own + plan.sync.name +
                      ", which cannot run as one aggregator's policy in a tiered tree; give it aggregate: "
                      "{sync: ...} with one of " + levelPolicyNames());
            told.insert(entry);
            continue;
        }
        if (sd && sd->level.gradient && !trainers.empty() && !below.empty()) {
            error(n.aggregate ? path + ".aggregate" : path, line,
                  "aggregator '" + topo->id(node) + "' runs " + own + plan.sync.name +
                      ", which steps with its trainers' gradients, but it has aggregator children too ('" +
                      topo->id(below.front()) + "'), whose updates are model changes; use fedavg here or "
                      "move trainer '" + topo->id(trainers.front()) + "' under an aggregator");
            told.insert(entry);
            continue;
        }
        if (sd && sd->level.gradient && n.aggregate && n.aggregate->localSteps > 0) {
            error(path + ".aggregate.local_steps", line,
                  "is " + std::to_string(n.aggregate->localSteps) + ", but " + plan.sync.name +
                      " takes one mini-batch gradient per dispatch; local steps are for fedavg");
            told.insert(entry);
            continue;
        }
        const SelectionPolicyDescriptor* ld = findSelectionDescriptor(plan.selection.name);
        if (ld && (!ld->serverTrainersOnly.empty() || ld->needsBarrierSync)) {
            error(n.aggregate ? path + ".aggregate" : path, line,
                  "aggregator '" + topo->id(node) + "' uses selection policy " + plan.selection.name +
                      ", which plans the rounds of a single parameter server and cannot run per aggregator");
            told.insert(entry);
            continue;
        }
        if (ld && !ld->uniform && !below.empty()) {
            error(n.aggregate ? path + ".aggregate" : path, line,
                  "aggregator '" + topo->id(node) + "' chooses among aggregators ('" + topo->id(below.front()) +
                      "', ...) with selection policy " + plan.selection.name +
                      ", which ranks trainers by their own speed or data; use all or random-k there");
            told.insert(entry);
            continue;
        }
    }
}

} // namespace fog
