#include "core/system/topology.h"

#include "core/spec/device_classes.h"
#include "core/util/random.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace fog {

namespace {

double draw(const Range& r, Rng& rng) {
    return r.isExact() ? r.min : rng.uniform(r.min, r.max);
}

std::uint64_t idHash(std::string_view id) {
    return std::hash<std::string_view>{}(id);
}

const std::string& noId() {
    static const std::string empty;
    return empty;
}

} // namespace

Topology::Topology(const TopologySpec& spec, std::uint64_t seed, const std::vector<int>& joining) : spec_(spec) {
    applyDeviceClasses(spec_); // a device class stands for its FLOP/s, power and interface
    const auto& entries = spec_.nodes;
    const std::size_t n = entries.size();
    // A group whose parent is another group's own id is nested: placed under every member
    // of that group (the validator keeps group ids apart from node and member ids).
    std::vector<int> nestedUnder(n, -1);
    for (std::size_t e = 0; e < n; ++e) {
        if (!entries[e].group || entries[e].parent.empty()) continue;
        const int p = spec_.find(entries[e].parent);
        if (p >= 0 && entries[static_cast<std::size_t>(p)].group) nestedUnder[e] = p;
    }
    // Members per entry: count, times the parent group's members when nested.
    std::vector<long long> total(n, -1);
    std::function<long long(std::size_t)> membersOf = [&](std::size_t e) -> long long {
        if (total[e] >= 0) return total[e];
        total[e] = 0; // a cycle (invalid scenario) counts as empty rather than recursing
        const long long own = entries[e].group ? std::max(0, entries[e].count) : 1;
        total[e] =
            nestedUnder[e] < 0 ? own : own * membersOf(static_cast<std::size_t>(nestedUnder[e]));
        return total[e];
    };
    // Nodes first, then groups, each in list order: the order of the file's two sections.
    std::vector<std::size_t> order;
    for (const bool groups : {false, true})
        for (std::size_t e = 0; e < n; ++e)
            if (entries[e].group == groups) order.push_back(e);
    std::vector<int> begin(n, 0);
    long long size = 0;
    for (std::size_t e : order) {
        begin[e] = static_cast<int>(size);
        size += membersOf(e);
    }
    // Members joining later (top-level groups only: the reader refuses the others) go after
    // everything else, so that every other node keeps its index.
    firstJoining_ = static_cast<int>(std::min<long long>(size, std::numeric_limits<int>::max()));
    std::vector<long long> joinAt(n, 0);
    auto joiningOf = [&](std::size_t e) {
        return e < joining.size() && entries[e].group && nestedUnder[e] < 0 ? std::max(0, joining[e]) : 0;
    };
    for (std::size_t e : order) {
        joinAt[e] = size;
        size += joiningOf(e);
    }
    if (size > static_cast<long long>(std::numeric_limits<int>::max()))
        throw std::length_error("topology: too many nodes to expand");
    members_.resize(static_cast<std::size_t>(size));
    ids_.resize(static_cast<std::size_t>(size));

    std::vector<char> filled(n, 0);
    std::function<void(std::size_t)> fill = [&](std::size_t e) {
        if (filled[e]) return;
        filled[e] = 1;
        const NodeSpec& s = entries[e];
        auto put = [&](std::size_t at, std::string id, Rng* rng, int parent) {
            Member& m = members_[at];
            m.entry = static_cast<std::uint32_t>(e);
            m.parent = parent;
            if (rng) {
                // Given in FLOP/s: the engine divides by the model's FLOPs per sample.
                m.throughput = draw(s.compute.flops.max > 0 ? s.compute.flops : s.compute.throughput, *rng);
                m.pricePerHour = draw(s.pricePerHour, *rng);
                m.dataShare = draw(s.dataShare, *rng);
            } else {
                m.throughput = s.compute.flops.max > 0 ? s.compute.flops.min : s.compute.throughput.min;
                m.pricePerHour = s.pricePerHour.min;
                m.dataShare = s.dataShare.min;
            }
            ids_[at] = std::move(id);
        };
        std::size_t at = static_cast<std::size_t>(begin[e]);
        if (!s.group) {
            put(at, s.id, nullptr, -1);
            return;
        }
        // A block of `count` members per parent member, each block drawing from its own
        // stream named like the block's ids: the nested form `phone` under group `site` draws
        // what ten groups `phone-0` .. `phone-9` under `site-0` .. `site-9` would.
        auto block = [&](const std::string& stem, int parent) {
            Rng rng(deriveSeed(seed, hashName("group:" + stem)));
            for (int k = 0; k < s.count; ++k)
                put(at++, stem + "-" + std::to_string(k), &rng, parent);
            // Joining members draw on from the same stream: the first `count` are unchanged.
            for (int k = 0; k < joiningOf(e); ++k)
                put(static_cast<std::size_t>(joinAt[e] + k), stem + "-" + std::to_string(s.count + k), &rng, parent);
        };
        const int pg = nestedUnder[e];
        if (pg < 0) {
            block(s.id, -1);
            return;
        }
        fill(static_cast<std::size_t>(pg));
        const std::size_t prefix = entries[static_cast<std::size_t>(pg)].id.size();
        const long long parents = total[static_cast<std::size_t>(pg)];
        for (long long j = 0; j < parents; ++j) {
            const int p = begin[static_cast<std::size_t>(pg)] + static_cast<int>(j);
            block(s.id + ids_[static_cast<std::size_t>(p)].substr(prefix), p);
        }
    };
    for (std::size_t e : order)
        fill(e);

    byHash_.reserve(ids_.size());
    for (std::size_t i = 0; i < ids_.size(); ++i)
        byHash_.emplace_back(idHash(ids_[i]), static_cast<int>(i));
    std::sort(byHash_.begin(), byHash_.end());

    // Parents named by node or member id: one look-up per entry, shared by its members.
    entryLinks_.resize(n);
    for (std::size_t e = 0; e < n; ++e) {
        const NodeSpec& s = entries[e];
        const long long count = total[e];
        if (count <= 0 && joiningOf(e) == 0) continue;
        int parent = -1;
        if (nestedUnder[e] < 0 && !s.parent.empty()) {
            parent = indexOf(s.parent);
            for (long long j = 0; j < count; ++j)
                members_[static_cast<std::size_t>(begin[e] + j)].parent = parent;
            for (long long j = 0; j < joiningOf(e); ++j)
                members_[static_cast<std::size_t>(joinAt[e] + j)].parent = parent;
        }
        const bool hasParent = !s.parent.empty();
        if (s.link)
            entryLinks_[e] = {*s.link, true};
        else if (spec_.hasDefaultLink && hasParent)
            entryLinks_[e] = {spec_.defaultLink, true};
    }

    // Nearest aggregating ancestor, memoised (a parent may come later in index order).
    constexpr int kUnknown = -2;
    for (auto& m : members_)
        m.aggregator = kUnknown;
    std::vector<int> walk;
    for (int i = 0; i < this->size(); ++i) {
        int x = i;
        walk.clear();
        int answer = -1;
        while (x >= 0 && members_[static_cast<std::size_t>(x)].aggregator == kUnknown) {
            walk.push_back(x);
            const int p = members_[static_cast<std::size_t>(x)].parent;
            if (p < 0) {
                answer = -1;
                x = -1;
                break;
            }
            if (aggregates(p)) {
                answer = p;
                x = -1;
                break;
            }
            x = p;
            if (walk.size() > members_.size()) break; // a cycle (invalid scenario)
        }
        if (x >= 0 && members_[static_cast<std::size_t>(x)].aggregator != kUnknown)
            answer = members_[static_cast<std::size_t>(x)].aggregator;
        for (int w : walk)
            members_[static_cast<std::size_t>(w)].aggregator = answer;
    }

    const int count = this->size();
    std::vector<int> trainerKey(static_cast<std::size_t>(count), -1),
        aggKey(static_cast<std::size_t>(count), -1);
    for (int i = 0; i < count; ++i) {
        const int a = aggregator(i);
        if (trains(i) && a >= 0) {
            trainers_.push_back(i);
            trainerKey[static_cast<std::size_t>(i)] = a;
        }
        if (aggregates(i)) {
            if (a < 0)
                roots_.push_back(i);
            else
                aggKey[static_cast<std::size_t>(i)] = a;
        }
    }
    auto bucket = [count](const std::vector<int>& key) {
        Buckets b;
        b.start.assign(static_cast<std::size_t>(count) + 1, 0);
        for (int k : key)
            if (k >= 0) ++b.start[static_cast<std::size_t>(k) + 1];
        for (std::size_t i = 1; i < b.start.size(); ++i)
            b.start[i] += b.start[i - 1];
        b.order.resize(static_cast<std::size_t>(b.start.back()));
        std::vector<int> next(b.start.begin(), b.start.end() - 1);
        for (int i = 0; i < count; ++i) {
            const int k = key[static_cast<std::size_t>(i)];
            if (k >= 0) b.order[static_cast<std::size_t>(next[static_cast<std::size_t>(k)]++)] = i;
        }
        return b;
    };
    trainersByAggregator_ = bucket(trainerKey);
    aggregatorsByAggregator_ = bucket(aggKey);

    for (const auto& l : spec_.links)
        links_.push_back({{indexOf(l.from), indexOf(l.to)}, l.params});
    // Sorted by (from, to) for look-up; of a pair declared twice the last declaration wins.
    std::stable_sort(links_.begin(), links_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<std::pair<int, int>, LinkParams>> unique;
    for (std::size_t i = 0; i < links_.size(); ++i)
        if (i + 1 == links_.size() || links_[i + 1].first != links_[i].first)
            unique.push_back(links_[i]);
    links_ = std::move(unique);
}

std::vector<int> Topology::Buckets::of(int key) const {
    if (key < 0 || static_cast<std::size_t>(key) + 1 >= start.size()) return {};
    return std::vector<int>(order.begin() + start[static_cast<std::size_t>(key)],
                            order.begin() + start[static_cast<std::size_t>(key) + 1]);
}

Node Topology::node(int i) const {
    const Member& m = members_[static_cast<std::size_t>(i)];
    const NodeSpec& s = spec_.nodes[m.entry];
    ComputeSpec compute = s.compute;
    compute.throughput = Range::exactly(m.throughput);
    const EntryLink& link = entryLinks_[m.entry];
    return Node{i,
                NodeFacts{ids_[static_cast<std::size_t>(i)], s.tier, s.role,
                          m.parent >= 0 ? ids_[static_cast<std::size_t>(m.parent)] : noId(),
                          s.region, compute, s.availability, m.pricePerHour, s.energy, m.dataShare,
                          s.link, s.line},
                m.throughput,
                m.parent,
                m.aggregator,
                roleTrains(s.role),
                roleAggregates(s.role),
                link.params,
                link.has};
}

const LinkParams* Topology::uplink(int i) const {
    if (!memberLinks_.empty())
        if (const auto it = memberLinks_.find(i); it != memberLinks_.end()) return &it->second;
    const EntryLink& l = entryLinks_[members_[static_cast<std::size_t>(i)].entry];
    return l.has ? &l.params : nullptr;
}

LinkParams* Topology::entryLink(int entry) {
    EntryLink& l = entryLinks_[static_cast<std::size_t>(entry)];
    return l.has ? &l.params : nullptr;
}

LinkParams* Topology::memberLink(int i) {
    if (const auto it = memberLinks_.find(i); it != memberLinks_.end()) return &it->second;
    const EntryLink& l = entryLinks_[members_[static_cast<std::size_t>(i)].entry];
    if (!l.has) return nullptr;
    return &memberLinks_.emplace(i, l.params).first->second;
}

LinkParams* Topology::explicitLinkFromTo(int from, int to, int* index) {
    for (std::size_t k = 0; k < links_.size(); ++k)
        if (links_[k].first == std::make_pair(from, to)) {
            if (index) *index = static_cast<int>(k);
            return &links_[k].second;
        }
    return nullptr;
}

int Topology::indexOf(const std::string& id) const {
    const std::uint64_t h = idHash(id);
    auto it = std::lower_bound(byHash_.begin(), byHash_.end(), std::make_pair(h, -1));
    for (; it != byHash_.end() && it->first == h; ++it)
        if (ids_[static_cast<std::size_t>(it->second)] == id) return it->second;
    throw std::out_of_range("unknown node '" + id + "'");
}

std::vector<int> Topology::trainersOf(int aggregator) const {
    return trainersByAggregator_.of(aggregator);
}

std::vector<int> Topology::childAggregatorsOf(int aggregator) const {
    return aggregatorsByAggregator_.of(aggregator);
}

double Topology::hopSeconds(const LinkParams& l, bool up, double bytes) {
    const double mbps = up ? l.bandwidthUpMbps : l.bandwidthDownMbps;
    return l.latencyMs / 1000.0 + bytes * 8.0 / (mbps * 1e6);
}

const LinkParams* Topology::directLink(int from, int to, bool& forward) const {
    if (links_.empty()) return nullptr;
    auto find = [this](int a, int b) -> const LinkParams* {
        const std::pair<int, int> key{a, b};
        auto it = std::lower_bound(
            links_.begin(), links_.end(), key,
            [](const auto& l, const std::pair<int, int>& k) { return l.first < k; });
        return it != links_.end() && it->first == key ? &it->second : nullptr;
    };
    if (const LinkParams* l = find(from, to)) {
        forward = true;
        return l;
    }
    if (const LinkParams* l = find(to, from)) {
        forward = false;
        return l;
    }
    return nullptr;
}

Transfer Topology::transfer(int from, int to, double bytes) const {
    Transfer t;
    if (from == to || bytes < 0) return t;
    const std::vector<PathHop> hops = path(from, to);
    auto add = [&](const PathHop& h) {
        t.seconds += hopSeconds(*h.link, h.up, bytes);
        t.price += h.link->pricePerGb * bytes / 1e9;
    };
    // Summed as the ideal network always has (bit for bit): the hops up from `from`, then
    // the hops down to `to` from `to` upwards (path() lists those from the top down).
    const auto firstDown =
        std::find_if(hops.begin(), hops.end(), [](const PathHop& h) { return h.child >= 0 && !h.up; });
    for (auto it = hops.begin(); it != firstDown; ++it)
        add(*it);
    for (auto it = hops.rbegin(); it != std::make_reverse_iterator(firstDown); ++it)
        add(*it);
    return t;
}

std::vector<PathHop> Topology::path(int from, int to) const {
    std::vector<PathHop> hops;
    if (from == to) return hops;
    bool forward = true;
    if (const LinkParams* l = directLink(from, to, forward)) {
        const std::pair<int, int> key = forward ? std::make_pair(from, to) : std::make_pair(to, from);
        auto it = std::lower_bound(
            links_.begin(), links_.end(), key,
            [](const auto& x, const std::pair<int, int>& k) { return x.first < k; });
        hops.push_back({from, to, -1, static_cast<int>(it - links_.begin()), forward, l});
        return hops;
    }
    std::vector<int> upFrom, upTo;
    for (int n = from; n >= 0; n = parent(n))
        upFrom.push_back(n);
    for (int n = to; n >= 0; n = parent(n))
        upTo.push_back(n);
    int lca = -1;
    for (int a : upFrom)
        if (std::find(upTo.begin(), upTo.end(), a) != upTo.end()) {
            lca = a;
            break;
        }
    if (lca < 0) return hops; // two trees joined by nothing: instantaneous (as transfer())
    for (int n : upFrom) {
        if (n == lca) break;
        if (const LinkParams* l = uplink(n)) hops.push_back({n, parent(n), n, -1, true, l});
    }
    const auto down = std::find(upTo.begin(), upTo.end(), lca);
    for (auto it = std::make_reverse_iterator(down); it != upTo.rend(); ++it)
        if (const LinkParams* l = uplink(*it)) hops.push_back({parent(*it), *it, *it, -1, false, l});
    return hops;
}

} // namespace fog
