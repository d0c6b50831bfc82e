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
#include <cmath>
#include <limits>

namespace fog {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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

/// The scenario with the trace files it names loaded (TimedEvents::loadTraces): a broken one
/// is reported before anything else is built.
Scenario withTraces(const Scenario& scenario) {
    Scenario s = scenario;
    TimedEvents::loadTraces(s);
    return s;
}

/// A single-server policy outside a tiered tree (core/policies/tiered.h): its updates go
/// to the root aggregator above each trainer, the aggregators between relaying (store and
/// forward along the links). The others use the nearest aggregators.
bool relaysToRoot(const Scenario& s) {
    const PolicyInfo* syncInfo = findSyncPolicy(s.sync.name);
    return !isTiered(s.topology) && syncInfo && syncInfo->shape == TreeShape::SingleServer;
}

/// A null observer: RunObserver's methods do nothing.
RunObserver& noObserver() {
    static RunObserver none;
    return none;
}

} // namespace

struct Engine::EventDoors final : TimedEvents::Host {
    EventDoors(Engine& engine, double flopsPerSample)
        : e(engine), links(engine.topo_, engine.network_.get()),
          nodes(engine.nodes_, engine.topo_, flopsPerSample,
                {[&engine](int n) { engine.goOffline(n); }, [&engine](int n) { engine.goOnline(n); },
                 [&engine](int n) { engine.joinNode(n); }}),
          prices(engine.nodes_, engine.topo_), timed(engine.scenario_, engine.topo_, *this, {links, nodes, prices}) {}

    double now() const override { return e.now(); }
    void schedule(double t, std::function<void()> fn) override { e.at(t, std::move(fn)); }
    void emit(RunEventKind kind, int node, const std::string& detail) override { e.emitEvent(kind, node, detail); }
    bool stopped() const override { return e.record_.stopped(); }
    void announceOnline(int n) override { e.sync_->onNodeOnline(e, n); }
    void setPolicyParam(const std::string& policyOf, const std::string& key, double value) override {
        (policyOf == "sync" ? e.syncParams_ : e.selectionParams_).set(key, value);
    }
    std::vector<TimedEvent> takeInterventions() override { return e.control_->takeInterventions(); }
    void intervened(const TimedEvent& event) override {
        e.safety_.changeAt(e.now());
        e.observer_->onIntervention(event);
    }

    Engine& e;
    LinkResources links;
    NodeResources nodes;
    PriceResources prices;
    TimedEvents timed; ///< last: it holds references to the resources above
};

