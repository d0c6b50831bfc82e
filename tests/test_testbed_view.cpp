// The studio's testbed comparison (widgets/testbed/testbed_comparison_view.h): a measured run
// stored as `fogstudio-cli testbed` stores it (core/testbed/testbed_store.h, from a plan and a
// result made here, so no root is needed), and its prediction; the view must plot the stored
// rows' values, the per-round error and the links' bytes, and the runs list must open it.

#include "core/store/run_store.h"
#include "core/testbed/testbed_store.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/testbed/testbed_comparison_view.h"

#include <QApplication>
#include <QDialog>
#include <QMenu>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace fog;
using namespace fog::testbed;

namespace {

/// A two-box plan (a server and one device on a link "dev-0 -> server"), three rounds.
TestbedPlan plan3() {
    TestbedPlan plan;
    plan.scenarioName = "view test";
    PlanBox root;
    root.label = "server";
    root.node = 0;
    PlanBox dev;
    dev.label = "dev-0";
    dev.node = 1;
    dev.trains = true;
    dev.parent = 0;
    dev.limited = dev.modelLink = true;
    dev.linkName = "dev-0 -> server";
    dev.upMbps = dev.downMbps = 2;
    plan.boxes = {root, dev};
    const double predictedEnd[3] = {2.58, 5.16, 7.74};
    for (int r = 0; r < 3; ++r) {
        PlanRound pr;
        pr.round = r + 1;
        pr.startS = r ? predictedEnd[r - 1] : 0.0;
        pr.endS = predictedEnd[r];
        pr.participants = pr.needed = 1;
        PlanJob j;
        j.trainerBox = 1;
        j.downBytes = 250000;
        j.upBytes = j.predictedUpBytes = 200000;
        pr.jobs.push_back(j);
        plan.rounds.push_back(pr);
    }
    return plan;
}

struct Stored {
    qint64 prediction = 0, measured = 0;
    std::vector<AggregationRecord> predictedRows, measuredRows;
    TestbedPlan plan;
    TestbedResult result;
};

/// The prediction's rows and the measured run, stored.
Stored storeBoth(RunStore& store, bool trained) {
    Stored s;
    s.plan = plan3();
    NewRun pm;
    pm.name = "view test (testbed prediction)";
    pm.tags = {"testbed-prediction"};
    s.prediction = store.beginRun(pm);
    for (const PlanRound& r : s.plan.rounds) {
        AggregationRecord a;
        a.round = r.round;
        a.time = r.endS;
        a.participants = 1;
        a.trainLoss = trained ? 2.0 / r.round : kNaN;
        a.testAccuracy = trained ? 0.2 * r.round : kNaN;
        s.predictedRows.push_back(a);
    }
    store.appendMetrics(s.prediction, s.predictedRows);
    RunSummary ps;
    ps.status = RunStatus::Finished;
    ps.rounds = 3;
    store.finishRun(s.prediction, ps);

    const double measuredEnd[3] = {2.652, 5.3107, 7.965};
    for (int r = 0; r < 3; ++r) {
        MeasuredRound mr;
        mr.round = r + 1;
        mr.startS = r ? measuredEnd[r - 1] : 0.0;
        mr.endS = measuredEnd[r];
        MeasuredJob j;
        j.trainerBox = 1;
        j.downBytes = 250040;
        j.upBytes = 200040;
        j.aggregated = true;
        mr.jobs.push_back(j);
        // Round 2 measured a different loss: "same bits" must say NO there.
        mr.trainLoss = trained ? 2.0 / (r + 1) + (r == 1 ? 1e-9 : 0.0) : kNaN;
        mr.testAccuracy = trained ? 0.2 * (r + 1) : kNaN;
        s.result.rounds.push_back(mr);
    }
    s.result.trained = trained;
    MeasuredLink l;
    l.box = 1;
    l.payloadUpBytes = 3 * 200040;
    l.payloadDownBytes = 3 * 250040;
    l.wireUpBytes = 644000;
    l.wireDownBytes = 805000;
    s.result.links.push_back(l);
    NewRun mm;
    mm.name = "view test (testbed)";
    mm.tags = {"testbed"};
    s.measured = storeTestbedRun(store, mm, RunInfo{}, s.plan, s.result, s.prediction);
    s.measuredRows = store.metrics(s.measured);
    return s;
}

std::vector<double> values(const QCPGraph* g) {
    std::vector<double> v;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) v.push_back(it->value);
    return v;
}
std::vector<double> keys(const QCPGraph* g) {
    std::vector<double> v;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it) v.push_back(it->key);
    return v;
}
std::vector<double> values(const QCPBars* b) {
    std::vector<double> v;
    for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it) v.push_back(it->value);
    return v;
}

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

} // namespace

