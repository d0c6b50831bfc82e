// Timed events and trace files: reading, checking, writing (core/scenario/events_io.h).

#include "core/scenario/events_io.h"

#include "core/policies/policy_info.h"
#include "core/scenario/schema.h"
#include "core/scenario/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

namespace fog {

namespace {

using Action = TimedEvent::Action;
using TK = EventTrigger::Kind;

const std::vector<std::pair<const char*, Action>> kActions = {
    {"link", Action::Link},       {"node", Action::Node}, {"offline", Action::Offline},
    {"online", Action::Online},   {"add", Action::Add},   {"remove", Action::Remove},
    {"policy", Action::Policy},
};

std::vector<std::string> actionNames() {
    std::vector<std::string> out;
    for (const auto& a : kActions)
        out.emplace_back(a.first);
    return out;
}

/// Reads a number key and checks it against `b`; true when present and good.
bool readBounded(MapReader& m, const std::string& key, const NumericBounds& b, double& out) {
    const YAML::Node n = m.node(key);
    if (!n.IsDefined()) return false;
    double v = 0.0;
    if (!readValue(m.context(), n, m.pathOf(key), v)) return false;
    if (std::string bad = boundsProblem(b, v); !bad.empty()) {
        m.context().error(m.pathOf(key), n.Mark(), bad);
        return false;
    }
    out = v;
    return true;
}

NumericBounds atLeast(double v) {
    NumericBounds b;
    b.min = v;
    return b;
}
NumericBounds above(double v) {
    NumericBounds b;
    b.min = v;
    b.minInclusive = false;
    return b;
}
/// `b` with the upper bound the scenario's own key has (schema.cpp): absurd finite values
/// (a latency of 1e305 ms, a price of 1e307) would never end a run or give a cost of inf.
NumericBounds upTo(NumericBounds b, double max) {
    b.max = max;
    b.interval = true;
    return b;
}
NumericBounds unit() {
    NumericBounds b;
    b.min = 0;
    b.max = 1;
    b.interval = true;
    return b;
}

/// Members of nested groups are named after their parent member: `phone` under `site`
/// gives phone-0-0, phone-0-1, ... (core/system/topology.cpp). Up to `cap` ids.
void memberIds(const TopologySpec& t, int entry, std::vector<std::string>& out, std::size_t cap) {
    const NodeSpec& n = t.nodes[static_cast<std::size_t>(entry)];
    if (!n.group) {
        out.push_back(n.id);
        return;
    }
    const int pg = t.nestedParent(static_cast<std::size_t>(entry));
    std::vector<std::string> suffixes{""};
    if (pg >= 0 && pg != entry) {
        std::vector<std::string> parents;
        memberIds(t, pg, parents, cap);
        const std::size_t prefix = t.nodes[static_cast<std::size_t>(pg)].id.size();
        suffixes.clear();
        for (const auto& p : parents)
            suffixes.push_back(p.substr(prefix));
    }
    for (const auto& sfx : suffixes)
        for (int k = 0; k < n.count && out.size() < cap; ++k)
            out.push_back(n.id + sfx + "-" + std::to_string(k));
}

/// Resolves a node, group or group member id: entry index and member index (-1: the entry).
/// "" on success, else the problem.
std::string resolveId(const TopologySpec& t, const std::string& id, int& entry, long long& member) {
    entry = t.find(id);
    member = -1;
    if (entry >= 0) return {};
    // The longest group id that prefixes `id` followed by '-'.
    int best = -1;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        const NodeSpec& g = t.nodes[i];
        if (!g.group || id.size() <= g.id.size() + 1 || id.compare(0, g.id.size(), g.id) != 0 ||
            id[g.id.size()] != '-')
            continue;
        if (best < 0 || g.id.size() > t.nodes[static_cast<std::size_t>(best)].id.size())
            best = static_cast<int>(i);
    }
    std::vector<std::string> known;
    for (const auto& n : t.nodes)
        known.push_back(n.id);
    if (best < 0) return "'" + id + "' is not a node, group or group member" + didYouMean(id, known);
    std::vector<std::string> members;
    memberIds(t, best, members, std::size_t(ScenarioLimits::maxNodes) + 1);
    const auto it = std::find(members.begin(), members.end(), id);
    const NodeSpec& g = t.nodes[static_cast<std::size_t>(best)];
    if (it == members.end())
        return "'" + id + "' is not a member of group '" + g.id + "' (its members are " +
               (members.empty() ? std::string("none") : members.front() + " .. " + members.back()) + ")";
    entry = best;
    member = it - members.begin();
    return {};
}

/// Reads `id` (or another key) naming a node, group or member into the event.
bool readTarget(MapReader& m, const std::string& key, const Scenario& s, TimedEvent& e, bool groupOnly) {
    if (!m.require(key, groupOnly ? "the group" : "the node, group or group member")) return false;
    if (!m.get(key, e.target)) return false;
    const YAML::Mark at = m.node(key).Mark();
    if (std::string bad = resolveId(s.topology, e.target, e.entry, e.member); !bad.empty()) {
        m.context().error(m.pathOf(key), at, bad);
        return false;
    }
    if (groupOnly && (e.member >= 0 || !s.topology.nodes[static_cast<std::size_t>(e.entry)].group)) {
        m.context().error(m.pathOf(key), at, "'" + e.target + "' is not a group (devices join and leave groups)");
        return false;
    }
    return true;
}

bool readTrigger(MapReader& m, TimedEvent& e) {
    YamlContext& ctx = m.context();
    const bool at = m.has("at"), when = m.has("when");
    if (at && when) {
        ctx.error(m.pathOf("when"), m.keyMark("when"), "an event has one trigger: at or when, not both");
        return false;
    }
    if (!at && !when) {
        ctx.error(m.path(), "needs a trigger: at: <virtual seconds> or when: {round: r} / "
                            "{accuracy: a} / {cost: c}");
        return false;
    }
    if (at) {
        e.trigger.kind = TK::At;
        bool ok = readBounded(m, "at", atLeast(0), e.trigger.value);
        if (m.has("after_event")) {
            // A recorded intervention's place in the event order (timed_events.h).
            double k = -1; // a count of events: up to 2^53 exactly
            if (m.get("after_event", k)) {
                if (k < 0 || k != std::floor(k) || k > 9007199254740992.0) {
                    ctx.error(m.pathOf("after_event"), m.node("after_event").Mark(),
                              "must be an integer >= 0 (queue events handled before the change), got " +
                                  formatNumber(k));
                    ok = false;
                } else {
                    e.afterEvent = static_cast<long long>(k);
                }
            } else {
                ok = false;
            }
        }
        return ok;
    }
    if (m.has("after_event")) {
        ctx.error(m.pathOf("after_event"), m.keyMark("after_event"),
                  "goes with at: (the place of a recorded intervention), not with when:");
        return false;
    }
    MapReader w(ctx, m.node("when"), m.pathOf("when"));
    if (!w.valid()) return false;
    int given = 0;
    bool ok = false;
    for (const TK k : {TK::Round, TK::Accuracy, TK::Cost}) {
        const std::string key = toString(k);
        if (!w.has(key)) continue;
        if (++given > 1) {
            ctx.error(w.pathOf(key), w.keyMark(key), "a trigger has one condition: round, accuracy or cost");
            return false;
        }
        e.trigger.kind = k;
        if (k == TK::Round) {
            int r = 0;
            if (w.get(key, r)) {
                if (r < 1) ctx.error(w.pathOf(key), w.node(key).Mark(), "must be >= 1, got " + std::to_string(r));
                else {
                    e.trigger.value = r;
                    ok = true;
                }
            }
        } else {
            NumericBounds b = k == TK::Accuracy ? unit() : atLeast(0);
            if (k == TK::Accuracy) b.minInclusive = false;
            ok = readBounded(w, key, b, e.trigger.value);
        }
    }
    if (given == 0) ctx.error(w.path(), "needs round, accuracy or cost, e.g. when: {round: 20}");
    return ok;
}

bool readLink(MapReader& a, const Scenario& s, TimedEvent& e) {
    YamlContext& ctx = a.context();
    bool ok = true;
    if (a.has("from") || a.has("to")) {
        // An explicit topology.links entry.
        a.notApplicable("id", "is not used with from/to (a link of topology.links)");
        if (!a.require("from", "a node id") || !a.require("to", "a node id")) return false;
        a.get("from", e.target);
        a.get("to", e.linkTo);
        const auto& links = s.topology.links;
        for (std::size_t i = 0; i < links.size(); ++i)
            if (links[i].from == e.target && links[i].to == e.linkTo) e.link = static_cast<int>(i);
        if (e.link < 0) {
            ctx.error(a.pathOf("to"), a.node("to").Mark(),
                      "no link from '" + e.target + "' to '" + e.linkTo + "' in topology.links");
            ok = false;
        }
    } else {
        ok = readTarget(a, "id", s, e, false);
        if (ok && s.topology.nodes[static_cast<std::size_t>(e.entry)].parent.empty()) {
            ctx.error(a.pathOf("id"), a.node("id").Mark(),
                      "'" + e.target + "' has no parent, so no uplink to change (name an explicit link with from/to)");
            ok = false;
        } else if (ok && !s.topology.nodes[static_cast<std::size_t>(e.entry)].link && !s.topology.hasDefaultLink) {
            ctx.error(a.pathOf("id"), a.node("id").Mark(),
                      "'" + e.target + "' has no link to its parent (transfers there are instantaneous and free): "
                      "give it a link: {...} (or topology.default_link) to change it");
            ok = false;
        }
    }
    double v = 0.0;
    const std::size_t before = ctx.diagnostics().size();
    if (readBounded(a, "bandwidth_up_mbps", above(0), v)) e.bandwidthUpMbps = v;
    if (readBounded(a, "bandwidth_down_mbps", above(0), v)) e.bandwidthDownMbps = v;
    if (readBounded(a, "latency_ms", upTo(atLeast(0), 3.6e6), v)) e.latencyMs = v;
    if (ctx.diagnostics().size() != before) return false;
    if (!e.bandwidthUpMbps && !e.bandwidthDownMbps && !e.latencyMs) {
        ctx.error(a.path(), "changes nothing: give bandwidth_up_mbps, bandwidth_down_mbps or latency_ms");
        return false;
    }
    return ok;
}

bool readNodeChange(MapReader& a, const Scenario& s, TimedEvent& e) {
    YamlContext& ctx = a.context();
    bool ok = readTarget(a, "id", s, e, false);
    double v = 0.0;
    const std::size_t before = ctx.diagnostics().size();
    if (readBounded(a, "price_per_hour", upTo(atLeast(0), 1e6), v)) e.pricePerHour = v;
    if (readBounded(a, "throughput", above(0), v)) e.throughput = v;
    if (ctx.diagnostics().size() != before) return false;
    if (!e.pricePerHour && !e.throughput) {
        ctx.error(a.path(), "changes nothing: give price_per_hour or throughput");
        return false;
    }
    return ok;
}

bool readAvailability(MapReader& a, const Scenario& s, TimedEvent& e) {
    YamlContext& ctx = a.context();
    if (!readTarget(a, "id", s, e, false)) return false;
    const NodeSpec& n = s.topology.nodes[static_cast<std::size_t>(e.entry)];
    if (!roleTrains(n.role)) {
        ctx.error(a.pathOf("id"), a.node("id").Mark(),
                  "'" + e.target + "' does not train; only trainers may go offline");
        return false;
    }
    if (!a.has("fraction")) return true;
    if (!n.group || e.member >= 0) {
        ctx.error(a.pathOf("fraction"), a.keyMark("fraction"),
                  "is only for a group ('" + e.target + "' is one node)");
        return false;
    }
    double f = 1.0;
    if (!readBounded(a, "fraction", unit(), f)) return false;
    e.fraction = f;
    return true;
}

bool readCount(MapReader& a, const Scenario& s, TimedEvent& e) {
    YamlContext& ctx = a.context();
    const bool ok = readTarget(a, "group", s, e, true);
    if (!a.require("count", "how many devices")) return false;
    int c = 0;
    if (!a.get("count", c)) return false;
    const YAML::Mark at = a.node("count").Mark();
    if (c < 1) {
        ctx.error(a.pathOf("count"), at, "must be >= 1, got " + std::to_string(c));
        return false;
    }
    if (c > ScenarioLimits::maxNodes) {
        ctx.error(a.pathOf("count"), at, "must be <= " + std::to_string(ScenarioLimits::maxNodes));
        return false;
    }
    e.count = c;
    if (!ok) return false;
    // Devices the events read so far bring (this one not yet among them).
    long long addedHere = 0, addedAll = 0;
    for (const TimedEvent& x : s.events.list)
        if (x.action == Action::Add) {
            addedAll += x.count;
            if (x.entry == e.entry) addedHere += x.count;
        }
    const std::vector<long long> counts = memberCounts(s.topology);
    const NodeSpec& g = s.topology.nodes[static_cast<std::size_t>(e.entry)];
    if (e.action == Action::Add) {
        const YAML::Mark gm = a.node("group").Mark();
        if (!roleTrains(g.role) || roleAggregates(g.role)) {
            ctx.error(a.pathOf("group"), gm,
                      "'" + e.target + "' has role " + std::string(toString(g.role)) +
                          "; devices that join must be trainers, role: trainer (an aggregator joining would have "
                          "nobody under it)");
            return false;
        }
        if (const int p = s.topology.nestedParent(static_cast<std::size_t>(e.entry)); p >= 0) {
            ctx.error(a.pathOf("group"), gm,
                      "'" + e.target + "' is nested under group '" + s.topology.nodes[static_cast<std::size_t>(p)].id +
                          "' (a block of members under each of its members): devices join top-level groups only");
            return false;
        }
        for (std::size_t j = 0; j < s.topology.nodes.size(); ++j)
            if (s.topology.nestedParent(j) == e.entry) {
                ctx.error(a.pathOf("group"), gm,
                          "group '" + s.topology.nodes[j].id + "' is nested under '" + e.target +
                              "': a member joining would need its own block of them; devices join groups "
                              "nothing is nested under");
                return false;
            }
        long long total = 0;
        for (long long m : counts) total += m;
        if (total + addedAll + c > ScenarioLimits::maxNodes) {
            ctx.error(a.pathOf("count"), at,
                      "is " + std::to_string(c) + ": the scenario would hold " + std::to_string(total + addedAll + c) +
                          " nodes with the devices its add events bring (" + std::to_string(total) +
                          " declared, " + std::to_string(addedAll + c) + " joining); at most " +
                          std::to_string(ScenarioLimits::maxNodes) + " are supported");
            return false;
        }
        // The newcomers are named on from the group's count: none may take an existing id.
        const long long first = g.count + addedHere;
        for (long long k = first; k < first + c && k < first + 1000000; ++k) {
            const std::string id = g.id + "-" + std::to_string(k);
            if (s.topology.find(id) >= 0) {
                ctx.error(a.pathOf("count"), at,
                          "would bring a member named '" + id + "' (devices that join are named on from the group's "
                          "members), but a node or group has that id; rename it");
                return false;
            }
        }
        return true;
    }
    const long long members = counts[static_cast<std::size_t>(e.entry)] + addedHere;
    if (c > members) {
        ctx.error(a.pathOf("count"), at,
                  "is " + std::to_string(c) + ", but group '" + e.target + "' has " + std::to_string(members) +
                      " members" + (addedHere > 0 ? " (with the " + std::to_string(addedHere) + " that add events bring)" : ""));
        return false;
    }
    // Remove events together take no more members than there are (with every add).
    long long removedHere = 0;
    for (const TimedEvent& x : s.events.list)
        if (x.action == Action::Remove && x.entry == e.entry) removedHere += x.count;
    if (removedHere > 0 && c + removedHere > members) {
        ctx.error(a.pathOf("count"), at,
                  "is " + std::to_string(c) + ", but group '" + e.target + "' has " + std::to_string(members) +
                      " members" + (addedHere > 0 ? " (with the " + std::to_string(addedHere) + " that add events bring)" : "") +
                      " and the remove events before this one take " + std::to_string(removedHere));
        return false;
    }
    return true;
}

bool readPolicyChange(MapReader& a, const Scenario& s, TimedEvent& e) {
    YamlContext& ctx = a.context();
    const std::vector<std::string> keys = a.remainingKeys();
    if (keys.size() != 1) {
        ctx.error(a.path(), "must set exactly one parameter, e.g. policy: {sync.n: 4}, got " +
                                std::to_string(keys.size()));
        return false;
    }
    e.policyKey = keys[0];
    const YAML::Mark at = a.keyMark(e.policyKey);
    const PolicyInfo* sync = findSyncPolicy(s.sync.name);
    const PolicyInfo* sel = findSelectionPolicy(s.selection.name);
    auto findParam = [](const PolicyInfo* info, const std::string& key) -> const PolicyParamInfo* {
        if (!info) return nullptr;
        for (const auto& p : info->params)
            if (p.key == key) return &p;
        return nullptr;
    };
    const PolicyParamInfo* param = nullptr;
    std::string key = e.policyKey;
    if (key.rfind("sync.", 0) == 0) {
        e.policyOf = "sync";
        key = key.substr(5);
        param = findParam(sync, key);
    } else if (key.rfind("selection.", 0) == 0) {
        e.policyOf = "selection";
        key = key.substr(10);
        param = findParam(sel, key);
    } else {
        const PolicyParamInfo* inSync = findParam(sync, key);
        const PolicyParamInfo* inSel = findParam(sel, key);
        if (inSync && inSel) {
            ctx.error(a.pathOf(e.policyKey), at,
                      "is a parameter of both policies: write sync." + key + " or selection." + key);
            return false;
        }
        param = inSync ? inSync : inSel;
        e.policyOf = inSync ? "sync" : "selection";
    }
    e.policyParam = key;
    if (!param) {
        std::vector<std::string> names;
        for (const auto* info : {sync, sel})
            if (info)
                for (const auto& p : info->params)
                    names.push_back((info == sync ? "sync." : "selection.") + p.key);
        ctx.error(a.pathOf(e.policyKey), at,
                  "is not a parameter of the sync policy '" + s.sync.name + "' nor of the selection policy '" +
                      s.selection.name + "'" + (names.empty() ? std::string(" (they have none)")
                                                              : " (parameters: " + joinNames(names) + ")") +
                      didYouMean(e.policyKey, names));
        return false;
    }
    if (!param->live) {
        std::vector<std::string> live;
        for (const auto* info : {sync, sel})
            if (info)
                for (const auto& p : info->params)
                    if (p.live) live.push_back((info == sync ? "sync." : "selection.") + p.key);
        ctx.error(a.pathOf(e.policyKey), at,
                  "is read once when the run starts (the " + e.policyOf + " policy '" +
                      (e.policyOf == "sync" ? s.sync.name : s.selection.name) +
                      "' builds on it), so a timed change cannot apply; " +
                      (live.empty() ? std::string("these policies have no parameter that may change during a run")
                                    : "parameters that may change during a run: " + joinNames(live)));
        return false;
    }
    return readBounded(a, e.policyKey, policyParamBounds(*param), e.policyValue);
}

/// Reads one event; false when it has a problem (already reported).
bool readEvent(YamlContext& ctx, const YAML::Node& item, const std::string& path, const Scenario& s,
               TimedEvent& e) {
    MapReader m(ctx, item, path);
    if (!m.valid()) return false;
    e.line = item.Mark().line >= 0 ? item.Mark().line + 1 : 0;
    e.column = item.Mark().column >= 0 ? item.Mark().column + 1 : 0;
    bool ok = readTrigger(m, e);
    std::vector<std::string> given;
    for (const auto& [name, action] : kActions)
        if (m.has(name)) {
            given.emplace_back(name);
            e.action = action;
        }
    if (given.size() != 1) {
        if (given.empty()) {
            // Name a misspelt action rather than "unknown key" alone.
            ctx.error(path, "needs one action: " + joinNames(actionNames()));
        } else {
            ctx.error(m.pathOf(given[1]), m.keyMark(given[1]),
                      "an event has one action; write a second event for '" + given[1] + "'");
        }
        return false;
    }
    const std::string key = given[0];
    MapReader a(ctx, m.node(key), m.pathOf(key));
    if (!a.valid()) return false;
    switch (e.action) {
    case Action::Link:
        return readLink(a, s, e) && ok;
    case Action::Node:
        return readNodeChange(a, s, e) && ok;
    case Action::Offline:
    case Action::Online:
        return readAvailability(a, s, e) && ok;
    case Action::Add:
    case Action::Remove:
        return readCount(a, s, e) && ok;
    case Action::Policy:
        return readPolicyChange(a, s, e) && ok;
    }
    return false;
}

} // namespace

