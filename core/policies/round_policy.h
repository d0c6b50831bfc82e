#pragma once
// Common shape of the synchronous policies with one parameter server: select trainers,
// dispatch, collect until the round is complete, aggregate, report, repeat.

#include "core/policies/aggregation.h"
#include "core/policies/sync_policy.h"

#include <set>

namespace fog {

class RoundPolicy : public SyncPolicy {
public:
    void start(PolicyContext& e) override;
    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override;
    void onLost(PolicyContext& e, const Job& job) override;
    void onNodeOnline(PolicyContext& e, int node) override;
    ParamsPtr globalModel() const override { return model_.params(); }

protected:
    /// true: trainers send one mini-batch gradient; false: the change after local SGD.
    virtual bool gradientMode() const = 0;
    /// Contributions that complete a round, given how many trainers were dispatched.
    virtual std::size_t needed(std::size_t dispatched) const { return dispatched; }
    /// Applies the round's contributions to the model.
    virtual void aggregate(PolicyContext& e, std::vector<Contribution>& results) = 0;
    /// Local steps of one dispatch: 1 in gradient mode, else the scenario's local work.
    virtual int localSteps(PolicyContext& e, int trainer) { return gradientMode() ? 1 : e.localStepsOf(trainer); }
    /// Per-dispatch settings (batch size, compute deadline); the default runs all steps.
    /// Called before localSteps for the same dispatch.
    virtual DispatchOptions dispatchOptions(PolicyContext& e, int trainer) {
        (void)e;
        (void)trainer;
        return {};
    }
    /// Last look at a dispatch before it goes (client algorithm terms, bytes on the wire).
    virtual void prepareDispatch(PolicyContext& e, DispatchRequest& r) {
        (void)e;
        (void)r;
    }
    /// Called after the round's trainers were dispatched.
    virtual void onRoundStarted(PolicyContext& e) { (void)e; }
    /// Seconds after the round's dispatches at which it completes with what has arrived
    /// (late trainers dropped); 0: no deadline. Read as each round starts. The deadline's
    /// timer is cancelled when the round completes before it.
    virtual double roundDeadline(PolicyContext& e) {
        (void)e;
        return 0.0;
    }
    /// Seconds the server computes before it can aggregate the round's `contributions`
    /// (DP-FedAvg's noise); charged at the aggregator (PolicyContext::chargeWork). 0: none.
    virtual double serverWorkSeconds(PolicyContext& e, std::size_t contributions) {
        (void)e;
        (void)contributions;
        return 0.0;
    }
    /// An arrival that does not complete the round (n-batch-sync re-dispatches here).
    virtual void onPartial(PolicyContext& e, const Job& job) {
        (void)e;
        (void)job;
    }

    void beginRound(PolicyContext& e);
    void completeRound(PolicyContext& e);
    void finishRound(PolicyContext& e); ///< after the server's work: aggregate, report, next round
    std::uint64_t dispatchTo(PolicyContext& e, int trainer, bool download = true);

    int aggregator_ = -1;
    ServerModel model_;
    int round_ = 0; ///< rounds begun
    std::set<std::uint64_t> outstanding_;
    std::vector<Contribution> results_;
    std::size_t dispatched_ = 0;
    bool waiting_ = false; ///< no trainer was online: begin when one comes back
    TimerId deadline_ = 0; ///< the round's deadline timer while it may fire
};

/// The single root aggregator, or EngineError naming the policy that needs one.
int singleRootAggregator(const SystemView& e, const std::string& policy);

} // namespace fog
