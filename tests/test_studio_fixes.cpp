// Issue 31, "wrong or misleading": what a user of the studio saw that was not so, one test
// per numbered item, each checking what the window shows.
//   1 a stored run opened from the runs dock shows its own topology and figures; a cluster
//     episode opens the comparison, not an FL run "waiting for the first round"
//   2 an intervention is applied at the instant its menu names (the run holds while the
//     menu and its dialog are open)
//   3 Fork from Here accepts the instant it prefills
//   4 the seek dialog starts with parameters valid for every preset, and says what is wrong
//     beside Start as it is typed
//   5 the expected-round-time line follows the policy being edited
//   6 no plot shows negative virtual time around its first point
//   7 a theme switch restyles the comparison; exported plots are light whatever the screen's
//     theme and leave the plots on screen as they were
//   8 the runs dock shows runs another connection (the CLI) stores, without a refresh

#include "widgets/figures/plot_export.h"
#include "app/gui/main_window.h"
#include "app/gui/presets.h"
#include "app/gui/theme.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "engine_fixtures.h"
#include "studio_fixtures.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/document/scenario_document.h"
#include "widgets/intervene/fork_dialog.h"
#include "widgets/intervene/intervene_menu.h"
#include "widgets/plots/live_plots.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"
#include "widgets/run/run_controller.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/runs/runs_table_model.h"
#include "widgets/seek/seek_dialog.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QImage>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace fog;
using namespace fogtest;

namespace {

/// A scenario of its own topology (ids the quickstart does not have), timing only, a few
/// rounds: a run that takes milliseconds.
Scenario alphaScenario(int rounds = 4) {
    Scenario s = timingStar(3, 10.0, NoiseSpec::Kind::Exponential);
    s.name = "alpha";
    s.topology.nodes[0].id = "alpha-hub";
    s.topology.nodes[1].id = "alpha-w";
    s.topology.nodes[1].parent = "alpha-hub";
    s.sync.name = "fully-sync";
    s.stop.rounds = rounds;
    return s;
}


/// A server and a group of 4 workers on an uplink of 100 Mbit/s, 1 s rounds, for ever.
Scenario steadyStar() {
    Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::None);
    s.sync.name = "fully-sync";
    s.topology.nodes[1].link = LinkParams{100.0, 100.0, 5.0, 0.0};
    s.stop.rounds = 0;
    s.stop.virtualTimeS = 1e12;
    return s;
}

QAction* actionNamed(const QMenu& menu, const char* name) {
    for (QAction* a : menu.actions())
        if (a->objectName() == name) return a;
    return nullptr;
}

QLabel* runFigures(MainWindow& w) { return w.statusBar()->findChild<QLabel*>("runFigures"); }

bool isDark(const QColor& c) { return c.lightness() < 100; }
/// A plot drawn for a dark theme: light tick labels (on its dark background).
bool darkPlot(const QCustomPlot* p) { return !isDark(p->xAxis->tickLabelColor()); }

} // namespace

