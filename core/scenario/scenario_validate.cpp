// validateScenario: value ranges and cross-references of a scenario, independent of where it
// came from. Paths name the YAML keys, so the loader can place each problem in the file and
// an editor can highlight the field.

#include "core/scenario/scenario_io.h"

#include "core/data/dataset.h"
#include "core/policies/local_optimizers.h"
#include "core/model/model_checks.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/server_optimizer.h"
#include "core/policies/update_codec.h"
#include "core/policies/tiered.h"
#include "core/scenario/progress_check.h"
#include "core/scenario/schema.h"
#include "core/scenario/crosscloud_check.h"
#include "core/scenario/tier_check.h"
#include "core/scenario/yaml_reader.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>

namespace fog {

namespace {

using L = ScenarioLimits;
/// Largest group; a typo like `count: 2000000000` should be an error, not an out-of-memory.
constexpr int kMaxGroupCount = 1000000;
/// Most members a nested group may multiply to (count times its parent group's members).
constexpr long long kMaxNestedMembers = 10000000;
/// Did-you-mean suggestions for unknown node names are worked out for this many problems
/// only: each costs a pass over all ids, and more messages than this are not listed anyway.
constexpr int kMaxNameSuggestions = 50;

std::string num(double v) {
    return formatNumber(v);
}
std::string rangeText(const Range& r) {
    return "{min: " + num(r.min) + ", max: " + num(r.max) + "}";
}

bool trains(Role r) {
    return roleTrains(r);
}
bool aggregates(Role r) {
    return roleAggregates(r);
}

class Checker {
  public:
    explicit Checker(std::string file) : file_(std::move(file)) {}

    void error(const std::string& path, int line, const std::string& message) {
        out_.push_back({file_, line, 0, path, message});
    }
    /// Every number of a scenario is finite (0 spells "no limit" where there is one).
    bool finite(const std::string& path, int line, double v) {
        if (std::isfinite(v)) return true;
        error(path, line, "must be a finite number, got " + num(v));
        return false;
    }
    /// v > bound. Written as !(v > bound) so that NaN fails too.
    void greater(const std::string& path, int line, double v, double bound) {
        if (!finite(path, line, v)) return;
        if (!(v > bound)) error(path, line, "must be > " + num(bound) + ", got " + num(v));
    }
    void atLeast(const std::string& path, int line, double v, double bound) {
        if (!finite(path, line, v)) return;
        if (!(v >= bound)) error(path, line, "must be >= " + num(bound) + ", got " + num(v));
    }
    /// lo <= v <= hi, each side stated on its own ("must be >= 1" reads better than a range
    /// when the limit above is only there to keep a typo from exhausting memory).
    void bounded(const std::string& path, int line, double v, double lo, double hi) {
        if (!finite(path, line, v)) return;
        if (!(v >= lo))
            error(path, line, "must be >= " + num(lo) + ", got " + num(v));
        else if (!(v <= hi))
            error(path, line, "must be <= " + num(hi) + ", got " + num(v));
    }
    /// lo <= v <= hi, or lo <= v < hi when `openTop`.
    void within(const std::string& path, int line, double v, double lo, double hi, bool openTop) {
        if (!finite(path, line, v)) return;
        if (!(v >= lo && (openTop ? v < hi : v <= hi)))
            error(path, line,
                  "must be in [" + num(lo) + ", " + num(hi) + (openTop ? ")" : "]") + ", got " +
                      num(v));
    }
    /// A value or range whose every point must be > bound (strict) or >= bound.
    void range(const std::string& path, int line, const Range& r, double bound, bool strict) {
        if (!finite(path, line, r.min) || !finite(path, line, r.max)) return;
        if (r.isExact()) {
            strict ? greater(path, line, r.min, bound) : atLeast(path, line, r.min, bound);
            return;
        }
        if (!(r.min <= r.max)) {
            error(path, line, "range needs min <= max, got " + rangeText(r));
            return;
        }
        if (strict ? !(r.min > bound) : !(r.min >= bound))
            error(path, line,
                  std::string("must be ") + (strict ? "> " : ">= ") + num(bound) +
                      " over the whole range, got " + rangeText(r));
    }

    /// The schema's bounds for a number: its message, if any, at `path`.
    void bounds(const std::string& path, int line, double v, const NumericBounds& b) {
        const std::string problem = boundsProblem(b, v);
        if (!problem.empty()) error(path, line, problem);
    }

    std::vector<Diagnostic> take() { return std::move(out_); }

