// The cluster experiment in the studio (issue 17): the cluster window (editor, live run on a
// worker thread, training with Stop, policy save/load, every episode stored), the
// comparison view's cluster pane, and the exports (CSV, plots, report) of cluster runs.

#include "widgets/figures/plot_export.h"
#include "app/export/report.h"
#include "core/cluster/cluster_compare.h"
#include "core/cluster/cluster_io.h"
#include "core/store/run_store.h"
#include "widgets/cluster/cluster_canvas.h"
#include "widgets/cluster/cluster_editor.h"
#include "widgets/cluster/cluster_view.h"
#include "widgets/cluster/cluster_window.h"
#include "widgets/compare/cluster_comparison.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/figures/qcustomplot.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QGraphicsView>
#include <QSignalSpy>
#include <QStyle>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace fog;
using namespace fog::cluster;

namespace {

const QString kPreset = QStringLiteral(FOG_SOURCE_DIR "/presets/tapfinger-edge-cluster.yaml");

/// Waits for `spy` to have a signal, at most `ms`.
bool waitFor(QSignalSpy& spy, int ms) {
    return spy.count() > 0 || spy.wait(ms);
}

} // namespace

class TestClusterStudio : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

  private Q_SLOTS:
    void windowRunsLiveAndStores() {
        const std::string db = dir_.filePath("window.db").toStdString();
        RunStore store(db);
        ClusterWindow w(&store);
        QString error;
        QVERIFY2(w.openFile(kPreset, &error), qPrintable(error));
        QCOMPARE(w.editor()->serverTable()->rowCount(), 3);
        QCOMPARE(w.editor()->taskTable()->rowCount(), 3);
        QVERIFY(w.editor()->problems().isEmpty());
        // The speed curves are drawn: two per task type (against GPUs and against CPUs).
        QCOMPARE(w.view()->speedPlot()->graphCount(), 6);
        w.editor()->schedulerBox()->setCurrentText("drf");
        QSignalSpy stored(&w, &ClusterWindow::runStored), ended(&w, &ClusterWindow::runEnded);
        QVERIFY2(w.startRun(&error), qPrintable(error));
        QVERIFY(w.busy());
        QVERIFY(!w.startRun(&error)); // one job at a time
        QVERIFY(waitFor(ended, 30000));
        QVERIFY(!w.busy());
        QCOMPARE(stored.count(), 1);
        const qint64 id = stored.at(0).at(0).toLongLong();
        const auto run = store.run(id);
        QVERIFY(run.has_value());
        QCOMPARE(run->status, std::string("finished"));
        QVERIFY(std::find(run->tags.begin(), run->tags.end(), "drf") != run->tags.end());
        // The stored scenario is the edited one (scheduler drf), and it loads back.
        QCOMPARE(loadClusterScenarioText(run->scenarioYaml, "stored").scheduler.name,
                 std::string("drf"));
        const auto back = ClusterStore(db).read(id);
        QVERIFY(back.has_value());
        QCOMPARE(back->result.summary.meanCompletion, w.lastResult().summary.meanCompletion);
        // The same as the CLI's run of that scheduler and seed.
        ClusterScenario s = loadClusterScenarioFile(kPreset.toStdString());
        auto drf = makeScheduler("drf", s);
        QCOMPARE(runCluster(s, *drf, s.seed).summary.meanCompletion,
                 w.lastResult().summary.meanCompletion);
        // Every plot got the episode.
        QCOMPARE(w.view()->queuePlot()->graph(0)->dataCount(), int(w.lastResult().samples.size()));
        QCOMPARE(w.view()->utilisationPlot()->graphCount(), 4);
        QCOMPARE(w.view()->cdfPlot()->graph(0)->dataCount(), 200);
        QCOMPARE(w.view()->ganttPlot()->itemCount(), int(w.lastResult().intervals.size()));
        // The drawn servers show their mean use over the episode; weighted by capacity they
        // add up to the cluster's utilisation in the summary.
        double gpuSum = 0, gpus = 0, cpuSum = 0, cpus = 0;
        const auto refs = flattenServers(s);
        for (int row = 0; row < int(refs.size()); ++row) {
            const double g = w.canvas()->shownUse(row, ClusterCanvas::Gpu);
            const double c = w.canvas()->shownUse(row, ClusterCanvas::Cpu);
            QVERIFY(g >= 0 && g <= 1 + 1e-9);
            QVERIFY(c >= 0 && c <= 1 + 1e-9);
            gpuSum += g * refs[row].spec->gpus;
            gpus += refs[row].spec->gpus;
            cpuSum += c * refs[row].spec->cpus;
            cpus += refs[row].spec->cpus;
        }
        QVERIFY(w.lastResult().summary.gpuUtilisation > 0.05);
        QVERIFY(std::abs(gpuSum / gpus - w.lastResult().summary.gpuUtilisation) < 1e-6);
        QVERIFY(std::abs(cpuSum / cpus - w.lastResult().summary.cpuUtilisation) < 1e-6);
        // An edit clears the shares (they were of the scenario before it).
        w.editor()->serverTable()->item(0, ClusterEditor::SCpus)->setText("32");
        QCOMPARE(w.canvas()->shownUse(0, ClusterCanvas::Cpu), -1.0);
    }

    // The drawn cluster: a server added through the canvas changes the scenario (through the
    // editor's table, so its checks apply), and selection is the same in the canvas and the
    // table both ways.
    void canvasEditsScenarioAndSyncsSelection() {
        ClusterWindow w(nullptr);
        QString error;
        QVERIFY2(w.openFile(kPreset, &error), qPrintable(error));
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        ClusterCanvas* c = w.canvas();
        QTableWidget* table = w.editor()->serverTable();
        QCOMPARE(c->boxCount(), 3);
        QCOMPARE(c->frameCount(), 3);
        QVERIFY(!w.isWindowModified());
        QCOMPARE(c->shownUse(0, ClusterCanvas::Cpu), -1.0); // capacities only before a run
        // Live: the boxes fill with the share in use of the states a run reports.
        {
            const ClusterScenario s0 = w.scenario();
            c->beginLive(s0);
            std::vector<ServerState> live(3);
            live[2].freeCpus = 4;      // edge-c-0: 16 CPUs, 12 in use
            live[2].freeGpus = 8;      // no GPU in use
            live[2].freeMemoryGb = 32; // 96 of 128 GB
            c->setLive(live);
            QCOMPARE(c->shownUse(2, ClusterCanvas::Cpu), 0.75);
            QCOMPARE(c->shownUse(2, ClusterCanvas::Gpu), 0.0);
            QCOMPARE(c->shownUse(2, ClusterCanvas::Memory), 0.75);
            c->clearUse();
            QCOMPARE(c->shownUse(2, ClusterCanvas::Cpu), -1.0);
        }
        auto tableRows = [table] {
            QList<int> rows;
            for (const QModelIndex& i : table->selectionModel()->selectedRows())
                rows << i.row();
            std::sort(rows.begin(), rows.end());
            return rows;
        };

        // Click a box: its table row is selected.
        QGraphicsView* v = c->graphicsView();
        QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, v->mapFromScene(c->boxCenter(1)));
        QCOMPARE(c->selectedRows(), QList<int>{1});
        QCOMPARE(tableRows(), QList<int>{1});
        QCOMPARE(table->currentRow(), 1);
        // Select a table row: its box is selected.
        table->selectRow(2);
        QCOMPARE(c->selectedRows(), QList<int>{2});
        // Click empty canvas: nothing selected on either side.
        QTest::mouseClick(v->viewport(), Qt::LeftButton, {},
                          QPoint(v->viewport()->width() - 3, v->viewport()->height() - 3));
        QVERIFY(c->selectedRows().isEmpty());
        QVERIFY(tableRows().isEmpty());

        // The context menu of cluster edge-b's frame: "Add server in edge-b".
        QObject owner;
        QAction* add = nullptr;
        for (QAction* a : c->contextActions(c->frameTitlePoint("edge-b"), &owner))
            if (a->text() == "Add server in edge-b") add = a;
        QVERIFY(add);
        add->trigger();
        ClusterScenario s = w.scenario();
        QCOMPARE(s.clusters.size(), std::size_t(3));
        QCOMPARE(s.clusters[1].id, std::string("edge-b"));
        QCOMPARE(s.clusters[1].servers.size(), std::size_t(2));
        QCOMPARE(s.clusters[1].servers[1].id, std::string("edge-b-1"));
        QVERIFY(w.editor()->problems().isEmpty());
        QVERIFY(w.isWindowModified());
        QCOMPARE(c->boxCount(), 4);
        QCOMPARE(table->rowCount(), 4);
        // The new server is selected on both sides (row 2: just after edge-b-0).
        QCOMPARE(table->item(2, ClusterEditor::SId)->text(), QString("edge-b-1"));
        QCOMPARE(c->selectedRows(), QList<int>{2});
        QCOMPARE(tableRows(), QList<int>{2});

        // Its capacities are edited in the table; the box follows, and the loader's checks
        // apply (a negative GPU count is a problem that names the field).
        table->item(2, ClusterEditor::SGpus)->setText("-1");
        QVERIFY(w.editor()->problems().join("\n").contains("clusters[1].servers[1].gpus"));
        QCOMPARE(c->boxCount(), 4);
        table->item(2, ClusterEditor::SGpus)->setText("2");
        QVERIFY(w.editor()->problems().isEmpty());
        QCOMPARE(w.scenario().clusters[1].servers[1].gpus, 2);

        // Toolbar: Duplicate the selected box, then Remove it again.
        table->selectRow(2);
        c->duplicateAction()->trigger();
        QCOMPARE(w.scenario().clusters[1].servers.size(), std::size_t(3));
        QCOMPARE(w.scenario().clusters[1].servers[2].gpus, 2);
        QCOMPARE(c->selectedRows(), QList<int>{3});
        c->removeAction()->trigger();
        QCOMPARE(w.scenario().clusters[1].servers.size(), std::size_t(2));
        QCOMPARE(c->boxCount(), 4);

        // Drag edge-b-1 onto cluster edge-c's frame: it moves to edge-c.
        const QPoint from = v->mapFromScene(c->boxCenter(2));
        const QPoint to = v->mapFromScene(c->frameTitlePoint("edge-c"));
        QTest::mousePress(v->viewport(), Qt::LeftButton, {}, from);
        QMouseEvent move(QEvent::MouseMove, QPointF(to), v->viewport()->mapToGlobal(QPointF(to)),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(v->viewport(), &move);
        QTest::mouseRelease(v->viewport(), Qt::LeftButton, {}, to);
        QTRY_COMPARE(w.scenario().clusters[2].servers.size(), std::size_t(2));
        QCOMPARE(w.scenario().clusters[1].servers.size(), std::size_t(1));
        QCOMPARE(w.scenario().clusters[2].servers[1].id, std::string("edge-b-1"));

        // Cluster-level: duplicate edge-a from its frame's menu, remove edge-c, add a cluster.
        for (QAction* a : c->contextActions(c->frameTitlePoint("edge-a"), &owner))
            if (a->text() == "Duplicate cluster edge-a") a->trigger();
        s = w.scenario();
        QCOMPARE(s.clusters.size(), std::size_t(4));
        QCOMPARE(s.clusters[3].id, std::string("edge-a-copy"));
        QCOMPARE(s.clusters[3].servers[0].id, std::string("edge-a-copy-0"));
        QCOMPARE(s.clusters[3].servers[0].gpus, 4);
        for (QAction* a : c->contextActions(c->frameTitlePoint("edge-c"), &owner))
            if (a->text() == "Remove cluster edge-c") a->trigger();
        QCOMPARE(w.scenario().clusters.size(), std::size_t(3));
        c->addClusterAction()->trigger();
        QCOMPARE(w.scenario().clusters.size(), std::size_t(4));
        QCOMPARE(c->frameCount(), 4);
        QCOMPARE(c->boxCount(), table->rowCount());
        QVERIFY(w.editor()->problems().isEmpty());
        // The empty canvas's menu offers only Add cluster.
        const auto empty = c->contextActions(QPointF(-1000, -1000), &owner);
        QCOMPARE(empty.size(), 1);
        QCOMPARE(empty[0]->text(), QString("Add cluster"));
        // (not closed: an edited scenario with a file would ask whether to save it)
    }

    void editorReportsProblemsAndRefusesToRun() {
        ClusterWindow w(nullptr);
        QString error;
        QVERIFY(w.openFile(kPreset, &error));
        // A task type needing more GPUs than any server has.
        w.editor()->taskTable()->item(0, ClusterEditor::TMinGpus)->setText("9");
        w.editor()->taskTable()->item(0, ClusterEditor::TMaxGpus)->setText("9");
        w.editor()->taskTable()->item(0, ClusterEditor::TReqGpus)->setText("9");
        const QStringList p = w.editor()->problems();
        QVERIFY2(p.join("\n").contains("task_types[0] 'image-classification' fits no server"),
                 qPrintable(p.join("\n")));
        QVERIFY(w.isWindowModified());
        QVERIFY(!w.startRun(&error));
        QVERIFY2(error.contains("fits no server"), qPrintable(error));
        // Text that is not a number names the cell's key.
        w.editor()->serverTable()->item(1, ClusterEditor::SCpus)->setText("lots");
        QVERIFY2(w.editor()->problems().join("\n").contains(
                     "clusters[1].servers[0].cpus must be a whole number, got 'lots'"),
                 qPrintable(w.editor()->problems().join("\n")));
        // Adding a cluster and a task type gives valid defaults.
        w.editor()->serverTable()->item(1, ClusterEditor::SCpus)->setText("16");
        for (int c : {ClusterEditor::TMinGpus, ClusterEditor::TMaxGpus, ClusterEditor::TReqGpus})
            w.editor()->taskTable()->item(0, c)->setText("1");
        w.editor()->addCluster();
        w.editor()->addTaskType();
        QVERIFY2(w.editor()->problems().isEmpty(), qPrintable(w.editor()->problems().join("\n")));
        QCOMPARE(w.scenario().clusters.size(), std::size_t(4));
        QCOMPARE(w.scenario().taskTypes.size(), std::size_t(4));
        // Saving writes a file that loads back to the edited scenario.
        const QString path = dir_.filePath("edited.yaml");
        QVERIFY2(w.saveScenario(path, &error), qPrintable(error));
        QVERIFY(!w.isWindowModified());
        const ClusterScenario s = loadClusterScenarioFile(path.toStdString());
        QCOMPARE(s.clusters.size(), std::size_t(4));
        QCOMPARE(s.taskTypes[3].name, std::string("type-1"));
    }

    void trainingStopsAndSavesPolicy() {
        const std::string db = dir_.filePath("train.db").toStdString();
        RunStore store(db);
        ClusterWindow w(&store);
        QString error;
        QVERIFY(w.openFile(kPreset, &error));
        QSignalSpy ended(&w, &ClusterWindow::trainingEnded);
        QVERIFY2(w.startTraining(1000, &error), qPrintable(error));
        QVERIFY(w.busy());
        // The reward curve grows live (one update = 4 episodes); Stop ends it promptly with
        // the best policy so far.
        QTRY_VERIFY_WITH_TIMEOUT(w.view()->trainingPlot()->graph(0)->dataCount() >= 4, 60000);
        w.stop();
        QVERIFY(waitFor(ended, 20000));
        QVERIFY(!w.busy());
        QVERIFY(w.lastTraining().curve.size() >= 4 && w.lastTraining().curve.size() < 1000);
        if (const QString out = qEnvironmentVariable("FOG_SCREENSHOT_DIR"); !out.isEmpty()) {
            w.resize(1280, 720);
            w.show();
            QTest::qWait(100);
            w.grab().save(out + "/cluster-training.png");
        }
        {
            QVERIFY(w.policy() != nullptr);
            QVERIFY(w.view()->trainingPlot()->graph(0)->dataCount() > 0);
            const QString policy = dir_.filePath("p.pt");
            QVERIFY2(w.savePolicy(policy, &error), qPrintable(error));
            QVERIFY2(w.loadPolicy(policy, &error), qPrintable(error));
            // The learned scheduler runs with the policy in memory and stores its bytes.
            w.editor()->schedulerBox()->setCurrentText("learned");
            QSignalSpy stored(&w, &ClusterWindow::runStored);
            QVERIFY2(w.startRun(&error), qPrintable(error));
            QTest::qWait(50);
            w.stop(); // Stop during a run: stored as cancelled
            QVERIFY(waitFor(stored, 30000));
            const auto run = store.run(stored.at(0).at(0).toLongLong());
            QVERIFY(run.has_value());
            QVERIFY2(run->status == "cancelled" || run->status == "finished", run->status.c_str());
            QVERIFY(!ClusterStore(db).read(run->id)->policyBytes.empty());
        }
        // Stop with nothing running is harmless.
        w.stop();
        QVERIFY(!w.busy());
    }

    void learnedWithoutPolicySaysHow() {
        ClusterWindow w(nullptr);
        QString error;
        QVERIFY(w.openFile(kPreset, &error));
        w.editor()->schedulerBox()->setCurrentText("learned");
        QVERIFY(!w.startRun(&error));
        QVERIFY2(error.contains("needs a trained policy"), qPrintable(error));
        QVERIFY(!w.busy());
    }

    void comparisonAndExports() {
        const std::string db = dir_.filePath("compare.db").toStdString();
        RunStore store(db);
        const ClusterScenario s = loadClusterScenarioFile(kPreset.toStdString());
        QList<qint64> ids;
        std::vector<std::int64_t> all;
        for (const char* name : {"fifo", "optimus"})
            for (std::uint64_t seed = 1; seed <= 3; ++seed) {
                auto sched = makeScheduler(name, s);
                NewRun run;
                run.tags = {"cluster", name};
                const auto id = storeClusterRun(store, s, runCluster(s, *sched, seed), run);
                ids << id;
                all.push_back(id);
            }
        ComparisonView view;
        view.setStore(&store);
        view.setRuns(ids);
        if (const QString out = qEnvironmentVariable("FOG_SCREENSHOT_DIR"); !out.isEmpty()) {
            view.resize(1280, 720);
            view.show();
            QTest::qWait(100);
            view.grab().save(out + "/cluster-comparison.png");
        }
        ClusterComparison* c = view.clusterComparison();
        QVERIFY(!c->isHidden());
        QCOMPARE(c->cdfPlot()->graphCount(), 6);
        QCOMPARE(c->groups().size(), std::size_t(2));
        QCOMPARE(c->table()->rowCount(), 2);
        QCOMPARE(c->table()->item(0, ClusterComparison::SchedulerCol)->text(), QString("fifo"));
        QVERIFY2(c->table()
                     ->item(0, ClusterComparison::MeanCol)
                     ->text()
                     .contains(QString::fromUtf8("±")),
                 qPrintable(c->table()->item(0, ClusterComparison::MeanCol)->text()));
        // The group's mean is the mean of its runs' means.
        double sum = 0;
        for (int i = 0; i < 3; ++i)
            sum += c->runs()[i].data.result.summary.meanCompletion;
        QVERIFY(std::abs(c->groups()[0].meanCompletion.mean - sum / 3) < 1e-12);
        QCOMPARE(c->groups()[0].meanCompletion.n, 3);
        // Only cluster runs: the training curves are hidden, the plots to export are the cluster
        // ones.
        QStringList stems;
        for (const auto& [stem, plot] : view.plots())
            stems << stem;
        QCOMPARE(stems, (QStringList{"completion_cdf", "completion_by_scheduler"}));
        QString error;
        const QString png = dir_.filePath("cdf.png");
        QVERIFY2(savePlot(view.plots()[0].second, png, 900, 600, &error), qPrintable(error));
        QVERIFY(QFileInfo(png).size() > 1000);

        // CSV: per group and per run.
        const auto runs = loadClusterRuns(db, all, std::vector<std::string>(all.size(), s.name));
        std::ostringstream groups, perRun;
        writeClusterGroupsCsv(groupClusterRuns(runs), groups);
        writeClusterRunsCsv(runs, perRun);
        QVERIFY2(
            groups.str().rfind(
                "scenario,scheduler,runs,incomplete,mean_completion,mean_completion_ci95", 0) == 0,
            groups.str().c_str());
        QVERIFY(groups.str().find("\"TapFinger edge cluster (INFOCOM 2023)\",fifo,3,0,") ==
                std::string::npos);
        QVERIFY(groups.str().find("TapFinger edge cluster (INFOCOM 2023),optimus,3,0,") !=
                std::string::npos);
        const std::string rows = perRun.str();
        QCOMPARE(std::count(rows.begin(), rows.end(), '\n'), std::ptrdiff_t(7));

        // Report: HTML with the group table and the CDF figure.
        const QString html = dir_.filePath("report.html");
        QVERIFY2(writeReport(loadReportRuns(store, all), html, ReportOptions{}, &error),
                 qPrintable(error));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        QVERIFY(text.contains("comparison of 6 cluster runs"));
        QVERIFY(text.contains("<td>optimus</td>"));
        QVERIFY(text.contains("data:image/png;base64,"));
        const QString pdf = dir_.filePath("report.pdf");
        QVERIFY2(writeReport(loadReportRuns(store, all), pdf, ReportOptions{}, &error),
                 qPrintable(error));
        QVERIFY(QFileInfo(pdf).size() > 1000);
    }

    void themedScreenshots_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    // The window at 1280x720 in the studio's light and dark palettes (the values of
    // app/gui/theme.cpp, Fusion style). With FOG_SCREENSHOT_DIR set, every tab is saved
    // there to be looked at (run under xvfb-run with QT_QPA_PLATFORM=xcb for a real X
    // server); here: it renders, and the plots take the palette's colours.
    void themedScreenshots() {
        QFETCH(bool, dark);
        const QPalette before = QApplication::palette();
        QApplication::setStyle("Fusion");
        QPalette p = QApplication::style()->standardPalette();
        if (dark) {
            const QColor window(0x2b, 0x2d, 0x31), base(0x1f, 0x21, 0x24), text(0xe6, 0xe6, 0xe6),
                grey(0x80, 0x80, 0x80);
            for (auto [role, c] : {std::pair{QPalette::Window, window},
                                   {QPalette::WindowText, text},
                                   {QPalette::Base, base},
                                   {QPalette::AlternateBase, window},
                                   {QPalette::Text, text},
                                   {QPalette::Button, window},
                                   {QPalette::ButtonText, text},
                                   {QPalette::ToolTipBase, base},
                                   {QPalette::ToolTipText, text},
                                   {QPalette::Highlight, QColor(0x3d, 0x7e, 0xd6)},
                                   {QPalette::HighlightedText, QColor(Qt::white)},
                                   {QPalette::Light, window.lighter(150)},
                                   {QPalette::Midlight, window.lighter(125)},
                                   {QPalette::Mid, window.darker(120)},
                                   {QPalette::Dark, window.darker(150)},
                                   {QPalette::PlaceholderText, grey}})
                p.setColor(role, c);
            for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
                p.setColor(QPalette::Disabled, role, grey);
        }
        QApplication::setPalette(p);
        RunStore store(dir_.filePath(dark ? "dark.db" : "light.db").toStdString());
        ClusterWindow w(&store);
        QString error;
        QVERIFY(w.openFile(kPreset, &error));
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy ended(&w, &ClusterWindow::runEnded);
        QVERIFY(w.startRun(&error));
        QVERIFY(waitFor(ended, 30000));
        QTest::qWait(50); // queued replots
        QCOMPARE(w.view()->queuePlot()->xAxis->tickLabelColor(), p.color(QPalette::WindowText));
        w.editor()->serverTable()->selectRow(1); // a selected box in the pictures
        QCOMPARE(w.canvas()->selectedRows(), QList<int>{1});
        const QString out = qEnvironmentVariable("FOG_SCREENSHOT_DIR");
        if (!out.isEmpty())
            for (int i = 0; i < w.view()->tabs()->count(); ++i) {
                w.view()->tabs()->setCurrentIndex(i);
                QTest::qWait(50);
                w.grab().save(
                    QString("%1/cluster-%2-%3.png").arg(out, dark ? "dark" : "light").arg(i));
            }
        w.close();
        QApplication::setPalette(before);
    }
};

QTEST_MAIN(TestClusterStudio)
#include "test_cluster_studio.moc"
