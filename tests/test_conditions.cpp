// One condition type (issue 11): parsing with messages that name the argument, what a
// condition says when it holds, the scenario's stop rules and a front end's "run until" on
// the same engine, the CLI's --until, the event queue's ordering and refusals, and the
// typed run events' one mapping to the stored names.

#include "core/engine/condition.h"
#include "core/engine/engine.h"
#include "core/engine/event_queue.h"
#include "core/engine/run_control.h"
#include "core/system/run_event.h"
#include "engine_fixtures.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>
#include <thread>
#include <vector>

using namespace fog;
using namespace fogtest;

namespace {

/// Rounds of exactly 1 virtual second (4 trainers, no noise), evaluated... never (timing
/// only), the server costing 1 per virtual second.
Scenario steadyRounds(int rounds) {
    Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::None);
    s.sync.name = "fully-sync";
    s.stop.rounds = rounds;
    s.topology.nodes[0].pricePerHour = 3600.0;
    return s;
}

RunSummary runWith(const Scenario& s, Recorder& rec, const Condition& c, RunControl::OnCondition what,
                   std::shared_ptr<RunControl>* keep = nullptr) {
    EngineOptions o;
    o.observer = &rec;
    o.control = std::make_shared<RunControl>();
    o.control->runUntil(c, what);
    if (keep) *keep = o.control;
    Engine engine(s, o);
    return engine.run();
}

} // namespace

