// The engine's dispatch of jobs: their planned timeline, the real work on the pool, their
// arrival, cancellation and the accounting of the work done (see dispatch.h).

#include "core/engine/batch_feeder.h"
#include "core/engine/engine.h"
#include "core/policies/selection_policy.h"
#include "core/policies/sync_policy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fog {

namespace {

using Energy = NodeRuntime::EnergyKind;

/// Noise draw with mean 1 (so throughput keeps its meaning as the mean speed).
double noiseDraw(const NoiseSpec& n, Rng& rng) {
    switch (n.kind) {
    case NoiseSpec::Kind::None:
        return 1.0;
    case NoiseSpec::Kind::Exponential:
        return rng.exponential(1.0);
    case NoiseSpec::Kind::ShiftedExponential:
        return n.shift + rng.exponential(1.0 - n.shift);
    case NoiseSpec::Kind::LogNormal:
        return rng.logNormal(-0.5 * n.sigma * n.sigma, n.sigma);
    }
    return 1.0;
}

} // namespace

double Engine::stepSeconds(int trainer, int batch) {
    const NoiseSpec& noise = topo_.entry(trainer).compute.noise;
    const double throughput = topo_.throughput(trainer);
    if (noise.kind == NoiseSpec::Kind::None) return batch / throughput * 1.0;
    return batch / throughput * noiseDraw(noise, nodes_.computeRng(trainer));
}

Job Engine::openJob(const DispatchRequest& request) {
    nodes_.hold(request.trainer, now());
    nodes_.chargeInvocation(request.trainer);
    Job job;
    job.id = nextJobId_++;
    job.trainer = request.trainer;
    job.aggregator = request.aggregator;
    job.round = request.round;
    job.version = request.version;
    job.gradient = request.gradient;
    job.tag = request.options.tag;
    job.tStart = now();
    const DispatchOptions& opt = request.options;
    job.downBytes = opt.downloadVectors * modelBytes_ * dispatcher_->downRatio();
    job.upBytes = opt.uploadVectors * modelBytes_ * dispatcher_->upRatio();
    // The codecs' work: the aggregator encodes what goes down and decodes what comes up, the
    // trainer decodes the model and encodes its update (one pass per model-sized vector).
    if (opt.download) {
        job.serverBefore = opt.downloadVectors * dispatcher_->downSeconds();
        job.workBefore = opt.downloadVectors * dispatcher_->downSeconds();
    }
    job.workBefore += opt.workBeforeSeconds;
    job.workAfter = opt.uploadVectors * dispatcher_->upSeconds() + opt.workAfterSeconds;
    job.serverAfter = opt.uploadVectors * dispatcher_->upSeconds();
    if (job.serverBefore > 0) nodes_.addEnergy(job.aggregator, job.serverBefore * computePower(job.aggregator), Energy::Compute);
    return job;
}

double Engine::energyPerSample(int node) const {
    // A device class gives its energy per FLOP (energy.per_flop_j): per sample, times the
    // model's FLOPs per sample.
    const EnergySpec& energy = topo_.entry(node).energy;
    return energy.perFlopJ > 0 ? energy.perSampleJ + energy.perFlopJ * flopsPerSample_ : energy.perSampleJ;
}

double Engine::computePower(int node) const {
    const double j = energyPerSample(node);
    return j > 0 ? j * topo_.throughput(node) : 0.0;
}

void Engine::chargeWork(int node, double seconds) {
    if (seconds > 0) nodes_.addEnergy(node, seconds * computePower(node), Energy::Compute);
}

double Engine::drawSteps(Job& job, int batchSize, double t, double deadline, std::vector<double>& durations,
                         std::vector<std::int64_t>* samples) {
    for (int s = 0; s < job.stepsRequested; ++s) {
        const std::size_t before = samples ? samples->size() : 0;
        const int bs = feeder_->take(job.trainer, batchSize, samples);
        const double d = stepSeconds(job.trainer, bs);
        if (s > 0 && t + d > deadline) {
            feeder_->putBack(job.trainer, bs); // unused: the next dispatch starts with it
            if (samples) samples->resize(before);
            job.partial = true;
            break;
        }
        t += d;
        job.batchSizes.push_back(bs);
        durations.push_back(d);
        job.samples += bs;
    }
    return t;
}

