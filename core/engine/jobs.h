#pragma once
// The jobs of a run: one job of work sent to a trainer (model down, local steps, update
// up), from its dispatch to its arrival, cancellation or loss, with the accounting of the
// work done. Without contention a job's whole virtual timeline is planned when it starts
// (jobs.cpp); when transfers contend for the network (topology.contention, docs/network.md)
// it is a small state machine whose transfers end when the network says (jobs_flow.cpp).
// The real training runs on the work pool through the Dispatcher (dispatcher.h) and is
// waited for only when the update arrives.
//
// Jobs owns its tables (the jobs in flight, their network stages, each trainer's batch
// order) and talks to the rest through narrow doors: the queue (clock and events), the node
// runtime, the timelines, the network, the accounting, the observer, and the Host below for
// what belongs to the run (who hears of an arrival or a loss, the safety net, the learning
// rate, the event stream).
//
// Threads: engine thread only (the work a job submits runs on pool threads and touches
// nothing here).

#include "core/engine/accounting.h"
#include "core/engine/batch_feeder.h"
#include "core/engine/dispatcher.h"
#include "core/engine/event_queue.h"
#include "core/engine/node_runtime.h"
#include "core/engine/timelines.h"
#include "core/policies/policy_context.h" // Job, DispatchOptions, DispatchRequest
#include "core/system/metrics.h"
#include "core/system/network.h"
#include "core/system/run_event.h"
#include "core/system/topology.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace fog {

class Jobs {
public:
    /// What the jobs need of the run around them (the engine implements it).
    class Host {
    public:
        virtual ~Host() = default;
        /// The learning rate a job's training uses (the schedule's, at the current round).
        virtual double learningRate() const = 0;
        /// A job's update reached its aggregator (the trainer is idle again): the pilot phase
        /// or the policies hear of it (and may take the update).
        virtual void jobArrived(const Job& job, LocalResult& result) = 0;
        /// A job was lost (its trainer went offline): the pilot phase or the sync policy.
        virtual void jobLost(const Job& job) = 0;
        /// The safety net: an update reached an aggregator now; a dispatch planned (or took)
        /// `seconds` from its start to its arrival.
        virtual void updateArrived() = 0;
        virtual void dispatchTook(double seconds) = 0;
        virtual void emit(RunEventKind kind, int node, const std::string& detail) = 0;
    };
    /// The parts of the run the jobs use; `network` is null when transfers do not contend.
    struct Parts {
        const Scenario& scenario;
        const Topology& topo;
        EventQueue& queue;
        NodeRuntime& nodes;
        Timelines& timelines;
        Network* network;
        Accounting& accounting;
        RunObserver& observer;
    };
    /// `modelBytes`: one model on the wire; `trainsModel`: false in a timing-only run (no
    /// samples are tracked, no work goes to the pool).
    Jobs(Host& host, Parts parts, std::unique_ptr<Dispatcher> dispatcher, std::unique_ptr<BatchFeeder> feeder,
         double modelBytes, bool trainsModel);
    ~Jobs();
    Jobs(const Jobs&) = delete;
    Jobs& operator=(const Jobs&) = delete;

    /// Sends the model to the trainer, runs the steps there and sends the update back; the
    /// host hears jobArrived or jobLost. Throws EngineError for an offline or busy trainer.
    std::uint64_t dispatch(const DispatchRequest& request);
    /// Abandons a job: the trainer is idle now and its result will not be delivered.
    void cancel(std::uint64_t id);
    /// Node `node` went offline: its job, if any, is lost (the host hears jobLost). False
    /// when it ran none.
    bool lose(int node);
    /// Stops renting `trainer` (WorkDispatch::releaseTrainer): now, or when its job ends.
    void releaseTrainer(int trainer);
    /// Jobs lost so far (their trainers went offline).
    int lost() const { return lost_; }

    /// The worker threads (one intra-op thread each) and how many there are.
    void startPool(int threads) { dispatcher_->startPool(threads); }
    int threads() const { return dispatcher_->threads(); }
    /// The end of the run at `end`: every job's work stops (stopWork), then the job of each
    /// busy node is closed there (endAt: its intervals, energy and samples up to `end`; false
    /// for a node without a job), and the work is waited for (waitWork).
    void stopWork() { dispatcher_->cancelAll(); }
    bool endAt(int node, double end);
    void waitWork() { dispatcher_->waitAll(); }

private:
    /// Per job in flight with contention: what the later stages need.
    struct FlowJob {
        JobInput input;
        std::uint64_t transfer = 0; ///< the network transfer in progress (0: none)
        int batchSize = 0;
        double deadline = 0.0;
        bool gradient = false;
        bool drawn = false; ///< steps drawn at dispatch (durations below)
        std::vector<double> durations;
        /// With a compute deadline: the samples drawn at dispatch, submitted once the model is there.
        std::vector<std::int64_t> samples;
    };

    /// A job in flight and its own pending queue event (its arrival; with contention the
    /// end of an encode, of the steps or of a decode; 0: none): a job that ends early
    /// cancels it (EventQueue::cancel frees its slot; it would do nothing).
    struct Entry {
        Job job;
        EventQueue::Id timer = 0;
    };

    double now() const { return queue_.now(); }
    EventQueue::Id at(double t, std::function<void()> fn) { return queue_.schedule(t, std::move(fn)); }
    /// Takes a job off the table and cancels its pending event (EngineError for end()).
    Job take(std::map<std::uint64_t, Entry>::iterator it);
    // jobs.cpp
    void onArrival(std::uint64_t jobId);
    void endJobCompute(const Job& job, double until);
    void writeJobIntervals(const Job& job, double until);
    double stepSeconds(int trainer, int batch);
    /// A new job for `request`: the trainer held (and charged an invocation), ids and start set.
    Job openJob(const DispatchRequest& request);
    /// Draws a job's steps from virtual time `t`: each batch from the trainer's order and its
    /// duration from the trainer's stream, appended to job.batchSizes, job.samples and
    /// `durations`, stopping before a step (not the first) that would end after `deadline`
    /// (its batch goes back: job.partial). `samples` (null: not tracked) gets the batches'
    /// indices. Returns t plus the steps' durations, added one by one.
    double drawSteps(Job& job, int batchSize, double t, double deadline, std::vector<double>& durations,
                     std::vector<std::int64_t>* samples);
    void releaseIfAsked(int trainer);
    // jobs_flow.cpp: jobs as state machines when transfers contend
    std::uint64_t dispatchFlows(const DispatchRequest& request);
    void onDownloaded(std::uint64_t jobId);
    void onComputed(std::uint64_t jobId);
    /// Cuts the job's transfer in progress (cancelled, lost, end of run).
    void cutJobTransfer(std::uint64_t jobId);
    double idealSeconds(int from, int to, double bytes) const { return topo_.transfer(from, to, bytes).seconds; }

    Host& host_;
    const Scenario& scenario_;
    const Topology& topo_;
    EventQueue& queue_;
    NodeRuntime& nodes_;
    Timelines& timelines_;
    Network* network_;
    Accounting& accounting_;
    RunObserver& observer_;
    std::unique_ptr<Dispatcher> dispatcher_;
    std::unique_ptr<BatchFeeder> feeder_;
    double modelBytes_;
    bool trainsModel_;

    std::map<std::uint64_t, Entry> jobs_;
    std::map<std::uint64_t, FlowJob> flowJobs_;
    std::uint64_t nextJobId_ = 1;
    std::set<int> releaseAfterJob_; ///< releaseTrainer on a busy trainer: at its job's end
    int lost_ = 0;
};

} // namespace fog