class TestConditions : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parses_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("metric");
        QTest::addColumn<double>("threshold");
        QTest::newRow("accuracy=") << "accuracy=0.8" << int(ConditionMetric::Accuracy) << 0.8;
        QTest::newRow("accuracy >= %") << "accuracy >= 80%" << int(ConditionMetric::Accuracy) << 0.8;
        QTest::newRow("round>=") << "round>=20" << int(ConditionMetric::Round) << 20.0;
        QTest::newRow("spaces") << "  time  >=  600 " << int(ConditionMetric::Time) << 600.0;
        QTest::newRow("cost") << "cost=2.5" << int(ConditionMetric::Cost) << 2.5;
        QTest::newRow("budget alias") << "budget>=1e-3" << int(ConditionMetric::Cost) << 1e-3;
    }
    void parses() {
        QFETCH(QString, text);
        QFETCH(int, metric);
        QFETCH(double, threshold);
        const Condition c = parseCondition(text.toStdString(), "--until");
        QCOMPARE(int(c.metric), metric);
        QCOMPARE(c.threshold, threshold);
        // What it describes reads back as the same condition.
        QCOMPARE(parseCondition(c.describe(), "x"), c);
    }

    void refusesWithTheArgumentNamed_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("no operator") << "accuracy 0.8" << "no '='";
        QTest::newRow("unknown metric") << "acuracy=0.8" << "unknown metric 'acuracy'";
        QTest::newRow("no metric") << "=3" << "no metric";
        QTest::newRow("no value") << "round=" << "no value";
        QTest::newRow("not a number") << "round=ten" << "'ten' is not a number";
        QTest::newRow("trailing junk") << "cost=2.5$" << "is not a number";
        QTest::newRow("less than") << "accuracy<=0.8" << "only '>='";
        QTest::newRow("accuracy > 1") << "accuracy=1.5" << "(0, 1]";
        QTest::newRow("accuracy 0") << "accuracy=0" << "(0, 1]";
        QTest::newRow("percent > 100") << "accuracy=120%" << "(0, 1]";
        QTest::newRow("fractional round") << "round=2.5" << "whole number";
        QTest::newRow("round 0") << "round>=0" << "whole number";
        QTest::newRow("negative time") << "time=-1" << ">= 0";
        QTest::newRow("percent cost") << "cost=5%" << "only accuracy";
        QTest::newRow("nan") << "cost=nan" << "is not a number";
        QTest::newRow("empty") << "" << "no '='";
    }
    void refusesWithTheArgumentNamed() {
        QFETCH(QString, text);
        QFETCH(QString, says);
        try {
            parseCondition(text.toStdString(), "--until");
            QFAIL("accepted");
        } catch (const ConditionError& e) {
            const QString m = QString::fromStdString(e.what());
            QVERIFY2(m.startsWith("--until '" + text + "'"), qPrintable(m));
            QVERIFY2(m.contains(says), qPrintable(m));
        }
    }

    void saysWhatHeld() {
        RunProgress p;
        p.round = 7;
        p.time = 123.5;
        p.accuracy = 0.784;
        p.cost = 2.75;
        QCOMPARE(QString::fromStdString(parseCondition("accuracy>=78%", "x").reachedText(p)),
                 QString("accuracy 78.4% >= 78% at round 7"));
        QCOMPARE(QString::fromStdString(parseCondition("round>=7", "x").reachedText(p)),
                 QString("round 7 >= 7 at 123.5 s"));
        QCOMPARE(QString::fromStdString(parseCondition("cost>=2.5", "x").reachedText(p)),
                 QString("cost 2.75 >= 2.5 at round 7"));
        QVERIFY(!parseCondition("accuracy>=0.8", "x").holds(p));
        p.accuracy = kNaN; // not evaluated: never holds
        QVERIFY(!parseCondition("accuracy>=0.01", "x").holds(p));
    }

    void stopRulesAreConditions() {
        // The scenario's stop rules and the same conditions given to a run control end a run
        // at the same point.
        struct Case {
            const char* condition;
            void (*set)(Scenario&);
        };
        const Case cases[] = {
            {"round>=5", [](Scenario& s) { s.stop.rounds = 5; }},
            {"cost>=7.5", [](Scenario& s) { s.stop.rounds = 0, s.stop.budget = 7.5; }},
        };
        for (const auto& c : cases) {
            Scenario byRule = steadyRounds(1000);
            c.set(byRule);
            Recorder a, b;
            const RunSummary ra = runScenario(byRule, a);
            const RunSummary rb = runWith(steadyRounds(1000), b, parseCondition(c.condition, "x"),
                                          RunControl::OnCondition::Stop);
            QCOMPARE(ra.status, RunStatus::Finished);
            QCOMPARE(rb.status, RunStatus::Finished);
            QCOMPARE(rb.rounds, ra.rounds);
            QCOMPARE(rb.virtualTime, ra.virtualTime);
            QCOMPARE(rb.cost, ra.cost);
            QVERIFY2(QString::fromStdString(rb.stopReason).startsWith("condition reached: "), rb.stopReason.c_str());
        }
    }

    void timeConditionStopsWhereTheTimeLimitDoes() {
        Scenario byRule = steadyRounds(0);
        byRule.stop.virtualTimeS = 7.5;
        Recorder a, b;
        const RunSummary ra = runScenario(byRule, a);
        const RunSummary rb = runWith(steadyRounds(0), b, parseCondition("time>=7.5", "x"), RunControl::OnCondition::Stop);
        QCOMPARE(ra.stopReason, std::string("virtual time limit reached"));
        QCOMPARE(ra.virtualTime, 7.5);
        QCOMPARE(rb.virtualTime, 7.5);
        QCOMPARE(rb.rounds, ra.rounds);
        QCOMPARE(rb.cost, ra.cost);
        QCOMPARE(rb.stopReason, std::string("condition reached: time 7.5 s >= 7.5 s at round 7"));
    }

    void pauseWhenHoldsThenRunsOn() {
        // Pause, from the engine's thread, at the round the condition names; resume runs on.
        Scenario s = steadyRounds(12);
        Recorder rec;
        EngineOptions o;
        o.observer = &rec;
        o.control = std::make_shared<RunControl>();
        o.control->runUntil(parseCondition("round>=4", "x"));
        Engine engine(s, o);
        RunSummary summary;
        std::thread t([&] { summary = engine.run(); });
        QTRY_VERIFY_WITH_TIMEOUT(o.control->isPaused(), 5000);
        QTest::qWait(100);
        QCOMPARE(static_cast<int>(rec.level(0).size()), 4); // paused right there
        QCOMPARE(QString::fromStdString(o.control->takeReached()), QString("round 4 >= 4 at 4 s"));
        QVERIFY(o.control->takeReached().empty()); // said once
        QVERIFY(!o.control->condition());           // used up
        o.control->resume();
        t.join();
        QCOMPARE(summary.rounds, 12);
    }

    void accuracyConditionOnATrainedModel() {
        // A small real run: stops at the first evaluation that reaches 30%.
        Scenario s = timingStar(2, 100.0, NoiseSpec::Kind::None);
        useSmallRealTraining(s, 20);
        s.stop.rounds = 200;
        Recorder rec;
        const RunSummary r = runWith(s, rec, parseCondition("accuracy>=30%", "x"), RunControl::OnCondition::Stop);
        QCOMPARE(r.status, RunStatus::Finished);
        QVERIFY2(r.rounds < 200, r.stopReason.c_str());
        QVERIFY(rec.records.back().testAccuracy >= 0.3);
        for (std::size_t i = 0; i + 1 < rec.records.size(); ++i)
            QVERIFY(!(rec.records[i].testAccuracy >= 0.3));
        QVERIFY2(QString::fromStdString(r.stopReason).contains(QString("at round %1").arg(r.rounds)), r.stopReason.c_str());
    }

    void cliUntil() {
        QTemporaryDir dir;
        const QString yaml = dir.filePath("s.yaml");
        QFile f(yaml);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"(schema_version: 1
name: until
topology:
  nodes:
    - {id: server, role: aggregator, price_per_hour: 3600}
  groups:
    - {id: w, count: 4, parent: server, compute: {throughput: 1}}
data: {dataset: none, samples_per_trainer: 10}
model: {kind: none}
training: {batch_size: 1}
sync: {policy: fully-sync}
stop: {rounds: 100}
)");
        f.close();
        QProcess p;
        p.start(FOG_CLI, {"run", yaml, "--no-store", "--quiet", "--json", "--until", "round>=6"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(out.contains("\"rounds\": 6"), qPrintable(out));
        QVERIFY2(out.contains("condition reached: round 6 >= 6 at 6 s"), qPrintable(out));

        p.start(FOG_CLI, {"run", yaml, "--no-store", "--quiet", "--until", "rounds=six"});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("--until 'rounds=six': 'six' is not a number"), qPrintable(err));
    }

    void eventQueueOrderAndRefusals() {
        EventQueue q;
        std::string order;
        q.schedule(2.0, [&] { order += "b"; });
        q.scheduleStop(2.0, "stop");
        q.schedule(1.0, [&] { order += "a"; });
        q.schedule(2.0, [&] { order += "c"; }); // same time: scheduling order, before the stop
        QVERIFY(!q.idle());
        while (!q.empty()) {
            auto e = q.pop();
            if (e.isStop()) {
                order += "|" + e.reason;
                break;
            }
            e.fn();
        }
        QCOMPARE(QString::fromStdString(order), QString("abc|stop"));
        QCOMPARE(q.now(), 2.0);
        QVERIFY(q.idle()); // nothing but stops left
        QVERIFY_THROWS_EXCEPTION(EngineError, q.schedule(1.5, [] {}));
        QVERIFY_THROWS_EXCEPTION(EngineError, q.schedule(std::nan(""), [] {}));
        QVERIFY_THROWS_EXCEPTION(EngineError, q.scheduleStop(0.0, "past"));
        q.schedule(2.0, [] {}); // now itself is fine
    }

    void cancelledEventsKeepTheirPlace() {
        // A cancelled event's callback never runs, but the event still pops at its time and
        // in its place, as one event: what counts events and where a run ends stay those of
        // a timer that fires and does nothing (EventQueue::cancel).
        EventQueue q;
        std::string order;
        q.schedule(1.0, [&] { order += "a"; });
        const auto b = q.schedule(1.0, [&] { order += "b"; });
        q.schedule(1.0, [&] { order += "c"; });
        const auto late = q.schedule(5.0, [&] { order += "d"; });
        QVERIFY(b != 0 && late != 0 && b != late);
        q.cancel(b);
        q.cancel(late);
        q.cancel(late); // twice: nothing more
        QVERIFY(!q.idle()); // still pending
        int popped = 0;
        while (!q.empty()) {
            auto e = q.pop();
            ++popped;
            QVERIFY(!e.isStop());
            if (e.cancelled) {
                QVERIFY(!e.fn);
                order += "-";
                continue;
            }
            e.fn();
        }
        QCOMPARE(QString::fromStdString(order), QString("a-c-"));
        QCOMPARE(popped, 4);
        QCOMPARE(q.now(), 5.0); // the clock reaches the cancelled timer's time
        QVERIFY(q.idle());
        // An id that has popped names nothing: the next event in its slot is left alone.
        q.schedule(6.0, [&] { order += "e"; });
        q.cancel(b);
        q.cancel(late);
        q.cancel(0);
        auto e = q.pop();
        QVERIFY(!e.cancelled);
        e.fn();
        QCOMPARE(QString::fromStdString(order), QString("a-c-e"));
    }

    void cancelFreesTheSlotAndKeepsTheOrder() {
        // Cancelling frees the event's slot at once (size() drops, the next event takes the
        // slot instead of a new one); the other events keep their (time, seq) order, and the
        // cancelled one still pops at its own place as one event (EventQueue::cancel).
        EventQueue q;
        std::string order;
        std::vector<EventQueue::Id> ids;
        const char names[] = "abcdefgh";
        const double times[] = {3.0, 1.0, 2.0, 1.0, 3.0, 2.0, 1.0, 2.0};
        for (int i = 0; i < 8; ++i) ids.push_back(q.schedule(times[i], [&order, c = names[i]] { order += c; }));
        q.scheduleStop(2.0, "stop at 2");
        QCOMPARE(q.size(), std::size_t(9));
        const std::size_t slots = q.slots();
        QCOMPARE(slots, std::size_t(8));
        q.cancel(ids[3]); // d at 1
        QCOMPARE(q.size(), std::size_t(8));
        QCOMPARE(q.cancelledPending(), std::size_t(1));
        q.cancel(ids[5]); // f at 2
        q.cancel(ids[5]); // twice: nothing more
        QCOMPARE(q.size(), std::size_t(7));
        QCOMPARE(q.cancelledPending(), std::size_t(2));
        // Two new events take the two freed slots: the slab does not grow.
        ids.push_back(q.schedule(1.0, [&order] { order += "i"; }));
        ids.push_back(q.schedule(2.0, [&order] { order += "j"; }));
        QCOMPARE(q.slots(), slots);
        QCOMPARE(q.size(), std::size_t(9));
        q.cancel(ids[3]); // d's id names nothing now, though its slot holds i or j
        QCOMPARE(q.size(), std::size_t(9));
        // (time, seq): 1: b d- g i; 2: c f- h j, then the stop; 3: a e.
        int popped = 0;
        while (!q.empty()) {
            auto e = q.pop();
            ++popped;
            if (e.isStop()) {
                order += "|";
                continue;
            }
            if (e.cancelled) {
                QVERIFY(!e.fn);
                order += "-";
                continue;
            }
            e.fn();
        }
        QCOMPARE(QString::fromStdString(order), QString("b-gic-hj|ae"));
        QCOMPARE(popped, 11);
        QCOMPARE(q.size(), std::size_t(0));
        QCOMPARE(q.cancelledPending(), std::size_t(0));
        QVERIFY(q.idle());
    }

    void cancelledEventsStayOrderedAtScale() {
        // Many events through the calendar's buckets and rebuilds, every third one cancelled:
        // the live ones pop in (time, seq) order, each cancelled one at its own place, and the
        // slots held never exceed the live events.
        EventQueue q;
        std::set<std::pair<double, int>> live; // (time, id): ids grow with scheduling order
        std::vector<double> timeOf;
        std::map<int, double> cancelledAt;
        std::vector<EventQueue::Id> ids;
        int ran = -1;
        std::uint64_t state = 12345;
        auto next = [&state] {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return static_cast<double>(state >> 11) / 9007199254740992.0;
        };
        const int n = 20000;
        for (int i = 0; i < n; ++i) {
            const double t = std::floor(next() * 5000.0) / 4.0; // many equal times
            ids.push_back(q.schedule(t, [&ran, i] { ran = i; }));
            live.insert({t, i});
            timeOf.push_back(t);
            if (i % 3 == 2) {
                const int victim = i - 1;
                cancelledAt[victim] = timeOf[static_cast<std::size_t>(victim)];
                live.erase({timeOf[static_cast<std::size_t>(victim)], victim});
                q.cancel(ids[static_cast<std::size_t>(victim)]);
            }
        }
        QCOMPARE(q.size(), live.size());
        QCOMPARE(q.cancelledPending(), cancelledAt.size());
        // Each freed slot was taken by the next event: never more slots than live events + 1.
        QVERIFY2(q.slots() <= live.size() + 1, qPrintable(QString::number(q.slots())));
        std::set<std::pair<double, int>> all = live;
        for (const auto& [id, t] : cancelledAt) all.insert({t, id});
        for (const auto& [t, id] : all) {
            QCOMPARE(q.nextTime(), t);
            auto e = q.pop();
            QCOMPARE(e.t, t);
            if (cancelledAt.count(id)) {
                QVERIFY(e.cancelled);
                continue;
            }
            QVERIFY(!e.cancelled);
            e.fn();
            QCOMPARE(ran, id);
        }
        QVERIFY(q.empty());
    }

    void runEventNamesAreOneMapping() {
        // Every kind maps to its stored name and back; names are the events table's format.
        const std::pair<RunEventKind, const char*> stored[] = {
            {RunEventKind::Offline, "offline"},         {RunEventKind::Online, "online"},
            {RunEventKind::WorkLost, "work-lost"},      {RunEventKind::PartialWork, "partial-work"},
            {RunEventKind::Plan, "plan"},               {RunEventKind::Placement, "placement"},
            {RunEventKind::BudgetReached, "budget-reached"}, {RunEventKind::TargetReached, "target-reached"},
            {RunEventKind::NoProgress, "no-progress"},  {RunEventKind::NotShown, "not-shown"},
        };
        for (const auto& [kind, name] : stored) {
            QCOMPARE(QString(toString(kind)), QString(name));
            QCOMPARE(int(runEventKindFromString(name)), int(kind));
        }
        // A name this build does not know is kept, not lost.
        const RunEvent e = RunEvent::fromStored(1.0, "from-the-future", 3, "d");
        QCOMPARE(int(e.kind), int(RunEventKind::Other));
        QCOMPARE(QString::fromStdString(e.kindName()), QString("from-the-future"));
    }
};

QTEST_MAIN(TestConditions)
#include "test_conditions.moc"
