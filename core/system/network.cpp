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

double bitsPerSecond(double mbps) {
    return mbps * 1e6;
}

} // namespace

Network::Network(const Topology& topology, Schedule schedule, Charge charge, RunObserver* observer)
    : topo_(topology), schedule_(std::move(schedule)), charge_(std::move(charge)),
      observer_(observer) {
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
        const bool isShared =
            e.group && e.linkSharing.value_or(spec.linkSharing) == LinkSharing::Shared;
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
        const int up =
            add(self + " -> " + topo_.id(p), "up", isShared ? -1 : i, p, l->bandwidthUpMbps);
        add(topo_.id(p) + " -> " + self, "down", p, isShared ? -1 : i, l->bandwidthDownMbps);
        upRes_[static_cast<std::size_t>(i)] = up;
        if (isShared) shared.emplace(std::make_pair(topo_.entryIndex(i), p), up);
    }
    for (int k = 0; k < topo_.explicitLinkCount(); ++k) {
        const auto [a, b] = topo_.explicitLinkEnds(k);
        const LinkParams& l = topo_.explicitLinkParams(k);
        explicitRes_.push_back(
            add(topo_.id(a) + " -> " + topo_.id(b), "link", a, b, l.bandwidthUpMbps));
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
    return classes_[static_cast<std::size_t>(flows_[static_cast<std::size_t>(it->second.flow)].cls)]
               .rate /
           8.0;
}

// ---------------------------------------------------------------- transfers

std::uint64_t Network::start(int from, int to, double bytes, double now, bool model,
                             std::function<void()> done) {
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
        charge_({from, from, 0, bytes, nullptr, to});
        observer_->onMessage({id, from, to, now, now, bytes, model});
        schedule_(now, [this, id, now] { hopArrived(id, now); });
        return id;
    }
    x.ideal = topo_.transfer(from, to, bytes).seconds;
    // The latencies of every hop are fixed now (the rule in network.h).
    for (const PathHop& h : x.hops) {
        x.latencyS.push_back(h.link->latencyMs / 1000.0);
        x.startMbps.push_back(h.up ? h.link->bandwidthUpMbps : h.link->bandwidthDownMbps);
    }
    startHop(id, x, now);
    // Projected arrival: this hop at its current rate, the others alone on their links.
    const Flow& f = flows_[static_cast<std::size_t>(x.flow)];
    const Class& c = classes_[static_cast<std::size_t>(f.cls)];
    double arrive = now + f.bits / c.rate + x.latencyS[0];
    for (std::size_t k = 1; k < x.hops.size(); ++k)
        arrive += x.latencyS[k] + bytes * 8.0 / bitsPerSecond(x.startMbps[k]);
    observer_->onMessage({id, from, to, now, arrive, bytes, model});
    return id;
}

int Network::classFor(const int* res, int nres) {
    std::array<int, 3> key{-1, -1, -1};
    for (int k = 0; k < nres; ++k)
        key[static_cast<std::size_t>(k)] = res[k];
    const auto it = classOf_.find(key);
    if (it != classOf_.end()) return it->second;
    const int c = static_cast<int>(classes_.size());
    classes_.emplace_back();
    Class& x = classes_.back();
    x.nres = nres;
    for (int k = 0; k < nres; ++k)
        x.res[k] = res[k];
    classOf_.emplace(key, c);
    return c;
}

double Network::bitsLeft(int f, double now) const {
    const Flow& fl = flows_[static_cast<std::size_t>(f)];
    const Class& c = classes_[static_cast<std::size_t>(fl.cls)];
    const double served = c.served + c.rate * (now - c.last);
    return std::clamp(fl.tag - served, 0.0, fl.bits);
}

