// Jobs when transfers contend for the network (topology.contention, docs/network.md): a job
// is a small state machine, model download flow -> compute -> update upload flow ->
// arrival, whose transfers end when the network says (core/system/network.h). Without
// contention jobs.cpp plans the whole timeline at dispatch instead.
//
// The real training goes to the pool as early as possible: at dispatch when the steps do
// not depend on when the download ends (no finite compute deadline: the steps' durations
// are drawn now and placed once the model is there), else when the download ends.

#include "core/engine/jobs.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fog {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

std::uint64_t Jobs::dispatchFlows(const DispatchRequest& request) {
    const int trainer = request.trainer;
    const int aggregator = request.aggregator;
    const DispatchOptions& opt = request.options;
    Job job = openJob(request);
    job.tReceived = job.tComputed = job.tArrive = kInf;
    job.stepsRequested = std::max(1, request.steps);

    FlowJob fj;
    fj.input = {request.model, request.proxMu, request.correction, nodes_.jobsRun(trainer), opt.probe};
    fj.batchSize = opt.batchSize > 0 ? opt.batchSize : scenario_.training.batchSize;
    fj.deadline = opt.computeDeadline;
    fj.gradient = request.gradient;
    // Lower bounds (every transfer alone on its path): the projection observers get, and
    // whether the trainer certainly goes offline before it could deliver.
    // (The codecs' and the algorithm's extra work counted in: encode, download, decode and
    // work before the steps; work after them, upload, decode at the aggregator.)
    const double down = (opt.download ? idealSeconds(aggregator, trainer, job.downBytes) : 0.0) + job.serverBefore +
                        job.workBefore;
    const double up = job.workAfter + idealSeconds(trainer, aggregator, job.upBytes) + job.serverAfter;
    double computeSeconds = 0.0;
    if (!std::isfinite(opt.computeDeadline)) {
        fj.drawn = true;
        std::vector<std::int64_t> samples;
        drawSteps(job, fj.batchSize, 0.0, kInf, fj.durations, trainsModel_ ? &samples : nullptr);
        for (double d : fj.durations) computeSeconds += d;
        const double earliest = now() + down + computeSeconds + up;
        job.doomed = nodes_.nextChange(trainer) < earliest;
        if (trainsModel_ && !job.doomed)
            dispatcher_->submit(job, std::move(samples), fj.input, host_.learningRate(), earliest);
    } else {
        // A finite compute deadline: the steps are drawn now as jobs.cpp draws them, for
        // a model arriving after its ideal download time, so that the trainer's batch order
        // and compute stream advance alike with and without contention (also when the job is
        // lost before its model arrives). A download slowed by sharing fits fewer steps: they
        // are cut when it ends (onDownloaded).
        const double t0 = now() + down; // down includes the work before the steps
        const double t =
            drawSteps(job, fj.batchSize, t0, fj.deadline, fj.durations, trainsModel_ ? &fj.samples : nullptr);
        computeSeconds = t - t0;
    }
    nodes_.countJob(trainer);
    nodes_.setJob(trainer, job.id);
    timelines_.setState(trainer, NodeState::Idle, now());
    const std::uint64_t id = job.id;
    const JobPlan plan{id,
                       trainer,
                       aggregator,
                       job.tStart,
                       job.tStart + down,
                       job.tStart + down + computeSeconds,
                       job.tStart + down + computeSeconds + up};
    Entry& entry = jobs_.emplace(id, Entry{std::move(job), 0}).first->second;
    auto& slot = flowJobs_[id];
    slot = std::move(fj);
    const double encode = entry.job.serverBefore;
    if (opt.download && encode > 0) {
        // The aggregator encodes the model first (a job cancelled meanwhile sends nothing).
        entry.timer = at(now() + encode, [this, id, aggregator, trainer] {
            const auto j = jobs_.find(id);
            if (j == jobs_.end()) return;
            flowJobs_.at(id).transfer = network_->start(aggregator, trainer, j->second.job.downBytes, now(), true,
                                                        [this, id] { onDownloaded(id); });
        });
    } else if (opt.download) {
        slot.transfer = network_->start(aggregator, trainer, entry.job.downBytes, now(), true,
                                        [this, id] { onDownloaded(id); });
    }
    observer_.onDispatch(plan);
    if (!opt.download) onDownloaded(id);
    return id;
}

void Jobs::onDownloaded(std::uint64_t jobId) {
    const auto it = jobs_.find(jobId);
    if (it == jobs_.end()) return;
    Job& job = it->second.job;
    FlowJob& fj = flowJobs_.at(jobId);
    fj.transfer = 0;
    job.tReceived = now();
    double t = job.tReceived + job.workBefore;
    if (fj.drawn) {
        for (double d : fj.durations) {
            t += d;
            job.stepEnds.push_back(t);
        }
        fj.durations.clear();
    } else {
        // Drawn at dispatch for the ideal download time; a model that came later (shared
        // links) leaves time for fewer steps before the deadline.
        const std::size_t drawn = fj.durations.size();
        std::size_t keep = drawn;
        for (std::size_t s = 0; s < drawn; ++s) {
            if (s > 0 && t + fj.durations[s] > fj.deadline) {
                keep = s;
                break;
            }
            t += fj.durations[s];
            job.stepEnds.push_back(t);
        }
        if (keep < drawn) {
            // The batches that no longer fit go back, the latest first (within the trainer's
            // current epoch: one taken before a reshuffle stays used).
            std::int64_t dropped = 0;
            bool back = true;
            for (std::size_t s = drawn; s-- > keep;) {
                const int bs = job.batchSizes[s];
                back = back && feeder_->putBackWithinEpoch(job.trainer, bs);
                dropped += bs;
            }
            job.batchSizes.resize(keep);
            job.samples -= dropped;
            job.partial = true;
            if (trainsModel_) fj.samples.resize(fj.samples.size() - static_cast<std::size_t>(dropped));
        }
        fj.durations.clear();
        const double earliest = t + job.workAfter + idealSeconds(job.trainer, job.aggregator, job.upBytes) + job.serverAfter;
        job.doomed = nodes_.nextChange(job.trainer) < earliest;
        if (trainsModel_ && !job.doomed)
            dispatcher_->submit(job, std::move(fj.samples), fj.input, host_.learningRate(), earliest);
    }
    t += job.workAfter;
    job.tComputed = t;
    nodes_.beginCompute(job.trainer, job.tReceived, job.tComputed);
    it->second.timer = at(t, [this, jobId] { onComputed(jobId); });
}

void Jobs::onComputed(std::uint64_t jobId) {
    const auto it = jobs_.find(jobId);
    if (it == jobs_.end()) return; // cancelled or lost meanwhile
    const Job& job = it->second.job;
    const double decode = job.serverAfter;
    flowJobs_.at(jobId).transfer =
        network_->start(job.trainer, job.aggregator, job.upBytes, now(), false, [this, jobId, decode] {
            if (decode <= 0) return onArrival(jobId);
            // The aggregator decodes the update before it counts as arrived.
            const auto f = flowJobs_.find(jobId);
            if (f != flowJobs_.end()) f->second.transfer = 0;
            const EventQueue::Id timer = at(now() + decode, [this, jobId] { onArrival(jobId); });
            if (const auto j = jobs_.find(jobId); j != jobs_.end()) j->second.timer = timer;
        });
}

void Jobs::cutJobTransfer(std::uint64_t jobId) {
    if (!network_) return;
    const auto it = flowJobs_.find(jobId);
    if (it == flowJobs_.end()) return;
    if (it->second.transfer) network_->cut(it->second.transfer, now());
    flowJobs_.erase(it);
}

} // namespace fog
