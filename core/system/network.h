#pragma once
// The flow-level network (issue 12; docs/network.md): transfers that use a link at the same
// time share its capacity, max-min fairly per direction, as flow-level simulators do
// (SimGrid's LMM model, ns-3 flow models). Exact and deterministic: rates are recomputed by
// progressive filling whenever a flow starts or ends, for the connected component of
// flows and capacities it touches only (not every flow of the run).
//
// Capacities ("resources"): each direction of each link instance, and each node's network
// interface in and out when nic_mbps > 0. A plain node's link to its parent is one instance;
// a group's link is one instance per parent member shared by all members under it
// (link_sharing: shared), or one per member (private); an explicit link is one instance.
//
// A transfer goes store and forward over its path (Topology::path): per hop a flow over
// that hop's link direction, the sender's nic-out and the receiver's nic-in; when the last
// byte has left, the hop's latency; then the next hop. A transfer alone on its path ends
// exactly when Topology::transfer says (the same floating-point sum).
//
// Links changing during a transfer (timed events, traces; docs/network.md): bandwidths are
// capacities, so a change moves the flows in flight; latencies are the ones in force when
// the transfer started, for every hop of it, whatever shares its links (a latency change
// applies to transfers that start afterwards, as without contention).
//
// Threads: engine thread only.

#include "core/system/metrics.h"
#include "core/system/topology.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <vector>

namespace fog {

class Network {
  public:
    /// Calls fn at virtual time t (the engine's queue).
    using Schedule = std::function<void(double t, std::function<void()> fn)>;
    /// Bytes one hop carried, reported when the hop's last byte left or the transfer was cut.
    struct HopBytes {
        int source = -1; ///< the transfer's origin
        int sender = -1; ///< the hop's sender (the source, or a node forwarding)
        int hop = 0;     ///< position on the path (0: the source's own hop)
        double bytes = 0.0;
        const LinkParams* link = nullptr; ///< null: a path with no link (instantaneous, free)
        int receiver = -1; ///< the hop's receiver (a path with no link: the destination)
    };
    using Charge = std::function<void(const HopBytes&)>;

    struct Stats {
        std::uint64_t transfers = 0;         ///< transfers started
        std::uint64_t flowEvents = 0;        ///< flows started and ended
        std::uint64_t recomputes = 0;        ///< progressive fillings run
        std::uint64_t classesRecomputed = 0; ///< flow classes visited by them (the cost measure)
        std::uint64_t flowsRecomputed = 0;   ///< flows whose rate those classes settled
        std::uint64_t maxComponent = 0;      ///< most classes recomputed at once
        std::uint64_t maxConcurrent = 0;     ///< most flows on the network at once
    };

    Network(const Topology& topology, Schedule schedule, Charge charge, RunObserver* observer);

    /// Every capacity (for RunInfo::links).
    const std::vector<LinkInfo>& links() const { return info_; }
    /// Lends the list to RunInfo::links for onStart without a copy (a million private links
    /// are about 0.25 GB of LinkInfo); links() is empty until giveBackLinks returns it.
    std::vector<LinkInfo> lendLinks() { return std::move(info_); }
    void giveBackLinks(std::vector<LinkInfo> links) { info_ = std::move(links); }

    /// Starts moving `bytes` from `from` to `to` now; `done` runs (from an event) when the
    /// last hop's latency has passed. Reports onMessage with the projected arrival. Returns
    /// the transfer's id (also the message id).
    std::uint64_t start(int from, int to, double bytes, double now, bool model,
                        std::function<void()> done);
    /// Cuts a transfer at `now`: its flow frees its share at once and the bytes already sent
    /// on the current hop are charged; `done` never runs. Unknown ids are ignored.
    void cut(std::uint64_t id, double now);
    /// End of the run: cuts every transfer still moving, closes usage spans, flushes.
    void finish(double now);
    /// Hands the usage spans closed so far to the observer (at once when `force`, else in
    /// batches of 256).
    void flush(bool force);

    /// Links changed during the run (timed events, traces): the capacities of the uplinks of
    /// `children` (node indices; a shared link once for all its members) and of the explicit
    /// links `explicitLinks` (Topology indices) are read again from the topology, and the
    /// rates of the flows they carry are recomputed at `now` (their completions move).
    void linksChanged(const std::vector<int>& children, const std::vector<int>& explicitLinks, double now);

