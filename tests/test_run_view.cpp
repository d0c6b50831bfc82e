// The run view: the run controller (engine off the GUI thread, stored like the CLI stores
// runs, pause / step / run until / stop, playback speed), the live plot panel, the node
// timeline, the closed-form expected round time, and the window's responsiveness while a
// heavy run goes on.

#include "core/analysis/closed_form.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "engine_fixtures.h"
#include "widgets/plots/live_plots.h"
#include "widgets/plots/node_timeline.h"
#include "event_loop_probe.h"
#include "wall_bounds.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/run/run_controller.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace fog;
using namespace fogtest;

namespace {

/// Collects what a controller hands to the GUI thread.
struct Sink {
    std::vector<AggregationRecord> records;
    std::vector<NodeInterval> intervals;
    std::vector<ActivityFrame> frames;
    int metricBatches = 0;
    RunInfo info;
    qint64 startedId = 0;

    explicit Sink(RunController& c) {
        QObject::connect(&c, &RunController::metrics, [this](const std::vector<AggregationRecord>& r) {
            records.insert(records.end(), r.begin(), r.end());
            ++metricBatches;
        });
        QObject::connect(&c, &RunController::intervals, [this](const std::vector<NodeInterval>& v) {
            intervals.insert(intervals.end(), v.begin(), v.end());
        });
        QObject::connect(&c, &RunController::activity, [this](const ActivityFrame& f) { frames.push_back(f); });
        QObject::connect(&c, &RunController::started, [this](const RunInfo& i, qint64 id) {
            info = i;
            startedId = id;
        });
    }
    int rounds() const {
        int n = 0;
        for (const auto& r : records) n += r.level == 0;
        return n;
    }
};

/// Screenshots go to $FOG_SCREENSHOT_DIR (docs, the README) or the temporary folder.
QString screenshotPath(const QString& name) {
    return QDir(qEnvironmentVariable("FOG_SCREENSHOT_DIR", QDir::tempPath())).filePath(name);
}

/// A star whose rounds take exactly 1 virtual second (4 trainers, no noise).
Scenario steadyStar(int rounds) {
    Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::None);
    s.sync.name = "fully-sync";
    s.stop.rounds = rounds;
    return s;
}

} // namespace

