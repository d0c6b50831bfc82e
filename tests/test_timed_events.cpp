// Timed events, traces and live interventions as the engine applies them (issue 13, the
// engine side; core/engine/timed_events.h). Timing-only scenarios without noise, so every
// time and cost below is worked out by hand in the comments: each action kind changes what
// it should at the right virtual time; traces (availability, price with a bid, bandwidth);
// `when` triggers; determinism across thread counts with events; an intervention through the
// RunControl is stored and its re-run is bit-identical; `fogstudio-cli run --event` end to end.

#include "core/engine/engine.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace fog;

namespace {

/// What a run reported.
struct Captured : RunObserver {
    std::vector<AggregationRecord> records;
    std::vector<RunEvent> events;
    std::vector<TimedEvent> interventions;
    /// Read by the test's thread while the run goes.
    std::shared_ptr<std::atomic<int>> interventionCount = std::make_shared<std::atomic<int>>(0);
    RunSummary summary;
    std::function<void(const AggregationRecord&)> onRecord;
    void onAggregation(const AggregationRecord& r) override {
        records.push_back(r);
        if (onRecord) onRecord(r);
    }
    void onEvent(const RunEvent& e) override { events.push_back(e); }
    void onIntervention(const TimedEvent& e) override {
        interventions.push_back(e);
        ++*interventionCount;
    }
    void onFinish(const RunSummary& s) override { summary = s; }

    std::vector<double> times() const {
        std::vector<double> t;
        for (const auto& r : records) t.push_back(r.time);
        return t;
    }
    std::vector<int> participants() const {
        std::vector<int> p;
        for (const auto& r : records) p.push_back(r.participants);
        return p;
    }
    int count(RunEventKind k) const {
        return static_cast<int>(std::count_if(events.begin(), events.end(), [k](const RunEvent& e) { return e.kind == k; }));
    }
};

Captured runScenario(const Scenario& s, int threads = 1, std::shared_ptr<RunControl> control = nullptr,
                     std::function<void(const AggregationRecord&)> onRecord = {}) {
    Captured c;
    c.onRecord = std::move(onRecord);
    EngineOptions o;
    o.threads = threads;
    o.observer = &c;
    o.control = std::move(control);
    Engine engine(s, o);
    engine.run();
    return c;
}

Captured run(const std::string& yaml, int threads = 1) { return runScenario(loadScenarioText(yaml, "t.yaml"), threads); }

/// One trainer `w` under a server over an 8 Mbit/s link; 1 MB messages; 10 steps of 10
/// samples at 100 samples/s. A round: 1 s down + 1 s compute + 1 s up = 3 s.
std::string oneTrainer(const std::string& extra, bool contention = true, int rounds = 3) {
    return std::string("name: timed\ntopology:\n  contention: ") + (contention ? "true" : "false") + R"(
  nodes:
    - {id: server, tier: cloud, role: aggregator}
    - {id: w, role: trainer, parent: server, compute: {throughput: 100}, price_per_hour: 3.6,
       link: {bandwidth_up_mbps: 8, bandwidth_down_mbps: 8}}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none, wire_bytes: 1000000}
training: {batch_size: 10, local_steps: 10}
sync: {policy: fedavg}
stop: {rounds: )" + std::to_string(rounds) + "}\n" + extra;
}

/// Ten phones (no links: a round is 1 s of compute) under a server.
std::string tenPhones(const std::string& extra, const std::string& selection = "{policy: all}", int rounds = 6) {
    return R"(name: phones
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
  groups:
    - {id: phones, count: 10, role: trainer, parent: server, compute: {throughput: 100}}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
training: {batch_size: 10, local_steps: 10}
sync: {policy: fedavg}
selection: )" + selection + "\nstop: {rounds: " + std::to_string(rounds) + "}\n" + extra;
}

void compareTimes(const std::vector<double>& got, const std::vector<double>& want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        QVERIFY2(std::abs(got[i] - want[i]) < 1e-9,
                 qPrintable(QString("round %1 ends at %2, want %3").arg(i + 1).arg(got[i], 0, 'g', 17).arg(want[i])));
}

