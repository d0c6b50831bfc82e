#pragma once
// Asynchronous parameter server: every trainer pulls, computes, pushes; the server applies
// each update on arrival, damped by its staleness. `async` pushes one gradient, `async-ga`
// the change after k local steps (Cloudless-Training's gradient accumulation).
//
// async-ga across several roots (Cloudless-Training's cross-cloud mode): every root
// aggregator with trainers below it is a regional parameter server running ASGD-GA with
// those trainers; every `period` of its own updates a server averages its model with the
// other regions', synchronously (it waits for every region's model) or asynchronously (it
// mixes in the newest models received and goes on): core/policies/region_mixing.h.

#include "core/policies/aggregation.h"
#include "core/policies/policy_params.h"
#include "core/policies/region_mixing.h"
#include "core/policies/sync_policy.h"

#include <set>

namespace fog {

/// What an asynchronous policy's parameters say (each descriptor's ParamTable fills it).
struct AsyncSettings {
    int accumulate = 0;             ///< 0: one gradient per push; k > 0: k local steps, the change
    double stalenessExponent = 0.0; ///< b in (1 + tau)^(-b)
    double mixing = 1.0;            ///< a: scale of every applied update
    int period = 0;                 ///< several roots: a server's updates between averagings
    bool asyncAveraging = false;    ///< several roots: mix in the newest models and go on
};

class AsyncPolicy : public SyncPolicy {
public:
    /// `policy`: the name messages give.
    AsyncPolicy(const AsyncSettings& settings, const std::string& policy, const SystemView& e);
    void start(PolicyContext& e) override;
    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override;
    void onLost(PolicyContext& e, const Job& job) override;
    void onNodeOnline(PolicyContext& e, int node) override;
    ParamsPtr globalModel() const override;

private:
    /// A push that reached a server waiting at a synchronous averaging barrier: applied
    /// when the server goes on.
    struct Held {
        long version = 0;
        double loss = 0.0;
        std::int64_t samples = 0;
        Params update;
    };
    struct Region {
        int aggregator = -1;
        ServerModel model;
        std::set<std::uint64_t> outstanding;
        double weight = 0.0;   ///< samples held by its trainers
        int updates = 0;       ///< since the last averaging
        bool atBarrier = false;
        std::vector<Held> held;
        double lossSum = 0.0, lossSamples = 0.0; ///< since the last averaging
    };

    void topUp(PolicyContext& e, std::size_t r);
    void apply(PolicyContext& e, std::size_t r, long version, double loss, std::int64_t samples,
               const Params& update);
    /// Counts an update of region r; at `period` updates it averages. False: it waits.
    bool countAndMaybeAverage(PolicyContext& e, std::size_t r);
    void goOn(PolicyContext& e, std::size_t r, const ParamsPtr& average);

    int accumulate_;
    double exponent_;
    double mixing_;
    std::size_t limit_; ///< trainers working at once per server (selection's k, else all)
    std::vector<Region> regions_;
    bool multi_ = false; ///< several regional servers
    int period_ = 0;
    bool asyncAveraging_ = false;
    AsyncRegionMixer mixer_;
    SyncRegionExchange exchange_;
    ParamsPtr global_; ///< several servers: the last average (or mix)
};

} // namespace fog