class TestRunView : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString db() const { return dir_.filePath("runs.db"); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        registerRunMetaTypes();
    }

    // ---- closed forms

    void expectedRoundTimeKnownValues() {
        QCOMPARE(harmonicNumber(0), 0.0);
        QCOMPARE(harmonicNumber(1), 1.0);
        QVERIFY(std::abs(harmonicNumber(3) - 11.0 / 6.0) < 1e-12);
        QVERIFY(std::abs(expectedRoundTime(BarrierKind::FullySync, 3, 0, 1.0) - 11.0 / 6.0) < 1e-12);
        QVERIFY(std::abs(expectedRoundTime(BarrierKind::FullySync, 10, 0, 4.0) - 7381.0 / 2520.0 / 4.0) < 1e-12);
        // First 3 of 8: 1/8 + 1/7 + 1/6.
        QVERIFY(std::abs(expectedRoundTime(BarrierKind::FirstK, 8, 3, 1.0) - (1.0 / 8 + 1.0 / 7 + 1.0 / 6)) < 1e-12);
        QVERIFY(std::abs(expectedRoundTime(BarrierKind::FirstK, 6, 6, 2.0) - harmonicNumber(6) / 2.0) < 1e-12);
        QVERIFY(std::abs(expectedRoundTime(BarrierKind::FirstBatches, 4, 6, 1.0) - 1.5) < 1e-12);
        QVERIFY(std::abs(expectedRoundTime(BarrierKind::FirstBatches, 5, 2, 3.0) - 2.0 / 15.0) < 1e-12);
        QVERIFY(std::abs(expectedRoundTime(BarrierKind::FullySync, 5, 0, 1.0 / 0.6, 0.4) - (0.4 + 0.6 * harmonicNumber(5))) <
                1e-12);
        QVERIFY(std::isnan(expectedRoundTime(BarrierKind::FirstK, 3, 4, 1.0)));
        QVERIFY(std::isnan(expectedRoundTime(BarrierKind::FullySync, 0, 0, 1.0)));
        QVERIFY(std::isnan(expectedRoundTime(BarrierKind::FullySync, 3, 0, 0.0)));
    }

    void closedFormFromScenario_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("param");
        QTest::addColumn<int>("noise");
        QTest::addColumn<double>("expected"); // NaN: no closed form
        const int exp = static_cast<int>(NoiseSpec::Kind::Exponential);
        const int shifted = static_cast<int>(NoiseSpec::Kind::ShiftedExponential);
        const int lognormal = static_cast<int>(NoiseSpec::Kind::LogNormal);
        // 5 trainers at 2 samples/s, batch 1: lambda = 2.
        QTest::newRow("fully-sync") << "fully-sync" << 0 << exp << harmonicNumber(5) / 2.0;
        QTest::newRow("n-sync 3 of 5") << "n-sync" << 3 << exp << (harmonicNumber(5) - harmonicNumber(2)) / 2.0;
        QTest::newRow("n-batch-sync m=4") << "n-batch-sync" << 4 << exp << 4.0 / (5 * 2.0);
        // Shift 0.4 of a mean step of 0.5 s: 0.2 s + H_5 / (2 / 0.6).
        QTest::newRow("shifted fully-sync") << "fully-sync" << 0 << shifted << 0.2 + 0.6 * harmonicNumber(5) / 2.0;
        QTest::newRow("fedavg") << "fedavg" << 0 << exp << kNaN;
        QTest::newRow("log-normal") << "fully-sync" << 0 << lognormal << kNaN;
    }
    void closedFormFromScenario() {
        QFETCH(QString, policy);
        QFETCH(int, param);
        QFETCH(int, noise);
        QFETCH(double, expected);
        Scenario s = timingStar(5, 2.0, static_cast<NoiseSpec::Kind>(noise));
        s.topology.group(0).compute.noise.shift = 0.4;
        s.sync.name = policy.toStdString();
        if (policy == "n-sync") s.sync.params["n"] = param;
        if (policy == "n-batch-sync") s.sync.params["m"] = param;
        const ClosedFormRoundTime c = closedFormRoundTime(s);
        if (std::isnan(expected)) {
            QVERIFY(!c.applies);
            QVERIFY(!c.why.empty());
            QVERIFY(std::isnan(c.seconds));
        } else {
            QVERIFY2(c.applies, c.why.c_str());
            QVERIFY2(std::abs(c.seconds - expected) < 1e-12, qPrintable(QString("%1 vs %2").arg(c.seconds).arg(expected)));
            QVERIFY(!c.formula.empty());
        }
    }

    void closedFormNeedsFreeLinksAndOneStep() {
        Scenario s = timingStar(5, 2.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        QVERIFY(closedFormRoundTime(s).applies);
        Scenario linked = s;
        linked.topology.hasDefaultLink = true;
        linked.topology.defaultLink.latencyMs = 10;
        QVERIFY(!closedFormRoundTime(linked).applies);
        QVERIFY(QString::fromStdString(closedFormRoundTime(linked).why).contains("communication"));
        Scenario steps = s;
        steps.training.localSteps = 3;
        QVERIFY(!closedFormRoundTime(steps).applies);
        Scenario sampled = s;
        sampled.selection.name = "random-k";
        sampled.selection.params["k"] = 3;
        QVERIFY(std::abs(closedFormRoundTime(sampled).seconds - harmonicNumber(3) / 2.0) < 1e-12);
    }

    // ---- the controller

    void runsToCompletionAndStores() {
        RunController c;
        Sink sink(c);
        QSignalSpy finished(&c, &RunController::finished);
        QSignalSpy states(&c, &RunController::stateChanged);
        Scenario s = steadyStar(20);
        s.name = "complete";
        QVERIFY(c.start(s, db(), 2));
        QCOMPARE(c.state(), RunController::State::Running);
        QVERIFY(finished.wait(30000));
        QCOMPARE(c.state(), RunController::State::Finished);
        const auto summary = finished.at(0).at(0).value<RunSummary>();
        const qint64 id = finished.at(0).at(1).toLongLong();
        QCOMPARE(summary.status, RunStatus::Finished);
        QCOMPARE(summary.rounds, 20);
        QVERIFY(id > 0);
        QCOMPARE(sink.startedId, id);
        QCOMPARE(static_cast<int>(sink.info.nodes.size()), 5);
        QCOMPARE(sink.rounds(), 20);
        QVERIFY(!sink.intervals.empty());
        QVERIFY(states.count() >= 1);

        RunStore store(db().toStdString());
        const auto run = store.run(id);
        QVERIFY(run.has_value());
        QCOMPARE(QString::fromStdString(run->status), QString("finished"));
        QCOMPARE(QString::fromStdString(run->name), QString("complete"));
        QCOMPARE(run->seed, s.seed);
        QVERIFY(QString::fromStdString(run->scenarioYaml).contains("fully-sync"));
        const auto metrics = store.metrics(id);
        QCOMPARE(static_cast<int>(metrics.size()), 20);
        QCOMPARE(metrics.back().time, sink.records.back().time);
        QCOMPARE(store.intervals(id).size(), sink.intervals.size());
    }

    void pauseStepResumeStop() {
        RunController c;
        Sink sink(c);
        QSignalSpy finished(&c, &RunController::finished);
        c.setPlaybackSpeed(10); // 10 rounds a wall second
        QVERIFY(c.start(steadyStar(100000), db(), 1));
        QTRY_VERIFY_WITH_TIMEOUT(sink.rounds() >= 2, 10000);
        c.pause();
        QCOMPARE(c.state(), RunController::State::Paused);
        QTest::qWait(300); // what was under way when the pause came arrives
        const int paused = sink.rounds();
        QTest::qWait(400);
        QCOMPARE(sink.rounds(), paused);

        c.stepRound();
        QTRY_VERIFY_WITH_TIMEOUT(sink.rounds() == paused + 1 && c.state() == RunController::State::Paused, 10000);
        QTest::qWait(400);
        QCOMPARE(sink.rounds(), paused + 1);

        c.resume();
        QCOMPARE(c.state(), RunController::State::Running);
        QTRY_VERIFY_WITH_TIMEOUT(sink.rounds() >= paused + 3, 10000);

        c.stop();
        QVERIFY(finished.wait(10000));
        QCOMPARE(c.state(), RunController::State::Cancelled);
        const auto summary = finished.at(0).at(0).value<RunSummary>();
        QCOMPARE(summary.status, RunStatus::Cancelled);
        RunStore store(db().toStdString());
        QCOMPARE(QString::fromStdString(store.run(finished.at(0).at(1).toLongLong())->status), QString("cancelled"));
    }

    void stepRightAfterStart() {
        // What the Step button does on an idle window: start, then step at once (the engine
        // may still be being built).
        RunController c;
        Sink sink(c);
        QSignalSpy finished(&c, &RunController::finished);
        c.setPlaybackSpeed(4);
        QVERIFY(c.start(steadyStar(1000), db(), 1));
        c.stepRound();
        QTRY_VERIFY_WITH_TIMEOUT(c.state() == RunController::State::Paused, 10000);
        QTest::qWait(400);
        QCOMPARE(sink.rounds(), 1);
        c.stop();
        QVERIFY(finished.wait(10000));
    }

    void runUntilPausesAtOnce_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("value");
        QTest::newRow("round 3") << static_cast<int>(RunController::Until::Round) << 3.0;
        QTest::newRow("budget 5") << static_cast<int>(RunController::Until::Budget) << 5.0;
    }
    void runUntilPausesAtOnce() {
        QFETCH(int, kind);
        QFETCH(double, value);
        const auto until = static_cast<RunController::Until>(kind);
        RunController c;
        Sink sink(c);
        QSignalSpy reached(&c, &RunController::runUntilReached);
        QSignalSpy finished(&c, &RunController::finished);
        Scenario s = steadyStar(100000);
        s.topology.nodes[0].pricePerHour = 3600.0; // the server costs 1 per virtual second
        c.runUntil(until, value);
        QVERIFY(c.start(s, db(), 1)); // as fast as possible: a late pause would overshoot by far
        QTRY_VERIFY_WITH_TIMEOUT(c.state() == RunController::State::Paused, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(reached.count(), 1, 5000);
        QTest::qWait(300);
        if (until == RunController::Until::Round) {
            QCOMPARE(sink.rounds(), 3);
        } else {
            // Pauses at the dispatch where the cost first reaches 5: during round 5 or 6.
            QVERIFY2(sink.rounds() >= 4 && sink.rounds() <= 6, qPrintable(QString::number(sink.rounds())));
        }
        QCOMPARE(c.state(), RunController::State::Paused);
        // Resuming runs on (the condition was used up).
        c.resume();
        QTRY_VERIFY_WITH_TIMEOUT(sink.rounds() >= 10, 10000);
        c.stop();
        QVERIFY(finished.wait(10000));
    }

    void playbackSpeedChangesMidRun() {
        RunController c;
        Sink sink(c);
        QSignalSpy finished(&c, &RunController::finished);
        Scenario s = steadyStar(60);
        // Links with latency, so that messages are in flight between the nodes.
        s.topology.hasDefaultLink = true;
        s.topology.defaultLink.latencyMs = 200;
        c.setPlaybackSpeed(2.0); // 1.4 virtual s a round: at most ~1.5 rounds a wall second
        QElapsedTimer wall;
        wall.start();
        QVERIFY(c.start(s, db(), 1));
        QTest::qWait(1500);
        const int slow = sink.rounds();
        // At 2 virtual s per wall second, 60 rounds would take 42 s.
        QVERIFY2(slow <= 3, qPrintable(QString::number(slow)));
        QVERIFY(!sink.frames.empty());
        bool computing = false, messages = false;
        for (const auto& f : sink.frames) {
            QCOMPARE(static_cast<int>(f.states.size()), 5);
            for (auto st : f.states) computing = computing || st == NodeState::Computing;
            for (const auto& m : f.messages) {
                QVERIFY(m.progress >= 0.0 && m.progress <= 1.0);
                QVERIFY((m.from == 0) == m.modelDown);
                messages = true;
            }
        }
        QVERIFY(computing);
        QVERIFY(messages);
        c.setPlaybackSpeed(0); // as fast as possible from here
        QVERIFY(finished.wait(40000));
        QCOMPARE(sink.rounds(), 60);
        // At the old speed the rest would take about 40 s more; as fast as possible, a few
        // milliseconds: 30 s cannot be reached by load, only by a speed that did not apply.
        qInfo("60 rounds ended %lld ms after the start", static_cast<long long>(wall.elapsed()));
        QVERIFY2(wall.elapsed() < 30000, "the new speed did not apply during the run");
    }

    void refusedScenarioGivesAnError() {
        RunController c;
        QSignalSpy errors(&c, &RunController::error);
        QSignalSpy finished(&c, &RunController::finished);
        Scenario s = steadyStar(5);
        // A server with no trainer: the engine refuses it.
        s.topology.nodes.erase(std::remove_if(s.topology.nodes.begin(), s.topology.nodes.end(),
                                              [](const NodeSpec& n) { return n.group; }),
                               s.topology.nodes.end());
        QVERIFY(c.start(s, db(), 1));
        QVERIFY(finished.wait(10000));
        QCOMPARE(c.state(), RunController::State::Failed);
        QCOMPARE(errors.count(), 1);
        const QString message = errors.at(0).at(0).toString();
        QVERIFY2(message.contains("no trainer"), qPrintable(message));
        QCOMPARE(finished.at(0).at(0).value<RunSummary>().status, RunStatus::Failed);
        // The controller is usable again.
        QVERIFY(c.start(steadyStar(2), db(), 1));
        QVERIFY(finished.wait(10000));
        QCOMPARE(c.state(), RunController::State::Finished);
    }

    void secondStartWhileRunningIsRefused() {
        RunController c;
        QSignalSpy errors(&c, &RunController::error);
        QSignalSpy finished(&c, &RunController::finished);
        c.setPlaybackSpeed(5);
        QVERIFY(c.start(steadyStar(1000), db(), 1));
        QVERIFY(!c.start(steadyStar(5), db(), 1));
        QCOMPARE(errors.count(), 1);
        c.stop();
        QVERIFY(finished.wait(10000));
    }

    // ---- the panels

    void panelsReceiveBatchedMetrics() {
        RunController c;
        Sink sink(c);
        LivePlots plots;
        NodeTimeline timeline;
        plots.resize(1000, 500);
        timeline.resize(800, 300);
        Scenario s;
        s.name = "barriers";
        s.seed = 3;
        // Three trainers of different speeds, fully-sync: the slowest holds every barrier.
        s.topology.nodes.push_back(makeNode("server", Role::Aggregator, ""));
        s.topology.nodes.push_back(makeNode("fast", Role::Trainer, "server", 4.0));
        s.topology.nodes.push_back(makeNode("slow", Role::Trainer, "server", 1.0));
        s.topology.nodes.push_back(makeNode("mid", Role::Trainer, "server", 2.0));
        s.data.kind = DataSpec::Kind::None;
        s.data.samplesPerTrainer = 100;
        s.model.kind = ModelSpec::Kind::None;
        s.training.batchSize = 1;
        s.sync.name = "fully-sync";
        s.stop.rounds = 3000;
        connect(&c, &RunController::started, &plots, [&](const RunInfo& i) { plots.reset(i, s); });
        connect(&c, &RunController::started, &timeline, [&](const RunInfo& i) { timeline.reset(i); });
        connect(&c, &RunController::metrics, &plots, &LivePlots::append);
        connect(&c, &RunController::intervals, &timeline, &NodeTimeline::appendIntervals);
        connect(&c, &RunController::metrics, &timeline, &NodeTimeline::appendMetrics);
        QSignalSpy finished(&c, &RunController::finished);
        QVERIFY(c.start(s, db(), 1));
        QVERIFY(finished.wait(30000));
        QTest::qWait(100); // the bounded-rate refresh
        QCOMPARE(sink.rounds(), 3000);
        QVERIFY2(sink.metricBatches < 3000, "metrics should arrive in batches");
        QCOMPARE(static_cast<int>(plots.records().size()), 3000);
        QCOMPARE(plots.plot(LivePlots::Panel::Cost)->graph(0)->dataCount(), 3000);
        QCOMPARE(plots.plot(LivePlots::Panel::RoundTime)->graph(0)->dataCount(), 3000);
        // No noise: every round lasts exactly 1 s (the slowest trainer), appended live.
        const auto rt = plots.plot(LivePlots::Panel::RoundTime)->graph(0)->data();
        for (auto it = rt->constBegin(); it != rt->constEnd(); ++it) QVERIFY(std::abs(it->value - 1.0) < 1e-9);
        QVERIFY(!plots.closedForm().applies); // no noise: no exponential closed form
        QVERIFY(plots.replotCount() > 0);

        // Hover read-out on the cost curve's last point.
        QCustomPlot* cost = plots.plot(LivePlots::Panel::Cost);
        const auto last = (cost->graph(0)->data()->constEnd() - 1);
        const QPoint at(static_cast<int>(cost->xAxis->coordToPixel(last->key)),
                        static_cast<int>(cost->yAxis->coordToPixel(last->value)));
        plots.hoverAt(LivePlots::Panel::Cost, at);
        QVERIFY2(plots.hoverText(LivePlots::Panel::Cost).contains("3000"), qPrintable(plots.hoverText(LivePlots::Panel::Cost)));

        // Smoothing and axes switch without losing data.
        plots.setSmoothing(5);
        plots.setXAxis(PlotXAxis::Round);
        plots.setLogScale(true);
        QTest::qWait(100);
        QCOMPARE(plots.plot(LivePlots::Panel::Cost)->graph(0)->dataCount(), 3000);
        QCOMPARE(plots.plot(LivePlots::Panel::Accuracy)->xAxis->label(), axisLabel(PlotXAxis::Round));

        // The timeline: a barrier per round, each held by the slowest trainer (node 2).
        QCOMPARE(static_cast<int>(timeline.barriers().size()), 3000);
        for (const auto& b : timeline.barriers()) QCOMPARE(b.holder, 2);
        QCOMPARE(timeline.stateAt(2, 0.5), NodeState::Computing);

        // The same run from the store.
        RunStore store(db().toStdString());
        const qint64 id = finished.at(0).at(1).toLongLong();
        NodeTimeline stored;
        QVERIFY(stored.showStoredRun(store, id));
        QCOMPARE(stored.barriers().size(), timeline.barriers().size());
        for (const auto& b : stored.barriers()) QCOMPARE(b.holder, 2);
        LivePlots storedPlots;
        QVERIFY(storedPlots.showStoredRun(store, id));
        QTest::qWait(100);
        QCOMPARE(storedPlots.plot(LivePlots::Panel::Cost)->graph(0)->dataCount(), 3000);
        QVERIFY(!storedPlots.showStoredRun(store, 999999));
    }

    void plannerPredictionOnTheCostPlot() {
        // ton-plan reports "plan" events with its predicted time and cost; AdaCoOpt's plans
        // carry none and are ignored.
        LivePlots plots;
        plots.reset(RunInfo{}, Scenario{});
        plots.appendEvents({{0.0, RunEventKind::Plan, -1, "tau=3 batches=a:10,b:20", {}}});
        QVERIFY(std::isnan(plots.prediction().x()));
        plots.appendEvents({{0.0, RunEventKind::Plan, -1, "n=3 J=40 predicted_time_s=34.2 predicted_cost=0.684 error_floor=0.01", {}}});
        QCOMPARE(plots.prediction(), QPointF(34.2, 0.684));
        QCustomPlot* cost = plots.plot(LivePlots::Panel::Cost);
        auto planGraph = [cost]() -> QCPGraph* {
            for (int g = 0; g < cost->graphCount(); ++g)
                if (cost->graph(g)->name().startsWith("plan")) return cost->graph(g);
            return nullptr;
        };
        QTRY_VERIFY(planGraph() != nullptr);
        QCOMPARE(planGraph()->dataCount(), 1);
        QCOMPARE(planGraph()->data()->at(0)->key, 34.2);
        QCOMPARE(planGraph()->data()->at(0)->value, 0.684);
        // A new run forgets the old plan.
        plots.reset(RunInfo{}, Scenario{});
        QVERIFY(std::isnan(plots.prediction().y()));
        QTRY_VERIFY(planGraph() == nullptr);
    }

    void closedFormLineOnRoundTimePlot() {
        LivePlots plots;
        Scenario s = timingStar(8, 1.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        plots.showRun("exp", s, {});
        QTest::qWait(100);
        QVERIFY(plots.closedForm().applies);
        QVERIFY(std::abs(plots.closedForm().seconds - harmonicNumber(8)) < 1e-12);
        bool line = false;
        QCustomPlot* p = plots.plot(LivePlots::Panel::RoundTime);
        for (int i = 0; i < p->itemCount(); ++i)
            if (auto* l = qobject_cast<QCPItemStraightLine*>(p->item(i)))
                line = line || std::abs(l->point1->coords().y() - harmonicNumber(8)) < 1e-12;
        QVERIFY(line);
    }

    // ---- responsiveness

    void windowStaysResponsiveDuringRun() {
        // 1,000 trainers, fully-sync, as fast as possible: the engine thread is busy all the
        // way and streams a million intervals while the plots and the timeline are shown.
        Scenario s = timingStar(1000, 1.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        s.stop.rounds = 400;
        QWidget window;
        auto* plots = new LivePlots(&window);
        auto* timeline = new NodeTimeline(&window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(plots, 2);
        layout->addWidget(timeline, 1);
        window.resize(1400, 900);
        window.show();
        RunController c;
        connect(&c, &RunController::started, plots, [&](const RunInfo& i) { plots->reset(i, s); });
        connect(&c, &RunController::started, timeline, [&](const RunInfo& i) { timeline->reset(i); });
        connect(&c, &RunController::metrics, plots, &LivePlots::append);
        connect(&c, &RunController::intervals, timeline, &NodeTimeline::appendIntervals);
        connect(&c, &RunController::metrics, timeline, &NodeTimeline::appendMetrics);
        int frames = 0;
        connect(&c, &RunController::activity, this, [&](const ActivityFrame& f) {
            QCOMPARE(static_cast<int>(f.states.size()), 1001);
            ++frames;
        });
        QSignalSpy finished(&c, &RunController::finished);

        EventLoopProbe probe;
        QElapsedTimer clock;
        QVERIFY(c.start(s, db(), 1));
        clock.start();
        probe.start();
        QVERIFY(finished.wait(kRunEndsMs));
        probe.stop();
        const qint64 total = clock.elapsed();
        qInfo("1000-node run: %lld ms, %s, %d activity frames, %d replots", static_cast<long long>(total),
              qPrintable(probe.report()), frames, plots->replotCount());
        QCOMPARE(finished.at(0).at(0).value<RunSummary>().rounds, 400);
        QVERIFY2(total > 500, "the run was too short to measure responsiveness");
        // No event handler (nor a lock the GUI thread waits on) may hold it for long (the
        // requirement, 100 ms, is printed above; the bound is one no load reaches).
        QVERIFY2(probe.maxBlockedMs() <= fogtest::kGuiBlockedMs, qPrintable(probe.report()));
        QCOMPARE(static_cast<int>(timeline->barriers().size()), 400);
        timeline->scrollToRow(500);
        QCOMPARE(timeline->firstVisibleRow(), 500);
        QTest::qWait(100);
        QVERIFY(window.grab().save(screenshotPath("fog_run_view_1000_nodes.png")));
    }

    void realTrainingRunInThePanels() {
        // Real LibTorch training on a Fashion-MNIST subset: loss falls, accuracy is plotted,
        // and the closed form is drawn over the measured round times.
        const Scenario s = loadScenarioText(R"(
schema_version: 1
name: run view - fully-sync on Fashion-MNIST
seed: 5
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 0.5}
  groups:
    - id: phone
      count: 8
      tier: device
      role: trainer
      parent: server
      compute: {throughput: 100, noise: {kind: exponential}}
      price_per_hour: 0.05
      energy: {per_sample_j: 0.5, per_byte_j: 0}
data:
  dataset: fashion-mnist
  max_train_samples: 4000
  max_test_samples: 1000
  partition: {kind: iid}
model: {kind: mlp, hidden: [64]}
training: {learning_rate: 0.1, batch_size: 10, local_steps: 1}
sync: {policy: fully-sync}
stop: {rounds: 150}
evaluation: {every_rounds: 5}
)",
                                            "run view test");
        RunController c;
        QWidget window;
        auto* plots = new LivePlots(&window);
        auto* timeline = new NodeTimeline(&window);
        auto* layout = new QVBoxLayout(&window);
        layout->addWidget(plots, 3);
        layout->addWidget(timeline, 2);
        window.resize(1400, 900);
        window.show();
        connect(&c, &RunController::started, plots, [&](const RunInfo& i) { plots->reset(i, s); });
        connect(&c, &RunController::started, timeline, [&](const RunInfo& i) { timeline->reset(i); });
        connect(&c, &RunController::metrics, plots, &LivePlots::append);
        connect(&c, &RunController::intervals, timeline, &NodeTimeline::appendIntervals);
        connect(&c, &RunController::metrics, timeline, &NodeTimeline::appendMetrics);
        QSignalSpy finished(&c, &RunController::finished);
        Sink sink(c);
        // Run until 70% test accuracy: it pauses at the first evaluation that reaches it.
        c.runUntil(RunController::Until::Accuracy, 0.70);
        QVERIFY(c.start(s, db(), 2));
        QTRY_VERIFY_WITH_TIMEOUT(c.state() == RunController::State::Paused, 100000);
        QTest::qWait(200);
        std::vector<double> accuracies;
        for (const auto& r : sink.records)
            if (!std::isnan(r.testAccuracy)) accuracies.push_back(r.testAccuracy);
        QVERIFY(!accuracies.empty());
        QVERIFY(accuracies.back() >= 0.70);
        for (std::size_t i = 0; i + 1 < accuracies.size(); ++i) QVERIFY(accuracies[i] < 0.70);
        QVERIFY(std::isnan(sink.records.back().testAccuracy) == false);
        c.resume();
        QVERIFY(finished.wait(100000));
        const auto summary = finished.at(0).at(0).value<RunSummary>();
        QCOMPARE(summary.status, RunStatus::Finished);
        QTest::qWait(150);
        QVERIFY(plots->closedForm().applies);
        QVERIFY(std::abs(plots->closedForm().seconds - harmonicNumber(8) / 10.0) < 1e-12);
        QCOMPARE(plots->plot(LivePlots::Panel::Accuracy)->graph(0)->dataCount(), 30);
        QCOMPARE(plots->plot(LivePlots::Panel::Loss)->graph(1)->dataCount(), 30); // test loss
        const auto acc = plots->plot(LivePlots::Panel::Accuracy)->graph(0)->data();
        QVERIFY2((acc->constEnd() - 1)->value > acc->constBegin()->value, "accuracy should rise");
        QVERIFY((acc->constEnd() - 1)->value > 50.0);
        const QString shot = screenshotPath("fog_run_view.png");
        QVERIFY(window.grab().save(shot));
        qInfo("final accuracy %.1f%%, %d rounds in %.1f virtual s; screenshot %s", 100 * summary.finalTestAccuracy,
              summary.rounds, summary.virtualTime, qPrintable(shot));
    }
};

QTEST_MAIN(TestRunView)
#include "test_run_view.moc"