    /// Transfers in progress.
    std::size_t active() const { return transfers_.size(); }
    const Stats& stats() const { return stats_; }
    /// The current rate of transfer `id` in bytes per second (0: in a hop's latency or
    /// unknown); for tests.
    double rateOf(std::uint64_t id) const;

  private:
    struct Resource {
        double capacity = 0.0;    ///< bits per second
        std::vector<int> classes; ///< the non-empty classes crossing it
        double usedRate = 0.0;    ///< sum of the flows' rates in the open span
        int spanFlows = 0;
        double spanStart = 0.0;
        // progressive filling scratch
        std::uint64_t mark = 0;
        double left = 0.0;
        int unfixed = 0; ///< flows not yet fixed
    };
    /// The flows crossing the same capacities: max-min gives them one rate, so the network
    /// computes rates per class, and a class's flows finish in the order of their tags
    /// (processor sharing): a flow joining when the class's per-flow service is S(t) with b
    /// bits ends when S reaches S(t) + b. A rate change touches the class, not its flows.
    struct Class {
        int res[3] = {-1, -1, -1};
        int pos[3] = {0, 0, 0};
        int nres = 0;
        int count = 0;       ///< flows in it
        double rate = 0.0;   ///< per flow, bits per second
        double served = 0.0; ///< S at `last`: bits each flow got since the class filled
        double last = 0.0;
        double end = 0.0;        ///< when its smallest tag is reached (in ends_ while count > 0)
        std::uint64_t epoch = 0; ///< rate changes so far
        std::set<std::pair<double, int>> tags; ///< (tag, flow)
        std::uint64_t mark = 0;
        bool fixed = false;
    };
    struct Flow {
        double bits = 0.0;
        double tag = 0.0;
        int cls = -1;
        std::uint64_t transfer = 0;
        std::uint64_t epoch = 0; ///< the class's epoch once its start was settled
    };
    struct Xfer {
        int from = -1;
        int to = -1;
        double bytes = 0.0;
        std::vector<PathHop> hops;
        std::vector<double> latencyS; ///< per hop: its latency when the transfer started
        std::vector<double> startMbps; ///< per hop: its bandwidth when the transfer started
        std::size_t hop = 0;
        int flow = -1;      ///< the current hop's flow (-1: in latency)
        double t0 = 0.0;    ///< start of the transfer
        double acc = 0.0;   ///< sum of the hops' solo times so far (Topology::transfer's sum)
        double ideal = 0.0; ///< the transfer's solo time (Topology::transfer)
        bool undisturbed = true; ///< every hop so far alone at its link's whole bandwidth
        bool asStarted = true;   ///< and at the bandwidths it started with (ideal holds)
        std::function<void()> done;
    };

    void startHop(std::uint64_t id, Xfer& x, double now);
    void hopSent(int flow, double now, bool steady, double rate);
    void hopArrived(std::uint64_t id, double now);
    int classFor(const int* res, int nres);
    /// Bits flow f has left to send at `now`.
    double bitsLeft(int f, double now) const;
    /// Takes flow f out of its class; its capacities go to `dirty`.
    void removeFlow(int f, std::vector<int>& dirty);
    void recompute(const std::vector<int>& dirty, double now);
    void refreshEnd(int c);
    void closeSpan(int r, double now);
    void wake(double t);
    void armWakeup();
    int linkResource(const PathHop& h) const;

    const Topology& topo_;
    Schedule schedule_;
    Charge charge_;
    RunObserver* observer_;
    std::vector<Resource> res_;
    std::vector<LinkInfo> info_;
    std::vector<int> upRes_;  ///< node -> its uplink's resource (up; down is +1), -1: none
    std::vector<int> nicRes_; ///< node -> nic out (in is +1), -1: unlimited
    std::vector<int> explicitRes_;
    std::vector<Class> classes_;
    std::map<std::array<int, 3>, int> classOf_;
    std::vector<Flow> flows_;
    std::vector<int> freeFlows_;
    std::map<std::uint64_t, Xfer> transfers_;
    std::set<std::pair<double, int>> ends_; ///< (end, class) of the classes with flows
    std::multiset<double> wakeups_;         ///< wake-up events queued
    std::vector<LinkUsage> usage_;
    std::uint64_t nextId_ = 1;
    std::uint64_t epoch_ = 0;
    std::size_t flowsMoving_ = 0;
    Stats stats_;
    // scratch
    std::vector<int> compRes_, compClasses_, stack_;
};

} // namespace fog