void sortEvents(std::vector<TimedEvent>& events) {
    std::stable_sort(events.begin(), events.end(), [](const TimedEvent& a, const TimedEvent& b) {
        const bool aAt = a.trigger.kind == TK::At, bAt = b.trigger.kind == TK::At;
        if (aAt != bAt) return aAt;
        return aAt && a.trigger.value < b.trigger.value;
    });
}

void readEventsSection(YamlContext& ctx, const YAML::Node& n, Scenario& s) {
    // Read into the scenario as they come: an event's checks see the ones before it (the
    // devices add events bring count towards the node limit and a remove's members).
    s.events.list.clear();
    forEachItem(ctx, n, "events", [&](const YAML::Node& item, const std::string& path, std::size_t) {
        TimedEvent e;
        if (readEvent(ctx, item, path, s, e)) s.events.list.push_back(std::move(e));
    });
    sortEvents(s.events.list);
}

// --- writing ----------------------------------------------------------------------------

namespace {
void number(YAML::Emitter& out, const char* key, double v) {
    out << YAML::Key << key << YAML::Value << formatNumber(v);
}
void optionalNumber(YAML::Emitter& out, const char* key, const std::optional<double>& v) {
    if (v) number(out, key, *v);
}
} // namespace

namespace {
void emitEvent(YAML::Emitter& out, const TimedEvent& e) {
        out << YAML::BeginMap;
        if (e.trigger.kind == TK::At) {
            number(out, "at", e.trigger.value);
            if (e.afterEvent >= 0) out << YAML::Key << "after_event" << YAML::Value << e.afterEvent;
        } else {
            out << YAML::Key << "when" << YAML::Value << YAML::Flow << YAML::BeginMap;
            number(out, toString(e.trigger.kind), e.trigger.value);
            out << YAML::EndMap;
        }
        out << YAML::Key << toString(e.action) << YAML::Value << YAML::Flow << YAML::BeginMap;
        switch (e.action) {
        case Action::Link:
            if (e.linkTo.empty()) {
                out << YAML::Key << "id" << YAML::Value << e.target;
            } else {
                out << YAML::Key << "from" << YAML::Value << e.target;
                out << YAML::Key << "to" << YAML::Value << e.linkTo;
            }
            optionalNumber(out, "bandwidth_up_mbps", e.bandwidthUpMbps);
            optionalNumber(out, "bandwidth_down_mbps", e.bandwidthDownMbps);
            optionalNumber(out, "latency_ms", e.latencyMs);
            break;
        case Action::Node:
            out << YAML::Key << "id" << YAML::Value << e.target;
            optionalNumber(out, "price_per_hour", e.pricePerHour);
            optionalNumber(out, "throughput", e.throughput);
            break;
        case Action::Offline:
        case Action::Online:
            out << YAML::Key << "id" << YAML::Value << e.target;
            optionalNumber(out, "fraction", e.fraction);
            break;
        case Action::Add:
        case Action::Remove:
            out << YAML::Key << "group" << YAML::Value << e.target;
            out << YAML::Key << "count" << YAML::Value << e.count;
            break;
        case Action::Policy:
            number(out, e.policyKey.c_str(), e.policyValue);
            break;
        }
        out << YAML::EndMap << YAML::EndMap;
}
} // namespace