class TestStudioFixes : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(dir_.isValid());
    }
    void init() { db_ = dir_.filePath(QStringLiteral("runs-%1.db").arg(++dbCount_)); }
    void cleanup() { applyTheme(Theme::Light); }

    // ---- 1 ----------------------------------------------------------------------------
    void storedRunShowsItsOwnTopologyAndFigures() {
        StudioOptions o;
        o.dbPath = db_;
        o.threads = 1;
        MainWindow w(o);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const std::int64_t id = storeRun(*w.store(), alphaScenario(4), "alpha run");
        QVERIFY(id > 0);
        TopologyScene* scene = w.canvas()->topologyScene();
        QVERIFY(!scene->item("alpha-w")); // the quickstart is on the canvas
        const QString before = w.document()->scenario().topology.nodes.front().id.c_str();

        w.showStoredRun(id);
        // The canvas shows the run's nodes, not the quickstart's.
        QVERIFY(scene->item("alpha-hub"));
        QVERIFY(scene->item("alpha-w"));
        QVERIFY(!scene->item(before));
        QCOMPARE(w.livePlots()->records().empty(), false);
        // The status bar has the run's own figures.
        QVERIFY(runFigures(w));
        QVERIFY2(runFigures(w)->text().startsWith(QString("run %1 (finished): round 4").arg(id)),
                 qPrintable(runFigures(w)->text()));

        // A run of the same topology keeps the editor as it is (its file, its undo history).
        w.document()->edit("a change", [](Scenario& s) { s.stop.rounds = 9; });
        const std::int64_t again = storeRun(*w.store(), alphaScenario(2), "alpha again");
        w.showStoredRun(again);
        QCOMPARE(w.document()->scenario().stop.rounds, 9);
        QVERIFY(runFigures(w)->text().startsWith(QString("run %1 (finished): round 2").arg(again)));

        // A cluster episode: the comparison (its cluster pane), not an FL run's plots.
        NewRun meta;
        meta.name = "cluster / fifo";
        meta.tags = {"cluster"};
        meta.scenarioYaml = "kind: cluster\n";
        const std::int64_t cluster = w.store()->beginRun(meta);
        w.store()->finishRun(cluster, RunSummary{});
        w.showStoredRun(cluster);
        QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget*>(w.comparison()));
        QVERIFY2(runFigures(w)->text().contains("cluster episode"), qPrintable(runFigures(w)->text()));
        QVERIFY(scene->item("alpha-w")); // the canvas is left as it was
    }

    // ---- 2 ----------------------------------------------------------------------------
    void interventionIsAppliedAtTheInstantTheMenuNames() {
        ScenarioDocument doc;
        const Scenario s = steadyStar();
        doc.setScenario(s);
        TopologyCanvas canvas(&doc);
        RunController controller;
        InterveneMenu intervene(&controller, &canvas);
        intervene.setAsker([](const QString&, const QString&, const std::vector<ValueField>&,
                              const ValuesDialog::Check&) -> std::optional<std::vector<double>> {
            QTest::qWait(300); // the user reads the dialog and types: the run must not go on
            return std::vector<double>{2.0, std::nan(""), std::nan("")};
        });
        QSignalSpy applied(&controller, &RunController::intervened);
        controller.setPlaybackSpeed(20.0); // a teaching speed: 20 virtual s per wall second
        QVERIFY(controller.start(s, db_, 1));
        QTRY_VERIFY_WITH_TIMEOUT(controller.state() == RunController::State::Running && controller.runClock() > 2.0,
                                 20000);

        EdgeItem* uplink = nullptr;
        for (QGraphicsItem* it : canvas.topologyScene()->items())
            if (it->type() == EdgeItem::Type) uplink = static_cast<EdgeItem*>(it);
        QVERIFY(uplink);
        QMenu menu;
        intervene.populate(menu, uplink);
        // The run holds while the menu is open, at the instant the menu names.
        QCOMPARE(controller.state(), RunController::State::Paused);
        const double named = controller.runClock();
        QAction* title = actionNamed(menu, "interveneSection");
        QVERIFY(title);
        QVERIFY2(title->text().endsWith(QString("at t = %1 s").arg(named, 0, 'f', 1)), qPrintable(title->text()));
        QTest::qWait(300);
        QCOMPARE(controller.runClock(), named);

        actionNamed(menu, "interveneLink")->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(applied.count(), 1, 10000);
        const auto events = applied.at(0).at(0).value<std::vector<TimedEvent>>();
        QCOMPARE(events.size(), std::size_t(1));
        QCOMPARE(events[0].trigger.value, named); // applied and stored at the instant named
        // Then it runs on by itself.
        QTRY_COMPARE_WITH_TIMEOUT(controller.state(), RunController::State::Running, 5000);
        QTRY_VERIFY_WITH_TIMEOUT(controller.runClock() > named + 1.0, 10000);

        // A menu closed without a choice lets the run go on too.
        QMenu other;
        intervene.populate(other, canvas.topologyScene()->item("w"));
        QCOMPARE(controller.state(), RunController::State::Paused);
        Q_EMIT other.aboutToHide();
        QTRY_COMPARE_WITH_TIMEOUT(controller.state(), RunController::State::Running, 5000);

        QSignalSpy finished(&controller, &RunController::finished);
        controller.stop();
        QVERIFY(finished.wait(20000));
        // The stored scenario holds the intervention at that instant: a re-run replays it there.
        RunStore store(db_.toStdString());
        const Scenario stored = loadScenarioText(store.run(controller.runId())->scenarioYaml, "run");
        QCOMPARE(stored.events.list.size(), std::size_t(1));
        QCOMPARE(stored.events.list[0].trigger.value, named);
    }

    // ---- 3 ----------------------------------------------------------------------------
    void forkDialogAcceptsTheInstantItPrefills() {
        const Scenario s = steadyStar();
        const double end = 18.11019234567; // written to 10 digits it rounds up: 18.11019235
        QVERIFY(ForkDialog::instantText(end).toDouble() > end);
        ForkDialog d(s, end, end, "run 1");
        QCOMPARE(d.atEdit()->text(), ForkDialog::instantText(end));
        d.accept();
        QVERIFY2(d.result() == QDialog::Accepted, qPrintable(d.message()));
        QCOMPARE(d.at(), end);
        // Past the end is still refused, with both instants to the same precision.
        ForkDialog past(s, end, end, "run 1");
        past.atEdit()->setText("18.2");
        past.accept();
        QVERIFY(past.result() != QDialog::Accepted);
        QVERIFY2(past.message().contains("18.2 s is past the end of the parent run (18.11019235 s)"),
                 qPrintable(past.message()));
    }

    // ---- 4 ----------------------------------------------------------------------------
    void seekDefaultsAreValidForEveryPreset() {
        RunStore store(db_.toStdString());
        const QString dir = QStringLiteral(FOG_SOURCE_DIR "/presets");
        int presets = 0, selectAll = 0;
        for (const PresetEntry& p : listPresets(dir)) {
            Scenario s;
            try {
                s = loadScenarioFile(p.path.toStdString());
            } catch (const std::exception&) {
                continue; // cluster presets: not a training scenario
            }
            ++presets;
            SeekDialog d(s, &store, {});
            const QString params = d.findChild<QPlainTextEdit*>("seekParams")->toPlainText();
            QVERIFY2(!params.isEmpty(), qPrintable(p.path));
            if (s.selection.name == "all") {
                ++selectAll;
                QVERIFY2(!params.contains("selection.k"), qPrintable(p.path));
            }
            QVERIFY2(d.problem().isEmpty(), qPrintable(p.path + ": " + d.problem()));
            QVERIFY(d.findChild<QPushButton*>("seekStart")->isEnabled());
        }
        QVERIFY(presets >= 10);
        QVERIFY(selectAll >= 5);

        // A parameter the scenario refuses is named beside Start as it is typed, and Start is off.
        Scenario s = loadScenarioFile((dir + "/quickstart.yaml").toStdString());
        s.selection.name = "all";
        s.selection.params.clear();
        SeekDialog d(s, &store, {});
        const QString defaults = d.findChild<QPlainTextEdit*>("seekParams")->toPlainText();
        d.findChild<QPlainTextEdit*>("seekParams")->setPlainText("selection.k=int:2..8:2");
        QTRY_VERIFY_WITH_TIMEOUT(!d.problem().isEmpty(), 3000);
        QVERIFY(!d.findChild<QPushButton*>("seekStart")->isEnabled());
        auto* status = d.findChild<QLabel*>("seekStatus");
        QVERIFY(status->text().startsWith("Cannot start"));
        QVERIFY(status->text().contains("selection.k"));
        d.findChild<QPlainTextEdit*>("seekParams")->setPlainText(defaults);
        QTRY_VERIFY_WITH_TIMEOUT(d.problem().isEmpty(), 3000);
        QVERIFY(d.findChild<QPushButton*>("seekStart")->isEnabled());
    }

    // ---- 5 ----------------------------------------------------------------------------
    void expectedRoundTimeFollowsThePolicyBeingEdited() {
        StudioOptions o;
        o.dbPath = db_;
        o.threads = 1;
        MainWindow w(o);
        Scenario s = alphaScenario();
        s.sync.name = "fedavg";
        w.document()->setScenario(s);
        QVERIFY2(w.livePlots()->expectedText().contains("fedavg"), qPrintable(w.livePlots()->expectedText()));
        w.document()->edit("policy", [](Scenario& sc) { sc.sync.name = "fully-sync"; });
        const QString text = w.livePlots()->expectedText();
        QVERIFY2(!text.contains("fedavg"), qPrintable(text));
        QVERIFY2(text.contains("fully-sync") && text.contains("closed form"), qPrintable(text));

        // A run of fully-sync shown, the policy then switched to fedavg: the line names both.
        const std::int64_t id = storeRun(*w.store(), alphaScenario(3), "fully");
        w.showStoredRun(id);
        w.document()->edit("policy", [](Scenario& sc) { sc.sync.name = "fedavg"; });
        const QString both = w.livePlots()->expectedText();
        QVERIFY2(both.startsWith("Shown run (fully-sync)") && both.contains("as edited (fedavg)"), qPrintable(both));
    }

    // ---- 6 ----------------------------------------------------------------------------
    void plotsNeverShowNegativeTime() {
        LivePlots plots;
        plots.resize(900, 700);
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        const Scenario s = alphaScenario();
        RunInfo info;
        info.scenarioName = "first";
        // A previous run out to 75 s, then a new run with one point at 12.5 s.
        plots.reset(info, s);
        std::vector<AggregationRecord> earlier;
        for (int r = 1; r <= 6; ++r) {
            AggregationRecord a;
            a.round = r;
            a.time = 12.5 * r;
            a.trainLoss = 1.0 / r;
            a.cost = 0.1 * r;
            a.energyJ = r;
            a.testAccuracy = 0.1 * r;
            earlier.push_back(a);
        }
        plots.append(earlier);
        QTest::qWait(100);
        plots.reset(info, s);
        AggregationRecord first = earlier.front();
        plots.append({first});
        QTest::qWait(100);
        for (auto p : {LivePlots::Panel::Loss, LivePlots::Panel::Accuracy, LivePlots::Panel::RoundTime,
                       LivePlots::Panel::Cost, LivePlots::Panel::Energy}) {
            const QCPRange x = plots.plot(p)->xAxis->range();
            QVERIFY2(x.lower >= 0, qPrintable(QString("panel %1: %2..%3").arg(int(p)).arg(x.lower).arg(x.upper)));
            QVERIFY(x.contains(12.5));
        }
        // The comparison's and the exports' plots too.
        QCustomPlot plot;
        plot.xAxis->setRange(0, 75);
        plotMetric(&plot, {PlotSeries{"one point", seriesColor(0), {first}}}, PlotKind::Cost);
        QVERIFY(plot.xAxis->range().lower >= 0);
        QVERIFY(plot.xAxis->range().contains(12.5));
    }

    // ---- 7 ----------------------------------------------------------------------------
    void themeSwitchAndExportsKeepTheComparisonRight() {
        StudioOptions o;
        o.dbPath = db_;
        o.threads = 1;
        MainWindow w(o);
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const std::int64_t a = storeRun(*w.store(), alphaScenario(4), "a");
        const std::int64_t b = storeRun(*w.store(), alphaScenario(6), "b");
        w.action("actionTheme_light")->trigger();
        w.compareRuns({a, b});
        QCustomPlot* acc = w.comparison()->curvePlot(PlotKind::TestAccuracy);
        QTest::qWait(50);
        // Dark while the comparison is hidden, then light again: its plots follow both.
        w.centralTabs()->setCurrentIndex(0);
        w.action("actionTheme_dark")->trigger();
        QTest::qWait(50);
        w.showComparison();
        QTest::qWait(50);
        QVERIFY(darkPlot(acc));
        w.centralTabs()->setCurrentIndex(0);
        w.action("actionTheme_light")->trigger();
        QTest::qWait(50);
        w.showComparison();
        QTest::qWait(50);
        QVERIFY2(!darkPlot(acc), qPrintable(acc->xAxis->tickLabelColor().name()));
        QVERIFY(!darkPlot(w.comparison()->tradeOffPlot()));

        // Export while dark: the files are light, the plots on screen keep ticks and colours.
        w.action("actionTheme_dark")->trigger();
        QTest::qWait(50);
        acc->replot();
        const QVector<double> ticks = acc->xAxis->tickVector();
        const QCPRange range = acc->xAxis->range();
        const QSize size = acc->size();
        QTemporaryDir out;
        QSignalSpy exported(&w, &MainWindow::plotsExported);
        w.exportPlotsTo({a, b}, out.path(), "png");
        QVERIFY(exported.wait(20000));
        const QStringList files = exported.at(0).at(0).toStringList();
        QCOMPARE(files.size(), 4);
        const QImage image(QDir(out.path()).filePath("accuracy.png"));
        QVERIFY(!image.isNull());
        QVERIFY2(!isDark(image.pixelColor(3, 3)), qPrintable(image.pixelColor(3, 3).name()));
        QVERIFY(darkPlot(acc));
        QCOMPARE(acc->xAxis->range(), range);
        QCOMPARE(acc->size(), size);
        acc->replot();
        QCOMPARE(acc->xAxis->tickVector(), ticks);
    }

    void exportsKeepTheEventLoopGoing() {
        // One figure per turn of the event loop: a timer set before the export fires before
        // its last figure is written.
        StudioOptions o;
        o.dbPath = db_;
        o.threads = 1;
        MainWindow w(o);
        const std::int64_t a = storeRun(*w.store(), alphaScenario(4), "a");
        const std::int64_t b = storeRun(*w.store(), alphaScenario(5), "b");
        QTemporaryDir out;
        QSignalSpy exported(&w, &MainWindow::plotsExported);
        bool ticked = false;
        QTimer::singleShot(0, &w, [&] { ticked = exported.isEmpty(); });
        w.exportPlotsTo({a, b}, out.path(), "svg");
        QVERIFY(exported.wait(20000));
        QVERIFY(ticked);
        QCOMPARE(exported.at(0).at(0).toStringList().size(), 4);
    }

    // ---- 8 ----------------------------------------------------------------------------
    void runsDockShowsRunsOtherProcessesStore() {
        RunStore mine(db_.toStdString());
        RunsBrowser dock;
        dock.setStore(&mine);
        dock.setPollInterval(100);
        auto* view = dock.findChild<QTableView*>();
        QVERIFY(view);
        QCOMPARE(view->model()->rowCount(), 0);
        // Another connection to the same file, as fogstudio-cli run has.
        RunStore cli(db_.toStdString());
        const std::int64_t id = storeRun(cli, alphaScenario(2), "from the CLI");
        QTRY_COMPARE_WITH_TIMEOUT(view->model()->rowCount(), 1, 5000);
        QCOMPARE(view->model()->index(0, 0).data(RunsTableModel::IdRole).toLongLong(), id);
        // A rename there shows here too.
        cli.rename(id, "renamed by the CLI");
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (int c = 0; c < view->model()->columnCount(); ++c)
                    if (view->model()->index(0, c).data().toString() == "renamed by the CLI") return true;
                return false;
            }(),
            5000);
    }

private:
    QTemporaryDir dir_;
    QString db_;
    int dbCount_ = 0;
};

QTEST_MAIN(TestStudioFixes)
#include "test_studio_fixes.moc"
