#pragma once
// The runtime topology: every node and group member, parents and aggregators resolved to
// indices, and transfer times along links.
//
// Compact: a member stores only what differs between the members of one entry (its drawn
// throughput, price and data share, its parent and aggregator); the entry's settings
// (availability, energy, noise, link...) are shared. A million group members cost about
// 100 bytes each (id string, member record, id index), not a copy of the spec.

#include "core/util/big_array.h"
#include "core/spec/scenario.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace fog {

/// One node's settings as the engine reads them: its entry's, with this member's drawn
/// values. Holds references into the Topology (valid while it lives).
struct NodeFacts {
    const std::string& id;
    Tier tier;
    Role role;
    const std::string& parent; ///< the parent's node id, empty for a root
    const std::string& region;
    ComputeSpec compute; ///< throughput exact: this member's drawn value
    const AvailabilitySpec& availability;
    double pricePerHour;
    const EnergySpec& energy;
    double dataShare;
    const std::optional<LinkParams>& link; ///< the entry's own link (see Node::uplink)
    int line;                              ///< the entry's source line
};

/// One node assembled on demand (cheap: no string is built). Prefer the Topology's accessors
/// (id(i), pricePerHour(i), ...) in loops over many nodes.
struct Node {
    int index;
    NodeFacts spec;
    double throughput;
    int parent;     ///< -1 for a root
    int aggregator; ///< nearest ancestor that aggregates (-1 for roots)
    bool trains;
    bool aggregates;
    LinkParams uplink; ///< link to the parent
    bool hasUplink;    ///< false: instantaneous and free
};

/// Cost of moving bytes along a path: time, money and the hops it used.
struct Transfer {
    double seconds = 0.0;
    double price = 0.0;
};

/// One hop of a transfer's path (store and forward): `sender` to `receiver` over a link.
/// Hops without a link (instantaneous and free) are not listed.
struct PathHop {
    int sender = -1;
    int receiver = -1;
    int child = -1;        ///< a tree hop: the node whose link to its parent it uses (-1: explicit)
    int explicitLink = -1; ///< an explicit link: its index (explicitLinkCount())
    bool up = true;        ///< tree: child to parent; explicit: from the link's `from` to its `to`
    const LinkParams* link = nullptr;
};

class Topology {
  public:
    /// Expands nodes and groups, nested groups under every member of their parent group
    /// (ranges drawn from `seed`). The scenario must be valid.
    /// `joining[e]` (per entry; empty: none): members of top-level group e that join during
    /// the run (`add` events, core/engine/timed_events.h). They are appended after every
    /// other node, in entry order (so no other node's index moves), named on from the
    /// group's count (phones-10, phones-11, ...) and drawn on from the group's stream (the
    /// first `count` members draw what they draw without them).
    Topology(const TopologySpec& spec, std::uint64_t seed, const std::vector<int>& joining = {});

    int size() const { return static_cast<int>(members_.size()); }
    /// First index of the members that join during the run (size() when none): the nodes
    /// below it are there from the start.
    int firstJoining() const { return firstJoining_; }
    bool joinsLater(int i) const { return i >= firstJoining_; }
    Node node(int i) const;
    int indexOf(const std::string& id) const; ///< throws std::out_of_range for an unknown id

    // Per-node values without assembling a Node.
    const std::string& id(int i) const { return ids_[static_cast<std::size_t>(i)]; }
    /// The entry (node or group) that node i is a member of, as written (ranges not drawn),
    /// with its device class's figures filled in (applyDeviceClass).
    const NodeSpec& entry(int i) const {
        return spec_.nodes[members_[static_cast<std::size_t>(i)].entry];
    }
    int entryIndex(int i) const {
        return static_cast<int>(members_[static_cast<std::size_t>(i)].entry);
    }
    double throughput(int i) const { return members_[static_cast<std::size_t>(i)].throughput; }
    /// Asks for member i's facts (entry, parent, price) to be brought into the cache (the
    /// engine's prefetch of the next event's node; big_array.h).
    void prefetch(int i) const { prefetchLine(members_.data() + i); }
    double pricePerHour(int i) const { return members_[static_cast<std::size_t>(i)].pricePerHour; }
    double dataShare(int i) const { return members_[static_cast<std::size_t>(i)].dataShare; }
    int parent(int i) const { return members_[static_cast<std::size_t>(i)].parent; }
    int aggregator(int i) const { return members_[static_cast<std::size_t>(i)].aggregator; }
    bool trains(int i) const { return roleTrains(entry(i).role); }
    bool aggregates(int i) const { return roleAggregates(entry(i).role); }
    /// The link to the parent, or nullptr when it is instantaneous and free.
    const LinkParams* uplink(int i) const;

