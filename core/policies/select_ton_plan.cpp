// The ToN 2022 planner as a selection policy: at construction it plans the number of
// workers n (and iterations J) of least expected cost that reaches the loss target by the
// deadline (core/planning/ton_planner.h), rents n trainers and uses them every round; at
// the start of the run it reports the plan and its predicted time and cost as a "plan"
// event, to be drawn next to the emulated outcome.

#include "core/policies/selection_estimates.h"
#include "core/policies/ton_plan.h"
#include "core/policies/selection_factories.h"

#include <algorithm>
#include <sstream>

namespace fog {

namespace {

class SelectTonPlan : public SelectionPolicy {
public:
    SelectTonPlan(TonPlanPoint plan, std::vector<int> rented) : plan_(std::move(plan)), rented_(std::move(rented)) {}

    void start(Engine& e) override {
        std::ostringstream d;
        d << "n=" << plan_.n << " J=" << plan_.J << " predicted_time_s=" << plan_.expectedSeconds
          << " predicted_cost=" << plan_.expectedCost << " error_floor=" << plan_.errorFloor;
        e.emitEvent("plan", -1, d.str());
    }
    std::vector<int> select(const Engine&, int, int, const std::vector<int>& candidates, Rng&) override {
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

TonPlannerInputs tonPlannerInputs(const PolicySpec& spec, const Engine& e) {
    const auto roots = e.topology().rootAggregators();
    if (roots.size() != 1)
        throw EngineError("selection policy ton-plan plans one parameter server, the topology has " +
                          std::to_string(roots.size()) + " root aggregators");
    const auto trainers = e.topology().trainersOf(roots.front());
    if (trainers.empty())
        throw EngineError("selection policy ton-plan needs trainers directly under the parameter server '" +
                          e.topology().node(roots.front()).spec.id + "' (it plans one level of workers)");
    TonPlannerInputs in;
    const auto& sync = e.scenario().sync;
    if (sync.name == "fully-sync") {
        in.sync = TonPlannerInputs::Sync::Full;
    } else if (sync.name == "n-sync") {
        in.sync = TonPlannerInputs::Sync::NSync;
        in.syncN = static_cast<int>(sync.get("n", 1));
    } else if (sync.name == "n-batch-sync") {
        in.sync = TonPlannerInputs::Sync::NBatchSync;
        in.syncN = static_cast<int>(sync.get("m", 1));
    } else {
        throw EngineError("selection policy ton-plan plans fully-sync, n-sync or n-batch-sync, not '" +
                          sync.name + "'");
    }
    in.eta = spec.get("eta", 0.0) > 0 ? spec.get("eta", 0.0) : e.scenario().training.learningRate;
    in.c = spec.get("c", 1.0);
    in.mu = spec.get("mu", 1.0);
    in.L = spec.get("L", 1.0);
    in.M = spec.get("M", 1.0);
    in.batch = e.scenario().training.batchSize;
    in.initialGap = spec.get("f0_gap", 1.0);
    in.targetGap = spec.get("target_gap", 0.1);
    in.deadlineS = spec.get("deadline_s", 0.0);
    const int cap = static_cast<int>(spec.get("max_workers", 0));
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

std::unique_ptr<SelectionPolicy> makeSelectTonPlan(const PolicySpec& spec, const Engine& e) {
    const TonPlannerInputs in = tonPlannerInputs(spec, e);
    const TonPlan plan = planTon(in);
    if (plan.best < 0) {
        // Say why the most promising size fails: the largest n has the lowest floor.
        const auto& last = plan.grid.back();
        throw EngineError("selection policy ton-plan: no number of workers up to " + std::to_string(in.maxWorkers) +
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

} // namespace fog