  private:
    std::string file_;
    std::vector<Diagnostic> out_;
};

void checkLink(Checker& c, const std::string& path, int line, const LinkParams& l) {
    for (const auto& f : linkSchema())
        if (f.isNumber()) c.bounds(childPath(path, f.key()), line, std::get<double>(f.get(l)), fieldBounds(f));
}

/// The key-level rules of the schema (bounds of every number that applies) for the keys below
/// `section`; the rules between keys stay with the section's checks.
void checkFields(Checker& c, const Scenario& s, const std::string& section) {
    for (const auto& f : scenarioSchema()) {
        if (f.custom || !pathWithin(f.path, section) || !f.get) continue;
        if (!f.isNumber() && f.type != FieldType::IntList) continue;
        if (!fieldApplies(f, s)) continue;
        const NumericBounds b = fieldBounds(f, s);
        const FieldValue v = f.get(s);
        if (f.isNumber()) {
            c.bounds(f.path, 0, std::get<double>(v), b);
            continue;
        }
        const auto& list = std::get<std::vector<int>>(v);
        if (f.maxItems && list.size() > f.maxItems)
            c.error(f.path, 0,
                    "has " + std::to_string(list.size()) + (f.path == "model.hidden" ? " layers" : " entries") +
                        "; at most " + std::to_string(f.maxItems) + " are supported");
        // The first 64 entries: a list of a million bad widths needs no million messages.
        for (std::size_t i = 0; i < list.size() && i < 64; ++i)
            c.bounds(itemPath(f.path, i), 0, list[i], b);
    }
}

/// The offline intervals of a trace (the Markov means are schema bounds: checkNodeFields).
void checkTrace(Checker& c, const std::string& path, int line, const AvailabilitySpec& a) {
    if (a.kind != AvailabilitySpec::Kind::Trace) return;
    for (std::size_t i = 0; i < a.offline.size(); ++i) {
        const auto& iv = a.offline[i];
        const std::string p = itemPath(path + ".offline", i);
        const std::string shown = "[" + num(iv.fromS) + ", " + num(iv.toS) + "]";
        if (!std::isfinite(iv.fromS) || !std::isfinite(iv.toS))
            c.error(p, line, "must be two finite times [from_s, to_s], got " + shown);
        else if (!(iv.fromS >= 0))
            c.error(p, line, "must start at a time >= 0, got " + shown);
        else if (!(iv.fromS < iv.toS))
            c.error(p, line, "must be [from_s, to_s] with from_s < to_s, got " + shown);
        else if (i > 0 && iv.fromS < a.offline[i - 1].toS)
            c.error(p, line,
                    "intervals must be sorted and must not overlap: " + shown +
                        " starts before the previous one ends (at " + num(a.offline[i - 1].toS) +
                        ")");
    }
}

/// The schema's bounds for the keys of a node or group entry that apply to it, in the table's
/// order, with the trace and position checks in their places. `tail`: price and data share
/// (checked after the count), else the other keys. Range-valued keys are checked over the
/// whole range for throughput and for groups; a node's other values are single numbers (the
/// caller refuses ranges there).
void checkNodeFields(Checker& c, const std::string& path, const NodeSpec& s, bool tail) {
    const int line = s.line;
    for (const auto& f : nodeSchema()) {
        const bool inTail = f.path == "price_per_hour" || f.path == "data_share";
        if (inTail != tail || !fieldApplies(f, s)) continue;
        const std::string p = path + "." + f.path;
        if (f.path == "availability.offline") checkTrace(c, path + ".availability", line, s.availability);
        if (f.path == "position" && s.hasPosition && !(std::isfinite(s.x) && std::isfinite(s.y)))
            c.error(p, line, "must be two finite numbers [x, y], got [" + num(s.x) + ", " + num(s.y) + "]");
        if (f.custom || !f.get) continue;
        const FieldValue v = f.get(s);
        if (f.groupsOnly && !s.group) {
            static const NodeSpec defaults;
            if (!sameFieldValue(v, f.get(defaults)))
                c.error(p, line, "is only for groups (topology.groups), not for a node: a node has a link of its own, shared with no one");
            continue;
        }
        if (!f.isBounded() || isUnset(f, v)) continue;
        const NumericBounds b = fieldBounds(f);
        if (f.type != FieldType::Range) {
            c.bounds(p, line, std::get<double>(v), b);
        } else if (s.group || f.path == "compute.throughput") {
            const Range& r = std::get<Range>(v);
            c.range(p, line, r, b.min, !b.minInclusive);
            // An upper bound (price_per_hour: a price of 1e307 would make the cost inf).
            if (std::isfinite(b.max) && std::isfinite(r.min) && std::isfinite(r.max) && r.min <= r.max &&
                !(b.maxInclusive ? r.max <= b.max : r.max < b.max))
                c.error(p, line, "must be <= " + num(b.max) + (r.isExact() ? "" : " over the whole range") +
                                     ", got " + (r.isExact() ? num(r.max) : rangeText(r)));
        } else {
            c.bounds(p, line, std::get<Range>(v).min, b);
        }
    }
}

/// The checks nodes and groups share.
void checkMember(Checker& c, const std::string& path, const NodeSpec& s) {
    if (s.id.empty()) c.error(path + ".id", s.line, "must not be empty");
    // Ids are written into event text, logs, CSV rows and `--event` commands: a newline, a
    // tab or a NUL in one would forge or cut those lines.
    for (char ch : s.id)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
            c.error(path + ".id", s.line,
                    "must not contain control characters (a newline, a tab, NUL), got " + quoted(s.id));
            break;
        }
    checkNodeFields(c, path, s, false);
    // The file cannot say this (the key is refused with held billing); a spec built in code can.
    if (s.billing != Billing::Serverless && s.invocationFeeUsd != 0)
        c.error(path + ".invocation_fee_usd", s.line,
                std::string("is only used with billing: serverless, not ") + toString(s.billing));
}

/// A node or a group, as one vertex of the parent graph: all members of a group share their
/// parent and role, so the graph need not be expanded.
struct Entity {
    std::string path;
    int line = 0;
    std::string id;
    bool group = false;
    int count = 1;
    int givenCount = 1; ///< count as written (count is 0 when that is out of bounds)
    long long members = 1; ///< count, times the parent group's members when nested
    bool sharedLink = false; ///< a group that says link_sharing: shared
    Role role = Role::Trainer;
    std::string parent;
    AvailabilitySpec::Kind availability = AvailabilitySpec::Kind::Always;
    int parentEntity = -1;
    bool nested = false;  ///< the parent names a group: placed under each of its members
    bool resolved = true; ///< false: the parent chain breaks (unknown parent or cycle)
    bool inCycle = false;

    std::string describe() const { return group ? "group '" + id + "' (" + path + ")" : path; }
};

/// What the policy checks need to know about the tree.
struct TreeFacts {
    bool reliable = true;   ///< false when parent errors make the counts below meaningless
    long long trainers = 0; ///< trainers in all, group members counted
    int aggregators = 0;
    std::vector<std::string> roots; ///< aggregators with no aggregator above them
    bool nested = false;            ///< some aggregator has an aggregator above it
};

TreeFacts checkTopology(Checker& c, const TopologySpec& t) {
    TreeFacts facts;
    if (t.hasDefaultLink) checkLink(c, "topology.default_link", 0, t.defaultLink);

    std::vector<Entity> ents;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        const NodeSpec& n = t.nodes[i];
        Entity e;
        e.path = t.pathOf(i);
        e.line = n.line;
        e.id = n.id;
        e.group = n.group;
        e.count = n.group ? n.count : 1;
        e.givenCount = e.count;
        e.sharedLink = n.group && n.linkSharing == LinkSharing::Shared;
        e.role = n.role;
        e.parent = n.parent;
        e.availability = n.availability.kind;
        checkMember(c, e.path, n);
        if (n.group) {
            if (n.count < 1 || n.count > kMaxGroupCount) {
                c.error(e.path + ".count", n.line,
                        "must be in [1, " + std::to_string(kMaxGroupCount) + "], got " +
                            std::to_string(n.count));
                e.count = 0;
            }
        } else {
            // The topology takes a node's values as they are; a range only makes sense in a
            // group.
            const std::pair<const char*, const Range*> exact[] = {
                {".compute.throughput", &n.compute.throughput},
                {".price_per_hour", &n.pricePerHour},
                {".data_share", &n.dataShare}};
            for (const auto& [key, r] : exact)
                if (!r->isExact())
                    c.error(e.path + key, n.line,
                            "must be a single number for a node (ranges are for groups), got " +
                                rangeText(*r));
        }
        checkNodeFields(c, e.path, n, true); // price_per_hour, data_share
        e.members = e.count;
        ents.push_back(e);
    }
    // Nodes first, then groups: the order the file lists them and the topology expands them.
    std::stable_partition(ents.begin(), ents.end(), [](const Entity& e) { return !e.group; });

