// Model averaging between regional parameter servers (Cloudless-Training's MA): each
// region trains on its own; every P regional rounds each server sends its model to every
// other over the WAN and, once it holds them all, replaces its model by the data-weighted
// average.

#include "core/policies/policy_descriptor.h"
#include "core/policies/two_level.h"

#include <algorithm>

namespace fog {

namespace {

class ModelAveraging : public TwoLevelPolicy {
public:
    ModelAveraging(const PolicyParams& p, const PolicyContext& e) {
        const auto roots = e.topology().rootAggregators();
        if (roots.size() < 2)
            throw EngineError("sync policy " + p.policy() + " needs at least two root aggregators (regional "
                              "parameter servers), the topology has " + std::to_string(roots.size()));
        root_ = roots.front(); // names the averaging in the metrics
        period_ = p.integer("period");
        // A region without trainers has no model of its own to contribute: it takes no part
        // (with it, the others would wait at the first barrier for ever).
        for (int r : roots) {
            if (e.topology().trainersOf(r).empty()) continue;
            Group g;
            g.aggregator = r;
            groups_.push_back(std::move(g));
        }
        if (groups_.empty())
            throw EngineError("sync policy " + p.policy() + " found no trainer right under a regional "
                              "parameter server (a root aggregator)");
        ready_.assign(groups_.size(), 0.0);
    }

protected:
    void onBarrier(PolicyContext& e, std::size_t g) override {
        // Send to every other region now; region j can average once all models reached it.
        for (std::size_t j = 0; j < groups_.size(); ++j) {
            if (j == g) continue;
            const double arrival = e.send(groups_[g].aggregator, groups_[j].aggregator, e.modelBytes());
            ready_[j] = std::max(ready_[j], arrival);
        }
        ready_[g] = std::max(ready_[g], e.now());
    }
    void onAllAtBarrier(PolicyContext& e) override {
        // Every model is fixed at the barrier, so the average is known now; each region
        // applies it when the last model reaches it, and the exchange is done when all have.
        averageGroups();
        const double done = *std::max_element(ready_.begin(), ready_.end());
        const ParamsPtr model = global_;
        e.at(done, [this, &e, model] { reportGlobal(e, model); });
        for (std::size_t g = 0; g < groups_.size(); ++g) resumeAt(e, g, ready_[g]);
        std::fill(ready_.begin(), ready_.end(), 0.0);
    }

private:
    std::vector<double> ready_;
};

} // namespace

FOG_SYNC_POLICY(modelAveragingPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info = {"model-averaging",
                  "Several regional parameter servers each run FedAvg rounds with their own trainers; "
                  "every P regional rounds the servers exchange models over the WAN and each replaces its "
                  "model by the data-weighted average of all regions.",
                  "Tan et al., Cloudless-Training (MA), Chinese High Technology Letters 2024",
                  {intParam("period", 4, 1, "regional rounds between averaging (P)")},
                  TreeShape::Regions};
        d.order = 80;
        d.make = [](const PolicyParams& p, const PolicyContext& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<ModelAveraging>(p, e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
