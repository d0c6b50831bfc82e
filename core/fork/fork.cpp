#include "core/fork/fork.h"

#include "core/analysis/reproduction.h"
#include "core/cluster/cluster_io.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/sweep/sweep.h"
#include "core/util/text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

namespace fog {

namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string settableText() {
    std::string out;
    for (const auto& k : forkSettableKeys()) out += "\n  " + k;
    return out;
}

[[noreturn]] void refuseKey(const std::string& key, const std::string& why) {
    throw ForkError("--set " + key + ": " + why + "; a fork changes what a timed event can change at the fork "
                    "instant (or give the action itself with --event):" + settableText());
}

/// `key` = "topology.nodes[3].rest" or "topology.groups[1].rest": the entry's id and "rest".
bool splitEntryPath(const Scenario& s, const std::string& key, std::string& id, std::string& rest) {
    for (const char* section : {"topology.nodes[", "topology.groups["}) {
        const std::string prefix = section;
        if (key.rfind(prefix, 0) != 0) continue;
        const auto close = key.find(']', prefix.size());
        if (close == std::string::npos || close + 1 >= key.size() || key[close + 1] != '.')
            refuseKey(key, "expected " + prefix + "INDEX].KEY");
        const std::string index = key.substr(prefix.size(), close - prefix.size());
        char* end = nullptr;
        const long k = std::strtol(index.c_str(), &end, 10);
        if (index.empty() || *end != '\0' || k < 0) refuseKey(key, "'" + index + "' is not an index");
        const bool groups = prefix == "topology.groups[";
        long seen = 0;
        for (const auto& n : s.topology.nodes) {
            if (n.group != groups) continue;
            if (seen++ == k) {
                id = n.id;
                rest = key.substr(close + 2);
                return true;
            }
        }
        refuseKey(key, "the scenario has " + std::to_string(seen) + (groups ? " groups" : " nodes"));
    }
    return false;
}

/// Link keys of topology.links[i] and of a node's uplink, with their event names.
const std::map<std::string, std::string>& linkFields() {
    static const std::map<std::string, std::string> m = {
        {"bandwidth_up_mbps", "bandwidth_up_mbps"},   {"link.bandwidth_up_mbps", "bandwidth_up_mbps"},
        {"up", "bandwidth_up_mbps"},                  {"bandwidth_down_mbps", "bandwidth_down_mbps"},
        {"link.bandwidth_down_mbps", "bandwidth_down_mbps"}, {"down", "bandwidth_down_mbps"},
        {"latency_ms", "latency_ms"},                 {"link.latency_ms", "latency_ms"},
        {"latency", "latency_ms"},
    };
    return m;
}

const std::map<std::string, std::string>& nodeFields() {
    static const std::map<std::string, std::string> m = {
        {"price_per_hour", "price_per_hour"},
        {"price", "price_per_hour"},
        {"throughput", "throughput"},
        {"compute.throughput", "throughput"},
    };
    return m;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
/// Equal as stored: the store keeps NaN as NULL, which reads back as NaN (any payload).
bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || sameBits(a, b); }

/// Checks a fork's replay against its parent: every metric row before the fork instant and
/// the state at every parent snapshot before it. Throws ForkError at the first difference,
/// which ends the run as failed with that message.
class ReplayCheck final : public RunObserver {
public:
    ReplayCheck(const RunStore& store, const ForkPlan& plan) : store_(store), plan_(plan) {}

    void onAggregation(const AggregationRecord& r) override {
        if (r.time >= plan_.atSeconds) {
            if (next_ < plan_.parentRows.size())
                diverged(r.time, "it reached t = " + shortNumber(r.time) + " s with " + std::to_string(next_) +
                                     " metric rows, the parent had " + std::to_string(plan_.parentRows.size()) +
                                     " before the fork instant");
            return;
        }
        if (next_ >= plan_.parentRows.size())
            diverged(r.time, "metric row " + std::to_string(next_ + 1) + " (round " + std::to_string(r.round) +
                                 ") is not in the parent, which had " + std::to_string(plan_.parentRows.size()) +
                                 " rows before the fork instant");
        const std::string what = rowDifference(plan_.parentRows[next_], r, plan_.exactTraining);
        if (!what.empty())
            diverged(r.time, "metric row " + std::to_string(next_ + 1) + " (round " + std::to_string(r.round) +
                                 ") differs: " + what);
        ++next_;
    }