    // A group whose parent is a group's own id is nested under every member of that group.
    std::unordered_map<std::string, int> groupIndex;
    for (std::size_t e = 0; e < ents.size(); ++e)
        if (ents[e].group && !ents[e].id.empty())
            groupIndex.emplace(ents[e].id, static_cast<int>(e));
    for (auto& e : ents)
        if (e.group && !e.parent.empty())
            if (auto it = groupIndex.find(e.parent); it != groupIndex.end()) {
                e.nested = true;
                e.parentEntity = it->second;
            }
    // Members of nested groups multiply along the chain: saturating, with cycles left to the
    // cycle check below (a group in a cycle counts its own members only).
    {
        std::vector<int> state(ents.size(), 0); // 0 open, 1 on the walk, 2 done
        for (std::size_t start = 0; start < ents.size(); ++start) {
            std::vector<int> chain;
            int x = static_cast<int>(start);
            while (x >= 0 && state[static_cast<std::size_t>(x)] == 0 &&
                   ents[static_cast<std::size_t>(x)].nested) {
                state[static_cast<std::size_t>(x)] = 1;
                chain.push_back(x);
                x = ents[static_cast<std::size_t>(x)].parentEntity;
            }
            const bool cycle = x >= 0 && state[static_cast<std::size_t>(x)] == 1;
            for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
                Entity& e = ents[static_cast<std::size_t>(*it)];
                state[static_cast<std::size_t>(*it)] = 2;
                if (cycle) continue;
                const long long above = ents[static_cast<std::size_t>(e.parentEntity)].members;
                e.members = above > 0 && e.count > kMaxNestedMembers / above ? kMaxNestedMembers + 1
                                                                             : e.count * above;
            }
            if (!cycle && x >= 0) state[static_cast<std::size_t>(x)] = 2;
        }
    }
    // A link shared by the members of a group that has none (a count below 1 on its chain).
    for (const auto& e : ents) {
        if (!e.sharedLink || e.members > 0) continue;
        const Entity* empty = &e;
        for (std::size_t steps = 0; empty->givenCount >= 1 && empty->nested && steps < ents.size(); ++steps)
            empty = &ents[static_cast<std::size_t>(empty->parentEntity)];
        if (empty->givenCount >= 1) continue; // no members for another reason, reported at its count
        c.error(e.path + ".link_sharing", e.line,
                empty == &e ? "is shared, but group '" + e.id + "' has no members to share it (count " +
                                  std::to_string(e.givenCount) + ")"
                            : "is shared, but group '" + e.id + "' has no members to share it: group '" +
                                  empty->id + "' it is nested under has none (count " +
                                  std::to_string(empty->givenCount) + ")");
    }
    for (auto& e : ents) {
        if (!e.nested || e.members <= kMaxNestedMembers) continue;
        const Entity& p = ents[static_cast<std::size_t>(e.parentEntity)];
        c.error(e.path + ".count", e.line,
                "times the members of group '" + p.id + "' it is placed under makes more than " +
                    formatNumber(static_cast<double>(kMaxNestedMembers)) +
                    " members: lower a count on the chain of nested groups");
        e.members = 0;
        facts.reliable = false;
        return facts;
    }
    // Everything below expands groups (ids, roots): refuse a total the engine cannot hold
    // before expanding anything, so a few aliases to a huge group cost nothing.
    long long totalNodes = 0;
    for (const auto& e : ents)
        totalNodes += e.members;
    if (totalNodes > L::maxNodes) {
        c.error(t.groupCount() == 0 ? "topology.nodes" : "topology.groups", 0,
                "declare " + std::to_string(totalNodes) +
                    " nodes in all (group members "
                    "counted); at most " +
                    std::to_string(L::maxNodes) +
                    " are supported (each node needs memory and events in the engine)");
        facts.reliable = false;
        return facts;
    }

    // Ids, with groups expanded to <id>-0 .. <id>-<count-1> (nested: <id>-<i>-..-<k>, the
    // parent member's indices first); each clash reported once per pair.
    std::unordered_map<std::string, int> owner;
    std::set<std::pair<int, int>> clashes;
    auto claim = [&](const std::string& id, int e) {
        const auto [it, inserted] = owner.emplace(id, e);
        if (inserted || it->second == e || !clashes.insert({it->second, e}).second) return;
        const Entity& other = ents[static_cast<std::size_t>(it->second)];
        c.error(ents[static_cast<std::size_t>(e)].path + ".id",
                ents[static_cast<std::size_t>(e)].line,
                (ents[static_cast<std::size_t>(e)].group ? "gives member id '" : "duplicate id '") +
                    id + "', already used by " + other.describe());
    };
    // Member id suffixes ("-3", "-3-42") per group, parents before children.
    std::vector<std::vector<std::string>> suffixes(ents.size());
    std::vector<char> expanded(ents.size(), 0);
    std::function<void(int)> expand = [&](int x) {
        Entity& e = ents[static_cast<std::size_t>(x)];
        if (expanded[static_cast<std::size_t>(x)]) return;
        expanded[static_cast<std::size_t>(x)] = 1;
        auto& out = suffixes[static_cast<std::size_t>(x)];
        if (!e.group) return;
        if (!e.nested) {
            for (int i = 0; i < e.count; ++i)
                out.push_back("-" + std::to_string(i));
            return;
        }
        if (e.members <= 0 || e.inCycle) return;
        expand(e.parentEntity);
        for (const auto& above : suffixes[static_cast<std::size_t>(e.parentEntity)])
            for (int i = 0; i < e.count; ++i)
                out.push_back(above + "-" + std::to_string(i));
    };
    // (Cycles among nested groups are found below; until then, guard the expansion.)
    {
        std::vector<int> seen(ents.size(), 0);
        for (std::size_t start = 0; start < ents.size(); ++start) {
            int x = static_cast<int>(start);
            std::vector<int> chain;
            while (x >= 0 && ents[static_cast<std::size_t>(x)].nested &&
                   seen[static_cast<std::size_t>(x)] == 0) {
                seen[static_cast<std::size_t>(x)] = 1;
                chain.push_back(x);
                x = ents[static_cast<std::size_t>(x)].parentEntity;
            }
            if (x >= 0 && seen[static_cast<std::size_t>(x)] == 1)
                for (auto it = std::find(chain.begin(), chain.end(), x); it != chain.end(); ++it)
                    ents[static_cast<std::size_t>(*it)].inCycle = true;
            for (int m : chain)
                seen[static_cast<std::size_t>(m)] = 2;
        }
    }
    for (std::size_t e = 0; e < ents.size(); ++e) {
        if (ents[e].id.empty()) continue;
        if (!ents[e].group) {
            claim(ents[e].id, static_cast<int>(e));
            continue;
        }
        expand(static_cast<int>(e));
        for (const auto& suffix : suffixes[e])
            claim(ents[e].id + suffix, static_cast<int>(e));
    }
    // A group's own id names the group as a parent: it must name nothing else.
    for (std::size_t e = 0; e < ents.size(); ++e) {
        if (!ents[e].group || ents[e].id.empty()) continue;
        if (auto it = owner.find(ents[e].id); it != owner.end())
            c.error(
                ents[e].path + ".id", ents[e].line,
                "'" + ents[e].id + "' is also the id of " +
                    (ents[static_cast<std::size_t>(it->second)].group
                         ? "a member of " + ents[static_cast<std::size_t>(it->second)].describe()
                         : ents[static_cast<std::size_t>(it->second)].path) +
                    ", so a parent naming it would be ambiguous: rename one of them");
    }
    for (auto& e : ents) {
        if (!e.nested) continue;
        const Entity& p = ents[static_cast<std::size_t>(e.parentEntity)];
        if (!aggregates(p.role) && p.role != Role::Relay)
            c.error(e.path + ".parent", e.line,
                    "names group '" + p.id + "', whose members are trainers only: a group is " +
                        "placed under every member of its parent group, which must aggregate " +
                        "or relay (role aggregator, both or relay)");
    }

    std::vector<std::string> names; // for suggestions
    for (const auto& e : ents)
        names.push_back(e.id);
    int suggestionsLeft = kMaxNameSuggestions;
    auto suggest = [&](const std::string& id) {
        return suggestionsLeft-- > 0 ? didYouMean(id, names) : std::string();
    };
    for (auto& e : ents) {
        if (e.parent.empty() || e.nested) continue;
        if (auto it = owner.find(e.parent); it != owner.end()) {
            e.parentEntity = it->second;
            continue;
        }
        e.resolved = false;
        const std::string hint = groupIndex.count(e.parent)
                                     ? " (that is a group: a node cannot be placed under every "
                                       "member of a group, only a group can; name one member)"
                                     : suggest(e.parent);
        c.error(e.path + ".parent", e.line,
                "names node '" + e.parent + "', which does not exist" + hint);
    }

    // Cycles: walk each parent chain; meeting a node of the current walk closes a cycle.
    std::vector<int> state(ents.size(), 0); // 0 unvisited, 1 on the current walk, 2 done
    for (std::size_t start = 0; start < ents.size(); ++start) {
        std::vector<int> chain;
        int x = static_cast<int>(start);
        while (x >= 0 && state[static_cast<std::size_t>(x)] == 0) {
            state[static_cast<std::size_t>(x)] = 1;
            chain.push_back(x);
            x = ents[static_cast<std::size_t>(x)].parentEntity;
        }
        if (x >= 0 && state[static_cast<std::size_t>(x)] == 1) {
            std::vector<int> cycle(std::find(chain.begin(), chain.end(), x), chain.end());
            // Start the cycle at its first entity in file order, where it is reported.
            std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
            std::string text = ents[static_cast<std::size_t>(cycle.back())].parent;
            for (int m : cycle) {
                ents[static_cast<std::size_t>(m)].inCycle = true;
                ents[static_cast<std::size_t>(m)].resolved = false;
                text += " -> " + ents[static_cast<std::size_t>(m)].parent;
            }
            const Entity& first = ents[static_cast<std::size_t>(cycle.front())];
            c.error(first.path + ".parent", first.line, "makes the parent chain a cycle: " + text);
        }
        for (int m : chain)
            state[static_cast<std::size_t>(m)] = 2;
    }

    // Nearest aggregating ancestor of each entity; -1 when none, -2 when the chain breaks.
    // from(x): the answer for a chain that reaches entity x. Memoised and iterative, so a
    // chain of 20,000 nodes costs linear time and no deep recursion.
    constexpr int kUnknown = -3;
    std::vector<int> fromMemo(ents.size(), kUnknown);
    auto from = [&](int start) {
        std::vector<int> walked;
        int x = start, answer = -1;
        for (;;) {
            if (x < 0) {
                answer = -1;
                break;
            }
            const Entity& p = ents[static_cast<std::size_t>(x)];
            if (fromMemo[static_cast<std::size_t>(x)] != kUnknown) {
                answer = fromMemo[static_cast<std::size_t>(x)];
                break;
            }
            if (p.inCycle) {
                answer = -2;
                break;
            }
            if (aggregates(p.role)) {
                answer = x;
                break;
            }
            if (!p.resolved) {
                answer = -2;
                break;
            }
            walked.push_back(x);
            x = p.parentEntity;
        }
        if (x >= 0) fromMemo[static_cast<std::size_t>(x)] = answer;
        for (int w : walked)
            fromMemo[static_cast<std::size_t>(w)] = answer;
        return answer;
    };
    auto aggregatorAbove = [&](const Entity& e) { return e.resolved ? from(e.parentEntity) : -2; };

    // Relays forward their children's traffic: each needs children (a node, a group or a
    // nested group naming it or one of its members) and a way up to an aggregator.
    std::vector<char> hasChildren(ents.size(), 0);
    bool parentsKnown = true; // else a child may be missing only for a misspelt parent
    for (const auto& e : ents) {
        if (e.parentEntity >= 0) hasChildren[static_cast<std::size_t>(e.parentEntity)] = 1;
        parentsKnown = parentsKnown && (e.parent.empty() || e.parentEntity >= 0);
    }

    long long trainerCount = 0;
    for (const auto& e : ents) {
        const int above = aggregatorAbove(e);
        if (e.role == Role::Relay) {
            const std::string what = e.group ? "members relay" : "is a relay";
            if (e.parent.empty())
                c.error(e.path + ".role", e.line,
                        what + ", but " + (e.group ? "they have" : "it has") +
                            " no parent: a relay forwards its children's traffic to its parent " +
                            "(set parent, or make it an aggregator)");
            else if (above == -1)
                c.error(e.path + ".parent", e.line,
                        what + " to no aggregator: no node up the parent chain has role aggregator "
                               "or both, so the traffic " + (e.group ? "they forward" : "it forwards") +
                            " reaches no one");
            if (!hasChildren[static_cast<std::size_t>(&e - ents.data())] && parentsKnown)
                c.error(e.path + ".role", e.line,
                        what + ", but nothing reports to " + (e.group ? "them" : "it") +
                            ": no node or group names " + (e.group ? "a member or the group" : "it") +
                            " as parent, so there is nothing to forward");
        }
        if (above == -2) facts.reliable = false;
        if (trains(e.role)) {
            trainerCount += e.members;
            if (above == -1)
                c.error(e.path + (e.parent.empty() ? ".role" : ".parent"), e.line,
                        std::string(e.group ? "members train but have no aggregator above them"
                                            : "trains but has no aggregator above it") +
                            ": no node up the parent chain has role aggregator or both");
        }
        if (aggregates(e.role)) {
            facts.aggregators += static_cast<int>(e.members);
            if (above == -1) {
                if (e.group)
                    for (const auto& suffix : suffixes[static_cast<std::size_t>(&e - ents.data())])
                        facts.roots.push_back(e.id + suffix);
                else
                    facts.roots.push_back(e.id);
            }
            if (above >= 0) facts.nested = true;
        }
        if (e.role == Role::Aggregator && e.availability != AvailabilitySpec::Kind::Always)
            c.error(e.path + ".availability.kind", e.line,
                    std::string("must be always for an aggregator, got ") +
                        toString(e.availability) +
                        ": only trainers may go offline (an aggregator holds the model)");
        if (e.role == Role::Relay && e.availability != AvailabilitySpec::Kind::Always)
            c.error(e.path + ".availability.kind", e.line,
                    std::string("must be always for a relay, got ") + toString(e.availability) +
                        ": only trainers may go offline (a relay carries its children's traffic)");
    }
    facts.trainers = trainerCount;
    if (ents.empty())
        c.error("topology", 0, "has no nodes: add at least one trainer and one aggregator");
    else if (trainerCount == 0)
        c.error("topology", 0, "has no trainer (a node or group with role trainer or both)");
    if (!ents.empty() && facts.aggregators == 0)
        c.error("topology", 0, "has no aggregator (a node with role aggregator or both)");

    std::set<std::pair<std::string, std::string>> linked;
    for (std::size_t i = 0; i < t.links.size(); ++i) {
        const LinkSpec& l = t.links[i];
        const std::string p = itemPath("topology.links", i);
        auto checkEnd = [&](const char* key, const std::string& id) {
            if (id.empty())
                c.error(p + "." + key, l.line, "must name a node, got nothing");
            else if (!owner.count(id))
                c.error(p + "." + key, l.line,
                        "names node '" + id + "', which does not exist" + suggest(id));
        };
        checkEnd("from", l.from);
        checkEnd("to", l.to);
        if (!l.from.empty() && l.from == l.to)
            c.error(p + ".to", l.line,
                    "must differ from 'from' (a link joins two nodes), got '" + l.to +
                        "' for both");
        // A link serves both directions, so a-b and b-a are the same link.
        if (!l.from.empty() && !l.to.empty() && !linked.insert(std::minmax(l.from, l.to)).second)
            c.error(p, l.line,
                    "duplicates an earlier link between '" + l.from + "' and '" + l.to + "'");
        checkLink(c, p, l.line, l.params);
    }
    return facts;
}

