// The run store: every field comes back, a killed run is marked interrupted, older schemas
// migrate, and foreign or damaged files give a clear message.

#include "engine_fixtures.h"

#include "core/store/run_store.h"
#include "store_fixtures.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <csignal>
#include <fstream>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace fog;
using namespace fogtest;

namespace {

bool sameOrBothNaN(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

std::int64_t countRows(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
    std::int64_t n = -1;
    if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

QByteArray fileBytes(const std::string& path) {
    QFile f(QString::fromStdString(path)); // only while no connection of this process has it open
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void execSql(const std::string& path, const std::string& sql) {
    sqlite3* h = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
    char* err = nullptr;
    const int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
    QVERIFY2(rc == SQLITE_OK, err ? err : "sqlite3_exec failed");
    sqlite3_close(h);
}

/// The id of a process that has ended (to fake a run whose process was killed).
qint64 deadPid() {
    const pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, nullptr, 0);
    return pid;
}

/// A run killed after storing `rounds` metric rows: status running, a pid that is gone.
std::int64_t addKilledRun(const std::string& db, int rounds) {
    std::int64_t id = 0;
    {
        RunStore store(db);
        NewRun nr;
        nr.name = "killed";
        id = store.beginRun(nr);
        std::vector<AggregationRecord> rows(static_cast<std::size_t>(rounds));
        for (int i = 0; i < rounds; ++i) {
            rows[static_cast<std::size_t>(i)].round = i + 1;
            rows[static_cast<std::size_t>(i)].time = 2.0 * (i + 1);
            rows[static_cast<std::size_t>(i)].cost = 0.5 * (i + 1);
            rows[static_cast<std::size_t>(i)].testAccuracy = i % 2 ? 0.1 * (i % 10) : kNaN;
        }
        store.appendBatch(id, rows, {}, {{1.0, RunEventKind::WorkLost, 0, "", {}}});
    }
    execSql(db, "UPDATE runs SET pid = " + std::to_string(deadPid()) + " WHERE id = " + std::to_string(id));
    return id;
}

} // namespace

class TestStore : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const char* name) { return (dir_.path() + "/" + name).toStdString(); }

private Q_SLOTS:
    void everyFieldRoundTrips() {
        RunStore store(path("roundtrip.db"));
        QCOMPARE(store.schemaVersion(), kStoreSchemaVersion);
        NewRun nr;
        nr.name = "spot workers";
        nr.tags = {"baseline", "ton22"};
        nr.notes = "first try";
        nr.scenarioYaml = "name: x\nseed: 3\n";
        nr.seed = 3;
        nr.sweepConfig = "sync.n=3";
        nr.repeat = 2;
        nr.sweepId = store.createSweep("s", "--vary sync.n=1,3");
        const auto id = store.beginRun(nr);
        QCOMPARE(store.run(id)->status, std::string("running"));

        // A real (timing-only) run streams through the recorder.
        Scenario s = timingStar(3, 1.0, NoiseSpec::Kind::Exponential);
        s.topology.group(0).availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.group(0).availability.meanUpS = 3;
        s.topology.group(0).availability.meanDownS = 1;
        s.sync.name = "fully-sync";
        s.stop.rounds = 50;
        Recorder rec;
        RunSummary summary;
        {
            StoreRecorder storeRec(store, id, 0.05);
            ObserverList both;
            both.add(&rec);
            both.add(&storeRec);
            EngineOptions o;
            o.observer = &both;
            Engine engine(s, o);
            summary = engine.run();
        }
        const auto back = store.run(id);
        QVERIFY(back);
        QCOMPARE(back->name, nr.name);
        QCOMPARE(back->tags, nr.tags);
        QCOMPARE(back->notes, nr.notes);
        QCOMPARE(back->scenarioYaml, nr.scenarioYaml);
        QCOMPARE(back->seed, nr.seed);
        QCOMPARE(back->sweepId, nr.sweepId);
        QCOMPARE(back->repeat, 2);
        QCOMPARE(back->sweepConfig, nr.sweepConfig);
        QCOMPARE(back->status, std::string("finished"));
        QCOMPARE(back->programVersion, std::string(FOGSTUDIO_VERSION));
        QVERIFY(!back->startedAt.empty() && !back->endedAt.empty());
        QCOMPARE(back->summary.rounds, summary.rounds);
        QCOMPARE(back->summary.virtualTime, summary.virtualTime);
        QCOMPARE(back->summary.cost, summary.cost);
        QCOMPARE(back->summary.lostJobs, summary.lostJobs);
        QCOMPARE(back->summary.samplesComputed, summary.samplesComputed);
        QCOMPARE(back->summary.stopReason, summary.stopReason);

        const auto metrics = store.metrics(id);
        QCOMPARE(metrics.size(), rec.records.size());
        for (std::size_t i = 0; i < metrics.size(); ++i) {
            const auto& a = metrics[i];
            const auto& b = rec.records[i];
            QCOMPARE(a.round, b.round);
            QCOMPARE(a.level, b.level);
            QCOMPARE(a.aggregator, b.aggregator);
            QCOMPARE(a.time, b.time);
            QCOMPARE(a.participants, b.participants);
            QCOMPARE(a.cost, b.cost);
            QCOMPARE(a.maxStaleness, b.maxStaleness);
            QVERIFY(sameOrBothNaN(a.trainLoss, b.trainLoss));
            QVERIFY(sameOrBothNaN(a.testAccuracy, b.testAccuracy));
        }
        const auto intervals = store.intervals(id);
        QCOMPARE(intervals.size(), rec.intervals.size());
        QCOMPARE(int(intervals.back().state), int(rec.intervals.back().state));
        QCOMPARE(intervals.back().to, rec.intervals.back().to);
        const auto events = store.events(id);
        QCOMPARE(events.size(), rec.events.size());
        QVERIFY(!events.empty());
        QCOMPARE(events.front().kind, rec.events.front().kind);
        QCOMPARE(store.nodes(id).size(), std::size_t(4));

        // Edits, listing and deletion.
        store.setTags(id, {"kept"});
        store.setNotes(id, "second look");
        store.rename(id, "renamed");
        QCOMPARE(store.run(id)->tags, std::vector<std::string>{"kept"});
        QCOMPARE(store.run(id)->notes, std::string("second look"));
        QCOMPARE(store.listRuns({"kept", "", 0, 0}).size(), std::size_t(1));
        QCOMPARE(store.listRuns({"baseline", "", 0, 0}).size(), std::size_t(0));
        QCOMPARE(store.listRuns({"", "renam", 0, 0}).size(), std::size_t(1));
        QVERIFY(store.deleteRun(id));
        QVERIFY(!store.run(id));
        QCOMPARE(store.metrics(id).size(), std::size_t(0)); // cascaded
    }