    void onSnapshot(const RunSnapshot& s) override {
        if (s.reason != RunSnapshot::Reason::Replay) return;
        for (const StoredSnapshot& meta : plan_.verify) {
            if (!sameBits(meta.time, s.time)) continue;
            RunSnapshot stored;
            try {
                stored = store_.loadSnapshot(meta.id);
            } catch (const StoreError& e) {
                throw ForkError("cannot check the replay against run " + std::to_string(plan_.parentId) +
                                " at t = " + shortNumber(s.time) + " s: " + e.what());
            }
            compare(stored, s, meta.id);
        }
    }

    void onEvent(const RunEvent& e) override {
        // A planner's state (pilot estimates, calibrated constants, tau and batches) is in no
        // snapshot: its plan events must come out of the replay as the parent stated them.
        if (e.kind != RunEventKind::Plan || !(e.time < plan_.atSeconds)) return;
        if (nextPlan_ >= plan_.parentPlans.size())
            diverged(e.time, "plan event " + std::to_string(nextPlan_ + 1) + " ('" + e.detail +
                                 "') is not in the parent, which had " + std::to_string(plan_.parentPlans.size()) +
                                 " before the fork instant");
        const RunEvent& p = plan_.parentPlans[nextPlan_];
        if (!sameBits(p.time, e.time) || p.detail != e.detail)
            diverged(e.time, "plan event " + std::to_string(nextPlan_ + 1) + " differs: '" + p.detail + "' at t = " +
                                 exactNumber(p.time) + " s stored, '" + e.detail + "' at t = " + exactNumber(e.time) +
                                 " s replayed");
        ++nextPlan_;
    }

private:
    [[noreturn]] void diverged(double t, const std::string& what) const {
        throw ForkError("the replay diverged from run " + std::to_string(plan_.parentId) + " at t = " +
                        shortNumber(t) + " s: " + what +
                        (plan_.exactTraining
                             ? " (the parent was made by another FogStudio version, from other data or trace files, "
                               "or its stored record is damaged)"
                             : " (the parent was computed with other kernels, and the difference is beyond the "
                               "cross-kernel rule: a decision driven by losses went another way, or the parent was "
                               "made by another FogStudio version, from other data or trace files)") +
                        "; the fork stops here rather than run on from a state the parent never had");
    }

    void compare(const RunSnapshot& p, const RunSnapshot& r, std::int64_t id) const {
        std::string what;
        if (p.round != r.round)
            what = "round " + std::to_string(p.round) + " stored, " + std::to_string(r.round) + " replayed";
        else if (p.eventsHandled != r.eventsHandled)
            what = std::to_string(p.eventsHandled) + " events handled stored, " + std::to_string(r.eventsHandled) +
                   " replayed";
        else if (!sameValue(p.cost, r.cost))
            what = "cost " + exactNumber(p.cost) + " stored, " + exactNumber(r.cost) + " replayed";
        else if (!sameValue(p.energyJ, r.energyJ))
            what = "energy " + exactNumber(p.energyJ) + " J stored, " + exactNumber(r.energyJ) + " J replayed";
        else if (!sameValue(p.bytes, r.bytes))
            what = "bytes " + exactNumber(p.bytes) + " stored, " + exactNumber(r.bytes) + " replayed";
        else if (p.samplesComputed != r.samplesComputed)
            what = std::to_string(p.samplesComputed) + " samples computed stored, " +
                   std::to_string(r.samplesComputed) + " replayed";
        if (what.empty()) {
            static const std::vector<float> none;
            modelsAgree(p.model ? *p.model : none, r.model ? *r.model : none, plan_.exactTraining, what);
        }
        if (!what.empty()) diverged(r.time, "snapshot " + std::to_string(id) + ": " + what);
    }

    const RunStore& store_;
    const ForkPlan& plan_;
    std::size_t next_ = 0;
    std::size_t nextPlan_ = 0;
};

std::string statusWord(const std::string& status) {
    if (status == "finished") return "ended";
    if (status == "failed") return "failed";
    if (status == "cancelled") return "was stopped";
    if (status == "interrupted") return "was interrupted (its process ended)";
    return status;
}

} // namespace

std::vector<std::string> forkSettableKeys() {
    return {
        "sync.PARAM=V, selection.PARAM=V      a parameter of the run's policies (fogstudio-cli policies)",
        "ID.price_per_hour=V                  a node's price (ID: node, group or member id)",
        "ID.throughput=V                      a node's compute throughput (samples/s)",
        "ID.bandwidth_up_mbps=V, ID.bandwidth_down_mbps=V, ID.latency_ms=V",
        "                                     the link from ID to its parent",
        "topology.nodes[i].KEY=V, topology.groups[i].KEY=V   the same keys by position",
        "topology.links[i].bandwidth_up_mbps|bandwidth_down_mbps|latency_ms=V   an explicit link",
    };
}

