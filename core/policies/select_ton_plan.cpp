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

struct TonPlanSettings {
    double targetGap = 0.0;      ///< eps
    double targetAccuracy = 0.0; ///< 0: use targetGap
    double deadlineSeconds = 0.0;
    double f0Gap = 0.0;          ///< 0: auto
    double eta = 0.0;            ///< 0: training.learning_rate
    double c = 0.0;              ///< 0: auto
    double mu = 0.0;
    double L = 0.0;              ///< 0: auto
    double M = 0.0;              ///< 0: auto
    int maxWorkers = 0;          ///< 0: all trainers
    int pilotTrainers = 0;
    int pilotSteps = 0;
};

const ParamTable<TonPlanSettings>& tonPlanParams() {
    using S = TonPlanSettings;
    static const auto t =
        ParamTable<S>()
            .real("target_gap", &S::targetGap, 0.1, 0.0, 1e12, "eps: wanted F(w_J) - F* (loss units)")
            .real("target_accuracy", &S::targetAccuracy, 0.0, 0.0, 1.0,
                  "wanted test accuracy, turned into eps through the pilot's loss-to-accuracy "
                  "relation; 0 = use target_gap")
            .real("deadline_s", &S::deadlineSeconds, 0.0, 0.0, 1e12, "seconds the job may take; 0 = none")
            .real("f0_gap", &S::f0Gap, 0.0, 0.0, 1e12, "F(w0) - F* at the start (loss units); 0 = auto (pilot)")
            .real("eta", &S::eta, 0.0, 0.0, 1e6, "step size; 0 = training.learning_rate")
            .real("c", &S::c, 0.0, 0.0, 1e12, "strong convexity constant; 0 = auto (pilot: q = 1 - lr c)")
            .real("mu", &S::mu, 1.0, 1e-12, 1e12, "gradient-direction constant mu (1: unbiased gradients)")
            .real("L", &S::L, 0.0, 0.0, 1e12, "smoothness constant; 0 = auto (pilot: curvature along the gradient)")
            .real("M", &S::M, 0.0, 0.0, 1e12, "gradient-noise constant; 0 = auto (pilot: per-sample variance)")
            .integer("max_workers", &S::maxWorkers, 0, 0, "largest n considered; 0 = all trainers")
            .integer("pilot_trainers", &S::pilotTrainers, 3, 1, "trainers of the pilot phase (when a constant is auto)")
            .integer("pilot_steps", &S::pilotSteps, 10, 2, "local steps of each pilot trainer");
    return t;
}

/// Some constant of the bound is left to the pilot (0 = auto), or the target is an accuracy.
bool anyAuto(const TonPlanSettings& s) {
    for (double v : {s.c, s.L, s.M, s.f0Gap})
        if (v == 0.0) return true;
    return s.targetAccuracy > 0;
}

/// Before the pilot's estimates are known: auto constants take the fallback values (the
/// defaults before calibration, 1 each), as in a timing-only run.
void fillFallbacks(TonPlannerInputs& in) {
    if (in.c == 0.0) in.c = 1.0;
    if (in.L == 0.0) in.L = 1.0;
    if (in.M == 0.0) in.M = 1.0;
    if (in.initialGap == 0.0) in.initialGap = 1.0;
}

/// Rents the plan's n fastest trainers (alike in the model; in the emulation the fastest).
std::vector<int> fastestTrainers(const SystemView& e, int n) {
    std::vector<std::pair<double, int>> bySpeed;
    for (int t : e.topology().trainersOf(e.topology().rootAggregators().front()))
        bySpeed.emplace_back(expectedRoundSeconds(e, t), t);
    std::sort(bySpeed.begin(), bySpeed.end());
    std::vector<int> out;
    for (int i = 0; i < n && i < static_cast<int>(bySpeed.size()); ++i) out.push_back(bySpeed[static_cast<std::size_t>(i)].second);
    return out;
}

TonPlanPoint bestOrThrow(const PolicyParams& p, const TonPlannerInputs& in, const TonPlan& plan) {
    if (plan.best < 0) {
        // Say why the most promising size fails: the largest n has the lowest floor.
        const auto& last = plan.grid.back();
        throw EngineError("selection policy " + p.policy() + ": no number of workers up to " + std::to_string(in.maxWorkers) +
                          " reaches target_gap " + std::to_string(in.targetGap) + " in time (with " +
                          std::to_string(last.n) + " workers: " + last.why + ")");
    }
    return plan.grid[static_cast<std::size_t>(plan.best)];
}