void Network::startHop(std::uint64_t id, Xfer& x, double now) {
    const PathHop& h = x.hops[x.hop];
    int res[3];
    int nres = 0;
    res[nres++] = linkResource(h);
    if (const int out = nicRes_[static_cast<std::size_t>(h.sender)]; out >= 0) res[nres++] = out;
    if (const int in = nicRes_[static_cast<std::size_t>(h.receiver)]; in >= 0) res[nres++] = in + 1;
    const int c = classFor(res, nres);
    int f;
    if (!freeFlows_.empty()) {
        f = freeFlows_.back();
        freeFlows_.pop_back();
    } else {
        f = static_cast<int>(flows_.size());
        flows_.emplace_back();
    }
    Class& cl = classes_[static_cast<std::size_t>(c)];
    if (cl.count == 0) {
        // A class filling again starts its service count afresh (a lone flow's end is then
        // exactly start + bits / rate).
        cl.served = 0.0;
        cl.last = now;
        cl.rate = 0.0;
        for (int k = 0; k < cl.nres; ++k) {
            auto& list = res_[static_cast<std::size_t>(cl.res[k])].classes;
            cl.pos[k] = static_cast<int>(list.size());
            list.push_back(c);
        }
    }
    Flow& fl = flows_[static_cast<std::size_t>(f)];
    fl = Flow{};
    fl.bits = x.bytes * 8.0;
    fl.cls = c;
    fl.transfer = id;
    fl.tag = (cl.served + cl.rate * (now - cl.last)) + fl.bits;
    if (cl.count == 0) fl.tag = fl.bits;
    cl.tags.insert({fl.tag, f});
    ++cl.count;
    x.flow = f;
    ++flowsMoving_;
    ++stats_.flowEvents;
    stats_.maxConcurrent = std::max<std::uint64_t>(stats_.maxConcurrent, flowsMoving_);
    const std::vector<int> dirty(res, res + nres);
    recompute(dirty, now);
    refreshEnd(c); // its smallest tag may be the new flow's
    flows_[static_cast<std::size_t>(f)].epoch = classes_[static_cast<std::size_t>(c)].epoch;
    armWakeup();
}

void Network::removeFlow(int f, std::vector<int>& dirty) {
    Flow& fl = flows_[static_cast<std::size_t>(f)];
    Class& cl = classes_[static_cast<std::size_t>(fl.cls)];
    cl.tags.erase({fl.tag, f});
    --cl.count;
    --flowsMoving_;
    ++stats_.flowEvents;
    for (int k = 0; k < cl.nres; ++k)
        dirty.push_back(cl.res[k]);
    if (cl.count > 0) return;
    // Empty: out of its capacities' lists and of the ends.
    ends_.erase({cl.end, fl.cls});
    for (int k = 0; k < cl.nres; ++k) {
        const int r = cl.res[k];
        auto& list = res_[static_cast<std::size_t>(r)].classes;
        const int at = cl.pos[k];
        const int moved = list.back();
        list[static_cast<std::size_t>(at)] = moved;
        list.pop_back();
        if (moved != fl.cls) {
            Class& m = classes_[static_cast<std::size_t>(moved)];
            for (int j = 0; j < m.nres; ++j)
                if (m.res[j] == r) m.pos[j] = at;
        }
    }
    cl.rate = 0.0;
    cl.served = 0.0;
}

void Network::hopSent(int f, double now, bool steady, double rate) {
    const std::uint64_t id = flows_[static_cast<std::size_t>(f)].transfer;
    freeFlows_.push_back(f);
    Xfer& x = transfers_.at(id);
    const PathHop& h = x.hops[x.hop];
    const LinkParams& l = *h.link;
    const double mbps = h.up ? l.bandwidthUpMbps : l.bandwidthDownMbps;
    const double latency = x.latencyS[x.hop]; // as the transfer started (network.h)
    charge_({x.from, h.sender, static_cast<int>(x.hop), x.bytes, h.link, h.receiver});
    // Topology::transfer's term for this hop, summed in the same way.
    x.acc += latency + x.bytes * 8.0 / (mbps * 1e6);
    // Undisturbed: one rate from start to end, the link's whole bandwidth.
    x.undisturbed = x.undisturbed && steady && rate == bitsPerSecond(mbps);
    x.asStarted = x.asStarted && mbps == x.startMbps[x.hop];
    x.flow = -1;
    // Alone all the way: exactly Topology::transfer's arrival (when no bandwidth on the path
    // changed since the start, else the same sum with the bandwidths it had); else the
    // latency after the last byte. The latency is the start's in all three.
    double t = now + latency;
    if (x.undisturbed)
        t = x.hop + 1 == x.hops.size() && x.asStarted ? x.t0 + x.ideal : x.t0 + x.acc;
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
        const double sent = flows_[static_cast<std::size_t>(f)].bits - bitsLeft(f, now);
        const PathHop& h = x.hops[x.hop];
        charge_({x.from, h.sender, static_cast<int>(x.hop), sent / 8.0, h.link, h.receiver});
        const int c = flows_[static_cast<std::size_t>(f)].cls;
        std::vector<int> dirty;
        removeFlow(f, dirty);
        freeFlows_.push_back(f);
        recompute(dirty, now);
        refreshEnd(c);
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
            const PathHop& h = x.hops[x.hop];
            const double sent =
                flows_[static_cast<std::size_t>(x.flow)].bits - bitsLeft(x.flow, now);
            charge_({x.from, h.sender, static_cast<int>(x.hop), sent / 8.0, h.link, h.receiver});
        }
        observer_->onMessageEnd(id, now, false);
    }
    transfers_.clear();
    ends_.clear();
    for (std::size_t r = 0; r < res_.size(); ++r) {
        closeSpan(static_cast<int>(r), now);
        res_[r].classes.clear();
        res_[r].spanFlows = 0;
        res_[r].usedRate = 0.0;
    }
    for (auto& c : classes_) {
        c.count = 0;
        c.tags.clear();
    }
    flowsMoving_ = 0;
    flush(true);
}

