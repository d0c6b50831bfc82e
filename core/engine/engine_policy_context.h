#pragma once
// The engine as policies see it: PolicyContext (core/policies/policy_context.h) implemented
// by forwarding to Engine's methods. Resolves the policies' parameters once, when the run
// is set up.

#include "core/engine/engine.h"
#include "core/policies/policy_context.h"

namespace fog {

class EnginePolicyContext final : public PolicyContext {
public:
    explicit EnginePolicyContext(Engine& engine);

    double now() const override { return e_.now(); }
    const Scenario& scenario() const override { return e_.scenario(); }
    const PolicyParams& syncParams() const override { return syncParams_; }
    const PolicyParams& selectionParams() const override { return selectionParams_; }
    const Topology& topology() const override { return e_.topology(); }
    const DataBundle& data() const override { return e_.data(); }
    bool trainsModel() const override { return e_.trainsModel(); }
    bool isOnline(int node) const override { return e_.isOnline(node); }
    bool isBusy(int node) const override { return e_.isBusy(node); }
    std::int64_t samplesOf(int trainer) const override { return e_.samplesOf(trainer); }
    std::vector<int> trainersOf(int aggregator) const override { return e_.trainersOf(aggregator); }
    int serverOf(int trainer) const override { return e_.serverOf(trainer); }
    int localStepsOf(int trainer) const override { return e_.localStepsOf(trainer); }
    double expectedComputeSeconds(int trainer, int steps, int batch) const override {
        return e_.expectedComputeSeconds(trainer, steps, batch);
    }
    double learningRate() const override { return e_.learningRate(); }
    ParamsPtr initialModel() const override { return e_.initialModel(); }
    double modelBytes() const override { return e_.modelBytes(); }
    int globalRound() const override { return e_.globalRound(); }
    bool stopped() const override { return e_.stopped(); }

    std::vector<int> selectTrainers(int aggregator, int round) override { return e_.selectTrainers(aggregator, round); }
    std::uint64_t dispatch(const DispatchRequest& r) override;
    void cancelJob(std::uint64_t id) override { e_.cancelJob(id); }
    double send(int from, int to, double bytes) override { return e_.send(from, to, bytes); }
    void at(double t, std::function<void()> fn) override { e_.at(t, std::move(fn)); }
    void reportAggregation(AggregationRecord record, const ParamsPtr& model) override {
        e_.reportAggregation(std::move(record), model);
    }
    void report(PolicyEvent kind, int node, const std::string& detail) override;

private:
    Engine& e_;
    PolicyParams syncParams_, selectionParams_;
};

} // namespace fog
