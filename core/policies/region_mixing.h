#pragma once
// Model averaging between regional parameter servers (Cloudless-Training's MA), as the
// cross-cloud policies share it: model-averaging with `async_averaging: 1` and async-ga across
// several roots (docs/policies.md, "Cross-cloud modes").
//
// - SyncRegionExchange: at its k-th barrier each region sends its model to every other over
//   the WAN and waits; once every region's k-th model has reached it, it continues from their
//   data-weighted average (the slowest region and the slowest WAN hop set the pace).
// - AsyncRegionMixer [reconstructed]: at its barrier a region sends its model to every peer
//   and at once mixes in the newest model each peer sent since its last mix, weighted by the
//   peer's data n_j times s(tau) = (1 + tau)^(-b), tau = (its own barrier count) - (the
//   sender's barrier count when it sent), at least 0. No region waits for another.

#include "core/policies/policy_context.h"

#include <functional>
#include <map>
#include <vector>

namespace fog {

struct RegionMix {
    ParamsPtr model;          ///< the region's model after mixing
    int participants = 1;     ///< the region itself and the peers' models mixed in
    double meanStaleness = 0; ///< over the peers' models mixed in (0 when none)
    int maxStaleness = 0;
};

/// The global round (level 0) of one asynchronous averaging at region server `server`: its
/// participants and staleness from `m`, its training loss the mean over the region's work
/// since its last averaging (`lossSum` / `lossSamples`, which are then reset).
AggregationRecord regionMixRecord(const SystemView& e, int server, const RegionMix& m, double& lossSum,
                                  double& lossSamples);

class AsyncRegionMixer {
public:
    /// `servers[g]` is region g's parameter server, `weights[g]` its samples.
    void setup(std::vector<int> servers, std::vector<double> weights, double stalenessExponent);
    /// Region `g` reached its barrier with `model` (now): sends it to every peer and returns
    /// it mixed with the fresh models g holds.
    RegionMix mix(PolicyContext& e, std::size_t g, const ParamsPtr& model);
    /// Barriers region `g` has reached.
    long barriers(std::size_t g) const { return epochs_.at(g); }

private:
    struct Mail {
        long epoch = 0; ///< the sender's barrier count when it sent
        ParamsPtr model;
        bool fresh = false; ///< not mixed in yet
    };
    std::vector<int> servers_;
    std::vector<double> weights_;
    double exponent_ = 0.0;
    std::vector<long> epochs_;
    std::vector<std::vector<Mail>> mail_; ///< [receiver][sender]
};

class SyncRegionExchange {
public:
    void setup(std::vector<int> servers, std::vector<double> weights);
    /// Region `g` reached its barrier with `model` (now): sends it to every other region.
    void arrive(PolicyContext& e, std::size_t g, const ParamsPtr& model);
    /// Every region's model of an exchange has reached region g: it continues from `average`
    /// (called in region order, in one event at that instant).
    std::function<void(std::size_t g, const ParamsPtr& average)> onReady;
    /// Every model of an exchange has arrived everywhere (the global round).
    std::function<void(const ParamsPtr& average)> onDone;

private:
    struct Exchange {
        std::vector<ParamsPtr> models;
        std::vector<int> incoming; ///< per region: models still on their way to it
        std::vector<char> resumed;
        int arrived = 0;  ///< regions at this barrier
        int inFlight = 0;
        bool queued = false;
        bool done = false;
        ParamsPtr average;
    };
    Exchange& exchange(long k);
    void settle(PolicyContext& e, long k);
    std::vector<int> servers_;
    std::vector<double> weights_;
    std::vector<long> epochs_;
    std::map<long, Exchange> exchanges_;
};

} // namespace fog
