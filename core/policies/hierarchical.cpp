// Client-edge-cloud hierarchical FL: edges aggregate their devices every tau1 local steps,
// the cloud aggregates the edges every tau2 edge rounds.

#include "core/policies/policy_descriptor.h"
#include "core/policies/two_level.h"

#include <algorithm>

namespace fog {

namespace {

struct HierarchicalSettings {
    int tau1 = 0; ///< local steps per edge round
    int tau2 = 0; ///< edge rounds per cloud round
};

const ParamTable<HierarchicalSettings>& hierarchicalParams() {
    static const auto t = ParamTable<HierarchicalSettings>()
                              .integer("tau1", &HierarchicalSettings::tau1, 5, 1, "local steps per edge round")
                              .integer("tau2", &HierarchicalSettings::tau2, 2, 1, "edge rounds per cloud round");
    return t;
}

class Hierarchical : public TwoLevelPolicy {
public:
    Hierarchical(const PolicyParams& p, const SystemView& e) {
        const auto roots = e.topology().rootAggregators();
        if (roots.size() != 1)
            throw EngineError("sync policy " + p.policy() + " needs exactly one root aggregator (the cloud), the "
                              "topology has " + std::to_string(roots.size()));
        root_ = roots.front();
        const HierarchicalSettings s = hierarchicalParams().read(p);
        innerSteps_ = s.tau1;
        period_ = s.tau2;
        for (int edge : e.topology().childAggregatorsOf(root_))
            if (!e.topology().trainersOf(edge).empty()) addGroup(edge);
        if (!e.topology().trainersOf(root_).empty()) addGroup(root_); // devices right under the cloud
        if (groups_.empty()) throw EngineError("sync policy " + p.policy() + " found no trainers under the edges");
    }

protected:
    void onBarrier(PolicyContext& e, std::size_t g) override {
        // The edge's model goes up; the cloud averages once every edge's model is there.
        ++inFlight_;
        e.send(groups_[g].aggregator, root_, e.modelBytes(), [this, &e] {
            --inFlight_;
            if (allAtBarrier_ && inFlight_ == 0) averageAndSendDown(e);
        });
    }
    void onAllAtBarrier(PolicyContext& e) override {
        allAtBarrier_ = true;
        if (inFlight_ == 0) e.at(e.now(), [this, &e] { averageAndSendDown(e); });
    }

private:
    void averageAndSendDown(PolicyContext& e) {
        allAtBarrier_ = false;
        averageGroups();
        reportGlobal(e, global_);
        for (std::size_t g = 0; g < groups_.size(); ++g) {
            const ParamsPtr model = global_;
            e.send(root_, groups_[g].aggregator, e.modelBytes(), [this, &e, g, model] { resume(e, g, model); });
        }
    }
    void addGroup(int aggregator) {
        Group g;
        g.aggregator = aggregator;
        groups_.push_back(std::move(g));
    }
    int inFlight_ = 0; ///< edge models on their way up
    bool allAtBarrier_ = false;
};

} // namespace

FOG_SYNC_POLICY(hierarchicalPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "hierarchical";
        d.info.summary = "Three-tier FL: each edge aggregator runs FedAvg rounds with its devices (tau1 "
                         "local steps per edge round); every tau2 edge rounds the edges send their models "
                         "to the cloud, which averages them by sample count and sends the result back "
                         "down.";
        d.info.source = "Liu et al., Client-edge-cloud hierarchical FL (HierFAVG), ICC 2020";
        d.info.params = hierarchicalParams().infos();
        d.info.shape = TreeShape::EdgeGroups;
        d.order = 70;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<Hierarchical>(p, e);
        };
        return d;
    }();
    return d;
}

} // namespace fog
