#include "core/policies/round_policy.h"

namespace fog {

int singleRootAggregator(const SystemView& e, const std::string& policy) {
    const auto roots = e.topology().rootAggregators();
    if (roots.size() != 1)
        throw EngineError("sync policy " + policy + " needs exactly one root aggregator, the topology has " +
                          std::to_string(roots.size()) + " (use model-averaging or async-ga for several regions)");
    return roots.front();
}

void RoundPolicy::start(PolicyContext& e) {
    model_ = ServerModel(e.initialModel(), serverOptimizerConfig(e.scenario().training));
    beginRound(e);
}

std::uint64_t RoundPolicy::dispatchTo(PolicyContext& e, int trainer, bool download) {
    DispatchOptions o = dispatchOptions(e, trainer);
    o.download = download;
    const int steps = localSteps(e, trainer);
    DispatchRequest r;
    r.trainer = trainer;
    r.aggregator = aggregator_;
    r.model = model_.params();
    r.version = model_.version();
    r.steps = steps;
    r.gradient = gradientMode();
    r.round = round_;
    r.options = o;
    prepareDispatch(e, r);
    const auto id = e.dispatch(r);
    outstanding_.insert(id);
    return id;
}

void RoundPolicy::beginRound(PolicyContext& e) {
    if (e.stopped()) return;
    results_.clear();
    outstanding_.clear();
    const auto selected = e.selectTrainers(aggregator_, e.globalRound() + 1);
    if (selected.empty()) {
        waiting_ = true;
        return;
    }
    waiting_ = false;
    ++round_;
    for (int t : selected) dispatchTo(e, t);
    dispatched_ = selected.size();
    onRoundStarted(e);
    if (const double seconds = roundDeadline(e); seconds > 0)
        deadline_ = e.at(e.now() + seconds, [this, &e] {
            deadline_ = 0;
            if (!outstanding_.empty() && !waiting_) completeRound(e);
        });
}

void RoundPolicy::onArrival(PolicyContext& e, const Job& job, LocalResult& result) {
    if (!outstanding_.erase(job.id)) return;
    results_.push_back({job.trainer, result.samples, result.meanLoss,
                        model_.version() - job.version, std::move(result.update),
                        static_cast<int>(job.batchSizes.size()), job.stepsRequested});
    if (results_.size() >= needed(dispatched_)) {
        completeRound(e);
        return;
    }
    onPartial(e, job);
    if (outstanding_.empty()) completeRound(e); // nobody left who could deliver
}

void RoundPolicy::onLost(PolicyContext& e, const Job& job) {
    if (!outstanding_.erase(job.id)) return;
    if (outstanding_.empty()) completeRound(e);
}

void RoundPolicy::onNodeOnline(PolicyContext& e, int node) {
    (void)node;
    if (waiting_) beginRound(e);
}

void RoundPolicy::completeRound(PolicyContext& e) {
    e.cancelTimer(deadline_); // the round ended before its deadline (or at it: nothing)
    deadline_ = 0;
    for (auto id : outstanding_) e.cancelJob(id);
    outstanding_.clear();
    if (const double seconds = serverWorkSeconds(e, results_.size()); seconds > 0) {
        e.chargeWork(aggregator_, seconds);
        e.at(e.now() + seconds, [this, &e] { finishRound(e); });
        return;
    }
    finishRound(e);
}

void RoundPolicy::finishRound(PolicyContext& e) {
    AggregationRecord r;
    r.aggregator = e.topology().node(aggregator_).spec.id;
    r.participants = static_cast<int>(results_.size());
    r.trainLoss = meanLoss(results_);
    long maxStale = 0;
    double staleSum = 0;
    for (const auto& c : results_) {
        maxStale = std::max(maxStale, c.staleness);
        staleSum += static_cast<double>(c.staleness);
    }
    r.maxStaleness = static_cast<int>(maxStale);
    r.meanStaleness = results_.empty() ? 0.0 : staleSum / results_.size();
    // A round in which every trainer was lost takes time but changes nothing.
    if (!results_.empty()) aggregate(e, results_);
    results_.clear();
    e.reportAggregation(r, model_.params());
    beginRound(e);
}

} // namespace fog
