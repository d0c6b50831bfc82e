#pragma once
// The pilot phase of the calibrated planners (core/planning/pilot.h, docs/policies.md):
// before the policies start, the planner's first `trainers` online candidates each run
// `steps` local steps from the initial model with the learner's probes on. They are
// ordinary dispatches (time, cost, energy, traffic and timelines counted as any work);
// their results do not touch the model. When every pilot dispatch has arrived the
// estimates are made, the pilot trainers are given back (billed again only if a policy
// uses them) and the selection and sync policies start at that virtual time.
//
// A timing-only run has no loss to measure: no pilot runs (the engine makes none) and the
// planners then use their documented fallback constants.
//
// The phase sees the run as a policy does (SystemView and WorkDispatch: who is online or
// busy, the dispatch of its jobs) plus its Host for what only the engine does.
//
// Threads: engine thread only.

#include "core/model/learner.h"
#include "core/planning/pilot.h"
#include "core/policies/policy_context.h"

#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace fog {

class PilotPhase {
public:
    class Host {
    public:
        virtual ~Host() = default;
        /// Ends a pilot trainer's holding: billed again only from its next use.
        virtual void giveBack(int trainer) = 0;
        /// Cost of the run so far.
        virtual double costNow() const = 0;
        /// The pilot is over and its estimates made (estimates()): the policies start.
        virtual void pilotFinished(const PilotEstimates& estimates) = 0;
    };
    /// `request` as a planner asked for it (PilotRequest::trainers > 0). Throws EngineError
    /// when it has no trainer to run on.
    PilotPhase(const PilotRequest& request, SystemView& system, WorkDispatch& work, Host& host, const Learner& learner);

    /// Evaluates the initial model and dispatches to the first candidates online.
    void start();
    bool active() const { return active_; }
    /// What the pilot measured, once it is over (null while it runs).
    const PilotEstimates* estimates() const { return active_ ? nullptr : &estimates_; }
    /// The job is one of the pilot's.
    bool owns(std::uint64_t jobId) const { return inFlight_.count(jobId) > 0; }
    void arrived(const Job& job, const LocalResult& result);
    void lost(const Job& job);
    /// Dispatches to candidates online and idle until `trainers` are running or done (a
    /// trainer offline now is tried again when one comes online).
    void fill();

private:
    void finish();

    SystemView& system_;
    WorkDispatch& work_;
    Host& host_;
    const Learner& learner_;
    PilotRequest request_;
    std::size_t want_ = 0;
    std::map<std::uint64_t, int> inFlight_; ///< job id -> trainer
    std::set<int> arrived_;
    std::vector<PilotTrace> traces_;
    double initialLoss_ = kNaN, initialAccuracy_ = kNaN;
    bool active_ = true;
    PilotEstimates estimates_;
};

} // namespace fog
