// Stop, pause and quit from the studio's run controller in every state (issue 10): a run
// that spins without progress, a paused run, a run stepping one round, a run at teaching
// speed. The requirement is 200 ms: the tests print the figure measured and assert on event
// counts (no round done, no event reached) and on bounds that no load reaches
// (tests/wall_bounds.h). The GUI thread must keep turning meanwhile.

#include "core/engine/condition.h"
#include "core/engine/run_control.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "engine_fixtures.h"
#include "event_loop_probe.h"
#include "wall_bounds.h"
#include "widgets/run/event_log.h"
#include "widgets/run/run_controller.h"
#include "widgets/run/run_status_line.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include <fstream>
#include <sstream>

using namespace fog;
using namespace fogtest;

namespace {

/// The tree of tests/data/scenarios/runaway_edge_nsync.yaml with work that can never be
/// delivered: 2000 phones online a second on average (offline 10 s), each gradient needing
/// exactly 100 s. It validates, and spins through availability events and lost work (millions of
/// events, seconds of wall time) before the engine's safety net ends it.
Scenario spinningRunaway() {
    Scenario s = loadScenarioFile(std::string(FOG_TEST_DATA) + "/scenarios/runaway_edge_nsync.yaml");
    s.data.kind = DataSpec::Kind::None;
    s.data.samplesPerTrainer = 10;
    s.model.kind = ModelSpec::Kind::None;
    s.sync = {"async", {}, {}, 0};
    NodeSpec& phones = s.topology.group(0);
    phones.count = 2000;
    phones.compute.throughput = Range::exactly(0.1);
    phones.compute.noise.kind = NoiseSpec::Kind::None; // no lucky short draws
    phones.availability.meanUpS = 1;
    phones.availability.meanDownS = 10;
    return s;
}

/// Rounds of exactly 1 virtual second, for ever (4 trainers, no noise).
Scenario steadyStar() {
    Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::None);
    s.sync.name = "fully-sync";
    s.stop.rounds = 0;
    s.stop.virtualTimeS = 1e12;
    return s;
}

/// What the studio's window does with the stream: keep it (so the drain's cost counts).
struct Sink {
    std::size_t records = 0, intervals = 0, events = 0;
    explicit Sink(RunController& c) {
        QObject::connect(&c, &RunController::metrics,
                         [this](const std::vector<AggregationRecord>& r) { records += r.size(); });
        QObject::connect(&c, &RunController::intervals,
                         [this](const std::vector<NodeInterval>& v) { intervals += v.size(); });
        QObject::connect(&c, &RunController::events, [this](const std::vector<RunEvent>& v) { events += v.size(); });
    }
};

/// A run that spins writes rows as fast as the engine turns; after Stop the run ends once
/// the store has written what it holds (the batch its writer is on, up to half a second of
/// production). The engine itself stops at once, and the GUI thread never waits. Spinning
/// cases are held to the same bound as the others: one no load reaches.
constexpr double kSpinningStopMs = kPromptMs;

/// Milliseconds from stop() to the finished signal.
double timeStop(RunController& c, QSignalSpy& finished) {
    QElapsedTimer t;
    t.start();
    c.stop();
    if (!finished.wait(static_cast<int>(kPromptMs) + 10000)) return 1e9;
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

} // namespace

