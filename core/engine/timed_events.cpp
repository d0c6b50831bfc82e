// Timed events, traces and interventions applied by the engine (timed_events.h).

#include "core/engine/timed_events.h"

#include "core/scenario/events_io.h"
#include "core/scenario/yaml_reader.h"
#include "core/spec/device_classes.h"
#include "core/system/metrics.h"
#include "core/util/engine_error.h"
#include "core/util/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace fog {

namespace {

using Action = TimedEvent::Action;
using TK = EventTrigger::Kind;

std::string fileName(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

/// One trace in use: which nodes each column drives, and the next row of each column.
struct TimedEvents::Cursor {
    enum class Kind { Availability, Price, Bandwidth, Compute } kind = Kind::Availability;
    int entry = -1;
    std::string ref;
    std::shared_ptr<const TraceTable> table;
    std::vector<std::vector<int>> nodes; ///< per column
    std::vector<std::size_t> next;       ///< per column
    bool share = false;                  ///< a group's single availability column: share online
    std::vector<int> order;              ///< share: the members, in the order they go offline
    double bid = 0.0;
};

void TimedEvents::loadTraces(Scenario& s) {
    // A scenario read for editing (the studio's) names its traces without their series: load
    // them here, so that no run ignores a trace it names.
    bool missing = false;
    for (const auto& n : s.topology.nodes)
        for (const std::string* ref : {&n.availability.file, &n.priceTrace, &n.linkTrace, &n.computeTrace})
            if (!ref->empty() && !s.events.traces.count(*ref) &&
                (ref != &n.availability.file || n.availability.kind == AvailabilitySpec::Kind::Trace))
                missing = true;
    if (!missing) return;
    YamlContext ctx(s.sourcePath.empty() ? "scenario" : s.sourcePath);
    loadScenarioTraces(ctx, s, s.data.baseDir);
    if (!ctx.diagnostics().empty()) {
        const Diagnostic& d = ctx.diagnostics().front();
        throw EngineError("trace files: " + d.file + (d.line > 0 ? ":" + std::to_string(d.line) : std::string()) +
                          ": " + (d.path.empty() ? "" : d.path + ": ") + d.message);
    }
}

TimedEvents::TimedEvents(const Scenario& scenario, const Topology& topo, Host& host, Resources resources)
    : scenario_(scenario), topo_(topo), host_(host), res_(resources) {
    const Scenario& s = scenario_;
    for (int i = topo.firstJoining(); i < topo.size(); ++i) {
        waiting_[topo.entryIndex(i)].push_back(i);
        res_.nodes.initForced(i, Absent);
    }
    for (const TimedEvent& e : s.events.list) {
        if (e.trigger.kind != TK::At) {
            when_.push_back(e);
        } else if (e.afterEvent >= 0) {
            recorded_.push_back(e);
        } else {
            lastChange_ = std::max(lastChange_, e.trigger.value);
        }
    }
    std::stable_sort(recorded_.begin(), recorded_.end(),
                     [](const TimedEvent& a, const TimedEvent& b) { return a.afterEvent < b.afterEvent; });
    for (const auto& r : recorded_) lastChange_ = std::max(lastChange_, r.trigger.value);

    // Traces: one cursor per reference of an entry.
    const auto& entries = s.topology.nodes;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const NodeSpec& n = entries[i];
        auto add = [&](Cursor::Kind kind, const std::string& ref) {
            const auto it = s.events.traces.find(ref);
            if (ref.empty() || it == s.events.traces.end() || !it->second) return;
            auto c = std::make_unique<Cursor>();
            c->kind = kind;
            c->entry = static_cast<int>(i);
            c->ref = ref;
            c->table = it->second;
            const std::vector<int> members = membersOf(c->entry);
            for (const auto& col : c->table->columns) {
                if (col.name == "value") {
                    c->nodes.push_back(members);
                } else {
                    int node = -1;
                    try {
                        node = topo.indexOf(col.name);
                    } catch (const std::out_of_range&) {
                        throw EngineError("trace '" + ref + "': column '" + col.name + "' names no node");
                    }
                    c->nodes.push_back({node});
                }
                c->next.push_back(0);
                if (!col.timeS.empty()) lastChange_ = std::max(lastChange_, col.timeS.back());
            }
            if (kind == Cursor::Kind::Availability && n.group && c->table->columns.size() == 1 &&
                c->table->columns[0].name == "value") {
                // Members leave in one order fixed by the seed, so that the set offline grows
                // and shrinks with the share rather than churning at every row.
                // Members joining later (add events) come last, in the order they join.
                c->share = true;
                c->order = members;
                std::size_t present = 0;
                while (present < members.size() && !topo.joinsLater(members[present])) ++present;
                Rng rng(deriveSeed(s.seed, hashName("trace-share"), hashName(n.id)));
                for (std::size_t k = present; k > 1; --k)
                    std::swap(c->order[k - 1], c->order[static_cast<std::size_t>(rng.below(k))]);
            }
            if (kind == Cursor::Kind::Price) c->bid = n.bidUsdPerHour;
            cursors_.push_back(std::move(c));
        };
        if (n.availability.kind == AvailabilitySpec::Kind::Trace) add(Cursor::Kind::Availability, n.availability.file);
        add(Cursor::Kind::Price, n.priceTrace);
        add(Cursor::Kind::Bandwidth, n.linkTrace);
        add(Cursor::Kind::Compute, n.computeTrace);
    }
}

TimedEvents::~TimedEvents() = default;

bool TimedEvents::empty() const {
    return scenario_.events.list.empty() && cursors_.empty();
}

std::vector<int> TimedEvents::joiningPerEntry(const Scenario& scenario) {
    std::vector<int> out;
    for (const TimedEvent& e : scenario.events.list) {
        if (e.action != Action::Add || e.entry < 0) continue;
        if (out.empty()) out.assign(scenario.topology.nodes.size(), 0);
        if (static_cast<std::size_t>(e.entry) < out.size()) out[static_cast<std::size_t>(e.entry)] += e.count;
    }
    return out;
}

void TimedEvents::addJoiningParts(DataBundle& data, const Topology& topo, std::size_t present, std::uint64_t seed) {
    const std::vector<int> trainers = topo.trainers();
    const std::size_t n = data.train.size();
    for (std::size_t i = present; i < trainers.size(); ++i) {
        const int t = trainers[i];
        // The size: the mean part of the members of its group already there, scaled by the
        // ratio of its data_share to theirs (all present trainers when the group has none).
        double samples = 0.0, shares = 0.0;
        int count = 0;
        for (int pass = 0; pass < 2 && count == 0; ++pass)
            for (std::size_t j = 0; j < present; ++j)
                if (pass == 1 || topo.entryIndex(trainers[j]) == topo.entryIndex(t)) {
                    samples += static_cast<double>(data.parts[j].size());
                    shares += topo.dataShare(trainers[j]);
                    ++count;
                }
        std::size_t want = 0;
        if (count > 0 && shares > 0)
            want = static_cast<std::size_t>(std::llround(samples / count * topo.dataShare(t) / (shares / count)));
        want = std::min(std::max<std::size_t>(want, n > 0 ? 1 : 0), n);
        // Without replacement, from the member's own stream: a partial Fisher-Yates shuffle.
        Rng rng(deriveSeed(seed, hashName("join-data"), hashName(topo.id(t))));
        std::vector<std::int64_t> all(n);
        for (std::size_t k = 0; k < n; ++k) all[k] = static_cast<std::int64_t>(k);
        for (std::size_t k = 0; k < want; ++k)
            std::swap(all[k], all[k + static_cast<std::size_t>(rng.below(n - k))]);
        all.resize(want);
        std::sort(all.begin(), all.end());
        data.parts.push_back(std::move(all));
    }
}

std::vector<int> TimedEvents::presentOf(int entry) const {
    std::vector<int> out;
    for (int n : membersOf(entry))
        if (!(res_.nodes.forced(n) & Absent)) out.push_back(n);
    return out;
}

std::vector<int> TimedEvents::membersOf(int entry) const {
    std::vector<int> out;
    for (int i = 0; i < topo_.size(); ++i)
        if (topo_.entryIndex(i) == entry) out.push_back(i);
    return out;
}

std::vector<int> TimedEvents::targets(const TimedEvent& e) const {
    if (e.member >= 0 || !scenario_.topology.nodes[static_cast<std::size_t>(e.entry)].group)
        return {topo_.indexOf(e.target)};
    return membersOf(e.entry);
}

void TimedEvents::start() {
    const double now = host_.now();
    // What holds from t = 0 applies before the policies start (no dispatch to a node that is
    // offline from the start): trace rows and `at` events at time 0.
    for (const TimedEvent& e : scenario_.events.list)
        if (e.trigger.kind == TK::At && e.afterEvent < 0) {
            if (e.trigger.value <= now)
                apply(e, false);
            else
                host_.schedule(e.trigger.value, [this, e] { apply(e, false); });
        }
    for (std::size_t i = 0; i < cursors_.size(); ++i) {
        applyTrace(*cursors_[i]);
        scheduleTrace(i);
    }
    policiesStarted_ = true; // members joining at t = 0 are there when the policies start
}

void TimedEvents::scheduleTrace(std::size_t i) {
    Cursor& c = *cursors_[i];
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < c.next.size(); ++k) {
        const auto& col = c.table->columns[k];
        if (c.next[k] < col.timeS.size()) next = std::min(next, col.timeS[c.next[k]]);
    }
    if (!std::isfinite(next)) return;
    host_.schedule(next, [this, i] {
        applyTrace(*cursors_[i]);
        scheduleTrace(i);
    });
}