Engine::Engine(const Scenario& scenario, EngineOptions options)
    : scenario_(withTraces(scenario)), cancelFlag_(options.cancelFlag),
      control_(options.control ? options.control : std::make_shared<RunControl>()),
      observer_(options.observer ? options.observer : &noObserver()),
      topo_(scenario.topology, scenario.seed, TimedEvents::joiningPerEntry(scenario)), nodes_(topo_, scenario.seed),
      timelines_(topo_.size()), record_(scenario),
      snapshots_(options.snapshotEverySeconds, std::move(options.snapshotTimes)), safety_(topo_),
      pacer_(*control_, cancelFlag_) {
    queue_.setPrefetcher(&Engine::prefetchNode, this);
    if (options.playbackSpeed > 0) control_->setPlaybackSpeed(options.playbackSpeed);
    // Data: the trainers' parts and the aggregators their updates go to (roster.h).
    roster_ = std::make_unique<Roster>(scenario_, topo_, options.data, relaysToRoot(scenario_));
    model_ = std::make_unique<RunModel>(scenario_, roster_->loaded());
    Learner* const learner = model_->learner(); // null: a timing-only run
    // Nodes given in FLOP/s (compute.flops, or a device class): the topology holds FLOP/s
    // until the model's cost per sample is known, here; energy per FLOP needs it too.
    for (int i = 0; i < topo_.size(); ++i) {
        if (topo_.entry(i).compute.flops.max > 0)
            topo_.setThroughput(i, topo_.throughput(i) / model_->flopsPerSample());
        if (topo_.entry(i).energy.perFlopJ > 0) model_->flopsPerSample();
    }
    const double flopsPerSample = model_->knownFlopsPerSample();
    auto dispatcher =
        std::make_unique<Dispatcher>(scenario_, topo_, learner, modelBytes(), control_->cancelFlag());

    const std::uint64_t seed = scenario_.seed;
    const Topology* topo = &topo_;
    const Roster* roster = roster_.get();
    auto feeder = std::make_unique<BatchFeeder>(
        topo_.size(), learner != nullptr, [roster](int n) { return roster->samplesOf(n); },
        [roster](int n) -> const BatchFeeder::Part& { return roster->part(n); },
        [seed, topo](int n) { return deriveSeed(seed, hashName("data-order"), hashName(topo->id(n))); });
    selectionRng_ = Rng(deriveSeed(scenario_.seed, hashName("selection")));

    const PolicyInfo* syncInfo = findSyncPolicy(scenario_.sync.name);
    const bool tiered = isTiered(scenario_.topology);
    const bool relay = relaysToRoot(scenario_);
    // Unknown names stay empty here: building the policy reports them.
    if (findSyncDescriptor(scenario_.sync.name)) syncParams_ = resolveSyncParams(scenario_.sync);
    // Synchronous averaging between regional servers (model averaging; async-ga across
    // several roots): every server folds in every region's model (Accounting::chargeAggregation).
    // Asynchronous averaging: only the server that mixes.
    const SyncPolicyDescriptor* syncDesc = findSyncDescriptor(scenario_.sync.name);
    const bool asyncAveraging = syncDesc && syncDesc->asyncAveraging && syncDesc->asyncAveraging(syncParams_);
    std::vector<int> regionServers;
    if (syncInfo && !tiered && !asyncAveraging &&
        (syncInfo->shape == TreeShape::Regions ||
         (relay && syncDesc->serverPerRoot && topo_.rootAggregators().size() > 1)))
        for (int r : topo_.rootAggregators())
            if (roster_->serves(r)) regionServers.push_back(r);
    if (findSelectionDescriptor(scenario_.selection.name)) selectionParams_ = resolveSelectionParams(scenario_.selection);
    sync_ = tiered ? makeTieredPolicy(scenario_, *this) : makeSyncPolicy(scenario_.sync, *this);
    selection_ = makeSelectionPolicy(scenario_.selection, *this);
    dispatcher->startPool(options.threads);

    accounting_ = std::make_unique<Accounting>(topo_, nodes_, flopsPerSample, std::move(regionServers));
    // Contention: transfers share links and interfaces (docs/network.md). Nothing to share
    // (no link, no interface limit): every transfer is instantaneous either way.
    if (topo_.spec().contention) {
        network_ = std::make_unique<Network>(
            topo_, [this](double t, std::function<void()> fn) { at(t, std::move(fn)); },
            [this](const Network::HopBytes& h) { accounting_->chargeHop(h); }, observer_);
        if (network_->links().empty()) network_.reset();
    }
    jobs_ = std::make_unique<Jobs>(
        static_cast<Jobs::Host&>(*this),
        Jobs::Parts{scenario_, topo_, queue_, nodes_, timelines_, network_.get(), *accounting_, *observer_},
        std::move(dispatcher), std::move(feeder), modelBytes(), learner != nullptr);

    // Safety net limits, relative to this scenario (safety_net.h).
    for (int t : roster_->starting()) {
        const int agg = serverOf(t);
        const double seconds = topo_.transfer(agg, t, modelBytes()).seconds +
                               expectedComputeSeconds(t, std::max(1, localStepsOf(t)), scenario_.training.batchSize) +
                               topo_.transfer(t, agg, modelBytes()).seconds;
        safety_.expectDispatch(seconds);
    }
    events_ = std::make_unique<EventDoors>(*this, flopsPerSample);
    safety_.changeAt(events_->timed.lastChange());
}

Engine::~Engine() {
    control_->cancel(); // work still on the pool stops at its next step
    jobs_.reset();      // joins the workers before the learner and data go
}

// ---------------------------------------------------------------- run loop

RunProgress Engine::progress(double accuracy) const {
    RunProgress p;
    p.round = globalRound();
    p.time = now();
    p.accuracy = accuracy;
    p.cost = costAt(now());
    return p;
}

