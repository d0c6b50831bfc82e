// AdaCoOpt (IWQoS 2023) and its baselines as sync policies: FedAvg-style rounds in which
// trainer i runs tau local steps with its own batch b_i. Before every `replan_every`-th
// round the policy re-plans from the speeds it measured so far (online adaptation):
//  - adacoopt: tau and every b_i minimise the convergence bound (core/planning/adacoopt.h);
//  - no-straggler: b_i proportional to measured speed, tau fixed;
//  - dynamic-t: uniform batches, only tau minimises the bound.
// The server averages the changes weighted by data size D_i / D_S.
// Constants of the bound left at 0 (auto, the default) are estimated by a pilot phase before
// the first round (core/planning/pilot.h); the first plan after it states its predicted
// time, cost and accuracy.

#include "core/planning/adacoopt.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"
#include "core/policies/selection_estimates.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>

namespace fog {

namespace {

/// The parameters of the three variants; a variant's table (adaCoOptParams) declares only its
/// own, the others keep these defaults.
struct AdaCoOptSettings {
    double eta = 0.0;   ///< 0: training.learning_rate
    double c = 0.0, beta = 0.0, rho = 0.0, delta = 0.0, f0 = 0.0; ///< 0: auto (pilot)
    int pilotTrainers = 3, pilotSteps = 10;
    int horizonRounds = 0; ///< 0: stop.rounds or 100
    double roundTimeS = AdaCoOptLimits{}.roundTimeS;
    int batchBudget = static_cast<int>(AdaCoOptLimits{}.batchBudget);
    int maxTau = AdaCoOptLimits{}.maxTau;
    int maxBatch = AdaCoOptLimits{}.maxBatch;
    int tau = 0; ///< no-straggler's fixed tau; 0: training.local_steps
    int replanEvery = 1;
};

enum class AdaCoOptVariant { Joint, NoStraggler, DynamicT };

/// The bound's constants, shared by AdaCoOpt and Dynamic-T.
ParamTable<AdaCoOptSettings>& addBoundParams(ParamTable<AdaCoOptSettings>& t) {
    using S = AdaCoOptSettings;
    return t.real("eta", &S::eta, 0.0, 0.0, 1e6, "step size in the bound; 0 = training.learning_rate")
        .real("c", &S::c, 0.0, 0.0, 1e6, "strong convexity (q = 1 - eta c); 0 = auto (pilot)")
        .real("beta", &S::beta, 0.0, 0.0, 1e6, "smoothness; 0 = auto (pilot: curvature along the gradient)")
        .real("rho", &S::rho, 0.0, 0.0, 1e6, "Lipschitz constant of the loss; 0 = auto (pilot: gradient norm)")
        .real("delta", &S::delta, 0.0, 0.0, 1e6,
              "gradient divergence between devices; 0 = auto (pilot: spread of the trainers' gradients)")
        .real("f0", &S::f0, 0.0, 0.0, 1e12, "F(w0) - F*; 0 = auto (pilot: initial loss - fitted floor)")
        .integer("pilot_trainers", &S::pilotTrainers, 3, 1, "trainers of the pilot phase (when a constant is auto)")
        .integer("pilot_steps", &S::pilotSteps, 10, 2, "local steps of each pilot trainer")
        .integer("horizon_rounds", &S::horizonRounds, 0, 0, "K rounds the bound looks ahead; 0 = stop.rounds or 100")
        .real("round_time_s", &S::roundTimeS, 0.0, 0.0, 1e12,
              "time-dominant: each trainer's tau steps and traffic fit in it; 0 = none")
        .integer("max_tau", &S::maxTau, 10, 1, "largest aggregation interval considered (local steps)")
        .integer("max_batch", &S::maxBatch, 256, 1, "largest batch of one trainer")
        .integer("replan_every", &S::replanEvery, 1, 1, "rounds between re-plans from measured speeds");
}

const ParamTable<AdaCoOptSettings>& adaCoOptParams(AdaCoOptVariant v) {
    using S = AdaCoOptSettings;
    static const auto joint = [] {
        ParamTable<S> t;
        t.integer("batch_budget", &S::batchBudget, 0, 0, "cost-dominant: sum of batch sizes per step; 0 = none");
        return addBoundParams(t);
    }();
    static const auto noStraggler =
        ParamTable<S>()
            .integer("tau", &S::tau, 0, 0, "local steps per round; 0 = training.local_steps")
            .integer("max_batch", &S::maxBatch, 256, 1, "largest batch of one trainer")
            .integer("replan_every", &S::replanEvery, 1, 1, "rounds between re-plans from measured speeds");
    static const auto dynamicT = [] {
        ParamTable<S> t;
        return addBoundParams(t);
    }();
    switch (v) {
    case AdaCoOptVariant::Joint:
        return joint;
    case AdaCoOptVariant::NoStraggler:
        return noStraggler;
    case AdaCoOptVariant::DynamicT:
        break;
    }
    return dynamicT;
}

class AdaCoOptPolicy : public RoundPolicy {
public:
    using Variant = AdaCoOptVariant;

