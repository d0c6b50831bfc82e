// AdaCoOpt (IWQoS 2023) and its baselines as sync policies: FedAvg-style rounds in which
// trainer i runs tau local steps with its own batch b_i. Before every `replan_every`-th
// round the policy re-plans from the speeds it measured so far (online adaptation):
//  - adacoopt: tau and every b_i minimise the convergence bound (core/planning/adacoopt.h);
//  - no-straggler: b_i proportional to measured speed, tau fixed;
//  - dynamic-t: uniform batches, only tau minimises the bound.
// The server averages the changes weighted by data size D_i / D_S.

#include "core/planning/adacoopt.h"
#include "core/policies/round_policy.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/sync_factories.h"

#include <map>
#include <sstream>

namespace fog {

namespace {

class AdaCoOptPolicy : public RoundPolicy {
public:
    enum class Variant { Joint, NoStraggler, DynamicT };

    AdaCoOptPolicy(Variant v, const char* name, const PolicySpec& spec, const Engine& e) : variant_(v) {
        aggregator_ = singleRootAggregator(e, name);
        trainers_ = e.trainersOf(aggregator_);
        const auto& t = e.scenario().training;
        k_.eta = spec.get("eta", 0.0) > 0 ? spec.get("eta", 0.0) : t.learningRate;
        k_.c = spec.get("c", 0.1);
        k_.beta = spec.get("beta", 1.0);
        k_.rho = spec.get("rho", 1.0);
        k_.delta = spec.get("delta", 1.0);
        k_.f0 = spec.get("f0", 1.0);
        // The bound contracts by q = 1 - eta c per step: outside (0, 1) it explodes or
        // oscillates and no tau can be compared.
        if (!(k_.eta * k_.c > 0 && k_.eta * k_.c < 1))
            throw EngineError(std::string(name) + ": eta * c must lie in (0, 1) for the convergence bound, got " +
                              std::to_string(k_.eta) + " * " + std::to_string(k_.c));
        const int horizon = static_cast<int>(spec.get("horizon_rounds", 0));
        k_.rounds = horizon > 0 ? horizon : (e.scenario().stop.rounds > 0 ? e.scenario().stop.rounds : 100);
        lim_.roundTimeS = spec.get("round_time_s", 0.0);
        lim_.batchBudget = static_cast<long>(spec.get("batch_budget", 0));
        lim_.maxTau = static_cast<int>(spec.get("max_tau", 10));
        lim_.maxBatch = static_cast<int>(spec.get("max_batch", 256));
        fixedTau_ = static_cast<int>(spec.get("tau", 0)) > 0 ? static_cast<int>(spec.get("tau", 0)) : t.localSteps;
        meanBatch_ = t.batchSize;
        replanEvery_ = std::max(1, static_cast<int>(spec.get("replan_every", 1)));
        for (std::size_t i = 0; i < trainers_.size(); ++i) {
            const int n = trainers_[i];
            position_[n] = i;
            sizes_.push_back(static_cast<double>(std::max<std::int64_t>(1, e.samplesOf(n))));
            speeds_.push_back(e.topology().node(n).throughput); // nominal until measured
            comm_.push_back(expectedRoundSeconds(e, n) - e.expectedComputeSeconds(n, stepsPerDispatch(e, n), t.batchSize));
        }
        batches_.assign(trainers_.size(), meanBatch_);
    }

    void onArrival(Engine& e, const Job& job, LocalResult& result) override {
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
    DispatchOptions dispatchOptions(Engine& e, int trainer) override {
        if (plannedRound_ != round_) {
            plannedRound_ = round_;
            if ((round_ - 1) % replanEvery_ == 0) replan(e);
        }
        DispatchOptions o;
        o.batchSize = batches_[position_.at(trainer)];
        return o;
    }
    int localSteps(Engine&, int) override { return tau_; }
    void aggregate(Engine&, std::vector<Contribution>& results) override {
        double total = 0;
        for (const auto& c : results) total += sizes_[position_.at(c.trainer)];
        std::vector<double> w;
        for (const auto& c : results) w.push_back(sizes_[position_.at(c.trainer)] / total);
        model_.addDelta(weightedSum(results, w));
    }

private:
    void replan(Engine& e) {
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
        if (p.tau == tau_ && p.batches == batches_) return;
        tau_ = p.tau;
        batches_ = p.batches;
        std::ostringstream d;
        d << "tau=" << tau_ << " batches=";
        for (std::size_t i = 0; i < trainers_.size(); ++i)
            d << (i ? "," : "") << e.topology().node(trainers_[i]).spec.id << ":" << batches_[i];
        e.emitEvent("plan", aggregator_, d.str());
    }

    Variant variant_;
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

} // namespace

std::unique_ptr<SyncPolicy> makeAdaCoOpt(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<AdaCoOptPolicy>(AdaCoOptPolicy::Variant::Joint, "adacoopt", spec, e);
}
std::unique_ptr<SyncPolicy> makeNoStraggler(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<AdaCoOptPolicy>(AdaCoOptPolicy::Variant::NoStraggler, "no-straggler", spec, e);
}
std::unique_ptr<SyncPolicy> makeDynamicT(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<AdaCoOptPolicy>(AdaCoOptPolicy::Variant::DynamicT, "dynamic-t", spec, e);
}

} // namespace fog