void emitEventsSection(YAML::Emitter& out, const Scenario& s) {
    const auto& list = s.events.list;
    if (list.empty()) return;
    out << YAML::Key << "events" << YAML::Value << YAML::BeginSeq;
    for (const auto& e : list)
        emitEvent(out, e);
    out << YAML::EndSeq;
}

std::string checkEvent(const Scenario& s, TimedEvent& e) {
    if (e.action == Action::Policy && e.policyKey.empty())
        e.policyKey = e.policyOf.empty() ? e.policyParam : e.policyOf + "." + e.policyParam;
    // Written as a file's entry and read back: the same checks and id resolution.
    YAML::Emitter out;
    emitEvent(out, e);
    YamlContext ctx("intervention");
    TimedEvent parsed;
    bool ok = false;
    try {
        ok = readEvent(ctx, YAML::Load(out.c_str()), "intervention", s, parsed);
    } catch (const YAML::Exception& x) {
        return std::string("cannot be written as an event: ") + x.what();
    }
    if (!ok || !ctx.diagnostics().empty()) {
        std::string why;
        for (const auto& d : ctx.diagnostics())
            why += (why.empty() ? "" : "; ") + d.message;
        return why.empty() ? std::string("not a valid event") : why;
    }
    e = parsed;
    return {};
}

