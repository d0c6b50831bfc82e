#pragma once
// Every node's state while a run goes: availability (always on, two-state Markov, trace),
// billing (per started second of each interval a node is held) and energy, plus the job a
// trainer is running. Compact, so that a million devices fit: about 70 bytes a node; a
// node's random streams (2.5 KB each) exist only while it uses them: the few availability
// draws most nodes make are computed straight from the stream's seed (no engine state), and
// a node that has drawn often keeps its stream; the compute stream is created at the node's
// first dispatch. Sums over
// nodes (cost, energy) visit only the nodes ever held or charged, in index order, so they
// are exactly the sums over all nodes.
//
// Threads: engine thread only.

#include "core/system/topology.h"
#include "core/util/random.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace fog {

class NodeRuntime {
public:
    NodeRuntime(const Topology& topology, std::uint64_t seed);

    int size() const { return static_cast<int>(slots_.size()); }

    // ---- availability
    bool online(int n) const { return slots_[n].online; }
    /// Next availability change (infinity: none).
    double nextChange(int n) const { return slots_[n].nextChange; }
    /// Draws node n's state at t = 0 and its first change.
    void initAvailability(int n);
    /// At nextChange(n): flips the node and draws its next change from `now`. Returns
    /// whether it is online now.
    bool advanceAvailability(int n, double now);

    // ---- billing: a node is billed from its first use (or from t = 0 for a server) to the
    // end of the run, while it is online, per started second of each holding interval.
    void hold(int n, double now);
    void release(int n, double now);
    /// Ends the holding and forgets the first use: billed again only from its next use
    /// (a pilot trainer the plan does not keep).
    void giveBack(int n, double now) {
        release(n, now);
        slots_[n].acquired = false;
    }
    bool acquired(int n) const { return slots_[n].acquired; }
    /// Serverless nodes (Billing::Serverless) are never billed while held: each dispatch
    /// costs the node's invocation fee and each second of computing its price per hour / 3600
    /// (exact seconds, not started ones). Both are no-ops for nodes billed while held.
    void chargeInvocation(int n);
    void chargeCompute(int n, double seconds);
    /// `base` (traffic) plus every node's billing up to `t`, summed in node order.
    double costAt(double base, double t) const;
    /// False when the cost at `t` is certainly below `budget` (a bound kept up to date in
    /// O(1) a change), so that a budget check per event need not visit the nodes.
    bool costMayReach(double base, double t, double budget) const;

    // ---- energy
    void addEnergy(int n, double joules);
    double totalEnergy() const;

    // ---- work
    std::uint64_t job(int n) const { return slots_[n].job; }
    void setJob(int n, std::uint64_t id) { slots_[n].job = id; }
    /// Dispatches the node ran so far (a job's seed).
    std::uint64_t jobsRun(int n) const { return slots_[n].jobsRun; }
    void countJob(int n) { ++slots_[n].jobsRun; }
    /// The node's step-time stream, created at first use.
    Rng& computeRng(int n);

    /// Nodes holding heap state besides their slot (for the scale benchmark's report).
    std::size_t materialisedStreams() const;

private:
    struct Slot {
        double nextChange = std::numeric_limits<double>::infinity();
        double holdSince = 0.0;
        double billed = 0.0; ///< cost of closed holding intervals
        double energy = 0.0;
        std::uint64_t job = 0;
        std::uint64_t jobsRun = 0;
        std::uint32_t traceIndex = 0;
        std::uint32_t availabilityDraws = 0; ///< engine outputs used from the stream
        bool online = true;
        bool acquired = false;
        bool holding = false;
        bool touched = false; ///< in touched_ (held or charged at least once)
    };

    double availabilityUniform(int n);
    double availabilityExponential(int n, double mean);
    void touch(int n);
    void charge(int n, double usd);
    bool serverless(int n) const { return topo_.entry(n).billing == Billing::Serverless; }
    double pricePerSecond(int n) const { return topo_.pricePerHour(n) / 3600.0; }

    const Topology& topo_;
    std::uint64_t seed_;
    std::vector<Slot> slots_;
    /// Availability streams kept after many draws (replayed from the seed before).
    std::vector<std::unique_ptr<Rng>> availability_;
    std::vector<std::unique_ptr<Rng>> compute_;
    std::uint64_t availabilityStream_;
    /// Nodes ever held or charged; sorted lazily (sums must run in node order).
    mutable std::vector<int> touched_;
    mutable bool touchedSorted_ = true;
    // The budget bound: sums over closed and open holding intervals.
    double billedSum_ = 0.0;
    double holdingRate_ = 0.0;      ///< sum of price per second of the nodes held now
    double holdingRateSince_ = 0.0; ///< sum of price per second * holdSince of those
    double boundMagnitude_ = 0.0;   ///< sum of every term added, for the rounding margin
};

} // namespace fog