/// What the data checks learn that the model checks need.
struct DataSize {
    int features = 0; ///< per sample; 0 when unknown
    int classes = 0;
    int channels = 1, height = 1, width = 0; ///< sample shape (width 0: unknown)
};

std::string count(double v) {
    return formatNumber(v);
}

DataSize checkData(Checker& c, const DataSpec& d, const TreeFacts& tree) {
    using K = DataSpec::Kind;
    DataSize size;
    if (d.kind == K::Csv || d.kind == K::Leaf || ((d.kind == K::Idx || d.kind == K::Cifar10) && d.dir.empty())) {
        const std::string why =
            d.kind == K::Csv    ? "is required for dataset csv"
            : d.kind == K::Leaf ? "is required for dataset leaf (LEAF's train and test JSON files)"
            : d.kind == K::Idx  ? "is required for dataset idx unless dir names a folder with the "
                                  "four standard IDX files"
                                : "is required for dataset cifar10 unless dir names a folder with "
                                  "data_batch_*.bin and test_batch.bin";
        if (d.trainPath.empty()) c.error("data.train", 0, why);
        if (d.testPath.empty()) c.error("data.test", 0, why);
    }
    // Trainers, when the tree is sound enough to count them.
    const double trainers = tree.reliable ? static_cast<double>(tree.trainers) : 0.0;
    if (d.kind == K::None) {
        // Each trainer holds its sample indices (8 bytes each) in the engine.
        if (d.samplesPerTrainer > 0 && trainers * d.samplesPerTrainer > L::maxTimingSamples)
            c.error("data.samples_per_trainer", 0,
                    "times the " + count(trainers) + " trainers is " +
                        count(trainers * d.samplesPerTrainer) + " samples; at most " +
                        count(L::maxTimingSamples) + " are supported (8 bytes each in memory)");
    }
    if (d.kind == K::Synthetic) {
        // Up to 2,000 samples per device, each of `features` floats.
        const double values = trainers * 2000.0 * d.syntheticFeatures;
        if (d.syntheticFeatures >= 1 && d.syntheticFeatures <= L::maxSyntheticFeatures &&
            values > L::maxSyntheticValues)
            c.error("data.synthetic.features", 0,
                    "times 2000 samples for each of the " + count(trainers) + " trainers may be " +
                        count(values) + " values; at most " + count(L::maxSyntheticValues) +
                        " are supported (4 bytes each): use fewer features or trainers");
        size.features = d.syntheticFeatures;
        size.classes = d.syntheticClasses;
        size.width = d.syntheticFeatures;
    }
    if (d.kind == K::None) return size; // no samples, nothing to partition

    using P = PartitionSpec::Kind;
    const PartitionSpec& p = d.partition;
    if (d.kind == K::Synthetic && p.kind != P::Natural)
        c.error("data.partition.kind", 0,
                std::string("must be natural for synthetic data, whose devices come with their own "
                            "samples (set synthetic.iid: true for IID devices), got ") +
                    toString(p.kind));
    const bool writers = d.kind == K::Synthetic || d.kind == K::Leaf || (d.kind == K::Csv && d.clientColumn > 0);
    if (!writers && p.kind == P::Natural)
        c.error("data.partition.kind", 0,
                std::string("natural needs data that name their writers (synthetic, leaf, or csv with "
                            "client_column); for ") +
                    toString(d.kind) + " choose iid, dirichlet, shards or quantity-skew");
    if (d.kind == K::Csv && p.kind == P::Natural && d.maxTrainSamples > 0)
        c.error("data.max_train_samples", 0,
                "is not used with a natural partition (each writer keeps all its samples): remove it");
    if (d.kind == K::Synthetic) return size;

    // The files: there, readable, well-formed headers; and their sizes, so that a partition
    // the engine would refuse at start is refused here, where the user is looking.
    const DataFacts facts = probeData(d);
    for (const auto& [key, message] : facts.problems)
        c.error("data." + key, 0, message);
    if (!facts.known) return size;
    size.features = facts.features;
    size.classes = d.kind == K::FashionMnist ? 10 : 0;
    size.channels = facts.channels;
    size.height = facts.height;
    size.width = facts.width;
    std::uint64_t n = facts.train;
    if (d.maxTrainSamples > 0)
        n = std::min<std::uint64_t>(n, static_cast<std::uint64_t>(d.maxTrainSamples));
    if (trainers < 1 || n == 0) return size;
    const std::string have =
        count(static_cast<double>(n)) + " training samples" +
        (d.maxTrainSamples > 0 && n < facts.train ? " (max_train_samples)" : "") +
        " cannot give each of the " + count(trainers) + " trainers ";
    switch (p.kind) {
    case P::Iid:
    case P::QuantitySkew:
        if (static_cast<double>(n) < trainers)
            c.error("data.partition", 0, have + "one sample: use fewer trainers or more data");
        break;
    case P::Dirichlet: {
        const double need = std::max(1, p.minPerClient);
        if (static_cast<double>(n) < need * trainers)
            c.error(p.minPerClient > 1 ? "data.partition.min_per_client" : "data.partition", 0,
                    have + "at least " + count(need) +
                        " (lower partition.min_per_client, use fewer trainers or more data)");
        break;
    }
    case P::Shards:
        if (p.shardsPerClient >= 1 && static_cast<double>(n) < trainers * p.shardsPerClient)
            c.error("data.partition.per_client", 0,
                    have + std::to_string(p.shardsPerClient) +
                        " non-empty shards (lower per_client, use fewer trainers or more data)");
        break;
    case P::Natural:
        // One trainer per writer (the run would refuse it at its start): LEAF's users are
        // known from the file's first pass, before any sample is read; a CSV file's clients
        // from its client column.
        if ((d.kind == K::Leaf || d.kind == K::Csv) && facts.writers > 0 &&
            static_cast<double>(facts.writers) != trainers)
            c.error(d.kind == K::Leaf ? "data.train" : "data.client_column", 0,
                    (d.kind == K::Leaf ? "the LEAF file " + resolveDataPath(d, d.trainPath) + " has "
                                       : "the client column of " + resolveDataPath(d, d.trainPath) + " names ") +
                        count(static_cast<double>(facts.writers)) + " writers but the topology has " + count(trainers) +
                        " trainers; a natural partition gives each writer one trainer (set the devices' "
                        "group count to " + std::to_string(facts.writers) + ")");
        break;
    }
    return size;
}

