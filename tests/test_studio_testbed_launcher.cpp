// Run > Run on Testbed (app/gui/testbed_launcher.cpp) as a user meets it: the dialog shows what
// the CLI prints, Stop stops it, and closing the studio while the testbed still runs neither
// crashes nor leaves the CLI running. A stand-in `fogstudio-cli` on PATH (a shell script that
// prints and waits) plays the CLI, so no root is needed.

#include "app/gui/testbed_launcher.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/testbed/testbed_store.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/testbed/testbed_comparison_view.h"

#include <QDialog>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

#include <cerrno>
#include <cmath>
#include <signal.h>

using namespace fog;

namespace {

const std::string kPresets = std::string(FOG_SOURCE_DIR) + "/presets/";

/// 0 while the process runs; after it ended (and was reaped) kill() says there is none.
bool gone(qint64 pid) { return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH; }

} // namespace

class TestStudioTestbedLauncher : public QObject {
    Q_OBJECT

    QTemporaryDir bin_;
    QByteArray oldPath_;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(bin_.isValid());
        // Prints its arguments, then waits until it is told to stop (exit 130, as the
        // testbed after Ctrl-C or SIGTERM).
        QFile cli(bin_.filePath("fogstudio-cli"));
        QVERIFY(cli.open(QIODevice::WriteOnly));
        cli.write("#!/bin/sh\n"
                  "echo \"testbed stand-in: $*\"\n"
                  // As the testbed ends when it stored its runs (FOG_STANDIN_STORED: the measured run).
                  "if [ -n \"$FOG_STANDIN_STORED\" ]; then\n"
                  "  echo \"  stored as run $FOG_STANDIN_STORED (testbed) and run 1 (prediction)\"; exit 0\n"
                  "fi\n"
                  "sleep 60 &\n"
                  "waiting=$!\n"
                  "trap 'kill $waiting 2>/dev/null; echo stopped; exit 130' TERM INT\n"
                  "wait $waiting\n");
        cli.close();
        QVERIFY(cli.setPermissions(QFile::permissions(cli.fileName()) | QFileDevice::ExeOwner));
        oldPath_ = qgetenv("PATH");
        qputenv("PATH", bin_.path().toUtf8() + ":" + oldPath_);
    }
    void cleanupTestCase() { qputenv("PATH", oldPath_); }

    void showsTheOutputAndStops() {
        QWidget window;
        int stored = 0;
        runOnTestbed(&window, loadScenarioFile(kPresets + "quickstart.yaml"), bin_.filePath("runs.db"),
                     [&] { ++stored; });
        auto* dialog = window.findChild<QDialog*>("testbedDialog");
        QVERIFY(dialog);
        auto* text = dialog->findChild<QPlainTextEdit*>();
        QVERIFY(text);
        QTRY_VERIFY_WITH_TIMEOUT(text->toPlainText().contains("testbed stand-in: testbed "), 20000);
        QVERIFY(text->toPlainText().contains("--db " + bin_.filePath("runs.db")));
        QPushButton* stop = nullptr;
        for (auto* b : dialog->findChildren<QPushButton*>())
            if (b->text() == "Stop") stop = b;
        QVERIFY(stop && stop->isEnabled());
        stop->click();
        QTRY_COMPARE_WITH_TIMEOUT(stored, 1, 20000);
        QVERIFY(!stop->isEnabled());
        bool said = false;
        for (auto* l : dialog->findChildren<QLabel*>()) said = said || l->text().startsWith("Stopped:");
        QVERIFY(said);
    }

    /// A testbed run that was stored: its comparison opens by itself when the command ends,
    /// on the measured run it named, and Show Comparison opens it again.
    void opensTheComparisonAfterARun() {
        const QString db = bin_.filePath("stored.db");
        qint64 measured = 0;
        {
            RunStore store(db.toStdString());
            NewRun pm;
            pm.name = "stand-in (testbed prediction)";
            const qint64 prediction = store.beginRun(pm);
            std::vector<AggregationRecord> rows(2);
            rows[0].round = 1;
            rows[0].time = 1.0;
            rows[1].round = 2;
            rows[1].time = 2.0;
            store.appendMetrics(prediction, rows);
            RunSummary ps;
            ps.status = RunStatus::Finished;
            store.finishRun(prediction, ps);
            testbed::TestbedPlan plan;
            plan.boxes.resize(1);
            plan.boxes[0].label = "server";
            testbed::TestbedResult result;
            for (int r = 0; r < 2; ++r) {
                testbed::MeasuredRound mr;
                mr.round = r + 1;
                mr.startS = 1.1 * r;
                mr.endS = 1.1 * (r + 1);
                result.rounds.push_back(mr);
            }
            NewRun mm;
            mm.name = "stand-in (testbed)";
            mm.tags = {"testbed"};
            measured = testbed::storeTestbedRun(store, mm, RunInfo{}, plan, result, prediction);
        }
        qputenv("FOG_STANDIN_STORED", QByteArray::number(measured));
        QWidget window;
        int stored = 0;
        runOnTestbed(&window, loadScenarioFile(kPresets + "quickstart.yaml"), db, [&] { ++stored; });
        qunsetenv("FOG_STANDIN_STORED");
        auto* dialog = window.findChild<QDialog*>("testbedDialog");
        QVERIFY(dialog);
        QTRY_COMPARE_WITH_TIMEOUT(stored, 1, 20000);
        QDialog* comparison = nullptr;
        QTRY_VERIFY((comparison = dialog->findChild<QDialog*>("testbedComparison")) != nullptr);
        auto* view = comparison->findChild<TestbedComparisonView*>();
        QVERIFY(view);
        QCOMPARE(view->data().measuredRun, measured);
        // Rounds of 1.1 s measured against 1 s predicted: +10%.
        QCOMPARE(view->timePlot()->graph(1)->dataCount(), 2);
        QVERIFY(std::fabs(view->timePlot()->graph(1)->data()->at(1)->value - 1.1) < 1e-12);
        QVERIFY(std::fabs(view->data().comparison.rounds.at(0).errorPct - 10.0) < 1e-9);
        comparison->close();
        QTRY_VERIFY(!dialog->findChild<QDialog*>("testbedComparison"));
        QPushButton* again = dialog->findChild<QPushButton*>("testbedShowComparison");
        QVERIFY(again && again->isVisible());
        again->click();
        QVERIFY(dialog->findChild<QDialog*>("testbedComparison"));
    }

    /// The studio closed while the testbed runs: the dialog goes with its parent, and its
    /// handlers must not touch its deleted labels (this crashed), nor leave the CLI running.
    void closingTheStudioWhileItRuns() {
        auto* window = new QWidget;
        int stored = 0;
        runOnTestbed(window, loadScenarioFile(kPresets + "quickstart.yaml"), bin_.filePath("runs.db"),
                     [&] { ++stored; });
        auto* dialog = window->findChild<QDialog*>("testbedDialog");
        QVERIFY(dialog);
        auto* process = dialog->findChild<QProcess*>();
        QVERIFY(process);
        QTRY_VERIFY_WITH_TIMEOUT(process->state() == QProcess::Running &&
                                     dialog->findChild<QPlainTextEdit*>()->toPlainText().contains("stand-in"),
                                 20000);
        const qint64 pid = process->processId();
        QVERIFY(pid > 0);
        QPointer<QDialog> alive(dialog);
        delete window;
        QVERIFY(alive.isNull());
        QVERIFY2(gone(pid), "the CLI still runs after the studio closed");
        QTest::qWait(100); // any late signal would arrive now
        QCOMPARE(stored, 0); // the studio that asked is gone: nothing to refresh
    }
};

QTEST_MAIN(TestStudioTestbedLauncher)
#include "test_studio_testbed_launcher.moc"