void Network::linksChanged(const std::vector<int>& children, const std::vector<int>& explicitLinks, double now) {
    std::vector<int> dirty;
    auto set = [&](int r, double upMbps, double downMbps) {
        for (int k = 0; k < 2; ++k) {
            const double bps = bitsPerSecond(k == 0 ? upMbps : downMbps);
            Resource& x = res_[static_cast<std::size_t>(r + k)];
            if (x.capacity == bps) continue;
            x.capacity = bps;
            info_[static_cast<std::size_t>(r + k)].capacityBytesPerS = bps / 8.0;
            dirty.push_back(r + k);
        }
    };
    for (int i : children) {
        const int r = upRes_[static_cast<std::size_t>(i)];
        const LinkParams* l = topo_.uplink(i);
        if (r >= 0 && l) set(r, l->bandwidthUpMbps, l->bandwidthDownMbps);
    }
    for (int k : explicitLinks) {
        const LinkParams& l = topo_.explicitLinkParams(k);
        set(explicitRes_[static_cast<std::size_t>(k)], l.bandwidthUpMbps, l.bandwidthDownMbps);
    }
    if (dirty.empty()) return;
    recompute(dirty, now);
    armWakeup();
}

// ---------------------------------------------------------------- rates

void Network::recompute(const std::vector<int>& dirty, double now) {
    ++stats_.recomputes;
    const std::uint64_t epoch = ++epoch_;
    compRes_.clear();
    compClasses_.clear();
    stack_.clear();
    // The connected component of the changed capacities: classes sharing a capacity with
    // them, transitively. Rates elsewhere cannot change.
    for (int r : dirty)
        if (res_[static_cast<std::size_t>(r)].mark != epoch) {
            res_[static_cast<std::size_t>(r)].mark = epoch;
            stack_.push_back(r);
        }
    std::uint64_t flows = 0;
    while (!stack_.empty()) {
        const int r = stack_.back();
        stack_.pop_back();
        compRes_.push_back(r);
        for (int c : res_[static_cast<std::size_t>(r)].classes) {
            Class& cl = classes_[static_cast<std::size_t>(c)];
            if (cl.mark == epoch) continue;
            cl.mark = epoch;
            cl.fixed = false;
            compClasses_.push_back(c);
            flows += static_cast<std::uint64_t>(cl.count);
            for (int k = 0; k < cl.nres; ++k) {
                Resource& x = res_[static_cast<std::size_t>(cl.res[k])];
                if (x.mark == epoch) continue;
                x.mark = epoch;
                stack_.push_back(cl.res[k]);
            }
        }
    }
    stats_.classesRecomputed += compClasses_.size();
    stats_.flowsRecomputed += flows;
    stats_.maxComponent = std::max<std::uint64_t>(stats_.maxComponent, compClasses_.size());

    // Progressive filling: the capacity with the smallest fair share fixes its flows at that
    // share; their other capacities lose it; repeat. Ties break by capacity index.
    using Entry = std::pair<double, int>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    auto share = [](const Resource& x) { return std::max(0.0, x.left) / x.unfixed; };
    for (int r : compRes_) {
        Resource& x = res_[static_cast<std::size_t>(r)];
        x.left = x.capacity;
        x.unfixed = 0;
        for (int c : x.classes)
            x.unfixed += classes_[static_cast<std::size_t>(c)].count;
        if (x.unfixed > 0) heap.push({share(x), r});
    }
    std::size_t fixedCount = 0;
    std::vector<std::pair<int, double>> fixedRates; // (class, its new per-flow rate)
    fixedRates.reserve(compClasses_.size());
    while (!heap.empty() && fixedCount < compClasses_.size()) {
        const auto [s, r] = heap.top();
        heap.pop();
        Resource& x = res_[static_cast<std::size_t>(r)];
        if (x.unfixed == 0 || s != share(x)) continue; // stale
        for (int c : x.classes) {
            Class& cl = classes_[static_cast<std::size_t>(c)];
            if (cl.fixed) continue;
            cl.fixed = true;
            ++fixedCount;
            fixedRates.push_back({c, s});
            for (int k = 0; k < cl.nres; ++k) {
                Resource& y = res_[static_cast<std::size_t>(cl.res[k])];
                y.left -= s * cl.count;
                y.unfixed -= cl.count;
                if (cl.res[k] != r && y.unfixed > 0) heap.push({share(y), cl.res[k]});
            }
        }
    }
    for (const auto& [c, rate] : fixedRates) {
        Class& cl = classes_[static_cast<std::size_t>(c)];
        if (rate == cl.rate) continue;
        cl.served += cl.rate * (now - cl.last);
        cl.last = now;
        cl.rate = rate;
        ++cl.epoch;
        refreshEnd(c);
    }
    // Usage spans of the capacities whose load changed.
    for (int r : compRes_) {
        Resource& x = res_[static_cast<std::size_t>(r)];
        double sum = 0.0;
        int count = 0;
        for (int c : x.classes) {
            const Class& cl = classes_[static_cast<std::size_t>(c)];
            sum += cl.rate * cl.count;
            count += cl.count;
        }
        if (sum == x.usedRate && count == x.spanFlows) continue;
        closeSpan(r, now);
        x.usedRate = sum;
        x.spanFlows = count;
    }
    flush(false);
}

