#pragma once
// What a sync or selection policy may see of a run and do in it: the narrow face of the
// engine (issue 11, item 4), split by what a policy needs: reading the system (SystemView),
// setting work going (WorkDispatch) and timers (PolicyTimers); PolicyContext is the three.
// Policies include this header, never core/engine; the engine implements it directly
// (core/engine/engine.h).
//
// Every member is called on the engine thread only, from inside a policy callback or a
// timer the policy scheduled; none of them is thread-safe.

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/planning/pilot.h"
#include "core/policies/policy_params.h"
#include "core/spec/scenario.h"
#include "core/system/metrics.h"
#include "core/system/topology.h"
#include "core/util/engine_error.h"
#include "core/util/job.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace fog {

/// Optional settings of one dispatch (the older form of DispatchRequest's tail).
struct DispatchOptions {
    int batchSize = 0;            ///< 0: training.batch_size (AdaCoOpt sets one per trainer)
    /// Steps that would end after this virtual time are not run: the trainer returns the
    /// work done by then (at least one step). Infinity: all steps.
    double computeDeadline = std::numeric_limits<double>::infinity();
    bool download = true;         ///< false: the trainer still holds this model
    int tag = 0;                  ///< free for the policy
    bool probe = false;           ///< the learner measures every step (pilot phase, LocalJob::probe)
    /// Model-sized vectors going down and coming back (SCAFFOLD: 2, the model with c and the
    /// change with Delta c_i); each is modelBytes() times the direction's codec ratio.
    double downloadVectors = 1.0;
    double uploadVectors = 1.0;
    /// Seconds of extra client work the algorithm asks for before the first local step
    /// (SecAgg's mask expansion) and after the last (DP-FedAvg's clipping and client noise);
    /// timed, billed and charged energy as compute (docs/learning.md). The engine adds the
    /// codecs' own encode and decode seconds.
    double workBeforeSeconds = 0.0;
    double workAfterSeconds = 0.0;
};

/// Everything one dispatch needs: send `model` (version `version`) from `aggregator` to
/// `trainer`, run `steps` local steps there, send the result back.
struct DispatchRequest {
    int trainer = -1;
    int aggregator = -1;
    ParamsPtr model;
    long version = 0;
    int steps = 1;
    bool gradient = false; ///< true: one mini-batch gradient; false: the change after local SGD
    int round = 0;         ///< the policy's round, recorded with the job
    DispatchOptions options;
    /// Terms the client algorithm adds to every local gradient (LocalJob): FedProx's
    /// mu (w - w_start) and SCAFFOLD's correction c - c_i (null: none).
    double proxMu = 0.0;
    ParamsPtr correction;
};

/// A timer's handle (PolicyContext::at); 0 is never one.
using TimerId = std::uint64_t;

/// What a policy reports besides aggregations, shown on the timeline and stored with the
/// run. The engine names them in its event stream ("plan", "placement", "partial-work").
enum class PolicyEvent {
    Plan,        ///< a planner's decision and its predictions (ToN planner, AdaCoOpt)
    Placement,   ///< workers per region chosen by elastic placement (and each re-plan)
    PartialWork, ///< a trainer delivered fewer local steps than asked (compute deadline)
    Privacy,     ///< the privacy spent so far (DP-FedAvg's accountant): "epsilon=... delta=..."
};

/// What a policy may read of the running system: the clock, the scenario and its resolved
/// parameters, the topology, who is online or busy, the data and the model. A selection
/// policy's choice and the estimates (core/policies/selection_estimates.h) need only this.
class SystemView {
public:
    virtual ~SystemView() = default;

