#include "core/engine/engine.h"

#include "core/engine/engine_policy_context.h"
#include "core/engine/work_pool.h"
#include "core/policies/policy_info.h"
#include "core/policies/selection_policy.h"
#include "core/policies/sync_policy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>

namespace fog {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

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

const char* toString(NodeState s) {
    switch (s) {
    case NodeState::Idle: return "idle";
    case NodeState::Receiving: return "receiving";
    case NodeState::Computing: return "computing";
    case NodeState::Sending: return "sending";
    case NodeState::Offline: return "offline";
    }
    return "?";
}

const char* toString(RunStatus s) {
    switch (s) {
    case RunStatus::Running: return "running";
    case RunStatus::Finished: return "finished";
    case RunStatus::Cancelled: return "cancelled";
    case RunStatus::Failed: return "failed";
    }
    return "?";
}

Engine::Engine(const Scenario& scenario, EngineOptions options)
    : scenario_(scenario), options_(std::move(options)), topo_(scenario.topology, scenario.seed) {
    observer_ = options_.observer ? options_.observer : &nullObserver_;
    playbackSpeed_ = std::max(0.0, options_.playbackSpeed);
    const auto trainers = topo_.trainers();
    if (trainers.empty()) throw EngineError("the topology has no trainer under an aggregator");

    // Data: parts follow the trainers in topology order, weighted by their data_share.
    data_ = options_.data;
    if (!data_) {
        std::vector<double> weights;
        for (int t : trainers) weights.push_back(topo_.node(t).spec.dataShare);
        data_ = std::make_shared<DataBundle>(loadData(scenario_.data, weights, scenario_.seed));
    }
    if (data_->parts.size() < trainers.size())
        throw EngineError("the data are split into " + std::to_string(data_->parts.size()) +
                          " parts but the topology has " + std::to_string(trainers.size()) +
                          " trainers");
    trainerPart_.assign(topo_.size(), -1);
    for (std::size_t i = 0; i < trainers.size(); ++i) {
        trainerPart_[trainers[i]] = static_cast<int>(i);
        if (data_->parts[i].empty())
            throw EngineError("trainer '" + topo_.node(trainers[i]).spec.id +
                              "' received no training samples: use fewer trainers, more data "
                              "or another partition");
    }

    if (scenario_.model.kind != ModelSpec::Kind::None) {
        learner_ = std::make_unique<Learner>(scenario_.model, data_->train, data_->test);
        initialModel_ = std::make_shared<Params>(learner_->initialParameters(scenario_.seed));
    } else {
        initialModel_ = std::make_shared<Params>();
    }
    modelBytes_ = scenario_.model.wireBytes > 0
                      ? scenario_.model.wireBytes
                      : 4.0 * static_cast<double>(learner_ ? learner_->parameterCount() : 0);

    rt_.resize(topo_.size());
    for (int i = 0; i < topo_.size(); ++i) {
        const auto key = hashName(topo_.node(i).spec.id);
        rt_[i].computeRng = Rng(deriveSeed(scenario_.seed, hashName("compute"), key));
        rt_[i].availabilityRng = Rng(deriveSeed(scenario_.seed, hashName("availability"), key));
        rt_[i].dataRng = Rng(deriveSeed(scenario_.seed, hashName("data-order"), key));
    }
    selectionRng_ = Rng(deriveSeed(scenario_.seed, hashName("selection")));

    // Single-server policies talk to every trainer of the tree; aggregators below the
    // server relay (store and forward along the links). The others use nearest aggregators.
    const PolicyInfo* syncInfo = findSyncPolicy(scenario_.sync.name);
    const bool relay = syncInfo && syncInfo->shape == TreeShape::SingleServer;
    server_.assign(topo_.size(), -1);
    for (int i = 0; i < topo_.size(); ++i) {
        int a = topo_.node(i).aggregator;
        while (relay && a >= 0 && topo_.node(a).aggregator >= 0) a = topo_.node(a).aggregator;
        server_[i] = a;
    }

    policyContext_ = std::make_unique<EnginePolicyContext>(*this);
    sync_ = makeSyncPolicy(scenario_.sync, *policyContext_);
    selection_ = makeSelectionPolicy(scenario_.selection, *policyContext_);
    pool_ = std::make_unique<WorkPool>(std::max(1, options_.threads), [] { useSingleThreadedKernels(); });

    // Safety net limits, relative to this scenario (see stallSeconds()).
    stallEvents_ = 1000 + 10 * static_cast<std::uint64_t>(topo_.size());
    for (int t : trainers) {
        const int agg = serverOf(t);
        const double seconds = topo_.transfer(agg, t, modelBytes_).seconds +
                               expectedComputeSeconds(t, std::max(1, localStepsOf(t)), scenario_.training.batchSize) +
                               topo_.transfer(t, agg, modelBytes_).seconds;
        expectedSlowestDispatch_ = std::max(expectedSlowestDispatch_, seconds);
    }
    for (const auto& n : topo_.nodes()) {
        const auto& a = n.spec.availability;
        if (a.kind == AvailabilitySpec::Kind::Markov) longestMeanDown_ = std::max(longestMeanDown_, a.meanDownS);
        if (a.kind == AvailabilitySpec::Kind::Trace)
            for (const auto& iv : a.offline)
                if (std::isfinite(iv.toS)) lastTraceChange_ = std::max(lastTraceChange_, iv.toS);
    }
}

double Engine::stallSeconds() const {
    return 100.0 * (std::max(expectedSlowestDispatch_, slowestDispatch_) + longestMeanDown_);
}

void Engine::noteProgress() {
    eventsSinceProgress_ = 0;
    lastProgress_ = now_;
}

bool Engine::stalled() const {
    if (eventsSinceProgress_ <= stallEvents_) return false;
    if (now_ == lastProgress_) return true; // events that never move the clock
    return now_ - lastProgress_ > stallSeconds() && now_ > lastTraceChange_;
}

Engine::~Engine() {
    cancelled_ = true;
    pool_.reset(); // joins the workers before the learner and data go
}

// ---------------------------------------------------------------- control

void Engine::pause() {
    std::lock_guard lock(controlMutex_);
    paused_ = true;
}

void Engine::resume() {
    {
        std::lock_guard lock(controlMutex_);
        paused_ = false;
        stepping_ = false;
    }
    controlCv_.notify_all();
}

void Engine::stepRound() {
    {
        std::lock_guard lock(controlMutex_);
        paused_ = false;
        stepping_ = true;
    }
    controlCv_.notify_all();
}

void Engine::cancel() {
    cancelled_ = true;
    controlCv_.notify_all();
}

void Engine::setPlaybackSpeed(double virtualSecondsPerWallSecond) {
    playbackSpeed_ = std::max(0.0, virtualSecondsPerWallSecond);
}

bool Engine::isPaused() const {
    std::lock_guard lock(controlMutex_);
    return paused_;
}

bool Engine::cancelRequested() {
    if (options_.cancelFlag && options_.cancelFlag->load()) cancelled_ = true;
    return cancelled_;
}

void Engine::waitWhilePaused() {
    // The cancel flag may be set without a notification (a signal handler, a GUI that does
    // not wait for the engine's lock): look at it every 10 ms.
    std::unique_lock lock(controlMutex_);
    while (paused_ && !cancelRequested()) controlCv_.wait_for(lock, std::chrono::milliseconds(10));
}

// ---------------------------------------------------------------- run loop

RunSummary Engine::run() {
    useSingleThreadedKernels();
    wallStart_ = wallNow();
    RunInfo info;
    info.scenarioName = scenario_.name;
    info.seed = scenario_.seed;
    info.threads = pool_->threads();
    info.model = learner_ ? learner_->describe() : "none (timing only)";
    info.trainSamples = data_->train.size();
    info.testSamples = data_->test.size();
    for (const auto& n : topo_.nodes())
        info.nodes.push_back({n.spec.id, toString(n.spec.tier), toString(n.spec.role), n.spec.parent,
                              n.throughput, n.spec.pricePerHour});
    observer_->onStart(info);

    try {
        for (int i = 0; i < topo_.size(); ++i) {
            initAvailability(i);
            if (topo_.node(i).aggregates && rt_[i].online) hold(i); // servers are rented from t = 0
        }
        selection_->start(*policyContext_); // may report a plan before the first round
        sync_->start(*policyContext_);
        const double timeLimit = scenario_.stop.virtualTimeS > 0 ? scenario_.stop.virtualTimeS : kInf;
        while (!stopped_) {
            waitWhilePaused();
            if (cancelRequested()) {
                stop(RunStatus::Cancelled, "cancelled");
                break;
            }
            if (events_.empty()) {
                stop(RunStatus::Finished, "nothing left to run (no trainer can take part)");
                break;
            }
            if (events_.top().t > timeLimit) {
                now_ = timeLimit;
                stop(RunStatus::Finished, "virtual time limit reached");
                break;
            }
            Event ev = events_.top();
            events_.pop();
            if (ev.t > now_) {
                // Teaching speed: let wall time follow virtual time, in short sleeps so that
                // pause, cancel and speed changes stay quick. The anchor moves when the speed
                // changes or the run fell behind (a pause, heavy work), so it never races to
                // catch up.
                double shown = now_;
                while (!cancelRequested()) {
                    const double speed = playbackSpeed_.load();
                    if (speed <= 0 || isPaused()) break;
                    const double wall = wallNow();
                    double v = paceVirtual_ + (wall - paceWall_) * speed;
                    if (speed != paceSpeed_ || v > ev.t + 0.25 * speed) {
                        paceSpeed_ = speed;
                        paceWall_ = wall;
                        paceVirtual_ = v = shown;
                    }
                    shown = std::min(v, ev.t);
                    clock_ = shown;
                    if (v >= ev.t) break;
                    std::this_thread::sleep_for(std::chrono::milliseconds(
                        std::min<long>(20, static_cast<long>((ev.t - v) / speed * 1000) + 1)));
                }
            }
            now_ = ev.t;
            clock_ = now_;
            ev.fn();
            if (!stopped_ && scenario_.stop.budget > 0 && costAt(now_) >= scenario_.stop.budget) {
                emitEvent("budget-reached", -1);
                stop(RunStatus::Finished, "budget reached");
            }
            ++eventsSinceProgress_;
            if (!stopped_ && stalled()) {
                const std::string why =
                    "no progress: " + std::to_string(eventsSinceProgress_) + " events and " +
                    std::to_string(static_cast<long long>(now_ - lastProgress_)) +
                    " virtual seconds since an update last reached an aggregator (at t = " +
                    std::to_string(static_cast<long long>(lastProgress_)) +
                    " s); no trainer can deliver under this topology and these policies "
                    "(docs/emulator.md, 'Safety net')";
                emitEvent("no-progress", -1, why);
                stop(RunStatus::Failed, why);
            }
            flushIntervals(false);
        }
    } catch (const std::exception& ex) {
        if (!stopped_) stop(cancelled_ ? RunStatus::Cancelled : RunStatus::Failed, ex.what());
    }
    return finish();
}

void Engine::stop(RunStatus status, const std::string& reason) {
    if (stopped_) return;
    stopped_ = true;
    summary_.status = status;
    summary_.stopReason = reason;
}

RunSummary Engine::finish() {
    for (auto& [id, job] : jobs_)
        if (job.work) job.work->cancel();
    // Close every node's open state and billing at the end time.
    for (int i = 0; i < topo_.size(); ++i) {
        if (rt_[i].job) {
            const Job& job = jobs_.at(rt_[i].job);
            emitJobIntervals(job, now_);
            finishJobCompute(job, now_);
            rt_[i].state = NodeState::Idle;
            rt_[i].stateSince = now_;
        } else {
            setState(i, rt_[i].state, now_);
        }
        release(i);
    }
    flushIntervals(true);
    for (auto& [id, job] : jobs_)
        if (job.work) job.work->wait();

    summary_.rounds = globalRound_;
    summary_.aggregations = aggregations_;
    summary_.virtualTime = now_;
    summary_.cost = costAt(now_);
    double energy = 0.0;
    for (const auto& r : rt_) energy += r.energy;
    summary_.energyJ = energy;
    summary_.bytes = bytes_;
    summary_.samplesComputed = samplesComputed_;
    summary_.lostJobs = lostJobs_;
    summary_.finalTrainLoss = last_.trainLoss;
    // A cancelled run keeps its last evaluation: a final pass over the test set would make
    // Stop wait for it.
    if (learner_ && summary_.status == RunStatus::Finished) {
        ParamsPtr model = sync_->globalModel();
        if (!lastEvaluated_ || std::isnan(summary_.finalTestAccuracy)) {
            const EvalResult r = learner_->evaluate(*model);
            summary_.finalTestLoss = r.loss;
            summary_.finalTestAccuracy = r.accuracy;
            if (std::isnan(summary_.bestTestAccuracy) || r.accuracy > summary_.bestTestAccuracy)
                summary_.bestTestAccuracy = r.accuracy;
        }
    }
    summary_.wallSeconds = wallNow() - wallStart_;
    observer_->onFinish(summary_);
    return summary_;
}

void Engine::at(double t, std::function<void()> fn) {
    events_.push({std::max(t, now_), eventSeq_++, std::move(fn)});
}

// ---------------------------------------------------------------- availability and billing

void Engine::initAvailability(int node) {
    auto& r = rt_[node];
    const auto& a = topo_.node(node).spec.availability;
    r.nextChange = kInf;
    switch (a.kind) {
    case AvailabilitySpec::Kind::Always:
        r.online = true;
        return;
    case AvailabilitySpec::Kind::Markov:
        if (a.startStationary)
            r.online = r.availabilityRng.uniform() < a.meanUpS / (a.meanUpS + a.meanDownS);
        else
            r.online = a.startOnline;
        r.nextChange = r.availabilityRng.exponential(r.online ? a.meanUpS : a.meanDownS);
        break;
    case AvailabilitySpec::Kind::Trace: {
        r.online = true;
        r.traceIndex = 0;
        while (r.traceIndex < a.offline.size() && a.offline[r.traceIndex].toS <= 0.0) ++r.traceIndex;
        if (r.traceIndex < a.offline.size()) {
            const auto& iv = a.offline[r.traceIndex];
            if (iv.fromS <= 0.0) {
                r.online = false;
                r.nextChange = iv.toS;
            } else {
                r.nextChange = iv.fromS;
            }
        }
        break;
    }
    }
    if (!r.online) {
        r.state = NodeState::Offline;
        r.stateSince = 0.0;
    }
    scheduleAvailabilityChange(node);
}

void Engine::scheduleAvailabilityChange(int node) {
    const double t = rt_[node].nextChange;
    if (t < kInf) at(t, [this, node] { onAvailabilityChange(node); });
}

void Engine::onAvailabilityChange(int node) {
    auto& r = rt_[node];
    const auto& a = topo_.node(node).spec.availability;
    const bool wasOnline = r.online;
    if (a.kind == AvailabilitySpec::Kind::Markov) {
        r.nextChange = now_ + r.availabilityRng.exponential(wasOnline ? a.meanDownS : a.meanUpS);
    } else {
        // Trace: going offline at interval.from, back at interval.to.
        if (wasOnline) {
            r.nextChange = a.offline[r.traceIndex].toS;
        } else {
            ++r.traceIndex;
            r.nextChange = r.traceIndex < a.offline.size() ? a.offline[r.traceIndex].fromS : kInf;
        }
    }
    if (wasOnline)
        goOffline(node);
    else
        goOnline(node);
    scheduleAvailabilityChange(node);
}

void Engine::goOffline(int node) {
    auto& r = rt_[node];
    r.online = false;
    release(node);
    emitEvent("offline", node);
    if (r.job) {
        Job job = jobs_.at(r.job);
        jobs_.erase(r.job);
        r.job = 0;
        if (job.work) job.work->cancel();
        emitJobIntervals(job, now_);
        finishJobCompute(job, now_);
        r.state = NodeState::Offline;
        r.stateSince = now_;
        ++lostJobs_;
        observer_->onJobEnded(job.id, now_);
        emitEvent("work-lost", node, "round " + std::to_string(job.round));
        sync_->onLost(*policyContext_, job);
    } else {
        setState(node, NodeState::Offline, now_);
    }
}

void Engine::goOnline(int node) {
    rt_[node].online = true;
    setState(node, NodeState::Idle, now_);
    if (rt_[node].acquired || topo_.node(node).aggregates) hold(node);
    emitEvent("online", node);
    sync_->onNodeOnline(*policyContext_, node);
}

void Engine::hold(int node) {
    auto& r = rt_[node];
    r.acquired = true;
    if (r.holding || !r.online) return;
    r.holding = true;
    r.holdSince = now_;
}

void Engine::release(int node) {
    auto& r = rt_[node];
    if (!r.holding) return;
    r.holding = false;
    // Billed per started second of each holding interval.
    r.billed += std::ceil(now_ - r.holdSince - 1e-9) * topo_.node(node).spec.pricePerHour / 3600.0;
}

double Engine::costAt(double t) const {
    double c = trafficCost_;
    for (int i = 0; i < topo_.size(); ++i) {
        const auto& r = rt_[i];
        c += r.billed;
        if (r.holding)
            c += std::ceil(std::max(0.0, t - r.holdSince - 1e-9)) * topo_.node(i).spec.pricePerHour /
                 3600.0;
    }
    return c;
}

// ---------------------------------------------------------------- work

std::int64_t Engine::samplesOf(int trainer) const {
    const int p = trainerPart_.at(trainer);
    return p < 0 ? 0 : static_cast<std::int64_t>(data_->parts[p].size());
}

int Engine::localStepsOf(int trainer) const {
    const auto& t = scenario_.training;
    if (t.localEpochs > 0) {
        const std::int64_t n = samplesOf(trainer);
        return static_cast<int>(t.localEpochs * ((n + t.batchSize - 1) / t.batchSize));
    }
    return t.localSteps;
}

double Engine::learningRate() const {
    const auto& t = scenario_.training;
    const auto& s = t.schedule;
    switch (s.kind) {
    case ScheduleSpec::Kind::Constant:
        return t.learningRate;
    case ScheduleSpec::Kind::Step:
        return t.learningRate * std::pow(s.gamma, globalRound_ / std::max(1, s.stepRounds));
    case ScheduleSpec::Kind::InverseTime:
        return t.learningRate / (1.0 + s.gamma * globalRound_);
    }
    return t.learningRate;
}

std::vector<int> Engine::trainersOf(int aggregator) const {
    std::vector<int> out;
    for (int t : topo_.trainers())
        if (serverOf(t) == aggregator) out.push_back(t);
    return out;
}

std::vector<int> Engine::selectTrainers(int aggregator, int round) {
    std::vector<int> candidates;
    for (int t : trainersOf(aggregator))
        if (rt_[t].online && !rt_[t].job) candidates.push_back(t);
    if (candidates.empty()) return candidates;
    return selection_->select(*policyContext_, aggregator, round, candidates, selectionRng_);
}

std::vector<std::int64_t> Engine::nextBatch(int trainer, int size) {
    auto& r = rt_[trainer];
    const auto& part = data_->parts[trainerPart_[trainer]];
    std::vector<std::int64_t> batch;
    // Batches never straddle an epoch: the last one of an epoch may be smaller.
    if (r.cursor >= r.order.size()) {
        r.order = part;
        r.dataRng.shuffle(r.order);
        r.cursor = 0;
    }
    const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(size), r.order.size() - r.cursor);
    batch.assign(r.order.begin() + static_cast<long>(r.cursor),
                 r.order.begin() + static_cast<long>(r.cursor + n));
    r.cursor += n;
    return batch;
}