std::uint64_t Engine::dispatch(const DispatchRequest& request) {
    const int trainer = request.trainer;
    const int aggregator = request.aggregator;
    const DispatchOptions& opt = request.options;
    const int batchSize = opt.batchSize > 0 ? opt.batchSize : scenario_.training.batchSize;
    if (!nodes_.online(trainer) || nodes_.job(trainer))
        throw EngineError("internal: dispatch to an offline or busy trainer");
    if (network_) return dispatchFlows(request);
    Job job = openJob(request);

    job.tReceived = now();
    if (opt.download) {
        // The model goes down (no contention: the arrival is known now).
        const double down = job.downBytes;
        const Transfer tr = topo_.transfer(aggregator, trainer, down);
        trafficCost_ += tr.price;
        bytes_ += down;
        nodes_.addEnergy(aggregator, down * topo_.entry(aggregator).energy.perByteJ, Energy::Network);
        chargeReceived(trainer, down);
        const double sent = now() + job.serverBefore; // encoded first
        observer_->onMessage({0, aggregator, trainer, sent, sent + tr.seconds, down, true});
        job.tReceived = sent + tr.seconds;
    }
    std::vector<std::int64_t> samples;
    job.stepsRequested = std::max(1, request.steps);
    double t = job.tReceived + job.workBefore;
    std::vector<double> durations;
    drawSteps(job, batchSize, t, opt.computeDeadline, durations, learner_ ? &samples : nullptr);
    for (double d : durations) {
        t += d;
        job.stepEnds.push_back(t);
    }
    t += job.workAfter;
    job.tComputed = t;
    nodes_.beginCompute(trainer, job.tReceived, job.tComputed);
    const Transfer up = topo_.transfer(trainer, aggregator, job.upBytes);
    job.tArrive = t + up.seconds + job.serverAfter;
    job.doomed = nodes_.nextChange(trainer) < job.tArrive;

    if (learner_ && !job.doomed)
        dispatcher_->submit(job, std::move(samples),
                            {request.model, request.proxMu, request.correction, nodes_.jobsRun(trainer), opt.probe},
                            learningRate(), job.tArrive);
    nodes_.countJob(trainer);
    nodes_.setJob(trainer, job.id);
    timelines_.setState(trainer, NodeState::Idle, now());
    const std::uint64_t id = job.id;
    if (!job.doomed) at(job.tArrive, [this, id] { onArrival(id); });
    slowestDispatch_ = std::max(slowestDispatch_, job.tArrive - job.tStart);
    observer_->onDispatch({id, trainer, aggregator, job.tStart, job.tReceived, job.tComputed, job.tArrive});
    jobs_.emplace(id, std::move(job));
    return id;
}

void Engine::onArrival(std::uint64_t jobId) {
    auto it = jobs_.find(jobId);
    if (it == jobs_.end()) return; // cancelled or lost meanwhile
    Job job = std::move(it->second);
    jobs_.erase(it);
    noteProgress(); // an update reached its aggregator
    nodes_.setJob(job.trainer, 0);
    releaseIfAsked(job.trainer);
    LocalResult result = dispatcher_->collect(job);
    if (network_) {
        // The update's bytes were charged hop by hop as they went (chargeHop).
        job.tArrive = now();
        flowJobs_.erase(jobId);
        slowestDispatch_ = std::max(slowestDispatch_, job.tArrive - job.tStart);
    }
    endJobCompute(job, now());
    if (job.serverAfter > 0) nodes_.addEnergy(job.aggregator, job.serverAfter * computePower(job.aggregator), Energy::Compute);
    if (!network_) {
        // The update travels back: traffic, its price and the sender's energy.
        const Transfer up = topo_.transfer(job.trainer, job.aggregator, job.upBytes);
        trafficCost_ += up.price;
        bytes_ += job.upBytes;
        nodes_.addEnergy(job.trainer, job.upBytes * topo_.entry(job.trainer).energy.perByteJ, Energy::Network);
        chargeReceived(job.aggregator, job.upBytes);
    }
    writeJobIntervals(job, now());
    timelines_.restart(job.trainer, NodeState::Idle, now());
    if (pilotOwns(job.id)) return pilotArrived(job, result);
    selection_->observe(job.trainer, result.meanLoss, job.tArrive - job.tStart);
    sync_->onArrival(*this, job, result);
}