std::string forkSetToAction(const Scenario& s, const std::string& set) {
    const auto eq = set.find('=');
    if (eq == std::string::npos) throw ForkError("--set " + set + ": expected KEY=VALUE" + settableText());
    const std::string key = trim(set.substr(0, eq));
    const std::string value = trim(set.substr(eq + 1));
    if (key.empty() || value.empty()) throw ForkError("--set " + set + ": expected KEY=VALUE" + settableText());

    if (key.rfind("sync.", 0) == 0 || key.rfind("selection.", 0) == 0) {
        if (key == "sync.policy" || key == "selection.policy")
            refuseKey(key, "a fork keeps the parent's policies (their state is part of the replayed run)");
        return "policy " + key + "=" + value;
    }
    if (key.rfind("topology.links[", 0) == 0) {
        const auto close = key.find(']');
        const std::string index = close == std::string::npos ? std::string() : key.substr(15, close - 15);
        char* end = nullptr;
        const long k = index.empty() ? -1 : std::strtol(index.c_str(), &end, 10);
        if (k < 0 || *end != '\0' || close + 1 >= key.size() || key[close + 1] != '.')
            refuseKey(key, "expected topology.links[INDEX].KEY");
        if (k >= static_cast<long>(s.topology.links.size()))
            refuseKey(key, "the scenario has " + std::to_string(s.topology.links.size()) + " explicit links");
        const auto& l = s.topology.links[static_cast<std::size_t>(k)];
        const auto f = linkFields().find(key.substr(close + 2));
        if (f == linkFields().end() || f->first.rfind("link.", 0) == 0) refuseKey(key, "not a link value an event can change");
        return "link " + l.from + " to=" + l.to + " " + f->second + "=" + value;
    }
    std::string id, field;
    if (!splitEntryPath(s, key, id, field)) {
        // ID.FIELD, the field being one of the known ones (ids may hold dots).
        std::size_t best = 0;
        for (const auto* fields : {&linkFields(), &nodeFields()})
            for (const auto& [name, _] : *fields)
                if (key.size() > name.size() + 1 && key.compare(key.size() - name.size(), name.size(), name) == 0 &&
                    key[key.size() - name.size() - 1] == '.' && name.size() > best) {
                    best = name.size();
                    field = name;
                }
        if (best == 0) refuseKey(key, "not something a fork can change");
        id = key.substr(0, key.size() - best - 1);
    }
    if (const auto f = linkFields().find(field); f != linkFields().end()) return "link " + id + " " + f->second + "=" + value;
    if (const auto f = nodeFields().find(field); f != nodeFields().end()) return "node " + id + " " + f->second + "=" + value;
    refuseKey(key, "'" + field + "' is not something a fork can change");
}