void TimedEvents::applyTrace(Cursor& c) {
    const double now = host_.now();
    NodeResources& nodes = res_.nodes;
    std::vector<int> linkNodes;
    int changedColumns = 0, offlineNow = 0, reclaimed = 0;
    double shown = 0.0;
    for (std::size_t k = 0; k < c.next.size(); ++k) {
        const auto& col = c.table->columns[k];
        bool due = false;
        double v = 0.0;
        while (c.next[k] < col.timeS.size() && col.timeS[c.next[k]] <= now) {
            v = col.value[c.next[k]];
            ++c.next[k];
            due = true;
        }
        if (!due) continue;
        ++changedColumns;
        shown = v;
        const std::vector<int>& members = c.nodes[k];
        switch (c.kind) {
        case Cursor::Kind::Availability:
            if (c.share) {
                // A share of the members there now (those still to join are left out).
                std::size_t present = 0;
                for (int n : c.order) present += !(nodes.forced(n) & Absent);
                const auto off = static_cast<std::size_t>(
                    std::llround((1.0 - v) * static_cast<double>(present)));
                for (std::size_t j = 0, rank = 0; j < c.order.size(); ++j) {
                    const int n = c.order[j];
                    if (nodes.forced(n) & Absent) continue;
                    const bool down = rank++ < off;
                    offlineNow += down;
                    nodes.force(n, down ? nodes.forced(n) | ByTrace : nodes.forced(n) & ~ByTrace);
                }
            } else {
                for (int n : members) {
                    offlineNow += v == 0.0;
                    nodes.force(n, v == 0.0 ? nodes.forced(n) | ByTrace : nodes.forced(n) & ~ByTrace);
                }
            }
            break;
        case Cursor::Kind::Price:
            for (int n : members) {
                res_.prices.set(n, v, now);
                if (c.bid > 0) {
                    const bool out = v > c.bid;
                    reclaimed += out;
                    nodes.force(n, out ? nodes.forced(n) | ByBid : nodes.forced(n) & ~ByBid);
                }
            }
            break;
        case Cursor::Kind::Bandwidth:
            if (col.name == "value") {
                res_.links.changeEntryAndMembers(c.entry, LinkChange::bandwidth(v));
            } else {
                for (int n : members) res_.links.changeMemberLink(n, LinkChange::bandwidth(v));
            }
            linkNodes.insert(linkNodes.end(), members.begin(), members.end());
            break;
        case Cursor::Kind::Compute:
            // In the unit the node's compute is given in: FLOP/s become samples/s here. Steps
            // already running keep the duration they were dispatched with.
            for (int n : members) nodes.setTraceCompute(n, v);
            break;
        }
    }
    if (changedColumns == 0) return;
    if (!linkNodes.empty()) res_.links.changed(linkNodes, {}, now);

    const bool single = c.table->columns.size() == 1;
    const std::string& id = scenario_.topology.nodes[static_cast<std::size_t>(c.entry)].id;
    std::string detail;
    switch (c.kind) {
    case Cursor::Kind::Availability:
        detail = "availability of " + id + " (" + fileName(c.ref) + "): " +
                 (c.share ? "share online " + formatNumber(shown) + ", " : std::string()) +
                 std::to_string(offlineNow) + " held offline by the trace" +
                 (single ? "" : " (" + std::to_string(changedColumns) + " member(s) changed)");
        break;
    case Cursor::Kind::Price:
        detail = "price of " + id + " (" + fileName(c.ref) + "): " +
                 (single ? formatNumber(shown) + "/h" : std::to_string(changedColumns) + " member price(s) changed") +
                 (c.bid > 0 ? ", " + std::to_string(reclaimed) + " reclaimed (price above the bid " +
                                  formatNumber(c.bid) + ")"
                            : std::string());
        break;
    case Cursor::Kind::Bandwidth:
        detail = "link bandwidth of " + id + " (" + fileName(c.ref) + "): " +
                 (single ? formatNumber(shown) + " Mbit/s" : std::to_string(changedColumns) + " member link(s) changed");
        break;
    case Cursor::Kind::Compute: {
        const bool flops = computeInFlops(scenario_.topology.nodes[static_cast<std::size_t>(c.entry)].compute);
        detail = "compute of " + id + " (" + fileName(c.ref) + "): " +
                 (single ? formatNumber(shown) + (flops ? " FLOP/s" : " samples/s")
                         : std::to_string(changedColumns) + " member speed(s) changed");
        break;
    }
    }
    host_.emit(RunEventKind::Trace, single && c.nodes[0].size() == 1 ? c.nodes[0][0] : -1, detail);
}

