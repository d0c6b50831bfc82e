#include "core/policies/region_mixing.h"

#include "core/policies/aggregation.h"

#include <algorithm>
#include <cmath>

namespace fog {

void AsyncRegionMixer::setup(std::vector<int> servers, std::vector<double> weights, double stalenessExponent) {
    servers_ = std::move(servers);
    weights_ = std::move(weights);
    exponent_ = stalenessExponent;
    epochs_.assign(servers_.size(), 0);
    mail_.assign(servers_.size(), std::vector<Mail>(servers_.size()));
}

RegionMix AsyncRegionMixer::mix(PolicyContext& e, std::size_t g, const ParamsPtr& model) {
    const long epoch = ++epochs_[g];
    // The model goes to every peer over the WAN; it waits in the peer's mailbox (the newest
    // one from each sender) until the peer's next barrier.
    for (std::size_t j = 0; j < servers_.size(); ++j) {
        if (j == g) continue;
        e.send(servers_[g], servers_[j], e.modelBytes(), [this, j, g, epoch, model] {
            Mail& m = mail_[j][g];
            if (epoch <= m.epoch) return; // an older model overtaken by a newer one
            m.epoch = epoch;
            m.model = model;
            m.fresh = true;
        });
    }
    std::vector<ParamsPtr> models{model};
    std::vector<double> weights{weights_[g]};
    RegionMix out;
    double stalenessSum = 0.0;
    for (std::size_t j = 0; j < servers_.size(); ++j) {
        Mail& m = mail_[g][j];
        if (j == g || !m.fresh) continue;
        m.fresh = false;
        const long tau = std::max(0L, epoch - m.epoch);
        models.push_back(m.model);
        weights.push_back(weights_[j] * std::pow(1.0 + static_cast<double>(tau), -exponent_));
        stalenessSum += static_cast<double>(tau);
        out.maxStaleness = std::max(out.maxStaleness, static_cast<int>(tau));
    }
    out.participants = static_cast<int>(models.size());
    if (models.size() > 1) out.meanStaleness = stalenessSum / static_cast<double>(models.size() - 1);
    out.model = models.size() > 1 ? std::make_shared<Params>(weightedModelAverage(models, weights)) : model;
    return out;
}

void SyncRegionExchange::setup(std::vector<int> servers, std::vector<double> weights) {
    servers_ = std::move(servers);
    weights_ = std::move(weights);
    epochs_.assign(servers_.size(), 0);
    exchanges_.clear();
}

SyncRegionExchange::Exchange& SyncRegionExchange::exchange(long k) {
    Exchange& x = exchanges_[k];
    if (x.models.empty()) {
        x.models.assign(servers_.size(), nullptr);
        x.incoming.assign(servers_.size(), 0);
        x.resumed.assign(servers_.size(), 0);
    }
    return x;
}

void SyncRegionExchange::arrive(PolicyContext& e, std::size_t g, const ParamsPtr& model) {
    const long k = ++epochs_[g];
    Exchange& x = exchange(k);
    x.models[g] = model;
    ++x.arrived;
    for (std::size_t j = 0; j < servers_.size(); ++j) {
        if (j == g) continue;
        ++x.incoming[j];
        ++x.inFlight;
        e.send(servers_[g], servers_[j], e.modelBytes(), [this, &e, j, k] {
            Exchange& y = exchanges_.at(k);
            --y.incoming[j];
            --y.inFlight;
            settle(e, k);
        });
    }
    if (x.arrived == static_cast<int>(servers_.size()))
        x.average = std::make_shared<Params>(weightedModelAverage(x.models, weights_));
    settle(e, k);
}

void SyncRegionExchange::settle(PolicyContext& e, long k) {
    Exchange& x = exchanges_.at(k);
    if (x.arrived < static_cast<int>(servers_.size())) return;
    if (x.inFlight == 0 && !x.done) {
        x.done = true;
        if (onDone) onDone(x.average);
    }
    // Regions holding every model continue in region order, in one event at this instant
    // (after the other arrivals of the same instant).
    if (x.queued) return;
    x.queued = true;
    e.at(e.now(), [this, k] {
        Exchange& y = exchanges_.at(k);
        y.queued = false;
        bool all = true;
        for (std::size_t g = 0; g < servers_.size(); ++g) {
            if (!y.resumed[g] && y.incoming[g] == 0) {
                y.resumed[g] = 1;
                if (onReady) onReady(g, y.average);
            }
            all = all && y.resumed[g];
        }
        if (all && y.done) exchanges_.erase(k);
    });
}

AggregationRecord regionMixRecord(const SystemView& e, int server, const RegionMix& m, double& lossSum,
                                  double& lossSamples) {
    AggregationRecord r;
    r.level = 0;
    r.aggregator = e.topology().node(server).spec.id;
    r.participants = m.participants;
    if (lossSamples > 0) r.trainLoss = lossSum / lossSamples;
    lossSum = lossSamples = 0.0;
    r.meanStaleness = m.meanStaleness;
    r.maxStaleness = m.maxStaleness;
    return r;
}

} // namespace fog