ForkPlan planFork(const RunStore& store, std::int64_t parentRunId, double atSeconds, const ForkChanges& changes) {
    const std::string parentName = "run " + std::to_string(parentRunId);
    if (!std::isfinite(atSeconds) || atSeconds < 0)
        throw ForkError("the fork instant must be a virtual time >= 0 s, got " + shortNumber(atSeconds));
    const std::optional<StoredRun> parent = store.run(parentRunId);
    if (!parent) throw ForkError("no run " + std::to_string(parentRunId) + " in " + store.path());
    if (parent->scenarioYaml.empty())
        throw ForkError(parentName + " has no stored scenario, so it cannot be replayed to fork it");
    if (cluster::isClusterScenarioText(parent->scenarioYaml))
        throw ForkError(parentName + " is a cluster-scheduling run (fogstudio-cli cluster): forks are for emulator "
                        "runs; re-run the cluster scenario with other settings instead");

    // How far the parent got: a fork replays its path, which exists only up to there.
    double reached = parent->summary.virtualTime;
    if (parent->status == "running") {
        // How far it is known to have got: its last stored row or snapshot (a front end
        // forking a paused run at its instant asks for a snapshot there first).
        const auto rows = store.metrics(parentRunId);
        reached = rows.empty() ? 0.0 : rows.back().time;
        for (const auto& s : store.snapshots(parentRunId)) reached = std::max(reached, s.time);
        if (atSeconds > reached)
            throw ForkError(parentName + " is still running and has stored rows and snapshots up to t = " +
                            shortNumber(reached) + " s; fork it at or before that, or once it has passed " +
                            shortNumber(atSeconds) + " s");
    } else if (atSeconds > reached) {
        std::string why = parentName + " " + statusWord(parent->status) + " at t = " + shortNumber(reached) + " s";
        if (!parent->summary.stopReason.empty()) why += " (" + parent->summary.stopReason + ")";
        throw ForkError(why + ", before " + shortNumber(atSeconds) + " s: a fork starts from a state the parent reached");
    }

    ForkPlan plan;
    plan.parentId = parentRunId;
    plan.parentName = parent->name;
    plan.atSeconds = atSeconds;
    try {
        plan.scenario = loadScenarioText(parent->scenarioYaml, parentName);
    } catch (const ScenarioError& e) {
        throw ForkError(parentName + "'s stored scenario cannot be read by this FogStudio, so it cannot be replayed: " +
                        e.what());
    } catch (const std::exception& e) { // data or trace files that are gone
        throw ForkError(parentName + "'s stored scenario cannot be loaded: " + e.what());
    }

    // The parent's live interventions from the fork instant on were reactions in its own
    // timeline: the fork leaves them out (the file's own events stay: they are the experiment).
    auto& events = plan.scenario.events.list;
    const auto later = std::remove_if(events.begin(), events.end(), [&](const TimedEvent& e) {
        return e.afterEvent >= 0 && e.trigger.value >= atSeconds;
    });
    plan.interventionsLeftOut = static_cast<int>(events.end() - later);
    events.erase(later, events.end());

    for (const auto& set : changes.sets) plan.actions.push_back(forkSetToAction(plan.scenario, set));
    for (const auto& e : changes.events) {
        std::string action = trim(e);
        if (action.rfind("at ", 0) == 0 || action.rfind("when ", 0) == 0)
            throw ForkError("--event '" + e + "': give the action only (e.g. 'link edge-1.up=2'); a fork applies it "
                            "at its own instant (--at)");
        plan.actions.push_back(action);
    }
    std::vector<TimedEvent> added;
    for (const auto& action : plan.actions) {
        const std::string text = "at " + exactNumber(atSeconds) + ": " + action;
        try {
            Scenario one = plan.scenario;
            one.events.list.clear();
            addEventArgument(one, text);
            added.push_back(one.events.list.front());
            addEventArgument(plan.scenario, text);
        } catch (const ScenarioError& err) {
            throw ForkError("the change '" + action + "' cannot apply to " + parentName + ": " + err.what());
        }
    }
    plan.label = forkLabel(parentRunId, atSeconds, added);
    const bool fastPath = plan.scenario.training.backend != TrainingBackend::LibTorch;
    plan.exactTraining = kernelMatch(parent->numerics, fastPath) == KernelMatch::Same;
    plan.kernelNote = kernelMatchNote(parent->numerics, parentName, fastPath);

    for (const auto& r : store.metrics(parentRunId))
        if (r.time < atSeconds) plan.parentRows.push_back(r);
    for (const auto& s : store.snapshots(parentRunId))
        if (s.time < atSeconds) plan.verify.push_back(s);
    for (const auto& e : store.events(parentRunId))
        if (e.kind == RunEventKind::Plan && e.time < atSeconds) plan.parentPlans.push_back(e);
    return plan;
}

std::int64_t runFork(RunStore& store, const ForkPlan& plan, const EngineOptions& options, RunSummary& summary,
                     const std::function<void(Engine*, std::int64_t)>& onEngine) {
    ReplayCheck check(store, plan);
    ObserverList observers;
    observers.add(&check);
    if (options.observer) observers.add(options.observer);
    EngineOptions opts = options;
    opts.observer = &observers;
    opts.snapshotTimes.clear();
    for (const auto& s : plan.verify)
        if (opts.snapshotTimes.empty() || !sameBits(opts.snapshotTimes.back(), s.time)) opts.snapshotTimes.push_back(s.time);

    NewRun meta;
    meta.name = plan.label;
    if (const auto parent = store.run(plan.parentId)) meta.tags = parent->tags;
    if (std::find(meta.tags.begin(), meta.tags.end(), "fork") == meta.tags.end()) meta.tags.push_back("fork");
    meta.notes = "fork of run " + std::to_string(plan.parentId) + " (" + plan.parentName + ") at t = " +
                 shortNumber(plan.atSeconds) + " s; replayed from t = 0 and checked against the parent's " +
                 std::to_string(plan.parentRows.size()) + " metric rows and " + std::to_string(plan.verify.size()) +
                 " snapshots before that instant" +
                 (plan.interventionsLeftOut > 0
                      ? "; left out the parent's " + std::to_string(plan.interventionsLeftOut) + " live intervention(s) from that instant on"
                      : std::string()) +
                 (plan.kernelNote.empty() ? std::string() : "; " + plan.kernelNote);
    ForkRecord record;
    record.parentId = plan.parentId;
    record.atSeconds = plan.atSeconds;
    record.changes = plan.actions;
    bool recorded = false;
    auto hook = [&](Engine* engine, std::int64_t id) {
        if (!recorded) {
            record.runId = id;
            store.setFork(record); // before the run: a fork that fails is still a fork
            recorded = true;
        }
        if (onEngine) onEngine(engine, id);
    };
    const std::int64_t id = runAndStore(plan.scenario, store, meta, opts, summary, hook);
    if (!recorded) { // the engine could not be built (data, model): the failed run is a fork all the same
        record.runId = id;
        store.setFork(record);
    }
    return id;
}

