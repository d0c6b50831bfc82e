// FedBuff (Nguyen et al., Federated learning with buffered asynchronous aggregation, AISTATS
// 2022): trainers work asynchronously (at most the selection's k at once, as async), each
// running the local steps from the model it pulled; the server buffers their changes and,
// once K are in, applies their staleness-weighted mean and starts a new model version.

#include "core/policies/aggregation.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"
#include "core/policies/selection_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace fog {

namespace {

struct FedBuffSettings {
    int buffer = 0;                ///< K: changes per server step
    double stalenessExponent = 0.0; ///< b in (1 + tau)^(-b)
};

const ParamTable<FedBuffSettings>& fedBuffParams() {
    static const auto t = ParamTable<FedBuffSettings>()
                              .integer("buffer", &FedBuffSettings::buffer, 10, 1, "K: changes per server step", 1e6)
                              .real("staleness_exponent", &FedBuffSettings::stalenessExponent, 0.5, 0.0, 10.0,
                                    "b in (1 + tau)^(-b); 0 = plain mean");
    return t;
}

class FedBuff : public SyncPolicy {
public:
    FedBuff(const FedBuffSettings& s, const std::string& policy, const SystemView& e)
        : buffer_(static_cast<std::size_t>(s.buffer)), exponent_(s.stalenessExponent) {
        aggregator_ = singleRootAggregator(e, policy);
        const auto* sel = findSelectionDescriptor(e.scenario().selection.name);
        const int k = sel && sel->perRound ? sel->perRound(e.selectionParams()) : 0;
        limit_ = k > 0 ? static_cast<std::size_t>(k) : std::numeric_limits<std::size_t>::max();
    }

    void start(PolicyContext& e) override {
        model_ = ServerModel(e.initialModel(), serverOptimizerConfig(e.scenario().training));
        topUp(e);
    }
    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override {
        if (!outstanding_.erase(job.id)) return;
        held_.push_back({job.trainer, result.samples, result.meanLoss, model_.version() - job.version,
                         std::move(result.update), static_cast<int>(job.batchSizes.size()), job.stepsRequested});
        if (held_.size() >= buffer_) flush(e);
        topUp(e);
    }
    void onLost(PolicyContext& e, const Job& job) override {
        outstanding_.erase(job.id);
        topUp(e);
    }
    void onNodeOnline(PolicyContext& e, int) override { topUp(e); }
    ParamsPtr globalModel() const override { return model_.params(); }

private:
    void topUp(PolicyContext& e) {
        if (e.stopped() || outstanding_.size() >= limit_) return;
        for (int t : e.selectTrainers(aggregator_, e.globalRound() + 1)) {
            if (outstanding_.size() >= limit_) break;
            DispatchRequest r;
            r.trainer = t;
            r.aggregator = aggregator_;
            r.model = model_.params();
            r.version = model_.version();
            r.steps = e.localStepsOf(t);
            r.round = e.globalRound() + 1;
            outstanding_.insert(e.dispatch(r));
        }
    }
    void flush(PolicyContext& e) {
        AggregationRecord r;
        r.aggregator = e.topology().id(aggregator_);
        r.participants = static_cast<int>(held_.size());
        r.trainLoss = meanLoss(held_);
        long maxStale = 0;
        double staleSum = 0.0;
        for (const auto& c : held_) {
            maxStale = std::max(maxStale, c.staleness);
            staleSum += static_cast<double>(c.staleness);
        }
        r.maxStaleness = static_cast<int>(maxStale);
        r.meanStaleness = staleSum / static_cast<double>(held_.size());
        model_.addDelta(weightedSum(held_, fedBuffWeights(held_, exponent_)));
        held_.clear();
        e.reportAggregation(r, model_.params());
    }

    int aggregator_ = -1;
    std::size_t buffer_;
    double exponent_;
    std::size_t limit_;
    ServerModel model_;
    std::set<std::uint64_t> outstanding_;
    std::vector<Contribution> held_;
};

} // namespace

FOG_SYNC_POLICY(fedBuffPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "fedbuff";
        d.info.summary = "FedBuff: buffered asynchronous aggregation. Trainers (at most the selection's k "
                         "at once) pull the model, run training.local_steps and push the change; the "
                         "server keeps a buffer and once it holds K changes sets w += (1/K) sum_k (1 + "
                         "tau_k)^(-b) Delta_k (tau_k: server versions since the pull; b 0.5 is the "
                         "paper's 1 / sqrt(1 + tau)) and starts a new version. Beside async, which "
                         "applies each change on arrival.";
        d.info.source = "Nguyen et al., Federated learning with buffered asynchronous aggregation "
                        "(FedBuff), AISTATS 2022";
        d.info.params = fedBuffParams().infos();
        d.order = 45;
        d.serverOptimizer = true;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<FedBuff>(fedBuffParams().read(p), p.policy(), e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
