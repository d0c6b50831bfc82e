// The run store shared by several processes and connections, as users do it: the studio
// open while fogstudio-cli runs, lists and exports on the same file; two CLI runs at once;
// CLI runs killed with SIGKILL; a full disk and a read-only database. Each must leave a
// database that passes integrity_check, with every run complete or saying why not, and
// the CLI must exit non-zero with a message, never abort, when it could not store.

#include "core/store/run_store.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <csignal>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace fog;

namespace {

const char* kShortRun = R"(name: short
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
    - {id: worker, role: trainer, parent: server, availability: {kind: markov, mean_up_s: 2, mean_down_s: 0.5}}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
stop: {rounds: 20000}
)";

// Minutes of work: always killed or stopped by the test first.
const char* kLongRun = R"(name: long
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
    - {id: worker, role: trainer, parent: server, availability: {kind: markov, mean_up_s: 2, mean_down_s: 0.5}}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none}
stop: {rounds: 20000000}
)";

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Files of this process that are deleted while still open, and belong to `db`: what the
/// studio's WAL looked like after the bug this guards against.
QStringList deletedOpenFiles(const QString& db) {
    QStringList out;
    const QDir fds("/proc/self/fd");
    for (const QString& fd : fds.entryList(QDir::NoDotAndDotDot | QDir::System | QDir::Files | QDir::Dirs)) {
        char buf[4096] = {};
        const ssize_t n = ::readlink(QFile::encodeName(fds.filePath(fd)).constData(), buf, sizeof buf - 1);
        const QString link = n > 0 ? QString::fromLocal8Bit(buf, int(n)) : QString();
        if (link.contains(QFileInfo(db).fileName()) && link.endsWith("(deleted)")) out << link;
    }
    return out;
}

struct Cli {
    int exitCode = -1;
    QProcess::ExitStatus status = QProcess::CrashExit;
    QString out, err;
};

Cli runCli(const QStringList& args, const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment(),
           int timeoutMs = 60000) {
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(FOG_CLI_PATH, args);
    Cli r;
    if (!p.waitForStarted() || !p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitCode();
    r.status = p.exitStatus();
    r.out = QString::fromLocal8Bit(p.readAllStandardOutput());
    r.err = QString::fromLocal8Bit(p.readAllStandardError());
    return r;
}

std::string describe(const DbCheck& c) {
    std::string s;
    for (const auto& l : c.lines) s += l + "\n";
    return s;
}

} // namespace

