#pragma once
// Every node's state while a run goes: availability (always on, two-state Markov, trace),
// billing (per started second of each interval a node is held) and energy, plus the job a
// trainer is running. Compact, so that a million devices fit: about 64 bytes a node, 16
// more once it draws availability (a cursor into its stream: its first 156 draws without the
// engine's 2.5 KB state; a node that changes state more often than that keeps the engine),
// and 56 more for its energy once it is used; the compute stream (2.5 KB) is created at the
// node's first dispatch. Sums over
// nodes (cost, energy) visit only the nodes ever held or charged, in index order, so they
// are exactly the sums over all nodes.
//
// Threads: engine thread only.

#include "core/system/metrics.h"
#include "core/system/topology.h"
#include "core/util/big_array.h"
#include "core/util/random.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

namespace fog {

class NodeRuntime {
public:
    NodeRuntime(const Topology& topology, std::uint64_t seed);

    int size() const { return static_cast<int>(slots_.size()); }

    // ---- availability
    /// Online now: its availability process says so and nothing holds it offline (forced()).
    bool online(int n) const { return slots_[n].online && !slots_[n].forced; }
    /// Online and running no job: a candidate for selection (one byte a node, kept up to date
    /// by every change of availability, forced() and job(), so that a selection over a
    /// million trainers reads 1 MB, not their slots).
    bool ready(int n) const { return ready_[static_cast<std::size_t>(n)] != 0; }
    /// Why timed events and traces hold node n offline (core/engine/timed_events.h): 0 if
    /// nothing does. The engine turns a change of online() into going offline / online.
    std::uint8_t forced(int n) const { return slots_[n].forced; }
    void setForced(int n, std::uint8_t bits) {
        slots_[n].forced = bits;
        refreshReady(n);
    }
    /// Asks for node n's availability state to be brought into the cache (the event queue's
    /// hint for the next event: its node's lines load while this event runs).
    void prefetch(int n) const {
        prefetchLine(slots_.data() + n);
        prefetchLine(ready_.data() + n);
        if (!cursors_.empty()) prefetchLine(cursors_.data() + n);
    }
    /// Next availability change (infinity: none).
    double nextChange(int n) const { return slots_[n].nextChange; }
    /// Draws node n's state at t = 0 and its first change.
    void initAvailability(int n);
    /// A member joining the run at `now` (an `add` event): its availability process starts
    /// there (Markov: its first state and change drawn as initAvailability does, counted from
    /// `now`; a trace: the interval holding at `now`).
    void joinAvailability(int n, double now);
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
    /// Not acquired any more (released by its policy): held again from its next use only.
    void forget(int n) { slots_[n].acquired = false; }
    /// Billed now (held and online, not serverless).
    bool holding(int n) const { return slots_[n].holding; }
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

    // ---- energy (docs/emulator.md, "Energy"): compute (samples, aggregation), network
    // (bytes sent, forwarded, received) and idle power integrated over the time a node is
    // held and not computing.
    enum class EnergyKind { Compute, Network };
    void addEnergy(int n, double joules, EnergyKind kind);
    /// Node n's current job computes from `from` to `to` (not idle then); endCompute closes it.
    void beginCompute(int n, double from, double to);
    /// The current job's computing ends at `until` (done, or cut there).
    void endCompute(int n, double until);
    /// Cumulative energy up to `t`, with the idle energy of the intervals still open.
    EnergySplit energyAt(double t) const;

    // ---- work
    std::uint64_t job(int n) const { return slots_[n].job; }
    void setJob(int n, std::uint64_t id) {
        slots_[n].job = id;
        refreshReady(n);
    }
    /// Dispatches the node ran so far (a job's seed).
    std::uint64_t jobsRun(int n) const { return slots_[n].jobsRun; }
    void countJob(int n) { ++slots_[n].jobsRun; }
    /// The node's step-time stream, created at first use.
    Rng& computeRng(int n);


    /// A node's availability stream (std::mt19937_64) as two seeded words, for its first
    /// 156 outputs (node_runtime.cpp): 16 bytes instead of the engine's 2.5 KB.
    struct StreamCursor {
        static constexpr std::uint32_t kOutputs = 156; ///< outputs it reaches: 0 .. 155
        std::uint64_t near = 0; ///< seeded word k (k: the next output, Slot::availabilityDraws)
        std::uint64_t far = 0;  ///< seeded word k + 156
        /// The cursor at output k (k < kOutputs) of std::mt19937_64 seeded with `seed`.
        static StreamCursor at(std::uint64_t seed, std::uint32_t k);
        /// Output k of a cursor at output k (k < kOutputs), bit for bit the engine's; moves
        /// the cursor to output k + 1.
        std::uint64_t next(std::uint32_t k);
    };

private:
    struct Slot {
        double nextChange = std::numeric_limits<double>::infinity();
        double holdSince = 0.0;
        double billed = 0.0; ///< cost of closed holding intervals
        std::uint64_t job = 0;
        std::uint64_t jobsRun = 0;
        std::uint32_t traceIndex = 0;
        std::uint32_t availabilityDraws = 0; ///< engine outputs used from the stream
        std::uint32_t account = 0;           ///< index into accounts_ (once touched)
        bool online = true;
        std::uint8_t forced = 0;
        bool acquired = false;
        bool holding = false;
        bool touched = false; ///< in touched_ (held or charged at least once)
    };

    /// Energy of a node ever held or charged (touched): kept beside the compact slots.
    struct EnergyAccount {
        double total = 0.0;   ///< compute + network in the order spent (the figure before the split)
        double compute = 0.0;
        double network = 0.0;
        double heldS = 0.0;    ///< closed holding intervals
        double computeS = 0.0; ///< closed computing intervals
        double computeFrom = std::numeric_limits<double>::infinity(); ///< the open one, if any
        double computeTo = std::numeric_limits<double>::infinity();
    };
    double idleSeconds(int n, double t) const;
    void refreshReady(int n) { ready_[static_cast<std::size_t>(n)] = online(n) && slots_[n].job == 0; }

    void startAvailability(int n); ///< initAvailability without refreshReady
    double availabilityUniform(int n);
    double availabilityExponential(int n, double mean);
    void touch(int n);
    void charge(int n, double usd);
    bool serverless(int n) const { return topo_.entry(n).billing == Billing::Serverless; }
    double pricePerSecond(int n) const { return topo_.pricePerHour(n) / 3600.0; }

    const Topology& topo_;
    std::uint64_t seed_;
    // Per-node arrays read at random at a million nodes: on huge pages (big_array.h).
    std::vector<Slot, BigArrayAllocator<Slot>> slots_;
    std::vector<std::uint8_t, BigArrayAllocator<std::uint8_t>> ready_; ///< ready(n)
    /// Availability streams: a cursor per node (allocated at the first draw of the run), and
    /// the whole engine for the rare node that drew more than the cursor reaches.
    std::vector<StreamCursor, BigArrayAllocator<StreamCursor>> cursors_;
    std::unordered_map<int, std::unique_ptr<Rng>> kept_;
    std::vector<std::unique_ptr<Rng>> compute_;
    std::vector<EnergyAccount> accounts_;
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
