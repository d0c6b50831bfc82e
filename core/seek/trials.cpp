#include "core/seek/trials.h"

#include "core/engine/engine.h"
#include "core/sweep/sweep.h"

#include <chrono>
#include <cmath>
#include <thread>

namespace fog {

// ---------------------------------------------------------------- TrialGate

TrialGate::TrialGate(RunObserver& inner, const Scenario& scenario, const std::atomic<bool>* cancel)
    : inner_(inner), scenario_(scenario), cancel_(cancel) {}

void TrialGate::setBudget(const TrialBudget& b) {
    std::lock_guard lock(mutex_);
    budget_ = b;
}

bool TrialGate::reached(const AggregationRecord& r) const {
    switch (budget_.kind) {
    case TrialBudget::Kind::Rounds:
        return r.round >= budget_.value;
    case TrialBudget::Kind::Time:
        return r.time > budget_.value;
    case TrialBudget::Kind::None:
        return false;
    }
    return false;
}

void TrialGate::onAggregation(const AggregationRecord& r) {
    inner_.onAggregation(r);
    if (r.level != 0) return;
    std::unique_lock lock(mutex_);
    level0_.push_back(r);
    if (!reached(r)) return;
    // The engine ends the run at this aggregation anyway: nothing to wait for.
    if (scenario_.stop.rounds > 0 && r.round >= scenario_.stop.rounds) return;
    if (scenario_.stop.targetAccuracy > 0 && !std::isnan(r.testAccuracy) &&
        r.testAccuracy >= scenario_.stop.targetAccuracy)
        return;
    if (stop_) {
        lock.unlock();
        if (engine_) engine_->cancel();
        return;
    }
    lock.unlock();
    if (onWait) onWait();
    lock.lock();
    go_ = false;
    state_ = State::Waiting;
    cv_.notify_all();
    // The search's cancel flag may be set from a signal handler, without a notification.
    while (!go_ && !stop_ && !(cancel_ && cancel_->load()))
        cv_.wait_for(lock, std::chrono::milliseconds(20));
    state_ = State::Running;
    const bool stop = stop_, cancelled = !go_ && !stop_;
    lock.unlock();
    // Stopped by the search: the engine ends the run at its next check; cancelled: the
    // engine sees the flag itself. Neither computes again, so neither takes a slot.
    if (stop && engine_) engine_->cancel();
    if (stop || cancelled) return;
    if (onGoOn) onGoOn();
}

void TrialGate::onFinish(const RunSummary& s) {
    RunSummary out = s;
    {
        std::lock_guard lock(mutex_);
        if (stop_ && s.status == RunStatus::Cancelled && !(cancel_ && cancel_->load()))
            out = stoppedSummary(s, stopReason_);
    }
    inner_.onFinish(out);
    markEnded(out);
}

RunSummary TrialGate::stoppedSummary(RunSummary s, const std::string& reason) {
    s.status = RunStatus::Finished;
    s.stopReason = reason;
    return s;
}

void TrialGate::markEnded(const RunSummary& s) {
    std::lock_guard lock(mutex_);
    summary_ = s;
    state_ = State::Ended;
    cv_.notify_all();
}

bool TrialGate::waitForStop() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return state_ != State::Running; });
    return state_ == State::Ended;
}

void TrialGate::goOn(const TrialBudget& next) {
    std::lock_guard lock(mutex_);
    if (state_ != State::Waiting) return;
    budget_ = next;
    go_ = true;
    stop_ = false;
    state_ = State::Running;
    cv_.notify_all();
}

void TrialGate::stopHere(const std::string& reason) {
    std::lock_guard lock(mutex_);
    if (state_ == State::Ended) return;
    stop_ = true;
    stopReason_ = reason;
    budget_ = {TrialBudget::Kind::Rounds, 0.0}; // a running run stops at its next aggregation
    if (state_ == State::Waiting) {
        go_ = true;
        state_ = State::Running;
    }
    cv_.notify_all();
}

TrialGate::Stand TrialGate::stand() const {
    std::lock_guard lock(mutex_);
    return state_;
}

std::vector<AggregationRecord> TrialGate::level0() const {
    std::lock_guard lock(mutex_);
    return level0_;
}

RunSummary TrialGate::summary() const {
    std::lock_guard lock(mutex_);
    if (state_ == State::Ended) return summary_;
    RunSummary s;
    s.status = RunStatus::Running;
    if (!level0_.empty()) {
        const auto& r = level0_.back();
        s.rounds = r.round;
        s.virtualTime = r.time;
        s.cost = r.cost;
        s.energyJ = r.energyJ;
        s.bytes = r.bytes;
    }
    return s;
}

