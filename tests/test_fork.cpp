// Snapshots in the run store and forks of stored runs (core/fork/fork.h): the store's
// snapshot round trip, cascade delete and migration; snapshots that leave a run unchanged;
// a fork without change equal to its parent bit for bit (real training and timing only, 1
// and 2 threads); a fork with a change diverging only after its instant; a damaged parent
// record stopping the fork with a clear message; refusals; `fogstudio-cli fork` end to end.

#include "core/engine/engine.h"
#include "core/engine/run_control.h"
#include "core/fork/fork.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/store/sqlite_db.h"
#include "core/sweep/sweep.h"
#include "engine_fixtures.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>
#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace fog;

namespace {

// A short real-training run: FedAvg of a small MLP on 1000 Fashion-MNIST samples over an
// edge server and four phones that come and go, on links with a price.
const char* kTrainingYaml = R"(schema_version: 1
name: fork test (training)
seed: 5
topology:
  default_link: {bandwidth_up_mbps: 20, bandwidth_down_mbps: 50, latency_ms: 30, price_per_gb: 0.01}
  nodes:
    - {id: cloud, tier: cloud, role: aggregator, price_per_hour: 0.4}
    - id: edge-1
      tier: edge
      role: trainer
      parent: cloud
      compute: {throughput: 800, noise: {kind: lognormal, sigma: 0.3}}
      price_per_hour: 0.1
      link: {bandwidth_up_mbps: 5, bandwidth_down_mbps: 50, latency_ms: 15, price_per_gb: 0.01}
  groups:
    - id: phone
      count: 4
      tier: device
      role: trainer
      parent: cloud
      compute: {throughput: {min: 40, max: 160}, noise: {kind: exponential}}
      availability: {kind: markov, mean_up_s: 60, mean_down_s: 20}
data:
  dataset: fashion-mnist
  max_train_samples: 1000
  max_test_samples: 300
model: {kind: mlp, hidden: [16]}
training: {learning_rate: 0.05, momentum: 0.5, batch_size: 10, local_epochs: 1}
sync: {policy: fedavg}
selection: {policy: random-k, k: 3}
stop: {rounds: 8}
evaluation: {every_rounds: 1}
)";

// Timing only: n-sync over six workers with exponential steps and churn, 1 MB messages.
const char* kTimingYaml = R"(schema_version: 1
name: fork test (timing)
seed: 11
topology:
  default_link: {bandwidth_up_mbps: 10, bandwidth_down_mbps: 40, latency_ms: 20, price_per_gb: 0.05}
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 1.0}
    - id: edge-1
      tier: edge
      role: trainer
      parent: server
      compute: {throughput: 50, noise: {kind: exponential}}
      price_per_hour: 0.2
  groups:
    - id: w
      count: 5
      tier: device
      role: trainer
      parent: server
      compute: {throughput: {min: 5, max: 20}, noise: {kind: exponential}}
      availability: {kind: markov, mean_up_s: 100, mean_down_s: 30}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none, wire_bytes: 1000000}
training: {batch_size: 10, local_steps: 2}
sync: {policy: n-sync, n: 3}
selection: {policy: all}
stop: {rounds: 40}
)";

bool haveFashionMnist() {
    return std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || sameBits(a, b); }

/// "" when the rows are equal bit for bit (all but the wall clock), else the first difference.
QString rowDifference(const AggregationRecord& a, const AggregationRecord& b) {
    const std::pair<const char*, std::pair<double, double>> values[] = {
        {"time", {a.time, b.time}},         {"train loss", {a.trainLoss, b.trainLoss}},
        {"lr", {a.learningRate, b.learningRate}}, {"cost", {a.cost, b.cost}},
        {"energy", {a.energyJ, b.energyJ}}, {"bytes", {a.bytes, b.bytes}},
        {"staleness", {a.meanStaleness, b.meanStaleness}}, {"test loss", {a.testLoss, b.testLoss}},
        {"test accuracy", {a.testAccuracy, b.testAccuracy}},
    };
    for (const auto& [name, v] : values)
        if (!sameValue(v.first, v.second))
            return QString("%1: %2 vs %3").arg(name).arg(v.first, 0, 'g', 17).arg(v.second, 0, 'g', 17);
    if (a.round != b.round || a.level != b.level || a.aggregator != b.aggregator || a.participants != b.participants ||
        a.maxStaleness != b.maxStaleness)
        return "round/level/aggregator/participants/staleness";
    return {};
}

