#pragma once
// Scenarios built in code for the engine tests, and an observer that keeps everything.

#include "core/engine/engine.h"
#include "core/system/metrics.h"
#include "core/spec/scenario.h"

#include <vector>

namespace fogtest {

struct Recorder : fog::RunObserver {
    std::vector<fog::AggregationRecord> records;
    std::vector<fog::NodeInterval> intervals;
    std::vector<fog::RunEvent> events;
    fog::RunSummary summary;
    void onAggregation(const fog::AggregationRecord& r) override { records.push_back(r); }
    void onIntervals(const std::vector<fog::NodeInterval>& v) override {
        intervals.insert(intervals.end(), v.begin(), v.end());
    }
    void onEvent(const fog::RunEvent& e) override { events.push_back(e); }
    void onFinish(const fog::RunSummary& s) override { summary = s; }

    std::vector<fog::AggregationRecord> level(int l) const {
        std::vector<fog::AggregationRecord> out;
        for (const auto& r : records)
            if (r.level == l) out.push_back(r);
        return out;
    }
    int count(const std::string& kind) const {
        int n = 0;
        for (const auto& e : events) n += e.kindName() == kind;
        return n;
    }
    std::vector<double> times() const {
        std::vector<double> t;
        for (const auto& r : records) t.push_back(r.time);
        return t;
    }
    std::vector<int> participants() const {
        std::vector<int> p;
        for (const auto& r : records) p.push_back(r.participants);
        return p;
    }
};

/// Real training that takes milliseconds: logistic regression on the synthetic IID data
/// set (its natural partition), learning rate 0.1, batches of `batchSize`.
inline void useSmallRealTraining(fog::Scenario& s, int batchSize) {
    s.data.kind = fog::DataSpec::Kind::Synthetic;
    s.data.syntheticIid = true;
    s.data.partition.kind = fog::PartitionSpec::Kind::Natural;
    s.model.kind = fog::ModelSpec::Kind::LogReg;
    s.training.learningRate = 0.1;
    s.training.batchSize = batchSize;
}

inline fog::NodeSpec makeNode(const std::string& id, fog::Role role, const std::string& parent,
                              double throughput = 1.0) {
    fog::NodeSpec n;
    n.id = id;
    n.role = role;
    n.parent = parent;
    n.tier = role == fog::Role::Trainer ? fog::Tier::Device : fog::Tier::Cloud;
    n.compute.throughput = fog::Range::exactly(throughput);
    return n;
}

/// A server with `n` trainers, no data or model (timing only), batch 1, one step per
/// dispatch: a step takes 1 / throughput times the noise draw.
inline fog::Scenario timingStar(int n, double throughput, fog::NoiseSpec::Kind noise) {
    fog::Scenario s;
    s.name = "timing-star";
    s.seed = 7;
    s.topology.nodes.push_back(makeNode("server", fog::Role::Aggregator, ""));
    fog::NodeSpec g;
    g.group = true;
    g.id = "w";
    g.count = n;
    g.parent = "server";
    g.compute.throughput = fog::Range::exactly(throughput);
    g.compute.noise.kind = noise;
    s.topology.nodes.push_back(g);
    s.data.kind = fog::DataSpec::Kind::None;
    s.data.samplesPerTrainer = 100;
    s.model.kind = fog::ModelSpec::Kind::None;
    s.training.batchSize = 1;
    s.training.localSteps = 1;
    s.stop.rounds = 100;
    return s;
}

inline fog::RunSummary runScenario(const fog::Scenario& s, Recorder& rec, int threads = 1) {
    fog::EngineOptions o;
    o.threads = threads;
    o.observer = &rec;
    fog::Engine engine(s, o);
    return engine.run();
}

} // namespace fogtest
