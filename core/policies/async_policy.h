#pragma once
// Asynchronous parameter server: every trainer pulls, computes, pushes; the server applies
// each update on arrival, damped by its staleness. `async` pushes one gradient, `async-ga`
// the change after k local steps (Cloudless-Training's gradient accumulation).

#include "core/policies/aggregation.h"
#include "core/policies/policy_params.h"
#include "core/policies/sync_policy.h"

#include <set>

namespace fog {

class AsyncPolicy : public SyncPolicy {
public:
    /// `accumulate` 0: gradient mode (one step); k > 0: k local steps, push the change.
    AsyncPolicy(const PolicyParams& params, const PolicyContext& e, int accumulate);
    void start(PolicyContext& e) override;
    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override;
    void onLost(PolicyContext& e, const Job& job) override;
    void onNodeOnline(PolicyContext& e, int node) override;
    ParamsPtr globalModel() const override { return model_.params(); }

private:
    void topUp(PolicyContext& e);

    int aggregator_;
    int accumulate_;
    double exponent_;
    double mixing_;
    std::size_t limit_; ///< trainers working at once (selection's k, else all)
    ServerModel model_;
    std::set<std::uint64_t> outstanding_;
};

} // namespace fog