void checkModel(Checker& c, const ModelSpec& m, const DataSpec& d, const DataSize& size) {
    if (d.kind == DataSpec::Kind::None && m.kind != ModelSpec::Kind::None)
        c.error("model.kind", 0,
                std::string("must be none when data.dataset is none (a timing-only run has no "
                            "samples to train on), got ") +
                    toString(m.kind));
    if (m.kind == ModelSpec::Kind::Mlp || m.kind == ModelSpec::Kind::Cnn) {
        bool sane = true; // the widths are checked against the schema in checkFields
        for (std::size_t i = 0; i < m.hidden.size() && i < 64; ++i)
            sane = sane && m.hidden[i] >= 1 && m.hidden[i] <= L::maxHiddenUnits;
        // Parameters (4 bytes each; every update in flight is a copy): an estimate from the
        // layer sizes, the convolutions of a cnn counted as twice the input size.
        if (sane && size.features > 0 &&
            m.hidden.size() <= static_cast<std::size_t>(L::maxHiddenLayers)) {
            double in = m.kind == ModelSpec::Kind::Cnn ? 2.0 * size.features : size.features;
            double params = 0.0;
            const std::size_t layers = m.kind == ModelSpec::Kind::Cnn
                                           ? std::min<std::size_t>(1, m.hidden.size())
                                           : m.hidden.size();
            for (std::size_t i = 0; i < layers; ++i) {
                params += (in + 1) * m.hidden[i];
                in = m.hidden[i];
            }
            params += (in + 1) * std::max(size.classes, 10);
            if (params > L::maxModelParameters)
                c.error("model.hidden", 0,
                        "gives a model of about " + count(std::round(params)) + " parameters for " +
                            std::to_string(size.features) + " input features; at most " +
                            count(L::maxModelParameters) +
                            " are supported (4 bytes each, one copy per update in flight)");
        }
    }
}