std::int64_t forkRun(RunStore& store, std::int64_t parentRunId, double atSeconds, const ForkChanges& changes,
                     const EngineOptions& options, RunSummary* summary) {
    const ForkPlan plan = planFork(store, parentRunId, atSeconds, changes);
    RunSummary local;
    return runFork(store, plan, options, summary ? *summary : local);
}

namespace {

ForkInfo infoOf(const RunStore& store, const ForkRecord& r) {
    ForkInfo i;
    i.runId = r.runId;
    i.parentId = r.parentId;
    i.atSeconds = r.atSeconds;
    i.changes = r.changes;
    i.label = "fork of run " + std::to_string(r.parentId) + " at " + shortNumber(r.atSeconds) + " s: ";
    if (r.changes.empty()) i.label += "no change";
    for (std::size_t k = 0; k < r.changes.size(); ++k) i.label += (k ? ", " : "") + r.changes[k];
    i.parentStored = store.run(r.parentId).has_value();
    return i;
}

} // namespace

std::optional<ForkInfo> forkInfo(const RunStore& store, std::int64_t runId) {
    const auto r = store.fork(runId);
    if (!r) return std::nullopt;
    return infoOf(store, *r);
}

std::vector<ForkInfo> forksOf(const RunStore& store, std::int64_t parentId) {
    std::vector<ForkInfo> out;
    for (const auto& r : store.forksOf(parentId)) out.push_back(infoOf(store, r));
    return out;
}

std::size_t forkBranchRow(const std::vector<AggregationRecord>& rows, double atSeconds) {
    std::size_t i = 0;
    while (i < rows.size() && rows[i].time < atSeconds) ++i;
    return i;
}

std::string describeChange(const TimedEvent& e) {
    using A = TimedEvent::Action;
    std::string out;
    auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    const std::string who = e.action == A::Link && !e.linkTo.empty() ? e.target + "->" + e.linkTo : e.target;
    switch (e.action) {
    case A::Link:
        if (e.bandwidthUpMbps) add(who + " up " + shortNumber(*e.bandwidthUpMbps) + " Mbps");
        if (e.bandwidthDownMbps) add(who + " down " + shortNumber(*e.bandwidthDownMbps) + " Mbps");
        if (e.latencyMs) add(who + " latency " + shortNumber(*e.latencyMs) + " ms");
        return out;
    case A::Node:
        if (e.pricePerHour) add(who + " price " + shortNumber(*e.pricePerHour) + "/h");
        if (e.throughput) add(who + " throughput " + shortNumber(*e.throughput) + " samples/s");
        return out;
    case A::Offline:
    case A::Online:
        return who + (e.action == A::Offline ? " offline" : " online") +
               (e.fraction ? " (" + shortNumber(*e.fraction * 100) + "%)" : std::string());
    case A::Add: return "+" + std::to_string(e.count) + " " + who;
    case A::Remove: return "-" + std::to_string(e.count) + " " + who;
    case A::Policy: return e.policyOf + "." + e.policyParam + " = " + shortNumber(e.policyValue);
    }
    return toString(e.action);
}

std::string forkLabel(std::int64_t parentId, double atSeconds, const std::vector<TimedEvent>& changes) {
    std::string label = "fork of run " + std::to_string(parentId) + " at " + shortNumber(atSeconds) + " s: ";
    if (changes.empty()) return label + "no change";
    for (std::size_t k = 0; k < changes.size(); ++k) label += (k ? ", " : "") + describeChange(changes[k]);
    return label;
}

} // namespace fog