// --- trace files ------------------------------------------------------------------------

namespace {

std::vector<std::string> splitCsv(const std::string& line, std::vector<int>& columns) {
    std::vector<std::string> out;
    columns.clear();
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        std::string cell = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        std::size_t lead = cell.find_first_not_of(" \t");
        const std::size_t trail = cell.find_last_not_of(" \t\r");
        columns.push_back(static_cast<int>(start + (lead == std::string::npos ? 0 : lead)) + 1);
        out.push_back(lead == std::string::npos ? std::string() : cell.substr(lead, trail - lead + 1));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

} // namespace

TraceTable parseTraceText(const std::string& text, const std::string& label) {
    std::vector<Diagnostic> problems;
    auto fail = [&](int line, int column, const std::string& message) {
        problems.push_back({label, line, column, "", message});
    };
    TraceTable t;
    t.files.push_back(label);
    std::istringstream in(text);
    std::string line;
    int lineNo = 0;
    bool header = false;
    std::vector<int> cols;
    std::vector<double> lastTime;
    int rows = 0;
    while (std::getline(in, line) && problems.size() < 50) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::size_t first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const std::vector<std::string> cells = splitCsv(line, cols);
        if (!header) {
            header = true;
            if (cells[0] != "time_s") {
                // Nothing of the line is quoted: a file that is not a trace (a system file a
                // stored scenario names) must not have its contents printed.
                fail(lineNo, cols[0], "is not a trace: its first line must be the header time_s,value or "
                                      "time_s,<member ids> (the line's text is not shown)");
                break;
            }
            if (cells.size() < 2) {
                fail(lineNo, 0, "the header has no value column: write time_s,value or time_s,<member ids>");
                break;
            }
            std::set<std::string> seen;
            for (std::size_t c = 1; c < cells.size(); ++c) {
                if (cells[c].empty()) fail(lineNo, cols[c], "column " + std::to_string(c + 1) + " has no name");
                else if (!seen.insert(cells[c]).second) fail(lineNo, cols[c], "column " + quoted(cells[c]) + " appears twice");
                t.columns.emplace_back();
                t.columns.back().name = cells[c];
            }
            if (!problems.empty()) break;
            continue;
        }
        if (cells.size() != t.columns.size() + 1) {
            fail(lineNo, 0, "has " + std::to_string(cells.size()) + " fields, the header " +
                                std::to_string(t.columns.size() + 1));
            continue;
        }
        ++rows;
        std::vector<double> v(cells.size());
        bool ok = true;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string name = c == 0 ? "time_s" : t.columns[c - 1].name;
            if (!parseNumber(cells[c], v[c]) || !std::isfinite(v[c])) {
                fail(lineNo, cols[c], name + " must be a finite number, got " + quoted(cells[c]));
                ok = false;
            } else if (v[c] < 0) {
                fail(lineNo, cols[c], name + " must be >= 0, got " + quoted(cells[c]));
                ok = false;
            }
        }
        if (!ok) continue;
        if (!t.columns.empty() && !t.columns[0].timeS.empty() && v[0] <= t.columns[0].timeS.back()) {
            fail(lineNo, cols[0], "time_s must increase: " + quoted(cells[0]) + " comes after " +
                                      formatNumber(t.columns[0].timeS.back()));
            continue;
        }
        for (std::size_t c = 1; c < cells.size(); ++c) {
            auto& col = t.columns[c - 1];
            col.timeS.push_back(v[0]);
            col.value.push_back(v[c]);
            col.line.push_back(lineNo);
            col.column.push_back(cols[c]);
        }
    }
    if (problems.size() >= 50 && in.peek() != std::char_traits<char>::eof())
        fail(lineNo + 1, 0, "and maybe more problems from here on (only the first 50 are listed)");
    if (problems.empty() && !header) fail(0, 0, "is empty: a trace needs a header time_s,... and at least one row");
    else if (problems.empty() && rows == 0) fail(lineNo, 0, "has a header but no rows");
    if (!problems.empty()) throw ScenarioError(problems);
    return t;
}