/// A TorchScript model: the file is there, loads, and fits the data's shape when it is known
/// (inspectTorchScript, cached per file version).
void checkTorchScript(Checker& c, const ModelSpec& m, const DataSize& size) {
    if (m.kind != ModelSpec::Kind::TorchScript) return;
    if (m.path.empty()) {
        c.error("model.path", 0, "is required with kind: torchscript (a file saved by torch.jit.save)");
        return;
    }
    if (const TorchScriptInspector inspect = torchScriptInspector()) try {
            inspect(m, size.channels, size.height, size.width, size.classes);
        } catch (const std::exception& e) {
            c.error("model.path", 0, e.what());
        }
}

/// Nodes given in FLOP/s (or by device class) and energy per FLOP need a model cost:
/// counted from the model, or model.flops_per_sample.
void checkComputeFlops(Checker& c, const Scenario& s) {
    if (s.model.kind != ModelSpec::Kind::None || s.model.flopsPerSample > 0) return;
    for (std::size_t i = 0; i < s.topology.nodes.size(); ++i) {
        const NodeSpec& n = s.topology.nodes[i];
        const char* key = n.compute.flops.max > 0       ? ".compute.flops"
                          : !n.compute.deviceClass.empty() ? ".compute.device_class"
                          : n.energy.perFlopJ > 0          ? ".energy.per_flop_j"
                                                           : nullptr;
        if (!key) continue;
        c.error(s.topology.pathOf(i) + key, n.line,
                "needs model.flops_per_sample when model.kind is none (a timing-only run has no "
                "model whose FLOPs could be counted)");
        return;
    }
}

