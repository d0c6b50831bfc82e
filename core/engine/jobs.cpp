// Jobs whose whole timeline is planned at dispatch (no contention), their arrival,
// cancellation, loss and the accounting of the work done (see jobs.h).

#include "core/engine/jobs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fog {

namespace {

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

Jobs::Jobs(Host& host, Parts parts, std::unique_ptr<Dispatcher> dispatcher, std::unique_ptr<BatchFeeder> feeder,
           double modelBytes, bool trainsModel)
    : host_(host), scenario_(parts.scenario), topo_(parts.topo), queue_(parts.queue), nodes_(parts.nodes),
      timelines_(parts.timelines), network_(parts.network), accounting_(parts.accounting), observer_(parts.observer),
      dispatcher_(std::move(dispatcher)), feeder_(std::move(feeder)), modelBytes_(modelBytes),
      trainsModel_(trainsModel) {}

Jobs::~Jobs() {
    dispatcher_.reset(); // joins the workers before the feeder (and the engine's learner and data) go
}

double Jobs::stepSeconds(int trainer, int batch) {
    const NoiseSpec& noise = topo_.entry(trainer).compute.noise;
    const double throughput = topo_.throughput(trainer);
    if (noise.kind == NoiseSpec::Kind::None) return batch / throughput * 1.0;
    return batch / throughput * noiseDraw(noise, nodes_.computeRng(trainer));
}

Job Jobs::openJob(const DispatchRequest& request) {
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
    if (job.serverBefore > 0) accounting_.chargeWork(job.aggregator, job.serverBefore);
    return job;
}

double Jobs::drawSteps(Job& job, int batchSize, double t, double deadline, std::vector<double>& durations,
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

std::uint64_t Jobs::dispatch(const DispatchRequest& request) {
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
        accounting_.chargeTransfer(aggregator, trainer, down, tr.price);
        const double sent = now() + job.serverBefore; // encoded first
        observer_.onMessage({0, aggregator, trainer, sent, sent + tr.seconds, down, true});
        job.tReceived = sent + tr.seconds;
    }
    std::vector<std::int64_t> samples;
    job.stepsRequested = std::max(1, request.steps);
    double t = job.tReceived + job.workBefore;
    std::vector<double> durations;
    drawSteps(job, batchSize, t, opt.computeDeadline, durations, trainsModel_ ? &samples : nullptr);
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

    if (trainsModel_ && !job.doomed)
        dispatcher_->submit(job, std::move(samples),
                            {request.model, request.proxMu, request.correction, nodes_.jobsRun(trainer), opt.probe},
                            host_.learningRate(), job.tArrive);
    nodes_.countJob(trainer);
    nodes_.setJob(trainer, job.id);
    timelines_.setState(trainer, NodeState::Idle, now());
    const std::uint64_t id = job.id;
    EventQueue::Id arrival = 0;
    if (!job.doomed) arrival = at(job.tArrive, [this, id] { onArrival(id); });
    host_.dispatchTook(job.tArrive - job.tStart);
    observer_.onDispatch({id, trainer, aggregator, job.tStart, job.tReceived, job.tComputed, job.tArrive});
    jobs_.emplace(id, Entry{std::move(job), arrival});
    return id;
}

void Jobs::onArrival(std::uint64_t jobId) {
    auto it = jobs_.find(jobId);
    if (it == jobs_.end()) return; // cancelled or lost meanwhile
    Job job = std::move(it->second.job); // its pending event is this one
    jobs_.erase(it);
    host_.updateArrived(); // an update reached its aggregator
    nodes_.setJob(job.trainer, 0);
    releaseIfAsked(job.trainer);
    LocalResult result = dispatcher_->collect(job);
    if (network_) {
        // The update's bytes were charged hop by hop as they went (Accounting::chargeHop).
        job.tArrive = now();
        flowJobs_.erase(jobId);
        host_.dispatchTook(job.tArrive - job.tStart);
    }
    endJobCompute(job, now());
    if (job.serverAfter > 0) accounting_.chargeWork(job.aggregator, job.serverAfter);
    if (!network_) {
        // The update travels back: traffic, its price and the sender's energy.
        const Transfer up = topo_.transfer(job.trainer, job.aggregator, job.upBytes);
        accounting_.chargeTransfer(job.trainer, job.aggregator, job.upBytes, up.price);
    }
    writeJobIntervals(job, now());
    timelines_.restart(job.trainer, NodeState::Idle, now());
    host_.jobArrived(job, result);
}

void Jobs::cancel(std::uint64_t id) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    Job job = take(it);
    cutJobTransfer(id); // an upload cut part-way pays for the bytes sent
    dispatcher_->drop(id);
    writeJobIntervals(job, now());
    endJobCompute(job, now());
    nodes_.setJob(job.trainer, 0);
    releaseIfAsked(job.trainer);
    timelines_.restart(job.trainer, NodeState::Idle, now());
    observer_.onJobEnded(id, now());
}