    void killedRunIsMarkedInterrupted() {
        const std::string db = path("killed.db");
        { RunStore create(db); } // schema exists before the child starts
        // The child is this test program again, in child mode (see main): a fresh process,
        // as a real crash would be.
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("FOGTEST_CHILD_DB", QString::fromStdString(db));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(child.waitForStarted());
        // Wait until the child has stored something, note how far it was (its own wall clock,
        // stored with every record), give it one more second, then kill it.
        double seenWall = -1;
        for (int i = 0; i < 200 && seenWall < 0; ++i) {
            QTest::qWait(50);
            RunStore peek(db);
            const auto runs = peek.listRuns();
            if (runs.empty()) continue;
            const auto m = peek.metrics(runs[0].id);
            if (!m.empty()) seenWall = m.back().wallSeconds;
        }
        QVERIFY2(seenWall >= 0, "the child stored nothing within 10 s");
        QTest::qWait(1000);
        ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
        QVERIFY(child.waitForFinished());
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);

        RunStore store(db);
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, std::string("interrupted"));
        const auto metrics = store.metrics(runs[0].id);
        QVERIFY(!metrics.empty());
        const double lastWall = metrics.back().wallSeconds;
        qInfo("%zu rounds stored; last record written %.2f s after the one seen before the 1 s wait",
              metrics.size(), lastWall - seenWall);
        // The child ran about 1 s more after we looked; the writer flushes every 0.2 s, so
        // at most a fraction of that second may be missing.
        QVERIFY(lastWall - seenWall > 0.6);
    }

    void olderSchemaMigrates() {
        // A version-1 file, as the first release wrote it, with one run in it.
        const std::string db = path("v1.db");
        QVERIFY(fogtest::writeStoreV1(db,
                                      "INSERT INTO runs(name, scenario_yaml, seed, program_version, started_at, status, rounds, cost)"
                                      " VALUES('old run', 'name: old', 5, '0.0.1', '2026-01-01T00:00:00Z', 'finished', 7, 1.5);"
                                      "INSERT INTO metrics(run_id, seq, round, level, time, test_accuracy) VALUES(1, 1, 1, 0, 2.5, 0.5);"));
        RunStore store(db);
        QCOMPARE(store.schemaVersion(), kStoreSchemaVersion); // v1 -> every later version
        const auto runs = store.listRuns();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].name, std::string("old run"));
        QCOMPARE(runs[0].summary.rounds, 7);
        QCOMPARE(runs[0].sweepId, std::int64_t(0));
        QCOMPARE(store.metrics(runs[0].id).front().testAccuracy, 0.5);
        // The migrated file takes new runs with the new columns.
        NewRun nr;
        nr.name = "new";
        nr.sweepConfig = "x=1";
        const auto id = store.beginRun(nr);
        QCOMPARE(store.run(id)->sweepConfig, std::string("x=1"));
    }

    void badFilesGiveClearMessages_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("text file") << QByteArray("name: a scenario, not a database\n")
                                   << "not a FogStudio run database (not an SQLite file)";
        QByteArray damaged("SQLite format 3");
        damaged.append('\0');
        damaged.append(QByteArray(4000, '\x5a'));
        QTest::newRow("damaged sqlite") << damaged << "not a FogStudio run database, or the file is damaged";
    }
    void badFilesGiveClearMessages() {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        const std::string file = path("bad.db");
        {
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            out.write(content.constData(), content.size());
        }
        try {
            RunStore store(file);
            QFAIL("opening a bad file should throw");
        } catch (const StoreError& e) {
            const QString msg = e.what();
            QVERIFY2(msg.contains(QString::fromStdString(file)), qPrintable(msg));
            QVERIFY2(msg.contains(expected), qPrintable(msg));
        }
        // Nothing was lost: the file is as it was.
        std::ifstream in(file, std::ios::binary);
        const std::string after((std::istreambuf_iterator<char>(in)), {});
        QCOMPARE(QByteArray(after.data(), int(after.size())), content);
    }

    void foreignSqliteDatabaseIsRefused() {
        const std::string file = path("foreign.db");
        sqlite3* h = nullptr;
        sqlite3_open(file.c_str(), &h);
        sqlite3_exec(h, "CREATE TABLE photos(id INTEGER)", nullptr, nullptr, nullptr);
        sqlite3_close(h);
        try {
            RunStore store(file);
            QFAIL("a foreign database should be refused");
        } catch (const StoreError& e) {
            QVERIFY(QString(e.what()).contains("another program"));
        }
        QCOMPARE(countRows(file, "SELECT count(*) FROM sqlite_master"), std::int64_t(1));
    }

    // ------------------------------------------------------------ nothing lost (issue 10)

    void longRunsStoreEveryRow_data() {
        QTest::addColumn<bool>("engine");
        QTest::addColumn<double>("flushSeconds");
        QTest::addColumn<int>("queueRows");
        // One real timing-only engine run, and four synthetic producers that push as fast as
        // they can through small queues and short or long flush periods (the writer is
        // behind all the time, and a flush is often under way when the run ends).
        QTest::newRow("engine, 300k rounds") << true << 0.5 << 65536;
        QTest::newRow("producer, flush 0.5 s") << false << 0.5 << 65536;
        QTest::newRow("producer, flush 1 ms") << false << 0.001 << 4096;
        QTest::newRow("producer, small queue") << false << 0.05 << 1000;
        QTest::newRow("producer, flush 5 s") << false << 5.0 << 20000;
    }
    void longRunsStoreEveryRow() {
        QFETCH(bool, engine);
        QFETCH(double, flushSeconds);
        QFETCH(int, queueRows);
        const std::string db = path((std::string("long-") + std::to_string(QTest::currentDataTag()[0] == 'e') +
                                     std::to_string(queueRows) + ".db").c_str());
        RunStore store(db);
        NewRun nr;
        nr.name = QTest::currentDataTag();
        const auto id = store.beginRun(nr);
        Recorder produced;
        RowCounts counted;
        std::size_t peak = 0;
        {
            StoreRecorder rec(store, id, flushSeconds, static_cast<std::size_t>(queueRows));
            if (engine) {
                Scenario s = timingStar(1, 1000.0, NoiseSpec::Kind::None);
                s.topology.group(0).availability.kind = AvailabilitySpec::Kind::Markov;
                s.topology.group(0).availability.meanUpS = 0.2;
                s.topology.group(0).availability.meanDownS = 0.02;
                s.stop.rounds = 300000;
                ObserverList both;
                both.add(&produced);
                both.add(&rec);
                EngineOptions o;
                o.observer = &both;
                Engine e(s, o);
                e.run();
                QCOMPARE(produced.records.size(), std::size_t(300000));
            } else {
                AggregationRecord r;
                r.aggregator = "server";
                RunEvent ev{0.0, RunEventKind::Offline, 1, "", {}};
                std::vector<NodeInterval> iv(3);
                for (int i = 1; i <= 300000; ++i) {
                    r.round = i;
                    r.time = i;
                    rec.onAggregation(r);
                    if (i % 10 == 0) {
                        ev.time = i;
                        rec.onEvent(ev);
                        ++counted.events;
                    }
                    if (i % 9 == 0) {
                        rec.onIntervals(iv);
                        counted.intervals += 3;
                    }
                }
                counted.metrics = 300000;
                RunSummary done;
                done.rounds = 300000;
                rec.onFinish(done);
            }
            peak = rec.peakQueued();
            if (engine)
                counted = RowCounts{static_cast<std::int64_t>(produced.records.size()),
                                    static_cast<std::int64_t>(produced.intervals.size()),
                                    static_cast<std::int64_t>(produced.events.size())};
            QCOMPARE(rec.produced().metrics, counted.metrics);
            QCOMPARE(rec.error(), std::string());
        }
        const auto back = store.run(id);
        QVERIFY(back);
        QCOMPARE(back->status, std::string("finished"));
        QVERIFY(back->produced);
        const RowCounts rows = store.storedRows(id);
        qInfo("stored %lld metric rows, %lld events, %lld intervals; peak queue %zu rows (bound %d)",
              static_cast<long long>(rows.metrics), static_cast<long long>(rows.events),
              static_cast<long long>(rows.intervals), peak, queueRows);
        QCOMPARE(rows.metrics, counted.metrics);
        QCOMPARE(rows.events, counted.events);
        QCOMPARE(rows.intervals, counted.intervals);
        QVERIFY(counted.events > 1000); // the availability really produced events
        QVERIFY(*back->produced == rows);
        // Bounded memory: the queue never held more than its bound plus one call's rows.
        QVERIFY2(peak <= static_cast<std::size_t>(queueRows) + 3, qPrintable(QString::number(peak)));
        // In order, nothing duplicated: row n of the run is round n.
        QCOMPARE(countRows(db, "SELECT count(*) FROM metrics WHERE run_id = " + std::to_string(id) +
                                   " AND seq <> round"),
                 std::int64_t(0));
    }

    void runDeletedWhileItRunsIsNotFinished() {
        const std::string db = path("deleted.db");
        RunStore store(db);
        RunStore studio(db); // the studio deletes it from its own connection
        const auto id = store.beginRun(NewRun{});
        StoreRecorder rec(store, id, 0.01, 1000);
        AggregationRecord r;
        for (int i = 1; i <= 2000; ++i) {
            r.round = i;
            rec.onAggregation(r);
        }
        for (int i = 0; i < 200 && rec.stored().metrics < 2000; ++i) QTest::qWait(10);
        QVERIFY(studio.deleteRun(id));
        for (int i = 2001; i <= 4000; ++i) {
            r.round = i;
            rec.onAggregation(r);
        }
        rec.onFinish(RunSummary{});
        QVERIFY2(QString::fromStdString(rec.error()).contains("deleted"), rec.error().c_str());
        QVERIFY(!store.run(id));
        QCOMPARE(store.storedRows(id).metrics, std::int64_t(0));
    }

    void failedStoringMarksTheRunIncomplete() {
        // The recorder's rows cannot be written (a read-only connection): the run must not
        // pass as whole. Its end cannot be written either, so it stays "running" for this
        // process, and the recorder says why.
        const std::string db = path("incomplete.db");
        std::int64_t id = 0;
        {
            RunStore store(db);
            id = store.beginRun(NewRun{});
        }
        RunStore readOnly(db, true);
        QVERIFY(readOnly.readOnly());
        StoreRecorder rec(readOnly, id, 0.01);
        AggregationRecord r;
        for (int i = 1; i <= 100; ++i) rec.onAggregation(r);
        rec.onFinish(RunSummary{});
        QVERIFY2(QString::fromStdString(rec.error()).contains("read-only"), rec.error().c_str());
        QCOMPARE(rec.stored().metrics, std::int64_t(0));
        QCOMPARE(rec.produced().metrics, std::int64_t(100));
        QCOMPARE(readOnly.run(id)->status, std::string("running"));
    }

    // ------------------------------------------------------------ foreign and read-only files

    void foreignEmptySqliteFilesAreRefused_data() {
        QTest::addColumn<QString>("sql");
        QTest::newRow("another application id") << "PRAGMA application_id = 1234";
        QTest::newRow("a user version") << "PRAGMA user_version = 7";
        QTest::newRow("pages but no tables") << "CREATE TABLE t(x); DROP TABLE t;";
    }
    void foreignEmptySqliteFilesAreRefused() {
        QFETCH(QString, sql);
        const std::string file = path("foreign-empty.db");
        QFile::remove(QString::fromStdString(file));
        execSql(file, sql.toStdString());
        const QByteArray before = fileBytes(file);
        QVERIFY(!before.isEmpty());
        try {
            RunStore store(file);
            QFAIL("a foreign SQLite file without tables must not be adopted");
        } catch (const StoreError& e) {
            QVERIFY2(QString(e.what()).contains("another program"), e.what());
        }
        QCOMPARE(fileBytes(file), before);
        QCOMPARE(countRows(file, "SELECT count(*) FROM sqlite_master"), std::int64_t(0));
        QVERIFY(!checkDatabase(file).ok);
    }

    void emptyFileIsInitialised() {
        const std::string file = path("zero.db");
        QFile f(QString::fromStdString(file));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        RunStore store(file);
        QCOMPARE(store.schemaVersion(), kStoreSchemaVersion);
        QVERIFY(store.beginRun(NewRun{}) > 0);
    }

    void readOnlyDatabaseListsInterruptedRuns() {
        const std::string db = path("readonly.db");
        const auto id = addKilledRun(db, 25);
        const QByteArray before = fileBytes(db);
        {
            qputenv("FOGSTUDIO_DB_READONLY", "1");
            RunStore store(db);
            qunsetenv("FOGSTUDIO_DB_READONLY");
            QVERIFY(store.readOnly());
            const auto runs = store.listRuns();
            QCOMPARE(runs.size(), std::size_t(1));
            QCOMPARE(runs[0].status, std::string("interrupted"));
            QVERIFY(runs[0].summaryFromRows);
            QCOMPARE(runs[0].summary.rounds, 25);
            QCOMPARE(runs[0].summary.virtualTime, 50.0);
            QCOMPARE(runs[0].summary.cost, 12.5);
            QCOMPARE(runs[0].summary.aggregations, 25);
            QCOMPARE(runs[0].summary.lostJobs, 1);
            QVERIFY(std::abs(runs[0].summary.finalTestAccuracy - 0.3) < 1e-12); // round 24: i = 23
            QVERIFY(std::abs(runs[0].summary.bestTestAccuracy - 0.9) < 1e-12);
            QVERIFY_THROWS_EXCEPTION(StoreError, store.beginRun(NewRun{}));
            QVERIFY_THROWS_EXCEPTION(StoreError, store.deleteRun(id));
            QVERIFY_THROWS_EXCEPTION(StoreError, store.setTags(id, {"x"}));
        }
        QCOMPARE(fileBytes(db), before);
        // Opened for writing, the run is marked interrupted and keeps its figures.
        RunStore store(db);
        const auto r = store.run(id);
        QCOMPARE(r->status, std::string("interrupted"));
        QCOMPARE(r->summary.rounds, 25);
        QCOMPARE(countRows(db, "SELECT count(*) FROM runs WHERE status = 'interrupted'"), std::int64_t(1));
    }

    void dbCheckReportsWhatItFinds() {
        const std::string db = path("check.db");
        addKilledRun(db, 3);
        const QByteArray before = fileBytes(db);
        const DbCheck good = checkDatabase(db);
        const QString text = QString::fromStdString(joinTags(good.lines));
        QVERIFY2(good.ok, qPrintable(text));
        QVERIFY2(text.contains("integrity check: ok"), qPrintable(text));
        QVERIFY2(text.contains("process is gone"), qPrintable(text));
        QCOMPARE(fileBytes(db), before); // checking writes nothing
        // A damaged page: integrity_check must say so.
        const std::string broken = path("broken.db");
        {
            RunStore store(broken);
            const auto id = store.beginRun(NewRun{});
            std::vector<AggregationRecord> rows(20000);
            store.appendBatch(id, rows, {}, {});
        }
        QByteArray bytes = fileBytes(broken);
        QVERIFY(bytes.size() > 40000);
        // Damage the start of a page in the middle of the file, among the metric rows (a fixed
        // offset depends on the schema's layout: schema 5 left byte 20000 in unused space).
        const int page = static_cast<int>(bytes.size() / 2 / 4096 * 4096);
        for (int i = page; i < page + 400; ++i) bytes[i] = char(0xA5);
        {
            QFile f(QString::fromStdString(broken));
            QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
            f.write(bytes);
        }
        const DbCheck bad = checkDatabase(broken);
        QVERIFY2(!bad.ok, qPrintable(QString::fromStdString(joinTags(bad.lines))));
        QCOMPARE(fileBytes(broken), bytes);
        QVERIFY(!checkDatabase(path("no-such.db")).ok);
    }

    void newerSchemaIsRefused() {
        const std::string file = path("future.db");
        { RunStore create(file); }
        sqlite3* h = nullptr;
        sqlite3_open(file.c_str(), &h);
        sqlite3_exec(h, "PRAGMA user_version = 99", nullptr, nullptr, nullptr);
        sqlite3_close(h);
        try {
            RunStore store(file);
            QFAIL("a newer schema should be refused");
        } catch (const StoreError& e) {
            QVERIFY(QString(e.what()).contains("newer than this FogStudio"));
        }
    }
};

/// Child mode for killedRunIsMarkedInterrupted: a run that would take hours, storing as it
/// goes, until the parent kills it.
int runChild(const std::string& db) {
    RunStore store(db);
    NewRun nr;
    nr.name = "doomed";
    const auto id = store.beginRun(nr);
    Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::Exponential);
    s.sync.name = "fully-sync";
    s.stop.rounds = 0;
    s.stop.virtualTimeS = 1e12;
    StoreRecorder rec(store, id, 0.2);
    EngineOptions o;
    o.observer = &rec;
    o.playbackSpeed = 200.0;
    Engine engine(s, o);
    engine.run();
    return 0;
}

int main(int argc, char** argv) {
    if (const char* db = std::getenv("FOGTEST_CHILD_DB")) return runChild(db);
    QCoreApplication app(argc, argv);
    TestStore test;
    return QTest::qExec(&test, argc, argv);
}
#include "test_store.moc"