void writeText(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

/// Every field a run's metrics hold, bit for bit (the wall clock aside).
bool sameRecords(const std::vector<AggregationRecord>& a, const std::vector<AggregationRecord>& b) {
    if (a.size() != b.size()) return false;
    auto same = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto &x = a[i], &y = b[i];
        if (x.round != y.round || x.level != y.level || x.aggregator != y.aggregator || !same(x.time, y.time) ||
            !same(x.trainLoss, y.trainLoss) || x.participants != y.participants || !same(x.cost, y.cost) ||
            !same(x.energyJ, y.energyJ) || !same(x.bytes, y.bytes) || !same(x.testLoss, y.testLoss) ||
            !same(x.testAccuracy, y.testAccuracy) || !same(x.meanStaleness, y.meanStaleness))
            return false;
    }
    return true;
}

} // namespace

class TestTimedEvents : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noEventsNoChange() { compareTimes(run(oneTrainer("")).times(), {3, 6, 9}); }

    void linkBandwidthChangesLaterTransfers_data() {
        QTest::addColumn<bool>("contention");
        QTest::addColumn<double>("second");
        QTest::addColumn<double>("third");
        // At 4 s (round 2 computing) the uplink goes to 16 Mbit/s. With contention round 2's
        // upload (from 5 s) takes 0.5 s and round 3 ends at 5.5 + 1 + 1 + 0.5 = 8. With the
        // ideal network round 2's timeline was planned at its dispatch (3 s): it ends at 6, and
        // round 3 at 6 + 1 + 1 + 0.5 = 8.5.
        QTest::newRow("contention") << true << 5.5 << 8.0;
        QTest::newRow("ideal network") << false << 6.0 << 8.5;
    }
    void linkBandwidthChangesLaterTransfers() {
        QFETCH(bool, contention);
        QFETCH(double, second);
        QFETCH(double, third);
        const Captured c = run(oneTrainer("events:\n  - at: 4\n    link: {id: w, bandwidth_up_mbps: 16}\n", contention));
        compareTimes(c.times(), {3, second, third});
        QCOMPARE(c.count(RunEventKind::TimedEvent), 1);
        const auto it = std::find_if(c.events.begin(), c.events.end(),
                                     [](const RunEvent& e) { return e.kind == RunEventKind::TimedEvent; });
        QCOMPARE(it->time, 4.0);
        QVERIFY2(it->detail.find("link w up=16") != std::string::npos, it->detail.c_str());
    }

    void linkChangeInFlight() {
        // At 3.5 s round 2's model is half way down (4 of 8 Mbit sent) when the downlink goes
        // to 16 Mbit/s. With contention the flow speeds up: the rest takes 0.25 s, so round 2
        // ends at 3.75 + 1 + 1 = 5.75 and round 3 at 5.75 + 0.5 + 1 + 1 = 8.25. With the ideal
        // network the dispatch keeps its planned timeline (ends at 6) and round 3 gets the new
        // downlink: 6 + 0.5 + 1 + 1 = 8.5.
        const std::string ev = "events:\n  - at: 3.5\n    link: {id: w, bandwidth_down_mbps: 16}\n";
        compareTimes(run(oneTrainer(ev, true)).times(), {3, 5.75, 8.25});
        compareTimes(run(oneTrainer(ev, false)).times(), {3, 6, 8.5});
    }

    void priceIsIntegrated() {
        // 3.6/h = 0.001/s held from t = 0; at 4 s the price doubles. Billing per started second
        // of each interval: at 3: 0.003; at 6: 4 x 0.001 + 2 x 0.002 = 0.008; at 9: 0.004 + 5 x
        // 0.002 = 0.014.
        const Captured c = run(oneTrainer("events:\n  - at: 4\n    node: {id: w, price_per_hour: 7.2}\n"));
        compareTimes(c.times(), {3, 6, 9});
        QVERIFY(std::abs(c.records[0].cost - 0.003) < 1e-12);
        QVERIFY(std::abs(c.records[1].cost - 0.008) < 1e-12);
        QVERIFY(std::abs(c.records[2].cost - 0.014) < 1e-12);
        QVERIFY(std::abs(c.summary.cost - 0.014) < 1e-12);
    }

    void throughputChangesLaterWork() {
        // At 2.5 s (round 1 uploading) the trainer doubles its speed: round 2 computes 0.5 s.
        const Captured c = run(oneTrainer("events:\n  - at: 2.5\n    node: {id: w, throughput: 200}\n"));
        compareTimes(c.times(), {3, 5.5, 8});
    }

    void offlineFractionAndOnline() {
        // At 0 three phones of ten leave (chosen with the seed) before the first dispatch;
        // at 4.5 they come back and join from the round that starts at 5.
        const Captured c = run(tenPhones("events:\n  - at: 0\n    offline: {id: phones, fraction: 0.3}\n"
                                         "  - at: 4.5\n    online: {id: phones, fraction: 1}\n"));
        QCOMPARE(c.participants(), (std::vector<int>{7, 7, 7, 7, 7, 10}));
        QCOMPARE(c.count(RunEventKind::Offline), 3);
        QCOMPARE(c.count(RunEventKind::Online), 3);
        QCOMPARE(c.count(RunEventKind::WorkLost), 0);
        // The same seed chooses the same phones.
        const Captured again = run(tenPhones("events:\n  - at: 0\n    offline: {id: phones, fraction: 0.3}\n"
                                             "  - at: 4.5\n    online: {id: phones, fraction: 1}\n"));
        std::vector<int> a, b;
        for (const auto& e : c.events) if (e.kind == RunEventKind::Offline) a.push_back(e.node);
        for (const auto& e : again.events) if (e.kind == RunEventKind::Offline) b.push_back(e.node);
        QCOMPARE(a, b);
    }

    void offlineMidRoundLosesWork() {
        // One phone leaves at 2.5 s, in the middle of round 3: its work is lost, the round ends
        // at 3 with 9, and it stays out (no online event).
        const Captured c = run(tenPhones("events:\n  - at: 2.5\n    offline: {id: phones-4}\n"));
        QCOMPARE(c.participants(), (std::vector<int>{10, 10, 9, 9, 9, 9}));
        QCOMPARE(c.count(RunEventKind::WorkLost), 1);
        compareTimes(c.times(), {1, 2, 3, 4, 5, 6});
    }

    void removeTakesTheLastMembers() {
        const Captured c = run(tenPhones("events:\n  - at: 2.5\n    remove: {group: phones, count: 4}\n"));
        QCOMPARE(c.participants(), (std::vector<int>{10, 10, 6, 6, 6, 6}));
        std::vector<int> gone;
        for (const auto& e : c.events)
            if (e.kind == RunEventKind::Offline) gone.push_back(e.node);
        // Node 0 is the server; phones-6 .. phones-9 are nodes 7 .. 10.
        QCOMPARE(gone, (std::vector<int>{7, 8, 9, 10}));
        QCOMPARE(c.count(RunEventKind::WorkLost), 4);
    }

    void removedDevicesNeverReturn() {
        const Captured c = run(tenPhones("events:\n  - at: 0.5\n    remove: {group: phones, count: 2}\n"
                                         "  - at: 1.5\n    online: {id: phones, fraction: 1}\n"));
        QCOMPARE(c.participants(), (std::vector<int>{8, 8, 8, 8, 8, 8}));
    }

    void policyParameterFromThatInstant() {
        // random-k with k = 4; at 2.5 s k becomes 2: round 3 (started at 2) keeps its 4.
        const Captured c = run(tenPhones("events:\n  - at: 2.5\n    policy: {selection.k: 2}\n",
                                         "{policy: random-k, k: 4}"));
        QCOMPARE(c.participants(), (std::vector<int>{4, 4, 4, 2, 2, 2}));
    }

    void whenTriggers() {
        // After round 2 half the phones leave (at 2 s, before round 3 is dispatched? no: the
        // round's own event dispatches round 3 first, so round 3's five leavers lose work).
        const Captured c = run(tenPhones("events:\n  - when: {round: 2}\n    offline: {id: phones, fraction: 0.5}\n"));
        QCOMPARE(c.participants(), (std::vector<int>{10, 10, 5, 5, 5, 5}));
        QCOMPARE(c.count(RunEventKind::WorkLost), 5);
        const auto it = std::find_if(c.events.begin(), c.events.end(),
                                     [](const RunEvent& e) { return e.kind == RunEventKind::TimedEvent; });
        QVERIFY(it != c.events.end());
        QCOMPARE(it->time, 2.0);
        // Cost: one trainer at 0.001/s; cost reaches 0.004 at the round ending at 6 (billed
        // 6 s); from then its price doubles: 0.006 + 3 x 0.002 = 0.012 at 9.
        const Captured cost = run(oneTrainer("events:\n  - when: {cost: 0.004}\n    node: {id: w, price_per_hour: 7.2}\n"));
        QVERIFY2(std::abs(cost.summary.cost - 0.012) < 1e-12, qPrintable(QString::number(cost.summary.cost, 'g', 17)));
    }

    void availabilityTraces() {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        // Per member: phones-0 leaves at 2.5 (round 3's work lost) and is back at 4.5 (joins
        // from the round starting at 5).
        writeText(d + "/a.csv", "time_s,phones-0,phones-1\n0,1,1\n2.5,0,1\n4.5,1,1\n");
        const std::string two = R"(name: trace
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
  groups:
    - {id: phones, count: 2, role: trainer, parent: server, compute: {throughput: 100},
       availability: {kind: trace, file: a.csv}}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
training: {batch_size: 10, local_steps: 10}
sync: {policy: fedavg}
stop: {rounds: 6}
)";
        writeText(d + "/two.yaml", two);
        Captured c = runScenario(loadScenarioFile(d + "/two.yaml"));
        QCOMPARE(c.participants(), (std::vector<int>{2, 2, 1, 1, 1, 2}));
        QCOMPARE(c.count(RunEventKind::WorkLost), 1);
        QCOMPARE(c.count(RunEventKind::Trace), 3);

        // A group's single column is the share online: 0.6 of 10 from t = 0, then all.
        writeText(d + "/share.csv", "time_s,value\n0,0.6\n3.5,1\n");
        std::string ten = tenPhones("");
        ten.replace(ten.find("compute: {throughput: 100}}"), 27,
                    "compute: {throughput: 100}, availability: {kind: trace, file: share.csv}}");
        writeText(d + "/ten.yaml", ten);
        c = runScenario(loadScenarioFile(d + "/ten.yaml"));
        QCOMPARE(c.participants(), (std::vector<int>{6, 6, 6, 6, 10, 10}));
    }

    /// A scenario read for editing (the studio's) names its traces without their series: the
    /// engine reads them before it builds anything, so a broken trace file is what a run
    /// reports first, before an error of the data (here a negative samples_per_trainer, which
    /// the engine itself refuses).
    void brokenTraceIsReportedBeforeOtherErrors() {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeText(d + "/a.csv", "time_s,value\n0,1\n");
        std::string yaml = oneTrainer("");
        yaml.replace(yaml.find("price_per_hour: 3.6,"), 20, "price_per_hour: 3.6, price_trace: a.csv,");
        writeText(d + "/s.yaml", yaml);
        Scenario s = loadScenarioFile(d + "/s.yaml");
        QVERIFY(s.events.traces.count("a.csv"));
        s.events.traces.clear(); // as read for editing
        runScenario(s);          // the engine loads the trace itself
        s.data.samplesPerTrainer = -1;
        auto message = [&s] {
            try {
                runScenario(s);
            } catch (const std::exception& e) {
                return std::string(e.what());
            }
            return std::string("no error");
        };
        QVERIFY2(message().find("samplesPerTrainer") != std::string::npos, message().c_str());
        writeText(d + "/a.csv", "time_s,value\n0,1\nnot a number,2\n");
        const std::string m = message();
        QVERIFY2(m.rfind("trace files: ", 0) == 0 && m.find("a.csv:3") != std::string::npos, m.c_str());
    }

    void priceTraceWithBid() {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        // 3.6/h until 4 s, then 7.2/h: the same bill as priceIsIntegrated (0.014 at 9 s).
        writeText(d + "/p.csv", "time_s,value\n0,3.6\n4,7.2\n");
        std::string s = oneTrainer("");
        s.replace(s.find("price_per_hour: 3.6,"), 20, "price_per_hour: 1, price_trace: p.csv,");
        writeText(d + "/p.yaml", s);
        Captured c = runScenario(loadScenarioFile(d + "/p.yaml"));
        QVERIFY2(std::abs(c.summary.cost - 0.014) < 1e-12, qPrintable(QString::number(c.summary.cost, 'g', 17)));

        // A spot trainer bidding 5/h: reclaimed while the price is 7.2 (4 .. 7), back after.
        // It is paid while held: [0, 4] at 3.6/h (4 s x 0.001), nothing while out, then
        // [7, end] at 3.6/h again.
        writeText(d + "/q.csv", "time_s,value\n0,3.6\n4,7.2\n7,3.6\n");
        s = oneTrainer("");
        s.replace(s.find("price_per_hour: 3.6,"), 20, "price_per_hour: 1, price_trace: q.csv, bid_usd_per_hour: 5,");
        writeText(d + "/q.yaml", s);
        c = runScenario(loadScenarioFile(d + "/q.yaml"));
        QCOMPARE(c.count(RunEventKind::Offline), 1);
        QCOMPARE(c.count(RunEventKind::Online), 1);
        QCOMPARE(c.count(RunEventKind::WorkLost), 1); // round 2 (3 .. 6) was under way
        const double end = c.summary.virtualTime;
        QVERIFY(end > 7);
        const double want = 4 * 0.001 + std::ceil(end - 7 - 1e-9) * 0.001;
        QVERIFY2(std::abs(c.summary.cost - want) < 1e-12,
                 qPrintable(QString("cost %1, want %2 (end %3)").arg(c.summary.cost, 0, 'g', 17).arg(want).arg(end)));
        QCOMPARE(c.summary.rounds, 3);
    }

    void bandwidthTrace() {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        // Both directions at 8 Mbit/s, then 16 from 4 s: round 2's upload (5 ..) takes 0.5 s,
        // round 3 moves 2 x 0.5 s: 5.5 + 0.5 + 1 + 0.5 = 7.5.
        writeText(d + "/b.csv", "time_s,value\n0,8\n4,16\n");
        std::string s = oneTrainer("");
        s.replace(s.find("bandwidth_down_mbps: 8}"), 23, "bandwidth_down_mbps: 8, trace: b.csv}");
        writeText(d + "/b.yaml", s);
        compareTimes(runScenario(loadScenarioFile(d + "/b.yaml")).times(), {3, 5.5, 7.5});
    }

    void stallWaitsForTheTrace() {
        // The only trainer is offline from 1.5 s to 5000 s (far beyond the safety net's
        // limits of a 3 s round): the run waits for it instead of stopping as stalled...
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeText(d + "/a.csv", "time_s,value\n0,1\n1.5,0\n5000,1\n");
        std::string s = oneTrainer("");
        s.replace(s.find("price_per_hour: 3.6,"), 20, "availability: {kind: trace, file: a.csv},");
        writeText(d + "/a.yaml", s);
        const Captured c = runScenario(loadScenarioFile(d + "/a.yaml"));
        QCOMPARE(c.summary.status, RunStatus::Finished);
        QCOMPARE(c.summary.rounds, 3);
        QVERIFY(c.summary.virtualTime > 5000);
        // ...while one that never comes back stops with its reason (never a hang).
        writeText(d + "/b.csv", "time_s,value\n0,1\n1.5,0\n");
        std::string never = s;
        never.replace(never.find("a.csv"), 5, "b.csv");
        writeText(d + "/b.yaml", never);
        const Captured n = runScenario(loadScenarioFile(d + "/b.yaml"));
        QVERIFY2(n.summary.status != RunStatus::Finished || n.summary.rounds < 3, n.summary.stopReason.c_str());
        QVERIFY2(!n.summary.stopReason.empty(), "no reason");
    }

    void deterministicAcrossThreads() {
        // Real training (logistic regression on synthetic data) with events of every
        // applicable kind, including an accuracy trigger: 1 and 2 threads agree bit for bit.
        const std::string yaml = R"(name: det
seed: 11
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 2.0}
  groups:
    - id: w
      count: 6
      tier: edge
      role: trainer
      parent: server
      compute: {throughput: {min: 50, max: 200}, noise: {kind: exponential}}
      price_per_hour: {min: 0.5, max: 3.0}
      link: {bandwidth_up_mbps: 10, bandwidth_down_mbps: 20}
