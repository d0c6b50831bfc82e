// Client-edge-cloud hierarchical FL: edges aggregate their devices every tau1 local steps,
// the cloud aggregates the edges every tau2 edge rounds.

#include "core/policies/sync_factories.h"
#include "core/policies/two_level.h"

#include <algorithm>

namespace fog {

namespace {

class Hierarchical : public TwoLevelPolicy {
public:
    Hierarchical(const PolicySpec& spec, const Engine& e) {
        const auto roots = e.topology().rootAggregators();
        if (roots.size() != 1)
            throw EngineError("sync policy hierarchical needs exactly one root aggregator (the cloud), the "
                              "topology has " + std::to_string(roots.size()));
        root_ = roots.front();
        innerSteps_ = static_cast<int>(spec.get("tau1", 5));
        period_ = static_cast<int>(spec.get("tau2", 2));
        for (int edge : e.topology().childAggregatorsOf(root_))
            if (!e.topology().trainersOf(edge).empty()) addGroup(edge);
        if (!e.topology().trainersOf(root_).empty()) addGroup(root_); // devices right under the cloud
        if (groups_.empty()) throw EngineError("sync policy hierarchical found no trainers under the edges");
    }

protected:
    void onBarrier(Engine& e, std::size_t g) override {
        arrivals_.push_back(e.send(groups_[g].aggregator, root_, e.modelBytes()));
    }
    void onAllAtBarrier(Engine& e) override {
        const double t = *std::max_element(arrivals_.begin(), arrivals_.end());
        arrivals_.clear();
        e.at(t, [this, &e] {
            averageGroups();
            reportGlobal(e, global_);
            for (std::size_t g = 0; g < groups_.size(); ++g)
                resumeAt(e, g, e.send(root_, groups_[g].aggregator, e.modelBytes()));
        });
    }

private:
    void addGroup(int aggregator) {
        Group g;
        g.aggregator = aggregator;
        groups_.push_back(std::move(g));
    }
    std::vector<double> arrivals_;
};

} // namespace

std::unique_ptr<SyncPolicy> makeHierarchical(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<Hierarchical>(spec, e);
}

} // namespace fog
