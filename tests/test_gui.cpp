// The studio's main window, offscreen: it opens ready to run, a topology built through the
// editor's API runs and is stored, the panels edit the scenario undoably, problems block a
// run, two stored runs are compared, and the window stays responsive during a run.

#include "app/gui/main_window.h"
#include "engine_fixtures.h"
#include "event_loop_probe.h"
#include "wall_bounds.h"
#include "app/gui/presets.h"
#include "core/store/run_store.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/document/scenario_document.h"
#include "widgets/policy/policy_panel.h"
#include "widgets/policy/settings_panel.h"
#include "widgets/run/run_controller.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/runs/runs_table_model.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QListWidget>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include "widgets/figures/qcustomplot.h"

using namespace fog;

namespace {

/// A scenario that runs in a fraction of a second: timing only (no data, no model), one
/// server and `devices` trainers with exponential step times.
void makeTimingOnly(ScenarioDocument* doc, int devices, int rounds) {
    Scenario s;
    s.name = "gui test";
    s.seed = 7;
    doc->setScenario(s);
    NodeSpec server;
    server.id = "server";
    server.tier = Tier::Cloud;
    server.role = Role::Aggregator;
    server.pricePerHour = 3.6;
    doc->addNode(server);
    NodeSpec g;
    g.group = true;
    g.id = "phone";
    g.count = devices;
    g.parent = "server";
    g.compute.throughput = Range::exactly(100.0);
    g.compute.noise.kind = NoiseSpec::Kind::Exponential;
    doc->addNode(g);
    doc->edit("timing only", [rounds](Scenario& sc) {
        sc.data.kind = DataSpec::Kind::None;
        sc.model.kind = ModelSpec::Kind::None;
        sc.sync.name = "fully-sync";
        sc.stop.rounds = rounds;
    });
}

/// Closes the message box a failing action opens (a test must never wait on a dialog).
void closeNextDialog() {
    QTimer::singleShot(50, [] {
        if (QWidget* w = QApplication::activeModalWidget()) w->close();
    });
}

bool waitForFinish(MainWindow& w, int timeoutMs) {
    QSignalSpy finished(w.controller(), &RunController::finished);
    if (!finished.isEmpty()) return true;
    return finished.wait(timeoutMs);
}

} // namespace