class TestRunControl : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString db() const { return dir_.filePath("runs.db"); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void stopWhileSpinning() {
        RunController c;
        Sink sink(c);
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        EventLoopProbe probe;
        QVERIFY(c.start(spinningRunaway(), db(), 1));
        QVERIFY(started.wait(10000));
        probe.start();
        // Spinning: availability events by the hundred thousand; waited for by count, not for
        // a fixed time (a loaded machine may show none in the first 700 ms).
        QTest::qWait(700);
        QTRY_VERIFY_WITH_TIMEOUT(sink.events > 0, static_cast<int>(kPromptMs));
        const std::size_t seen = sink.events;
        const double ms = timeStop(c, finished);
        probe.stop();
        qInfo("stop while spinning: %.1f ms; GUI thread: %s; %zu events shown", ms, qPrintable(probe.report()), seen);
        QVERIFY2(ms < kSpinningStopMs, qPrintable(QString::number(ms)));
        const auto summary = finished.at(0).at(0).value<RunSummary>();
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(RunStatus::Cancelled));
        QVERIFY(seen > 0);
        QVERIFY2(probe.maxBlockedMs() < kGuiBlockedMs, qPrintable(probe.report()));
        RunStore store(db().toStdString());
        QCOMPARE(QString::fromStdString(store.run(finished.at(0).at(1).toLongLong())->status), QString("cancelled"));
    }

    void stopWhilePaused() {
        RunController c;
        Sink sink(c);
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        QVERIFY(c.start(steadyStar(), db(), 1));
        QVERIFY(started.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(sink.records > 0, 10000);
        c.pause();
        QCOMPARE(c.state(), RunController::State::Paused);
        QTest::qWait(200);
        const double ms = timeStop(c, finished);
        qInfo("stop while paused: %.1f ms", ms);
        QVERIFY2(ms < kPromptMs, qPrintable(QString::number(ms)));
        QCOMPARE(static_cast<int>(finished.at(0).at(0).value<RunSummary>().status), static_cast<int>(RunStatus::Cancelled));
    }

    void stopWhilePausedInASpin() {
        RunController c;
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        QVERIFY(c.start(spinningRunaway(), db(), 1));
        QVERIFY(started.wait(10000));
        QTest::qWait(200);
        c.pause();
        QCOMPARE(c.state(), RunController::State::Paused);
        QTest::qWait(200);
        const double ms = timeStop(c, finished);
        qInfo("stop while paused in a spinning run: %.1f ms", ms);
        QVERIFY2(ms < kSpinningStopMs, qPrintable(QString::number(ms)));
        QCOMPARE(static_cast<int>(finished.at(0).at(0).value<RunSummary>().status), static_cast<int>(RunStatus::Cancelled));
    }

    void stopWhileStepping() {
        // One round takes 100 wall seconds at this speed: Stop comes in the middle of the step,
        // and a stop that waited for the round's end would show as a round done.
        RunController c;
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        c.setPlaybackSpeed(0.01);
        c.pause();
        QVERIFY(c.start(steadyStar(), db(), 1));
        QVERIFY(started.wait(10000));
        c.stepRound();
        QTest::qWait(300);
        const double ms = timeStop(c, finished);
        qInfo("stop while stepping: %.1f ms", ms);
        QVERIFY2(ms < kPromptMs, qPrintable(QString::number(ms)));
        QCOMPARE(static_cast<int>(finished.at(0).at(0).value<RunSummary>().status), static_cast<int>(RunStatus::Cancelled));
        QCOMPARE(finished.at(0).at(0).value<RunSummary>().rounds, 0);
    }

    void stopAtTeachingSpeed() {
        // 0.01 virtual seconds per wall second: the next event is 100 wall seconds away.
        RunController c;
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        c.setPlaybackSpeed(0.01);
        QVERIFY(c.start(steadyStar(), db(), 1));
        QVERIFY(started.wait(10000));
        QTest::qWait(300);
        const double ms = timeStop(c, finished);
        qInfo("stop at teaching speed: %.1f ms", ms);
        QVERIFY2(ms < kPromptMs, qPrintable(QString::number(ms)));
        QCOMPARE(finished.at(0).at(0).value<RunSummary>().rounds, 0);
    }

    void pauseAndResumeTakeEffectAtOnce() {
        RunController c;
        Sink sink(c);
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        QVERIFY(c.start(steadyStar(), db(), 1));
        QVERIFY(started.wait(10000));
        QTRY_VERIFY_WITH_TIMEOUT(sink.records > 0, 10000);
        c.pause();
        QCOMPARE(c.state(), RunController::State::Paused);
        // What was produced before the pause arrives (on a loaded machine, later than 300 ms):
        // wait until the count settles, then it must stay.
        std::size_t paused = sink.records;
        for (int i = 0; i < 60; ++i) {
            QTest::qWait(300);
            if (sink.records == paused) break;
            paused = sink.records;
        }
        QTest::qWait(300);
        QCOMPARE(sink.records, paused);

        QElapsedTimer t;
        t.start();
        c.resume();
        QCOMPARE(c.state(), RunController::State::Running);
        QTRY_VERIFY_WITH_TIMEOUT(sink.records > paused, static_cast<int>(kPromptMs));
        qInfo("rounds again %lld ms after resume (the GUI drains every 33 ms)", static_cast<long long>(t.elapsed()));
        QVERIFY(timeStop(c, finished) < kPromptMs);
    }

    void runUntilSetBeforeTheStartSaysWhatHeld() {
        // The condition lives in the run's control: set before start(), it applies to the
        // run; it pauses where the clock reaches 5.5 s (every event at 5 s done, the next at 6)
        // and says what held; resuming runs on without it.
        RunController c;
        Sink sink(c);
        QSignalSpy reached(&c, &RunController::runUntilReached);
        QSignalSpy finished(&c, &RunController::finished);
        c.runUntil(parseCondition("time>=5.5", "test"));
        QVERIFY(c.runUntilCondition().has_value());
        QVERIFY(c.start(steadyStar(), db(), 1));
        QTRY_VERIFY_WITH_TIMEOUT(c.state() == RunController::State::Paused, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(reached.count(), 1, 5000);
        QCOMPARE(reached.at(0).at(0).toString(), QString("time 5.5 s >= 5.5 s at round 5"));
        QTest::qWait(200);
        QCOMPARE(sink.records, std::size_t(5));
        QVERIFY(!c.runUntilCondition().has_value()); // used up
        c.resume();
        QCOMPARE(c.state(), RunController::State::Running);
        QTRY_VERIFY_WITH_TIMEOUT(sink.records >= 8, 10000);
        QCOMPARE(reached.count(), 1);
        QVERIFY(timeStop(c, finished) < kPromptMs);
    }

    // ---- why it paused, step one event, the event log (issue 15) ----

    void pauseReasonsOfTheControlAlone() {
        // No engine: the engine-side calls by hand, as the engine makes them.
        RunControl c;
        QCOMPARE(static_cast<int>(c.pauseReason().cause), static_cast<int>(RunControl::PauseCause::None));
        QVERIFY(c.pauseReason().text.empty());
        c.pause();
        QCOMPARE(QString::fromStdString(c.pauseReason().text), QString("paused by you before the first event"));
        c.stepRound();
        QVERIFY(!c.isPaused());
        c.setClock(2.5);
        c.eventHandled(); // a round step does not end at an event
        QVERIFY(!c.isPaused());
        c.roundCompleted();
        QVERIFY(c.isPaused());
        QCOMPARE(QString::fromStdString(c.pauseReason().text), QString("paused after round 1 (t = 2.5 s)"));
        c.pause(); // already paused: the reason stays
        QCOMPARE(static_cast<int>(c.pauseReason().cause), static_cast<int>(RunControl::PauseCause::StepRound));
        c.stepEvent();
        QVERIFY(!c.isPaused());
        c.setClock(3.25);
        c.roundCompleted(); // an event step does not end at a round: at the event after it
        QVERIFY(!c.isPaused());
        c.eventHandled();
        QVERIFY(c.isPaused());
        QCOMPARE(QString::fromStdString(c.pauseReason().text), QString("paused after one event at t = 3.25 s (round 2)"));
        c.resume();
        c.eventHandled(); // not stepping: nothing
        QVERIFY(!c.isPaused());
        QCOMPARE(static_cast<int>(c.pauseReason().cause), static_cast<int>(RunControl::PauseCause::None));
        c.pause();
        QCOMPARE(QString::fromStdString(c.pauseReason().text), QString("paused by you at round 2 (t = 3.25 s)"));
        c.runUntil(parseCondition("round>=3", "test"));
        QVERIFY(!c.isPaused());
        RunProgress p;
        p.round = 3;
        p.time = 4.0;
        QVERIFY(c.conditionHeld(*c.condition(), p).has_value());
        QVERIFY(c.isPaused());
        QCOMPARE(static_cast<int>(c.pauseReason().cause), static_cast<int>(RunControl::PauseCause::Condition));
        QCOMPARE(c.pauseReason().text, c.takeReached());
    }

    void stepOneEventAtATime() {
        // Rounds of 1 s with 4 trainers: each round is 4 dispatches at its start and 4 arrivals
        // at its end. Stepping event by event pauses after each, with the log growing and the
        // status saying where it stands.
        RunController c;
        EventLog log;
        QObject::connect(&c, &RunController::started, &log, [&log](const RunInfo& i) { log.reset(i.nodes); });
        QObject::connect(&c, &RunController::log, &log, &EventLog::append);
        QSignalSpy why(&c, &RunController::pausedBecause);
        QSignalSpy finished(&c, &RunController::finished);
        c.pause();
        QVERIFY(c.start(steadyStar(), db(), 1));
        QCOMPARE(c.state(), RunController::State::Paused);
        QTRY_VERIFY_WITH_TIMEOUT(!c.runInfo().nodes.empty(), 10000);
        QString last;
        for (int step = 0; step < 8; ++step) {
            const int before = why.count();
            c.stepEvent();
            QTRY_VERIFY_WITH_TIMEOUT(why.count() > before && c.state() == RunController::State::Paused, 5000);
            last = why.last().at(0).toString();
            QVERIFY2(last.startsWith("paused after one event at t = "), qPrintable(last));
            QCOMPARE(c.pauseReason(), last);
        }
        QTest::qWait(100); // the last batch
        // The 4 dispatches of round 1 happen as the run starts, before the first event; then
        // each event is one arrival (4 per round, the 4th aggregates and dispatches again).
        // 8 events: up to 2 rounds, never more.
        const EventLogModel* m = log.model();
        int dispatches = 0, arrivals = 0, rounds = 0;
        double t = -1;
        for (int r = 0; r < m->rowCount(); ++r) {
            const LogEntry* e = m->entryAt(r);
            if (e->kind == LogKind::Note) continue;
            QVERIFY2(e->time >= t, "the log is in virtual-time order");
            t = e->time;
            dispatches += e->kind == LogKind::Dispatch;
            arrivals += e->kind == LogKind::Arrival;
            rounds += e->kind == LogKind::Aggregation;
            if (e->kind == LogKind::Arrival) QCOMPARE(m->nodeName(e->peer), QString("server"));
        }
        qInfo("after 8 event steps: %d dispatches, %d arrivals, %d rounds; status '%s'", dispatches, arrivals, rounds,
              qPrintable(last));
        QVERIFY(dispatches >= 4);
        QVERIFY(arrivals >= 1);
        QVERIFY(arrivals <= 8);
        QVERIFY(rounds >= 1);
        QVERIFY(rounds <= 2);
        // A round step after event steps: pauses at the next aggregation, and says so.
        const int before = why.count();
        c.stepRound();
        QTRY_VERIFY_WITH_TIMEOUT(why.count() > before, 5000);
        QVERIFY2(why.last().at(0).toString().startsWith("paused after round "), qPrintable(why.last().at(0).toString()));
        QVERIFY(timeStop(c, finished) < kPromptMs);
    }

    void stopWhileSteppingOneEvent() {
        // At 0.01 virtual seconds per wall second the first arrival is 100 wall seconds away:
        // Stop comes while the event step waits for it, and must not wait for it.
        RunController c;
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        c.setPlaybackSpeed(0.01);
        c.pause();
        QVERIFY(c.start(steadyStar(), db(), 1));
        QVERIFY(started.wait(10000));
        c.stepEvent(); // the first event is the first arrival, at t = 1: 100 wall seconds away
        QTest::qWait(300);
        QCOMPARE(c.state(), RunController::State::Running);
        const double ms = timeStop(c, finished);
        qInfo("stop while stepping one event: %.1f ms", ms);
        QVERIFY2(ms < kPromptMs, qPrintable(QString::number(ms)));
        QCOMPARE(static_cast<int>(finished.at(0).at(0).value<RunSummary>().status), static_cast<int>(RunStatus::Cancelled));
        QCOMPARE(finished.at(0).at(0).value<RunSummary>().rounds, 0);
    }

    void statusLineSaysWhyItPausedAndEnded() {
        RunController c;
        RunStatusLine line(&c);
        QSignalSpy finished(&c, &RunController::finished);
        c.runUntil(parseCondition("round>=3", "test"));
        QVERIFY(c.start(steadyStar(), db(), 1));
        QTRY_VERIFY_WITH_TIMEOUT(c.state() == RunController::State::Paused, 10000);
        QVERIFY2(line.text().startsWith("Paused: round 3 >= 3 at "), qPrintable(line.text()));
        c.stepRound();
        QCOMPARE(line.text(), QString("Stepping to the end of round 4…"));
        QTRY_COMPARE_WITH_TIMEOUT(line.text(), QString("Paused after round 4 (t = 4 s)"), 5000);
        c.pause(); // already paused by the step: the step's reason stays
        QCOMPARE(line.text(), QString("Paused after round 4 (t = 4 s)"));
        c.resume();
        QCOMPARE(line.text(), QString("Running"));
        QTest::qWait(50);
        c.pause();
        QVERIFY2(line.text().startsWith("Paused by you at round "), qPrintable(line.text()));
        QVERIFY(timeStop(c, finished) < kPromptMs);
        QVERIFY2(line.text().startsWith("Stopped by you at round "), qPrintable(line.text()));

        // A stop rule: the run ends by itself and the line says which rule.
        Scenario s = steadyStar();
        s.stop.rounds = 5;
        finished.clear();
        QVERIFY(c.start(s, db(), 1));
        QVERIFY(finished.wait(10000));
        const auto summary = finished.at(0).at(0).value<RunSummary>();
        QCOMPARE(line.text(), RunStatusLine::endText(summary));
        QVERIFY2(line.text().startsWith("Finished: ") && line.text().contains(QString::fromStdString(summary.stopReason)),
                 qPrintable(line.text()));
    }

    void pauseAtTeachingSpeedNamesTheInstantItHolds() {
        // At 2 virtual seconds per wall second the clock glides between events a second
        // apart; a pause pressed between two stands at the event the engine was pacing to
        // (where an intervention sent now is applied), and the status line and the reason
        // name that instant, not the glide's instant at the press (seen: "paused at t =
        // 12.4661 s" over a menu that said "at t = 13.0 s").
        RunController c;
        RunStatusLine line(&c);
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        c.setPlaybackSpeed(2.0);
        QVERIFY(c.start(steadyStar(), db(), 1));
        QVERIFY(started.wait(10000));
        // Between events: the glide is at least 0.2 s past a whole second and short of the next.
        QTRY_VERIFY_WITH_TIMEOUT(c.runClock() > 1.2 && std::fmod(c.runClock(), 1.0) > 0.2 &&
                                     std::fmod(c.runClock(), 1.0) < 0.6,
                                 10000);
        QVERIFY(c.holdStill(5000));
        const double held = c.runClock();
        QTest::qWait(200);
        QCOMPARE(c.runClock(), held); // stands still
        QCOMPARE(held, std::round(held)); // at an event (whole seconds)
        const QString at = QStringLiteral("(t = %1 s)").arg(held, 0, 'g', 6);
        QTRY_VERIFY2_WITH_TIMEOUT(line.text().endsWith(at), qPrintable(line.text() + " / " + at), 2000);
        QVERIFY2(line.text().startsWith("Paused by you at round "), qPrintable(line.text()));
        QVERIFY(timeStop(c, finished) < kPromptMs);
    }

    void eventLogStaysBoundedAndFast() {
        // 100,000 events in batches as the controller hands them (20,000 at most a batch)
        // into a log that keeps 30,000: the oldest go, the newest stay, in order. Timings are
        // printed, not asserted.
        EventLog log;
        log.resize(900, 300);
        log.show();
        std::vector<NodeInfo> nodes(3);
        nodes[0].id = "server";
        nodes[1].id = "w-0";
        nodes[2].id = "w-1";
        log.reset(nodes);
        log.model()->setCapacity(30000);
        QElapsedTimer t;
        t.start();
        double worst = 0;
        for (int b = 0; b < 10; ++b) {
            std::vector<LogEntry> batch(10000);
            for (int i = 0; i < 10000; ++i) {
                LogEntry& e = batch[static_cast<std::size_t>(i)];
                e.time = b * 10000 + i;
                e.kind = i % 2 ? LogKind::Dispatch : LogKind::Arrival;
                e.node = 1 + i % 2;
                e.peer = 0;
                e.job = static_cast<std::uint64_t>(b * 10000 + i);
            }
            QElapsedTimer one;
            one.start();
            log.append(batch);
            QCoreApplication::processEvents();
            worst = std::max(worst, one.nsecsElapsed() / 1e6);
        }
        qInfo("100,000 events in 10 batches: %.1f ms in all, %.1f ms for the slowest batch (drawn)", t.nsecsElapsed() / 1e6,
              worst);
        const EventLogModel* m = log.model();
        QVERIFY(m->kept() <= 30000);
        QCOMPARE(static_cast<std::uint64_t>(m->kept()) + m->dropped(), std::uint64_t(100000));
        QCOMPARE(m->rowCount(), static_cast<int>(m->kept()));
        QCOMPARE(m->entryAt(m->rowCount() - 1)->time, 99999.0);
        QCOMPARE(m->entryAt(0)->time, static_cast<double>(m->dropped()));
        // Filters show a part and come back whole.
        log.model()->setFilter(EventLogModel::Rounds);
        QCOMPARE(m->rowCount(), 0);
        log.model()->setFilter(EventLogModel::Messages);
        QCOMPARE(m->rowCount(), static_cast<int>(m->kept()));
        QVERIFY(log.findChild<QLabel*>("eventLogCount")->text().contains("dropped"));
        QCOMPARE(m->data(m->index(m->rowCount() - 1, EventLogModel::NodeColumn)).toString(), QString("w-1"));
        QVERIFY(m->data(m->index(m->rowCount() - 1, EventLogModel::DetailColumn)).toString().contains("server"));
    }

    void eventLogDuringASpinKeepsTheWindowFluid() {
        // The spinning runaway makes availability events by the hundred thousand a second,
        // all of them for the event log: the log fills to its capacity and drops the oldest,
        // and the GUI thread keeps turning (same bound as stopWhileSpinning).
        RunController c;
        EventLog log;
        log.resize(900, 300);
        log.show();
        QObject::connect(&c, &RunController::started, &log, [&log](const RunInfo& i) { log.reset(i.nodes); });
        QObject::connect(&c, &RunController::log, &log, &EventLog::append);
        QSignalSpy started(&c, &RunController::started);
        QSignalSpy finished(&c, &RunController::finished);
        EventLoopProbe probe;
        QVERIFY(c.start(spinningRunaway(), db(), 1));
        QVERIFY(started.wait(10000));
        probe.start();
        QTest::qWait(1500);
        probe.stop();
        const std::uint64_t seen = log.model()->kept() + log.model()->dropped();
        qInfo("event log during a spin: %llu rows in 1.5 s (%zu kept, %llu dropped); GUI thread: %s",
              static_cast<unsigned long long>(seen), log.model()->kept(),
              static_cast<unsigned long long>(log.model()->dropped()), qPrintable(probe.report()));
        QVERIFY(timeStop(c, finished) < kSpinningStopMs);
        QVERIFY(seen > 1000);
        QVERIFY(log.model()->kept() <= EventLogModel::kDefaultCapacity);
        QVERIFY2(probe.maxBlockedMs() < kGuiBlockedMs, qPrintable(probe.report()));
    }

    void quitWhileSpinning() {
        // Quitting destroys the controller: it cancels and waits for the run's thread.
        auto* c = new RunController;
        QSignalSpy started(c, &RunController::started);
        QVERIFY(c->start(spinningRunaway(), db(), 1));
        QVERIFY(started.wait(10000));
        QTest::qWait(300);
        QElapsedTimer t;
        t.start();
        delete c;
        qInfo("quit while spinning: %lld ms", static_cast<long long>(t.elapsed()));
        QVERIFY(t.elapsed() < kSpinningStopMs);
    }

    void spinningRunEndsByItselfWithNoProgress() {
        // The same runaway, left alone, is ended by the safety net and stored as failed.
        Scenario s = spinningRunaway();
        s.topology.group(0).count = 20;
        RunController c;
        QSignalSpy finished(&c, &RunController::finished);
        QSignalSpy errors(&c, &RunController::error);
        QVERIFY(c.start(s, db(), 1));
        QVERIFY(finished.wait(kRunEndsMs));
        const auto summary = finished.at(0).at(0).value<RunSummary>();
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(RunStatus::Failed));
        QVERIFY2(summary.stopReason.rfind("no progress: ", 0) == 0, summary.stopReason.c_str());
        QCOMPARE(errors.size(), 1);
        QVERIFY(errors.at(0).at(0).toString().contains("no progress"));
        RunStore store(db().toStdString());
        const auto run = store.run(finished.at(0).at(1).toLongLong());
        QCOMPARE(QString::fromStdString(run->status), QString("failed"));
    }
};

QTEST_MAIN(TestRunControl)
#include "test_run_control.moc"