    /// Every node, in index order, as assembled Nodes (for range-for).
    class NodeRange {
      public:
        class Iterator {
          public:
            Iterator(const Topology* t, int i) : t_(t), i_(i) {}
            Node operator*() const { return t_->node(i_); }
            Iterator& operator++() {
                ++i_;
                return *this;
            }
            bool operator!=(const Iterator& o) const { return i_ != o.i_; }
            bool operator==(const Iterator& o) const { return i_ == o.i_; }

          private:
            const Topology* t_;
            int i_;
        };
        explicit NodeRange(const Topology* t) : t_(t) {}
        Iterator begin() const { return {t_, 0}; }
        Iterator end() const { return {t_, t_->size()}; }
        int size() const { return t_->size(); }

      private:
        const Topology* t_;
    };
    NodeRange nodes() const { return NodeRange(this); }

    std::vector<int> trainers() const { return trainers_; }
    /// Aggregators without an aggregating ancestor (the parameter servers / cloud roots).
    std::vector<int> rootAggregators() const { return roots_; }
    /// Trainers whose nearest aggregator is `aggregator`.
    std::vector<int> trainersOf(int aggregator) const;
    /// Aggregators whose nearest aggregating ancestor is `aggregator`.
    std::vector<int> childAggregatorsOf(int aggregator) const;

    /// Time and price of sending `bytes` from `from` to `to`: over an explicit link between
    /// them if there is one, else hop by hop along the tree (store and forward) through
    /// their lowest common ancestor. Latency + bytes / bandwidth per hop.
    Transfer transfer(int from, int to, double bytes) const;
    /// The hops `transfer` uses, in travel order (the network model's flows follow them).
    std::vector<PathHop> path(int from, int to) const;
    /// Explicit links (deduplicated, sorted by (from, to)).
    int explicitLinkCount() const { return static_cast<int>(links_.size()); }
    std::pair<int, int> explicitLinkEnds(int k) const { return links_[static_cast<std::size_t>(k)].first; }
    const LinkParams& explicitLinkParams(int k) const { return links_[static_cast<std::size_t>(k)].second; }
    /// The topology section as written (contention, link sharing, entries; device classes
    /// applied).
    const TopologySpec& spec() const { return spec_; }

    // ---- Changes during a run (timed events and traces, core/engine/timed_events.h). Links
    // are changed in place: transfers planned before keep their times, the flow network
    // reads the new values when told (Network::linksChanged).
    void setThroughput(int i, double v) { members_[static_cast<std::size_t>(i)].throughput = v; }
    void setPricePerHour(int i, double v) { members_[static_cast<std::size_t>(i)].pricePerHour = v; }
    /// The link entry `entry`'s members share to their parents (nullptr: instantaneous).
    LinkParams* entryLink(int entry);
    /// Member i's own link to its parent, copied from its entry's at the first call (then
    /// uplink(i) is this one); nullptr when it has none.
    LinkParams* memberLink(int i);
    /// Members with a link of their own (memberLink called).
    const std::map<int, LinkParams>& memberLinks() const { return memberLinks_; }
    std::map<int, LinkParams>& memberLinks() { return memberLinks_; }
    /// The explicit link declared from `from` to `to` (node indices), or nullptr.
    LinkParams* explicitLinkFromTo(int from, int to, int* index = nullptr);


  private:
    struct Member {
        double throughput = 0.0;
        double pricePerHour = 0.0;
        double dataShare = 1.0;
        int parent = -1;
        int aggregator = -1;
        std::uint32_t entry = 0;
    };
    /// Per entry: its link to the parent (own, or the default when it has a parent).
    struct EntryLink {
        LinkParams params;
        bool has = false;
    };

    const LinkParams* directLink(int from, int to, bool& forward) const;
    static double hopSeconds(const LinkParams& l, bool up, double bytes);
    /// Members grouped by a key (their aggregator): `order` sorted by key, index order kept.
    struct Buckets {
        std::vector<int> start; ///< per key + 1 sentinel
        std::vector<int> order;
        std::vector<int> of(int key) const;
    };

    TopologySpec spec_; ///< the entries (shared by their members); links kept for directLink
    std::vector<Member, BigArrayAllocator<Member>> members_; ///< read at random per event: huge pages
    std::vector<std::string> ids_;
    std::vector<EntryLink> entryLinks_;
    std::map<int, LinkParams> memberLinks_; ///< members' own links (timed events), stable addresses
    std::vector<std::pair<std::uint64_t, int>> byHash_; ///< (hash of id, index), sorted
    std::vector<std::pair<std::pair<int, int>, LinkParams>>
        links_; ///< explicit, sorted by (from, to)
    std::vector<int> trainers_;
    std::vector<int> roots_;
    int firstJoining_ = 0;
    Buckets trainersByAggregator_;
    Buckets aggregatorsByAggregator_;
};

} // namespace fog