    AdaCoOptPolicy(Variant v, const PolicyParams& p, const SystemView& e) : variant_(v) {
        const std::string& name = p.policy();
        const AdaCoOptSettings s = adaCoOptParams(v).read(p);
        const bool bound = v != Variant::NoStraggler; // its table declares the bound's constants
        aggregator_ = singleRootAggregator(e, name);
        trainers_ = e.trainersOf(aggregator_);
        const auto& t = e.scenario().training;
        k_.eta = t.learningRate;
        if (bound && s.eta > 0) k_.eta = s.eta;
        // 0 = auto: estimated by the pilot phase (calibrate()); variants without a bound
        // (no-straggler) have none of them.
        const std::tuple<const char*, double, double*> constants[] = {{"c", s.c, &k_.c},
                                                                      {"beta", s.beta, &k_.beta},
                                                                      {"rho", s.rho, &k_.rho},
                                                                      {"delta", s.delta, &k_.delta},
                                                                      {"f0", s.f0, &k_.f0}};
        for (const auto& [key, value, into] : constants) {
            if (!bound) continue;
            if (value == 0.0)
                auto_.push_back(key);
            else
                *into = value;
        }
        pilotTrainers_ = s.pilotTrainers;
        pilotSteps_ = s.pilotSteps;
        name_ = name;
        if (auto_.empty() || std::find(auto_.begin(), auto_.end(), std::string("c")) == auto_.end()) checkContraction();
        const int horizon = s.horizonRounds;
        k_.rounds = horizon > 0 ? horizon : (e.scenario().stop.rounds > 0 ? e.scenario().stop.rounds : 100);
        lim_.roundTimeS = s.roundTimeS;
        lim_.batchBudget = s.batchBudget;
        lim_.maxTau = s.maxTau;
        lim_.maxBatch = s.maxBatch;
        const int tau = s.tau;
        fixedTau_ = tau > 0 ? tau : t.localSteps;
        meanBatch_ = t.batchSize;
        replanEvery_ = std::max(1, s.replanEvery);
        for (std::size_t i = 0; i < trainers_.size(); ++i) {
            const int n = trainers_[i];
            position_[n] = i;
            sizes_.push_back(static_cast<double>(std::max<std::int64_t>(1, e.samplesOf(n))));
            speeds_.push_back(e.topology().node(n).throughput); // nominal until measured
            comm_.push_back(expectedRoundSeconds(e, n) - e.expectedComputeSeconds(n, stepsPerDispatch(e, n), t.batchSize));
        }
        batches_.assign(trainers_.size(), meanBatch_);
    }

    PilotRequest pilotRequest(const SystemView& e) const override {
        PilotRequest r;
        if (auto_.empty() || variant_ == Variant::NoStraggler) return r;
        r.trainers = pilotTrainers_;
        r.steps = pilotSteps_;
        r.by = "sync.policy " + name_;
        r.aggregator = aggregator_;
        // Spread over the speeds: slowest, fastest and evenly between, then the rest.
        std::vector<std::pair<double, int>> bySpeed;
        for (std::size_t i = 0; i < trainers_.size(); ++i) bySpeed.emplace_back(e.topology().node(trainers_[i]).throughput, trainers_[i]);
        std::sort(bySpeed.begin(), bySpeed.end());
        const std::size_t n = bySpeed.size(), k = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, pilotTrainers_)));
        std::vector<bool> taken(n, false);
        for (std::size_t i = 0; i < k; ++i) {
            const std::size_t at = k == 1 ? n / 2 : (i * (n - 1) + (k - 1) / 2) / (k - 1);
            if (!taken[at]) r.candidates.push_back(bySpeed[at].second);
            taken[at] = true;
        }
        for (std::size_t i = 0; i < n; ++i)
            if (!taken[i]) r.candidates.push_back(bySpeed[i].second);
        return r;
    }

    void start(PolicyContext& e) override {
        if (!auto_.empty()) calibrate(e);
        RoundPolicy::start(e);
    }

    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override {
        // Measured speed of this dispatch (samples per second of computing), smoothed.
        const double busy = job.tComputed - job.tReceived;
        auto it = position_.find(job.trainer);
        if (outstanding_.count(job.id) && busy > 0 && it != position_.end()) {
            double& v = speeds_[it->second];
            v = 0.7 * v + 0.3 * static_cast<double>(job.samples) / busy;
        }
        RoundPolicy::onArrival(e, job, result);
    }