/// Runs and stores `yaml`, with a snapshot every `every` virtual seconds.
std::int64_t storeRun(RunStore& store, const std::string& yaml, int threads, double every, RunSummary& summary) {
    const Scenario s = loadScenarioText(yaml, "test");
    EngineOptions o;
    o.threads = threads;
    o.snapshotEverySeconds = every;
    return runAndStore(s, store, NewRun{}, o, summary, {});
}

/// A snapshot instant strictly inside the parent's run: the k-th of its snapshots.
double snapshotTime(const RunStore& store, std::int64_t run, std::size_t k) {
    const auto snaps = store.snapshots(run);
    return k < snaps.size() ? snaps[k].time : -1.0;
}

void execSql(const std::string& path, const std::string& sql) {
    SqliteDb db(path, SqliteDb::Mode::ReadWrite);
    db.exec(sql);
}

std::int64_t countRows(const std::string& path, const std::string& sql) {
    SqliteDb db(path, SqliteDb::Mode::ReadOnly);
    return db.scalar(sql);
}

/// Replaces a snapshot's model blob by `bytes` (with a matching checksum when `fixCrc`).
void overwriteBlob(const std::string& path, std::int64_t id, const std::string& bytes, std::uint32_t crc) {
    sqlite3* h = nullptr;
    QCOMPARE(sqlite3_open(path.c_str(), &h), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    QCOMPARE(sqlite3_prepare_v2(h, "UPDATE snapshots SET model = ?1, crc32 = ?2 WHERE id = ?3", -1, &st, nullptr), SQLITE_OK);
    sqlite3_bind_blob(st, 1, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, crc);
    sqlite3_bind_int64(st, 3, id);
    QCOMPARE(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(h);
}

std::string compressed(const std::vector<float>& v) {
    uLongf n = compressBound(static_cast<uLong>(v.size() * sizeof(float)));
    std::string out(n, '\0');
    compress2(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(v.data()),
              static_cast<uLong>(v.size() * sizeof(float)), 6);
    out.resize(n);
    return out;
}

std::uint32_t crcOf(const std::vector<float>& v) {
    return static_cast<std::uint32_t>(
        crc32(0L, reinterpret_cast<const Bytef*>(v.data()), static_cast<uInt>(v.size() * sizeof(float))));
}

} // namespace

class TestFork : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::string db(const char* name) const { return (dir_.path() + "/" + name).toStdString(); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // ---- the store --------------------------------------------------------------------

    void snapshotRoundTrip() {
        RunStore store(db("roundtrip.db"));
        NewRun meta;
        meta.name = "r";
        meta.scenarioYaml = "name: r";
        const std::int64_t run = store.beginRun(meta);
        std::vector<float> model(20000);
        for (std::size_t i = 0; i < model.size(); ++i) model[i] = std::sin(0.001f * static_cast<float>(i)) * 1e-3f;
        model[7] = -0.0f;
        model[8] = std::numeric_limits<float>::denorm_min();
        RunSnapshot s;
        s.reason = RunSnapshot::Reason::Requested;
        s.time = 612.5;
        s.round = 9;
        s.eventsHandled = 12345;
        s.cost = 1.0 / 3.0;
        s.energyJ = 42.25;
        s.bytes = 1e9 + 1;
        s.samplesComputed = 77;
        s.model = std::make_shared<const std::vector<float>>(model);
        const std::int64_t id = store.saveSnapshot(run, s);
        RunSnapshot timing = s;
        timing.reason = RunSnapshot::Reason::Every;
        timing.time = 100.0;
        timing.model.reset();
        const std::int64_t id2 = store.saveSnapshot(run, timing);

        const auto list = store.snapshots(run);
        QCOMPARE(list.size(), std::size_t(2));
        QCOMPARE(list[0].id, id2); // time order
        QCOMPARE(list[0].reason, std::string("every"));
        QCOMPARE(list[0].parameters, std::int64_t(0));
        QCOMPARE(list[1].reason, std::string("requested"));
        QCOMPARE(list[1].parameters, std::int64_t(model.size()));
        QVERIFY(list[1].compressedBytes > 0);
        QVERIFY(list[1].compressedBytes < static_cast<std::int64_t>(model.size() * sizeof(float)));

        // A fresh read-only connection: nothing cached passes for what is stored.
        RunStore again(db("roundtrip.db"), true);
        const RunSnapshot back = again.loadSnapshot(id);
        QCOMPARE(back.reason, RunSnapshot::Reason::Requested);
        QVERIFY(sameBits(back.time, s.time));
        QCOMPARE(back.round, 9);
        QCOMPARE(back.eventsHandled, std::uint64_t(12345));
        QVERIFY(sameBits(back.cost, s.cost));
        QVERIFY(sameBits(back.energyJ, s.energyJ));
        QVERIFY(sameBits(back.bytes, s.bytes));
        QCOMPARE(back.samplesComputed, std::int64_t(77));
        QVERIFY(back.model);
        QCOMPARE(back.model->size(), model.size());
        QVERIFY(std::memcmp(back.model->data(), model.data(), model.size() * sizeof(float)) == 0);
        const RunSnapshot noModel = again.loadSnapshot(id2);
        QVERIFY(!noModel.model || noModel.model->empty());

        // Damaged blobs are reported, never loaded.
        overwriteBlob(db("roundtrip.db"), id, "not zlib at all", crcOf(model));
        try {
            again.loadSnapshot(id);
            QFAIL("a damaged blob loaded");
        } catch (const StoreError& e) {
            QVERIFY2(QString(e.what()).contains("snapshot " + QString::number(id) + " of run " + QString::number(run)) &&
                         QString(e.what()).contains("damaged"),
                     e.what());
        }
        std::vector<float> other = model;
        other[3] += 1.0f;
        overwriteBlob(db("roundtrip.db"), id, compressed(other), crcOf(model)); // decompresses, wrong checksum
        try {
            again.loadSnapshot(id);
            QFAIL("a blob with a wrong checksum loaded");
        } catch (const StoreError& e) {
            QVERIFY2(QString(e.what()).contains("checksum"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(StoreError, again.loadSnapshot(99999));
    }

    void cascadeDelete() {
        const std::string path = db("cascade.db");
        RunStore store(path);
        NewRun meta;
        meta.scenarioYaml = "name: x";
        const std::int64_t parent = store.beginRun(meta);
        const std::int64_t child = store.beginRun(meta);
        RunSnapshot s;
        s.model = std::make_shared<const std::vector<float>>(std::vector<float>(100, 1.0f));
        store.saveSnapshot(parent, s);
        store.saveSnapshot(parent, s);
        store.saveSnapshot(child, s);
        store.setFork({child, parent, 10.0, {"link edge-1.up=2", "policy sync.n=2"}});
        QCOMPARE(store.fork(child)->changes.size(), std::size_t(2));
        QCOMPARE(store.forksOf(parent).size(), std::size_t(1));

        QVERIFY(store.deleteRun(parent));
        QCOMPARE(countRows(path, "SELECT count(*) FROM snapshots WHERE run_id = " + std::to_string(parent)), 0);
        QCOMPARE(countRows(path, "SELECT count(*) FROM snapshots WHERE run_id = " + std::to_string(child)), 1);
        // The fork outlives its parent and says so.
        const auto info = forkInfo(store, child);
        QVERIFY(info);
        QCOMPARE(info->parentId, parent);
        QVERIFY(!info->parentStored);
        QVERIFY(store.deleteRun(child));
        QCOMPARE(countRows(path, "SELECT count(*) FROM snapshots"), 0);
        QCOMPARE(countRows(path, "SELECT count(*) FROM forks"), 0);
    }

    void olderStoreGainsTheTables() {
        // A file as FogStudio wrote it before snapshots: the current schema without the two
        // tables (they are additive: no schema version step), with a run in it.
        const std::string path = db("older.db");
        std::int64_t run = 0;
        {
            RunStore store(path);
            NewRun meta;
            meta.name = "old run";
            meta.scenarioYaml = kTimingYaml;
            run = store.beginRun(meta);
            store.finishRun(run, RunSummary{});
        }
        execSql(path, "DROP INDEX snapshots_run; DROP INDEX forks_parent; DROP TABLE snapshots; DROP TABLE forks;");
        QCOMPARE(countRows(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('snapshots', 'forks')"), 0);
        {
            // Read-only: no tables, no snapshots, no forks, nothing written.
            RunStore ro(path, true);
            QVERIFY(ro.snapshots(run).empty());
            QVERIFY(!ro.fork(run));
            QVERIFY(ro.forksOf(run).empty());
            QVERIFY_THROWS_EXCEPTION(StoreError, ro.loadSnapshot(1));
        }
        QCOMPARE(countRows(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('snapshots', 'forks')"), 0);
        RunStore store(path);
        QCOMPARE(store.schemaVersion(), kStoreSchemaVersion);
        QCOMPARE(countRows(path, "SELECT count(*) FROM sqlite_master WHERE name IN ('snapshots', 'forks')"), 2);
        QCOMPARE(store.run(run)->name, std::string("old run"));
        RunSnapshot s;
        s.time = 5;
        const auto id = store.saveSnapshot(run, s);
        QCOMPARE(store.loadSnapshot(id).time, 5.0);
    }

    // ---- the engine -------------------------------------------------------------------

    void snapshotsLeaveTheRunUnchanged() {
        const Scenario s = loadScenarioText(kTimingYaml, "test");
        fogtest::Recorder plain;
        fogtest::runScenario(s, plain, 1);

        struct Snaps : fogtest::Recorder {
            std::vector<RunSnapshot> taken;
            void onSnapshot(const RunSnapshot& x) override { taken.push_back(x); }
        } with;
        EngineOptions o;
        o.observer = &with;
        o.snapshotEverySeconds = 7.5;
        o.snapshotTimes = {20.0, 3.0, 20.0};
        o.control = std::make_shared<RunControl>();
        o.control->requestSnapshot(); // before the start: taken at t = 0
        Engine engine(s, o);
        const RunSummary summary = engine.run();
        QCOMPARE(summary.status, RunStatus::Finished);
        QCOMPARE(with.records.size(), plain.records.size());
        for (std::size_t i = 0; i < plain.records.size(); ++i)
            QVERIFY2(rowDifference(plain.records[i], with.records[i]).isEmpty(), qPrintable(rowDifference(plain.records[i], with.records[i])));

        int every = 0, replay = 0, requested = 0;
        double last = -1;
        for (const auto& x : with.taken) {
            QVERIFY(x.time >= last); // in time order
            last = x.time;
            if (x.reason == RunSnapshot::Reason::Every) {
                ++every;
                QVERIFY(sameBits(x.time, 7.5 * every));
            }
            replay += x.reason == RunSnapshot::Reason::Replay;
            if (x.reason == RunSnapshot::Reason::Requested) {
                ++requested;
                QCOMPARE(x.time, 0.0);
            }
            QVERIFY(x.time <= summary.virtualTime);
        }
        QCOMPARE(requested, 1);
        QCOMPARE(replay, 3);
        QCOMPARE(every, static_cast<int>(std::ceil(summary.virtualTime / 7.5)) - 1); // every k * 7.5 < the end
        // The counters at a snapshot are the state then: cost never falls, rounds match the rows.
        for (std::size_t i = 1; i < with.taken.size(); ++i) QVERIFY(with.taken[i].cost >= with.taken[i - 1].cost);
        for (const auto& x : with.taken) {
            int rounds = 0;
            for (const auto& r : with.records) rounds += r.level == 0 && r.time <= x.time;
            QCOMPARE(x.round, rounds);
        }

        EngineOptions bad;
        bad.snapshotEverySeconds = -1;
        QVERIFY_THROWS_EXCEPTION(EngineError, [&] { Engine e(s, bad); }());
    }

    // ---- forks ------------------------------------------------------------------------

    void forkWithoutChangeEqualsParent_data() {
        QTest::addColumn<bool>("training");
        QTest::addColumn<int>("threads");
        QTest::newRow("timing, 1 thread") << false << 1;
        QTest::newRow("timing, 2 threads") << false << 2;
        QTest::newRow("training, 1 thread") << true << 1;
        QTest::newRow("training, 2 threads") << true << 2;
    }
    void forkWithoutChangeEqualsParent() {
        QFETCH(bool, training);
        QFETCH(int, threads);
        if (training && !haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        RunStore store(db("nochange.db"));
        RunSummary ps;
        const std::int64_t parent = storeRun(store, training ? kTrainingYaml : kTimingYaml, threads, 5.0, ps);
        QCOMPARE(ps.status, RunStatus::Finished);
        const auto snaps = store.snapshots(parent);
        QVERIFY(snaps.size() >= 4);
        if (training) QVERIFY(snaps.front().parameters > 0);
        const double at = snaps[snaps.size() / 2].time + 0.5; // between snapshots: several are checked
        const ForkPlan plan = planFork(store, parent, at, {});
        QVERIFY(plan.verify.size() >= 2);
        QVERIFY(!plan.parentRows.empty());
        QCOMPARE(plan.label, "fork of run " + std::to_string(parent) + " at " + QString::number(at).toStdString() + " s: no change");

        EngineOptions o;
        o.threads = 3 - threads; // the other thread count: results do not depend on it
        RunSummary fs;
        const std::int64_t fork = runFork(store, plan, o, fs);
        QVERIFY2(fs.status == RunStatus::Finished, fs.stopReason.c_str());
        const auto a = store.metrics(parent), b = store.metrics(fork);
        QCOMPARE(b.size(), a.size());
        for (std::size_t i = 0; i < a.size(); ++i)
            QVERIFY2(rowDifference(a[i], b[i]).isEmpty(), qPrintable(QString("row %1: ").arg(i) + rowDifference(a[i], b[i])));
        QVERIFY(sameBits(fs.cost, ps.cost));
        QVERIFY(sameBits(fs.virtualTime, ps.virtualTime));
        QVERIFY(sameValue(fs.finalTestAccuracy, ps.finalTestAccuracy));

        const auto info = forkInfo(store, fork);
        QVERIFY(info);
        QCOMPARE(info->parentId, parent);
        QVERIFY(sameBits(info->atSeconds, at));
        QVERIFY(info->changes.empty());
        QVERIFY(info->parentStored);
        QCOMPARE(forksOf(store, parent).size(), std::size_t(1));
        const auto stored = store.run(fork);
        QCOMPARE(stored->name, plan.label);
        QVERIFY(std::count(stored->tags.begin(), stored->tags.end(), "fork") == 1);
        // The replay's own snapshots are stored with the fork (a fork of the fork checks them).
        int replayed = 0;
        for (const auto& s : store.snapshots(fork)) replayed += s.reason == "replay";
        QCOMPARE(replayed, static_cast<int>(plan.verify.size()));
        QCOMPARE(forkBranchRow(b, at), plan.parentRows.size());
        store.deleteRun(parent);
        store.deleteRun(fork);
    }

    void forkWithChangeDivergesAfterItsInstant() {
        RunStore store(db("change.db"));
        RunSummary ps;
        const std::int64_t parent = storeRun(store, kTimingYaml, 1, 5.0, ps);
        const double at = snapshotTime(store, parent, 3) + 0.25;
        QVERIFY(at > 0);
        ForkChanges changes;
        changes.sets = {"w.bandwidth_up_mbps=0.5"};
        const ForkPlan plan = planFork(store, parent, at, changes);
        QCOMPARE(plan.actions, std::vector<std::string>{"link w bandwidth_up_mbps=0.5"});
        QVERIFY2(plan.label.find("w up 0.5 Mbps") != std::string::npos, plan.label.c_str());
        RunSummary fs;
        const std::int64_t fork = runFork(store, plan, EngineOptions{}, fs);
        QVERIFY2(fs.status == RunStatus::Finished, fs.stopReason.c_str());
        const auto a = store.metrics(parent), b = store.metrics(fork);
        const std::size_t branch = forkBranchRow(b, at);
        QCOMPARE(branch, plan.parentRows.size());
        for (std::size_t i = 0; i < branch; ++i) QVERIFY(rowDifference(a[i], b[i]).isEmpty());
        // After the instant the slower uplink shows: later rounds, other costs.
        QVERIFY(branch < a.size() && branch < b.size());
        bool differs = false;
        for (std::size_t i = branch; i < std::min(a.size(), b.size()); ++i) differs = differs || !rowDifference(a[i], b[i]).isEmpty();
        QVERIFY(differs);
        QVERIFY(fs.virtualTime > ps.virtualTime);
    }

    void forkOfAnIntervenedRun() {
        // The parent is paused after round 3 (as in the studio), a snapshot is asked for and
        // two interventions are made there, then it runs on.
        RunStore store(db("intervened.db"));
        const Scenario s = loadScenarioText(kTimingYaml, "test");
        auto control = std::make_shared<RunControl>();
        Condition round3;
        round3.metric = ConditionMetric::Round;
        round3.threshold = 3;
        control->runUntil(round3, RunControl::OnCondition::Pause);
        struct Seen : RunObserver {
            std::atomic<int> requested{0}, interventions{0};
            void onSnapshot(const RunSnapshot& x) override { requested += x.reason == RunSnapshot::Reason::Requested; }
            void onIntervention(const TimedEvent&) override { ++interventions; }
        } seen;
        EngineOptions o;
        o.control = control;
        o.observer = &seen;
        o.snapshotEverySeconds = 5;
        RunSummary ps;
        std::int64_t parent = 0;
        std::thread runner([&] { parent = runAndStore(s, store, NewRun{}, o, ps, {}); });
        for (int i = 0; i < 10000 && !control->isPaused(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        QVERIFY(control->isPaused());
        control->requestSnapshot();
        for (int i = 0; i < 10000 && seen.requested.load() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        QCOMPARE(seen.requested.load(), 1);
        QVERIFY(control->isPaused()); // a snapshot does not resume the run
        TimedEvent off;
        off.action = TimedEvent::Action::Offline;
        off.target = "w";
        off.fraction = 0.6;
        control->intervene(off);
        TimedEvent n;
        n.action = TimedEvent::Action::Policy;
        n.policyOf = "sync";
        n.policyParam = "n";
        n.policyValue = 2;
        control->intervene(n);
        for (int i = 0; i < 10000 && seen.interventions.load() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        control->resume();
        runner.join();
        QCOMPARE(seen.interventions.load(), 2);
        QCOMPARE(ps.status, RunStatus::Finished);
        const auto rows = store.metrics(parent);
        QVERIFY(rows.size() > 12);
        const double t3 = rows[2].time; // where it paused and was intervened on
        int requested = 0;
        for (const auto& x : store.snapshots(parent)) requested += x.reason == "requested" && x.time == t3;
        QCOMPARE(requested, 1);

        // After the interventions: the replay applies them where they were made, and the
        // fork without change is the parent bit for bit.
        RunSummary fs;
        const ForkPlan after = planFork(store, parent, rows[10].time, {});
        QCOMPARE(after.interventionsLeftOut, 0);
        const std::int64_t same = runFork(store, after, EngineOptions{}, fs);
        QVERIFY2(fs.status == RunStatus::Finished, fs.stopReason.c_str());
        const auto b = store.metrics(same);
        QCOMPARE(b.size(), rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) QVERIFY2(rowDifference(rows[i], b[i]).isEmpty(), qPrintable(rowDifference(rows[i], b[i])));

        // Before them: the fork leaves the parent's later interventions out, so it follows
        // the parent up to its instant and the unchanged scenario after it.
        const double before = (rows[1].time + rows[2].time) / 2;
        const ForkPlan early = planFork(store, parent, before, {});
        QCOMPARE(early.interventionsLeftOut, 2);
        const std::int64_t other = runFork(store, early, EngineOptions{}, fs);
        QVERIFY2(fs.status == RunStatus::Finished, fs.stopReason.c_str());
        const auto c = store.metrics(other);
        QVERIFY(rowDifference(rows[0], c[0]).isEmpty() && rowDifference(rows[1], c[1]).isEmpty());
        fogtest::Recorder plain;
        fogtest::runScenario(s, plain, 1); // the scenario as written, without interventions
        QCOMPARE(c.size(), plain.records.size());
        for (std::size_t i = 0; i < c.size(); ++i) QVERIFY(rowDifference(plain.records[i], c[i]).isEmpty());
        QVERIFY(QString::fromStdString(store.run(other)->notes).contains("left out the parent's 2 live intervention(s)"));
    }

    void damagedParentStopsTheFork_data() {
        QTest::addColumn<QString>("damage");
        QTest::addColumn<QString>("expected");
        QTest::newRow("model differs") << "model" << "the model differs in 1 of";
        QTest::newRow("cost differs") << "cost" << "snapshot";
        QTest::newRow("blob garbage") << "garbage" << "is damaged";
        QTest::newRow("metric row") << "row" << "differs: cost";
    }
    void damagedParentStopsTheFork() {
        QFETCH(QString, damage);
        QFETCH(QString, expected);
        const bool training = damage == "model" || damage == "garbage";
        if (training && !haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string path = db("damaged.db");
        RunStore store(path);
        RunSummary ps;
        const std::int64_t parent = storeRun(store, training ? kTrainingYaml : kTimingYaml, 2, 5.0, ps);
        const auto snaps = store.snapshots(parent);
        QVERIFY(snaps.size() >= 3);
        const StoredSnapshot victim = snaps[1];
        if (damage == "model") {
            const RunSnapshot s = store.loadSnapshot(victim.id);
            std::vector<float> m = *s.model;
            m[m.size() / 2] = std::nextafter(m[m.size() / 2], 1.0f); // one bit of one parameter
            overwriteBlob(path, victim.id, compressed(m), crcOf(m));
        } else if (damage == "garbage") {
            overwriteBlob(path, victim.id, std::string(64, 'x'), 0);
        } else if (damage == "cost") {
            execSql(path, "UPDATE snapshots SET cost = cost * 1.0000001 WHERE id = " + std::to_string(victim.id));
        } else {
            execSql(path, "UPDATE metrics SET cost = cost + 1e-9 WHERE seq = 2 AND run_id = " + std::to_string(parent));
        }
        const double at = damage == "row" ? snaps.back().time : snaps[2].time + 0.1;
        RunSummary fs;
        const std::int64_t fork = runFork(store, planFork(store, parent, at, {}), EngineOptions{}, fs);
        QCOMPARE(fs.status, RunStatus::Failed);
        const QString why = QString::fromStdString(fs.stopReason);
        QVERIFY2(why.startsWith(QString("the replay diverged from run %1 at t = ").arg(parent)) ||
                     why.startsWith(QString("cannot check the replay against run %1").arg(parent)),
                 qPrintable(why));
        QVERIFY2(why.contains(expected), qPrintable(why));
        if (damage != "row") QVERIFY2(why.contains(QString::number(victim.time)), qPrintable(why));
        // Stored as failed, with the reason, and still a fork of its parent.
        const auto stored = store.run(fork);
        QCOMPARE(stored->status, std::string("failed"));
        QCOMPARE(QString::fromStdString(stored->summary.stopReason), why);
        QVERIFY(forkInfo(store, fork));
        // It stopped where the replay left the parent's path, not at the end.
        QVERIFY(fs.virtualTime <= at);
    }

    void refusals() {
        const std::string path = db("refusals.db");
        RunStore store(path);
        auto refused = [&](std::int64_t run, double at, const ForkChanges& c, const QString& expected) {
            try {
                planFork(store, run, at, c);
            } catch (const ForkError& e) {
                QVERIFY2(QString(e.what()).contains(expected), e.what());
                return;
            }
            QFAIL(qPrintable("no refusal, expected: " + expected));
        };
        refused(424242, 10, {}, "no run 424242 in");

        NewRun meta;
        meta.name = "no scenario";
        const std::int64_t bare = store.beginRun(meta);
        store.finishRun(bare, RunSummary{});
        refused(bare, 0, {}, "has no stored scenario");

        meta.scenarioYaml = "kind: cluster\nname: c\n";
        const std::int64_t cluster = store.beginRun(meta);
        refused(cluster, 0, {}, "cluster-scheduling run");

        RunSummary ps;
        const std::int64_t parent = storeRun(store, kTimingYaml, 1, 0.0, ps);
        refused(parent, ps.virtualTime + 1, {}, "ended at t = ");
        refused(parent, -1, {}, "the fork instant must be a virtual time >= 0");

        meta.scenarioYaml = kTimingYaml;
        const std::int64_t failed = store.beginRun(meta);
        RunSummary f;
        f.status = RunStatus::Failed;
        f.virtualTime = 12;
        f.stopReason = "no progress";
        store.finishRun(failed, f);
        refused(failed, 30, {}, QString("run %1 failed at t = 12 s (no progress), before 30 s").arg(failed));

        ForkChanges stop;
        stop.sets = {"stop.rounds=5"};
        refused(parent, 10, stop, "--set stop.rounds: not something a fork can change");
        refused(parent, 10, stop, "sync.PARAM=V");
        ForkChanges policy;
        policy.sets = {"sync.policy=fedavg"};
        refused(parent, 10, policy, "keeps the parent's policies");
        ForkChanges trigger;
        trigger.events = {"at 5: link w.up=2"};
        refused(parent, 10, trigger, "give the action only");
        ForkChanges unknown;
        unknown.sets = {"nosuchnode.price_per_hour=1"};
        refused(parent, 10, unknown, "nosuchnode");
        ForkChanges badValue;
        badValue.events = {"link w.up=-3"};
        refused(parent, 10, badValue, "cannot apply to run");
    }

    void setKeysMapToEventActions_data() {
        QTest::addColumn<QString>("set");
        QTest::addColumn<QString>("action");
        QTest::newRow("uplink") << "edge-1.bandwidth_up_mbps=2" << "link edge-1 bandwidth_up_mbps=2";
        QTest::newRow("uplink short") << "edge-1.up=2" << "link edge-1 bandwidth_up_mbps=2";
        QTest::newRow("link section") << "w-3.link.latency_ms=80" << "link w-3 latency_ms=80";
        QTest::newRow("price") << "server.price_per_hour=0.9" << "node server price_per_hour=0.9";
        QTest::newRow("throughput") << "w.compute.throughput=12" << "node w throughput=12";
        QTest::newRow("by position") << "topology.nodes[1].price_per_hour=0.3" << "node edge-1 price_per_hour=0.3";
        QTest::newRow("group by position") << "topology.groups[0].bandwidth_down_mbps=7" << "link w bandwidth_down_mbps=7";
        QTest::newRow("policy") << "sync.n=2" << "policy sync.n=2";
        QTest::newRow("spaces") << " selection.k = 4" << "policy selection.k=4";
    }
    void setKeysMapToEventActions() {
        QFETCH(QString, set);
        QFETCH(QString, action);
        const Scenario s = loadScenarioText(kTimingYaml, "test");
        QCOMPARE(QString::fromStdString(forkSetToAction(s, set.toStdString())), action);
    }

    // ---- the CLI ----------------------------------------------------------------------

    void cliForkEndToEnd() {
        const QString file = dir_.path() + "/timing.yaml";
        {
            std::ofstream f(file.toStdString());
            f << kTimingYaml;
        }
        const QString dbPath = dir_.path() + "/cli.db";
        auto cli = [&](const QStringList& args, QByteArray* out = nullptr, QByteArray* err = nullptr) {
            QProcess p;
            p.start(FOG_CLI, args + QStringList{"--db", dbPath});
            if (!p.waitForFinished(60000)) return -1;
            if (out) *out = p.readAllStandardOutput();
            if (err) *err = p.readAllStandardError();
            return p.exitCode();
        };
        QByteArray out, err;
        QCOMPARE(cli({"run", file, "--snapshot-every", "5", "--threads", "1", "--json", "--quiet"}, &out, &err), 0);
        const QJsonObject ran = QJsonDocument::fromJson(out).object();
        const qint64 parent = static_cast<qint64>(ran["run_id"].toDouble());
        QVERIFY2(parent > 0, out.constData());
        const double end = ran["virtual_time_s"].toDouble();
        const QString at = QString::number(end / 2, 'g', 6);

        QCOMPARE(cli({"fork", QString::number(parent), "--at", at, "--threads", "2", "--json", "--quiet"}, &out, &err), 0);
        const QJsonObject forked = QJsonDocument::fromJson(out).object();
        const qint64 fork = static_cast<qint64>(forked["run_id"].toDouble());
        QVERIFY2(fork > parent, out.constData());
        QCOMPARE(forked["status"].toString(), QString("finished"));
        QVERIFY(forked["virtual_time_s"].toDouble() == end); // no change: the parent's end
        QVERIFY(forked["stored"].toObject()["complete"].toBool());

        // Plain text, as `run` prints, with the fork's label first.
        QCOMPARE(cli({"fork", QString::number(parent), "--at", at, "--quiet"}, &out, &err), 0);
        QVERIFY2(out.contains("fork of run " + QByteArray::number(parent) + " at " + at.toUtf8() + " s: no change"), out.constData());
        QVERIFY2(out.contains("stored as"), out.constData());

        QCOMPARE(cli({"runs", "show", QString::number(fork)}, &out, &err), 0);
        QVERIFY2(out.contains("fork of") && out.contains("run " + QByteArray::number(parent) + " at t = " + at.toUtf8() + " s"),
                 out.constData());
        QVERIFY2(out.contains("snapshots"), out.constData());
        QCOMPARE(cli({"runs", "show", QString::number(parent)}, &out, &err), 0);
        QVERIFY2(out.contains("forks") && out.contains(QByteArray::number(fork) + " (t = "), out.constData());
        QVERIFY2(out.contains("snapshots") && out.contains("compressed"), out.constData());

        // What users get wrong.
        QCOMPARE(cli({"fork", QString::number(parent)}, &out, &err), 2);
        QVERIFY2(err.contains("--at"), err.constData());
        QCOMPARE(cli({"fork", QString::number(parent), "--at", QString::number(end * 3)}, &out, &err), 1);
        QVERIFY2(err.contains("ended at t = "), err.constData());
        QCOMPARE(cli({"fork", QString::number(parent), "--at", "1", "--set", "stop.rounds=3"}, &out, &err), 1);
        QVERIFY2(err.contains("not something a fork can change") && err.contains("ID.throughput"), err.constData());
        QCOMPARE(cli({"fork", "99999", "--at", "1"}, &out, &err), 1);
        QVERIFY2(err.contains("no run 99999"), err.constData());
        QCOMPARE(cli({"fork", "abc", "--at", "1"}, &out, &err), 2);
        QCOMPARE(cli({"fork", QString::number(parent), "--at", "-5"}, &out, &err), 2);
    }
};

QTEST_GUILESS_MAIN(TestFork)
#include "test_fork.moc"