TraceTable readTraceFile(const std::string& path) {
    std::string text;
    if (std::string why = readScenarioBytes(path, text); !why.empty()) {
        // The scenario reader's words, said of a trace.
        const auto at = why.find("scenario file");
        if (at != std::string::npos) why.replace(at, 13, "trace file");
        throw ScenarioError({{path, 0, 0, "", why}});
    }
    return parseTraceText(text, path);
}

namespace {

enum class TraceKind { Availability, Bandwidth, Price, Compute };

struct TraceUse {
    std::string ref;    ///< as written
    std::string path;   ///< key path of the reference
    TraceKind kind;
    int entry = -1;     ///< node or group entry whose members the columns may name; -1: value only
};

/// Checks columns and values of a loaded table for one use; problems into `out`.
void checkUse(const TraceTable& t, const TraceUse& u, const TopologySpec& topo, std::vector<Diagnostic>& out) {
    const std::string file = t.files.empty() ? u.ref : t.files.front();
    std::vector<std::string> members;
    bool group = false;
    if (u.entry >= 0) {
        group = topo.nodes[static_cast<std::size_t>(u.entry)].group;
        memberIds(topo, u.entry, members, std::size_t(ScenarioLimits::maxNodes));
    }
    const TraceColumn* value = nullptr;
    for (const auto& c : t.columns)
        if (c.name == "value") value = &c;
    const int headerLine = t.columns.empty() || t.columns[0].line.empty() ? 1 : t.columns[0].line[0] - 1;
    if (value && t.columns.size() > 1) {
        out.push_back({file, headerLine, 0, "",
                       "has a value column and other columns: use either one value column or one per member"});
        return;
    }
    if (!value) {
        if (u.entry < 0) {
            out.push_back({file, headerLine, 0, "", "used by " + u.path + ", which needs one value column (time_s,value)"});
            return;
        }
        std::set<std::string> names;
        for (const auto& c : t.columns)
            names.insert(c.name);
        std::set<std::string> wanted(members.begin(), members.end());
        for (const auto& c : t.columns)
            if (!wanted.count(c.name))
                out.push_back({file, headerLine, 0, "",
                               "column '" + c.name + "' is not a member of '" +
                                   topo.nodes[static_cast<std::size_t>(u.entry)].id + "'" + didYouMean(c.name, members)});
        std::vector<std::string> missing;
        for (const auto& m : members)
            if (!names.count(m)) missing.push_back(m);
        if (!missing.empty()) {
            const std::size_t show = std::min<std::size_t>(missing.size(), 5);
            std::vector<std::string> head(missing.begin(), missing.begin() + static_cast<long>(show));
            out.push_back({file, headerLine, 0, "",
                           "has no column for " + std::to_string(missing.size()) + " member(s) of '" +
                               topo.nodes[static_cast<std::size_t>(u.entry)].id + "': " + joinNames(head) +
                               (missing.size() > show ? ", ..." : "") + " (or use one value column)"});
        }
    }
    for (const auto& c : t.columns)
        for (std::size_t i = 0; i < c.value.size(); ++i) {
            const double v = c.value[i];
            std::string bad;
            if (u.kind == TraceKind::Availability) {
                const bool share = group && c.name == "value";
                if (share ? v > 1 : (v != 0 && v != 1))
                    bad = share ? "share online must be in [0, 1], got " + formatNumber(v)
                                : "availability must be 0 (offline) or 1 (online), got " + formatNumber(v);
            } else if (u.kind == TraceKind::Bandwidth && v <= 0) {
                bad = "bandwidth must be > 0 Mbit/s, got " + formatNumber(v) +
                      " (take the node offline with an availability trace instead)";
            } else if (u.kind == TraceKind::Price && v > 1e6) {
                // The bound of price_per_hour (schema.cpp): 1e307 would make the cost inf.
                bad = "price must be in [0, 1000000] per hour, got " + formatNumber(v);
            } else if (u.kind == TraceKind::Compute && v <= 0) {
                bad = "compute speed must be > 0, got " + formatNumber(v) +
                      " (take the node offline with an availability trace instead)";
            }
            if (!bad.empty()) {
                const int column = i < c.column.size() ? c.column[i] : 0;
                out.push_back({file, c.line[i], column, "", c.name + ": " + bad + " (used by " + u.path + ")"});
                break;
            }
        }
}

} // namespace

