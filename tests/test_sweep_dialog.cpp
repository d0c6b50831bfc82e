// The studio's sweep dialog (issue 15): the keys it offers, bad input refused with the row
// and field named before anything runs, a sweep stored as one group with common random
// numbers, Compare, and Stop before, during and between runs (and closing while it runs).
// Then the main window's wiring of the teaching controls: Run > Sweep landing in the runs
// dock as a group and Compare opening the comparison; Step One Event with the status line
// saying why it paused and the event log selecting the node on the canvas.
//
// FOG_SHOT_DIR=dir (under xvfb-run at 1280x720) also saves pictures of the dialog and the
// window in light and dark, for the documentation.

#include "app/gui/main_window.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "engine_fixtures.h"
#include "wall_bounds.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/run/event_log.h"
#include "widgets/run/run_controller.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/sweep/sweep_dialog.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QAction>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <set>

using namespace fog;
using namespace fogtest;

namespace {

/// A timing-only star that finishes in a few milliseconds.
Scenario quickStar() {
    Scenario s = timingStar(4, 10.0, NoiseSpec::Kind::Exponential);
    s.stop.rounds = 5;
    return s;
}

/// Rounds of 1 virtual second for ever: a run that ends only when stopped.
Scenario endless() {
    Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::None);
    s.stop.rounds = 0;
    s.stop.virtualTimeS = 1e12;
    return s;
}

/// Saves `w` as FOG_SHOT_DIR/name.png when that variable is set.
void shot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("FOG_SHOT_DIR");
    if (dir.isEmpty()) return;
    QCoreApplication::processEvents();
    const QString path = QDir(dir).filePath(name + ".png");
    w->grab().save(path);
    qInfo("wrote %s", qPrintable(path));
}

} // namespace

