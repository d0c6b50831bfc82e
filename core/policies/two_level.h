#pragma once
// Two levels of aggregation: groups (edge servers, or regional parameter servers) run FedAvg
// rounds with their own trainers; every `period` group rounds all groups meet at a barrier
// and their models are averaged (hierarchical FL through the cloud, or model averaging
// between regions over the WAN). Subclasses say how models travel at the barrier.

#include "core/policies/aggregation.h"
#include "core/policies/sync_policy.h"

#include <set>

namespace fog {

class TwoLevelPolicy : public SyncPolicy {
public:
    void start(PolicyContext& e) override;
    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override;
    void onLost(PolicyContext& e, const Job& job) override;
    void onNodeOnline(PolicyContext& e, int node) override;
    ParamsPtr globalModel() const override { return global_; }

protected:
    struct Group {
        int aggregator = -1;
        ServerModel model;
        int rounds = 0; ///< group rounds since the last barrier
        std::set<std::uint64_t> outstanding;
        std::vector<Contribution> results;
        bool waiting = false;   ///< no trainer online: begin when one comes back
        bool atBarrier = false;
        double weight = 0.0;    ///< samples held by the group's trainers
        double lossSum = 0.0;   ///< sample-weighted training loss since the last global round
        double lossSamples = 0.0;
    };

    /// Group `g` has just reached the barrier (now): send its model where it must go.
    virtual void onBarrier(PolicyContext& e, std::size_t g) = 0;
    /// Every group is at the barrier: schedule the averaging and the groups' resumption
    /// (through `finishExchange` and `resume`).
    virtual void onAllAtBarrier(PolicyContext& e) = 0;

    /// Averages the groups' models (data-weighted) into the global model.
    void averageGroups();
    /// Reports `model` as a global (level 0) aggregation.
    void reportGlobal(PolicyContext& e, const ParamsPtr& model);
    /// Group `g` continues from `model` now.
    void resume(PolicyContext& e, std::size_t g, const ParamsPtr& model);
    void beginGroupRound(PolicyContext& e, std::size_t g);
    void completeGroupRound(PolicyContext& e, std::size_t g);

    std::vector<Group> groups_;
    int root_ = -1;
    int innerSteps_ = 0; ///< local steps per group round; 0 = the training section's
    int period_ = 1;
    ParamsPtr global_;
};

} // namespace fog