// ---------------------------------------------------------------- LocalTrials

namespace {

/// Forwards to an observer set later (the recorder, made on the run's own thread).
struct Forward : RunObserver {
    RunObserver* to = nullptr;
    void onStart(const RunInfo& i) override { to->onStart(i); }
    void onAggregation(const AggregationRecord& r) override { to->onAggregation(r); }
    void onIntervals(const std::vector<NodeInterval>& v) override { to->onIntervals(v); }
    void onEvent(const RunEvent& e) override { to->onEvent(e); }
    void onFinish(const RunSummary& s) override { to->onFinish(s); }
};

} // namespace

struct LocalTrials::Live {
    Scenario scenario;
    NewRun meta;
    std::int64_t runId = 0;
    Forward forward;
    std::unique_ptr<TrialGate> gate;
    std::thread thread;
};

LocalTrials::LocalTrials(RunStore& store, int parallel, int threadsPerRun,
                         const std::atomic<bool>* cancel)
    : store_(store), parallel_(std::max(1, parallel)), threads_(std::max(1, threadsPerRun)),
      cancel_(cancel) {}

LocalTrials::~LocalTrials() {
    for (auto& [trial, live] : live_)
        live->gate->stopHere("search ended");
    for (auto& [trial, live] : live_)
        if (live->thread.joinable()) live->thread.join();
}

void LocalTrials::acquire() {
    std::unique_lock lock(slotMutex_);
    slotCv_.wait(lock, [this] { return busy_ < parallel_; });
    ++busy_;
}

void LocalTrials::release() {
    {
        std::lock_guard lock(slotMutex_);
        --busy_;
    }
    slotCv_.notify_one();
}

TrialReport LocalTrials::reportOf(const Live& live, int trial) const {
    TrialReport r;
    r.trial = trial;
    r.level0 = live.gate->level0();
    r.summary = live.gate->summary();
    r.ended = r.summary.status != RunStatus::Running;
    r.runId = live.runId;
    return r;
}

void LocalTrials::run(const std::vector<TrialTask>& tasks,
                      const std::function<void(const TrialReport&)>& report) {
    for (const auto& t : tasks) {
        if (!t.start) {
            auto it = live_.find(t.trial);
            if (it != live_.end()) it->second->gate->goOn(t.budget);
            continue;
        }
        auto live = std::make_unique<Live>();
        live->scenario = t.scenario;
        live->meta = t.meta;
        live->meta.scenarioYaml = storedScenarioText(live->scenario);
        live->meta.seed = live->scenario.seed;
        live->meta.threads = threads_;
        if (live->meta.name.empty()) live->meta.name = live->scenario.name;
        live->runId = store_.beginRun(live->meta);
        Live* l = live.get();
        l->gate = std::make_unique<TrialGate>(l->forward, l->scenario, cancel_);
        l->gate->setBudget(t.budget);
        l->thread = std::thread([this, l] {
            acquire();
            bool holding = true;
            l->gate->onWait = [&] {
                release();
                holding = false;
            };
            l->gate->onGoOn = [&] {
                acquire();
                holding = true;
            };
            StoreRecorder recorder(store_, l->runId);
            l->forward.to = &recorder;
            EngineOptions options;
            options.threads = threads_;
            options.observer = l->gate.get();
            options.cancelFlag = cancel_;
            try {
                Engine engine(l->scenario, options);
                l->gate->attach(&engine);
                engine.run();
                l->gate->attach(nullptr);
            } catch (const std::exception& e) {
                // Set-up failed (data, model): stored failed with the reason, as runAndStore does.
                RunSummary s;
                s.status = RunStatus::Failed;
                s.stopReason = e.what();
                recorder.onFinish(s);
                l->gate->markEnded(s);
            }
            if (holding) release();
        });
        live_[t.trial] = std::move(live);
    }
    for (const auto& t : tasks) {
        auto it = live_.find(t.trial);
        if (it == live_.end()) continue;
        const bool ended = it->second->gate->waitForStop();
        const TrialReport r = reportOf(*it->second, t.trial);
        if (ended) {
            it->second->thread.join();
            live_.erase(it);
        }
        if (report) report(r);
    }
}