void Engine::checkArmedCondition(bool atRound, double accuracy) {
    const auto c = control_->armedCondition();
    if (!c || stopped()) return;
    // Each metric is looked at where it changes: round and accuracy at global aggregations,
    // cost after every event (time is handled before each event, in run()).
    if (!atRound && c->metric != ConditionMetric::Cost) return;
    if (c->metric == ConditionMetric::Cost && !accounting_->costMayReach(now(), c->threshold)) return;
    const RunProgress p = progress(accuracy);
    if (!c->holds(p)) return;
    const auto what = control_->conditionHeld(*c, p);
    if (what == RunControl::OnCondition::Stop) stop(RunStatus::Finished, "condition reached: " + c->reachedText(p));
}

RunSummary Engine::run() {
    useSingleThreadedKernels();
    pacer_.start();
    RunInfo info;
    info.scenarioName = scenario_.name;
    info.seed = scenario_.seed;
    info.threads = jobs_->threads();
    info.model = trainsModel() ? model_->learner()->describe() : "none (timing only)";
    info.trainSamples = roster_->loaded()->train.size();
    info.testSamples = roster_->loaded()->test.size();
    info.nodes.reserve(static_cast<std::size_t>(topo_.size()));
    for (const auto& n : topo_.nodes())
        info.nodes.push_back({n.spec.id, toString(n.spec.tier), toString(n.spec.role), n.spec.parent,
                              n.throughput, n.spec.pricePerHour});
    if (network_) info.links = network_->lendLinks();
    observer_->onStart(info);
    if (network_) network_->giveBackLinks(std::move(info.links));
    info = RunInfo{};
    if (trainsModel() && scenario_.training.backend != TrainingBackend::LibTorch)
        emitEvent(RunEventKind::Backend, -1,
                  std::string("training.backend ") + toString(scenario_.training.backend) + ": " +
                      model_->learner()->backend());

    try {
        if (const auto& limit = record_.stopRules().timeLimit()) queue_.scheduleStop(limit->condition.threshold, limit->reason);
        for (int i = 0; i < topo_.firstJoining(); ++i) startNode(i); // newcomers start when they join
        events_->timed.start(); // what holds from t = 0, before the policies start
        startPolicies(); // the pilot phase first if a planner asks for one (pilot_phase.h)
        offersChanged_ = false; // the start (or the pilot's end, later) saw the offers of now
        while (!stopped()) {
            control_->waitWhilePaused(cancelFlag_);
            if (control_->takeSnapshotRequest()) { // also while paused: the run stays paused
                takeSnapshot(RunSnapshot::Reason::Requested, now());
                continue;
            }
            if (control_->checkCancel(cancelFlag_)) {
                stop(RunStatus::Cancelled, "cancelled");
                break;
            }
            // Interventions (and recorded ones due after this many events); then look at the
            // pause again: one may arrive while paused.
            if (events_->timed.between(safety_.eventsRun())) {
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
            while (const auto due = snapshots_.next(queue_.nextTime())) takeSnapshot(due->reason, due->time);
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
            if (t > now()) pacer_.paceTo(now(), t);
            EventQueue::Popped ev = queue_.pop();
            control_->setClock(now());
            if (ev.isStop()) {
                stop(RunStatus::Finished, ev.reason);
                break;
            }
            if (ev.fn) ev.fn(); // a cancelled timer counts as an event all the same (EventQueue::cancel)
            control_->eventHandled(); // an event step ends here
            safety_.eventHandled();
            if (const auto& b = record_.stopRules().budget();
                b && !stopped() && accounting_->costMayReach(now(), b->condition.threshold) &&
                costAt(now()) >= b->condition.threshold) {
                emitEvent(*b->event, -1);
                stop(RunStatus::Finished, b->reason);
            }
            if (!stopped() && safety_.stalled(now())) {
                const std::string why = safety_.why(now());
                emitEvent(RunEventKind::NoProgress, -1, why);
                stop(RunStatus::Failed, why);
            }
            checkArmedCondition(false, kNaN);
            timelines_.flush(*observer_, false);
        }
    } catch (const std::exception& ex) {
        if (!stopped()) stop(control_->cancelRequested() ? RunStatus::Cancelled : RunStatus::Failed, ex.what());
    }
    return finish();
}

void Engine::stop(RunStatus status, const std::string& reason) { record_.stop(status, reason); }

RunSummary Engine::finish() {
    jobs_->stopWork();
    // Close every node's open state and billing at the end time.
    const double end = now();
    for (int i = 0; i < topo_.size(); ++i) {
        // A busy node's job ends there (Jobs::endAt); a member that never joined has no interval.
        if (!jobs_->endAt(i, end) && !(nodes_.forced(i) & TimedEvents::Absent))
            timelines_.setState(i, timelines_.state(i), end);
        nodes_.release(i, end);
    }
    timelines_.flush(*observer_, true);
    // Transfers still moving are cut at the end: the bytes sent so far are charged.
    if (network_) network_->finish(end);
    jobs_->waitWork();

    RunSummary& summary = record_.summary();
    summary.rounds = record_.globalRound();
    summary.aggregations = record_.aggregations();
    summary.virtualTime = end;
    summary.cost = costAt(end);
    const EnergySplit energy = nodes_.energyAt(end);
    summary.energyJ = energy.total;
    summary.energyComputeJ = energy.compute;
    summary.energyNetworkJ = energy.network;
    summary.energyIdleJ = energy.idle;
    summary.bytes = accounting_->bytes();
    summary.samplesComputed = accounting_->samplesComputed();
    summary.lostJobs = jobs_->lost();
    summary.finalTrainLoss = record_.last().trainLoss;
    // A cancelled run keeps its last evaluation: a final pass over the test set would make
    // Stop wait for it.
    if (trainsModel() && summary.status == RunStatus::Finished) {
        ParamsPtr model = sync_->globalModel();
        if (!model) model = initialModel(); // stopped during a planner's pilot: no policy started
        if (!record_.lastEvaluated() || std::isnan(summary.finalTestAccuracy)) {
            const EvalResult r = model_->learner()->evaluate(*model);
            record_.evaluated(r.loss, r.accuracy);
        }
    }
    summary.wallSeconds = pacer_.wallSeconds();
    observer_->onFinish(summary);
    return summary;
}

TimerId Engine::at(double t, std::function<void()> fn) { return queue_.schedule(t, std::move(fn)); }

void Engine::cancelTimer(TimerId id) { queue_.cancel(id); }

bool Engine::hasJoined(int node) const { return !(nodes_.forced(node) & TimedEvents::Absent); }

// ---------------------------------------------------------------- policies and pilot

void Engine::startPolicies() {
    PilotRequest req = sync_->pilotRequest(*this);
    if (req.trainers <= 0) req = selection_->pilotRequest(*this);
    if (req.trainers <= 0 || !trainsModel()) {
        selection_->start(*this); // may report a plan before the first round
        sync_->start(*this);
        return;
    }
    pilot_ =
        std::make_unique<PilotPhase>(req, *this, *this, static_cast<PilotPhase::Host&>(*this), *model_->learner());
    pilot_->start();
}

void Engine::pilotFinished(const PilotEstimates& estimates) {
    emitEvent(RunEventKind::Plan, -1, estimates.describe());
    selection_->start(*this);
    sync_->start(*this);
}

void Engine::jobArrived(const Job& job, LocalResult& result) {
    if (pilot_ && pilot_->owns(job.id)) return pilot_->arrived(job, result);
    selection_->observe(job.trainer, result.meanLoss, job.tArrive - job.tStart);
    sync_->onArrival(*this, job, result);
}

void Engine::jobLost(const Job& job) {
    if (pilot_ && pilot_->owns(job.id))
        pilot_->lost(job);
    else
        sync_->onLost(*this, job);
}

// ---------------------------------------------------------------- snapshots

void Engine::takeSnapshot(RunSnapshot::Reason reason, double time) {
    RunSnapshot s;
    s.reason = reason;
    s.time = time;
    s.round = globalRound();
    s.eventsHandled = safety_.eventsRun();
    s.cost = costAt(s.time);
    s.energyJ = nodes_.energyAt(s.time).total;
    s.bytes = accounting_->bytes();
    s.samplesComputed = accounting_->samplesComputed();
    // During a calibrated planner's pilot phase the sync policy has not started and holds no
    // model yet: the global model is still the initial one.
    if (trainsModel()) s.model = pilotActive() || !sync_->globalModel() ? initialModel() : sync_->globalModel();
    observer_->onSnapshot(s);
}

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
    if (!jobs_->lose(node)) timelines_.setState(node, NodeState::Offline, now()); // a job lost: Jobs::lose
}