double Engine::stepSeconds(int trainer, int batch) {
    const Node& n = topo_.node(trainer);
    return batch / n.throughput * noiseDraw(n.spec.compute.noise, rt_[trainer].computeRng);
}

std::uint64_t Engine::dispatch(int trainer, int aggregator, ParamsPtr model, long version, int steps,
                               bool gradient, int round, int tag, bool download) {
    DispatchOptions o;
    o.tag = tag;
    o.download = download;
    return dispatch(trainer, aggregator, std::move(model), version, steps, gradient, round, o);
}

double Engine::expectedComputeSeconds(int trainer, int steps, int batch) const {
    return static_cast<double>(steps) * batch / topo_.node(trainer).throughput;
}

void Engine::putBackBatch(int trainer, std::size_t size) { rt_[trainer].cursor -= size; }

std::uint64_t Engine::dispatch(int trainer, int aggregator, ParamsPtr model, long version, int steps,
                               bool gradient, int round, const DispatchOptions& opt) {
    const int tag = opt.tag;
    const bool download = opt.download;
    const int batchSize = opt.batchSize > 0 ? opt.batchSize : scenario_.training.batchSize;
    auto& r = rt_[trainer];
    if (!r.online || r.job) throw EngineError("internal: dispatch to an offline or busy trainer");
    hold(trainer);
    Job job;
    job.id = nextJobId_++;
    job.trainer = trainer;
    job.aggregator = aggregator;
    job.round = round;
    job.version = version;
    job.gradient = gradient;
    job.tag = tag;
    job.tStart = now_;

    job.tReceived = download ? send(aggregator, trainer, modelBytes_) : now_;
    std::vector<std::int64_t> samples;
    double t = job.tReceived;
    job.stepsRequested = std::max(1, steps);
    for (int s = 0; s < job.stepsRequested; ++s) {
        auto batch = nextBatch(trainer, batchSize);
        const int bs = static_cast<int>(batch.size());
        const double d = stepSeconds(trainer, bs);
        if (s > 0 && t + d > opt.computeDeadline) {
            putBackBatch(trainer, batch.size()); // unused: the next dispatch starts with it
            job.partial = true;
            break;
        }
        t += d;
        job.batchSizes.push_back(bs);
        job.stepEnds.push_back(t);
        job.samples += bs;
        samples.insert(samples.end(), batch.begin(), batch.end());
    }
    job.tComputed = t;
    const Transfer up = topo_.transfer(trainer, aggregator, modelBytes_);
    job.tArrive = t + up.seconds;
    job.doomed = r.nextChange < job.tArrive;

    if (learner_ && !job.doomed) {
        LocalJob lj;
        lj.start = std::move(model);
        lj.samples = std::move(samples);
        lj.batchSizes = job.batchSizes;
        lj.learningRate = learningRate();
        lj.momentum = scenario_.training.momentum;
        lj.weightDecay = scenario_.training.weightDecay;
        lj.gradientOnly = gradient;
        lj.seed = deriveSeed(scenario_.seed, hashName(topo_.node(trainer).spec.id), r.jobsRun);
        auto result = std::make_shared<LocalResult>();
        job.result = result;
        const Learner* learner = learner_.get();
        const std::atomic<bool>* cancelAll = &cancelled_;
        job.work = pool_->submit(job.tArrive, [learner, lj = std::move(lj), result,
                                               cancelAll](const std::atomic<bool>& cancelled) {
            *result = learner->run(lj, [&] { return cancelled.load() || cancelAll->load(); });
        });
    }
    ++r.jobsRun;
    r.job = job.id;
    setState(trainer, NodeState::Idle, now_);
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
    auto& r = rt_[job.trainer];
    r.job = 0;
    LocalResult result;
    if (job.work) {
        job.work->wait();
        result = std::move(*job.result);
    } else {
        result.samples = job.samples;
        result.steps = static_cast<int>(job.batchSizes.size());
    }
    finishJobCompute(job, now_);
    // The update travels back: traffic, its price and the sender's energy.
    const Transfer up = topo_.transfer(job.trainer, job.aggregator, modelBytes_);
    trafficCost_ += up.price;
    bytes_ += modelBytes_;
    r.energy += modelBytes_ * topo_.node(job.trainer).spec.energy.perByteJ;
    emitJobIntervals(job, now_);
    r.state = NodeState::Idle;
    r.stateSince = now_;
    selection_->observe(job.trainer, result.meanLoss, job.tArrive - job.tStart);
    sync_->onArrival(*policyContext_, job, result);
}