    /// Virtual seconds since the start of the run.
    virtual double now() const = 0;
    /// The whole scenario (training settings, stop rules, the policies' own sections).
    virtual const Scenario& scenario() const = 0;
    /// The run's sync and selection sections with every parameter resolved (defaults
    /// filled from the descriptors once, when the run was set up).
    virtual const PolicyParams& syncParams() const = 0;
    virtual const PolicyParams& selectionParams() const = 0;
    virtual const Topology& topology() const = 0;
    virtual const DataBundle& data() const = 0;
    /// False for timing-only runs (no model: updates are empty).
    virtual bool trainsModel() const = 0;
    virtual bool isOnline(int node) const = 0;
    /// A job of this trainer is in flight.
    virtual bool isBusy(int node) const = 0;
    /// Samples in a trainer's local data set.
    virtual std::int64_t samplesOf(int trainer) const = 0;
    /// Trainers whose updates go to `aggregator` under this run's sync policy (its tree
    /// shape: docs/emulator.md, "Which trainers a policy uses").
    virtual std::vector<int> trainersOf(int aggregator) const = 0;
    /// The aggregator a trainer's updates go to (-1: none).
    virtual int serverOf(int trainer) const = 0;
    /// Local steps of a dispatch when the policy does not choose: training.local_steps, or
    /// local_epochs passes over the trainer's data.
    virtual int localStepsOf(int trainer) const = 0;
    /// Expected seconds of `steps` local steps of `batch` on `trainer` (mean noise 1).
    virtual double expectedComputeSeconds(int trainer, int steps, int batch) const = 0;
    /// Learning rate of the schedule at the current global round.
    virtual double learningRate() const = 0;
    virtual ParamsPtr initialModel() const = 0;
    /// Bytes of one model (or update) on the wire.
    virtual double modelBytes() const = 0;
    /// Global aggregations reported so far.
    virtual int globalRound() const = 0;
    /// A stop rule fired: start no new work.
    virtual bool stopped() const = 0;
    /// What the pilot phase measured (core/planning/pilot.h), once it has run: a policy that
    /// asked for it (pilotRequest) reads it in start(). Null when no pilot ran (none asked,
    /// or a timing-only run: no loss to measure).
    virtual const PilotEstimates* pilot() const { return nullptr; }
};

/// What a policy may set going in the run: trainers chosen, jobs dispatched or cancelled,
/// bytes moved, work charged, aggregations and events reported.
class WorkDispatch {
public:
    virtual ~WorkDispatch() = default;

    /// Online, idle trainers of `aggregator`, chosen by the run's selection policy for `round`.
    virtual std::vector<int> selectTrainers(int aggregator, int round) = 0;
    /// Starts a job; the sync policy hears onArrival or onLost for it. Returns its id.
    virtual std::uint64_t dispatch(const DispatchRequest& request) = 0;
    /// Abandons a job: the trainer is idle now and its result will not be delivered.
    virtual void cancelJob(std::uint64_t id) = 0;
    /// Moves `bytes` between two nodes (time, traffic, price, energy); `delivered` runs at
    /// the arrival (from an event: never inside send). With network contention the arrival
    /// depends on the other transfers, so it is known only when it happens.
    virtual void send(int from, int to, double bytes, std::function<void()> delivered) = 0;
    /// Charges `seconds` of computation on `node` done by the policy itself (an aggregator
    /// adding DP noise or removing SecAgg masks): energy at the node's compute power,
    /// energy.per_sample_j x its throughput. The policy delays what follows itself (at).
    virtual void chargeWork(int node, double seconds) {
        (void)node;
        (void)seconds;
    }
    /// Reports an aggregation. Level 0 advances the global round, evaluates `model` every
    /// evaluation.every_rounds rounds and applies the stop rules.
    virtual void reportAggregation(AggregationRecord record, const ParamsPtr& model) = 0;
    /// Reports a policy event about `node` (-1: the run as a whole).
    virtual void report(PolicyEvent kind, int node, const std::string& detail) = 0;
    /// Tells the sync policy that `trainer` may take work again, as when it comes online
    /// (a migration that brought it the model ended). Nothing when it is offline or busy.
    virtual void notifyTrainerAvailable(int trainer) { (void)trainer; }
    /// Stops renting `trainer` (a placement moved its place away): its billing ends now, or
    /// when the job it is on ends; it is billed again from its next dispatch, and coming
    /// back online does not bill it before that.
    virtual void releaseTrainer(int trainer) { (void)trainer; }
};

/// A policy's timers, cancellable by their id (as ns-3's EventId and OMNeT++'s cancelEvent):
/// a policy cancels a timer it no longer needs (a round's deadline once the round ended)
/// instead of guarding its callback.
class PolicyTimers {
public:
    virtual ~PolicyTimers() = default;

    /// Calls `fn` at virtual time `t` (>= now); returns the timer's handle.
    virtual TimerId at(double t, std::function<void()> fn) = 0;
    /// Cancels a timer that has not fired: its `fn` is dropped at once and never runs (the
    /// event still counts as one of the run: core/engine/event_queue.h). A timer that fired
    /// or was cancelled, or 0: nothing.
    virtual void cancelTimer(TimerId id) = 0;
};

/// The three together: what a sync policy's callbacks receive (the engine implements it).
class PolicyContext : public SystemView, public WorkDispatch, public PolicyTimers {};

} // namespace fog