void TimedEvents::afterAggregation(const AggregationRecord& r) {
    for (auto it = when_.begin(); it != when_.end();) {
        bool holds = false;
        switch (it->trigger.kind) {
        case TK::Round: holds = r.level == 0 && r.round >= it->trigger.value; break;
        case TK::Accuracy: holds = !std::isnan(r.testAccuracy) && r.testAccuracy >= it->trigger.value; break;
        case TK::Cost: holds = r.cost >= it->trigger.value; break;
        case TK::At: break;
        }
        if (!holds) {
            ++it;
            continue;
        }
        // A queue event at this instant: the aggregation's own event finishes first.
        TimedEvent e = *it;
        it = when_.erase(it);
        host_.schedule(host_.now(), [this, e] { apply(e, false); });
    }
}

bool TimedEvents::between(std::uint64_t handled) {
    bool any = false;
    while (nextRecorded_ < recorded_.size() &&
           static_cast<std::uint64_t>(recorded_[nextRecorded_].afterEvent) <= handled) {
        apply(recorded_[nextRecorded_++], false);
        any = true;
    }
    for (TimedEvent e : host_.takeInterventions()) {
        e.trigger.kind = TK::At;
        e.trigger.value = host_.now();
        e.afterEvent = static_cast<long long>(handled);
        e.line = e.column = 0;
        // The same checks as a file's event, against this run's scenario (ids resolved).
        if (const std::string why = checkEvent(scenario_, e); !why.empty()) {
            host_.emit(RunEventKind::Intervention, -1, "not applied: " + why);
            continue;
        }
        if (e.action == Action::Add) {
            // The engine sizes its tables when the run starts: devices join by an event of
            // the scenario, so a live add is a fork (which replays the run with the event).
            host_.emit(RunEventKind::Intervention, -1,
                              "not applied: " + describe(e) +
                                  ": devices cannot join a run already going; fork it at this instant with the "
                                  "change 'add " + e.target + " " + std::to_string(e.count) +
                                  "' (studio: Fork..., CLI: fogstudio-cli fork RUN --at T --event 'add " + e.target +
                                  " " + std::to_string(e.count) + "'), or give the scenario an add event");
            continue;
        }
        apply(e, true);
        host_.intervened(e);
        any = true;
    }
    return any;
}

