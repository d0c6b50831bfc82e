// The run store: every field comes back, a killed run is marked interrupted, older schemas
// migrate, and foreign or damaged files give a clear message.

#include "engine_fixtures.h"

#include "core/store/run_store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <csignal>
#include <fstream>
#include <sqlite3.h>
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
        s.topology.groups[0].availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.groups[0].availability.meanUpS = 3;
        s.topology.groups[0].availability.meanDownS = 1;
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
        {
            sqlite3* h = nullptr;
            QCOMPARE(sqlite3_open(db.c_str(), &h), SQLITE_OK);
            const char* v1 =
                "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                "CREATE TABLE runs(id INTEGER PRIMARY KEY, name TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '',"
                " notes TEXT NOT NULL DEFAULT '', scenario_yaml TEXT NOT NULL, seed INTEGER NOT NULL,"
                " program_version TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL,"
                " stop_reason TEXT, pid INTEGER, host TEXT, threads INTEGER, rounds INTEGER, aggregations INTEGER,"
                " virtual_time REAL, wall_seconds REAL, cost REAL, energy_j REAL, bytes REAL, final_test_loss REAL,"
                " final_test_accuracy REAL, best_test_accuracy REAL, final_train_loss REAL,"
                " samples_computed INTEGER, lost_jobs INTEGER);"
                "CREATE TABLE metrics(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                " seq INTEGER NOT NULL, round INTEGER, level INTEGER, aggregator TEXT, time REAL, wall_seconds REAL,"
                " train_loss REAL, participants INTEGER, learning_rate REAL, cost REAL, energy_j REAL, bytes REAL,"
                " mean_staleness REAL, max_staleness INTEGER, test_loss REAL, test_accuracy REAL,"
                " PRIMARY KEY(run_id, seq)) WITHOUT ROWID;"
                "CREATE TABLE intervals(run_id INTEGER NOT NULL, node INTEGER, state TEXT, t_from REAL, t_to REAL);"
                "CREATE TABLE events(run_id INTEGER NOT NULL, time REAL, kind TEXT, node INTEGER, detail TEXT);"
                "CREATE TABLE nodes(run_id INTEGER NOT NULL, idx INTEGER, node_id TEXT, tier TEXT, role TEXT,"
                " parent TEXT, throughput REAL, price_per_hour REAL);"
                "PRAGMA application_id = 1179600723; PRAGMA user_version = 1;"
                "INSERT INTO runs(name, scenario_yaml, seed, program_version, started_at, status, rounds, cost)"
                " VALUES('old run', 'name: old', 5, '0.0.1', '2026-01-01T00:00:00Z', 'finished', 7, 1.5);"
                "INSERT INTO metrics(run_id, seq, round, level, time, test_accuracy) VALUES(1, 1, 1, 0, 2.5, 0.5);";
            QCOMPARE(sqlite3_exec(h, v1, nullptr, nullptr, nullptr), SQLITE_OK);
            sqlite3_close(h);
        }
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
