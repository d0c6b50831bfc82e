#pragma once
// The resources of a running system as timed events, traces and interventions change them
// (core/engine/timed_events.h). Each resource applies its own change, as SimGrid's
// Resource::apply_event does with its profiles: the links (their parameters in the topology,
// and the flow-level network that must re-read them), the nodes (why each is held offline,
// members joining, speed) and the prices (billing is the integral of the price). The engine
// owns them; TimedEvents changes the system through them only.
//
// Threads: engine thread only.

#include "core/system/topology.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace fog {

class Network;
class NodeRuntime;

/// New values for some of a link's parameters; the others stay.
struct LinkChange {
    std::optional<double> bandwidthUpMbps, bandwidthDownMbps, latencyMs;
    /// Both directions' bandwidth (a bandwidth trace's row).
    static LinkChange bandwidth(double mbps) {
        LinkChange c;
        c.bandwidthUpMbps = c.bandwidthDownMbps = mbps;
        return c;
    }
    void applyTo(LinkParams& l) const;
};

/// The links of the topology: a change is written into the link parameters, then changed()
/// tells the network model which links to read again (their flows' rates are recomputed).
class LinkResources {
public:
    /// `network`: the flow-level network, null when transfers do not contend.
    LinkResources(Topology& topo, Network* network) : topo_(topo), network_(network) {}
    /// The link of entry `entry` (shared by its members), if it has one.
    void changeEntryLink(int entry, const LinkChange& c);
    /// The entry's link and the own link of every member that has one.
    void changeEntryAndMembers(int entry, const LinkChange& c);
    /// Member n's own link (made from its entry's at the first change).
    void changeMemberLink(int n, const LinkChange& c);
    /// The explicit link from -> to: false when there is none (nothing changed); its index
    /// into the topology's explicit links in `index`.
    bool changeExplicitLink(int from, int to, const LinkChange& c, int* index);
    /// The links of `nodes` (to their parents) and the explicit links `explicitLinks` changed
    /// at `now`: the network reads them again.
    void changed(const std::vector<int>& nodes, const std::vector<int>& explicitLinks, double now);

private:
    Topology& topo_;
    Network* network_;
};

/// The nodes: why each is held offline (NodeRuntime::forced; the bits are TimedEvents::Force),
/// members joining, compute speed. Going offline or online is the engine's (its jobs and
/// policies): the resource calls it back when a node's state changes.
class NodeResources {
public:
    struct Callbacks {
        std::function<void(int)> wentOffline, wentOnline;
        /// Member n's availability process started (join): the engine's own tables.
        std::function<void(int)> joined;
    };
    /// `flopsPerSample`: the model's training FLOPs per sample (nodes given in FLOP/s).
    NodeResources(NodeRuntime& nodes, Topology& topo, double flopsPerSample, Callbacks callbacks)
        : nodes_(nodes), topo_(topo), flopsPerSample_(flopsPerSample), callbacks_(std::move(callbacks)) {}
    std::uint8_t forced(int n) const;
    bool online(int n) const;
    /// Before the run starts: n is held by `bits` (nothing goes offline: nothing started).
    void initForced(int n, std::uint8_t bits);
    /// Sets why n is held offline; it goes offline or online when its state changes.
    void force(int n, std::uint8_t bits);
    /// Member n joins at `now` held by `bits` (its Absent bit cleared): its availability
    /// process starts there, without going online or offline (it was not there before).
    void join(int n, std::uint8_t bits, double now);
    /// Node n's speed in samples per second (steps already running keep their duration).
    void setThroughput(int n, double samplesPerSecond);
    /// A compute trace's value, in the unit n's compute is given in (FLOP/s or samples/s).
    void setTraceCompute(int n, double value);

private:
    NodeRuntime& nodes_;
    Topology& topo_;
    double flopsPerSample_;
    Callbacks callbacks_;
};

/// The prices of the nodes: billing is the integral of the price, so a change closes the
/// node's holding interval at the old price and opens one at the new price.
class PriceResources {
public:
    PriceResources(NodeRuntime& nodes, Topology& topo) : nodes_(nodes), topo_(topo) {}
    void set(int n, double pricePerHour, double now);

private:
    NodeRuntime& nodes_;
    Topology& topo_;
};

} // namespace fog
