// Model averaging between regional parameter servers (Cloudless-Training's MA): each
// region trains on its own; every P regional rounds each server sends its model to every
// other over the WAN and, once it holds them all, replaces its model by the data-weighted
// average. With async_averaging: 1 a region does not wait: it mixes in the newest models it
// has received, weighted by data and staleness (core/policies/region_mixing.h).

#include "core/policies/policy_descriptor.h"
#include "core/policies/region_mixing.h"
#include "core/policies/two_level.h"

#include <algorithm>
#include <map>

namespace fog {

namespace {

struct ModelAveragingSettings {
    int period = 0;               ///< regional rounds between averagings (P)
    bool asyncAveraging = false;  ///< no region waits
    double stalenessExponent = 0; ///< b (asynchronous averaging)
};

const ParamTable<ModelAveragingSettings>& modelAveragingParams() {
    static const auto t =
        ParamTable<ModelAveragingSettings>()
            .integer("period", &ModelAveragingSettings::period, 4, 1, "regional rounds between averaging (P)")
            .flag("async_averaging", &ModelAveragingSettings::asyncAveraging, false,
                  "1 = asynchronous: no region waits, each mixes in the newest models received; "
                  "0 = all regions average together")
            .real("staleness_exponent", &ModelAveragingSettings::stalenessExponent, 0.5, 0.0, 10.0,
                  "b: a peer's model tau barriers behind weighs its data times (1 + tau)^(-b) "
                  "(asynchronous averaging only)");
    return t;
}

class ModelAveraging : public TwoLevelPolicy {
public:
    ModelAveraging(const PolicyParams& p, const SystemView& e) {
        const auto roots = e.topology().rootAggregators();
        if (roots.size() < 2)
            throw EngineError("sync policy " + p.policy() + " needs at least two root aggregators (regional "
                              "parameter servers), the topology has " + std::to_string(roots.size()));
        root_ = roots.front(); // names the averaging in the metrics
        const ModelAveragingSettings s = modelAveragingParams().read(p);
        period_ = s.period;
        async_ = s.asyncAveraging;
        exponent_ = s.stalenessExponent;
        // A region without trainers has no model of its own to contribute: it takes no part
        // (with it, the others would wait at the first barrier for ever).
        for (int r : roots) {
            if (e.topology().trainersOf(r).empty()) continue;
            Group g;
            g.aggregator = r;
            groups_.push_back(std::move(g));
        }
        if (groups_.empty())
            throw EngineError("sync policy " + p.policy() + " found no trainer right under a regional "
                              "parameter server (a root aggregator)");
    }

    void start(PolicyContext& e) override {
        TwoLevelPolicy::start(e);
        if (!async_) return;
        std::vector<int> servers;
        std::vector<double> weights;
        for (const auto& g : groups_) {
            servers.push_back(g.aggregator);
            weights.push_back(g.weight);
        }
        mixer_.setup(std::move(servers), std::move(weights), exponent_);
    }

protected:
    void onBarrier(PolicyContext& e, std::size_t g) override {
        if (async_) {
            mixAndGoOn(e, g);
            return;
        }
        // Send to every other region now; region j can average once all models reached it.
        const long k = current_;
        Exchange& x = exchange(k);
        for (std::size_t j = 0; j < groups_.size(); ++j) {
            if (j == g) continue;
            ++x.incoming[j];
            ++x.inFlight;
            e.send(groups_[g].aggregator, groups_[j].aggregator, e.modelBytes(), [this, &e, j, k] {
                Exchange& x = exchanges_.at(k);
                --x.incoming[j];
                --x.inFlight;
                if (!x.allAtBarrier) return;
                if (x.inFlight == 0) reportGlobal(e, x.model);
                resumeReady(e, k);
            });
        }
    }
    void onAllAtBarrier(PolicyContext& e) override {
        // Every model is fixed at the barrier, so the average is known now; each region
        // applies it when the last model reaches it, and the exchange is done when all have.
        const long k = current_++;
        Exchange& x = exchange(k);
        averageGroups();
        x.model = global_;
        x.allAtBarrier = true;
        if (x.inFlight == 0) e.at(e.now(), [this, &e, model = x.model] { reportGlobal(e, model); });
        resumeReady(e, k);
    }

private:
    /// Asynchronous averaging: region g sends its model to its peers, mixes in the fresh
    /// models it holds and starts its next round at once.
    void mixAndGoOn(PolicyContext& e, std::size_t gi) {
        Group& g = groups_[gi];
        const RegionMix m = mixer_.mix(e, gi, g.model.params());
        global_ = m.model;
        e.reportAggregation(regionMixRecord(e, g.aggregator, m, g.lossSum, g.lossSamples), m.model);
        resume(e, gi, m.model);
    }

    /// One exchange of models between the regions (a later one may start while regions of
    /// this one still wait for their last model).
    struct Exchange {
        std::vector<int> incoming; ///< per region: models still on their way to it
        std::vector<char> resumed;
        int inFlight = 0;
        bool allAtBarrier = false;
        bool queued = false;
        ParamsPtr model;
    };
    Exchange& exchange(long k) {
        Exchange& x = exchanges_[k];
        if (x.incoming.empty()) {
            x.incoming.assign(groups_.size(), 0);
            x.resumed.assign(groups_.size(), 0);
        }
        return x;
    }
    /// Regions holding every model resume in region order, in one event at this instant
    /// (after the other arrivals of the same instant).
    void resumeReady(PolicyContext& e, long k) {
        Exchange& x = exchanges_.at(k);
        if (x.queued) return;
        x.queued = true;
        e.at(e.now(), [this, &e, k] {
            Exchange& x = exchanges_.at(k);
            x.queued = false;
            bool all = true;
            for (std::size_t g = 0; g < groups_.size(); ++g) {
                if (!x.resumed[g] && x.incoming[g] == 0) {
                    x.resumed[g] = 1;
                    resume(e, g, x.model);
                }
                all = all && x.resumed[g];
            }
            if (all && x.inFlight == 0) exchanges_.erase(k);
        });
    }
    std::map<long, Exchange> exchanges_;
    long current_ = 0;
    bool async_ = false;
    double exponent_ = 0.0;
    AsyncRegionMixer mixer_;
};

} // namespace

FOG_SYNC_POLICY(modelAveragingPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "model-averaging";
        d.info.summary = "Several regional parameter servers each run FedAvg rounds with their own "
                         "trainers; every P regional rounds the servers exchange models over the WAN and "
                         "each replaces its model by the data-weighted average of all regions. "
                         "Asynchronous (async_averaging 1): a server sends its model to its peers and at "
                         "once mixes in the newest models it received, each weighted by its data times (1 "
                         "+ tau)^(-b), without waiting for the slowest region.";
        d.info.source = "Tan et al., Cloudless-Training (MA), Chinese High Technology Letters 2024; "
                        "asynchronous mixing reconstructed";
        d.info.params = modelAveragingParams().infos();
        d.info.shape = TreeShape::Regions;
        d.order = 80;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<ModelAveraging>(p, e);
        };
        d.asyncAveraging = [](const PolicyParams& p) { return modelAveragingParams().read(p).asyncAveraging; };
        return d;
    }();
    return d;
}

} // namespace fog
