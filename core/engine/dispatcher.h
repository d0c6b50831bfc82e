#pragma once
// The training side of jobs: one submit path for every job, whether the engine planned its
// whole timeline at dispatch (jobs.cpp) or the shared network decides it as it goes
// (jobs_flow.cpp). The dispatcher builds a job's local work from the training settings
// (optimiser, client algorithm's terms, the trainer's kept optimiser state, the model as the
// downlink codec delivers it), hands it to the work pool, waits for it when the update
// arrives (decoding it as the uplink codec delivers it) and drops it when the job is
// cancelled or lost. The jobs (jobs.h) keep the timeline and the accounting, the engine
// the policies' side.
//
// Threads: engine thread only; the work it submits runs on the pool's threads and touches
// nothing here.

#include "core/model/learner.h"
#include "core/policies/update_codec.h"
#include "core/spec/scenario.h"
#include "core/system/topology.h"
#include "core/util/job.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace fog {

class WorkItem;
class WorkPool;

/// What a job's training starts from besides its Job: the model, the client algorithm's
/// terms (DispatchRequest::proxMu, correction), the trainer's dispatch count at dispatch
/// (the job's seed) and whether the learner probes its steps (the pilot phase).
struct JobInput {
    ParamsPtr model;
    double proxMu = 0.0;
    ParamsPtr correction;
    std::uint64_t seedIndex = 0;
    bool probe = false;
};

class Dispatcher {
public:
    /// Sets up the wire codecs (training.codec_up / codec_down); throws EngineError for a
    /// codec that cannot be used. `learner` is null in a timing-only run; `cancelAll` stops
    /// every job's work (the run's cancellation).
    Dispatcher(const Scenario& scenario, const Topology& topo, const Learner* learner, double modelBytes,
               const std::atomic<bool>& cancelAll);
    ~Dispatcher();
    Dispatcher(const Dispatcher&) = delete;
    Dispatcher& operator=(const Dispatcher&) = delete;

    /// Starts the worker threads (one intra-op thread each).
    void startPool(int threads);
    int threads() const;

    /// The encoded size of one model-sized vector over 4 bytes per parameter, per direction.
    double upRatio() const { return up_.ratio; }
    double downRatio() const { return down_.ratio; }
    /// Seconds to encode or decode one model-sized vector (training.codec_elements_per_s; 0
    /// when free or without a codec).
    double upSeconds() const { return upSeconds_; }
    double downSeconds() const { return downSeconds_; }

    /// The job's real training goes to the pool: the steps of `job.batchSizes` over
    /// `samples` at `learningRate`; `priority`: the virtual time its result is needed by
    /// (earliest first).
    void submit(const Job& job, std::vector<std::int64_t> samples, const JobInput& input, double learningRate,
                double priority);
    /// The job's update as it reaches the aggregator: waits for its training (the trainer's
    /// optimiser state is kept, the uplink codec applied). A job without work (a timing-only
    /// run) gives the samples and steps of its Job.
    LocalResult collect(const Job& job);
    /// The job is cancelled or lost: its work stops (a task not started is skipped).
    void drop(std::uint64_t jobId);
    /// The end of the run: every job's work stops, then is waited for.
    void cancelAll();
    void waitAll();

private:
    struct Codec {
        CodecConfig config;
        double ratio = 1.0;
    };
    struct Work {
        std::shared_ptr<WorkItem> item;
        std::shared_ptr<LocalResult> result;
    };
    LocalJob localJob(const Job& job, std::vector<std::int64_t> samples, const JobInput& input,
                      double learningRate) const;

    const Scenario& scenario_;
    const Topology& topo_;
    const Learner* learner_;
    const std::atomic<bool>& cancelAll_;
    std::unique_ptr<WorkPool> pool_;
    std::map<std::uint64_t, Work> work_;
    Codec up_, down_;
    double upSeconds_ = 0.0, downSeconds_ = 0.0;
    /// training.optimizer_state keep: each trainer's optimiser state after its last delivered job.
    std::map<int, OptimizerStatePtr> optimizerStates_;
    std::map<int, Params> residuals_; ///< top-k's residual per trainer (uplink)
};

} // namespace fog
