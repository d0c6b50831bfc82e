#include "core/system/topology.h"

#include "core/util/random.h"

#include <algorithm>
#include <stdexcept>

namespace fog {

namespace {
double draw(const Range& r, Rng& rng) { return r.isExact() ? r.min : rng.uniform(r.min, r.max); }
} // namespace

Topology::Topology(const TopologySpec& spec, std::uint64_t seed) {
    auto add = [this](NodeSpec s) {
        Node n;
        n.index = static_cast<int>(nodes_.size());
        n.throughput = s.compute.throughput.min;
        n.trains = s.role != Role::Aggregator;
        n.aggregates = s.role != Role::Trainer;
        n.spec = std::move(s);
        byId_[n.spec.id] = n.index;
        nodes_.push_back(std::move(n));
    };
    for (const auto& s : spec.nodes) {
        NodeSpec copy = s;
        add(copy);
    }
    for (const auto& g : spec.groups) {
        // Each group draws from its own stream, so adding a group leaves the others' draws.
        Rng rng(deriveSeed(seed, hashName("group:" + g.id)));
        for (int i = 0; i < g.count; ++i) {
            NodeSpec s;
            s.id = g.id + "-" + std::to_string(i);
            s.tier = g.tier;
            s.role = g.role;
            s.parent = g.parent;
            s.region = g.region;
            s.compute = g.compute;
            s.compute.throughput = Range::exactly(draw(g.compute.throughput, rng));
            s.availability = g.availability;
            s.pricePerHour = draw(g.pricePerHour, rng);
            s.energy = g.energy;
            s.dataShare = draw(g.dataShare, rng);
            s.link = g.link;
            s.line = g.line;
            add(std::move(s));
        }
    }
    for (auto& n : nodes_) {
        if (!n.spec.parent.empty()) n.parent = indexOf(n.spec.parent);
        if (n.spec.link) {
            n.uplink = *n.spec.link;
            n.hasUplink = true;
        } else if (spec.hasDefaultLink && n.parent >= 0) {
            n.uplink = spec.defaultLink;
            n.hasUplink = true;
        }
    }
    for (auto& n : nodes_) {
        for (int p = n.parent; p >= 0; p = nodes_[p].parent)
            if (nodes_[p].aggregates) {
                n.aggregator = p;
                break;
            }
    }
    for (const auto& l : spec.links) links_[{indexOf(l.from), indexOf(l.to)}] = l.params;
}

int Topology::indexOf(const std::string& id) const {
    auto it = byId_.find(id);
    if (it == byId_.end()) throw std::out_of_range("unknown node '" + id + "'");
    return it->second;
}

std::vector<int> Topology::trainers() const {
    std::vector<int> out;
    for (const auto& n : nodes_)
        if (n.trains && n.aggregator >= 0) out.push_back(n.index);
    return out;
}

std::vector<int> Topology::rootAggregators() const {
    std::vector<int> out;
    for (const auto& n : nodes_)
        if (n.aggregates && n.aggregator < 0) out.push_back(n.index);
    return out;
}

std::vector<int> Topology::trainersOf(int aggregator) const {
    std::vector<int> out;
    for (const auto& n : nodes_)
        if (n.trains && n.aggregator == aggregator) out.push_back(n.index);
    return out;
}

std::vector<int> Topology::childAggregatorsOf(int aggregator) const {
    std::vector<int> out;
    for (const auto& n : nodes_)
        if (n.aggregates && n.aggregator == aggregator) out.push_back(n.index);
    return out;
}

double Topology::hopSeconds(const LinkParams& l, bool up, double bytes) {
    const double mbps = up ? l.bandwidthUpMbps : l.bandwidthDownMbps;
    return l.latencyMs / 1000.0 + bytes * 8.0 / (mbps * 1e6);
}

const LinkParams* Topology::directLink(int from, int to, bool& forward) const {
    if (auto it = links_.find({from, to}); it != links_.end()) {
        forward = true;
        return &it->second;
    }
    if (auto it = links_.find({to, from}); it != links_.end()) {
        forward = false;
        return &it->second;
    }
    return nullptr;
}

Transfer Topology::transfer(int from, int to, double bytes) const {
    Transfer t;
    if (from == to || bytes < 0) return t;
    bool forward = true;
    if (const LinkParams* l = directLink(from, to, forward)) {
        t.seconds = hopSeconds(*l, forward, bytes);
        t.price = l->pricePerGb * bytes / 1e9;
        return t;
    }
    // Path up from `from` to the lowest common ancestor, then down to `to`.
    std::vector<int> upFrom, upTo;
    for (int n = from; n >= 0; n = nodes_[n].parent) upFrom.push_back(n);
    for (int n = to; n >= 0; n = nodes_[n].parent) upTo.push_back(n);
    int lca = -1;
    for (int a : upFrom)
        if (std::find(upTo.begin(), upTo.end(), a) != upTo.end()) {
            lca = a;
            break;
        }
    auto hop = [&](int child, bool up) {
        const Node& n = nodes_[child];
        if (!n.hasUplink) return;
        t.seconds += hopSeconds(n.uplink, up, bytes);
        t.price += n.uplink.pricePerGb * bytes / 1e9;
    };
    if (lca < 0) {
        // Two trees joined by nothing: treat as instantaneous (the validator warns of this).
        return t;
    }
    for (int n : upFrom) {
        if (n == lca) break;
        hop(n, true);
    }
    for (int n : upTo) {
        if (n == lca) break;
        hop(n, false);
    }
    return t;
}

} // namespace fog