void Engine::joinNode(int n) {
    // No interval before: the member was not there (not "offline").
    timelines_.restart(n, nodes_.online(n) ? NodeState::Idle : NodeState::Offline, now());
    scheduleAvailabilityChange(n);
    roster_->join(n);
}

void Engine::goOnline(int node) {
    timelines_.setState(node, NodeState::Idle, now());
    if (nodes_.acquired(node) || topo_.aggregates(node)) nodes_.hold(node, now());
    emitEvent(RunEventKind::Online, node);
    if (pilotActive())
        pilot_->fill(); // the policies start after the pilot
    else
        sync_->onNodeOnline(*this, node);
}

// ---------------------------------------------------------------- for policies

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
        return t.learningRate * pmath::pow(s.gamma, globalRound() / std::max(1, s.stepRounds));
    case ScheduleSpec::Kind::InverseTime:
        return t.learningRate / (1.0 + s.gamma * globalRound());
    }
    return t.learningRate;
}

std::vector<int> Engine::selectTrainers(int aggregator, int round) {
    std::vector<int> candidates;
    for (int t : roster_->trainersOf(aggregator))
        if (nodes_.ready(t)) candidates.push_back(t);
    if (candidates.empty()) return candidates;
    return selection_->select(*this, aggregator, round, candidates, selectionRng_);
}

