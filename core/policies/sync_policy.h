#pragma once
// How an aggregator synchronises its trainers. One interface, one file per policy, and a
// name-keyed registry (sync_registry.cpp) that scenario files and the GUI use.

#include "core/engine/engine.h"

#include <memory>
#include <string>

namespace fog {

class SyncPolicy {
public:
    virtual ~SyncPolicy() = default;
    /// Starts the first round(s) at virtual time 0.
    virtual void start(Engine& e) = 0;
    /// A trainer's update arrived at its aggregator (now == job.tArrive).
    virtual void onArrival(Engine& e, const Job& job, LocalResult& result) = 0;
    /// A trainer went offline with this job in flight: its work is lost.
    virtual void onLost(Engine& e, const Job& job) = 0;
    /// A trainer came (back) online.
    virtual void onNodeOnline(Engine& e, int node) = 0;
    /// The model that is evaluated and reported as the run's result.
    virtual ParamsPtr globalModel() const = 0;
};

/// Throws EngineError for an unknown name or a topology the policy cannot run on.
std::unique_ptr<SyncPolicy> makeSyncPolicy(const PolicySpec& spec, const Engine& e);

} // namespace fog
