// Devices that join a running group (`add` events; core/engine/timed_events.h, docs/emulator.md
// "Devices that join"). Timing-only scenarios without noise, so every time and cost below is
// worked out by hand in the comments; two small real-training runs check that the members
// still to join change nothing before they join (bit for bit), across thread counts and
// through a fork that adds devices by replay.

#include "core/engine/engine.h"
#include "core/fork/fork.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "engine_fixtures.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>

using namespace fog;

namespace {

/// Everything a run reported (engine_fixtures.h), with the run's node table.
struct Captured : fogtest::Recorder {
    RunInfo info;
    void onStart(const RunInfo& i) override { info = i; }
    const RunEvent* find(RunEventKind k) const {
        for (const auto& e : events)
            if (e.kind == k) return &e;
        return nullptr;
    }
};

Captured runScenario(const Scenario& s, int threads = 1, std::shared_ptr<RunControl> control = nullptr) {
    Captured c;
    EngineOptions o;
    o.threads = threads;
    o.observer = &c;
    o.control = std::move(control);
    Engine engine(s, o);
    engine.run();
    return c;
}

Captured run(const std::string& yaml, int threads = 1) { return runScenario(loadScenarioText(yaml, "t.yaml"), threads); }

/// `count` phones at 100 samples/s, 3.6 $/h (0.001 $/s) under a free server; no links: a
/// FedAvg round is 10 steps of 10 samples = 1 s of compute.
std::string phones(int count, const std::string& events, int rounds = 6, const std::string& link = "") {
    return R"(name: add
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
  groups:
    - {id: phones, count: )" +
           std::to_string(count) + R"(, role: trainer, parent: server, compute: {throughput: 100}, price_per_hour: 3.6)" +
           link + R"(}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none, wire_bytes: 1000000}
training: {batch_size: 10, local_steps: 10}
sync: {policy: fedavg}
selection: {policy: all}
stop: {rounds: )" +
           std::to_string(rounds) + "}\n" + events;
}

/// Real training (logistic regression on synthetic data, noisy steps, Markov availability,
/// random-k): what the members still to join must not change.
std::string training(const std::string& events, int rounds = 12) {
    return R"(name: det
seed: 5
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 2.0}
  groups:
    - id: w
      count: 5
      tier: edge
      role: trainer
      parent: server
      compute: {throughput: {min: 50, max: 200}, noise: {kind: exponential}}
      price_per_hour: {min: 0.5, max: 3.0}
      availability: {kind: markov, mean_up_s: 40, mean_down_s: 5}
      link: {bandwidth_up_mbps: 10, bandwidth_down_mbps: 20}
data:
  dataset: synthetic
  synthetic: {alpha: 0.5, beta: 0.5, iid: true, features: 20, classes: 5}
model: {kind: logreg}
training: {learning_rate: 0.05, batch_size: 10, local_steps: 5}
sync: {policy: fedavg}
selection: {policy: random-k, k: 3}
stop: {rounds: )" + std::to_string(rounds) + R"(}
evaluation: {every_rounds: 2}
)" + events;
}

bool same(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

bool sameRecord(const AggregationRecord& x, const AggregationRecord& y) {
    return x.round == y.round && x.level == y.level && x.aggregator == y.aggregator && same(x.time, y.time) &&
           same(x.trainLoss, y.trainLoss) && x.participants == y.participants && same(x.cost, y.cost) &&
           same(x.energyJ, y.energyJ) && same(x.bytes, y.bytes) && same(x.testLoss, y.testLoss) &&
           same(x.testAccuracy, y.testAccuracy) && same(x.meanStaleness, y.meanStaleness);
}

bool sameRecords(const std::vector<AggregationRecord>& a, const std::vector<AggregationRecord>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!sameRecord(a[i], b[i])) return false;
    return true;
}