void makeTracePathsAbsolute(Scenario& s, const std::string& baseDir) {
    auto absolute = [&](std::string& ref) {
        if (ref.empty()) return;
        std::filesystem::path f(ref);
        if (!f.is_relative()) return;
        if (!baseDir.empty()) f = std::filesystem::path(baseDir) / f;
        std::error_code ec;
        const auto abs = std::filesystem::absolute(f, ec);
        const std::string now = (ec ? f : abs).lexically_normal().string();
        const auto it = s.events.traces.find(ref);
        if (it != s.events.traces.end() && !s.events.traces.count(now)) s.events.traces[now] = it->second;
        ref = now;
    };
    for (auto& n : s.topology.nodes) {
        absolute(n.availability.file);
        absolute(n.priceTrace);
        absolute(n.linkTrace);
        absolute(n.computeTrace);
    }
}

void loadScenarioTraces(YamlContext& ctx, Scenario& s, const std::string& baseDir) {
    std::vector<TraceUse> uses;
    TopologySpec& t = s.topology;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        const NodeSpec& n = t.nodes[i];
        const std::string p = t.pathOf(i);
        const int e = static_cast<int>(i);
        if (n.availability.kind == AvailabilitySpec::Kind::Trace && !n.availability.file.empty())
            uses.push_back({n.availability.file, p + ".availability.file", TraceKind::Availability, e});
        if (!n.priceTrace.empty()) uses.push_back({n.priceTrace, p + ".price_trace", TraceKind::Price, e});
        if (!n.linkTrace.empty()) uses.push_back({n.linkTrace, p + ".link.trace", TraceKind::Bandwidth, e});
        if (!n.computeTrace.empty()) uses.push_back({n.computeTrace, p + ".compute.trace", TraceKind::Compute, e});
        if (n.bidUsdPerHour > 0 && n.priceTrace.empty())
            ctx.error(p + ".bid_usd_per_hour", "needs a price_trace: the node is reclaimed while the price is above the bid");
        if (n.availability.kind == AvailabilitySpec::Kind::Trace && !n.availability.file.empty() &&
            !n.availability.offline.empty())
            ctx.error(p + ".availability.file", "and availability.offline both give the trace: keep one");
    }

    s.events.traces.clear();
    std::map<std::string, bool> failed;
    for (const auto& u : uses) {
        if (!s.events.traces.count(u.ref) && !failed.count(u.ref)) {
            auto resolve = [&](const std::string& ref) {
                std::filesystem::path f(ref);
                if (f.is_relative() && !baseDir.empty()) f = std::filesystem::path(baseDir) / f;
                return f.lexically_normal().string();
            };
            try {
                const std::string marker = "{member}";
                const auto at = u.ref.find(marker);
                TraceTable table;
                if (at == std::string::npos) {
                    table = readTraceFile(resolve(u.ref));
                } else {
                    // One file per member, each with a value column (or one named after it).
                    if (u.entry < 0) {
                        ctx.error(u.path, "'" + u.ref + "' has {member}, but this link has no members; name one file");
                        failed[u.ref] = true;
                        continue;
                    }
                    std::vector<std::string> members;
                    memberIds(t, u.entry, members, std::size_t(ScenarioLimits::maxNodes));
                    for (const auto& m : members) {
                        std::string ref = u.ref;
                        ref.replace(at, marker.size(), m);
                        TraceTable one = readTraceFile(resolve(ref));
                        const TraceColumn* c = one.column(m);
                        if (!c || one.columns.size() != 1)
                            throw ScenarioError({{one.files.front(), 1, 0, "",
                                                  "a per-member trace has one column: time_s,value"}});
                        TraceColumn col = *c;
                        col.name = m;
                        table.columns.push_back(std::move(col));
                        table.files.push_back(one.files.front());
                    }
                }
                s.events.traces[u.ref] = std::make_shared<const TraceTable>(std::move(table));
            } catch (const ScenarioError& e) {
                failed[u.ref] = true;
                // A file that cannot be opened is reported at the reference; bad rows in the file.
                for (const auto& d : e.diagnostics) {
                    if (d.line == 0 && d.message.rfind("cannot open", 0) == 0)
                        ctx.error(u.path, "'" + u.ref + "': " + d.file + ": " + d.message);
                    else
                        ctx.diagnostics().push_back(d);
                }
                continue;
            }
        }
        if (failed.count(u.ref)) continue;
        std::vector<Diagnostic> problems;
        checkUse(*s.events.traces[u.ref], u, t, problems);
        for (auto& d : problems)
            ctx.diagnostics().push_back(std::move(d));
    }
}