std::vector<int> TimedEvents::choose(std::vector<int> candidates, std::size_t k) {
    Rng rng(deriveSeed(scenario_.seed, hashName("timed-events"), choices_++));
    k = std::min(k, candidates.size());
    for (std::size_t i = 0; i < k; ++i)
        std::swap(candidates[i], candidates[i + static_cast<std::size_t>(rng.below(candidates.size() - i))]);
    candidates.resize(k);
    std::sort(candidates.begin(), candidates.end());
    return candidates;
}

void TimedEvents::apply(const TimedEvent& e, bool intervention) {
    const Topology& topo = topo_;
    NodeResources& nodes = res_.nodes;
    LinkResources& links = res_.links;
    const double now = host_.now();
    std::string detail = describe(e);
    int node = -1;
    switch (e.action) {
    case Action::Link: {
        LinkChange change;
        change.bandwidthUpMbps = e.bandwidthUpMbps;
        change.bandwidthDownMbps = e.bandwidthDownMbps;
        change.latencyMs = e.latencyMs;
        if (!e.linkTo.empty()) {
            int k = -1;
            if (links.changeExplicitLink(topo.indexOf(e.target), topo.indexOf(e.linkTo), change, &k))
                links.changed({}, {k}, now);
            break;
        }
        std::vector<int> changed;
        if (e.member >= 0 || !scenario_.topology.nodes[static_cast<std::size_t>(e.entry)].group) {
            const int n = topo.indexOf(e.target);
            node = n;
            if (e.member >= 0)
                links.changeMemberLink(n, change);
            else
                links.changeEntryLink(e.entry, change);
            changed.push_back(n);
        } else {
            links.changeEntryAndMembers(e.entry, change);
            changed = membersOf(e.entry);
        }
        links.changed(changed, {}, now);
        break;
    }
    case Action::Node: {
        const std::vector<int> ns = targets(e);
        if (ns.size() == 1) node = ns[0];
        for (int n : ns) {
            if (e.pricePerHour) res_.prices.set(n, *e.pricePerHour, now);
            if (e.throughput) nodes.setThroughput(n, *e.throughput);
        }
        break;
    }
    case Action::Offline:
    case Action::Online: {
        const bool off = e.action == Action::Offline;
        std::vector<int> ns = targets(e);
        if (e.member < 0) // a group: the members there now (a member named is kept: it joins offline)
            ns.erase(std::remove_if(ns.begin(), ns.end(), [&](int n) { return (nodes.forced(n) & Absent) != 0; }),
                     ns.end());
        if (ns.size() == 1) node = ns[0];
        if (e.fraction) {
            // round(f x members) of those this action changes, chosen with the seed.
            const auto k = static_cast<std::size_t>(std::llround(*e.fraction * static_cast<double>(ns.size())));
            std::vector<int> candidates;
            for (int n : ns)
                if (((nodes.forced(n) & ByEvent) != 0) != off) candidates.push_back(n);
            ns = choose(std::move(candidates), k);
        }
        int changed = 0, stillDown = 0;
        for (int n : ns) {
            const std::uint8_t bits = off ? nodes.forced(n) | ByEvent : nodes.forced(n) & ~ByEvent;
            changed += bits != nodes.forced(n);
            nodes.force(n, bits);
            stillDown += !off && !nodes.online(n);
        }
        detail += " (" + std::to_string(changed) + " node(s) " + (off ? "taken offline" : "released");
        if (stillDown > 0)
            detail += ", " + std::to_string(stillDown) + " still offline by their availability, trace, bid or removal";
        detail += ")";
        break;
    }
    case Action::Remove: {
        std::vector<int> present;
        for (int n : presentOf(e.entry))
            if (!(nodes.forced(n) & Removed)) present.push_back(n);
        const std::size_t k = std::min<std::size_t>(present.size(), static_cast<std::size_t>(e.count));
        for (std::size_t j = present.size() - k; j < present.size(); ++j)
            nodes.force(present[j], nodes.forced(present[j]) | Removed);
        detail += " (" + std::to_string(k) + " removed, " + std::to_string(present.size() - k) + " left)";
        break;
    }
    case Action::Add: {
        // The members reserved for the group's add events, in index order (an event takes
        // the next `count`; the reader checked that every event has its own).
        std::deque<int>& w = waiting_[e.entry];
        const std::size_t k = std::min<std::size_t>(w.size(), static_cast<std::size_t>(e.count));
        std::vector<int> joined(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(k));
        w.erase(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(k));
        int online = 0;
        for (int n : joined) {
            nodes.join(n, static_cast<std::uint8_t>(nodes.forced(n) & ~Absent), now);
            online += nodes.online(n);
        }
        if (joined.size() == 1) node = joined[0];
        detail += " (" + std::to_string(k) + " joined" +
                  (k ? ": " + topo.id(joined.front()) + (k > 1 ? " .. " + topo.id(joined.back()) : std::string()) : "") +
                  (static_cast<int>(k) > online ? ", " + std::to_string(static_cast<int>(k) - online) +
                                                      " offline by their availability or a trace"
                                                : std::string()) +
                  (k < static_cast<std::size_t>(e.count) ? "; no member left to join" : "") + ")";
        host_.emit(intervention ? RunEventKind::Intervention : RunEventKind::TimedEvent, node, detail);
        // Then the policies hear of each one online, as of a device coming back.
        for (int n : joined)
            if (nodes.online(n) && !host_.stopped()) {
                host_.emit(RunEventKind::Online, n, "joined");
                if (policiesStarted_) host_.announceOnline(n);
            }
        return;
    }
    case Action::Policy: {
        host_.setPolicyParam(e.policyOf, e.policyParam, e.policyValue);
        break;
    }
    }
    host_.emit(intervention ? RunEventKind::Intervention : RunEventKind::TimedEvent, node, detail);
}

