// Asynchronous SGD with staleness-damped updates (FedAsync's s(tau) = (1 + tau)^(-b)).

#include "core/policies/async_policy.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

#include <cmath>
#include <limits>

namespace fog {

AsyncPolicy::AsyncPolicy(const PolicyParams& p, const PolicyContext& e, int accumulate)
    : aggregator_(singleRootAggregator(e, p.policy())), accumulate_(accumulate),
      exponent_(p.get("staleness_exponent")), mixing_(p.get("mixing")) {
    // At most the selection's k trainers at work at once (its descriptor says what k is).
    const auto* sel = findSelectionDescriptor(e.scenario().selection.name);
    const int k = sel && sel->perRound ? sel->perRound(e.selectionParams()) : 0;
    limit_ = k > 0 ? static_cast<std::size_t>(k) : std::numeric_limits<std::size_t>::max();
}

void AsyncPolicy::start(PolicyContext& e) {
    model_ = ServerModel(e.initialModel());
    topUp(e);
}

void AsyncPolicy::topUp(PolicyContext& e) {
    if (e.stopped() || outstanding_.size() >= limit_) return;
    for (int t : e.selectTrainers(aggregator_, e.globalRound() + 1)) {
        if (outstanding_.size() >= limit_) break;
        DispatchRequest r;
        r.trainer = t;
        r.aggregator = aggregator_;
        r.model = model_.params();
        r.version = model_.version();
        r.steps = accumulate_ > 0 ? accumulate_ : 1;
        r.gradient = accumulate_ == 0;
        r.round = e.globalRound() + 1;
        outstanding_.insert(e.dispatch(r));
    }
}

void AsyncPolicy::onArrival(PolicyContext& e, const Job& job, LocalResult& result) {
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

void AsyncPolicy::onLost(PolicyContext& e, const Job& job) {
    outstanding_.erase(job.id);
    topUp(e);
}

void AsyncPolicy::onNodeOnline(PolicyContext& e, int) { topUp(e); }

FOG_SYNC_POLICY(asyncPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info = {"async",
                  "Asynchronous SGD: every trainer pulls the model, computes one gradient and pushes it; "
                  "the server applies each on arrival, scaled by s(tau) = (1 + tau)^(-b) for staleness "
                  "tau (server updates since the pull).",
                  "Xie et al., Asynchronous federated optimization (FedAsync), 2019",
                  {realParam("staleness_exponent", 0.0, 0.0, 10.0, "b in (1 + tau)^(-b); 0 = constant"),
                   realParam("mixing", 1.0, 0.0, 1.0, "a: scale of every applied update")}};
        d.order = 40;
        d.make = [](const PolicyParams& p, const PolicyContext& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<AsyncPolicy>(p, e, 0);
        };
        d.stepsPerDispatch = [](const PolicyParams&) { return 1; };
        return d;
    }();
    return d;
}

} // namespace fog
