#include "widgets/run/run_controller.h"

#include "core/engine/engine.h"
#include "core/engine/run_control.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "widgets/run/live_network.h"

#include <QElapsedTimer>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#ifdef Q_OS_LINUX
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace fog {

namespace {

/// The emulator yields the CPU to the window, so the GUI stays fluid even when the machine
/// is busy. On Linux each thread has its own nice value, inherited by the threads it starts
/// (the store's writer, the training pool).
void yieldToTheWindow() {
#ifdef Q_OS_LINUX
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

} // namespace

void registerRunMetaTypes() {
    qRegisterMetaType<fog::RunInfo>();
    qRegisterMetaType<fog::RunSummary>();
    qRegisterMetaType<fog::ActivityFrame>();
    qRegisterMetaType<std::vector<fog::AggregationRecord>>();
    qRegisterMetaType<std::vector<fog::NodeInterval>>();
    qRegisterMetaType<std::vector<fog::RunEvent>>();
    qRegisterMetaType<std::vector<fog::LogEntry>>();
    qRegisterMetaType<std::vector<fog::LinkUsage>>();
    qRegisterMetaType<fog::RunController::State>();
    qRegisterMetaType<std::vector<fog::TimedEvent>>();
}

/// The bridge between the engine's thread and the GUI's: observes the run into a guarded
/// inbox and keeps each node's current job for activity frames. Pause, step, run until and
/// speed are not here: they live in the run's RunControl, shared with the engine.
class RunController::Feed : public RunObserver {
public:
    std::mutex mutex;
    /// The run's control, shared with the engine (pause, step, run until, speed, stop).
    std::shared_ptr<RunControl> control;
    Engine* engine = nullptr; ///< set only while the engine exists (guarded by mutex)

    // Inbox (guarded by mutex).
    std::optional<RunInfo> info;
    std::int64_t runId = 0;
    std::vector<AggregationRecord> records;
    std::vector<NodeInterval> intervals;
    std::vector<RunEvent> events;
    std::vector<LinkUsage> linkUsage; ///< link usage spans (the link throughput plot)
    std::vector<TimedEvent> interventions; ///< applied live interventions
    /// Most intervals and events one batch hands to the GUI thread (about 30 batches a
    /// second); what is past them is only counted.
    static constexpr std::size_t kMaxPendingIntervals = 100000;
    static constexpr std::size_t kMaxPendingEvents = 200;
    std::uint64_t skippedIntervals = 0;
    std::uint64_t skippedEvents = 0;
    std::atomic<bool> done{false}; ///< also read without the mutex (see drain)
    RunSummary result;

    // Live node state for activity frames (guarded by mutex).
    std::vector<int> parent;       ///< index of each node's parent, -1 for a root
    std::vector<JobPlan> plans;    ///< each trainer's current job (id 0: none)
    std::vector<char> offline;
    std::vector<char> absent; ///< members an add event brings, not joined yet
    std::unordered_map<std::uint64_t, int> jobNode;
    LiveNetwork network; ///< messages in flight and links in use
    double lastTime = 0.0;
    bool onlineKnown = false;

    // The event log (guarded by mutex). Arrivals are known when the work is dispatched;
    // they are logged once the run has reached them (flushArrivals), unless the job ended
    // before (ended) or, for a message with an id, its end is reported (messageEnds).
    std::vector<LogEntry> log;
    static constexpr std::size_t kMaxPendingLog = 20000;
    std::uint64_t skippedLog = 0;
    struct Pending {
        double arrive;
        std::uint64_t seq; ///< ties in the order they were dispatched
        std::uint64_t job; ///< 0: a message (sender, receiver, bytes)
        int from, to;
        double bytes;
        bool operator>(const Pending& o) const { return arrive != o.arrive ? arrive > o.arrive : seq > o.seq; }
    };
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> arrivals;
    std::uint64_t pendingSeq = 0;
    std::unordered_set<std::uint64_t> pendingJobs; ///< dispatched, arrival not logged yet
    std::unordered_set<std::uint64_t> ended;       ///< of those, ended before their arrival
    std::unordered_map<std::uint64_t, LinkMessage> messageEnds;
    std::unordered_map<std::string, int> nodeIndex;

    void addLog(LogEntry&& e) {
        if (log.size() >= kMaxPendingLog) ++skippedLog;
        else log.push_back(std::move(e));
    }
    /// Logs the arrivals due by virtual time t (mutex held).
    void flushArrivals(double t) {
        while (!arrivals.empty() && arrivals.top().arrive <= t) {
            const Pending p = arrivals.top();
            arrivals.pop();
            if (p.job) {
                pendingJobs.erase(p.job);
                if (ended.erase(p.job)) continue;
            }
            LogEntry e;
            e.time = p.arrive;
            e.kind = p.job ? LogKind::Arrival : LogKind::Received;
            e.node = p.job ? p.from : p.to;
            e.peer = p.job ? p.to : p.from;
            e.job = p.job;
            e.b = p.bytes;
            addLog(std::move(e));
        }
    }

    void attach(Engine* e, std::int64_t id) {
        std::lock_guard lock(mutex);
        engine = e;
        runId = id;
    }

    void onStart(const RunInfo& i) override {
        std::lock_guard lock(mutex);
        info = i;
        const int n = static_cast<int>(i.nodes.size());
        parent.assign(n, -1);
        std::unordered_map<std::string, int>& index = nodeIndex;
        index.clear();
        for (int k = 0; k < n; ++k) index[i.nodes[k].id] = k;
        for (int k = 0; k < n; ++k) {
            auto it = index.find(i.nodes[k].parent);
            if (it != index.end()) parent[k] = it->second;
        }
        plans.assign(n, JobPlan{});
        offline.assign(n, 0);
        absent.assign(n, 0);
        network.start(i);
    }
    void onAggregation(const AggregationRecord& r) override {
        std::lock_guard lock(mutex);
        syncOnline();
        records.push_back(r);
        lastTime = r.time;
        flushArrivals(r.time);
        LogEntry e;
        e.time = r.time;
        e.kind = LogKind::Aggregation;
        const auto it = nodeIndex.find(r.aggregator);
        e.node = it == nodeIndex.end() ? -1 : it->second;
        e.round = r.round;
        e.level = r.level;
        e.a = r.trainLoss;
        e.b = r.testAccuracy;
        e.c = r.participants;
        addLog(std::move(e));
    }
    void onIntervals(const std::vector<NodeInterval>& v) override {
        std::lock_guard lock(mutex);
        // Display detail only (the store has its own copy): past the cap the timeline shows
        // a gap rather than the GUI thread drowning in intervals.
        const std::size_t room = kMaxPendingIntervals - std::min(kMaxPendingIntervals, intervals.size());
        const std::size_t take = std::min(room, v.size());
        intervals.insert(intervals.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take));
        skippedIntervals += v.size() - take;
    }
    void onEvent(const RunEvent& e) override {
        std::lock_guard lock(mutex);
        syncOnline();
        // Availability flips and lost work can come by the million in a bad scenario: past
        // the cap they are counted, not shown. Rare kinds (plan, stop rules) always pass.
        const bool frequent =
            e.kind == RunEventKind::Offline || e.kind == RunEventKind::Online || e.kind == RunEventKind::WorkLost;
        if (frequent && events.size() >= kMaxPendingEvents)
            ++skippedEvents;
        else
            events.push_back(e);
        flushArrivals(e.time);
        LogEntry l;
        l.time = e.time;
        l.kind = LogKind::Event;
        l.event = e.kind;
        l.node = e.node;
        l.text = e.kind == RunEventKind::Other ? e.otherKind + (e.detail.empty() ? "" : ": " + e.detail) : e.detail;
        addLog(std::move(l));
        lastTime = e.time;
        if ((e.kind == RunEventKind::TimedEvent || e.kind == RunEventKind::Intervention) && engine)
            for (std::size_t i = 0; i < absent.size(); ++i) // an add event: who joined
                if (absent[i]) absent[i] = !engine->hasJoined(static_cast<int>(i));
        if (e.node >= 0 && e.node < static_cast<int>(offline.size())) {
            if (e.kind == RunEventKind::Offline) {
                offline[e.node] = 1;
                endJob(plans[e.node].id);
            } else if (e.kind == RunEventKind::Online) {
                offline[e.node] = 0;
            }
        }
    }
    void onFinish(const RunSummary&) override {}
    void onIntervention(const TimedEvent& applied) override {
        // The engine also reports it as a RunEvent (kind intervention), which the log lists.
        std::lock_guard lock(mutex);
        interventions.push_back(applied);
    }
    void onLinkUsage(const std::vector<LinkUsage>& u) override {
        std::lock_guard lock(mutex);
        network.usage(u); // the canvas's link use (latest span per link)
        // Display only, like the intervals (the store keeps every span).
        const std::size_t take = std::min(u.size(), kMaxPendingIntervals - std::min(kMaxPendingIntervals, linkUsage.size()));
        linkUsage.insert(linkUsage.end(), u.begin(), u.begin() + static_cast<std::ptrdiff_t>(take));
    }
    void onDispatch(const JobPlan& p) override {
        std::lock_guard lock(mutex);
        syncOnline();
        lastTime = p.start;
        flushArrivals(p.start);
        LogEntry e;
        e.time = p.start;
        e.kind = LogKind::Dispatch;
        e.node = p.trainer;
        e.peer = p.aggregator;
        e.a = p.received;
        e.b = p.computed;
        e.c = p.arrive;
        e.job = p.id;
        addLog(std::move(e));
        arrivals.push({p.arrive, pendingSeq++, p.id, p.trainer, p.aggregator, 0.0});
        pendingJobs.insert(p.id);
        if (p.trainer < 0 || p.trainer >= static_cast<int>(plans.size())) return;
        endJob(plans[p.trainer].id);
        plans[p.trainer] = p;
        jobNode[p.id] = p.trainer;
    }
    void onJobEnded(std::uint64_t id, double t) override {
        std::lock_guard lock(mutex);
        flushArrivals(t);
        LogEntry e;
        e.time = t;
        e.kind = LogKind::Discarded;
        const auto it = jobNode.find(id);
        e.node = it == jobNode.end() ? -1 : it->second;
        e.job = id;
        addLog(std::move(e));
        // A job cancelled at the very instant its update arrived (n-sync with ties) was
        // logged as arrived already: it reads "arrival", then "job ended".
        if (pendingJobs.count(id)) ended.insert(id);
        endJob(id);
        lastTime = t;
    }
    void onMessage(const LinkMessage& m) override {
        std::lock_guard lock(mutex);
        syncOnline();
        network.message(m);
        flushArrivals(m.depart);
        LogEntry e;
        e.time = m.depart;
        e.kind = LogKind::Send;
        e.node = m.from;
        e.peer = m.to;
        e.a = m.arrive;
        e.b = m.bytes;
        addLog(std::move(e));
        if (m.id) messageEnds[m.id] = m; // its end is reported: logged then
        else arrivals.push({m.arrive, pendingSeq++, 0, m.from, m.to, m.bytes});
    }
    void onMessageEnd(std::uint64_t id, double time, bool arrived) override {
        std::lock_guard lock(mutex);
        const auto it = messageEnds.find(id);
        if (it == messageEnds.end()) {
            network.messageEnd(id, time, arrived);
            return;
        }
        flushArrivals(time);
        LogEntry e;
        e.time = time;
        e.kind = arrived ? LogKind::Received : LogKind::CutOff;
        e.node = it->second.to;
        e.peer = it->second.from;
        e.b = it->second.bytes;
        addLog(std::move(e));
        messageEnds.erase(it);
        network.messageEnd(id, time, arrived);
    }


    /// Node states and messages at virtual time t (mutex held).
    ActivityFrame frame(double t) {
        ActivityFrame f;
        f.virtualTime = t;
        const int n = static_cast<int>(plans.size());
        f.states.assign(n, NodeState::Idle);
        if (std::find(absent.begin(), absent.end(), 1) != absent.end()) f.notJoined = absent;
        std::vector<MessageInFlight> planned; // a trainer's transfers from its job's plan
        for (int i = 0; i < n; ++i) {
            if (offline[i]) {
                f.states[i] = NodeState::Offline;
                continue;
            }
            const JobPlan& p = plans[i];
            if (p.id == 0 || t < p.start || t >= p.arrive) continue;
            if (t < p.received) {
                f.states[i] = NodeState::Receiving;
                planned.push_back({p.aggregator, i, true, (t - p.start) / (p.received - p.start)});
            } else if (t < p.computed) {
                f.states[i] = NodeState::Computing;
            } else {
                f.states[i] = NodeState::Sending;
                planned.push_back({i, p.aggregator, false, (t - p.computed) / (p.arrive - p.computed)});
            }
        }
        network.fill(f, t, planned);
        return f;
    }

private:
    void endJob(std::uint64_t id) {
        if (id == 0) return;
        auto it = jobNode.find(id);
        if (it == jobNode.end()) return;
        if (plans[it->second].id == id) plans[it->second] = JobPlan{};
        jobNode.erase(it);
    }
    /// Nodes offline from t = 0 send no event: read their state from the engine once, on its
    /// thread, after it set availability up (mutex held).
    void syncOnline() {
        if (onlineKnown || !engine) return;
        onlineKnown = true;
        for (std::size_t i = 0; i < offline.size(); ++i) {
            offline[i] = !engine->isOnline(static_cast<int>(i));
            absent[i] = !engine->hasJoined(static_cast<int>(i));
        }
    }
};

RunController::RunController(QObject* parent)
    : QObject(parent), feed_(std::make_unique<Feed>()), control_(std::make_shared<RunControl>()) {
    registerRunMetaTypes();
    timer_ = new QTimer(this);
    timer_->setInterval(33);
    connect(timer_, &QTimer::timeout, this, &RunController::drain);
}

RunController::~RunController() {
    if (thread_) {
        stop();
        thread_->wait();
        delete thread_;
    }
}

QString RunController::stateName(State s) {
    switch (s) {
    case State::Idle: return tr("idle");
    case State::Running: return tr("running");
    case State::Paused: return tr("paused");
    case State::Finished: return tr("finished");
    case State::Cancelled: return tr("cancelled");
    case State::Failed: return tr("failed");
    }
    return {};
}

bool RunController::start(const Scenario& scenario, const QString& dbPath, int threads, const QString& runName) {
    NewRun meta;
    meta.name = runName.toStdString(); // empty: runAndStore names it after the scenario
    return startJob(scenario, dbPath, threads,
                    [scenario, meta](RunStore& store, const EngineOptions& options, RunSummary& summary,
                                     const std::function<void(Engine*, std::int64_t)>& onEngine) {
                        return runAndStore(scenario, store, meta, options, summary, onEngine);
                    });
}

bool RunController::startJob(const Scenario& scenario, const QString& dbPath, int threads, Job job) {
    if (thread_) {
        Q_EMIT error(tr("A run is already going: stop it before starting another."));
        return false;
    }
    // Controls set before the start (pause, step, run until, speed) are in control_ already:
    // it goes to this run's engine.
    feed_ = std::make_unique<Feed>();
    feed_->control = control_;
    control_->setPlaybackSpeed(speed_);
    runId_ = 0;
    info_ = RunInfo{};
    scenario_ = scenario;
    interventions_.clear();
    startedEmitted_ = false;
    tick_ = 0;

    Feed* feed = feed_.get();
    std::shared_ptr<RunControl> control = control_;
    const std::string db = dbPath.isEmpty() ? RunStore::defaultPath() : dbPath.toStdString();
    thread_ = QThread::create([feed, control, job = std::move(job), db, threads] {
        yieldToTheWindow();
        RunSummary summary;
        std::int64_t id = 0;
        try {
            RunStore store(db);
            EngineOptions options;
            options.threads = std::max(1, threads);
            options.observer = feed;
            options.control = control;
            id = job(store, options, summary, [feed](Engine* e, std::int64_t runId) { feed->attach(e, runId); });
        } catch (const std::exception& e) {
            summary = RunSummary{};
            summary.status = RunStatus::Failed;
            summary.stopReason = e.what();
        }
        std::lock_guard lock(feed->mutex);
        feed->result = summary;
        feed->runId = id;
        feed->done = true;
    });
    thread_->setObjectName("fog-run");
    connect(thread_, &QThread::finished, this, &RunController::onThreadFinished);
    if (control_->isPaused()) enterPaused();
    else setState(State::Running);
    thread_->start();
    timer_->start();
    return true;
}

double RunController::runClock() const { return control_->clock(); }

bool RunController::intervene(const TimedEvent& event, QString* why) {
    if (!thread_ || !isActive()) {
        if (why) *why = tr("No run is going: start a run (or pause one) to intervene.");
        return false;
    }
    control_->intervene(event);
    return true;
}

void RunController::pause() {
    control_->pause();
    if (state_ == State::Running) enterPaused();
}

bool RunController::holdStill(int timeoutMs) {
    if (!thread_ || !isActive()) return false;
    if (state_ == State::Running) pause();
    // The engine reads the pause before every event and every few ms while pacing; at most
    // one event is handled after it (paced runs pop the event they were waiting for).
    QElapsedTimer waited;
    waited.start();
    while (!control_->holding() && thread_->isRunning() && waited.elapsed() < timeoutMs) QThread::msleep(1);
    return control_->holding();
}

void RunController::enterPaused() {
    setState(State::Paused);
    holdShown_ = false;
    shownPauseReason_ = pauseReason();
    if (!shownPauseReason_.isEmpty()) Q_EMIT pausedBecause(shownPauseReason_);
}

QString RunController::pauseReason() const {
    if (state_ != State::Paused) return {};
    return QString::fromStdString(control_->pauseReason().text);
}

void RunController::resume() {
    control_->resume();
    if (state_ == State::Paused) setState(State::Running);
}

void RunController::stepRound() {
    if (!thread_) return; // no run: nothing to step
    // The round it steps to is read before the step is released: the engine thread may finish
    // that round before this line runs (it did on a loaded machine), and the text then named
    // the round after it.
    const int next = control_->roundsCompleted() + 1;
    // Before the engine exists too: it steps once it runs.
    control_->stepRound();
    // The engine pauses itself at the next aggregation; drain() sees it.
    if (state_ == State::Paused) setState(State::Running);
    Q_EMIT stepping(tr("Stepping to the end of round %1").arg(next));
}

void RunController::stepEvent() {
    if (!thread_) return;
    control_->stepEvent();
    if (state_ == State::Paused) setState(State::Running);
    Q_EMIT stepping(tr("Stepping one event"));
}

void RunController::stop() {
    // The engine looks at the flag before every event and every few milliseconds while
    // paused or pacing; cancel() takes no lock, so the GUI thread never waits here.
    control_->cancel();
}

void RunController::runUntil(Until kind, double value) {
    Condition c;
    switch (kind) {
    case Until::Round: c = {ConditionMetric::Round, value}; break;
    case Until::Accuracy: c = {ConditionMetric::Accuracy, value}; break;
    case Until::Budget: c = {ConditionMetric::Cost, value}; break;
    }
    runUntil(c);
}

void RunController::runUntil(const Condition& condition) {
    control_->runUntil(condition, RunControl::OnCondition::Pause);
    if (state_ == State::Paused) setState(State::Running);
}

std::optional<Condition> RunController::runUntilCondition() const { return control_->condition(); }

void RunController::setPlaybackSpeed(double virtualSecondsPerWallSecond) {
    speed_ = std::max(0.0, virtualSecondsPerWallSecond);
    control_->setPlaybackSpeed(speed_);
}

void RunController::setState(State s) {
    if (s == state_) return;
    state_ = s;
    Q_EMIT stateChanged(s);
}

void RunController::drain() {
    std::optional<RunInfo> info;
    // Double buffers: the inbox gets back the vectors drained last time, so memory the
    // engine's thread allocated is freed there, never here (freeing it here would wait for
    // that thread's allocator lock, and it runs at a lower priority).
    std::vector<AggregationRecord> records;
    std::vector<NodeInterval> intervals;
    std::vector<RunEvent> events;
    std::vector<LogEntry> log;
    std::vector<LinkUsage> usage;
    std::vector<TimedEvent> applied;
    records.swap(spareRecords_);
    intervals.swap(spareIntervals_);
    events.swap(spareEvents_);
    log.swap(spareLog_);
    bool enginePaused = false, newlyHeld = false;
    std::optional<ActivityFrame> frame;
    ++tick_;
    {
        // Never wait for the engine's thread (it runs at a lower priority and may be
        // preempted while it holds the inbox): if it is busy, take the batch next time.
        std::unique_lock lock(feed_->mutex, std::try_to_lock);
        if (!lock.owns_lock() && !feed_->done) {
            --tick_;
            records.swap(spareRecords_);
            intervals.swap(spareIntervals_);
            events.swap(spareEvents_);
            log.swap(spareLog_);
            return;
        }
        if (!lock.owns_lock()) lock.lock();
        if (!startedEmitted_ && feed_->info) {
            info = feed_->info;
            runId_ = feed_->runId;
        }
        records.swap(feed_->records);
        intervals.swap(feed_->intervals);
        events.swap(feed_->events);
        usage.swap(feed_->linkUsage);
        applied.swap(feed_->interventions);
        if (feed_->skippedEvents || feed_->skippedIntervals) {
            events.push_back({feed_->lastTime, RunEventKind::NotShown, -1,
                              std::to_string(feed_->skippedEvents) + " availability events and " +
                                  std::to_string(feed_->skippedIntervals) +
                                  " node intervals were too many to show live (all are stored)",
                              {}});
            feed_->skippedEvents = feed_->skippedIntervals = 0;
        }
        double t = feed_->lastTime;
        if (feed_->engine) t = control_->clock(); // atomic: no wait
        // Arrivals the run has reached, even when no other event followed them yet (an
        // event step that ended on one).
        feed_->flushArrivals(feed_->done ? feed_->result.virtualTime : t);
        if (feed_->skippedLog) {
            LogEntry note;
            note.time = feed_->lastTime;
            note.text = std::to_string(feed_->skippedLog) +
                        " events came too fast to list live (the run store has every aggregation and event)";
            feed_->log.push_back(std::move(note));
            feed_->skippedLog = 0;
        }
        log.swap(feed_->log);
        // A step that ended or a condition that held paused the run by itself.
        enginePaused = control_->isPaused();
        // Every update at teaching speeds, a few per second otherwise, once when it pauses
        // and at the end.
        const bool pausing = enginePaused && state_ == State::Running;
        // Paused here, then held by the engine (after at most one more event): one frame of
        // the instant it stands at, and the reason said again if that instant moved.
        newlyHeld = state_ == State::Paused && !holdShown_ && control_->holding();
        const bool wanted = feed_->done || pausing || newlyHeld ||
                            (state_ == State::Running && (speed_ > 0 || tick_ % 6 == 0));
        if ((startedEmitted_ || info) && wanted) frame = feed_->frame(feed_->done ? feed_->result.virtualTime : t);
    }
    const QString until = QString::fromStdString(control_->takeReached());
    if (info) {
        info_ = *info;
        startedEmitted_ = true;
        Q_EMIT started(info_, runId_);
    }
    // Intervals first: a round's end follows the work that led to it (the timeline relies on it).
    if (!intervals.empty()) Q_EMIT this->intervals(intervals);
    if (!records.empty()) Q_EMIT metrics(records);
    if (!events.empty()) Q_EMIT this->events(events);
    if (!log.empty()) Q_EMIT this->log(log);
    if (!usage.empty()) Q_EMIT linkUsage(usage);
    if (!applied.empty()) {
        interventions_.insert(interventions_.end(), applied.begin(), applied.end());
        Q_EMIT intervened(applied);
    }
    if (frame) Q_EMIT activity(*frame);
    if (enginePaused && state_ == State::Running) enterPaused();
    if (newlyHeld && state_ == State::Paused) {
        holdShown_ = true;
        const QString why = pauseReason();
        if (!why.isEmpty() && why != shownPauseReason_) {
            shownPauseReason_ = why;
            Q_EMIT pausedBecause(why);
        }
    }
    if (!until.isEmpty()) Q_EMIT runUntilReached(until);
    records.clear();
    intervals.clear();
    events.clear();
    log.clear();
    records.swap(spareRecords_);
    intervals.swap(spareIntervals_);
    events.swap(spareEvents_);
    log.swap(spareLog_);
}

void RunController::onThreadFinished() {
    drain();
    timer_->stop();
    RunSummary summary;
    {
        std::lock_guard lock(feed_->mutex);
        summary = feed_->result;
        runId_ = feed_->runId;
    }
    // A pause or run-until set from now on is for the next run.
    control_ = std::make_shared<RunControl>();
    control_->setPlaybackSpeed(speed_);
    thread_->deleteLater();
    thread_ = nullptr;
    if (summary.status == RunStatus::Failed) {
        const QString name = info_.scenarioName.empty() ? tr("the scenario") : QString::fromStdString(info_.scenarioName);
        Q_EMIT error(startedEmitted_ ? tr("The run of %1 failed: %2").arg(name, QString::fromStdString(summary.stopReason))
                                     : tr("Cannot run this scenario: %1").arg(QString::fromStdString(summary.stopReason)));
    }
    Q_EMIT finished(summary, runId_);
    switch (summary.status) {
    case RunStatus::Cancelled: setState(State::Cancelled); break;
    case RunStatus::Failed: setState(State::Failed); break;
    default: setState(State::Finished); break;
    }
}

} // namespace fog