class TestSweepDialog : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<RunStore> store_;

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true); // the main window's QSettings of their own
        QVERIFY(dir_.isValid());
        store_ = std::make_unique<RunStore>(dir_.filePath("runs.db").toStdString());
    }

    void offersTheSchemaPoliciesAndNodes() {
        const Scenario s = quickStar();
        const auto keys = SweepDialog::keysFor(s);
        auto find = [&](const QString& path) -> const SweepDialog::Key* {
            for (const auto& k : keys)
                if (k.path == path) return &k;
            return nullptr;
        };
        QVERIFY(find("training.learning_rate"));
        QVERIFY(find("sync.policy"));
        QCOMPARE(find("sync.policy")->value, QString::fromStdString(s.sync.name.empty() ? "fully-sync" : s.sync.name));
        QVERIFY(find("stop.rounds"));
        QCOMPARE(find("stop.rounds")->value, QString("5"));
        QVERIFY(find("topology.groups[0].count"));
        QCOMPARE(find("topology.groups[0].count")->value, QString("4"));
        QVERIFY(find("topology.groups[0].count")->label.contains("(w)"));
        QVERIFY(find("topology.nodes[0].compute.throughput") || find("topology.nodes[0].price_per_hour"));
        // Keys that do not apply (a Markov availability's mean times on an always-on group)
        // and free text (data paths) are not offered.
        QVERIFY(!find("topology.groups[0].availability.mean_up_s"));
        QVERIFY(!find("data.train"));

        // The dialog's first row is the learning rate, halved and doubled.
        SweepDialog d(s, store_.get());
        QCOMPARE(d.axisCount(), 1);
        const SweepSpec spec = d.spec();
        QCOMPARE(spec.axes.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(spec.axes[0].path), QString("training.learning_rate"));
        QCOMPARE(spec.axes[0].values.size(), std::size_t(3));
        QVERIFY(QFileInfo::exists(d.scenarioFile()));
        // The file holds the scenario as it was on screen.
        const Scenario back = loadScenarioFile(d.scenarioFile().toStdString());
        QCOMPARE(back.topology.nodes.size(), s.topology.nodes.size());
        QCOMPARE(back.stop.rounds, 5);
    }

    void badInputIsRefusedBeforeAnythingRuns_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("values");
        QTest::addColumn<QString>("expected"); // in the status text
        QTest::newRow("no values") << "training.batch_size" << "" << "row 2: give at least one value";
        QTest::newRow("out of bounds") << "training.learning_rate" << "0.1, -1" << "training.learning_rate";
        QTest::newRow("not a number") << "training.batch_size" << "8, many" << "training.batch_size";
        QTest::newRow("unknown key") << "training.no_such_key" << "1" << "no_such_key";
        QTest::newRow("empty value") << "training.batch_size" << "8,,16" << "empty value";
        QTest::newRow("bad index") << "topology.groups[7].count" << "2" << "topology.groups";
        QTest::newRow("twice") << "training.learning_rate" << "0.2" << "varied twice";
    }
    void badInputIsRefusedBeforeAnythingRuns() {
        QFETCH(QString, path);
        QFETCH(QString, values);
        QFETCH(QString, expected);
        const std::size_t before = store_->listRuns({}).size();
        SweepDialog d(quickStar(), store_.get());
        d.addAxis(path, values);
        if (values.isEmpty()) d.findChild<QLineEdit*>("sweepValues1")->clear();
        QVERIFY(!d.start());
        QVERIFY(!d.running());
        QVERIFY2(d.statusText().contains(expected), qPrintable(d.statusText()));
        QVERIFY2(d.statusText().startsWith("Cannot start"), qPrintable(d.statusText()));
        QCOMPARE(store_->listRuns({}).size(), before);
        QVERIFY(!d.findChild<QPushButton*>("sweepStart")->isEnabled() || !d.start());
    }

    void runsAsOneGroupWithCommonRandomNumbers() {
        SweepDialog d(quickStar(), store_.get());
        d.removeAxis(0);
        d.addAxis("training.local_steps", "1, 2");
        d.addAxis("topology.groups[0].count", "2,4");
        d.setRepeats(2);
        QVERIFY(d.findChild<QLabel*>("sweepSummary")->text().contains("= 8 run(s)"));
        QSignalSpy finished(&d, &SweepDialog::sweepFinished);
        QSignalSpy stored(&d, &SweepDialog::runStored);
        QSignalSpy compare(&d, &SweepDialog::compareRequested);
        QVERIFY(d.start());
        QVERIFY(d.running());
        QVERIFY(!d.findChild<QPushButton*>("sweepStart")->isEnabled());
        QVERIFY(d.findChild<QPushButton*>("sweepStop")->isEnabled());
        QVERIFY(finished.wait(60000));
        QVERIFY(!d.running());
        QCOMPARE(finished.at(0).at(2).toBool(), false);
        const auto ids = finished.at(0).at(1).value<QList<qint64>>();
        QCOMPARE(ids.size(), 8);
        QCOMPARE(ids, d.runIds());
        QVERIFY(stored.count() >= 8);
        QCOMPARE(d.findChild<QTableWidget*>("sweepResults")->rowCount(), 8);
        QCOMPARE(d.findChild<QProgressBar*>("sweepProgress")->value(), 8);
        const qint64 sweep = finished.at(0).at(0).toLongLong();
        QVERIFY(sweep > 0);
        QVERIFY2(d.statusText().contains(QString("sweep:%1").arg(sweep)), qPrintable(d.statusText()));

        // One group in the store: every run under the sweep id, each configuration twice, and
        // repeat r with the same seed in every configuration.
        RunFilter f;
        f.sweepId = sweep;
        const auto runs = store_->listRuns(f);
        QCOMPARE(runs.size(), std::size_t(8));
        std::map<int, std::set<std::uint64_t>> seeds;
        std::set<std::string> configs;
        for (const auto& r : runs) {
            QCOMPARE(QString::fromStdString(r.status), QString("finished"));
            seeds[r.repeat].insert(r.seed);
            configs.insert(r.sweepConfig);
            QVERIFY(std::find(r.tags.begin(), r.tags.end(), "studio") != r.tags.end());
        }
        QCOMPARE(configs.size(), std::size_t(4));
        QCOMPARE(seeds.size(), std::size_t(2));
        QCOMPARE(seeds[0].size(), std::size_t(1));
        QCOMPARE(seeds[1].size(), std::size_t(1));
        QVERIFY(*seeds[0].begin() != *seeds[1].begin());
        QCOMPARE(*seeds[0].begin(), quickStar().seed);

        // Compare asks for exactly these runs.
        QVERIFY(d.findChild<QPushButton*>("sweepCompare")->isEnabled());
        d.findChild<QPushButton*>("sweepCompare")->click();
        QCOMPARE(compare.count(), 1);
        QCOMPARE(compare.at(0).at(0).value<QList<qint64>>(), ids);
    }

    void stopDuringARun() {
        SweepDialog d(endless(), store_.get());
        d.removeAxis(0);
        d.addAxis("training.local_steps", "1,2,3");
        QSignalSpy finished(&d, &SweepDialog::sweepFinished);
        QVERIFY(d.start());
        QTest::qWait(500); // the first run is going (it never ends by itself)
        QElapsedTimer t;
        t.start();
        d.findChild<QPushButton*>("sweepStop")->click();
        QVERIFY(finished.wait(static_cast<int>(fogtest::kPromptMs)));
        qInfo("sweep stopped during a run in %lld ms", static_cast<long long>(t.elapsed()));
        QVERIFY(t.elapsed() < fogtest::kPromptMs);
        QCOMPARE(finished.at(0).at(2).toBool(), true);
        QVERIFY(d.runIds().isEmpty());
        QVERIFY2(d.statusText().startsWith("Stopped: 0 of 3"), qPrintable(d.statusText()));
        // The run cut short is stored as cancelled; no other run started.
        RunFilter f;
        f.sweepId = finished.at(0).at(0).toLongLong();
        const auto runs = store_->listRuns(f);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(runs[0].status), QString("cancelled"));
        QVERIFY(d.findChild<QPushButton*>("sweepStart")->isEnabled()); // can start again
    }

    void stopAtOnceAndBetweenRuns() {
        // Stop right after Start (before or as the first run begins): nothing more runs.
        {
            SweepDialog d(quickStar(), store_.get());
            d.setRepeats(3);
            QSignalSpy finished(&d, &SweepDialog::sweepFinished);
            QVERIFY(d.start());
            d.stop();
            QVERIFY(finished.wait(10000));
            QCOMPARE(finished.at(0).at(2).toBool(), true);
            QVERIFY(d.runIds().size() < 9);
        }
        // Stop after the first of many short runs: the sweep ends between runs, keeping
        // what finished.
        {
            SweepDialog d(quickStar(), store_.get());
            d.setRepeats(200);
            QSignalSpy finished(&d, &SweepDialog::sweepFinished);
            QSignalSpy stored(&d, &SweepDialog::runStored);
            QVERIFY(d.start());
            QVERIFY(stored.wait(10000));
            d.stop();
            QVERIFY(finished.wait(10000));
            QCOMPARE(finished.at(0).at(2).toBool(), true);
            const int done = static_cast<int>(d.runIds().size());
            QVERIFY(done >= 1);
            QVERIFY(done < 600);
            RunFilter f;
            f.sweepId = finished.at(0).at(0).toLongLong();
            int finishedRuns = 0;
            for (const auto& r : store_->listRuns(f)) finishedRuns += r.status == "finished";
            QCOMPARE(finishedRuns, done);
        }
    }

    void closingWhileRunningStopsFirst() {
        auto* d = new SweepDialog(endless(), store_.get());
        d->setAttribute(Qt::WA_DeleteOnClose, false);
        d->show();
        QSignalSpy finished(d, &SweepDialog::sweepFinished);
        QVERIFY(d->start());
        QTest::qWait(300);
        d->reject(); // Close / Escape: stops, then closes once stopped
        QVERIFY(d->isVisible() || finished.count() == 1);
        QVERIFY(finished.wait(10000) || finished.count() == 1);
        QTRY_VERIFY_WITH_TIMEOUT(!d->isVisible(), 5000);
        // Destroyed while running: the destructor stops and waits.
        QVERIFY(d->start());
        QTest::qWait(200);
        QElapsedTimer t;
        t.start();
        delete d;
        qInfo("sweep dialog destroyed while running in %lld ms", static_cast<long long>(t.elapsed()));
        QVERIFY(t.elapsed() < fogtest::kPromptMs);
    }

    void sweepFromTheWindowLandsAsAGroup() {
        const QString file = dir_.filePath("star.yaml");
        saveScenarioFile(quickStar(), file.toStdString());
        StudioOptions o;
        o.dbPath = dir_.filePath("window.db");
        o.scenarioPath = file;
        o.threads = 1;
        MainWindow w(o);
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.action("actionSweep"));
        w.action("actionSweep")->trigger();
        auto* d = w.findChild<SweepDialog*>();
        QVERIFY(d);
        QVERIFY(d->isVisible());
        d->removeAxis(0);
        d->addAxis("training.local_steps", "1, 3");
        d->setRepeats(2);
        QSignalSpy finished(d, &SweepDialog::sweepFinished);
        QVERIFY2(d->start(), qPrintable(d->statusText()));
        QVERIFY(finished.wait(60000));
        const qint64 sweep = finished.at(0).at(0).toLongLong();
        const auto ids = finished.at(0).at(1).value<QList<qint64>>();
        QCOMPARE(ids.size(), 4);
        // The runs dock shows the sweep's group, its runs selected.
        QCOMPARE(w.runsBrowser()->filterText(), QString("sweep:%1").arg(sweep));
        QList<qint64> selected = w.runsBrowser()->selectedRunIds();
        std::sort(selected.begin(), selected.end());
        QList<qint64> sorted = ids;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(selected, sorted);
        shot(d, "sweep-dialog");
        // Compare opens the comparison view on them.
        d->findChild<QPushButton*>("sweepCompare")->click();
        QCOMPARE(w.centralTabs()->currentWidget(), static_cast<QWidget*>(w.comparison()));
        QList<qint64> compared = w.comparison()->runIds();
        std::sort(compared.begin(), compared.end());
        QCOMPARE(compared, sorted);
        shot(&w, "sweep-compare");
        d->close();
    }

    void stepOneEventFromTheWindow() {
        const QString file = dir_.filePath("endless.yaml");
        saveScenarioFile(endless(), file.toStdString());
        StudioOptions o;
        o.dbPath = dir_.filePath("window.db");
        o.scenarioPath = file;
        o.threads = 1;
        MainWindow w(o);
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAction* step = w.action("actionStepEvent");
        QVERIFY(step);
        QVERIFY(step->isEnabled());
        QVERIFY(!step->shortcut().isEmpty());
        auto* why = w.findChild<QLabel*>("runWhy");
        QVERIFY(why);
        // No run going: it starts one, paused, and steps its first event.
        step->trigger();
        QVERIFY(w.controller()->isActive());
        QTRY_VERIFY_WITH_TIMEOUT(why->text().startsWith("Paused after one event at t = 1 s"), 10000);
        for (int i = 0; i < 5; ++i) {
            const QString before = why->text();
            step->trigger();
            QTRY_VERIFY_WITH_TIMEOUT(w.controller()->state() == RunController::State::Paused &&
                                         w.controller()->pauseReason() != QString() &&
                                         why->text().startsWith("Paused after one event"),
                                     5000);
        }
        // The event log lists what happened; a row's node is selected and centred on the canvas.
        auto* log = w.findChild<EventLog*>();
        QVERIFY(log);
        QTRY_VERIFY_WITH_TIMEOUT(log->model()->rowCount() > 4, 5000);
        int dispatch = -1;
        for (int r = 0; r < log->model()->rowCount() && dispatch < 0; ++r)
            if (log->model()->entryAt(r)->kind == LogKind::Dispatch) dispatch = r;
        QVERIFY(dispatch >= 0);
        w.canvas()->topologyScene()->selectIds({});
        QSignalSpy activated(log, &EventLog::nodeActivated);
        const QModelIndex cell = log->model()->index(dispatch, EventLogModel::DetailColumn);
        log->view()->scrollTo(cell);
        QTest::mouseClick(log->view()->viewport(), Qt::LeftButton, {}, log->view()->visualRect(cell).center());
        QCOMPARE(activated.count(), 1);
        QVERIFY(activated.at(0).at(0).toString().startsWith("w-"));
        QCOMPARE(w.canvas()->topologyScene()->selectedIds(), QStringList{"w"});
        auto* tabs = w.findChild<QTabWidget*>();
        for (QTabWidget* t : w.findChildren<QTabWidget*>())
            if (t->indexOf(log) >= 0) tabs = t;
        tabs->setCurrentWidget(log);
        shot(&w, "step-event-light");
        w.action("actionTheme_dark")->trigger();
        shot(&w, "step-event-dark");
        w.action("actionTheme_light")->trigger();
        // Stop while paused after a step.
        QSignalSpy finished(w.controller(), &RunController::finished);
        w.action("actionStop")->trigger();
        QVERIFY(finished.wait(5000));
        QVERIFY2(why->text().startsWith("Stopped by you at round "), qPrintable(why->text()));
    }
};

QTEST_MAIN(TestSweepDialog)
#include "test_sweep_dialog.moc"