protected:
    bool gradientMode() const override { return false; }
    DispatchOptions dispatchOptions(PolicyContext& e, int trainer) override {
        if (plannedRound_ != round_) {
            plannedRound_ = round_;
            if ((round_ - 1) % replanEvery_ == 0) replan(e);
        }
        DispatchOptions o;
        o.batchSize = batches_[position_.at(trainer)];
        return o;
    }
    int localSteps(PolicyContext&, int) override { return tau_; }
    void aggregate(PolicyContext&, std::vector<Contribution>& results) override {
        double total = 0;
        for (const auto& c : results) total += sizes_[position_.at(c.trainer)];
        std::vector<double> w;
        for (const auto& c : results) w.push_back(sizes_[position_.at(c.trainer)] / total);
        model_.addDelta(weightedSum(results, w));
    }

private:
    /// The bound contracts by q = 1 - eta c per step: outside (0, 1) it explodes or
    /// oscillates and no tau can be compared.
    void checkContraction() const {
        if (!(k_.eta * k_.c > 0 && k_.eta * k_.c < 1))
            throw EngineError(name_ + ": eta * c must lie in (0, 1) for the convergence bound, got " +
                              std::to_string(k_.eta) + " * " + std::to_string(k_.c));
    }

    /// Auto constants from the pilot (docs/policies.md, calibrated planners); in a
    /// timing-only run (no pilot) the fallbacks, the defaults before calibration.
    void calibrate(PolicyContext& e) {
        pilot_ = e.pilot();
        const bool measured = pilot_ && pilot_->measuredLoss;
        auto isAuto = [this](const char* key) { return std::find(auto_.begin(), auto_.end(), std::string(key)) != auto_.end(); };
        if (measured) {
            // The pilot measures the contraction q per local step at the training rate.
            if (isAuto("c")) k_.c = (1.0 - pilot_->contraction) / k_.eta;
            if (isAuto("beta")) k_.beta = pilot_->smoothness;
            if (isAuto("rho")) k_.rho = pilot_->lipschitz;
            if (isAuto("delta")) k_.delta = pilot_->divergence;
            if (isAuto("f0")) k_.f0 = std::max(1e-12, pilot_->initialLoss - pilot_->lossFloor);
            predictPending_ = true;
        } else {
            if (isAuto("c")) k_.c = 0.1;
            if (isAuto("beta")) k_.beta = 1.0;
            if (isAuto("rho")) k_.rho = 1.0;
            if (isAuto("delta")) k_.delta = 1.0;
            if (isAuto("f0")) k_.f0 = 1.0;
            pilot_ = nullptr;
        }
        checkContraction();
    }

    /// The run's end as the plan sees it: K more rounds of the slowest trainer's tau steps
    /// and traffic (noise drawn from the pilot's measured step times), every trainer and the
    /// server billed meanwhile, and the test accuracy at the bound's loss F* + gap.
    std::string prediction(PolicyContext& e, const AdaCoOptPlan& p) const {
        const int stopRounds = e.scenario().stop.rounds;
        const int K = stopRounds > 0 ? std::max(0, stopRounds - (round_ - 1)) : k_.rounds;
        std::vector<double> compute;
        for (std::size_t i = 0; i < trainers_.size(); ++i) compute.push_back(p.tau * p.batches[i] / speeds_[i]);
        const double round = expectedSlowestSeconds(compute, comm_, pilot_->noiseRatios, p.tau);
        double pricePerHour = e.topology().node(aggregator_).spec.pricePerHour, traffic = 0;
        for (int t : trainers_) {
            pricePerHour += e.topology().node(t).spec.pricePerHour;
            traffic += e.topology().transfer(aggregator_, t, e.modelBytes()).price +
                       e.topology().transfer(t, aggregator_, e.modelBytes()).price;
        }
        const double loss = pilot_->lossFloor + p.gap;
        std::ostringstream d;
        d.precision(6);
        d << " predicted_time_s=" << e.now() + K * round
          << " predicted_cost=" << pilot_->cost + K * (round * pricePerHour / 3600.0 + traffic)
          << " predicted_accuracy=" << pilot_->accuracy.accuracyAt(loss) << " predicted_loss=" << loss
          << " rounds=" << K << " round_s=" << round << " bound=" << p.gap << " c=" << k_.c << " beta=" << k_.beta
          << " rho=" << k_.rho << " delta=" << k_.delta << " f0=" << k_.f0 << " " << pilot_->describe();
        return d.str();
    }

    void replan(PolicyContext& e) {
        AdaCoOptPlan p;
        switch (variant_) {
        case Variant::Joint:
            p = planAdaCoOpt(k_, sizes_, speeds_, comm_, lim_);
            break;
        case Variant::NoStraggler:
            p.tau = fixedTau_;
            p.batches = noStragglerBatches(speeds_, meanBatch_, lim_.maxBatch);
            break;
        case Variant::DynamicT:
            p = planDynamicTau(k_, sizes_, speeds_, comm_, meanBatch_, lim_);
            break;
        }
        if (p.batches.size() != trainers_.size())
            throw EngineError("internal: the batch plan has " + std::to_string(p.batches.size()) + " sizes for " +
                              std::to_string(trainers_.size()) + " trainers");
        if (p.tau == tau_ && p.batches == batches_ && !predictPending_) return;
        tau_ = p.tau;
        batches_ = p.batches;
        std::ostringstream d;
        d << "tau=" << tau_ << " batches=";
        for (std::size_t i = 0; i < trainers_.size(); ++i)
            d << (i ? "," : "") << e.topology().node(trainers_[i]).spec.id << ":" << batches_[i];
        // The first plan after the pilot states what it predicts for the run.
        if (predictPending_ && variant_ != Variant::NoStraggler) d << prediction(e, p);
        predictPending_ = false;
        e.report(PolicyEvent::Plan, aggregator_, d.str());
    }

    Variant variant_;
    std::string name_;
    std::vector<std::string> auto_; ///< constants left to the pilot
    int pilotTrainers_ = 3, pilotSteps_ = 10;
    const PilotEstimates* pilot_ = nullptr;
    bool predictPending_ = false;
    AdaCoOptConstants k_;
    AdaCoOptLimits lim_;
    int fixedTau_ = 1, meanBatch_ = 1, replanEvery_ = 1;
    std::vector<int> trainers_;
    std::map<int, std::size_t> position_;
    std::vector<double> sizes_, speeds_, comm_;
    std::vector<int> batches_;
    int tau_ = 1;
    int plannedRound_ = 0;
};

