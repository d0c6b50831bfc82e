// The runs dock and the comparison view over a temporary store: listing, sorting,
// filtering, tags and notes, the pinned baseline, deletion with confirmation; curves per
// run, the trade-off scatter and its Pareto front, a click on a point, the summary table
// with time/cost to a target and mean ± CI over repeats. Offscreen.

#include "engine_fixtures.h"

#include "core/store/run_store.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/compare/run_picker_dialog.h"
#include "widgets/plots/linked_cursor.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/runs/runs_filter.h"
#include "widgets/runs/runs_table_model.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>

#include <cmath>
#include <memory>
#include <sqlite3.h>

using namespace fog;
using namespace fogtest;

namespace {

/// One level-0 record per round at t = 10 * round, cost = round, energy = 100 * round J,
/// train loss 1 / round; test accuracy where `acc` has a value for that round.
std::vector<AggregationRecord> series(const std::vector<double>& acc, double timeScale = 10, double costScale = 1) {
    std::vector<AggregationRecord> out;
    for (std::size_t i = 0; i < acc.size(); ++i) {
        AggregationRecord r;
        r.round = static_cast<int>(i) + 1;
        r.time = timeScale * r.round;
        r.cost = costScale * r.round;
        r.energyJ = 100.0 * r.round;
        r.trainLoss = 1.0 / r.round;
        r.participants = 4;
        r.aggregator = "cloud";
        r.testAccuracy = acc[i];
        if (!std::isnan(acc[i])) r.testLoss = 1 - acc[i];
        out.push_back(r);
        if (i == 0) { // an edge aggregation: never drawn (level 1)
            AggregationRecord edge = r;
            edge.level = 1;
            edge.aggregator = "edge";
            edge.time = r.time - 1;
            edge.testAccuracy = kNaN;
            out.insert(out.end() - 1, edge);
        }
    }
    return out;
}

struct Fixture {
    std::unique_ptr<RunStore> store;
    qint64 a = 0, b = 0, c = 0, d = 0, e = 0, engineRun = 0, failed = 0;
};

qint64 addRun(RunStore& store, const std::string& name, std::vector<std::string> tags,
              const std::vector<AggregationRecord>& metrics, RunStatus status = RunStatus::Finished,
              std::int64_t sweep = 0, const std::string& config = "", int repeat = 0) {
    NewRun nr;
    nr.name = name;
    nr.tags = std::move(tags);
    nr.scenarioYaml = "name: " + name + "\nseed: 1\nsync: {policy: fedavg}\n";
    nr.seed = 1;
    nr.sweepId = sweep;
    nr.sweepConfig = config;
    nr.repeat = repeat;
    const qint64 id = store.beginRun(nr);
    store.appendMetrics(id, metrics);
    RunSummary s;
    s.status = status;
    int rounds = 0;
    for (const auto& r : metrics)
        if (r.level == 0) {
            rounds = r.round;
            s.virtualTime = r.time;
            s.cost = r.cost;
            s.energyJ = r.energyJ;
        }
    s.rounds = rounds;
    s.finalTestAccuracy = finalAccuracy(metrics);
    s.bestTestAccuracy = bestAccuracy(metrics);
    store.finishRun(id, s);
    return id;
}

/// Runs with known numbers. Trade-off points (time, cost, final accuracy):
/// A (50, 5, 0.80), B (100, 2, 0.85), C (120, 6, 0.70): the time-cost front is A, B.
Fixture makeFixture(const QString& path) {
    Fixture f;
    f.store = std::make_unique<RunStore>(path.toStdString());
    RunStore& s = *f.store;
    f.a = addRun(s, "alpha fast", {"fast", "paper"}, series({kNaN, 0.5, kNaN, 0.7, 0.8}));
    f.b = addRun(s, "beta cheap", {"cheap"}, series({0.4, 0.6, 0.75, 0.85}, 25, 0.5));
    f.c = addRun(s, "gamma slow", {"slow"}, series({kNaN, 0.5, 0.6, 0.7}, 30, 1.5));
    const auto sweep = s.createSweep("repeats", "--vary sync.policy=x --repeat 2");
    f.d = addRun(s, "delta r0", {}, series({0.5, 0.6}), RunStatus::Finished, sweep, "sync.policy=x", 0);
    f.e = addRun(s, "delta r1", {}, series({0.6, 0.7}), RunStatus::Finished, sweep, "sync.policy=x", 1);
    f.failed = addRun(s, "broken", {"fast"}, series({kNaN}), RunStatus::Failed);

    // A real (timing-only) run through the engine and the recorder.
    Scenario sc = timingStar(3, 2.0, NoiseSpec::Kind::Exponential);
    sc.stop.rounds = 12;
    NewRun nr;
    nr.name = "engine timing star";
    nr.scenarioYaml = "name: timing-star\n";
    f.engineRun = s.beginRun(nr);
    {
        StoreRecorder rec(s, f.engineRun, 0.05);
        EngineOptions o;
        o.observer = &rec;
        Engine engine(sc, o);
        engine.run();
    }
    return f;
}

int proxyRowOf(RunsBrowser& b, qint64 id) {
    for (int r = 0; r < b.proxy()->rowCount(); ++r)
        if (b.proxy()->index(r, 0).data(RunsTableModel::IdRole).toLongLong() == id) return r;
    return -1;
}

QList<qint64> proxyIds(RunsBrowser& b) {
    QList<qint64> ids;
    for (int r = 0; r < b.proxy()->rowCount(); ++r) ids << b.proxy()->index(r, 0).data(RunsTableModel::IdRole).toLongLong();
    return ids;
}

int rowOfRun(QTableWidget* t, qint64 id) {
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, ComparisonView::RunCol)->data(ComparisonView::IdRole).toLongLong() == id) return r;
    return -1;
}

