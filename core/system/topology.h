#pragma once
// The runtime topology: groups expanded into nodes with their drawn values, parents and
// aggregators resolved to indices, and transfer times along links.

#include "core/spec/scenario.h"

#include <map>
#include <string>
#include <vector>

namespace fog {

struct Node {
    int index = 0;
    NodeSpec spec;          ///< with ranges resolved to exact values
    double throughput = 0.0;
    int parent = -1;
    int aggregator = -1;    ///< nearest ancestor that aggregates (-1 for roots)
    bool trains = false;
    bool aggregates = false;
    LinkParams uplink;      ///< link to the parent
    bool hasUplink = false; ///< false: instantaneous and free
};

/// Cost of moving bytes along a path: time, money and the hops it used.
struct Transfer {
    double seconds = 0.0;
    double price = 0.0;
};

class Topology {
public:
    /// Expands groups (ranges drawn from `seed`). The scenario must be valid.
    Topology(const TopologySpec& spec, std::uint64_t seed);

    const std::vector<Node>& nodes() const { return nodes_; }
    const Node& node(int i) const { return nodes_[i]; }
    int size() const { return static_cast<int>(nodes_.size()); }
    int indexOf(const std::string& id) const;

    std::vector<int> trainers() const;
    /// Aggregators without an aggregating ancestor (the parameter servers / cloud roots).
    std::vector<int> rootAggregators() const;
    /// Trainers whose nearest aggregator is `aggregator`.
    std::vector<int> trainersOf(int aggregator) const;
    /// Aggregators whose nearest aggregating ancestor is `aggregator`.
    std::vector<int> childAggregatorsOf(int aggregator) const;

    /// Time and price of sending `bytes` from `from` to `to`: over an explicit link between
    /// them if there is one, else hop by hop along the tree (store and forward) through
    /// their lowest common ancestor. Latency + bytes / bandwidth per hop.
    Transfer transfer(int from, int to, double bytes) const;

private:
    const LinkParams* directLink(int from, int to, bool& forward) const;
    static double hopSeconds(const LinkParams& l, bool up, double bytes);

    std::vector<Node> nodes_;
    std::map<std::string, int> byId_;
    std::map<std::pair<int, int>, LinkParams> links_; ///< explicit links, key (from, to)
};

} // namespace fog