void Engine::cancelJob(std::uint64_t id) {
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return;
    Job job = std::move(it->second);
    jobs_.erase(it);
    if (job.work) job.work->cancel();
    emitJobIntervals(job, now_);
    finishJobCompute(job, now_);
    auto& r = rt_[job.trainer];
    r.job = 0;
    r.state = NodeState::Idle;
    r.stateSince = now_;
    observer_->onJobEnded(id, now_);
}

void Engine::finishJobCompute(const Job& job, double until) {
    // Energy and sample counts for the steps that were completed by `until`.
    std::int64_t done = 0;
    for (std::size_t s = 0; s < job.stepEnds.size() && job.stepEnds[s] <= until; ++s)
        done += job.batchSizes[s];
    samplesComputed_ += done;
    rt_[job.trainer].energy += static_cast<double>(done) * topo_.node(job.trainer).spec.energy.perSampleJ;
}

double Engine::send(int from, int to, double bytes) {
    const Transfer tr = topo_.transfer(from, to, bytes);
    trafficCost_ += tr.price;
    bytes_ += bytes;
    rt_[from].energy += bytes * topo_.node(from).spec.energy.perByteJ;
    observer_->onMessage({from, to, now_, now_ + tr.seconds});
    return now_ + tr.seconds;
}

// ---------------------------------------------------------------- node timelines