double cell(QTableWidget* t, int row, int col) { return t->item(row, col)->data(ComparisonView::ValueRole).toDouble(); }

} // namespace

class TestCompare : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    int dbCount_ = 0;
    QString freshPath() { return dir_.filePath(QString("runs%1.db").arg(++dbCount_)); }

private Q_SLOTS:
    void browserListsSortsAndFilters() {
        Fixture f = makeFixture(freshPath());
        RunsBrowser b;
        b.setStore(f.store.get());
        QCOMPARE(b.proxy()->rowCount(), 7);
        // Newest first by default.
        QCOMPARE(proxyIds(b).first(), f.engineRun);
        const int row = b.model()->rowOf(f.b);
        QCOMPARE(b.model()->index(row, RunsTableModel::Status).data().toString(), QString("finished"));
        QCOMPARE(b.model()->index(row, RunsTableModel::Rounds).data().toInt(), 4);
        QCOMPARE(b.model()->index(row, RunsTableModel::FinalAccuracy).data().toString(), QString("85.00 %"));
        QCOMPARE(b.model()->index(row, RunsTableModel::Tags).data().toString(), QString("cheap"));
        QCOMPARE(b.model()->index(row, RunsTableModel::VirtualTime).data().toString(), QString("100.0 s"));
        const int engineRow = b.model()->rowOf(f.engineRun);
        QCOMPARE(b.model()->index(engineRow, RunsTableModel::Rounds).data().toInt(), 12);

        // Sort by final accuracy: never-evaluated runs first, then ascending.
        b.view()->sortByColumn(RunsTableModel::FinalAccuracy, Qt::AscendingOrder);
        const QList<qint64> byAcc = proxyIds(b);
        QCOMPARE(byAcc.last(), f.b);
        QCOMPARE(byAcc.at(byAcc.size() - 2), f.a);
        QVERIFY(byAcc.indexOf(f.failed) < byAcc.indexOf(f.d));
        b.view()->sortByColumn(RunsTableModel::VirtualTime, Qt::DescendingOrder);
        QCOMPARE(proxyIds(b).first(), f.c); // 120 s

        b.setFilterText("tag:fast");
        QCOMPARE(b.proxy()->rowCount(), 2);
        b.setFilterText("tag:fast status:finished");
        QCOMPARE(proxyIds(b), QList<qint64>{f.a});
        b.setFilterText("DELTA");
        QCOMPARE(b.proxy()->rowCount(), 2);
        b.setFilterText("sync.policy=x");
        QCOMPARE(b.proxy()->rowCount(), 2);
        b.setFilterText("status:failed");
        QCOMPARE(proxyIds(b), QList<qint64>{f.failed});
        b.setFilterText("nothing-matches-this");
        QCOMPARE(b.proxy()->rowCount(), 0);
        b.setFilterText("");
        QCOMPARE(b.proxy()->rowCount(), 7);
    }

    void browserEditsTagsNotesAndNames() {
        Fixture f = makeFixture(freshPath());
        RunsBrowser b;
        b.setStore(f.store.get());
        QVERIFY(b.renameRun(f.c, "  gamma renamed "));
        QCOMPARE(f.store->run(f.c)->name, std::string("gamma renamed"));
        QVERIFY(!b.renameRun(f.c, "   ")); // empty names are refused
        // Editing the tags cell writes the store.
        const QModelIndex tags = b.proxy()->index(proxyRowOf(b, f.c), RunsTableModel::Tags);
        QVERIFY(b.proxy()->setData(tags, "slow, baseline-candidate ,slow"));
        QCOMPARE(f.store->run(f.c)->tags, (std::vector<std::string>{"slow", "baseline-candidate"}));
        b.setFilterText("tag:baseline-candidate");
        QCOMPARE(proxyIds(b), QList<qint64>{f.c});
        b.setFilterText("");
        QVERIFY(b.setRunNotes(f.a, "lr too high?"));
        QCOMPARE(f.store->run(f.a)->notes, std::string("lr too high?"));
        // Typed notes reach the store (after a short pause) and survive a refresh.
        b.selectRuns({f.b});
        auto* notes = b.findChild<QPlainTextEdit*>();
        QVERIFY(notes && notes->isEnabled());
        QTest::keyClicks(notes, "try momentum 0.9");
        QTRY_COMPARE(f.store->run(f.b)->notes, std::string("try momentum 0.9"));
        b.refresh();
        QCOMPARE(notes->toPlainText(), QString("try momentum 0.9"));
        b.selectRuns({f.c});
        QCOMPARE(notes->toPlainText(), QString());
        QCOMPARE(b.model()->runAt(b.model()->rowOf(f.c)).name, std::string("gamma renamed"));
        QCOMPARE(b.model()->runAt(b.model()->rowOf(f.a)).notes, std::string("lr too high?"));
    }

    void browserKeepsARunThatIsStillGoing() {
        Fixture f = makeFixture(freshPath());
        NewRun nr;
        nr.name = "going";
        nr.scenarioYaml = "name: going\n";
        const qint64 going = f.store->beginRun(nr); // begun, not finished: status running
        RunsBrowser b;
        b.setStore(f.store.get());
        QSignalSpy errors(&b, &RunsBrowser::errorOccurred);
        QCOMPARE(b.deleteRuns({going, f.a}), 1);
        QVERIFY(f.store->run(going).has_value());
        QVERIFY(!f.store->run(f.a).has_value());
        QCOMPARE(errors.count(), 1);
        QVERIFY(errors.last().at(0).toString().contains("still running"));
    }

    void browserPinsBaselineAndDeletes() {
        Fixture f = makeFixture(freshPath());
        RunsBrowser b;
        b.setStore(f.store.get());
        QSignalSpy baseline(&b, &RunsBrowser::baselineChanged);
        b.setBaseline(f.b);
        QCOMPARE(baseline.count(), 1);
        QCOMPARE(baseline.last().at(0).toLongLong(), f.b);
        const QModelIndex name = b.model()->index(b.model()->rowOf(f.b), RunsTableModel::Name);
        QVERIFY(name.data(RunsTableModel::BaselineRole).toBool());
        QVERIFY(name.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(name.data(Qt::BackgroundRole).isValid());
        QVERIFY(!b.model()->index(b.model()->rowOf(f.a), RunsTableModel::Name).data(Qt::FontRole).isValid());

        // Kept across refreshes, also with a new run in the store.
        addRun(*f.store, "late run", {}, series({0.3}));
        b.runFinished(0);
        QCOMPARE(b.proxy()->rowCount(), 8);
        QCOMPARE(b.baseline(), f.b);
        QCOMPARE(baseline.count(), 1);

        // Selection survives a refresh.
        b.selectRuns({f.a, f.c});
        b.refresh();
        const QList<qint64> kept = b.selectedRunIds();
        QCOMPARE(QSet<qint64>(kept.begin(), kept.end()), (QSet<qint64>{f.a, f.c}));

        // Double-click opens a run; the comparison follows the pinned baseline.
        b.resize(1000, 500);
        b.show();
        QVERIFY(QTest::qWaitForWindowExposed(&b));
        QSignalSpy activated(&b, &RunsBrowser::runActivated);
        const QRect cellRect = b.view()->visualRect(b.proxy()->index(proxyRowOf(b, f.c), RunsTableModel::Status));
        QTest::mouseClick(b.view()->viewport(), Qt::LeftButton, {}, cellRect.center());
        QTest::mouseDClick(b.view()->viewport(), Qt::LeftButton, {}, cellRect.center());
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.last().at(0).toLongLong(), f.c);
        ComparisonView v;
        v.setStore(f.store.get());
        connect(&b, &RunsBrowser::baselineChanged, &v, &ComparisonView::setBaseline);
        connect(&b, &RunsBrowser::compareRequested, &v, &ComparisonView::setRuns);
        v.setBaseline(b.baseline());

        b.selectRuns({f.a, f.c});
        QSignalSpy compare(&b, &RunsBrowser::compareRequested);
        b.compareSelected();
        QCOMPARE(compare.count(), 1);
        QCOMPARE(compare.last().at(0).value<QList<qint64>>().size(), 2);
        QCOMPARE(v.runIds(), (QList<qint64>{f.b, f.c, f.a})); // the baseline first, then table order

        // Delete with confirmation: cancel first, then accept.
        b.selectRuns({f.b, f.c});
        auto answer = [](QMessageBox::StandardButton which) {
            QTimer::singleShot(0, [which] {
                auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
                QVERIFY(box);
                QVERIFY(box->text().contains("2 runs"));
                QVERIFY(box->text().contains("baseline"));
                box->button(which)->click();
            });
        };
        answer(QMessageBox::Cancel);
        b.deleteSelected();
        QVERIFY(f.store->run(f.b));
        QSignalSpy deleted(&b, &RunsBrowser::runsDeleted);
        answer(QMessageBox::Yes);
        b.deleteSelected();
        QCOMPARE(deleted.count(), 1);
        QVERIFY(!f.store->run(f.b));
        QVERIFY(!f.store->run(f.c));
        QVERIFY(f.store->metrics(f.b).empty());
        QCOMPARE(b.proxy()->rowCount(), 6);
        // The baseline went with its run.
        QCOMPARE(b.baseline(), 0);
        QCOMPARE(baseline.last().at(0).toLongLong(), 0);
        connect(&b, &RunsBrowser::runsDeleted, &v, &ComparisonView::runsDeleted);
        v.reload();
        QCOMPARE(v.runIds(), QList<qint64>{f.a});
        QCOMPARE(v.baseline(), 0);
        QCOMPARE(b.deleteRuns({f.a}), 1);
        QCOMPARE(b.proxy()->rowCount(), 5);
    }

    void pickerListsAndFiltersRuns() {
        Fixture f = makeFixture(freshPath());
        RunPickerDialog d(f.store.get());
        QCOMPARE(d.proxy()->rowCount(), 7);
        d.proxy()->setFilterText("tag:fast");
        QCOMPARE(d.proxy()->rowCount(), 2);
        d.view()->selectAll();
        QList<qint64> picked = d.selectedRunIds();
        std::sort(picked.begin(), picked.end());
        QCOMPARE(picked, (QList<qint64>{f.a, f.failed}));
        ComparisonView v;
        v.setStore(f.store.get());
        v.addRuns(picked);
        v.addRuns({f.a, f.b}); // no duplicates
        QCOMPARE(v.runIds(), (QList<qint64>{f.a, f.failed, f.b}));
        QCOMPARE(v.selectedRun(), f.b); // the last added is shown
    }

    void comparisonDrawsOneCurvePerRun() {
        Fixture f = makeFixture(freshPath());
        ComparisonView v;
        v.setStore(f.store.get());
        v.setRuns({f.a, f.b});
        QCOMPARE(v.runIds(), (QList<qint64>{f.a, f.b}));
        QCustomPlot* acc = v.curvePlot(PlotKind::TestAccuracy);
        QCustomPlot* loss = v.curvePlot(PlotKind::TrainLoss);
        QCustomPlot* cost = v.curvePlot(PlotKind::Cost);
        for (QCustomPlot* p : {acc, loss, cost}) QCOMPARE(p->graphCount(), 2);
        QCOMPARE(acc->graph(0)->dataCount(), 3); // A evaluated at rounds 2, 4, 5
        QCOMPARE(acc->graph(1)->dataCount(), 4);
        QCOMPARE(loss->graph(0)->dataCount(), 5); // level-0 only
        QCOMPARE(loss->graph(1)->dataCount(), 4);
        QCOMPARE(cost->graph(0)->dataCount(), 5);
        QCOMPARE(acc->graph(0)->data()->at(2)->value, 80.0);
        QCOMPARE(acc->graph(0)->data()->at(2)->key, 50.0);
        // Colours agree across panes.
        QCOMPARE(acc->graph(1)->pen().color(), seriesColor(1));
        QCOMPARE(cost->graph(1)->pen().color(), seriesColor(1));
        QCOMPARE(v.colorOf(f.b), seriesColor(1));
        // Shared x axes span every curve: B ends at 100 s.
        QVERIFY(acc->xAxis->range().upper >= 100.0);
        QCOMPARE(acc->xAxis->range(), cost->xAxis->range());
        QCOMPARE(acc->xAxis->range(), loss->xAxis->range());

        QVERIFY(acc->legend->visible());
        QCOMPARE(acc->legend->itemCount(), 2);
        v.setLegendVisible(false);
        QVERIFY(!acc->legend->visible());
        QVERIFY(!loss->legend->visible());
        v.setXAxis(PlotXAxis::Round);
        QVERIFY(!acc->legend->visible());
        v.setLegendVisible(true);
        QCOMPARE(acc->graph(0)->data()->at(2)->key, 5.0);
        QCOMPARE(loss->graph(1)->data()->at(3)->key, 4.0);
        QCOMPARE(acc->xAxis->label(), axisLabel(PlotXAxis::Round));

        // The pinned baseline joins first, dashed; removing it here is refused.
        v.setBaseline(f.c);
        QCOMPARE(v.runIds(), (QList<qint64>{f.c, f.a, f.b}));
        QCOMPARE(acc->graphCount(), 3);
        QCOMPARE(acc->graph(0)->pen().style(), Qt::DashLine);
        QCOMPARE(acc->graph(1)->pen().style(), Qt::SolidLine);
        v.removeRun(f.c);
        QCOMPARE(v.runIds().size(), 3);
        v.removeRun(f.a);
        QCOMPARE(v.runIds(), (QList<qint64>{f.c, f.b}));
        v.setBaseline(0);
        QCOMPARE(v.runIds(), (QList<qint64>{f.b}));
        // Deleted runs leave the comparison.
        v.setRuns({f.a, f.b});
        f.store->deleteRun(f.a);
        v.runsDeleted({f.a});
        QCOMPARE(v.runIds(), (QList<qint64>{f.b}));

        QSignalSpy plots(&v, &ComparisonView::exportPlotsRequested);
        QSignalSpy report(&v, &ComparisonView::exportReportRequested);
        QCOMPARE(v.plots().size(), 4);
        const auto buttons = v.findChildren<QToolButton*>();
        for (QToolButton* btn : buttons)
            if (btn->text().startsWith("Export")) btn->click();
        QCOMPARE(plots.count(), 1);
        QCOMPARE(report.count(), 1);
        QCOMPARE(report.last().at(0).value<QList<qint64>>(), QList<qint64>{f.b});
    }

    void comparisonCursorSmoothingAndZoom() {
        Fixture f = makeFixture(freshPath());
        ComparisonView v;
        v.setStore(f.store.get());
        v.resize(1280, 720);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        v.setRuns({f.a, f.b});
        QCustomPlot* acc = v.curvePlot(PlotKind::TestAccuracy);
        QCustomPlot* loss = v.curvePlot(PlotKind::TrainLoss);
        QCustomPlot* cost = v.curvePlot(PlotKind::Cost);
        PlotCursor* cursor = v.cursor();
        QVERIFY(cursor);
        QVERIFY(std::isnan(cursor->key()));
        QVERIFY(cursor->text(0).isEmpty());

        // Hovering the loss plot near t = 50 s: the cursor snaps to the point there and the
        // same line shows on all three plots, with each run's value at that time.
        QSignalSpy moved(cursor, &PlotCursor::moved);
        const QPointF at(loss->xAxis->coordToPixel(50.0) + 3, loss->axisRect()->center().y());
        QMouseEvent move(QEvent::MouseMove, at, loss->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QApplication::sendEvent(loss, &move);
        QCOMPARE(moved.count(), 1);
        QCOMPARE(cursor->key(), 50.0);
        const QString la = v.runLabel(f.a), lb = v.runLabel(f.b);
        // A: round 5 at 50 s (loss 0.2, cost 5, accuracy 80); B: round 2 (loss 0.5, cost 1, 60).
        QVERIFY2(cursor->text(1).contains(la + ": 0.2") && cursor->text(1).contains(lb + ": 0.5"),
                 qPrintable(cursor->text(1)));
        QVERIFY2(cursor->text(2).contains(la + ": 5") && cursor->text(2).contains(lb + ": 1"),
                 qPrintable(cursor->text(2)));
        QVERIFY2(cursor->text(0).contains(la + ": 80") && cursor->text(0).contains(lb + ": 60"),
                 qPrintable(cursor->text(0)));
        QVERIFY2(cursor->text(0).startsWith("t = 50.0 s"), qPrintable(cursor->text(0)));
        // Every read-out lies wholly inside its plot's axis rect, whatever the side it takes,
        // also when it is wider than the room either side of the line (three runs).
        v.setRuns({f.a, f.b, f.c});
        QTest::qWait(50);
        for (int i = 0; i < 3; ++i) {
            QCustomPlot* p = i == 0 ? acc : i == 1 ? loss : cost;
            for (double key : {10.0, 50.0, 60.0, 100.0}) {
                cursor->setKey(key);
                p->replot();
                const QRectF r = cursor->labelRect(i);
                QVERIFY(!r.isEmpty());
                QVERIFY2(QRectF(p->axisRect()->rect()).adjusted(-1, -1, 1, 1).contains(r),
                         qPrintable(QString("plot %1 at %2: label %3,%4 %5x%6 outside the axis rect")
                                        .arg(i).arg(key).arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height())));
            }
        }
        v.setRuns({f.a, f.b});
        cursor->setKey(50.0);
        // A drag pans; it does not move the cursor.
        QMouseEvent dragMove(QEvent::MouseMove, at + QPointF(30, 0), loss->mapToGlobal(at + QPointF(30, 0)),
                             Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(loss, &dragMove);
        QCOMPARE(cursor->key(), 50.0);
        // Leaving the plot hides it everywhere.
        QEvent leave(QEvent::Leave);
        QApplication::sendEvent(loss, &leave);
        QVERIFY(std::isnan(cursor->key()));
        QVERIFY(cursor->text(0).isEmpty() && cursor->text(2).isEmpty());

        // Smoothing: the smoothed curves stay graphs 0 and 1, the raw ones faint behind them.
        QCOMPARE(v.smoothing(), 1);
        QCOMPARE(loss->graphCount(), 2);
        v.setSmoothing(3);
        QCOMPARE(loss->graphCount(), 4);
        QVERIFY(!isRawGraph(loss->graph(0)) && isRawGraph(loss->graph(2)) && isRawGraph(loss->graph(3)));
        QVERIFY(loss->graph(2)->pen().color().alpha() < loss->graph(0)->pen().color().alpha());
        const double rawLast = loss->graph(2)->data()->at(4)->value;
        QCOMPARE(rawLast, 0.2);
        QVERIFY(std::abs(loss->graph(0)->data()->at(4)->value - (1.0 / 3 + 1.0 / 4 + 1.0 / 5) / 3) < 1e-12);
        QCOMPARE(acc->legend->itemCount(), 2); // raw copies stay out of the legend
        // The cursor survives the redraw and reads the smoothed curves, not the raw ones.
        cursor->setKey(50.0);
        QVERIFY2(cursor->text(1).contains(la + ": 0.26111"), qPrintable(cursor->text(1)));
        QCOMPARE(cursor->text(1).count('\n'), 2); // heading + two runs
        // On the rounds axis the heading says the round.
        v.setXAxis(PlotXAxis::Round);
        cursor->setKey(4.0);
        QVERIFY2(cursor->text(1).startsWith("round 4"), qPrintable(cursor->text(1)));
        v.setXAxis(PlotXAxis::VirtualTime);
        cursor->setKey(kNaN);

        // Zoom with the wheel: the curve plots keep one x range; Reset zoom fits them again.
        const QCPRange full = acc->xAxis->range();
        QVERIFY(full.upper >= 100.0);
        const QPointF c = acc->axisRect()->center();
        QWheelEvent wheel(c, acc->mapToGlobal(c), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(acc, &wheel);
        QVERIFY2(acc->xAxis->range().size() < full.size() * 0.9,
                 qPrintable(QString("%1 vs %2").arg(acc->xAxis->range().size()).arg(full.size())));
        QCOMPARE(loss->xAxis->range(), acc->xAxis->range());
        QCOMPARE(cost->xAxis->range(), acc->xAxis->range());
        QToolButton* reset = nullptr;
        for (QToolButton* b : v.findChildren<QToolButton*>())
            if (b->text() == "Reset zoom") reset = b;
        QVERIFY(reset);
        reset->click();
        QCOMPARE(acc->xAxis->range(), full);
        QCOMPARE(loss->xAxis->range(), full);
        QCOMPARE(v.smoothing(), 3); // resetting the zoom keeps the smoothing
        QCOMPARE(loss->graphCount(), 4);
        v.grab().save(QDir::temp().filePath("compare-cursor.png"));

        // The visual check (FOG_SHOT_DIR set, under xvfb-run): the cursor shown, light and dark.
        const QString dir = qEnvironmentVariable("FOG_SHOT_DIR");
        if (dir.isEmpty()) return;
        v.setRuns({f.a, f.b, f.c});
        v.resize(1280, 720);
        QTest::qWait(200);
        v.cursor()->setKey(60.0);
        QTest::qWait(100);
        v.grab().save(dir + "/compare-cursor-light.png");
        const QPalette light = QApplication::palette();
        QPalette dark;
        dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x30));
        dark.setColor(QPalette::WindowText, QColor(0xdf, 0xe1, 0xe5));
        dark.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
        dark.setColor(QPalette::Text, QColor(0xdf, 0xe1, 0xe5));
        dark.setColor(QPalette::Button, QColor(0x3c, 0x3f, 0x41));
        dark.setColor(QPalette::ButtonText, QColor(0xdf, 0xe1, 0xe5));
        dark.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x41));
        dark.setColor(QPalette::ToolTipText, QColor(0xdf, 0xe1, 0xe5));
        dark.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5c));
        QApplication::setPalette(dark);
        QTest::qWait(200);
        v.cursor()->restore(); // the cursor takes the new colours with the redraw
        v.cursor()->setKey(60.0);
        QTest::qWait(100);
        v.grab().save(dir + "/compare-cursor-dark.png");
        QApplication::setPalette(light);
    }

    void scatterHasParetoFrontAndClickShowsScenario() {
        Fixture f = makeFixture(freshPath());
        ComparisonView v;
        v.setStore(f.store.get());
        v.setRuns({f.a, f.b, f.c});
        QCustomPlot* trade = v.tradeOffPlot();
        // One front line plus one point per run.
        QCOMPARE(trade->graphCount(), 4);
        int points = 0;
        QCPGraph* front = nullptr;
        for (int g = 0; g < trade->graphCount(); ++g) {
            if (trade->graph(g)->property("runIndex").isValid()) {
                ++points;
                QCOMPARE(trade->graph(g)->dataCount(), 1);
                QCOMPARE(trade->graph(g)->scatterStyle().pen().color(),
                         seriesColor(trade->graph(g)->property("runIndex").toInt()));
            } else {
                front = trade->graph(g);
            }
        }
        QCOMPARE(points, 3);
        QVERIFY(front);
        QCOMPARE(front->dataCount(), 2);
        QCOMPARE(front->data()->at(0)->key, 50.0);
        QCOMPARE(front->data()->at(0)->value, 5.0);
        QCOMPARE(front->data()->at(1)->key, 100.0);
        QCOMPARE(front->data()->at(1)->value, 2.0);
        QTableWidget* t = v.summaryTable();
        QCOMPARE(cell(t, rowOfRun(t, f.a), ComparisonView::ParetoCol), 1.0);
        QCOMPARE(cell(t, rowOfRun(t, f.b), ComparisonView::ParetoCol), 1.0);
        QCOMPARE(cell(t, rowOfRun(t, f.c), ComparisonView::ParetoCol), 0.0);

        // A mouse click at C's pixel selects C and shows its scenario.
        v.resize(1400, 900);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        trade->replot();
        QSignalSpy selected(&v, &ComparisonView::runSelected);
        const QPointF pc = v.pointPixel(f.c);
        QVERIFY(trade->rect().contains(pc.toPoint()));
        QCOMPARE(v.runAtPixel(pc), f.c);
        QCOMPARE(v.runAtPixel(pc + QPointF(40, 40)), 0);
        QTest::mouseClick(trade, Qt::LeftButton, {}, pc.toPoint());
        QCOMPARE(v.selectedRun(), f.c);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(v.scenarioText(), QString::fromStdString(f.store->run(f.c)->scenarioYaml));
        QVERIFY(v.selectedSummaryText().contains("gamma slow"));
        QCOMPARE(t->currentRow(), rowOfRun(t, f.c));
        const QPointF pb = v.pointPixel(f.b);
        QTest::mouseClick(trade, Qt::LeftButton, {}, pb.toPoint());
        QCOMPARE(v.selectedRun(), f.b);
        QVERIFY(v.scenarioText().contains("beta cheap"));
        t->setCurrentCell(rowOfRun(t, f.a), ComparisonView::StatusCol);
        QCOMPARE(v.selectedRun(), f.a);
        QVERIFY(v.scenarioText().contains("alpha fast"));
        QTest::mouseClick(trade, Qt::LeftButton, {}, pb.toPoint());
        // The selected point is drawn larger.
        for (int g = 0; g < trade->graphCount(); ++g)
            if (trade->graph(g)->property("runIndex").isValid())
                QCOMPARE(trade->graph(g)->scatterStyle().size() > 12,
                         v.runIds().at(trade->graph(g)->property("runIndex").toInt()) == f.b);
    }

    void scatterAtTargetUsesTimeAndCostToTarget() {
        Fixture f = makeFixture(freshPath());
        ComparisonView v;
        v.setStore(f.store.get());
        v.setTarget(0.75);
        v.setRuns({f.a, f.b, f.c});
        v.setTradeOffAtTarget(true);
        QCustomPlot* trade = v.tradeOffPlot();
        QTableWidget* t = v.summaryTable();
        int drawn = 0;
        for (int g = 0; g < trade->graphCount(); ++g) {
            const QVariant idx = trade->graph(g)->property("runIndex");
            if (!idx.isValid()) continue;
            const qint64 id = v.runIds().at(idx.toInt());
            const int row = rowOfRun(t, id);
            const double time = cell(t, row, ComparisonView::TimeToTargetCol);
            if (std::isnan(time)) {
                QCOMPARE(trade->graph(g)->dataCount(), 0); // never reached 75 %: not drawn
                QCOMPARE(id, f.c);
                continue;
            }
            ++drawn;
            QCOMPARE(trade->graph(g)->dataCount(), 1);
            QCOMPARE(trade->graph(g)->data()->at(0)->key, time);
            QCOMPARE(trade->graph(g)->data()->at(0)->value, cell(t, row, ComparisonView::CostToTargetCol));
        }
        QCOMPARE(drawn, 2);
        QVERIFY(trade->xAxis->label().contains("75"));
        // Back to the totals: every run has its point again.
        v.setTradeOffAtTarget(false);
        for (int g = 0; g < trade->graphCount(); ++g)
            if (trade->graph(g)->property("runIndex").isValid()) QCOMPARE(trade->graph(g)->dataCount(), 1);
    }

    void summaryTableHasTheNumbers() {
        Fixture f = makeFixture(freshPath());
        ComparisonView v;
        v.setStore(f.store.get());
        v.setTarget(0.75);
        v.setRuns({f.a, f.b, f.c, f.d, f.e});
        QTableWidget* t = v.summaryTable();
        QCOMPARE(t->rowCount(), 6); // five runs and one repeat group
        const int a = rowOfRun(t, f.a);
        QCOMPARE(cell(t, a, ComparisonView::FinalAccCol), 0.8);
        QCOMPARE(cell(t, a, ComparisonView::BestAccCol), 0.8);
        QCOMPARE(cell(t, a, ComparisonView::RoundsCol), 5.0);
        // 0.75 is crossed half-way between round 4 (t 40, 0.7) and round 5 (t 50, 0.8).
        QCOMPARE(cell(t, a, ComparisonView::TimeToTargetCol), 45.0);
        QCOMPARE(cell(t, a, ComparisonView::CostToTargetCol), 4.5);
        QCOMPARE(cell(t, a, ComparisonView::EnergyToTargetCol), 450.0);
        QCOMPARE(t->item(a, ComparisonView::TimeToTargetCol)->text(), QString("45.0 s"));
        QCOMPARE(t->item(a, ComparisonView::FinalAccCol)->text(), QString("80.00 %"));
        const int b = rowOfRun(t, f.b);
        QCOMPARE(cell(t, b, ComparisonView::TimeToTargetCol), 75.0); // reached exactly at round 3
        QCOMPARE(cell(t, b, ComparisonView::CostToTargetCol), 1.5);
        QCOMPARE(cell(t, b, ComparisonView::TimeCol), 100.0);
        QCOMPARE(cell(t, b, ComparisonView::CostCol), 2.0);
        QCOMPARE(cell(t, b, ComparisonView::EnergyCol), 400.0);
        const int c = rowOfRun(t, f.c);
        QVERIFY(std::isnan(cell(t, c, ComparisonView::TimeToTargetCol)));
        QCOMPARE(t->item(c, ComparisonView::TimeToTargetCol)->text(), QString("not reached"));
        QCOMPARE(t->item(c, ComparisonView::StatusCol)->text(), QString("finished"));

        // Repeats of one sweep configuration: mean ± t(0.975, 1) * s / sqrt(2).
        const int g = 5;
        QCOMPARE(t->item(g, ComparisonView::RunCol)->data(ComparisonView::IdRole).toLongLong(), 0);
        // The configuration in short (a policy by its name), whole in the tool tip.
        QVERIFY2(t->item(g, ComparisonView::RunCol)->text().startsWith(QString::fromUtf8("x · mean")),
                 qPrintable(t->item(g, ComparisonView::RunCol)->text()));
        QVERIFY(t->item(g, ComparisonView::RunCol)->toolTip().contains("sync.policy=x"));
        QVERIFY(qFuzzyCompare(cell(t, g, ComparisonView::FinalAccCol), 0.65));
        const double half = t->item(g, ComparisonView::FinalAccCol)->data(ComparisonView::CiRole).toDouble();
        QVERIFY2(std::abs(half - 12.7062 * 0.05) < 1e-3, qPrintable(QString::number(half)));
        QCOMPARE(t->item(g, ComparisonView::FinalAccCol)->text(), QString::fromUtf8("65.00 ± 63.53 %"));
        QCOMPARE(cell(t, g, ComparisonView::RoundsCol), 2.0);
        QCOMPARE(t->item(g, ComparisonView::TimeToTargetCol)->text(), QString("not reached"));

        // Changing the target updates the table: 0.65 is reached by one of the two repeats.
        v.setTarget(0.65);
        QCOMPARE(t->horizontalHeaderItem(ComparisonView::TimeToTargetCol)->text(), QString("time to 65 %"));
        QCOMPARE(cell(t, rowOfRun(t, f.e), ComparisonView::TimeToTargetCol), 15.0);
        QVERIFY(t->item(g, ComparisonView::TimeToTargetCol)->text().contains("1 of 2 reached"));
    }

    void tenThousandRunsStaySnappy() {
        // Not asserted (timings are machine-dependent): printed for the report.
        const QString path = freshPath();
        {
            RunStore store(path.toStdString());
            addRun(store, "seed run", {"odd"}, series({0.5, 0.6}));
        }
        sqlite3* db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        const char* sql =
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10000) "
            "INSERT INTO runs(name, tags, notes, scenario_yaml, seed, program_version, started_at, ended_at, status, "
            "rounds, virtual_time, cost, energy_j, final_test_accuracy, best_test_accuracy) "
            "SELECT 'run ' || x, CASE x % 2 WHEN 0 THEN 'even' ELSE 'odd' END, '', scenario_yaml, x, program_version, "
            "started_at, ended_at, 'finished', x % 50, x * 0.5, x * 0.001, x * 2.0, (x % 97) / 100.0, (x % 89) / 100.0 "
            "FROM c, (SELECT * FROM runs LIMIT 1)";
        char* err = nullptr;
        QCOMPARE(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK);
        sqlite3_close(db);
        RunStore store(path.toStdString());
        RunsBrowser b;
        b.resize(1200, 700);
        b.show();
        QElapsedTimer timer;
        timer.start();
        b.setStore(&store);
        const qint64 listMs = timer.restart();
        QCOMPARE(b.proxy()->rowCount(), 10001);
        b.view()->sortByColumn(RunsTableModel::FinalAccuracy, Qt::DescendingOrder);
        const qint64 sortMs = timer.restart();
        b.setFilterText("tag:odd");
        const qint64 filterMs = timer.restart();
        QCOMPARE(b.proxy()->rowCount(), 5001);
        b.setFilterText("run 12");
        const qint64 filter2Ms = timer.restart();
        // Names containing "12" (299 of runs 1-10000) and run id 12 (named "run 11").
        QCOMPARE(b.proxy()->rowCount(), 300);
        b.setFilterText("");
        b.refresh();
        const qint64 refreshMs = timer.restart();
        qInfo("10,001 runs: list %lld ms, sort by accuracy %lld ms, filter %lld ms then %lld ms, refresh %lld ms", listMs,
              sortMs, filterMs, filter2Ms, refreshMs);
    }
};

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