void checkTraining(Checker& c, const TrainingSpec& t, const ModelSpec& m) {
    auto names = [](const std::vector<PolicyInfo>& infos) {
        std::vector<std::string> v;
        for (const auto& i : infos) v.push_back(i.name);
        return v;
    };
    const auto local = names(localOptimizerInfos());
    if (std::find(local.begin(), local.end(), t.optimizer) == local.end())
        c.error("training.optimizer", 0,
                "must be one of " + joinNames(local) + ", got '" + t.optimizer + "'" + didYouMean(t.optimizer, local));
    else if (t.optimizer == "nesterov" && !(t.momentum > 0))
        c.error("training.momentum", 0, "must be above 0 with training.optimizer nesterov (Nesterov momentum "
                                        "without momentum is plain SGD)");
    if (t.optimizerState != "reset" && t.optimizerState != "keep")
        c.error("training.optimizer_state", 0, "must be reset or keep, got '" + t.optimizerState + "'");
    const auto codecs = names(codecInfos());
    for (const auto& [key, value] : {std::pair{"training.codec_up", &t.codecUp}, std::pair{"training.codec_down", &t.codecDown},
                                     std::pair{"training.aggregator_codec_up", &t.aggregatorCodecUp},
                                     std::pair{"training.aggregator_codec_down", &t.aggregatorCodecDown}})
        if (std::find(codecs.begin(), codecs.end(), *value) == codecs.end())
            c.error(key, 0, "must be one of " + joinNames(codecs) + ", got '" + *value + "'" + didYouMean(*value, codecs));
    if (t.codecDown == "topk")
        c.error("training.codec_down", 0,
                "cannot be topk: top-k needs the error feedback of a sender that keeps a residual per "
                "receiver; use fp16 or quantize downlink");
    if (t.aggregatorCodecDown == "topk")
        c.error("training.aggregator_codec_down", 0,
                "cannot be topk: the model goes down whole (top-k sends a change with its sender's error "
                "feedback); use fp16 or quantize");
    const auto server = names(serverOptimizerInfos());
    if (std::find(server.begin(), server.end(), t.serverOptimizer) == server.end())
        c.error("training.server_optimizer", 0,
                "must be one of " + joinNames(server) + ", got '" + t.serverOptimizer + "'" +
                    didYouMean(t.serverOptimizer, server));
    if (t.backend == TrainingBackend::Fast && m.kind != ModelSpec::Kind::None) {
        const std::string why = fastPathUnsupported(m);
        if (!why.empty()) c.error("training.backend", 0, "fast: " + why + "; use libtorch or auto");
        if (t.optimizer != "sgd")
            c.error("training.backend", 0, "fast: the fast path trains with sgd only, not " + t.optimizer +
                                               "; use libtorch or auto (auto takes LibTorch for it)");
        if (t.optimizerState == "keep")
            c.error("training.backend", 0, "fast: the fast path starts every job afresh, so it cannot keep a "
                                           "client's optimiser state; use libtorch or auto");
    }
}

/// A server optimiser steps with averaged local-SGD changes: a sync policy without them
/// would ignore it.
void checkServerOptimizerFitsSync(Checker& c, const TrainingSpec& t, const PolicySpec& sync) {
    if (t.serverOptimizer == "none") return;
    const SyncPolicyDescriptor* d = findSyncDescriptor(sync.name);
    if (!d || d->serverOptimizer) return;
    std::vector<std::string> fit;
    for (const auto* x : syncDescriptors())
        if (x->serverOptimizer) fit.push_back(x->info.name);
    c.error("training.server_optimizer", 0,
            "steps with the averaged local-SGD changes of a round, which sync policy " + sync.name +
                " does not make; use it with " + joinNames(fit) + " or in a tiered tree (aggregate:)");
}

