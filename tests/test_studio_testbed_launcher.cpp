// Run > Run on Testbed (app/gui/testbed_launcher.cpp) as a user meets it: the dialog shows what
// the CLI prints, Stop stops it, and closing the studio while the testbed still runs neither
// crashes nor leaves the CLI running. A stand-in `fogstudio-cli` on PATH (a shell script that
// prints and waits) plays the CLI, so no root is needed.

#include "app/gui/testbed_launcher.h"
#include "core/scenario/scenario_io.h"

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
