// Asynchronous SGD with staleness-damped updates (FedAsync's s(tau) = (1 + tau)^(-b)).

#include "core/policies/async_policy.h"
#include "core/policies/round_policy.h"
#include "core/policies/sync_factories.h"

#include <cmath>
#include <limits>

namespace fog {

AsyncPolicy::AsyncPolicy(const PolicySpec& spec, const Engine& e, int accumulate)
    : aggregator_(singleRootAggregator(e, spec.name)), accumulate_(accumulate),
      exponent_(spec.get("staleness_exponent", accumulate > 0 ? 0.5 : 0.0)),
      mixing_(spec.get("mixing", 1.0)) {
    const double k = e.scenario().selection.get("k", 0.0);
    limit_ = k > 0 ? static_cast<std::size_t>(k) : std::numeric_limits<std::size_t>::max();
}

void AsyncPolicy::start(Engine& e) {
    model_ = ServerModel(e.initialModel());
    topUp(e);
}

void AsyncPolicy::topUp(Engine& e) {
    if (e.stopped() || outstanding_.size() >= limit_) return;
    for (int t : e.selectTrainers(aggregator_, e.globalRound() + 1)) {
        if (outstanding_.size() >= limit_) break;
        const int steps = accumulate_ > 0 ? accumulate_ : 1;
        outstanding_.insert(e.dispatch(t, aggregator_, model_.params(), model_.version(), steps,
                                       accumulate_ == 0, e.globalRound() + 1));
    }
}

void AsyncPolicy::onArrival(Engine& e, const Job& job, LocalResult& result) {
    if (!outstanding_.erase(job.id)) return;
    const long staleness = model_.version() - job.version;
    const double scale = mixing_ * std::pow(1.0 + static_cast<double>(staleness), -exponent_);
    const auto& t = e.scenario().training;
    if (accumulate_ > 0)
        model_.addDelta(result.update, scale);
    else
        model_.applyGradient(result.update, e.learningRate(), t.momentum, t.weightDecay, scale);
    AggregationRecord r;
    r.aggregator = e.topology().node(aggregator_).spec.id;
    r.participants = 1;
    r.trainLoss = result.meanLoss;
    r.meanStaleness = static_cast<double>(staleness);
    r.maxStaleness = static_cast<int>(staleness);
    e.reportAggregation(r, model_.params());
    topUp(e);
}

void AsyncPolicy::onLost(Engine& e, const Job& job) {
    outstanding_.erase(job.id);
    topUp(e);
}

void AsyncPolicy::onNodeOnline(Engine& e, int) { topUp(e); }

std::unique_ptr<SyncPolicy> makeAsync(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<AsyncPolicy>(spec, e, 0);
}

} // namespace fog
