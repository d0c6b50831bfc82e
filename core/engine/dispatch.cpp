// The engine's dispatch of jobs: their planned timeline, the real work on the pool, their
// arrival, cancellation and the accounting of the work done (see dispatch.h).

#include "core/engine/batch_feeder.h"
#include "core/engine/engine.h"
#include "core/engine/work_pool.h"
#include "core/policies/local_optimizers.h"
#include "core/policies/update_codec.h"
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
    job.downBytes = opt.downloadVectors * modelBytes_ * codecDown_.ratio;
    job.upBytes = opt.uploadVectors * modelBytes_ * codecUp_.ratio;
    job.proxMu = request.proxMu;
    job.correction = request.correction;
    return job;
}

void Engine::setUpCodecs() {
    const TrainingSpec& t = scenario_.training;
    // The encoded size over 4 bytes per parameter: a model.wire_bytes set by hand scales with it.
    const std::size_t params = learner_ ? learner_->parameterCount()
                                        : static_cast<std::size_t>(std::llround(modelBytes_ / 4.0));
    auto make = [&](const std::string& name, int bits, double fraction) {
        WireCodec w;
        try {
            w.config = codecConfig(name, bits, fraction);
        } catch (const std::invalid_argument& e) {
            throw EngineError(e.what());
        }
        if (params > 0) w.ratio = encodedBytes(w.config, params) / (4.0 * static_cast<double>(params));
        return w;
    };
    codecUp_ = make(t.codecUp, t.codecUpBits, t.codecUpFraction);
    codecDown_ = make(t.codecDown, t.codecDownBits, 1.0);
    if (codecDown_.config.kind == CodecConfig::Kind::TopK)
        throw EngineError("training.codec_down topk: top-k needs the error feedback of a sender that keeps "
                          "a residual per receiver; use fp16 or quantize downlink");
}

LocalJob Engine::localJob(const Job& job, std::vector<std::int64_t> samples, const ParamsPtr& model,
                          std::uint64_t seedIndex, bool probe) const {
    const TrainingSpec& t = scenario_.training;
    LocalJob lj;
    lj.start = model;
    if (codecDown_.config.kind != CodecConfig::Kind::None && model && !model->empty()) {
        // The trainer trains from the model as decoded (its own stream: the draw is the same
        // whichever thread runs the job).
        auto decoded = std::make_shared<Params>(*model);
        Rng rng(deriveSeed(deriveSeed(scenario_.seed, hashName("codec-down"), hashName(topo_.id(job.trainer))), seedIndex));
        encodeDecode(codecDown_.config, *decoded, rng, nullptr);
        lj.start = std::move(decoded);
    }
    lj.samples = std::move(samples);
    lj.batchSizes = job.batchSizes;
    lj.learningRate = learningRate();
    lj.momentum = t.momentum;
    lj.weightDecay = t.weightDecay;
    lj.optimizer = localOptimizerOf(t.optimizer);
    lj.beta1 = t.beta1;
    lj.beta2 = t.beta2;
    lj.epsilon = t.epsilon;
    lj.gradientOnly = job.gradient;
    lj.probe = probe;
    lj.seed = deriveSeed(scenario_.seed, hashName(topo_.id(job.trainer)), seedIndex);
    lj.proxMu = job.proxMu;
    lj.correction = job.correction;
    if (t.optimizerState == "keep" && !job.gradient) {
        lj.returnState = true;
        const auto it = optimizerStates_.find(job.trainer);
        if (it != optimizerStates_.end()) lj.optimizerState = it->second;
    }
    return lj;
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
        observer_->onMessage({0, aggregator, trainer, now(), now() + tr.seconds, down, true});
        job.tReceived = now() + tr.seconds;
    }
    std::vector<std::int64_t> samples;
    std::vector<std::int64_t>* track = learner_ ? &samples : nullptr;
    double t = job.tReceived;
    job.stepsRequested = std::max(1, request.steps);
    for (int s = 0; s < job.stepsRequested; ++s) {
        const std::size_t before = samples.size();
        const int bs = feeder_->take(trainer, batchSize, track);
        const double d = stepSeconds(trainer, bs);
        if (s > 0 && t + d > opt.computeDeadline) {
            feeder_->putBack(trainer, bs); // unused: the next dispatch starts with it
            samples.resize(before);
            job.partial = true;
            break;
        }
        t += d;
        job.batchSizes.push_back(bs);
        job.stepEnds.push_back(t);
        job.samples += bs;
    }
    job.tComputed = t;
    nodes_.beginCompute(trainer, job.tReceived, job.tComputed);
    const Transfer up = topo_.transfer(trainer, aggregator, job.upBytes);
    job.tArrive = t + up.seconds;
    job.doomed = nodes_.nextChange(trainer) < job.tArrive;

    if (learner_ && !job.doomed) {
        LocalJob lj = localJob(job, std::move(samples), request.model, nodes_.jobsRun(trainer), opt.probe);
        auto result = std::make_shared<LocalResult>();
        job.result = result;
        const Learner* learner = learner_.get();
        const std::atomic<bool>* cancelAll = &control_->cancelFlag();
        job.work = pool_->submit(job.tArrive, [learner, lj = std::move(lj), result,
                                               cancelAll](const std::atomic<bool>& cancelled) {
            *result = learner->run(lj, [&] { return cancelled.load() || cancelAll->load(); });
        });
    }
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
    LocalResult result;
    if (job.work) {
        job.work->wait();
        result = std::move(*job.result);
        if (result.optimizerState) optimizerStates_[job.trainer] = std::move(result.optimizerState);
        if (codecUp_.config.kind != CodecConfig::Kind::None && !result.update.empty()) {
            // Encoded by the trainer, decoded by the aggregator: what arrives. The residual of
            // top-k stays with the trainer for its next upload.
            Rng rng(deriveSeed(deriveSeed(scenario_.seed, hashName("codec-up"), hashName(topo_.id(job.trainer))), job.id));
            encodeDecode(codecUp_.config, result.update, rng, &codecResiduals_[job.trainer]);
        }
    } else {
        result.samples = job.samples;
        result.steps = static_cast<int>(job.batchSizes.size());
    }
    if (network_) {
        // The update's bytes were charged hop by hop as they went (chargeHop).
        job.tArrive = now();
        flowJobs_.erase(jobId);
        slowestDispatch_ = std::max(slowestDispatch_, job.tArrive - job.tStart);
    }
    endJobCompute(job, now());
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
    if (job.work) job.work->cancel();
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
    nodes_.addEnergy(job.trainer, static_cast<double>(done) * topo_.entry(job.trainer).energy.perSampleJ,
                     Energy::Compute);
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