double Engine::expectedComputeSeconds(int trainer, int steps, int batch) const {
    return static_cast<double>(steps) * batch / topo_.throughput(trainer);
}

// ---------------------------------------------------------------- metrics and stop rules

void Engine::send(int from, int to, double bytes, std::function<void()> delivered) {
    if (network_) {
        network_->start(from, to, bytes, now(), true, std::move(delivered));
        return;
    }
    const Transfer tr = topo_.transfer(from, to, bytes);
    accounting_->chargeTransfer(from, to, bytes, tr.price);
    observer_->onMessage({0, from, to, now(), now() + tr.seconds, bytes, true});
    at(now() + tr.seconds, std::move(delivered));
}

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

void Engine::notifyTrainerAvailable(int trainer) {
    if (!stopped() && nodes_.online(trainer) && !nodes_.job(trainer)) sync_->onNodeOnline(*this, trainer);
}

void Engine::evaluateInto(AggregationRecord& r, const ParamsPtr& model) {
    if (!trainsModel() || !model || model->empty()) return;
    const EvalResult e = model_->learner()->evaluate(*model);
    r.testLoss = e.loss;
    r.testAccuracy = e.accuracy;
    record_.evaluated(e.loss, e.accuracy);
}

void Engine::reportAggregation(AggregationRecord record, const ParamsPtr& model) {
    record.time = now();
    record.wallSeconds = pacer_.wallSeconds();
    record.cost = costAt(now());
    accounting_->chargeAggregation(record);
    const EnergySplit energy = nodes_.energyAt(now());
    record.energyJ = energy.total;
    record.energyComputeJ = energy.compute;
    record.energyNetworkJ = energy.network;
    record.energyIdleJ = energy.idle;
    record.bytes = accounting_->bytes();
    record.learningRate = learningRate();
    const bool evaluate = record_.countAggregation(record.level); // level 0: the next global round
    safety_.progressed(now());
    if (evaluate) evaluateInto(record, model);
    record.round = globalRound();
    record_.keep(record);
    timelines_.flush(*observer_, true);
    if (network_) network_->flush(true);
    observer_->onAggregation(record);
    events_->timed.afterAggregation(record);

    if (record.level == 0) {
        RunProgress p;
        p.round = globalRound();
        p.time = now();
        p.accuracy = record.testAccuracy;
        p.cost = record.cost;
        if (const StopRule* rule = record_.stopRules().firedAtRound(p)) {
            if (rule->event) emitEvent(*rule->event, -1);
            stop(RunStatus::Finished, rule->reason);
        }
        control_->roundCompleted();
        checkArmedCondition(true, record.testAccuracy);
    }
}

} // namespace fog