std::string TimedEvents::describe(const TimedEvent& e) const {
    std::string s = toString(e.action);
    switch (e.action) {
    case Action::Link:
        s += " " + e.target + (e.linkTo.empty() ? std::string() : " -> " + e.linkTo);
        if (e.bandwidthUpMbps) s += " up=" + formatNumber(*e.bandwidthUpMbps) + " Mbit/s";
        if (e.bandwidthDownMbps) s += " down=" + formatNumber(*e.bandwidthDownMbps) + " Mbit/s";
        if (e.latencyMs) s += " latency=" + formatNumber(*e.latencyMs) + " ms";
        break;
    case Action::Node:
        s += " " + e.target;
        if (e.pricePerHour) s += " price=" + formatNumber(*e.pricePerHour) + "/h";
        if (e.throughput) s += " throughput=" + formatNumber(*e.throughput) + " samples/s";
        break;
    case Action::Offline:
    case Action::Online:
        s += " " + e.target;
        if (e.fraction) s += " fraction=" + formatNumber(*e.fraction);
        break;
    case Action::Add:
    case Action::Remove: s += " " + e.target + " " + std::to_string(e.count); break;
    case Action::Policy: s += " " + e.policyOf + "." + e.policyParam + "=" + formatNumber(e.policyValue); break;
    }
    switch (e.trigger.kind) {
    case TK::At: break;
    case TK::Round: s += " (when round >= " + formatNumber(e.trigger.value) + ")"; break;
    case TK::Accuracy: s += " (when accuracy >= " + formatNumber(e.trigger.value) + ")"; break;
    case TK::Cost: s += " (when cost >= " + formatNumber(e.trigger.value) + ")"; break;
    }
    return s;
}

} // namespace fog
