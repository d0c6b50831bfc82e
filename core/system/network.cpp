#include "core/system/network.h"

#include <algorithm>
#include <queue>

namespace fog {

namespace {

/// The stem of a group member's id ("phone-3-42" -> "phone-3-*"): names a shared link.
std::string memberStem(const std::string& id) {
    const auto dash = id.rfind('-');
    return dash == std::string::npos ? id : id.substr(0, dash + 1) + "*";
}

double bitsPerSecond(double mbps) { return mbps * 1e6; }

} // namespace

Network::Network(const Topology& topology, Schedule schedule, Charge charge, RunObserver* observer)
    : topo_(topology), schedule_(std::move(schedule)), charge_(std::move(charge)), observer_(observer) {
    const int n = topo_.size();
    upRes_.assign(static_cast<std::size_t>(n), -1);
    nicRes_.assign(static_cast<std::size_t>(n), -1);
    auto add = [this](std::string id, const char* kind, int from, int to, double mbps) {
        const int r = static_cast<int>(res_.size());
        Resource x;
        x.capacity = bitsPerSecond(mbps);
        res_.push_back(std::move(x));
        info_.push_back({r, std::move(id), kind, from, to, bitsPerSecond(mbps) / 8.0, 1});
        return r;
    };
    const TopologySpec& spec = topo_.spec();
    std::map<std::pair<int, int>, int> shared; // (entry, parent member) -> its up resource
    for (int i = 0; i < n; ++i) {
        const LinkParams* l = topo_.uplink(i);
        const int p = topo_.parent(i);
        if (!l || p < 0) continue;
        const NodeSpec& e = topo_.entry(i);
        const bool isShared = e.group && e.linkSharing.value_or(spec.linkSharing) == LinkSharing::Shared;
        if (isShared) {
            const auto key = std::make_pair(topo_.entryIndex(i), p);
            if (const auto it = shared.find(key); it != shared.end()) {
                upRes_[static_cast<std::size_t>(i)] = it->second;
                ++info_[static_cast<std::size_t>(it->second)].members;
                ++info_[static_cast<std::size_t>(it->second) + 1].members;
                continue;
            }
        }
        const std::string self = isShared ? memberStem(topo_.id(i)) : topo_.id(i);
        const int up = add(self + " -> " + topo_.id(p), "up", isShared ? -1 : i, p, l->bandwidthUpMbps);
        add(topo_.id(p) + " -> " + self, "down", p, isShared ? -1 : i, l->bandwidthDownMbps);
        upRes_[static_cast<std::size_t>(i)] = up;
        if (isShared) shared.emplace(std::make_pair(topo_.entryIndex(i), p), up);
    }
    for (int k = 0; k < topo_.explicitLinkCount(); ++k) {
        const auto [a, b] = topo_.explicitLinkEnds(k);
        const LinkParams& l = topo_.explicitLinkParams(k);
        explicitRes_.push_back(add(topo_.id(a) + " -> " + topo_.id(b), "link", a, b, l.bandwidthUpMbps));
        add(topo_.id(b) + " -> " + topo_.id(a), "link", b, a, l.bandwidthDownMbps);
    }
    for (int i = 0; i < n; ++i) {
        const double nic = topo_.entry(i).nicMbps;
        if (nic <= 0) continue;
        nicRes_[static_cast<std::size_t>(i)] = add("nic out: " + topo_.id(i), "nic-out", i, i, nic);
        add("nic in: " + topo_.id(i), "nic-in", i, i, nic);
    }
}

int Network::linkResource(const PathHop& h) const {
    const int base = h.child >= 0 ? upRes_[static_cast<std::size_t>(h.child)]
                                   : explicitRes_[static_cast<std::size_t>(h.explicitLink)];
    return base + (h.up ? 0 : 1);
}

double Network::rateOf(std::uint64_t id) const {
    const auto it = transfers_.find(id);
    if (it == transfers_.end() || it->second.flow < 0) return 0.0;
    return flows_[static_cast<std::size_t>(it->second.flow)].rate / 8.0;
}

// ---------------------------------------------------------------- transfers

std::uint64_t Network::start(int from, int to, double bytes, double now, bool model, std::function<void()> done) {
    const std::uint64_t id = nextId_++;
    ++stats_.transfers;
    Xfer& x = transfers_[id];
    x.from = from;
    x.to = to;
    x.bytes = bytes;
    x.t0 = now;
    x.done = std::move(done);
    x.hops = topo_.path(from, to);
    if (x.hops.empty()) {
        // No link on the path: instantaneous and free, the bytes count once (docs/network.md).
        charge_({from, from, 0, bytes, nullptr});
        observer_->onMessage({id, from, to, now, now, bytes, model});
        schedule_(now, [this, id, now] { hopArrived(id, now); });
        return id;
    }
    x.ideal = topo_.transfer(from, to, bytes).seconds;
    startHop(id, x, now);
    // Projected arrival: this hop at its current rate, the others alone on their links.
    const Flow& f = flows_[static_cast<std::size_t>(x.flow)];
    double arrive = f.end + x.hops[0].link->latencyMs / 1000.0;
    for (std::size_t k = 1; k < x.hops.size(); ++k) {
        const LinkParams& l = *x.hops[k].link;
        arrive += l.latencyMs / 1000.0 + bytes * 8.0 / bitsPerSecond(x.hops[k].up ? l.bandwidthUpMbps : l.bandwidthDownMbps);
    }
    observer_->onMessage({id, from, to, now, arrive, bytes, model});
    return id;
}

int Network::newFlow() {
    if (!freeFlows_.empty()) {
        const int f = freeFlows_.back();
        freeFlows_.pop_back();
        flows_[static_cast<std::size_t>(f)] = Flow{};
        return f;
    }
    flows_.emplace_back();
    return static_cast<int>(flows_.size()) - 1;
}

void Network::attach(int f) {
    Flow& fl = flows_[static_cast<std::size_t>(f)];
    for (int k = 0; k < fl.nres; ++k) {
        auto& list = res_[static_cast<std::size_t>(fl.res[k])].flows;
        fl.pos[k] = static_cast<int>(list.size());
        list.push_back(f);
    }
}

void Network::detach(int f, std::vector<int>& dirty) {
    Flow& fl = flows_[static_cast<std::size_t>(f)];
    for (int k = 0; k < fl.nres; ++k) {
        const int r = fl.res[k];
        auto& list = res_[static_cast<std::size_t>(r)].flows;
        const int at = fl.pos[k];
        const int moved = list.back();
        list[static_cast<std::size_t>(at)] = moved;
        list.pop_back();
        if (moved != f) {
            Flow& m = flows_[static_cast<std::size_t>(moved)];
            for (int j = 0; j < m.nres; ++j)
                if (m.res[j] == r) m.pos[j] = at;
        }
        dirty.push_back(r);
    }
    fl.active = false;
}

void Network::startHop(std::uint64_t id, Xfer& x, double now) {
    const PathHop& h = x.hops[x.hop];
    const int f = newFlow();
    Flow& fl = flows_[static_cast<std::size_t>(f)];
    fl.bits = x.bytes * 8.0;
    fl.remaining = fl.bits;
    fl.last = now;
    fl.transfer = id;
    fl.active = true;
    fl.res[fl.nres++] = linkResource(h);
    if (const int out = nicRes_[static_cast<std::size_t>(h.sender)]; out >= 0) fl.res[fl.nres++] = out;
    if (const int in = nicRes_[static_cast<std::size_t>(h.receiver)]; in >= 0) fl.res[fl.nres++] = in + 1;
    attach(f);
    x.flow = f;
    ++flowsMoving_;
    ++stats_.flowEvents;
    stats_.maxConcurrent = std::max<std::uint64_t>(stats_.maxConcurrent, flowsMoving_);
    const std::vector<int> dirty(fl.res, fl.res + fl.nres);
    recompute(dirty, now);
    armWakeup();
}

void Network::hopSent(std::uint64_t id, double now) {
    Xfer& x = transfers_.at(id);
    const PathHop& h = x.hops[x.hop];
    const int f = x.flow;
    const Flow& fl = flows_[static_cast<std::size_t>(f)];
    const LinkParams& l = *h.link;
    const double mbps = h.up ? l.bandwidthUpMbps : l.bandwidthDownMbps;
    charge_({x.from, h.sender, static_cast<int>(x.hop), x.bytes, h.link});
    // Topology::transfer's term for this hop, summed in the same way.
    x.acc += l.latencyMs / 1000.0 + x.bytes * 8.0 / (mbps * 1e6);
    x.undisturbed = x.undisturbed && !fl.disturbed && fl.rate == bitsPerSecond(mbps);
    freeFlows_.push_back(f);
    x.flow = -1;
    // Alone all the way: exactly Topology::transfer's arrival; else latency after the last byte.
    double t = now + l.latencyMs / 1000.0;
    if (x.undisturbed) t = x.hop + 1 == x.hops.size() ? x.t0 + x.ideal : x.t0 + x.acc;
    t = std::max(t, now);
    schedule_(t, [this, id, t] { hopArrived(id, t); });
}

void Network::hopArrived(std::uint64_t id, double now) {
    const auto it = transfers_.find(id);
    if (it == transfers_.end()) return; // cut meanwhile
    Xfer& x = it->second;
    if (!x.hops.empty()) ++x.hop;
    if (x.hop < x.hops.size()) {
        startHop(id, x, now);
        return;
    }
    std::function<void()> done = std::move(x.done);
    transfers_.erase(it);
    observer_->onMessageEnd(id, now, true);
    if (done) done();
}

void Network::cut(std::uint64_t id, double now) {
    const auto it = transfers_.find(id);
    if (it == transfers_.end()) return;
    Xfer& x = it->second;
    if (x.flow >= 0) {
        const int f = x.flow;
        Flow& fl = flows_[static_cast<std::size_t>(f)];
        const double left = std::max(0.0, fl.remaining - fl.rate * (now - fl.last));
        const PathHop& h = x.hops[x.hop];
        charge_({x.from, h.sender, static_cast<int>(x.hop), std::max(0.0, fl.bits - left) / 8.0, h.link});
        ends_.erase({fl.end, f});
        std::vector<int> dirty;
        detach(f, dirty);
        --flowsMoving_;
        ++stats_.flowEvents;
        freeFlows_.push_back(f);
        recompute(dirty, now);
        armWakeup();
    }
    transfers_.erase(it);
    observer_->onMessageEnd(id, now, false);
}

void Network::finish(double now) {
    // Every transfer still moving is cut: the bytes sent so far are charged (no recompute:
    // nothing moves after the end).
    for (auto& [id, x] : transfers_) {
        if (x.flow >= 0) {
            const Flow& fl = flows_[static_cast<std::size_t>(x.flow)];
            const double left = std::max(0.0, fl.remaining - fl.rate * (now - fl.last));
            const PathHop& h = x.hops[x.hop];
            charge_({x.from, h.sender, static_cast<int>(x.hop), std::max(0.0, fl.bits - left) / 8.0, h.link});
        }
        observer_->onMessageEnd(id, now, false);
    }
    transfers_.clear();
    ends_.clear();
    for (std::size_t r = 0; r < res_.size(); ++r) {
        closeSpan(static_cast<int>(r), now);
        res_[r].flows.clear();
        res_[r].spanFlows = 0;
        res_[r].usedRate = 0.0;
    }
    flowsMoving_ = 0;
    flush(true);
}

// ---------------------------------------------------------------- rates

void Network::recompute(const std::vector<int>& dirty, double now) {
    ++stats_.recomputes;
    const std::uint64_t epoch = ++epoch_;
    compRes_.clear();
    compFlows_.clear();
    stack_.clear();
    // The connected component of the changed capacities: flows sharing a capacity with them,
    // transitively. Rates elsewhere cannot change.
    for (int r : dirty)
        if (res_[static_cast<std::size_t>(r)].mark != epoch) {
            res_[static_cast<std::size_t>(r)].mark = epoch;
            stack_.push_back(r);
        }
    while (!stack_.empty()) {
        const int r = stack_.back();
        stack_.pop_back();
        compRes_.push_back(r);
        for (int f : res_[static_cast<std::size_t>(r)].flows) {
            Flow& fl = flows_[static_cast<std::size_t>(f)];
            if (fl.mark == epoch) continue;
            fl.mark = epoch;
            fl.fixed = false;
            compFlows_.push_back(f);
            for (int k = 0; k < fl.nres; ++k) {
                Resource& x = res_[static_cast<std::size_t>(fl.res[k])];
                if (x.mark == epoch) continue;
                x.mark = epoch;
                stack_.push_back(fl.res[k]);
            }
        }
    }
    stats_.flowsRecomputed += compFlows_.size();
    stats_.maxComponent = std::max<std::uint64_t>(stats_.maxComponent, compFlows_.size());

    // Progressive filling: the capacity with the smallest fair share fixes its flows at that
    // share; their other capacities lose it; repeat. Ties break by capacity index.
    using Entry = std::pair<double, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    auto share = [](const Resource& x) { return std::max(0.0, x.left) / x.unfixed; };
    for (int r : compRes_) {
        Resource& x = res_[static_cast<std::size_t>(r)];
        x.left = x.capacity;
        x.unfixed = static_cast<int>(x.flows.size());
        if (x.unfixed > 0) heap.push({share(x), r});
    }
    std::size_t fixedCount = 0;
    std::vector<std::pair<int, double>> fixedRates; // (flow, its new rate)
    fixedRates.reserve(compFlows_.size());
    while (!heap.empty() && fixedCount < compFlows_.size()) {
        const auto [s, r] = heap.top();
        heap.pop();
        Resource& x = res_[static_cast<std::size_t>(r)];
        if (x.unfixed == 0 || s != share(x)) continue; // stale
        for (int f : x.flows) {
            Flow& fl = flows_[static_cast<std::size_t>(f)];
            if (fl.fixed) continue;
            fl.fixed = true;
            ++fixedCount;
            fixedRates.push_back({f, s});
            for (int k = 0; k < fl.nres; ++k) {
                Resource& y = res_[static_cast<std::size_t>(fl.res[k])];
                y.left -= s;
                --y.unfixed;
                if (fl.res[k] != r && y.unfixed > 0) heap.push({share(y), fl.res[k]});
            }
        }
    }
    for (const auto& [f, rate] : fixedRates) {
        Flow& fl = flows_[static_cast<std::size_t>(f)];
        if (rate == fl.rate) continue;
        if (fl.rate > 0) {
            fl.remaining = std::max(0.0, fl.remaining - fl.rate * (now - fl.last));
            fl.disturbed = true;
            ends_.erase({fl.end, f});
        }
        fl.last = now;
        fl.rate = rate;
        fl.end = rate > 0 ? now + fl.remaining / rate : now + 1e300;
        ends_.insert({fl.end, f});
    }
    // Usage spans of the capacities whose load changed.
    for (int r : compRes_) {
        Resource& x = res_[static_cast<std::size_t>(r)];
        double sum = 0.0;
        for (int f : x.flows) sum += flows_[static_cast<std::size_t>(f)].rate;
        const int count = static_cast<int>(x.flows.size());
        if (sum == x.usedRate && count == x.spanFlows) continue;
        closeSpan(r, now);
        x.usedRate = sum;
        x.spanFlows = count;
    }
    flush(false);
}

void Network::closeSpan(int r, double now) {
    Resource& x = res_[static_cast<std::size_t>(r)];
    if (x.spanFlows > 0 && now > x.spanStart) usage_.push_back({r, x.spanStart, now, x.usedRate / 8.0, x.spanFlows});
    x.spanStart = now;
}

void Network::flush(bool force) {
    if (usage_.empty() || (!force && usage_.size() < 256)) return;
    observer_->onLinkUsage(usage_);
    usage_.clear();
}

// ---------------------------------------------------------------- events

void Network::armWakeup() {
    if (ends_.empty()) return;
    const double t = ends_.begin()->first;
    if (!wakeups_.empty() && *wakeups_.begin() <= t) return;
    wakeups_.insert(t);
    schedule_(t, [this, t] { wake(t); });
}

void Network::wake(double t) {
    if (const auto w = wakeups_.find(t); w != wakeups_.end()) wakeups_.erase(w);
    std::vector<int> due;
    while (!ends_.empty() && ends_.begin()->first <= t) {
        due.push_back(ends_.begin()->second);
        ends_.erase(ends_.begin());
    }
    if (!due.empty()) {
        std::vector<int> dirty;
        for (int f : due) {
            detach(f, dirty);
            --flowsMoving_;
            ++stats_.flowEvents;
        }
        recompute(dirty, t);
        for (int f : due) hopSent(flows_[static_cast<std::size_t>(f)].transfer, t);
    }
    armWakeup();
}

} // namespace fog