bool Jobs::lose(int node) {
    const std::uint64_t id = nodes_.job(node);
    if (!id) return false;
    Job job = take(jobs_.find(id));
    cutJobTransfer(id); // frees its share of the links at once; the bytes sent are paid
    nodes_.setJob(node, 0);
    releaseIfAsked(node);
    dispatcher_->drop(id);
    writeJobIntervals(job, now());
    endJobCompute(job, now());
    timelines_.restart(node, NodeState::Offline, now());
    ++lost_;
    observer_.onJobEnded(job.id, now());
    host_.emit(RunEventKind::WorkLost, node, "round " + std::to_string(job.round));
    host_.jobLost(job);
    return true;
}

bool Jobs::endAt(int node, double end) {
    const std::uint64_t id = nodes_.job(node);
    if (!id) return false;
    const Job& job = jobs_.at(id).job;
    writeJobIntervals(job, end);
    endJobCompute(job, end);
    timelines_.restart(node, NodeState::Idle, end);
    flowJobs_.erase(id);
    return true;
}

Job Jobs::take(std::map<std::uint64_t, Entry>::iterator it) {
    if (it == jobs_.end()) throw EngineError("internal: a trainer's job is not in flight");
    Job job = std::move(it->second.job);
    const EventQueue::Id timer = it->second.timer;
    jobs_.erase(it);
    queue_.cancel(timer); // its callback would find no job: it goes now, the event still counts
    return job;
}

void Jobs::releaseTrainer(int trainer) {
    if (nodes_.job(trainer)) {
        releaseAfterJob_.insert(trainer);
        return;
    }
    nodes_.release(trainer, now());
    nodes_.forget(trainer);
}

void Jobs::releaseIfAsked(int trainer) {
    if (releaseAfterJob_.erase(trainer) == 0) return;
    nodes_.release(trainer, now());
    nodes_.forget(trainer);
}

void Jobs::endJobCompute(const Job& job, double until) {
    // Energy and sample counts for the steps that were completed by `until`.
    std::int64_t done = 0;
    for (std::size_t s = 0; s < job.stepEnds.size() && job.stepEnds[s] <= until; ++s)
        done += job.batchSizes[s];
    accounting_.chargeSamples(job.trainer, done);
    // The algorithm's and the codecs' extra work, each part once it was finished.
    if (job.workBefore > 0 && job.tReceived + job.workBefore <= until)
        accounting_.chargeWork(job.trainer, job.workBefore);
    if (job.workAfter > 0 && job.tComputed <= until) accounting_.chargeWork(job.trainer, job.workAfter);
    nodes_.endCompute(job.trainer, until); // idle power resumes
    // Serverless trainers pay for the seconds they computed (no-op for held ones).
    if (job.tReceived < until) nodes_.chargeCompute(job.trainer, std::min(job.tComputed, until) - job.tReceived);
}

void Jobs::writeJobIntervals(const Job& job, double until) {
    timelines_.jobIntervals(job.trainer, job.tStart, job.tReceived, job.tComputed, job.tArrive, until);
}

} // namespace fog