/// Name and parameters against the policy catalogue; returns the policy or nullptr.
const PolicyInfo* checkPolicy(Checker& c, const std::string& path, const char* what,
                              const PolicySpec& p, const std::vector<PolicyInfo>& catalogue) {
    std::vector<std::string> known;
    const PolicyInfo* info = nullptr;
    for (const auto& i : catalogue) {
        known.push_back(i.name);
        if (i.name == p.name) info = &i;
    }
    if (!info) {
        c.error(path + ".policy", p.line,
                std::string("unknown ") + what + " policy '" + p.name + "'" +
                    didYouMean(p.name, known) + "; known: " + joinNames(known));
        return nullptr;
    }
    for (const auto& [key, value] : p.params) {
        const auto lineIt = p.paramLines.find(key);
        const int line = lineIt != p.paramLines.end() ? lineIt->second : p.line;
        const std::string keyPath = path + "." + key;
        std::vector<std::string> keys;
        const PolicyParamInfo* param = nullptr;
        for (const auto& q : info->params) {
            keys.push_back(q.key);
            if (q.key == key) param = &q;
        }
        if (!param) {
            std::string hint = didYouMean(key, keys);
            if (hint.empty())
                hint = keys.empty() ? "; it takes no parameters"
                                    : "; its parameters: " + joinNames(keys);
            c.error(keyPath, line,
                    "unknown key '" + key + "' for " + what + " policy " + p.name + hint);
            continue;
        }
        if (!c.finite(keyPath, line, value)) continue;
        if (param->integer && value != std::floor(value)) {
            c.error(keyPath, line, "must be an integer, got " + num(value));
            continue;
        }
        // Integers become ints in the policies: bound them (k: 1e300 must not be cast).
        // The same bounds as the policy panel's (schema.h, policyParamBounds).
        c.bounds(keyPath, line, value, policyParamBounds(*param));
    }
    return info;
}

/// The tree against the shapes the sync policy accepts (its descriptor's check and message).
void checkPolicyFitsTree(Checker& c, const PolicySpec& sync, const TreeFacts& tree) {
    if (!tree.reliable || tree.aggregators == 0) return; // already reported as tree errors
    const SyncPolicyDescriptor* d = findSyncDescriptor(sync.name);
    if (!d) return;
    PolicyTreeFacts facts;
    facts.trainers = tree.trainers;
    facts.aggregators = tree.aggregators;
    facts.roots = tree.roots;
    facts.nested = tree.nested;
    if (std::string why = refuseTree(*d, facts); !why.empty()) c.error("sync.policy", sync.line, why);
}

/// A selection policy that plans a sync policy's rounds needs one it can model.
void checkSelectionFitsSync(Checker& c, const PolicySpec& selection, const PolicySpec& sync) {
    const SelectionPolicyDescriptor* sel = findSelectionDescriptor(selection.name);
    const SyncPolicyDescriptor* syn = findSyncDescriptor(sync.name);
    if (!sel || !syn || !sel->needsBarrierSync || syn->hasBarrier) return;
    c.error("selection.policy", selection.line,
            selection.name + " plans " + barrierSyncNames() + " rounds, but sync.policy is '" + sync.name + "'");
}

void checkStop(Checker& c, const StopSpec& s) {
    if (s.rounds == 0 && s.virtualTimeS == 0 && s.targetAccuracy == 0 && s.budget == 0)
        c.error("stop", 0,
                "needs at least one limit: set rounds, virtual_time_s, target_accuracy or budget "
                "(with all of them 0 the run would never end)");
    else if (s.rounds <= 0 && !(s.virtualTimeS > 0 && std::isfinite(s.virtualTimeS)))
        // A target accuracy may never be reached and a budget never spent (free nodes, a
        // model that does not learn): only rounds or virtual time guarantee an end.
        c.error("stop", 0,
                std::string("needs rounds or virtual_time_s as well: ") +
                    (s.targetAccuracy > 0 ? "the target accuracy may never be reached"
                                          : "the budget may never be spent (e.g. with no prices)") +
                    ", and the run would never end; add e.g. rounds: 1000 as a guaranteed stop");
}

} // namespace

std::vector<Diagnostic> validateScenario(const Scenario& s) {
    Checker c(s.sourcePath.empty() ? "<scenario>" : s.sourcePath);
    if (s.schemaVersion < 1 || s.schemaVersion > kScenarioSchemaVersion)
        c.error("schema_version", 0,
                "must be in [1, " + std::to_string(kScenarioSchemaVersion) + "], got " +
                    std::to_string(s.schemaVersion));
    const TreeFacts tree = checkTopology(c, s.topology);
    checkFields(c, s, "data");
    const DataSize size = checkData(c, s.data, tree);
    checkFields(c, s, "model");
    checkModel(c, s.model, s.data, size);
    checkTorchScript(c, s.model, size);
    checkComputeFlops(c, s);
    checkFields(c, s, "training");
    checkTraining(c, s.training, s.model);
    // A tiered tree checks every aggregator's policy against its children instead (tier_check.h).
    const bool tiered = isTiered(s.topology);
    if (!tiered)
        for (const auto& [key, value] : {std::pair{"training.aggregator_codec_up", &s.training.aggregatorCodecUp},
                                         std::pair{"training.aggregator_codec_down", &s.training.aggregatorCodecDown}})
            if (*value != "none")
                c.error(key, 0,
                        "applies to the links between the aggregators of a tiered tree (a node declaring "
                        "aggregate:), and this topology has none; a trainer's job uses training.codec_up / "
                        "codec_down");
    if (checkPolicy(c, "sync", "sync", s.sync, syncPolicyInfos()) && !tiered)
        checkPolicyFitsTree(c, s.sync, tree);
    checkPolicy(c, "selection", "selection", s.selection, selectionPolicyInfos());
    if (!tiered) checkSelectionFitsSync(c, s.selection, s.sync);
    if (!tiered) checkServerOptimizerFitsSync(c, s.training, s.sync);
    checkFields(c, s, "stop");
    checkFields(c, s, "evaluation");
    checkStop(c, s.stop);
    auto problems = c.take();
    if (tiered && tree.reliable) addTierProblems(s, problems);
    if (!tiered && tree.reliable) addCrossCloudProblems(s, problems); // WAN routes between regional servers
    return addProgressProblems(s, std::move(problems)); // trees where the sync policy leaves trainers unused
}

} // namespace fog