data:
  dataset: synthetic
  synthetic: {alpha: 0.5, beta: 0.5, iid: true, features: 20, classes: 5}
model: {kind: logreg}
training: {learning_rate: 0.05, batch_size: 10, local_steps: 5}
sync: {policy: fedavg}
selection: {policy: random-k, k: 4}
stop: {rounds: 16}
evaluation: {every_rounds: 2}
events:
  - at: 0.5
    link: {id: w, bandwidth_up_mbps: 2}
  - at: 1
    offline: {id: w, fraction: 0.5}
  - at: 2
    node: {id: w-1, throughput: 20, price_per_hour: 9}
  - when: {round: 4}
    online: {id: w, fraction: 1}
  - when: {accuracy: 0.3}
    policy: {selection.k: 2}
  - when: {round: 8}
    remove: {group: w, count: 1}
)";
        const Captured one = run(yaml, 1);
        const Captured two = run(yaml, 2);
        QCOMPARE(one.records.size(), std::size_t(16));
        QVERIFY(sameRecords(one.records, two.records));
        QCOMPARE(one.count(RunEventKind::TimedEvent), two.count(RunEventKind::TimedEvent));
        QVERIFY(one.count(RunEventKind::TimedEvent) >= 5);
    }

    void interventionIsStoredAndRerunIdentically() {
        QTemporaryDir dir;
        const std::string db = dir.path().toStdString() + "/runs.db";
        const Scenario s = loadScenarioText(tenPhones("", "{policy: random-k, k: 6}", 8), "t.yaml");
        RunStore store(db);
        auto control = std::make_shared<RunControl>();
        // From another thread while the run is paused after round 3: half the phones leave
        // and k drops to 3.
        Condition round3;
        round3.metric = ConditionMetric::Round;
        round3.threshold = 3;
        control->runUntil(round3, RunControl::OnCondition::Pause);
        Captured live;
        EngineOptions o;
        o.observer = &live;
        o.control = control;
        RunSummary summary;
        std::int64_t id = 0;
        std::thread runner([&] { id = runAndStore(s, store, NewRun{}, o, summary, {}); });
        for (int i = 0; i < 3000 && !control->isPaused(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        QVERIFY(control->isPaused());
        TimedEvent off;
        off.action = TimedEvent::Action::Offline;
        off.target = "phones";
        off.fraction = 0.5;
        control->intervene(off);
        TimedEvent k;
        k.action = TimedEvent::Action::Policy;
        k.policyOf = "selection";
        k.policyParam = "k";
        k.policyValue = 3;
        control->intervene(k);
        for (int i = 0; i < 3000 && live.interventionCount->load() < 2; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        control->resume();
        runner.join();
        QCOMPARE(live.interventions.size(), std::size_t(2));
        QCOMPARE(live.interventions[0].trigger.value, 3.0);
        QVERIFY(live.interventions[0].afterEvent > 0);
        QCOMPARE(live.count(RunEventKind::Intervention), 2);
        QCOMPARE(live.records.back().participants, 3);

        // Stored with the run: the scenario now carries both events with their place.
        const std::string stored = store.run(id)->scenarioYaml;
        QVERIFY2(stored.find("after_event: " + std::to_string(live.interventions[0].afterEvent)) != std::string::npos,
                 stored.c_str());
        const Scenario again = loadScenarioText(stored, "stored.yaml");
        QCOMPARE(again.events.list.size(), std::size_t(2));
        const Captured rerun = runScenario(again);
        QVERIFY(sameRecords(live.records, rerun.records));
        QCOMPARE(rerun.count(RunEventKind::TimedEvent), 2);
        // And not what a run without them gives.
        QVERIFY(!sameRecords(live.records, runScenario(s).records));
    }

    void badInterventionIsReportedNotApplied() {
        const Scenario s = loadScenarioText(tenPhones(""), "t.yaml");
        auto control = std::make_shared<RunControl>();
        TimedEvent bad;
        bad.action = TimedEvent::Action::Offline;
        bad.target = "phones-42";
        control->intervene(bad);
        const Captured c = runScenario(s, 1, control);
        QCOMPARE(c.interventions.size(), std::size_t(0));
        QCOMPARE(c.count(RunEventKind::Intervention), 1);
        const auto it = std::find_if(c.events.begin(), c.events.end(),
                                     [](const RunEvent& e) { return e.kind == RunEventKind::Intervention; });
        QVERIFY(it->detail.find("not applied") != std::string::npos);
        QVERIFY(it->detail.find("phones-0 .. phones-9") != std::string::npos);
        QCOMPARE(c.participants(), (std::vector<int>{10, 10, 10, 10, 10, 10}));
    }

    void cliRunWithEvent() {
        // One worker, 100 s rounds, 10 rounds. At 600 s (the end of round 6) it doubles its
        // speed: the event was queued at the start, so at 600 it comes before the round's end,
        // and rounds 7 .. 10 take 50 s: the run ends at 800 s.
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/w.yaml";
        writeText(path, R"(name: cli
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
    - {id: worker, role: trainer, parent: server, compute: {throughput: 1}}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
training: {batch_size: 10, local_steps: 10}
stop: {rounds: 10}
)");
        QProcess p;
        p.start(FOG_CLI, {"run", "--no-store", "--json", QString::fromStdString(path), "--event",
                          "at 600: node worker throughput=2"});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, qPrintable(out + p.readAllStandardError()));
        QVERIFY2(out.contains("\"virtual_time_s\": 800") || out.contains("\"virtual_time\": 800"), out.constData());
    }
};

QTEST_GUILESS_MAIN(TestTimedEvents)
#include "test_timed_events.moc"
