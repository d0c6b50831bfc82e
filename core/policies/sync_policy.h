#pragma once
// How an aggregator synchronises its trainers. One interface, one file per policy, each
// with its descriptor (core/policies/policy_descriptor.h) that scenario files and the GUI use.

#include "core/policies/policy_context.h"

#include <memory>
#include <string>

namespace fog {

class SyncPolicy {
public:
    virtual ~SyncPolicy() = default;
    /// Starts the first round(s) at virtual time 0.
    virtual void start(PolicyContext& e) = 0;
    /// A trainer's update arrived at its aggregator (now == job.tArrive).
    virtual void onArrival(PolicyContext& e, const Job& job, LocalResult& result) = 0;
    /// A trainer went offline with this job in flight: its work is lost.
    virtual void onLost(PolicyContext& e, const Job& job) = 0;
    /// A trainer came (back) online.
    virtual void onNodeOnline(PolicyContext& e, int node) = 0;
    /// The model that is evaluated and reported as the run's result.
    virtual ParamsPtr globalModel() const = 0;
    /// A pilot phase to run before start() (calibrated planners; none by default).
    virtual PilotRequest pilotRequest(const SystemView& e) const {
        (void)e;
        return {};
    }
};

/// Builds the policy `spec` names, its parameters resolved by its descriptor. Throws
/// EngineError for an unknown name or a topology the policy cannot run on.
std::unique_ptr<SyncPolicy> makeSyncPolicy(const PolicySpec& spec, const SystemView& e);

} // namespace fog