class SelectTonPlan : public SelectionPolicy {
public:
    /// A plan made at construction (every constant given: the uncalibrated planner).
    SelectTonPlan(TonPlanPoint plan, std::vector<int> rented) : plan_(std::move(plan)), rented_(std::move(rented)) {}
    /// A plan made in start(), from the pilot's estimates; until then the trainers of the
    /// plan with the fallback constants (all of them if it has none).
    SelectTonPlan(PolicyParams params, std::vector<int> provisional)
        : rented_(std::move(provisional)), params_(std::move(params)), settings_(tonPlanParams().read(params_)),
          calibrate_(true) {}

    PilotRequest pilotRequest(const SystemView& e) const override {
        PilotRequest r;
        if (!calibrate_) return r;
        r.trainers = settings_.pilotTrainers;
        r.steps = settings_.pilotSteps;
        r.by = "selection.policy " + params_.policy();
        r.aggregator = e.topology().rootAggregators().front();
        r.candidates = fastestTrainers(e, static_cast<int>(e.topology().trainersOf(r.aggregator).size()));
        return r;
    }

    void start(PolicyContext& e) override {
        std::ostringstream d;
        if (calibrate_) {
            calibrated(e, d);
        } else {
            d << "n=" << plan_.n << " J=" << plan_.J << " predicted_time_s=" << plan_.expectedSeconds
              << " predicted_cost=" << plan_.expectedCost << " error_floor=" << plan_.errorFloor;
        }
        e.report(PolicyEvent::Plan, -1, d.str());
    }
    std::vector<int> select(const SystemView&, int, int, const std::vector<int>& candidates, Rng&) override {
        std::vector<int> out;
        std::set_intersection(candidates.begin(), candidates.end(), rented_.begin(), rented_.end(),
                              std::back_inserter(out));
        return out;
    }

private:
    /// The constants from the pilot (auto ones), the plan, and its prediction of the run's
    /// end: the pilot's time and cost plus the plan's expected time and cost (with the
    /// server's price and the traffic, which the planner's own cost leaves out), and the
    /// test accuracy at the target loss F* + eps.
    void calibrated(PolicyContext& e, std::ostringstream& d) {
        // Read again at the plan's instant, the pilot's end: timed events may have changed
        // the sync policy's n (n-sync, n-batch-sync: read live), prices, throughput or
        // availability since the run was built.
        TonPlannerInputs in = tonPlannerInputs(params_, e);
        const PilotEstimates* pilot = e.pilot();
        const bool measured = pilot && pilot->measuredLoss;
        if (measured) {
            // The pilot measures the contraction q per step; the bound's is 1 - eta c mu.
            if (in.c == 0.0) in.c = (1.0 - pilot->contraction) / (in.eta * in.mu);
            if (in.L == 0.0) in.L = pilot->smoothness;
            if (in.M == 0.0) in.M = std::max(1e-12, pilot->gradientVariance);
            if (in.initialGap == 0.0) in.initialGap = std::max(1e-12, pilot->initialLoss - pilot->lossFloor);
            const double target = settings_.targetAccuracy;
            if (target > 0) in.targetGap = std::max(1e-12, pilot->accuracy.lossAt(target) - pilot->lossFloor);
        } else {
            fillFallbacks(in); // timing-only (target_accuracy was refused when the run was built)
        }
        const TonPlan plan = planTon(in);
        plan_ = bestOrThrow(params_, in, plan);
        std::vector<int> rented = fastestTrainers(e, plan_.n);
        std::sort(rented.begin(), rented.end());
        rented_ = rented;
        d.precision(6);
        d << "n=" << plan_.n << " J=" << plan_.J;
        if (!measured) {
            d << " predicted_time_s=" << plan_.expectedSeconds << " predicted_cost=" << plan_.expectedCost
              << " error_floor=" << plan_.errorFloor << " constants=fallback(timing-only: no loss to measure)";
            return;
        }
        // What the run bills besides the rented workers while the plan runs.
        const int server = e.topology().rootAggregators().front();
        double traffic = 0;
        for (int t : rented_)
            traffic += e.topology().transfer(server, t, e.modelBytes()).price +
                       e.topology().transfer(t, server, e.modelBytes()).price;
        traffic /= std::max<std::size_t>(1, rented_.size());
        const double up = binomialPositiveProbability(plan_.n, in.availability);
        const double tries = up > 0 ? static_cast<double>(plan_.J) / up : 0.0;
        const double cost = pilot->cost + plan_.expectedCost +
                            e.topology().node(server).spec.pricePerHour * plan_.expectedSeconds / 3600.0 +
                            tries * plan_.n * in.availability * traffic;
        const double targetLoss = pilot->lossFloor + in.targetGap;
        d << " predicted_time_s=" << pilot->endTime + plan_.expectedSeconds << " predicted_cost=" << cost
          << " predicted_accuracy=" << pilot->accuracy.accuracyAt(targetLoss) << " predicted_loss=" << targetLoss
          << " error_floor=" << plan_.errorFloor << " target_gap=" << in.targetGap << " c=" << in.c << " L=" << in.L
          << " M=" << in.M << " f0_gap=" << in.initialGap << " " << pilot->describe();
    }

