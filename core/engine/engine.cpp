#include "core/engine/engine.h"
#include "core/util/portable_math.h"

#include "core/engine/batch_feeder.h"
#include "core/engine/local_job_tap.h"
#include "core/engine/timed_events.h"
#include "core/engine/work_pool.h"
#include "core/model/torchscript_model.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/policy_info.h"
#include "core/policies/selection_policy.h"
#include "core/policies/sync_policy.h"
#include "core/policies/tiered.h"

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

std::vector<double> dataShares(const Topology& topo, const std::vector<int>& trainers) {
    std::vector<double> weights;
    weights.reserve(trainers.size());
    for (int t : trainers) weights.push_back(topo.dataShare(t));
    return weights;
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

namespace {

/// The trainers there from the start (members that join during the run come after them).
std::vector<int> startingTrainers(const Topology& topo) {
    std::vector<int> out;
    for (int t : topo.trainers())
        if (!topo.joinsLater(t)) out.push_back(t);
    return out;
}

/// The scenario with the trace files it names loaded (TimedEvents::loadTraces): a broken one
/// is reported before anything else is built.
Scenario withTraces(const Scenario& scenario) {
    Scenario s = scenario;
    TimedEvents::loadTraces(s);
    return s;
}

/// The run's data as loadData splits them over the starting trainers, plus each member that
/// joins later its own sample (TimedEvents::addJoiningParts).
DataBundle loadRunData(const Scenario& s, const Topology& topo) {
    const std::vector<int> trainers = startingTrainers(topo);
    DataBundle b = loadData(s.data, dataShares(topo, trainers), s.seed);
    if (trainers.size() < topo.trainers().size()) TimedEvents::addJoiningParts(b, topo, trainers.size(), s.seed);
    return b;
}

} // namespace

struct Engine::EventDoors final : TimedEvents::Host {
    explicit EventDoors(Engine& engine)
        : e(engine), links(engine.topo_, engine.network_.get()),
          nodes(engine.nodes_, engine.topo_, engine.flopsPerSample_,
                {[&engine](int n) { engine.goOffline(n); }, [&engine](int n) { engine.goOnline(n); },
                 [&engine](int n) { engine.joinNode(n); }}),
          prices(engine.nodes_, engine.topo_) {}
    TimedEvents::Resources resources() { return {links, nodes, prices}; }

    double now() const override { return e.now(); }
    void schedule(double t, std::function<void()> fn) override { e.at(t, std::move(fn)); }
    void emit(RunEventKind kind, int node, const std::string& detail) override { e.emitEvent(kind, node, detail); }
    bool stopped() const override { return e.stopped_; }
    void announceOnline(int n) override { e.sync_->onNodeOnline(e, n); }
    void setPolicyParam(const std::string& policyOf, const std::string& key, double value) override {
        (policyOf == "sync" ? e.syncParams_ : e.selectionParams_).set(key, value);
    }
    std::vector<TimedEvent> takeInterventions() override { return e.control_->takeInterventions(); }
    void intervened(const TimedEvent& event) override {
        e.lastTraceChange_ = std::max(e.lastTraceChange_, e.now());
        e.observer_->onIntervention(event);
    }

    Engine& e;
    LinkResources links;
    NodeResources nodes;
    PriceResources prices;
};

Engine::Engine(const Scenario& scenario, EngineOptions options)
    : scenario_(withTraces(scenario)), options_(std::move(options)),
      control_(options_.control ? options_.control : std::make_shared<RunControl>()),
      topo_(scenario.topology, scenario.seed, TimedEvents::joiningPerEntry(scenario)), nodes_(topo_, scenario.seed),
      timelines_(topo_.size()),
      stopRules_(scenario.stop), evaluation_(scenario.evaluation, scenario.stop) {
    observer_ = options_.observer ? options_.observer : &nullObserver_;
    queue_.setPrefetcher(&Engine::prefetchNode, this);
    if (options_.playbackSpeed > 0) control_->setPlaybackSpeed(options_.playbackSpeed);
    checkSnapshotOptions();
    // Members that join during the run (`add` events) are not there yet: the data are split
    // over the others exactly as without them, and each newcomer brings its own sample
    // (TimedEvents::addJoiningParts).
    const auto allTrainers = topo_.trainers();
    const std::vector<int> trainers = startingTrainers(topo_);
    if (trainers.empty()) throw EngineError("the topology has no trainer under an aggregator");

    // Data: parts follow the trainers in topology order, weighted by their data_share. A
    // timing-only run needs only how many samples each trainer holds.
    data_ = options_.data;
    if (!data_ && scenario_.data.kind == DataSpec::Kind::None && scenario_.model.kind == ModelSpec::Kind::None) {
        if (scenario_.data.samplesPerTrainer < 0) throw DataError("data: samplesPerTrainer must be >= 0");
        auto b = std::make_shared<DataBundle>();
        b->train.width = b->test.width = 0;
        data_ = b;
        uniformPart_ = scenario_.data.samplesPerTrainer;
    } else if (!data_) {
        data_ = std::make_shared<DataBundle>(loadRunData(scenario_, topo_));
    } else if (uniformPart_ < 0 && allTrainers.size() > trainers.size() && data_->parts.size() == trainers.size()) {
        DataBundle b = *data_; // data shared with other runs: this run's copy gets the newcomers' parts
        TimedEvents::addJoiningParts(b, topo_, trainers.size(), scenario_.seed);
        data_ = std::make_shared<DataBundle>(std::move(b));
    }
    if (uniformPart_ < 0 && data_->parts.size() < allTrainers.size())
        throw EngineError("the data are split into " + std::to_string(data_->parts.size()) +
                          " parts but the topology has " + std::to_string(allTrainers.size()) +
                          " trainers");
    trainerPart_.assign(topo_.size(), -1);
    for (std::size_t i = 0; i < allTrainers.size(); ++i) {
        trainerPart_[allTrainers[i]] = static_cast<int>(i);
        if (uniformPart_ >= 0 ? uniformPart_ == 0 : data_->parts[i].empty())
            throw EngineError("trainer '" + topo_.node(allTrainers[i]).spec.id +
                              "' received no training samples: use fewer trainers, more data "
                              "or another partition");
    }

    if (scenario_.model.kind != ModelSpec::Kind::None) {
        learner_ = std::make_unique<Learner>(scenario_.model, data_->train, data_->test, scenario_.training.backend);
        initialModel_ = std::make_shared<Params>(learner_->initialParameters(scenario_.seed));
        if (LocalJobTap* tap = localJobTap()) tap->trainingData(data_);
    } else {
        initialModel_ = std::make_shared<Params>();
    }
    // Nodes given in FLOP/s (compute.flops, or a device class): the topology holds FLOP/s
    // until the model's cost per sample is known, here; energy per FLOP needs it too.
    auto modelFlops = [this] {
        if (flopsPerSample_ <= 0)
            flopsPerSample_ = modelTrainingFlops(scenario_.model, data_->train.channels, data_->train.height,
                                                 data_->train.width, data_->train.classes);
        return flopsPerSample_;
    };
    for (int i = 0; i < topo_.size(); ++i) {
        if (topo_.entry(i).compute.flops.max > 0) topo_.setThroughput(i, topo_.throughput(i) / modelFlops());
        if (topo_.entry(i).energy.perFlopJ > 0) modelFlops();
    }
    modelBytes_ = scenario_.model.wireBytes > 0
                      ? scenario_.model.wireBytes
                      : 4.0 * static_cast<double>(learner_ ? learner_->parameterCount() : 0);
    dispatcher_ = std::make_unique<Dispatcher>(scenario_, topo_, learner_.get(), modelBytes_, control_->cancelFlag());

    const std::uint64_t seed = scenario_.seed;
    const Topology* topo = &topo_;
    feeder_ = std::make_unique<BatchFeeder>(
        topo_.size(), learner_ != nullptr, [this](int n) { return samplesOf(n); },
        [this](int n) -> const BatchFeeder::Part& { return data_->parts[trainerPart_[n]]; },
        [seed, topo](int n) { return deriveSeed(seed, hashName("data-order"), hashName(topo->id(n))); });
    selectionRng_ = Rng(deriveSeed(scenario_.seed, hashName("selection")));

    // Single-server policies talk to every trainer of the tree; aggregators below the
    // server relay (store and forward along the links). The others use nearest aggregators.
    const PolicyInfo* syncInfo = findSyncPolicy(scenario_.sync.name);
    // A tiered tree (core/policies/tiered.h): every aggregator serves the trainers right under it.
    const bool tiered = isTiered(scenario_.topology);
    const bool relay = !tiered && syncInfo && syncInfo->shape == TreeShape::SingleServer;
    server_.assign(topo_.size(), -1);
    for (int i = 0; i < topo_.size(); ++i) {
        int a = topo_.aggregator(i);
        while (relay && a >= 0 && topo_.aggregator(a) >= 0) a = topo_.aggregator(a);
        server_[i] = a;
    }
    for (int t : trainers) trainersOf_[server_[t]].push_back(t); // newcomers when they join
    for (int i = 0; i < topo_.size(); ++i)
        anyAggregationEnergy_ = anyAggregationEnergy_ || topo_.entry(i).energy.perUpdateAggregatedJ > 0;
    // Unknown names stay empty here: building the policy reports them.
    if (findSyncDescriptor(scenario_.sync.name)) syncParams_ = resolveSyncParams(scenario_.sync);
    // Synchronous averaging between regional servers (model averaging; async-ga across
    // several roots): every server folds in every region's model (chargeAggregation).
    // Asynchronous averaging: only the server that mixes.
    const SyncPolicyDescriptor* syncDesc = findSyncDescriptor(scenario_.sync.name);
    const bool asyncAveraging = syncDesc && syncDesc->asyncAveraging && syncDesc->asyncAveraging(syncParams_);
    if (syncInfo && !tiered && !asyncAveraging &&
        (syncInfo->shape == TreeShape::Regions ||
         (relay && syncDesc->serverPerRoot && topo_.rootAggregators().size() > 1)))
        for (int r : topo_.rootAggregators())
            if (trainersOf_.count(r)) regionServers_.push_back(r);
    if (findSelectionDescriptor(scenario_.selection.name)) selectionParams_ = resolveSelectionParams(scenario_.selection);
    sync_ = tiered ? makeTieredPolicy(scenario_, *this) : makeSyncPolicy(scenario_.sync, *this);
    selection_ = makeSelectionPolicy(scenario_.selection, *this);
    dispatcher_->startPool(options_.threads);

    // Contention: transfers share links and interfaces (docs/network.md). Nothing to share
    // (no link, no interface limit): every transfer is instantaneous either way.
    if (topo_.spec().contention) {
        network_ = std::make_unique<Network>(
            topo_, [this](double t, std::function<void()> fn) { at(t, std::move(fn)); },
            [this](const Network::HopBytes& h) { chargeHop(h); }, observer_);
        if (network_->links().empty()) network_.reset();
    }

    // Safety net limits, relative to this scenario (see stallSeconds()).
    stallEvents_ = 1000 + 10 * static_cast<std::uint64_t>(topo_.firstJoining());
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
    eventDoors_ = std::make_unique<EventDoors>(*this);
    events_ = std::make_unique<TimedEvents>(scenario_, topo_, *eventDoors_, eventDoors_->resources());
    lastTraceChange_ = std::max(lastTraceChange_, events_->lastChange());
}

Engine::~Engine() {
    control_->cancel(); // work still on the pool stops at its next step
    dispatcher_.reset(); // joins the workers before the learner and data go
}

const DataBundle& Engine::data() const {
    if (uniformPart_ >= 0) {
        // What loadData gives a timing-only run: every trainer holds indices 0 .. n-1.
        data_ = std::make_shared<DataBundle>(loadRunData(scenario_, topo_));
        uniformPart_ = -1;
    }
    return *data_;
}

double Engine::stallSeconds() const {
    return 100.0 * (std::max(expectedSlowestDispatch_, slowestDispatch_) + longestMeanDown_);
}

void Engine::noteProgress() {
    eventsSinceProgress_ = 0;
    lastProgress_ = now();
}

bool Engine::stalled() const {
    if (eventsSinceProgress_ <= stallEvents_) return false;
    if (now() == lastProgress_) return true; // events that never move the clock
    return now() - lastProgress_ > stallSeconds() && now() > lastTraceChange_;
}

// ---------------------------------------------------------------- run loop

RunProgress Engine::progress(double accuracy) const {
    RunProgress p;
    p.round = globalRound_;
    p.time = now();
    p.accuracy = accuracy;
    p.cost = costAt(now());
    return p;
}

void Engine::checkArmedCondition(bool atRound, double accuracy) {
    const auto c = control_->armedCondition();
    if (!c || stopped_) return;
    // Each metric is looked at where it changes: round and accuracy at global aggregations,
    // cost after every event (time is handled before each event, in run()).
    if (!atRound && c->metric != ConditionMetric::Cost) return;
    if (c->metric == ConditionMetric::Cost && !nodes_.costMayReach(trafficCost_, now(), c->threshold)) return;
    const RunProgress p = progress(accuracy);
    if (!c->holds(p)) return;
    const auto what = control_->conditionHeld(*c, p);
    if (what == RunControl::OnCondition::Stop) stop(RunStatus::Finished, "condition reached: " + c->reachedText(p));
}

void Engine::paceTo(double t) {
    // Teaching speed: let wall time follow virtual time, in short sleeps so that pause,
    // cancel and speed changes stay quick. The anchor moves when the speed changes or the
    // run fell behind (a pause, heavy work), so it never races to catch up.
    double shown = now();
    while (!control_->checkCancel(options_.cancelFlag)) {
        const double speed = control_->playbackSpeed();
        if (speed <= 0 || control_->isPaused()) break;
        const double wall = wallNow();
        double v = paceVirtual_ + (wall - paceWall_) * speed;
        if (speed != paceSpeed_ || v > t + 0.25 * speed) {
            paceSpeed_ = speed;
            paceWall_ = wall;
            paceVirtual_ = v = shown;
        }
        shown = std::min(v, t);
        control_->setClock(shown);
        if (v >= t) break;
        std::this_thread::sleep_for(
            std::chrono::milliseconds(std::min<long>(20, static_cast<long>((t - v) / speed * 1000) + 1)));
    }
}

RunSummary Engine::run() {
    useSingleThreadedKernels();
    wallStart_ = wallNow();
    RunInfo info;
    info.scenarioName = scenario_.name;
    info.seed = scenario_.seed;
    info.threads = dispatcher_->threads();
    info.model = learner_ ? learner_->describe() : "none (timing only)";
    info.trainSamples = data_->train.size();
    info.testSamples = data_->test.size();
    info.nodes.reserve(static_cast<std::size_t>(topo_.size()));
    for (const auto& n : topo_.nodes())
        info.nodes.push_back({n.spec.id, toString(n.spec.tier), toString(n.spec.role), n.spec.parent,
                              n.throughput, n.spec.pricePerHour});
    if (network_) info.links = network_->lendLinks();
    observer_->onStart(info);
    if (network_) network_->giveBackLinks(std::move(info.links));
    info = RunInfo{};
    if (learner_ && scenario_.training.backend != TrainingBackend::LibTorch)
        emitEvent(RunEventKind::Backend, -1,
                  std::string("training.backend ") + toString(scenario_.training.backend) + ": " + learner_->backend());

    try {
        if (const auto& limit = stopRules_.timeLimit()) queue_.scheduleStop(limit->condition.threshold, limit->reason);
        for (int i = 0; i < topo_.firstJoining(); ++i) startNode(i); // newcomers start when they join
        events_->start(); // what holds from t = 0, before the policies start
        startPolicies(); // the pilot phase first if a planner asks for one (pilot_phase.cpp)
        offersChanged_ = false; // the start (or the pilot's end, later) saw the offers of now
        while (!stopped_) {
            control_->waitWhilePaused(options_.cancelFlag);
            if (control_->takeSnapshotRequest()) { // also while paused: the run stays paused
                takeSnapshot(RunSnapshot::Reason::Requested, now());
                continue;
            }
            if (control_->checkCancel(options_.cancelFlag)) {
                stop(RunStatus::Cancelled, "cancelled");
                break;
            }
            // Interventions (and recorded ones due after this many events); then look at the
            // pause again: one may arrive while paused.
            if (events_->between(eventsRun_)) {
                timelines_.flush(*observer_, false);
                continue;
            }
            // Offers changed: the selection re-plans once every event of this instant is done
            // (two trace rows at one time are one change). Not a queue event: counts stay.
            if (offersChanged_ && (queue_.idle() || queue_.nextTime() > now())) {
                offersChanged_ = false;
                // During a pilot phase the selection has not started: it plans with the
                // offers of the pilot's end.
                if (!pilotActive()) selection_->onOffersChanged(*this);
                continue;
            }
            if (queue_.idle()) {
                stop(RunStatus::Finished, "nothing left to run (no trainer can take part)");
                break;
            }
            takeDueSnapshots(queue_.nextTime());
            // A front end's "time >= T": the clock reaches T once every event at T is done.
            if (const auto c = control_->armedCondition(); c && c->metric == ConditionMetric::Time) {
                if (queue_.nextTime() > c->threshold || now() >= c->threshold) {
                    queue_.advanceTo(std::max(now(), c->threshold));
                    control_->setClock(now());
                    const RunProgress p = progress(kNaN);
                    const auto what = control_->conditionHeld(*c, p);
                    if (what == RunControl::OnCondition::Stop)
                        stop(RunStatus::Finished, "condition reached: " + c->reachedText(p));
                    continue;
                }
            }
            const double t = queue_.nextTime();
            if (t > now()) paceTo(t);
            EventQueue::Popped ev = queue_.pop();
            control_->setClock(now());
            if (ev.isStop()) {
                stop(RunStatus::Finished, ev.reason);
                break;
            }
            if (ev.fn) ev.fn(); // a cancelled timer counts as an event all the same (EventQueue::cancel)
            control_->eventHandled(); // an event step ends here
            ++eventsRun_;
            if (const auto& b = stopRules_.budget();
                b && !stopped_ && nodes_.costMayReach(trafficCost_, now(), b->condition.threshold) &&
                costAt(now()) >= b->condition.threshold) {
                emitEvent(*b->event, -1);
                stop(RunStatus::Finished, b->reason);
            }
            ++eventsSinceProgress_;
            if (!stopped_ && stalled()) {
                const std::string why =
                    "no progress: " + std::to_string(eventsSinceProgress_) + " events and " +
                    std::to_string(static_cast<long long>(now() - lastProgress_)) +
                    " virtual seconds since an update last reached an aggregator (at t = " +
                    std::to_string(static_cast<long long>(lastProgress_)) +
                    " s); no trainer can deliver under this topology and these policies "
                    "(docs/emulator.md, 'Safety net')";
                emitEvent(RunEventKind::NoProgress, -1, why);
                stop(RunStatus::Failed, why);
            }
            checkArmedCondition(false, kNaN);
            timelines_.flush(*observer_, false);
        }
    } catch (const std::exception& ex) {
        if (!stopped_) stop(control_->cancelRequested() ? RunStatus::Cancelled : RunStatus::Failed, ex.what());
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
    dispatcher_->cancelAll();
    // Close every node's open state and billing at the end time.
    const double end = now();
    for (int i = 0; i < topo_.size(); ++i) {
        if (const std::uint64_t id = nodes_.job(i)) {
            const Job& job = jobs_.at(id);
            writeJobIntervals(job, end);
            endJobCompute(job, end);
            timelines_.restart(i, NodeState::Idle, end);
            flowJobs_.erase(id);
        } else if (!(nodes_.forced(i) & TimedEvents::Absent)) { // a member that never joined has no interval
            timelines_.setState(i, timelines_.state(i), end);
        }
        nodes_.release(i, end);
    }
    timelines_.flush(*observer_, true);
    // Transfers still moving are cut at the end: the bytes sent so far are charged.
    if (network_) network_->finish(end);
    dispatcher_->waitAll();

    summary_.rounds = globalRound_;
    summary_.aggregations = aggregations_;
    summary_.virtualTime = end;
    summary_.cost = costAt(end);
    const EnergySplit energy = nodes_.energyAt(end);
    summary_.energyJ = energy.total;
    summary_.energyComputeJ = energy.compute;
    summary_.energyNetworkJ = energy.network;
    summary_.energyIdleJ = energy.idle;
    summary_.bytes = bytes_;
    summary_.samplesComputed = samplesComputed_;
    summary_.lostJobs = lostJobs_;
    summary_.finalTrainLoss = last_.trainLoss;
    // A cancelled run keeps its last evaluation: a final pass over the test set would make
    // Stop wait for it.
    if (learner_ && summary_.status == RunStatus::Finished) {
        ParamsPtr model = sync_->globalModel();
        if (!model) model = initialModel_; // stopped during a planner's pilot: no policy started
        if (!lastEvaluated_ || std::isnan(summary_.finalTestAccuracy)) {
            const EvalResult r = learner_->evaluate(*model);
            Evaluation::record(summary_, r.loss, r.accuracy);
        }
    }
    summary_.wallSeconds = wallNow() - wallStart_;
    observer_->onFinish(summary_);
    return summary_;
}

TimerId Engine::at(double t, std::function<void()> fn) { return queue_.schedule(t, std::move(fn)); }

void Engine::cancelTimer(TimerId id) { queue_.cancel(id); }

bool Engine::hasJoined(int node) const { return !(nodes_.forced(node) & TimedEvents::Absent); }

// ---------------------------------------------------------------- availability

void Engine::startNode(int node) {
    nodes_.initAvailability(node);
    if (!nodes_.online(node)) timelines_.restart(node, NodeState::Offline, 0.0);
    scheduleAvailabilityChange(node);
    if (topo_.aggregates(node) && nodes_.online(node)) nodes_.hold(node, now()); // servers are rented from t = 0
}

void Engine::scheduleAvailabilityChange(int node) {
    const double t = nodes_.nextChange(node);
    // The node as the queue's hint: its state loads while the event before runs.
    if (t < kInf) queue_.schedule(t, [this, node] { onAvailabilityChange(node); }, static_cast<std::uint32_t>(node));
}

void Engine::prefetchNode(void* engine, std::uint32_t node) {
    const auto* self = static_cast<const Engine*>(engine);
    self->topo_.prefetch(static_cast<int>(node));
    self->nodes_.prefetch(static_cast<int>(node));
    self->timelines_.prefetch(static_cast<int>(node));
}

void Engine::onAvailabilityChange(int node) {
    // Events and traces may hold the node offline (timed_events.h): only a change of its
    // state counts.
    const bool was = nodes_.online(node);
    nodes_.advanceAvailability(node, now());
    if (nodes_.online(node) && !was)
        goOnline(node);
    else if (!nodes_.online(node) && was)
        goOffline(node);
    scheduleAvailabilityChange(node);
}

void Engine::goOffline(int node) {
    nodes_.release(node, now());
    emitEvent(RunEventKind::Offline, node);
    if (const std::uint64_t id = nodes_.job(node)) {
        Job job = jobs_.at(id);
        jobs_.erase(id);
        cutJobTransfer(id); // frees its share of the links at once; the bytes sent are paid
        nodes_.setJob(node, 0);
        releaseIfAsked(node);
        dispatcher_->drop(id);
        writeJobIntervals(job, now());
        endJobCompute(job, now());
        timelines_.restart(node, NodeState::Offline, now());
        ++lostJobs_;
        observer_->onJobEnded(job.id, now());
        emitEvent(RunEventKind::WorkLost, node, "round " + std::to_string(job.round));
        if (pilotOwns(job.id))
            pilotLost(job);
        else
            sync_->onLost(*this, job);
    } else {
        timelines_.setState(node, NodeState::Offline, now());
    }
}

void Engine::joinNode(int n) {
    // No interval before: the member was not there (not "offline").
    timelines_.restart(n, nodes_.online(n) ? NodeState::Idle : NodeState::Offline, now());
    scheduleAvailabilityChange(n);
    if (topo_.trains(n) && server_[static_cast<std::size_t>(n)] >= 0)
        trainersOf_[server_[static_cast<std::size_t>(n)]].push_back(n);
}

void Engine::goOnline(int node) {
    timelines_.setState(node, NodeState::Idle, now());
    if (nodes_.acquired(node) || topo_.aggregates(node)) nodes_.hold(node, now());
    emitEvent(RunEventKind::Online, node);
    if (pilotActive())
        pilotFill(); // the policies start after the pilot
    else
        sync_->onNodeOnline(*this, node);
}

// ---------------------------------------------------------------- for policies

std::int64_t Engine::samplesOf(int trainer) const {
    const int p = trainerPart_.at(trainer);
    if (p < 0) return 0;
    return uniformPart_ >= 0 ? uniformPart_ : static_cast<std::int64_t>(data_->parts[p].size());
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
        return t.learningRate * pmath::pow(s.gamma, globalRound_ / std::max(1, s.stepRounds));
    case ScheduleSpec::Kind::InverseTime:
        return t.learningRate / (1.0 + s.gamma * globalRound_);
    }
    return t.learningRate;
}

std::vector<int> Engine::trainersOf(int aggregator) const {
    const auto it = trainersOf_.find(aggregator);
    return it == trainersOf_.end() ? std::vector<int>{} : it->second;
}

std::vector<int> Engine::selectTrainers(int aggregator, int round) {
    std::vector<int> candidates;
    const auto it = trainersOf_.find(aggregator);
    if (it == trainersOf_.end()) return candidates;
    for (int t : it->second)
        if (nodes_.ready(t)) candidates.push_back(t);
    if (candidates.empty()) return candidates;
    return selection_->select(*this, aggregator, round, candidates, selectionRng_);
}

double Engine::expectedComputeSeconds(int trainer, int steps, int batch) const {
    return static_cast<double>(steps) * batch / topo_.throughput(trainer);
}

// ---------------------------------------------------------------- metrics and stop rules

void Engine::emitEvent(RunEventKind kind, int node, const std::string& detail) {
    offersChanged_ = offersChanged_ || kind == RunEventKind::Offline || kind == RunEventKind::Online ||
                     kind == RunEventKind::TimedEvent || kind == RunEventKind::Trace ||
                     kind == RunEventKind::Intervention;
    observer_->onEvent({now(), kind, node, detail, {}});
}

void Engine::report(PolicyEvent kind, int node, const std::string& detail) {
    switch (kind) {
    case PolicyEvent::Plan: emitEvent(RunEventKind::Plan, node, detail); return;
    case PolicyEvent::Placement: emitEvent(RunEventKind::Placement, node, detail); return;
    case PolicyEvent::PartialWork: emitEvent(RunEventKind::PartialWork, node, detail); return;
    case PolicyEvent::Privacy: emitEvent(RunEventKind::Privacy, node, detail); return;
    }
}

void Engine::releaseTrainer(int trainer) {
    if (nodes_.job(trainer)) {
        releaseAfterJob_.insert(trainer);
        return;
    }
    nodes_.release(trainer, now());
    nodes_.forget(trainer);
}

void Engine::releaseIfAsked(int trainer) {
    if (releaseAfterJob_.erase(trainer) == 0) return;
    nodes_.release(trainer, now());
    nodes_.forget(trainer);
}

void Engine::notifyTrainerAvailable(int trainer) {
    if (!stopped_ && nodes_.online(trainer) && !nodes_.job(trainer)) sync_->onNodeOnline(*this, trainer);
}

void Engine::evaluateInto(AggregationRecord& r, const ParamsPtr& model) {
    if (!learner_ || !model || model->empty()) return;
    const EvalResult e = learner_->evaluate(*model);
    r.testLoss = e.loss;
    r.testAccuracy = e.accuracy;
    Evaluation::record(summary_, e.loss, e.accuracy);
}

void Engine::reportAggregation(AggregationRecord record, const ParamsPtr& model) {
    record.time = now();
    record.wallSeconds = wallNow() - wallStart_;
    record.cost = costAt(now());
    chargeAggregation(record);
    const EnergySplit energy = nodes_.energyAt(now());
    record.energyJ = energy.total;
    record.energyComputeJ = energy.compute;
    record.energyNetworkJ = energy.network;
    record.energyIdleJ = energy.idle;
    record.bytes = bytes_;
    record.learningRate = learningRate();
    ++aggregations_;
    noteProgress();
    if (record.level == 0) {
        ++globalRound_;
        const bool evaluate = evaluation_.due(globalRound_);
        if (evaluate) evaluateInto(record, model);
        lastEvaluated_ = evaluate;
    }
    record.round = globalRound_;
    last_ = record;
    timelines_.flush(*observer_, true);
    if (network_) network_->flush(true);
    observer_->onAggregation(record);
    events_->afterAggregation(record);

    if (record.level == 0) {
        RunProgress p;
        p.round = globalRound_;
        p.time = now();
        p.accuracy = record.testAccuracy;
        p.cost = record.cost;
        if (const StopRule* rule = stopRules_.firedAtRound(p)) {
            if (rule->event) emitEvent(*rule->event, -1);
            stop(RunStatus::Finished, rule->reason);
        }
        control_->roundCompleted();
        checkArmedCondition(true, record.testAccuracy);
    }
}

} // namespace fog
