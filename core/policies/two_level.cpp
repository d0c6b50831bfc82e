#include "core/policies/two_level.h"

#include <cmath>

namespace fog {

void TwoLevelPolicy::start(PolicyContext& e) {
    global_ = e.initialModel();
    for (auto& g : groups_) {
        g.model = ServerModel(global_);
        for (int t : e.topology().trainersOf(g.aggregator)) g.weight += static_cast<double>(e.samplesOf(t));
    }
    for (std::size_t g = 0; g < groups_.size(); ++g) beginGroupRound(e, g);
}

void TwoLevelPolicy::beginGroupRound(PolicyContext& e, std::size_t gi) {
    if (e.stopped()) return;
    Group& g = groups_[gi];
    g.results.clear();
    g.outstanding.clear();
    const auto selected = e.selectTrainers(g.aggregator, e.globalRound() + 1);
    g.waiting = selected.empty();
    for (int t : selected) {
        DispatchRequest r;
        r.trainer = t;
        r.aggregator = g.aggregator;
        r.model = g.model.params();
        r.version = g.model.version();
        r.steps = innerSteps_ > 0 ? innerSteps_ : e.localStepsOf(t);
        r.gradient = false;
        r.round = e.globalRound() + 1;
        r.options.tag = static_cast<int>(gi);
        g.outstanding.insert(e.dispatch(r));
    }
}

void TwoLevelPolicy::onArrival(PolicyContext& e, const Job& job, LocalResult& result) {
    const auto gi = static_cast<std::size_t>(job.tag);
    Group& g = groups_[gi];
    if (!g.outstanding.erase(job.id)) return;
    g.results.push_back({job.trainer, result.samples, result.meanLoss, 0, std::move(result.update)});
    if (g.outstanding.empty()) completeGroupRound(e, gi);
}

void TwoLevelPolicy::onLost(PolicyContext& e, const Job& job) {
    const auto gi = static_cast<std::size_t>(job.tag);
    Group& g = groups_[gi];
    if (!g.outstanding.erase(job.id)) return;
    if (g.outstanding.empty()) completeGroupRound(e, gi);
}

void TwoLevelPolicy::onNodeOnline(PolicyContext& e, int node) {
    const int agg = e.topology().node(node).aggregator;
    for (std::size_t gi = 0; gi < groups_.size(); ++gi)
        if (groups_[gi].aggregator == agg && groups_[gi].waiting && !groups_[gi].atBarrier)
            beginGroupRound(e, gi);
}

void TwoLevelPolicy::completeGroupRound(PolicyContext& e, std::size_t gi) {
    Group& g = groups_[gi];
    AggregationRecord r;
    r.level = 1;
    r.aggregator = e.topology().node(g.aggregator).spec.id;
    r.participants = static_cast<int>(g.results.size());
    r.trainLoss = meanLoss(g.results);
    for (const auto& c : g.results) {
        if (std::isnan(c.loss)) continue;
        g.lossSum += c.loss * static_cast<double>(c.samples);
        g.lossSamples += static_cast<double>(c.samples);
    }
    if (!g.results.empty()) g.model.addDelta(sampleWeightedUpdate(g.results));
    g.results.clear();
    e.reportAggregation(r, g.model.params());
    if (++g.rounds < period_) {
        beginGroupRound(e, gi);
        return;
    }
    g.rounds = 0;
    g.atBarrier = true;
    onBarrier(e, gi);
    for (const auto& other : groups_)
        if (!other.atBarrier) return;
    onAllAtBarrier(e);
}

void TwoLevelPolicy::averageGroups() {
    std::vector<ParamsPtr> models;
    std::vector<double> weights;
    for (const auto& g : groups_) {
        models.push_back(g.model.params());
        weights.push_back(g.weight);
    }
    global_ = std::make_shared<Params>(weightedModelAverage(models, weights));
}

void TwoLevelPolicy::reportGlobal(PolicyContext& e, const ParamsPtr& model) {
    AggregationRecord r;
    r.level = 0;
    r.aggregator = e.topology().node(root_).spec.id;
    r.participants = static_cast<int>(groups_.size());
    // The global round's training loss: the groups' rounds it closes, weighted by samples.
    double sum = 0.0, samples = 0.0;
    for (auto& g : groups_) {
        sum += g.lossSum;
        samples += g.lossSamples;
        g.lossSum = g.lossSamples = 0.0;
    }
    if (samples > 0) r.trainLoss = sum / samples;
    e.reportAggregation(r, model);
}

void TwoLevelPolicy::resume(PolicyContext& e, std::size_t gi, const ParamsPtr& model) {
    Group& g = groups_[gi];
    g.model.set(model);
    g.atBarrier = false;
    beginGroupRound(e, gi);
}

} // namespace fog