void LocalTrials::stop(const std::vector<int>& trials, const std::string& reason,
                       const std::function<void(const TrialReport&)>& report) {
    for (int t : trials) {
        auto it = live_.find(t);
        if (it != live_.end()) it->second->gate->stopHere(reason);
    }
    for (int t : trials) {
        auto it = live_.find(t);
        if (it == live_.end()) continue;
        it->second->gate->waitForStop();
        it->second->thread.join();
        const TrialReport r = reportOf(*it->second, t);
        live_.erase(it);
        if (report) report(r);
    }
}

// ---------------------------------------------------------------- TrialHost

namespace {

struct Capture : RunObserver {
    CapturedRun run;
    void onStart(const RunInfo& i) override { run.nodes = i.nodes; }
    void onAggregation(const AggregationRecord& r) override { run.records.push_back(r); }
    void onIntervals(const std::vector<NodeInterval>& v) override {
        run.intervals.insert(run.intervals.end(), v.begin(), v.end());
    }
    void onEvent(const RunEvent& e) override { run.events.push_back(e); }
    void onFinish(const RunSummary& s) override { run.summary = s; }
};

} // namespace

struct TrialHost::Hosted {
    Scenario scenario;
    Capture capture;
    std::unique_ptr<TrialGate> gate;
    std::thread thread;
    bool told = false; ///< the current wait (or the end) was handed out by poll()
};

TrialHost::TrialHost(int parallel, const std::atomic<bool>* cancel)
    : parallel_(std::max(1, parallel)), cancel_(cancel) {}

TrialHost::~TrialHost() {
    for (auto& [trial, h] : trials_)
        h->gate->stopHere("search ended");
    for (auto& [trial, h] : trials_)
        if (h->thread.joinable()) h->thread.join();
}

void TrialHost::acquire() {
    std::unique_lock lock(slotMutex_);
    slotCv_.wait(lock, [this] { return busy_ < parallel_; });
    ++busy_;
}

void TrialHost::release() {
    {
        std::lock_guard lock(slotMutex_);
        --busy_;
    }
    slotCv_.notify_one();
}

void TrialHost::start(int trial, const Scenario& scenario, int threads, const TrialBudget& budget) {
    if (trials_.count(trial)) return; // already held: the coordinator repeated itself
    auto h = std::make_unique<Hosted>();
    h->scenario = scenario;
    h->gate = std::make_unique<TrialGate>(h->capture, h->scenario, cancel_);
    h->gate->setBudget(budget);
    Hosted* p = h.get();
    p->thread = std::thread([this, p, threads] {
        acquire();
        bool holding = true;
        p->gate->onWait = [&] {
            release();
            holding = false;
        };
        p->gate->onGoOn = [&] {
            acquire();
            holding = true;
        };
        EngineOptions options;
        options.threads = std::max(1, threads);
        options.observer = p->gate.get();
        options.cancelFlag = cancel_;
        try {
            Engine engine(p->scenario, options);
            p->gate->attach(&engine);
            engine.run();
            p->gate->attach(nullptr);
        } catch (const std::exception& e) {
            RunSummary s;
            s.status = RunStatus::Failed;
            s.stopReason = e.what();
            p->capture.run.summary = s;
            p->gate->markEnded(s);
        }
        if (holding) release();
    });
    trials_[trial] = std::move(h);
}

void TrialHost::goOn(int trial, const TrialBudget& budget) {
    auto it = trials_.find(trial);
    if (it == trials_.end() || it->second->gate->stand() != TrialGate::Stand::Waiting) return;
    it->second->told = false;
    it->second->gate->goOn(budget);
}

void TrialHost::stop(int trial, const std::string& reason) {
    auto it = trials_.find(trial);
    if (it == trials_.end()) return;
    it->second->told = false;
    it->second->gate->stopHere(reason);
}

std::vector<TrialHost::News> TrialHost::poll() {
    std::vector<News> out;
    for (auto it = trials_.begin(); it != trials_.end();) {
        Hosted& h = *it->second;
        const auto stand = h.gate->stand();
        if (stand == TrialGate::Stand::Ended) {
            h.thread.join();
            News n;
            n.trial = it->first;
            n.ended = true;
            n.run = std::move(h.capture.run);
            out.push_back(std::move(n));
            it = trials_.erase(it);
            continue;
        }
        if (stand == TrialGate::Stand::Waiting && !h.told) {
            h.told = true;
            News n;
            n.trial = it->first;
            n.run.records = h.gate->level0();
            n.run.summary = h.gate->summary();
            out.push_back(std::move(n));
        }
        ++it;
    }
    return out;
}

} // namespace fog