void Engine::cancelJob(std::uint64_t id) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    Job job = std::move(it->second);
    jobs_.erase(it);
    cutJobTransfer(id); // an upload cut part-way pays for the bytes sent
    dispatcher_->drop(id);
    writeJobIntervals(job, now());
    endJobCompute(job, now());
    nodes_.setJob(job.trainer, 0);
    releaseIfAsked(job.trainer);
    timelines_.restart(job.trainer, NodeState::Idle, now());
    observer_->onJobEnded(id, now());
}

void Engine::endJobCompute(const Job& job, double until) {
    // Energy and sample counts for the steps that were completed by `until`.
    std::int64_t done = 0;
    for (std::size_t s = 0; s < job.stepEnds.size() && job.stepEnds[s] <= until; ++s)
        done += job.batchSizes[s];
    samplesComputed_ += done;
    nodes_.addEnergy(job.trainer, static_cast<double>(done) * energyPerSample(job.trainer), Energy::Compute);
    // The algorithm's and the codecs' extra work, each part once it was finished.
    if (job.workBefore > 0 && job.tReceived + job.workBefore <= until)
        nodes_.addEnergy(job.trainer, job.workBefore * computePower(job.trainer), Energy::Compute);
    if (job.workAfter > 0 && job.tComputed <= until)
        nodes_.addEnergy(job.trainer, job.workAfter * computePower(job.trainer), Energy::Compute);
    nodes_.endCompute(job.trainer, until); // idle power resumes
    // Serverless trainers pay for the seconds they computed (no-op for held ones).
    if (job.tReceived < until) nodes_.chargeCompute(job.trainer, std::min(job.tComputed, until) - job.tReceived);
}

void Engine::writeJobIntervals(const Job& job, double until) {
    timelines_.jobIntervals(job.trainer, job.tStart, job.tReceived, job.tComputed, job.tArrive, until);
}

void Engine::send(int from, int to, double bytes, std::function<void()> delivered) {
    if (network_) {
        network_->start(from, to, bytes, now(), true, std::move(delivered));
        return;
    }
    const Transfer tr = topo_.transfer(from, to, bytes);
    trafficCost_ += tr.price;
    bytes_ += bytes;
    nodes_.addEnergy(from, bytes * topo_.entry(from).energy.perByteJ, Energy::Network);
    chargeReceived(to, bytes);
    observer_->onMessage({0, from, to, now(), now() + tr.seconds, bytes, true});
    at(now() + tr.seconds, std::move(delivered));
}

void Engine::chargeReceived(int node, double bytes) {
    // Only when spent: a node that receives for free is not touched.
    if (const double j = topo_.entry(node).energy.perByteReceivedJ; j > 0)
        nodes_.addEnergy(node, bytes * j, NodeRuntime::EnergyKind::Network);
}

void Engine::chargeAggregation(const AggregationRecord& record) {
    if (record.participants <= 0 || !anyAggregationEnergy_ || record.aggregator.empty()) return;
    const double updates = static_cast<double>(record.participants);
    auto fold = [&](int node) {
        if (const double j = topo_.entry(node).energy.perUpdateAggregatedJ; j > 0)
            nodes_.addEnergy(node, updates * j, NodeRuntime::EnergyKind::Compute);
    };
    // Model averaging (regions): every regional server folds in every region's model.
    if (record.level == 0 && !regionServers_.empty()) {
        for (int r : regionServers_) fold(r);
        return;
    }
    fold(topo_.indexOf(record.aggregator));
}

} // namespace fog