class TestTestbedView : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private Q_SLOTS:
    /// What is plotted is what the store holds: durations from the stored rows' times, the
    /// error from them, the bytes of the stored link event.
    void plotsTheStoredRows() {
        RunStore store(dir_.filePath("plots.db").toStdString());
        const Stored s = storeBoth(store, false);
        QString why;
        const auto data = loadTestbedComparison(store, s.measured, &why);
        QVERIFY2(data, qPrintable(why));
        QCOMPARE(data->predictionRun, s.prediction);
        TestbedComparisonView view;
        view.setData(*data);
        view.resize(900, 820);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        const QCPGraph* predicted = view.timePlot()->graph(0);
        const QCPGraph* measured = view.timePlot()->graph(1);
        const auto pv = values(predicted), mv = values(measured);
        QCOMPARE(pv.size(), std::size_t(3));
        QCOMPARE(mv.size(), std::size_t(3));
        QCOMPARE(keys(measured), (std::vector<double>{1, 2, 3}));
        const auto* errors = qobject_cast<QCPBars*>(view.errorPlot()->plottable(0));
        QVERIFY(errors);
        const auto ev = values(errors);
        QCOMPARE(ev.size(), std::size_t(3));
        double pPrev = 0, mPrev = 0;
        for (std::size_t i = 0; i < 3; ++i) {
            // The stored rows, read back: each round's duration is its end less the previous end.
            const double p = s.predictedRows[i].time - pPrev, m = s.measuredRows[i].time - mPrev;
            QVERIFY2(near(pv[i], p), qPrintable(QString("predicted %1 vs %2").arg(pv[i]).arg(p)));
            QVERIFY2(near(mv[i], m), qPrintable(QString("measured %1 vs %2").arg(mv[i]).arg(m)));
            QVERIFY(near(ev[i], 100.0 * (m - p) / p));
            pPrev = s.predictedRows[i].time;
            mPrev = s.measuredRows[i].time;
            // The table has the same values.
            QCOMPARE(view.table()->item(static_cast<int>(i), 1)->text(), QString::number(p, 'f', 4));
            QCOMPARE(view.table()->item(static_cast<int>(i), 2)->text(), QString::number(m, 'f', 4));
        }
        // The measured rounds ran 2.8% to 3.1% long: the error axis shows them.
        QVERIFY(view.errorPlot()->yAxis->range().contains(ev[1]));
        QVERIFY(view.timePlot()->yAxis->range().contains(mv[0]));
        QCOMPARE(view.table()->columnCount(), 4); // not trained: no training columns

        // Bytes: "dev-0 -> server up" and "... down", predicted / payload / wire in MB.
        QVERIFY(view.bytesPlot()->isVisible());
        const auto pb = values(qobject_cast<QCPBars*>(view.bytesPlot()->plottable(0)));
        const auto yb = values(qobject_cast<QCPBars*>(view.bytesPlot()->plottable(1)));
        const auto wb = values(qobject_cast<QCPBars*>(view.bytesPlot()->plottable(2)));
        const auto [up, down] = predictedBytes(s.plan, 1, 3);
        QCOMPARE(up, 600000.0);
        QCOMPARE(pb, (std::vector<double>{up / 1e6, down / 1e6}));
        QCOMPARE(yb, (std::vector<double>{3 * 200040 / 1e6, 3 * 250040 / 1e6}));
        QCOMPARE(wb, (std::vector<double>{644000 / 1e6, 805000 / 1e6}));
        auto* ticker = dynamic_cast<QCPAxisTickerText*>(view.bytesPlot()->xAxis->ticker().data());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().value(1), QString("dev-0 -> server up"));
        QCOMPARE(ticker->ticks().value(2), QString("dev-0 -> server down"));
        QVERIFY(view.summary()->text().contains(QString("run %1").arg(s.prediction)));
    }

    /// A tiered tree's run (a server, an edge aggregator, a device under the edge): the
    /// bytes plot has every link, the tier link "edge -> server" beside the device's
    /// "dev-0 -> edge", each with the bytes its event stores (the session's model and change
    /// on the tier link, the sub-round's model and update on the device's).
    void showsTheTierLinks() {
        TestbedPlan plan;
        plan.scenarioName = "tier view test";
        PlanBox root, edge, dev;
        root.label = "server";
        root.node = 0;
        root.aggregates = true;
        edge.label = "edge";
        edge.node = 1;
        edge.aggregates = true;
        edge.parent = 0;
        edge.limited = edge.modelLink = true;
        edge.linkName = "edge -> server";
        dev.label = "dev-0";
        dev.node = 2;
        dev.trains = true;
        dev.parent = 1;
        dev.limited = dev.modelLink = true;
        dev.linkName = "dev-0 -> edge";
        plan.boxes = {root, edge, dev};
        PlanRound global;
        global.round = 1;
        global.endS = 2.5;
        global.participants = global.needed = 1;
        PlanJob session;
        session.trainerBox = 1;
        session.downBytes = session.upBytes = session.predictedUpBytes = 100000;
        session.sessionFirst = 0;
        session.sessionRounds = 1;
        global.jobs.push_back(session);
        plan.rounds.push_back(global);
        PlanRound sub;
        sub.round = 1;
        sub.startS = 0.2;
        sub.endS = 2.3;
        sub.participants = sub.needed = 1;
        sub.aggregatorBox = 1;
        PlanJob j;
        j.trainerBox = 2;
        j.downBytes = j.upBytes = j.predictedUpBytes = 250000;
        sub.jobs.push_back(j);
        plan.subRounds.push_back(sub);
        QCOMPARE(predictedBytes(plan, 1, 1), std::make_pair(100000.0, 100000.0));
        QCOMPARE(predictedBytes(plan, 2, 1), std::make_pair(250000.0, 250000.0));

        TestbedResult result;
        MeasuredRound mr;
        mr.round = 1;
        mr.endS = 2.55;
        MeasuredJob mj;
        mj.trainerBox = 1;
        mj.downBytes = mj.upBytes = 100040;
        mj.aggregated = true;
        mr.jobs.push_back(mj);
        result.rounds.push_back(mr);
        MeasuredRound ms;
        ms.round = 1;
        ms.aggregatorBox = 1;
        ms.startS = 0.21;
        ms.endS = 2.34;
        MeasuredJob dj;
        dj.trainerBox = 2;
        dj.downBytes = dj.upBytes = 250040;
        dj.aggregated = true;
        ms.jobs.push_back(dj);
        result.subRounds.push_back(ms);
        for (int box : {1, 2}) {
            MeasuredLink l;
            l.box = box;
            l.payloadUpBytes = l.payloadDownBytes = box == 1 ? 100040 : 250040;
            l.wireUpBytes = l.wireDownBytes = box == 1 ? 107000 : 268000;
            result.links.push_back(l);
        }
        // The stored row counts the sub-round's bytes with its global round's.
        const auto rows = measuredRecords(plan, result);
        QCOMPARE(rows.size(), std::size_t(2)); // the edge's sub-round (level 1), the global round
        QCOMPARE(rows[0].level, 1);
        QCOMPARE(rows[0].aggregator, std::string("edge"));
        QCOMPARE(rows[0].round, 0);
        QCOMPARE(rows[0].time, 2.34);
        QCOMPARE(rows[0].bytes, 2 * 250040.0);
        QCOMPARE(rows[1].level, 0);
        QCOMPARE(rows[1].bytes, 2 * 100040.0 + 2 * 250040.0);

        RunStore store(dir_.filePath("tiers.db").toStdString());
        NewRun pm;
        pm.name = "tier view test (testbed prediction)";
        pm.tags = {"testbed-prediction"};
        const qint64 prediction = store.beginRun(pm);
        AggregationRecord a;
        a.round = 1;
        a.time = 2.5;
        a.participants = 1;
        store.appendMetrics(prediction, {a});
        RunSummary ps;
        ps.status = RunStatus::Finished;
        ps.rounds = 1;
        store.finishRun(prediction, ps);
        NewRun mm;
        mm.name = "tier view test (testbed)";
        mm.tags = {"testbed"};
        const qint64 measured = storeTestbedRun(store, mm, RunInfo{}, plan, result, prediction);
        QString why;
        const auto data = loadTestbedComparison(store, measured, &why);
        QVERIFY2(data, qPrintable(why));
        TestbedComparisonView view;
        view.setData(*data);
        view.resize(900, 820);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        auto* ticker = dynamic_cast<QCPAxisTickerText*>(view.bytesPlot()->xAxis->ticker().data());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().value(1), QString("edge -> server up"));
        QCOMPARE(ticker->ticks().value(2), QString("edge -> server down"));
        QCOMPARE(ticker->ticks().value(3), QString("dev-0 -> edge up"));
        QCOMPARE(ticker->ticks().value(4), QString("dev-0 -> edge down"));
        const auto pb = values(qobject_cast<QCPBars*>(view.bytesPlot()->plottable(0)));
        const auto yb = values(qobject_cast<QCPBars*>(view.bytesPlot()->plottable(1)));
        const auto wb = values(qobject_cast<QCPBars*>(view.bytesPlot()->plottable(2)));
        QCOMPARE(pb, (std::vector<double>{0.1, 0.1, 0.25, 0.25}));
        QCOMPARE(yb, (std::vector<double>{0.10004, 0.10004, 0.25004, 0.25004}));
        QCOMPARE(wb, (std::vector<double>{0.107, 0.107, 0.268, 0.268}));
    }

    /// A picture of a real stored run's comparison (docs/testbed.md), under xvfb-run:
    /// FOG_TESTBED_VIEW_DB=runs.db FOG_TESTBED_VIEW_RUN=ID FOG_TESTBED_VIEW_SHOT=FILE.png. Its
    /// plotted round times are checked against the stored rows as well.
    void pictureOfAStoredRun() {
        const QByteArray db = qgetenv("FOG_TESTBED_VIEW_DB"), shot = qgetenv("FOG_TESTBED_VIEW_SHOT");
        if (db.isEmpty() || shot.isEmpty()) QSKIP("set FOG_TESTBED_VIEW_DB, FOG_TESTBED_VIEW_RUN and FOG_TESTBED_VIEW_SHOT");
        RunStore store(db.toStdString(), true);
        const qint64 run = qgetenv("FOG_TESTBED_VIEW_RUN").toLongLong();
        QDialog* dialog = showTestbedComparison(nullptr, store, run);
        QVERIFY(dialog);
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QTest::qWait(300);
        auto* view = dialog->findChild<TestbedComparisonView*>();
        // The global rounds (a tiered prediction has its aggregators' own rows, level > 0).
        auto global = [](std::vector<AggregationRecord> rows) {
            rows.erase(std::remove_if(rows.begin(), rows.end(), [](const AggregationRecord& r) { return r.level != 0; }),
                       rows.end());
            return rows;
        };
        const auto measured = global(store.metrics(run)), predicted = global(store.metrics(view->data().predictionRun));
        const auto mv = values(view->timePlot()->graph(1)), pv = values(view->timePlot()->graph(0));
        QCOMPARE(mv.size(), measured.size());
        for (std::size_t i = 0; i < mv.size(); ++i) {
            QVERIFY(near(mv[i], measured[i].time - (i ? measured[i - 1].time : 0.0)));
            QVERIFY(near(pv[i], predicted[i].time - (i ? predicted[i - 1].time : 0.0)));
            qInfo("round %d: predicted %.4f s, measured %.4f s", measured[i].round, pv[i], mv[i]);
        }
        QVERIFY(dialog->grab().save(QString::fromLocal8Bit(shot)));
        dialog->close();
    }

    /// When the processes trained: the training values beside the times, and "same bits".
    void showsTheTrainingValues() {
        RunStore store(dir_.filePath("trained.db").toStdString());
        const Stored s = storeBoth(store, true);
        const auto data = loadTestbedComparison(store, s.measured);
        QVERIFY(data);
        TestbedComparisonView view;
        view.setData(*data);
        QCOMPARE(view.table()->columnCount(), 9);
        QCOMPARE(view.table()->item(0, 8)->text(), QString("yes"));
        QCOMPARE(view.table()->item(1, 8)->text(), QString("NO"));
        QCOMPARE(view.table()->item(2, 5)->text(), QString::number(s.measuredRows[2].trainLoss, 'g', 10));
    }

    /// A run that is not a testbed run is refused with the reason; the prediction deleted too.
    void refusesOtherRuns() {
        RunStore store(dir_.filePath("refused.db").toStdString());
        const Stored s = storeBoth(store, false);
        QString why;
        QVERIFY(!loadTestbedComparison(store, s.prediction, &why));
        QVERIFY2(why.contains("not a testbed run"), qPrintable(why));
        store.deleteRun(s.prediction);
        QVERIFY(!loadTestbedComparison(store, s.measured, &why));
        QVERIFY2(why.contains("no longer stored"), qPrintable(why));
    }

    /// The runs list offers "Compare with Prediction" on a testbed run (and only there), and
    /// it opens the view on that run.
    void runsListOpensIt() {
        RunStore store(dir_.filePath("browser.db").toStdString());
        const Stored s = storeBoth(store, false);
        QWidget window;
        auto* browser = new RunsBrowser(&window);
        browser->setStore(&store);
        window.resize(900, 500);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto contextMenuOn = [&](qint64 id, bool trigger) {
            browser->selectRuns({id});
            QTableView* view = browser->view();
            const QModelIndex at = view->currentIndex();
            bool offered = false;
            // The menu runs its own event loop: looked at (and closed) from a timer in it.
            QTimer poll;
            poll.setInterval(50);
            QObject::connect(&poll, &QTimer::timeout, [&] {
                auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
                if (!menu) return;
                poll.stop();
                for (QAction* a : menu->actions())
                    if (a->objectName() == "runsTestbedCompare") {
                        offered = true;
                        if (trigger) a->trigger();
                    }
                menu->close();
            });
            poll.start();
            Q_EMIT view->customContextMenuRequested(view->visualRect(at).center());
            return offered;
        };
        QVERIFY(!contextMenuOn(s.prediction, false));
        QVERIFY(!window.findChild<QDialog*>("testbedComparison"));
        QVERIFY(contextMenuOn(s.measured, true));
        QDialog* dialog = nullptr;
        QTRY_VERIFY((dialog = browser->findChild<QDialog*>("testbedComparison")) != nullptr);
        auto* view = dialog->findChild<TestbedComparisonView*>();
        QVERIFY(view);
        QCOMPARE(view->data().measuredRun, s.measured);
        QCOMPARE(view->timePlot()->graph(1)->dataCount(), 3);
        dialog->close();
    }
};

QTEST_MAIN(TestTestbedView)
#include "test_testbed_view.moc"