    TonPlanPoint plan_;
    std::vector<int> rented_; ///< ascending node indices
    PolicyParams params_;
    TonPlanSettings settings_;
    bool calibrate_ = false;
};

} // namespace

TonPlannerInputs tonPlannerInputs(const PolicyParams& p, const SystemView& e) {
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
    if (sync->barrier.count) in.syncN = sync->barrier.count.read(e.syncParams());
    const TonPlanSettings s = tonPlanParams().read(p);
    in.eta = s.eta > 0 ? s.eta : e.scenario().training.learningRate;
    in.c = s.c;
    in.mu = s.mu;
    in.L = s.L;
    in.M = s.M;
    in.batch = e.scenario().training.batchSize;
    in.initialGap = s.f0Gap;
    in.targetGap = s.targetGap;
    in.deadlineS = s.deadlineSeconds;
    const int cap = s.maxWorkers;
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

std::unique_ptr<SelectionPolicy> makeSelectTonPlan(const PolicyParams& p, const SystemView& e) {
    TonPlannerInputs in = tonPlannerInputs(p, e);
    const TonPlanSettings s = tonPlanParams().read(p);
    if (s.targetAccuracy > 0 && !e.trainsModel())
        throw EngineError("selection policy " + p.policy() +
                          ": target_accuracy needs the pilot's loss-to-accuracy relation, and this run has no loss "
                          "(timing-only): give target_gap instead");
    if (anyAuto(s)) {
        // The topology and sync policy were checked above; the plan waits for the pilot.
        TonPlannerInputs fallback = in;
        fillFallbacks(fallback);
        const TonPlan provisional = planTon(fallback);
        const int n = provisional.best >= 0 ? provisional.grid[static_cast<std::size_t>(provisional.best)].n
                                            : static_cast<int>(e.topology().trainersOf(e.topology().rootAggregators().front()).size());
        std::vector<int> rented = fastestTrainers(e, n);
        std::sort(rented.begin(), rented.end());
        return std::make_unique<SelectTonPlan>(p, std::move(rented));
    }
    const TonPlan plan = planTon(in);
    const TonPlanPoint best = bestOrThrow(p, in, plan);
    std::vector<int> rented = fastestTrainers(e, best.n);
    std::sort(rented.begin(), rented.end());
    return std::make_unique<SelectTonPlan>(best, std::move(rented));
}

} // namespace

FOG_SELECTION_POLICY(selectTonPlanPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "ton-plan";
        d.info.summary = "Planner for parameter-server SGD on volatile workers: for each n, y ~ Bin(n, q) "
                         "workers are up per iteration; the error floor A(n) = eta L M E[1/y] / (2 c mu "
                         "b) must be below the target gap eps, J = ceil(log((eps - A) / (F0 - A)) / log(1 "
                         "- eta c mu)) iterations, E[T] = J (E[R(y) | y > 0] + comm) / P(y > 0) with R(y) "
                         "the sync policy's closed form (H_y / lambda for fully-sync), cost = n q price "
                         "E[T]. Picks the least-cost n meeting the deadline, rents the n fastest trainers "
                         "and reports the plan (n, J, predicted time and cost) as a 'plan' event. "
                         "Constants left at 0 (auto) are estimated by a pilot phase first "
                         "(docs/policies.md, calibrated planners), and the plan then also predicts the "
                         "test accuracy. Needs fully-sync, n-sync or n-batch-sync.";
        d.info.source = "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022 [reconstructed]";
        d.info.params = tonPlanParams().infos();
        d.order = 90;
        d.make = makeSelectTonPlan;
        d.needsBarrierSync = true;
        d.serverTrainersOnly = "plans and rents only the trainers right under the parameter server";
        return d;
    }();
    return d;
}

} // namespace fog