void Engine::setState(int node, NodeState s, double t) {
    auto& r = rt_[node];
    if (t > r.stateSince) pendingIntervals_.push_back({node, r.state, r.stateSince, t});
    if (t >= r.stateSince) {
        r.state = s;
        r.stateSince = t;
    }
}

void Engine::emitJobIntervals(const Job& job, double until) {
    const int n = job.trainer;
    auto emit = [&](NodeState s, double from, double to) {
        to = std::min(to, until);
        if (to > from) pendingIntervals_.push_back({n, s, from, to});
    };
    emit(NodeState::Receiving, job.tStart, job.tReceived);
    emit(NodeState::Computing, job.tReceived, job.tComputed);
    emit(NodeState::Sending, job.tComputed, job.tArrive);
}

void Engine::flushIntervals(bool force) {
    if (pendingIntervals_.empty() || (!force && pendingIntervals_.size() < 256)) return;
    observer_->onIntervals(pendingIntervals_);
    pendingIntervals_.clear();
}

// ---------------------------------------------------------------- metrics

PolicyContext& Engine::policyContext() {
    return *policyContext_;
}
const PolicyContext& Engine::policyContext() const {
    return *policyContext_;
}

void Engine::emitEvent(const std::string& kind, int node, const std::string& detail) {
    observer_->onEvent({now_, kind, node, detail});
}