class TestGui : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // QSettings and data paths of their own
        QVERIFY(dir_.isValid());
    }

    void opensWithDefaultScenarioReadyToRun() {
        MainWindow w(options());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(!w.document()->scenario().topology.nodes.empty());
        QVERIFY(w.document()->diagnostics().empty());
        QVERIFY(w.action("actionRun")->isEnabled());
        QVERIFY(!w.document()->isModified());
        // The Presets menu lists the shipped scenarios.
        QMenu* presets = nullptr;
        for (QAction* a : w.menuBar()->actions())
            if (a->text().remove('&') == "Presets") presets = a->menu();
        QVERIFY(presets);
        QVERIFY(presets->actions().size() >= 1);
        QVERIFY(presets->actions().first()->isEnabled());
    }

    void topologyBuiltInTheEditorRunsAndIsStored() {
        MainWindow w(options());
        w.show();
        makeTimingOnly(w.document(), 4, 6);
        QVERIFY2(w.document()->diagnostics().empty(), "the built scenario validates");
        QVERIFY(w.action("actionRun")->isEnabled());
        QSignalSpy metrics(w.controller(), &RunController::metrics);
        w.action("actionRun")->trigger();
        QVERIFY(waitForFinish(w, 30000));
        QVERIFY(!metrics.isEmpty());
        QCOMPARE(w.controller()->state(), RunController::State::Finished);
        const qint64 id = w.controller()->runId();
        const auto run = w.store()->run(id);
        QVERIFY(run.has_value());
        QCOMPARE(run->status, std::string("finished"));
        QCOMPARE(run->summary.rounds, 6);
        QVERIFY(run->summary.virtualTime > 0);
        QVERIFY(run->summary.cost > 0);
        // The runs dock lists it.
        QVERIFY(w.runsBrowser()->model()->rowCount() >= 1);
    }

    /// The status bar's accuracy is the latest evaluation's, as the CLI's progress line:
    /// evaluating every 4 rounds, a run stopped by its time limit after round 7 (a round
    /// without evaluation) shows round 4's accuracy, not "–".
    void statusBarKeepsTheLatestAccuracy() {
        constexpr double kStopAt = 2.0; // rounds 1-7 end before it (seed 7); round 7 has no evaluation
        MainWindow w(options());
        w.show();
        makeTimingOnly(w.document(), 2, 6);
        w.document()->edit("small real run", [](Scenario& s) {
            fogtest::useSmallRealTraining(s, 20);
            s.evaluation.everyRounds = 4;
            s.stop.rounds = 0;
            s.stop.virtualTimeS = kStopAt;
        });
        QVERIFY2(w.document()->diagnostics().empty(), "the scenario validates");
        QSignalSpy metrics(w.controller(), &RunController::metrics);
        w.action("actionRun")->trigger();
        QVERIFY(waitForFinish(w, 60000));
        QTest::qWait(50);
        double evaluated = std::numeric_limits<double>::quiet_NaN();
        int lastRound = 0;
        for (const auto& args : metrics)
            for (const auto& r : args.at(0).value<std::vector<AggregationRecord>>())
                if (r.level == 0) {
                    lastRound = r.round;
                    if (!std::isnan(r.testAccuracy)) evaluated = r.testAccuracy;
                    else QVERIFY(r.round != 4);

                }
        QVERIFY2(lastRound > 4 && lastRound % 4 != 0, "the run ends on a round without evaluation");
        QVERIFY(!std::isnan(evaluated));
        QString status;
        for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
            if (l->text().startsWith("round ")) status = l->text();
        QVERIFY2(status.contains(QString("acc %1%").arg(100 * evaluated, 0, 'f', 1)), qPrintable(status));
    }

    void policyPanelEditsAreUndoable() {
        MainWindow w(options());
        ScenarioDocument* doc = w.document();
        const std::string before = doc->scenario().sync.name;
        QComboBox* name = w.policyPanel()->syncChooser()->nameBox();
        name->setCurrentIndex(name->findText("n-sync"));
        QCOMPARE(doc->scenario().sync.name, std::string("n-sync"));
        QVERIFY(doc->isModified());
        auto* n = qobject_cast<QSpinBox*>(w.policyPanel()->syncChooser()->paramEditor("n"));
        QVERIFY(n);
        n->setValue(3);
        n->setValue(4); // typing into one field is one undo step
        QCOMPARE(doc->scenario().sync.get("n", 0), 4.0);
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().sync.get("n", 0), 1.0);
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().sync.name, before);
        QVERIFY(!doc->isModified());
        // The panel follows the document on undo/redo.
        QCOMPARE(name->currentText().toStdString(), before);
        doc->undoStack()->redo();
        QCOMPARE(name->currentText(), QString("n-sync"));
    }

    void problemsBlockTheRunAndNameTheField() {
        MainWindow w(options());
        ScenarioDocument* doc = w.document();
        doc->edit("bad", [](Scenario& s) { s.training.batchSize = 0; });
        QVERIFY(!doc->diagnostics().empty());
        QVERIFY(!w.action("actionRun")->isEnabled());
        auto* problems = w.findChild<QListWidget*>("problemsList");
        QVERIFY(problems);
        QVERIFY(problems->count() >= 1);
        QVERIFY(problems->item(0)->text().contains("training.batch_size"));
        doc->undoStack()->undo();
        QCOMPARE(problems->count(), 0);
        QVERIFY(w.action("actionRun")->isEnabled());
    }

    void settingsPanelEditsTheScenario() {
        MainWindow w(options());
        auto* rounds = qobject_cast<QSpinBox*>(w.settingsPanel()->editorFor("stop.rounds"));
        QVERIFY(rounds);
        rounds->setValue(33);
        QCOMPARE(w.document()->scenario().stop.rounds, 33);
        w.document()->undoStack()->undo();
        QVERIFY(w.document()->scenario().stop.rounds != 33);
        QCOMPARE(rounds->value(), w.document()->scenario().stop.rounds);
    }

    void brokenFileKeepsTheDocument() {
        MainWindow w(options());
        const Scenario before = w.document()->scenario();
        closeNextDialog();
        // Issue 14: a file with bad values now opens to be fixed (test_studio_layout checks it);
        // a file that is not a scenario at all still leaves the document as it was.
        QVERIFY(!w.openScenario(QStringLiteral(FOG_TEST_DATA "/scenarios/bad/syntax_error.yaml"), false));
        QCOMPARE(w.document()->scenario().name, before.name);
        QCOMPARE(w.document()->scenario().topology.nodes.size(), before.topology.nodes.size());
    }

    void twoStoredRunsAreCompared() {
        MainWindow w(options());
        QList<qint64> ids;
        for (const char* policy : {"fully-sync", "n-sync"}) {
            makeTimingOnly(w.document(), 5, 8);
            w.document()->edit("policy", [policy](Scenario& s) {
                s.sync.name = policy;
                if (s.sync.name == "n-sync") s.sync.params["n"] = 2;
            });
            w.startRun();
            QVERIFY(waitForFinish(w, 30000));
            ids << w.controller()->runId();
        }
        w.compareRuns(ids);
        QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget*>(w.comparison()));
        QCOMPARE(w.comparison()->runIds().size(), 2);
        QCustomPlot* cost = w.comparison()->curvePlot(PlotKind::Cost);
        QVERIFY(cost);
        QCOMPARE(cost->graphCount() >= 2, true);
        // n-sync (first 2 of 5) ends its rounds sooner than fully-sync: the comparison shows it.
        const auto a = w.store()->run(ids[0]);
        const auto b = w.store()->run(ids[1]);
        QVERIFY(b->summary.virtualTime < a->summary.virtualTime);
    }

    void pinnedBaselineIsKeptAcrossSessions() {
        qint64 id = 0;
        {
            MainWindow w(options());
            makeTimingOnly(w.document(), 3, 2);
            w.startRun();
            QVERIFY(waitForFinish(w, 30000));
            id = w.controller()->runId();
            w.runsBrowser()->setBaseline(id);
        }
        MainWindow again(options());
        QCOMPARE(again.runsBrowser()->baseline(), id);
        QCOMPARE(again.comparison()->baseline(), id);
    }

    void closingWithASelectionIsSafe() {
        // Tearing the window down must not let the inspector ask a deleted document.
        auto* w = new MainWindow(options());
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w));
        w->canvas()->topologyScene()->selectIds({"cloud", "edge-1"});
        QCOMPARE(w->canvas()->topologyScene()->selectedIds().size(), 2);
        delete w; // crashed before the fix
    }

    void undoingAMoveOfAnUnplacedNodePutsItBack() {
        // The quickstart has no positions: its nodes sit where the layout puts them.
        MainWindow w(options());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        NodeItem* cloud = w.canvas()->topologyScene()->item("cloud");
        QVERIFY(cloud);
        const QPointF before = cloud->pos();
        w.document()->moveEntities({"cloud"}, {before + QPointF(400, 300)});
        QTRY_COMPARE(cloud->pos(), before + QPointF(400, 300));
        w.document()->undoStack()->undo();
        QTRY_COMPARE(cloud->pos(), before);
    }

    void windowStaysResponsiveDuringARun() {
        // The issue asks for the event-loop latency to be measured here: a 10 ms timer on the
        // GUI thread is never held more than 100 ms by the studio (handlers, locks) while a
        // real training run (Fashion-MNIST, plots and canvas attached) goes on.
        MainWindow w(options());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.document()->edit("short", [](Scenario& s) {
            s.stop.rounds = 4;
            s.data.maxTrainSamples = 6000;
            s.data.maxTestSamples = 2000;
        });
        EventLoopProbe probe;
        QSignalSpy finished(w.controller(), &RunController::finished);
        probe.start();
        w.startRun();
        QVERIFY(finished.wait(120000));
        probe.stop();
        qInfo("event loop during a Fashion-MNIST run: %s", qPrintable(probe.report()));
        QVERIFY(probe.ticks() > 10);
        QVERIFY2(probe.maxBlockedMs() <= fogtest::kGuiBlockedMs, qPrintable(probe.report()));
    }

private:
    StudioOptions options() {
        StudioOptions o;
        o.dbPath = dir_.filePath("runs.db");
        o.threads = 1;
        return o;
    }

    QTemporaryDir dir_;
};

QTEST_MAIN(TestGui)
#include "test_gui.moc"