void Network::refreshEnd(int c) {
    Class& cl = classes_[static_cast<std::size_t>(c)];
    ends_.erase({cl.end, c});
    if (cl.count == 0) return;
    const double tag = cl.tags.begin()->first;
    cl.end = cl.rate > 0 ? cl.last + (tag - cl.served) / cl.rate : 1e300;
    ends_.insert({cl.end, c});
}

void Network::closeSpan(int r, double now) {
    Resource& x = res_[static_cast<std::size_t>(r)];
    if (x.spanFlows > 0 && now > x.spanStart)
        usage_.push_back({r, x.spanStart, now, x.usedRate / 8.0, x.spanFlows});
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
    // The classes whose smallest tag is reached: their flows with that tag (or one the
    // service has passed) are done.
    std::vector<int> due;
    std::vector<int> touched;
    while (!ends_.empty() && ends_.begin()->first <= t) {
        const int c = ends_.begin()->second;
        ends_.erase(ends_.begin());
        Class& cl = classes_[static_cast<std::size_t>(c)];
        const double served = cl.served + cl.rate * (t - cl.last);
        const double first = cl.tags.begin()->first;
        for (auto it = cl.tags.begin();
             it != cl.tags.end() && (it->first == first || it->first <= served); ++it)
            due.push_back(it->second);
        touched.push_back(c);
    }
    if (!due.empty()) {
        struct Done {
            int flow;
            bool steady; ///< its class's rate never changed while it moved
            double rate;
        };
        std::vector<Done> done;
        std::vector<int> dirty;
        for (int f : due) {
            const Flow& fl = flows_[static_cast<std::size_t>(f)];
            const Class& cl = classes_[static_cast<std::size_t>(fl.cls)];
            done.push_back({f, cl.epoch == fl.epoch, cl.rate});
            removeFlow(f, dirty);
        }
        recompute(dirty, t);
        for (int c : touched)
            refreshEnd(c);
        for (const Done& d : done)
            hopSent(d.flow, t, d.steady, d.rate);
    }
    armWakeup();
}

} // namespace fog