void Engine::evaluateInto(AggregationRecord& r, const ParamsPtr& model) {
    if (!learner_ || !model || model->empty()) return;
    const EvalResult e = learner_->evaluate(*model);
    r.testLoss = e.loss;
    r.testAccuracy = e.accuracy;
    summary_.finalTestLoss = e.loss;
    summary_.finalTestAccuracy = e.accuracy;
    if (std::isnan(summary_.bestTestAccuracy) || e.accuracy > summary_.bestTestAccuracy)
        summary_.bestTestAccuracy = e.accuracy;
}

void Engine::reportAggregation(AggregationRecord record, const ParamsPtr& model) {
    record.time = now_;
    record.wallSeconds = wallNow() - wallStart_;
    record.cost = costAt(now_);
    double energy = 0.0;
    for (const auto& r : rt_) energy += r.energy;
    record.energyJ = energy;
    record.bytes = bytes_;
    record.learningRate = learningRate();
    ++aggregations_;
    noteProgress();
    bool stepDone = false;
    if (record.level == 0) {
        ++globalRound_;
        stepDone = true;
        const bool evaluate = globalRound_ % std::max(1, scenario_.evaluation.everyRounds) == 0 ||
                              globalRound_ == scenario_.stop.rounds;
        if (evaluate) evaluateInto(record, model);
        lastEvaluated_ = evaluate;
    }
    record.round = globalRound_;
    last_ = record;
    flushIntervals(true);
    observer_->onAggregation(record);

    if (record.level == 0) {
        if (scenario_.stop.rounds > 0 && globalRound_ >= scenario_.stop.rounds) {
            stop(RunStatus::Finished, "round limit reached");
        } else if (scenario_.stop.targetAccuracy > 0 && !std::isnan(record.testAccuracy) &&
                   record.testAccuracy >= scenario_.stop.targetAccuracy) {
            emitEvent("target-reached", -1);
            stop(RunStatus::Finished, "target accuracy reached");
        }
    }
    if (stepDone) {
        std::lock_guard lock(controlMutex_);
        if (stepping_) {
            stepping_ = false;
            paused_ = true;
        }
    }
}

} // namespace fog