/// The problems of loading `yaml`, formatted ("file:line:col: path message").
std::string problems(const std::string& yaml) {
    try {
        loadScenarioText(yaml, "s.yaml");
    } catch (const ScenarioError& e) {
        std::string out;
        for (const auto& d : e.diagnostics) out += d.format() + "\n";
        return out;
    }
    return {};
}

void compareTimes(const std::vector<double>& got, const std::vector<double>& want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        QVERIFY2(std::abs(got[i] - want[i]) < 1e-9,
                 qPrintable(QString("round %1 ends at %2, want %3").arg(i + 1).arg(got[i], 0, 'g', 17).arg(want[i])));
}

} // namespace

class TestAddDevices : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void billedAndTrainingOnlyAfterJoining() {
        // Two phones, two more at t = 2.5 (during round 3, 2 .. 3 s): FedAvg dispatches them
        // at the next round (t = 3), their first use, from which they are billed, as every
        // device is. Rounds end at 1, 2, ..., 6 s.
        const Captured c = run(phones(2, "events:\n  - {at: 2.5, add: {group: phones, count: 2}}\n"));
        compareTimes(c.times(), {1, 2, 3, 4, 5, 6});
        QCOMPARE(c.participants(), (std::vector<int>{2, 2, 2, 4, 4, 4}));
        // Cost by hand: each phone 0.001 $ a second held. Before t = 3 only the first two.
        const std::vector<double> want = {0.002, 0.004, 0.006, 0.008 + 0.002, 0.010 + 0.004, 0.012 + 0.006};
        for (std::size_t i = 0; i < want.size(); ++i)
            QVERIFY2(std::abs(c.records[i].cost - want[i]) < 1e-12,
                     qPrintable(QString("round %1 cost %2, want %3").arg(i + 1).arg(c.records[i].cost).arg(want[i])));
        QVERIFY(std::abs(c.summary.cost - 0.018) < 1e-12);
        // Samples: 3 rounds of 2 phones and 3 of 4, 100 samples each.
        QCOMPARE(c.summary.samplesComputed, std::int64_t(1800));
        // The newcomers are named on from the group's count, and the event says who joined.
        QCOMPARE(static_cast<int>(c.info.nodes.size()), 5);
        QCOMPARE(c.info.nodes[3].id, std::string("phones-2"));
        QCOMPARE(c.info.nodes[4].id, std::string("phones-3"));
        const RunEvent* e = c.find(RunEventKind::TimedEvent);
        QVERIFY(e);
        QCOMPARE(e->time, 2.5);
        QVERIFY2(e->detail.find("2 joined: phones-2 .. phones-3") != std::string::npos, e->detail.c_str());
        // No interval of a newcomer before it joined (not "offline": not there).
        for (const auto& iv : c.intervals)
            if (iv.node >= 3) QVERIFY2(iv.from >= 2.5, qPrintable(QString("node %1 from %2").arg(iv.node).arg(iv.from)));
    }

    void joiningAtZeroIsThereFromTheStart() {
        // At t = 0 the add applies before the policies start: four phones from round 1, each
        // billed from t = 0: 6 s x 4 x 0.001 $.
        const Captured c = run(phones(2, "events:\n  - {at: 0, add: {group: phones, count: 2}}\n"));
        QCOMPARE(c.participants(), (std::vector<int>{4, 4, 4, 4, 4, 4}));
        QVERIFY(std::abs(c.summary.cost - 0.024) < 1e-12);
    }

    void withoutTheEventNothingChanges() {
        // A count of 4 from the start gives round 4 .. 6 what the joined run gives (the
        // newcomers' streams are named by their ids) and no add: the run of 2 phones.
        const Captured two = run(phones(2, ""));
        QCOMPARE(two.participants(), (std::vector<int>{2, 2, 2, 2, 2, 2}));
        QVERIFY(std::abs(two.summary.cost - 0.012) < 1e-12);
    }

    void whenThatNeverFiresChangesNothing() {
        // Real training: the members reserved for an add that never fires (and, before it
        // fires, for one that does) leave every metric bit for bit as without the event.
        const Captured plain = run(training(""));
        const Captured never = run(training("events:\n  - {when: {round: 1000}, add: {group: w, count: 3}}\n"));
        QVERIFY(sameRecords(plain.records, never.records));
        QVERIFY(same(plain.summary.cost, never.summary.cost));
        QVERIFY(same(plain.summary.energyJ, never.summary.energyJ));
        QVERIFY(same(plain.summary.finalTestAccuracy, never.summary.finalTestAccuracy));

        const Captured later = run(training("events:\n  - {when: {round: 6}, add: {group: w, count: 3}}\n"));
        QCOMPARE(later.records.size(), plain.records.size());
        std::size_t k = 0;
        while (k < plain.records.size() && plain.records[k].round < 6) {
            QVERIFY2(sameRecord(plain.records[k], later.records[k]), qPrintable(QString("record %1").arg(k)));
            ++k;
        }
        QVERIFY(k > 0);
        // From the event on the three newcomers take part: the runs differ.
        QVERIFY(!sameRecords(plain.records, later.records));
    }

    void deterministicAcrossThreads() {
        const std::string yaml = training("events:\n  - {at: 3, add: {group: w, count: 2}}\n"
                                          "  - {when: {round: 8}, add: {group: w, count: 1}}\n");
        const Captured one = run(yaml, 1);
        const Captured two = run(yaml, 2);
        QCOMPARE(one.records.size(), std::size_t(12));
        QVERIFY(sameRecords(one.records, two.records));
    }

    void sharedCellGrowsContention() {
        // A shared 8 Mbit/s cell, 1 MB models: n phones download together in n s (max-min
        // fair), compute 1 s, upload n s: a round is 2n + 1 s. Two phones: 5 s; two more
        // join at t = 1, so from round 2 on four share it: 9 s.
        const std::string cell = ", link_sharing: shared, link: {bandwidth_up_mbps: 8, bandwidth_down_mbps: 8}";
        const Captured c = run(phones(2, "events:\n  - {at: 1, add: {group: phones, count: 2}}\n", 3, cell));
        compareTimes(c.times(), {5, 14, 23});
        QCOMPARE(c.participants(), (std::vector<int>{2, 4, 4}));
        // Private links: each newcomer has its own, rounds stay 3 s (1 + 1 + 1).
        const std::string own = ", link_sharing: private, link: {bandwidth_up_mbps: 8, bandwidth_down_mbps: 8}";
        const Captured p = run(phones(2, "events:\n  - {at: 1, add: {group: phones, count: 2}}\n", 3, own));
        compareTimes(p.times(), {3, 6, 9});
        QCOMPARE(p.participants(), (std::vector<int>{2, 4, 4}));
    }

    void removeThenAdd() {
        // Four phones; at 1.5 the last two leave (their round-2 work is lost, the round ends
        // with two); at 2.5 three new ones join (phones-4 .. phones-6), from round 4 on.
        const Captured c = run(phones(4, "events:\n  - {at: 1.5, remove: {group: phones, count: 2}}\n"
                                         "  - {at: 2.5, add: {group: phones, count: 3}}\n"));
        QCOMPARE(c.participants(), (std::vector<int>{4, 2, 2, 5, 5, 5}));
        bool named = false;
        for (const auto& e : c.events) named = named || e.detail.find("3 joined: phones-4 .. phones-6") != std::string::npos;
        QVERIFY(named);
        // A remove counts the members add events bring.
        QVERIFY(problems(phones(2, "events:\n  - {at: 1, add: {group: phones, count: 2}}\n"
                                   "  - {at: 2, remove: {group: phones, count: 4}}\n"))
                    .empty());
    }

    void tieredAggregatorTakesNewcomers() {
        const std::string yaml = R"(name: tiered
topology:
  nodes:
    - {id: cloud, tier: cloud, role: aggregator, aggregate: {sync: fedavg, selection: all}}
    - {id: edge, tier: edge, role: aggregator, parent: cloud, aggregate: {sync: fedavg, selection: all}}
  groups:
    - {id: phones, count: 2, role: trainer, parent: edge, compute: {throughput: 100}}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
training: {batch_size: 10, local_steps: 10}
sync: {policy: fedavg}
stop: {rounds: 4}
events:
  - {at: 1.5, add: {group: phones, count: 3}}
)";
        QVERIFY2(problems(yaml).empty(), problems(yaml).c_str());
        const Captured c = run(yaml);
        QVERIFY2(c.summary.status == RunStatus::Finished, c.summary.stopReason.c_str());
        int most = 0;
        for (const auto& r : c.records)
            if (r.level > 0 || r.aggregator == "edge") most = std::max(most, r.participants);
        QCOMPARE(most, 5);
    }

    void badInput_data() {
        QTest::addColumn<QString>("events");
        QTest::addColumn<QString>("want");
        QTest::newRow("beyond maxNodes") << "  - {at: 1, add: {group: phones, count: 1999999}}\n"
                                         << "s.yaml:14:41: events[0].add.count is 1999999: the scenario would hold 2000002 nodes";
        QTest::newRow("second beyond maxNodes")
            << "  - {at: 1, add: {group: phones, count: 1000000}}\n  - {at: 2, add: {group: phones, count: 999999}}\n"
            << "s.yaml:15:41: events[1].add.count is 999999: the scenario would hold 2000002 nodes";
        QTest::newRow("not a group") << "  - {at: 1, add: {group: server, count: 1}}\n"
                                     << "'server' is not a group";
        QTest::newRow("zero") << "  - {at: 1, add: {group: phones, count: 0}}\n" << "must be >= 1, got 0";
        QTest::newRow("unknown group") << "  - {at: 1, add: {group: phone, count: 1}}\n" << "'phone' is not a node, group";
        QTest::newRow("remove beyond") << "  - {at: 1, add: {group: phones, count: 1}}\n  - {at: 2, remove: {group: phones, count: 4}}\n"
                                       << "is 4, but group 'phones' has 3 members (with the 1 that add events bring)";
    }
    void badInput() {
        QFETCH(QString, events);
        QFETCH(QString, want);
        const std::string got = problems(phones(2, "events:\n" + events.toStdString()));
        QVERIFY2(got.find(want.toStdString()) != std::string::npos, got.c_str());
    }

    void badGroups() {
        // An aggregator group, and groups nested in either direction.
        const std::string aggs = R"(name: bad
topology:
  nodes:
    - {id: cloud, tier: cloud, role: aggregator}
  groups:
    - {id: edges, count: 2, tier: edge, role: aggregator, parent: cloud}
    - {id: phones, count: 2, role: trainer, parent: edges}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
training: {batch_size: 10, local_steps: 10}
sync: {policy: fedavg}
stop: {rounds: 2}
events:
)";
        std::string got = problems(aggs + "  - {at: 1, add: {group: edges, count: 1}}\n");
        QVERIFY2(got.find("has role aggregator; devices that join must be trainers") != std::string::npos, got.c_str());
        got = problems(aggs + "  - {at: 1, add: {group: phones, count: 1}}\n");
        QVERIFY2(got.find("is nested under group 'edges'") != std::string::npos, got.c_str());
        // A node named like a newcomer.
        got = problems(R"(name: clash
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
    - {id: phones-2, role: trainer, parent: server}
  groups:
    - {id: phones, count: 2, role: trainer, parent: server}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
training: {batch_size: 10, local_steps: 10}
sync: {policy: fedavg}
stop: {rounds: 2}
events:
  - {at: 1, add: {group: phones, count: 1}}
)");
        QVERIFY2(got.find("would bring a member named 'phones-2'") != std::string::npos, got.c_str());
    }

    void eventArgumentAndRoundTrip() {
        Scenario s = loadScenarioText(phones(2, ""), "t.yaml");
        addEventArgument(s, "at 2.5: add phones 2");
        QCOMPARE(s.events.list.size(), std::size_t(1));
        QCOMPARE(s.events.list[0].count, 2);
        const Scenario back = loadScenarioText(saveScenarioText(s), "back.yaml");
        QCOMPARE(back.events.list.size(), std::size_t(1));
        QVERIFY(back.events.list[0].action == TimedEvent::Action::Add);
        QVERIFY(sameRecords(runScenario(s).records, runScenario(back).records));
        QCOMPARE(runScenario(s).participants(), (std::vector<int>{2, 2, 2, 4, 4, 4}));
    }

    void liveAddIsRefusedNamingTheFork() {
        const Scenario s = loadScenarioText(phones(2, ""), "t.yaml");
        auto control = std::make_shared<RunControl>();
        TimedEvent add;
        add.action = TimedEvent::Action::Add;
        add.target = "phones";
        add.count = 2;
        control->intervene(add);
        const Captured c = runScenario(s, 1, control);
        const RunEvent* e = c.find(RunEventKind::Intervention);
        QVERIFY(e);
        QVERIFY2(e->detail.find("not applied") != std::string::npos && e->detail.find("fork") != std::string::npos,
                 e->detail.c_str());
        QCOMPARE(c.participants(), (std::vector<int>{2, 2, 2, 2, 2, 2}));
    }

    void storedRunWithAnAddRerunsIdentically() {
        // The stored scenario carries the add event: its re-run (as `runs rerun` does it) is
        // the run bit for bit.
        QTemporaryDir dir;
        RunStore store(dir.path().toStdString() + "/runs.db");
        Scenario s = loadScenarioText(training(""), "t.yaml");
        addEventArgument(s, "when round>=4: add w 3");
        Captured live;
        EngineOptions o;
        o.observer = &live;
        RunSummary summary;
        const std::int64_t id = runAndStore(s, store, NewRun{}, o, summary, {});
        const Scenario again = loadScenarioText(store.run(id)->scenarioYaml, "stored.yaml");
        QCOMPARE(again.events.list.size(), std::size_t(1));
        const Captured rerun = runScenario(again);
        QVERIFY(sameRecords(live.records, rerun.records));
        QVERIFY(!sameRecords(live.records, run(training("")).records));
    }

    void forkAddsDevicesByReplay() {
        // A stored real-training run, forked after its 4th snapshot with two devices added:
        // the replay (with the reserved members absent) must equal the parent up to the
        // fork, checked row by row and on the model at each snapshot, then the newcomers
        // take part.
        QTemporaryDir dir;
        RunStore store(dir.path().toStdString() + "/runs.db");
        const Scenario s = loadScenarioText(training("", 14), "parent.yaml");
        EngineOptions o;
        o.snapshotEverySeconds = 0.5;
        RunSummary ps;
        const std::int64_t parent = runAndStore(s, store, NewRun{}, o, ps, {});
        const auto snaps = store.snapshots(parent);
        QVERIFY(snaps.size() > 4);
        const double at = snaps[3].time + 0.25;
        ForkChanges changes;
        changes.events = {"add w 2"};
        const ForkPlan plan = planFork(store, parent, at, changes);
        RunSummary fs;
        const std::int64_t fork = runFork(store, plan, EngineOptions{}, fs);
        QVERIFY2(fs.status == RunStatus::Finished, fs.stopReason.c_str());
        const auto a = store.metrics(parent), b = store.metrics(fork);
        const std::size_t branch = forkBranchRow(b, at);
        QCOMPARE(branch, plan.parentRows.size());
        QVERIFY(branch > 0);
        for (std::size_t i = 0; i < branch; ++i) QVERIFY(sameRecord(a[i], b[i]));
        QVERIFY(!sameRecords(a, b));
    }
};

QTEST_GUILESS_MAIN(TestAddDevices)
#include "test_add_devices.moc"