/// The three variants' descriptor: they differ in name, text, parameters and order.
template <AdaCoOptVariant V>
SyncPolicyDescriptor adaCoOptDescriptor(const char* name, const char* summary, const char* source, int order) {
    SyncPolicyDescriptor d;
    d.info.name = name;
    d.info.summary = summary;
    d.info.source = source;
    d.info.params = adaCoOptParams(V).infos();
    d.order = order;
    d.serverOptimizer = true;
    d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
        return std::make_unique<AdaCoOptPolicy>(V, p, e);
    };
    return d;
}

} // namespace

FOG_SYNC_POLICY(adaCoOptPolicy) {
    static const SyncPolicyDescriptor d = adaCoOptDescriptor<AdaCoOptVariant::Joint>(
        "adacoopt",
        "AdaCoOpt: FedAvg-style rounds where trainer i runs tau local steps with its own "
        "batch b_i; tau and all b_i minimise the convergence bound q^(K tau) F0 + [(1 - "
        "q^(K tau)) / (1 - q^tau)] [beta eta^2 sum_i D_i^2 / (2 (1 - q) D^2 b_i) + rho "
        "h(tau)], h(tau) = (delta / beta)((eta beta + 1)^tau - 1) - eta delta tau, under "
        "a round time (b_i <= v_i (T - comm_i) / tau) and/or a batch budget sum b_i <= B "
        "(greedy +1 to the largest D_i^2 / (b_i (b_i + 1)), exact); re-planned from "
        "measured speeds; w += sum (D_i / D_S) Delta_i.",
        "Joint batch size and aggregation interval (AdaCoOpt), IEEE IWQoS 2023 "
        "[reconstructed from the authors' code]",
        100);
    return d;
}

FOG_SYNC_POLICY(noStragglerPolicy) {
    static const SyncPolicyDescriptor d = adaCoOptDescriptor<AdaCoOptVariant::NoStraggler>(
        "no-straggler",
        "AdaCoOpt's No-straggler baseline: b_i = training.batch_size x v_i / mean(v) "
        "from the measured speeds v_i, so every trainer finishes its tau steps at the "
        "same time; tau fixed; w += sum (D_i / D_S) Delta_i.",
        "Baseline in AdaCoOpt, IEEE IWQoS 2023", 110);
    return d;
}

FOG_SYNC_POLICY(dynamicTPolicy) {
    static const SyncPolicyDescriptor d = adaCoOptDescriptor<AdaCoOptVariant::DynamicT>(
        "dynamic-t",
        "AdaCoOpt's Dynamic-T baseline: uniform batches (training.batch_size); only the "
        "aggregation interval tau minimises the AdaCoOpt bound (at most what the slowest "
        "trainer fits in round_time_s); w += sum (D_i / D_S) Delta_i.",
        "Baseline in AdaCoOpt, IEEE IWQoS 2023", 120);
    return d;
}

} // namespace fog
