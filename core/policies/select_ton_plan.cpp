// The ToN 2022 planner as a selection policy: at construction it plans the number of
// workers n (and iterations J) of least expected cost that reaches the loss target by the
// deadline (core/planning/ton_planner.h), rents n trainers and uses them every round; at
// the start of the run it reports the plan and its predicted time and cost as a "plan"
// event, to be drawn next to the emulated outcome.

#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/selection_policy.h"
#include "core/policies/ton_plan.h"

#include <algorithm>
#include <sstream>

namespace fog {

namespace {

class SelectTonPlan : public SelectionPolicy {
public:
    SelectTonPlan(TonPlanPoint plan, std::vector<int> rented) : plan_(std::move(plan)), rented_(std::move(rented)) {}

    void start(PolicyContext& e) override {
        std::ostringstream d;
        d << "n=" << plan_.n << " J=" << plan_.J << " predicted_time_s=" << plan_.expectedSeconds
          << " predicted_cost=" << plan_.expectedCost << " error_floor=" << plan_.errorFloor;
        e.report(PolicyEvent::Plan, -1, d.str());
    }
    std::vector<int> select(const PolicyContext&, int, int, const std::vector<int>& candidates, Rng&) override {
        std::vector<int> out;
        std::set_intersection(candidates.begin(), candidates.end(), rented_.begin(), rented_.end(),
                              std::back_inserter(out));
        return out;
    }

private:
    TonPlanPoint plan_;
    std::vector<int> rented_; ///< ascending node indices
};

} // namespace

TonPlannerInputs tonPlannerInputs(const PolicyParams& p, const PolicyContext& e) {
    const std::string& name = p.policy();
    const auto roots = e.topology().rootAggregators();
    if (roots.size() != 1)
        throw EngineError("selection policy " + name + " plans one parameter server, the topology has " +
                          std::to_string(roots.size()) + " root aggregators");
    const auto trainers = e.topology().trainersOf(roots.front());
    if (trainers.empty())
        throw EngineError("selection policy " + name + " needs trainers directly under the parameter server '" +
                          e.topology().node(roots.front()).spec.id + "' (it plans one level of workers)");
    TonPlannerInputs in;
    // The planner models the barrier of the sync policy's rounds (its descriptor says which).
    const auto* sync = findSyncDescriptor(e.scenario().sync.name);
    if (!sync || !sync->hasBarrier)
        throw EngineError("selection policy " + name + " plans " + barrierSyncNames() + ", not '" +
                          e.scenario().sync.name + "'");
    switch (sync->barrier.kind) {
    case BarrierKind::FullySync:
        in.sync = TonPlannerInputs::Sync::Full;
        break;
    case BarrierKind::FirstK:
        in.sync = TonPlannerInputs::Sync::NSync;
        break;
    case BarrierKind::FirstBatches:
        in.sync = TonPlannerInputs::Sync::NBatchSync;
        break;
    }
    if (!sync->barrier.countKey.empty()) in.syncN = e.syncParams().integer(sync->barrier.countKey);
    in.eta = p.get("eta") > 0 ? p.get("eta") : e.scenario().training.learningRate;
    in.c = p.get("c");
    in.mu = p.get("mu");
    in.L = p.get("L");
    in.M = p.get("M");
    in.batch = e.scenario().training.batchSize;
    in.initialGap = p.get("f0_gap");
    in.targetGap = p.get("target_gap");
    in.deadlineS = p.get("deadline_s");
    const int cap = p.integer("max_workers");
    in.maxWorkers = cap > 0 ? std::min<int>(cap, static_cast<int>(trainers.size())) : static_cast<int>(trainers.size());
    // The model assumes alike workers: use the means over the trainers.
    double stepSeconds = 0, comm = 0, q = 0, price = 0;
    for (int t : trainers) {
        stepSeconds += e.expectedComputeSeconds(t, 1, in.batch);
        comm += expectedRoundSeconds(e, t) - e.expectedComputeSeconds(t, stepsPerDispatch(e, t), in.batch);
        q += stationaryAvailability(e, t);
        price += e.topology().node(t).spec.pricePerHour;
    }
    const double n = static_cast<double>(trainers.size());
    in.lambda = n / stepSeconds;
    in.commSeconds = comm / n;
    in.availability = q / n;
    in.pricePerHour = price / n;
    return in;
}

namespace {

std::unique_ptr<SelectionPolicy> makeSelectTonPlan(const PolicyParams& p, const PolicyContext& e) {
    const TonPlannerInputs in = tonPlannerInputs(p, e);
    const TonPlan plan = planTon(in);
    if (plan.best < 0) {
        // Say why the most promising size fails: the largest n has the lowest floor.
        const auto& last = plan.grid.back();
        throw EngineError("selection policy " + p.policy() + ": no number of workers up to " + std::to_string(in.maxWorkers) +
                          " reaches target_gap " + std::to_string(in.targetGap) + " in time (with " +
                          std::to_string(last.n) + " workers: " + last.why + ")");
    }
    const TonPlanPoint best = plan.grid[static_cast<std::size_t>(plan.best)];
    // Rent the n fastest trainers (alike in the model; in the emulation the fastest first).
    std::vector<std::pair<double, int>> bySpeed;
    for (int t : e.topology().trainersOf(e.topology().rootAggregators().front()))
        bySpeed.emplace_back(expectedRoundSeconds(e, t), t);
    std::sort(bySpeed.begin(), bySpeed.end());
    std::vector<int> rented;
    for (int i = 0; i < best.n; ++i) rented.push_back(bySpeed[static_cast<std::size_t>(i)].second);
    std::sort(rented.begin(), rented.end());
    return std::make_unique<SelectTonPlan>(best, std::move(rented));
}

} // namespace

FOG_SELECTION_POLICY(selectTonPlanPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info = {"ton-plan",
                  "Planner for parameter-server SGD on volatile workers: for each n, y ~ Bin(n, q) workers "
                  "are up per iteration; the error floor A(n) = eta L M E[1/y] / (2 c mu b) must be below "
                  "the target gap eps, J = ceil(log((eps - A) / (F0 - A)) / log(1 - eta c mu)) "
                  "iterations, E[T] = J (E[R(y) | y > 0] + comm) / P(y > 0) with R(y) the sync policy's "
                  "closed form (H_y / lambda for fully-sync), cost = n q price E[T]. Picks the least-cost "
                  "n meeting the deadline, rents the n fastest trainers and reports the plan (n, J, "
                  "predicted time and cost) as a 'plan' event. Needs fully-sync, n-sync or n-batch-sync.",
                  "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022 [reconstructed]",
                  {realParam("target_gap", 0.1, 0.0, 1e12, "eps: wanted F(w_J) - F* (loss units)"),
                   realParam("deadline_s", 0.0, 0.0, 1e12, "seconds the job may take; 0 = none"),
                   realParam("f0_gap", 1.0, 0.0, 1e12, "F(w0) - F* at the start (loss units)"),
                   realParam("eta", 0.0, 0.0, 1e6, "step size; 0 = training.learning_rate"),
                   realParam("c", 1.0, 1e-12, 1e12, "strong convexity constant"),
                   realParam("mu", 1.0, 1e-12, 1e12, "gradient-direction constant mu"),
                   realParam("L", 1.0, 1e-12, 1e12, "smoothness constant"),
                   realParam("M", 1.0, 0.0, 1e12, "gradient-noise constant"),
                   intParam("max_workers", 0, 0, "largest n considered; 0 = all trainers")}};
        d.order = 90;
        d.make = makeSelectTonPlan;
        d.needsBarrierSync = true;
        d.serverTrainersOnly = "plans and rents only the trainers right under the parameter server";
        return d;
    }();
    return d;
}

} // namespace fog