// --- the command line --------------------------------------------------------------------

void addEventArgument(Scenario& s, const std::string& text) {
    const char* const label = "--event";
    auto fail = [&](const std::string& why) {
        throw ScenarioError({{label, 0, 0, "",
                              "'" + text + "': " + why +
                                  "; write e.g. 'at 600: link edge-1.up=2', 'when round>=5: offline phones "
                                  "fraction=0.5', 'at 3600: node spot price=0.9', 'at 60: remove phones 10', "
                                  "'at 120: policy sync.n=4'"}});
    };
    const auto colon = text.find(':');
    if (colon == std::string::npos) fail("no ':' between the trigger and the action");
    auto words = [](const std::string& s) {
        std::vector<std::string> out;
        std::string w;
        for (char c : s + " ") {
            if (c == ' ' || c == '\t' || c == ',') {
                if (!w.empty()) out.push_back(w);
                w.clear();
            } else {
                w += c;
            }
        }
        return out;
    };
    YAML::Node event(YAML::NodeType::Map);
    // The trigger: "at 600", "when round>=5", "round >= 5", "accuracy=0.8".
    std::string trigger = text.substr(0, colon);
    for (const char* op : {">=", "="}) {
        for (std::size_t at; (at = trigger.find(op)) != std::string::npos;)
            trigger.replace(at, std::string(op).size(), " ");
    }
    std::vector<std::string> tw = words(trigger);
    if (!tw.empty() && tw[0] == "when") tw.erase(tw.begin());
    if (tw.size() != 2) fail("the trigger must be 'at SECONDS' or 'when round|accuracy|cost>=VALUE'");
    if (tw[0] == "at") {
        event["at"] = tw[1];
    } else if (tw[0] == "round" || tw[0] == "accuracy" || tw[0] == "cost") {
        YAML::Node when(YAML::NodeType::Map);
        when[tw[0]] = tw[1];
        event["when"] = when;
    } else {
        fail("unknown trigger '" + tw[0] + "'");
    }
    std::vector<std::string> aw = words(text.substr(colon + 1));
    if (aw.empty()) fail("no action after ':'");
    const std::string action = aw[0];
    const std::vector<std::string> names = actionNames();
    if (std::find(names.begin(), names.end(), action) == names.end())
        fail("unknown action '" + action + "' (actions: " + joinNames(names) + ")" + didYouMean(action, names));
    static const std::map<std::string, std::string> aliases = {
        {"up", "bandwidth_up_mbps"}, {"down", "bandwidth_down_mbps"}, {"latency", "latency_ms"},
        {"price", "price_per_hour"},
    };
    YAML::Node body(YAML::NodeType::Map);
    std::size_t next = 1;
    if (action != "policy") {
        if (aw.size() < 2) fail("'" + action + "' needs a node, group or member id");
        std::string id = aw[1];
        // "edge-1.up=2": the first change written onto the id.
        const auto eq = id.find('=');
        const auto dot = eq == std::string::npos ? std::string::npos : id.rfind('.', eq);
        if (dot != std::string::npos) {
            aw.insert(aw.begin() + 2, id.substr(dot + 1));
            id = id.substr(0, dot);
        }
        body[action == "add" || action == "remove" ? "group" : "id"] = id;
        next = 2;
        if ((action == "add" || action == "remove") && aw.size() > 2 && aw[2].find('=') == std::string::npos) {
            body["count"] = aw[2];
            next = 3;
        }
    }
    for (std::size_t i = next; i < aw.size(); ++i) {
        const auto eq = aw[i].find('=');
        if (eq == std::string::npos || eq == 0) fail("expected key=value, got '" + aw[i] + "'");
        std::string key = aw[i].substr(0, eq);
        if (action != "policy")
            if (auto it = aliases.find(key); it != aliases.end()) key = it->second;
        if (key == "to" && action == "link") {
            // An explicit link: the id is its `from`.
            body["from"] = body["id"];
            body.remove("id");
        }
        // A key given twice (also as its alias: up= and bandwidth_up_mbps=) is a slip, not
        // "the last one wins".
        if (const YAML::Node& given = body; given[key].IsDefined())
            fail("'" + key + "' is given twice; give each change once");
        body[key] = aw[i].substr(eq + 1);
    }
    event[action] = body;
    YamlContext ctx(label);
    TimedEvent e;
    const bool ok = readEvent(ctx, event, "events[" + std::to_string(s.events.list.size()) + "]", s, e);
    if (!ok || !ctx.diagnostics().empty()) {
        std::vector<Diagnostic> d = ctx.diagnostics();
        if (d.empty()) d.push_back({label, 0, 0, "", "'" + text + "' is not a valid event"});
        for (auto& x : d)
            x.message += " (in --event '" + text + "')";
        throw ScenarioError(d);
    }
    s.events.list.push_back(std::move(e));
    sortEvents(s.events.list);
}

} // namespace fog