class TestStoreConcurrency : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString path(const QString& name) const { return dir_.path() + "/" + name; }
    QString scenario(const char* name, const char* text) {
        QFile f(path(name));
        if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(text);
        return path(name);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY2(QFile::exists(FOG_CLI_PATH), FOG_CLI_PATH);
    }

    void studioStaysIntactWhileTheCliReads() {
        const QString db = path("studio.db");
        const QString small = scenario("short.yaml", kShortRun);
        const Cli first = runCli({"run", small, "--db", db, "--quiet"});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        // The studio: the window's store, and a second connection of the same process opened
        // and closed (the run controller's, per run) - the old header check dropped the
        // process's locks at exactly this moment.
        RunStore studio(db.toStdString());
        { RunStore controller(db.toStdString()); }
        const auto before = studio.listRuns();
        QCOMPARE(before.size(), std::size_t(1));
        const QStringList commands[] = {{"runs", "list"},
                                        {"runs", "show", "1"},
                                        {"export", "metrics", "1", "--out", path("m.csv")},
                                        {"runs", "tag", "1", "seen"}};
        for (const auto& c : commands) {
            const Cli r = runCli(QStringList(c) << "--db" << db);
            QVERIFY2(r.status == QProcess::NormalExit && r.exitCode == 0, qPrintable(c.join(' ') + ": " + r.err));
            // The studio still reads and writes, and its WAL files are still the real ones.
            QVERIFY(deletedOpenFiles(db).isEmpty());
            QCOMPARE(studio.listRuns().size(), std::size_t(1));
            studio.setNotes(before[0].id, "studio note");
            QCOMPARE(studio.storedRows(before[0].id).metrics, std::int64_t(20000));
        }
        QCOMPARE(studio.run(before[0].id)->tags, std::vector<std::string>{"seen"});
        const DbCheck check = checkDatabase(db.toStdString());
        QVERIFY2(check.ok, describe(check).c_str());
    }

    void twoProcessesAndTheStudioShareOneDatabase() {
        const QString db = path("shared.db");
        const QString small = scenario("short.yaml", kShortRun);
        RunStore studio(db.toStdString());
        // The studio's own runs: a second connection of this process, writing all along.
        std::atomic<bool> stop{false};
        std::atomic<int> studioRuns{0};
        std::string studioError;
        std::thread controller([&] {
            try {
                RunStore store(db.toStdString());
                while (!stop) {
                    NewRun nr;
                    nr.name = "studio run";
                    const auto id = store.beginRun(nr);
                    StoreRecorder rec(store, id, 0.05, 5000);
                    AggregationRecord r;
                    for (int i = 1; i <= 30000; ++i) {
                        r.round = i;
                        rec.onAggregation(r);
                    }
                    RunSummary s;
                    s.rounds = 30000;
                    rec.onFinish(s);
                    if (!rec.error().empty()) throw StoreError(rec.error());
                    ++studioRuns;
                }
            } catch (const std::exception& e) {
                studioError = e.what();
            }
        });
        // Two CLI processes, each running two short runs one after the other.
        QProcess a, b;
        int left[2] = {2, 2};
        QProcess* procs[2] = {&a, &b};
        QStringList failures;
        for (auto* p : procs) p->start(FOG_CLI_PATH, {"run", small, "--db", db, "--quiet"});
        double slowestEdit = 0, slowestList = 0;
        QElapsedTimer clock;
        clock.start();
        while ((left[0] > 0 || left[1] > 0) && clock.elapsed() < 120000) {
            for (int i = 0; i < 2; ++i) {
                if (left[i] == 0 || procs[i]->state() != QProcess::NotRunning) continue;
                if (procs[i]->exitStatus() != QProcess::NormalExit || procs[i]->exitCode() != 0)
                    failures << QString::fromLocal8Bit(procs[i]->readAllStandardError());
                if (--left[i] > 0) procs[i]->start(FOG_CLI_PATH, {"run", small, "--db", db, "--quiet"});
            }
            // What a user does in the runs dock meanwhile: list, tag, note, rename.
            QElapsedTimer edit;
            edit.start();
            const auto runs = studio.listRuns();
            slowestList = std::max(slowestList, edit.elapsed() / 1000.0);
            edit.restart();
            if (!runs.empty()) {
                studio.setTags(runs.back().id, {"t" + std::to_string(clock.elapsed())});
                studio.setNotes(runs.back().id, "note");
                studio.rename(runs.back().id, runs.back().name);
            }
            slowestEdit = std::max(slowestEdit, edit.elapsed() / 1000.0);
            QTest::qWait(20);
        }
        stop = true;
        controller.join();
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
        QVERIFY2(left[0] == 0 && left[1] == 0, "the CLI runs did not finish within 2 minutes");
        QVERIFY2(studioError.empty(), studioError.c_str());
        qInfo("4 CLI runs and %d studio runs; in the studio the slowest list took %.3f s, the slowest "
              "tag+note+rename %.3f s",
              studioRuns.load(), slowestList, slowestEdit);
        const auto runs = studio.listRuns();
        QCOMPARE(runs.size(), std::size_t(4 + studioRuns.load()));
        for (const auto& r : runs) {
            QCOMPARE(r.status, std::string("finished"));
            QVERIFY(r.produced);
            QVERIFY(*r.produced == studio.storedRows(r.id));
        }
        const DbCheck check = checkDatabase(db.toStdString());
        QVERIFY2(check.ok, describe(check).c_str());
    }

    /// User and system CPU seconds of a running process so far (/proc/PID/stat), -1 if gone.
    static double processCpuSeconds(qint64 pid) {
        QFile f(QString("/proc/%1/stat").arg(pid));
        if (!f.open(QIODevice::ReadOnly)) return -1.0;
        const QByteArray stat = f.readAll();
        // The command name (field 2) may hold spaces: fields are counted after its ')'.
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.size() < 13) return -1.0;
        const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
        return (fields[11].toDouble() + fields[12].toDouble()) / ticks; // utime, stime
    }

    void killedCliRunsAreMarkedInterrupted() {
        const QString db = path("killed.db");
        const QString longRun = scenario("long.yaml", kLongRun);
        const quint32 seed = QRandomGenerator::global()->generate();
        qInfo("kill moments drawn with seed %u", seed);
        QRandomGenerator random(seed);
        for (int kill = 0; kill < 3; ++kill) {
            QProcess child;
            child.start(FOG_CLI_PATH, {"run", longRun, "--db", db, "--quiet"});
            QVERIFY(child.waitForStarted());
            // Wait until the run has stored rows, note how far it was (its wall clock is in
            // every row), then let it run a random while longer and kill it.
            double seenWall = -1;
            std::int64_t runId = 0;
            for (int i = 0; i < 400 && seenWall < 0; ++i) {
                QTest::qWait(25);
                RunStore peek(db.toStdString());
                const auto runs = peek.listRuns({"", "", 0, 1});
                if (runs.empty() || runs[0].status != "running") continue;
                runId = runs[0].id;
                const auto m = peek.metrics(runId);
                if (!m.empty()) seenWall = m.back().wallSeconds;
            }
            QVERIFY2(seenWall >= 0, "the run stored nothing within 10 s");
            const int waitMs = 1200 + int(random.bounded(1800));
            const double cpuBefore = processCpuSeconds(child.processId());
            QTest::qWait(waitMs);
            const double cpuDuring = processCpuSeconds(child.processId()) - cpuBefore;
            ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
            QVERIFY(child.waitForFinished());
            QCOMPARE(child.exitStatus(), QProcess::CrashExit);

            const DbCheck check = checkDatabase(db.toStdString());
            QVERIFY2(check.ok, describe(check).c_str());
            RunStore store(db.toStdString());
            const auto r = store.run(runId);
            QVERIFY(r);
            QCOMPARE(r->status, std::string("interrupted"));
            QVERIFY(r->summaryFromRows);
            const auto m = store.metrics(runId);
            QCOMPARE(static_cast<int>(m.size()), r->summary.rounds); // runs list shows how far it got
            const double lastWall = m.back().wallSeconds;
            qInfo("kill %d after %d ms: %zu rounds stored, the last %.2f s after the one seen",
                  kill + 1, waitMs, m.size(), lastWall - seenWall);
            // The run went on for waitMs after we saw row `seenWall`; the writer commits every
            // 0.5 s, so no more than about the last second may be missing. That holds when the
            // child had the CPU meanwhile; on a machine so loaded that it got less than half of
            // a core, rows it never produced are not missing: that case is only reported.
            if (cpuDuring < 0.5 * waitMs / 1000.0) {
                qInfo("the child had %.2f s of CPU in the %d ms: the commit bound is not checked", cpuDuring, waitMs);
            } else {
                QVERIFY2(lastWall - seenWall >= waitMs / 1000.0 - 1.0,
                         qPrintable(QString("last stored row %1 s after the one seen, killed %2 ms after")
                                        .arg(lastWall - seenWall)
                                        .arg(waitMs)));
            }
            // Earlier runs are intact.
            QCOMPARE(store.listRuns().size(), std::size_t(kill + 1));
        }
    }

    void fullDiskIsAMessageNotAnAbort_data() {
        QTest::addColumn<qint64>("limitBytes");
        QTest::addColumn<bool>("startsRun");
        QTest::newRow("no room at all") << qint64(0) << false;
        QTest::newRow("full part-way") << qint64(96 * 1024) << true;
    }
    void fullDiskIsAMessageNotAnAbort() {
        QFETCH(qint64, limitBytes);
        QFETCH(bool, startsRun);
#if defined(__SANITIZE_THREAD__)
        // TSan's own runtime writes at start-up: with a zero file-size limit even
        // `fogstudio-cli --help` dies of SIGXFSZ before main runs (checked by hand).
        if (limitBytes == 0) QSKIP("a zero file-size limit kills TSan's runtime before main");
#endif
        const QString db = path(QString("full-%1.db").arg(limitBytes));
        const QString small = scenario("short.yaml", kShortRun);
        const QString longRun = scenario("long-full.yaml", kLongRun);
        const Cli first = runCli({"run", small, "--db", db, "--quiet"});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        const QByteArray before = fileBytes(db);
        // RLIMIT_FSIZE in the child: writes past the limit fail (EFBIG), as on a full disk.
        QProcess p;
        p.setChildProcessModifier([limitBytes] {
            rlimit r{static_cast<rlim_t>(limitBytes), static_cast<rlim_t>(limitBytes)};
            setrlimit(RLIMIT_FSIZE, &r);
        });
        p.start(FOG_CLI_PATH, {"run", longRun, "--db", db, "--quiet", "--set", "stop.rounds=200000"});
        QVERIFY(p.waitForStarted());
        QVERIFY2(p.waitForFinished(120000), "the CLI did not stop");
        const QString err = QString::fromLocal8Bit(p.readAllStandardError());
        qInfo("%s", qPrintable(err.trimmed()));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit); // no abort, no SIGXFSZ
        QCOMPARE(p.exitCode(), 1);
        QVERIFY2(err.contains(db), qPrintable(err));
        const QString out = QString::fromLocal8Bit(p.readAllStandardOutput());
        QVERIFY2(!out.contains("stored as") || out.contains("INCOMPLETE"), qPrintable(out)); // no false claim
        const DbCheck check = checkDatabase(db.toStdString());
        QVERIFY2(check.ok, describe(check).c_str());
        RunStore store(db.toStdString());
        const auto runs = store.listRuns();
        if (!startsRun) {
            QCOMPARE(fileBytes(db), before); // nothing written
            QCOMPARE(runs.size(), std::size_t(1));
        } else {
            // The run may exist, but never as finished: failed (incomplete) or interrupted.
            QVERIFY(runs.size() <= 2);
            if (runs.size() == 2) QVERIFY2(runs[0].status != "finished", runs[0].status.c_str());
        }
        QCOMPARE(runs.back().status, std::string("finished"));
        QCOMPARE(store.storedRows(runs.back().id).metrics, std::int64_t(20000));
    }

    void readOnlyDatabaseRefusesWritesAndStillLists() {
        const QString db = path("readonly.db");
        const QString small = scenario("short.yaml", kShortRun);
        const QString longRun = scenario("long.yaml", kLongRun);
        // A run killed mid-way, left marked "running" (as a read-only copy would hold it).
        {
            QProcess child;
            child.start(FOG_CLI_PATH, {"run", longRun, "--db", db, "--quiet"});
            QVERIFY(child.waitForStarted());
            bool stored = false;
            for (int i = 0; i < 400 && !stored; ++i) {
                QTest::qWait(25);
                try { // the child may not have created the database yet
                    RunStore peek(db.toStdString(), true);
                    const auto runs = peek.listRuns({"", "", 0, 1});
                    stored = !runs.empty() && peek.storedRows(runs[0].id).metrics > 0;
                } catch (const StoreError&) {
                }
            }
            QVERIFY(stored);
            ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
            child.waitForFinished();
        }
        const QByteArray before = fileBytes(db);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FOGSTUDIO_DB_READONLY", "1");
        const Cli list = runCli({"runs", "list", "--db", db}, env);
        QVERIFY2(list.exitCode == 0, qPrintable(list.err));
        QVERIFY2(list.out.contains("interrupted"), qPrintable(list.out));
        QVERIFY2(list.out.contains("*"), qPrintable(list.out)); // figures from its rows
        const QStringList writes[] = {{"run", small}, {"runs", "delete", "1"}, {"runs", "tag", "1", "x"},
                                      {"sweep", small, "--vary", "seed=1,2"}};
        for (const auto& w : writes) {
            const Cli r = runCli(QStringList(w) << "--db" << db << "--quiet", env);
            QVERIFY2(r.status == QProcess::NormalExit && r.exitCode == 1, qPrintable(w.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains("read-only"), qPrintable(w.join(' ') + ": " + r.err));
        }
        const Cli check = runCli({"db", "check", "--db", db}, env);
        QVERIFY2(check.exitCode == 0, qPrintable(check.out));
        QCOMPARE(fileBytes(db), before);
    }

    void readOnlyMountIsListedNotWritten() {
        // A real read-only mount (as root, permissions do not stop writes; a mount does), in
        // a mount namespace of the child's own. Skipped where namespaces are not allowed.
        const QString folder = path("mounted");
        QVERIFY(QDir().mkpath(folder));
        const QString db = folder + "/runs.db";
        QVERIFY(runCli({"run", scenario("short.yaml", kShortRun), "--db", db, "--quiet"}).exitCode == 0);
        const QByteArray before = fileBytes(db);
        const QString cli = FOG_CLI_PATH;
        const QString script =
            QString("mount --bind '%1' '%1' && mount -o remount,bind,ro '%1' || exit 77\n"
                    "'%2' runs list --db '%3' || exit 1\n"
                    "'%2' runs show 1 --db '%3' >/dev/null || exit 2\n"
                    "'%2' run '%4' --db '%3' --quiet; [ $? -eq 1 ] || exit 3\n"
                    "'%2' runs delete 1 --db '%3'; [ $? -eq 1 ] || exit 4\n"
                    "'%2' db check --db '%3' || exit 5\n")
                .arg(folder, cli, db, path("short.yaml"));
        QProcess p;
        p.start("unshare", {"-m", "sh", "-c", script});
        if (!p.waitForStarted()) QSKIP("no unshare here");
        QVERIFY(p.waitForFinished(120000));
        const QString out = QString::fromLocal8Bit(p.readAllStandardOutput() + p.readAllStandardError());
        if (p.exitCode() == 77 || (p.exitStatus() == QProcess::NormalExit && out.contains("unshare:")))
            QSKIP("mount namespaces are not allowed here");
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 qPrintable(QString("step %1 failed:\n%2").arg(p.exitCode()).arg(out)));
        QVERIFY2(out.contains("read-only"), qPrintable(out));
        QCOMPARE(fileBytes(db), before);
    }

    void foreignFilesAreNeverWritten() {
        const QString file = path("photos.db");
        {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray("SQLite format 3\0", 16) + QByteArray(4080, '\0'));
        }
        const QByteArray before = fileBytes(file);
        for (const QStringList& c : {QStringList{"runs", "list"}, QStringList{"run", scenario("short.yaml", kShortRun)},
                                     QStringList{"db", "check"}}) {
            const Cli r = runCli(QStringList(c) << "--db" << file << "--quiet");
            QVERIFY2(r.status == QProcess::NormalExit && r.exitCode == 1, qPrintable(c.join(' ') + ": " + r.err + r.out));
        }
        QCOMPARE(fileBytes(file), before);
    }
};

QTEST_GUILESS_MAIN(TestStoreConcurrency)
#include "test_store_concurrency.moc"
