#include "core/store/run_store.h"

#include <sqlite3.h>

#include <condition_variable>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace fog {

namespace {

constexpr std::int64_t kApplicationId = 0x464F4753; // "FOGS" in the SQLite header

// Schema 1: the first layout. Later versions are reached by the migrations below, so that
// every older file opens.
const char* kSchemaV1 = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL, tags TEXT NOT NULL DEFAULT '', notes TEXT NOT NULL DEFAULT '',
  scenario_yaml TEXT NOT NULL, seed INTEGER NOT NULL, program_version TEXT NOT NULL,
  started_at TEXT NOT NULL, ended_at TEXT, status TEXT NOT NULL, stop_reason TEXT,
  pid INTEGER, host TEXT, threads INTEGER,
  rounds INTEGER, aggregations INTEGER, virtual_time REAL, wall_seconds REAL, cost REAL,
  energy_j REAL, bytes REAL, final_test_loss REAL, final_test_accuracy REAL,
  best_test_accuracy REAL, final_train_loss REAL, samples_computed INTEGER, lost_jobs INTEGER);
CREATE TABLE metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL, round INTEGER, level INTEGER, aggregator TEXT, time REAL,
  wall_seconds REAL, train_loss REAL, participants INTEGER, learning_rate REAL, cost REAL,
  energy_j REAL, bytes REAL, mean_staleness REAL, max_staleness INTEGER, test_loss REAL,
  test_accuracy REAL, PRIMARY KEY(run_id, seq)) WITHOUT ROWID;
CREATE TABLE intervals(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  node INTEGER, state TEXT, t_from REAL, t_to REAL);
CREATE TABLE events(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  time REAL, kind TEXT, node INTEGER, detail TEXT);
CREATE TABLE nodes(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER, node_id TEXT, tier TEXT, role TEXT, parent TEXT, throughput REAL, price_per_hour REAL);
)sql";

// Schema 2: sweeps (common random numbers across configurations) and indexes.
const char* kMigrateV1toV2 = R"sql(
CREATE TABLE sweeps(id INTEGER PRIMARY KEY, name TEXT NOT NULL, spec TEXT NOT NULL, created_at TEXT NOT NULL);
ALTER TABLE runs ADD COLUMN sweep_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN repeat INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN sweep_config TEXT NOT NULL DEFAULT '';
CREATE INDEX intervals_run ON intervals(run_id);
CREATE INDEX events_run ON events(run_id);
CREATE INDEX nodes_run ON nodes(run_id);
CREATE INDEX runs_sweep ON runs(sweep_id);
)sql";

std::string isoNow() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string hostName() {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
}

bool processAlive(std::int64_t pid) {
    if (pid <= 0) return false;
    return kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

RunStatus statusFromString(const std::string& s) {
    if (s == "finished") return RunStatus::Finished;
    if (s == "cancelled") return RunStatus::Cancelled;
    if (s == "failed") return RunStatus::Failed;
    return RunStatus::Running;
}

NodeState stateFromString(const std::string& s) {
    for (NodeState st : {NodeState::Idle, NodeState::Receiving, NodeState::Computing,
                         NodeState::Sending, NodeState::Offline})
        if (s == toString(st)) return st;
    return NodeState::Idle;
}

const char* kRunColumns =
    "id, name, tags, notes, scenario_yaml, seed, program_version, started_at, ended_at, status, "
    "stop_reason, sweep_id, repeat, sweep_config, rounds, aggregations, virtual_time, wall_seconds, "
    "cost, energy_j, bytes, final_test_loss, final_test_accuracy, best_test_accuracy, "
    "final_train_loss, samples_computed, lost_jobs";

} // namespace

std::string joinTags(const std::vector<std::string>& tags) {
    std::string s;
    for (const auto& t : tags) s += (s.empty() ? "" : ",") + t;
    return s;
}

std::vector<std::string> splitTags(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string t; std::getline(ss, t, ',');)
        if (!t.empty()) out.push_back(t);
    return out;
}

std::string RunStore::defaultPath() {
    std::string base;
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
        base = x;
    else if (const char* h = std::getenv("HOME"); h && *h)
        base = std::string(h) + "/.local/share";
    else
        base = ".";
    return base + "/fogstudio/runs.db";
}

RunStore::RunStore(const std::string& path) {
    namespace fs = std::filesystem;
    const bool exists = fs::exists(path);
    if (exists) {
        // Say plainly what a foreign file is before SQLite does it more cryptically.
        std::ifstream in(path, std::ios::binary);
        char header[16] = {};
        in.read(header, 16);
        if (in.gcount() > 0 && std::string(header, 15) != "SQLite format 3")
            throw StoreError(path + ": not a FogStudio run database (not an SQLite file)");
    } else if (fs::path(path).has_parent_path()) {
        std::error_code ec;
        fs::create_directories(fs::path(path).parent_path(), ec);
        if (ec) throw StoreError(path + ": cannot create its folder: " + ec.message());
    }
    db_ = std::make_unique<SqliteDb>(path, true);
    db_->exec("PRAGMA foreign_keys = ON");
    migrate();
    db_->exec("PRAGMA journal_mode = WAL");
    db_->exec("PRAGMA synchronous = NORMAL");
    markInterrupted();
}

RunStore::~RunStore() = default;

void RunStore::migrate() {
    SqliteStmt appId(*db_, "PRAGMA application_id");
    appId.step();
    const std::int64_t app = appId.integer(0);
    SqliteStmt userVersion(*db_, "PRAGMA user_version");
    userVersion.step();
    int version = static_cast<int>(userVersion.integer(0));
    SqliteStmt tables(*db_, "SELECT count(*) FROM sqlite_master");
    tables.step();
    const std::int64_t objects = tables.integer(0);

    if (app != kApplicationId) {
        if (objects > 0 || app != 0)
            throw StoreError(db_->path() + ": not a FogStudio run database (an SQLite file of another program)");
        version = 0;
    }
    if (version > kStoreSchemaVersion)
        throw StoreError(db_->path() + ": the database has schema version " + std::to_string(version) +
                         ", newer than this FogStudio understands (" + std::to_string(kStoreSchemaVersion) +
                         "); open it with a newer FogStudio");
    if (version == kStoreSchemaVersion) {
        schemaVersion_ = version;
        return;
    }
    SqliteTransaction tx(*db_);
    if (version == 0) {
        db_->exec(kSchemaV1);
        db_->exec("PRAGMA application_id = " + std::to_string(kApplicationId));
        db_->exec("INSERT INTO meta(key, value) VALUES('created_by', 'FogStudio " FOGSTUDIO_VERSION "')");
        version = 1;
    }
    if (version == 1) {
        db_->exec(kMigrateV1toV2);
        version = 2;
    }
    db_->exec("PRAGMA user_version = " + std::to_string(version));
    tx.commit();
    schemaVersion_ = version;
}

void RunStore::markInterrupted() {
    // A run still "running" whose process on this host is gone was killed mid-run.
    const std::string host = hostName();
    std::vector<std::int64_t> dead;
    {
        SqliteStmt s(*db_, "SELECT id, pid, host FROM runs WHERE status = 'running'");
        while (s.step())
            if (s.text(2) == host && !processAlive(s.integer(1))) dead.push_back(s.integer(0));
    }
    for (auto id : dead) {
        SqliteStmt u(*db_, "UPDATE runs SET status = 'interrupted', stop_reason = 'the process ended "
                           "during the run', ended_at = ?2 WHERE id = ?1");
        u.bind(1, id).bind(2, isoNow()).run();
    }
}

std::int64_t RunStore::beginRun(const NewRun& r) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "INSERT INTO runs(name, tags, notes, scenario_yaml, seed, program_version, started_at, "
                       "status, pid, host, threads, sweep_id, repeat, sweep_config) "
                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9, ?10, ?11, ?12, ?13)");
    s.bind(1, r.name).bind(2, joinTags(r.tags)).bind(3, r.notes).bind(4, r.scenarioYaml);
    s.bind(5, static_cast<std::int64_t>(r.seed)).bind(6, std::string(FOGSTUDIO_VERSION)).bind(7, isoNow());
    s.bind(8, static_cast<std::int64_t>(getpid())).bind(9, hostName()).bind(10, r.threads);
    s.bind(11, r.sweepId).bind(12, r.repeat).bind(13, r.sweepConfig);
    s.run();
    return db_->lastInsertId();
}

void RunStore::appendBatch(std::int64_t run, const std::vector<AggregationRecord>& records,
                           const std::vector<NodeInterval>& intervals, const std::vector<RunEvent>& events) {
    if (records.empty() && intervals.empty() && events.empty()) return;
    std::lock_guard lock(mutex_);
    SqliteTransaction tx(*db_);
    if (!records.empty()) {
        SqliteStmt next(*db_, "SELECT coalesce(max(seq), 0) FROM metrics WHERE run_id = ?1");
        next.bind(1, run);
        next.step();
        std::int64_t seq = next.integer(0);
        SqliteStmt s(*db_, "INSERT INTO metrics VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)");
        for (const auto& r : records) {
            s.bind(1, run).bind(2, ++seq).bind(3, r.round).bind(4, r.level).bind(5, r.aggregator);
            s.bind(6, r.time).bind(7, r.wallSeconds).bind(8, r.trainLoss).bind(9, r.participants);
            s.bind(10, r.learningRate).bind(11, r.cost).bind(12, r.energyJ).bind(13, r.bytes);
            s.bind(14, r.meanStaleness).bind(15, r.maxStaleness).bind(16, r.testLoss).bind(17, r.testAccuracy);
            s.run();
        }
    }
    if (!intervals.empty()) {
        SqliteStmt s(*db_, "INSERT INTO intervals VALUES(?1, ?2, ?3, ?4, ?5)");
        for (const auto& iv : intervals) {
            s.bind(1, run).bind(2, iv.node).bind(3, std::string(toString(iv.state))).bind(4, iv.from).bind(5, iv.to);
            s.run();
        }
    }
    if (!events.empty()) {
        SqliteStmt s(*db_, "INSERT INTO events VALUES(?1, ?2, ?3, ?4, ?5)");
        for (const auto& e : events) {
            s.bind(1, run).bind(2, e.time).bind(3, e.kind).bind(4, e.node).bind(5, e.detail);
            s.run();
        }
    }
    tx.commit();
}

void RunStore::appendMetrics(std::int64_t run, const std::vector<AggregationRecord>& records) {
    appendBatch(run, records, {}, {});
}
void RunStore::appendIntervals(std::int64_t run, const std::vector<NodeInterval>& intervals) {
    appendBatch(run, {}, intervals, {});
}
void RunStore::appendEvents(std::int64_t run, const std::vector<RunEvent>& events) {
    appendBatch(run, {}, {}, events);
}

void RunStore::setNodes(std::int64_t run, const std::vector<NodeInfo>& nodes) {
    std::lock_guard lock(mutex_);
    SqliteTransaction tx(*db_);
    SqliteStmt del(*db_, "DELETE FROM nodes WHERE run_id = ?1");
    del.bind(1, run).run();
    SqliteStmt s(*db_, "INSERT INTO nodes VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const auto& n = nodes[i];
        s.bind(1, run).bind(2, static_cast<std::int64_t>(i)).bind(3, n.id).bind(4, n.tier).bind(5, n.role);
        s.bind(6, n.parent).bind(7, n.throughput).bind(8, n.pricePerHour);
        s.run();
    }
    tx.commit();
}

void RunStore::finishRun(std::int64_t run, const RunSummary& r) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "UPDATE runs SET status = ?2, stop_reason = ?3, ended_at = ?4, rounds = ?5, "
                       "aggregations = ?6, virtual_time = ?7, wall_seconds = ?8, cost = ?9, energy_j = ?10, "
                       "bytes = ?11, final_test_loss = ?12, final_test_accuracy = ?13, best_test_accuracy = ?14, "
                       "final_train_loss = ?15, samples_computed = ?16, lost_jobs = ?17 WHERE id = ?1");
    s.bind(1, run).bind(2, std::string(toString(r.status))).bind(3, r.stopReason).bind(4, isoNow());
    s.bind(5, r.rounds).bind(6, r.aggregations).bind(7, r.virtualTime).bind(8, r.wallSeconds);
    s.bind(9, r.cost).bind(10, r.energyJ).bind(11, r.bytes).bind(12, r.finalTestLoss);
    s.bind(13, r.finalTestAccuracy).bind(14, r.bestTestAccuracy).bind(15, r.finalTrainLoss);
    s.bind(16, r.samplesComputed).bind(17, r.lostJobs);
    s.run();
}

StoredRun RunStore::readRun(SqliteStmt& s) const {
    StoredRun r;
    r.id = s.integer(0);
    r.name = s.text(1);
    r.tags = splitTags(s.text(2));
    r.notes = s.text(3);
    r.scenarioYaml = s.text(4);
    r.seed = static_cast<std::uint64_t>(s.integer(5));
    r.programVersion = s.text(6);
    r.startedAt = s.text(7);
    r.endedAt = s.text(8);
    r.status = s.text(9);
    r.summary.status = statusFromString(r.status);
    r.summary.stopReason = s.text(10);
    r.sweepId = s.integer(11);
    r.repeat = static_cast<int>(s.integer(12));
    r.sweepConfig = s.text(13);
    r.summary.rounds = static_cast<int>(s.integer(14));
    r.summary.aggregations = static_cast<int>(s.integer(15));
    r.summary.virtualTime = s.real(16);
    r.summary.wallSeconds = s.real(17);
    r.summary.cost = s.real(18);
    r.summary.energyJ = s.real(19);
    r.summary.bytes = s.real(20);
    r.summary.finalTestLoss = s.real(21);
    r.summary.finalTestAccuracy = s.real(22);
    r.summary.bestTestAccuracy = s.real(23);
    r.summary.finalTrainLoss = s.real(24);
    r.summary.samplesComputed = s.integer(25);
    r.summary.lostJobs = static_cast<int>(s.integer(26));
    return r;
}

std::vector<StoredRun> RunStore::listRuns(const RunFilter& f) const {
    std::lock_guard lock(mutex_);
    std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE 1";
    if (!f.tag.empty()) sql += " AND (',' || tags || ',') LIKE ('%,' || ?1 || ',%')";
    if (!f.nameContains.empty()) sql += " AND instr(name, ?2) > 0";
    if (f.sweepId) sql += " AND sweep_id = ?3";
    sql += " ORDER BY id DESC";
    if (f.limit > 0) sql += " LIMIT " + std::to_string(f.limit);
    SqliteStmt s(*db_, sql);
    if (!f.tag.empty()) s.bind(1, f.tag);
    if (!f.nameContains.empty()) s.bind(2, f.nameContains);
    if (f.sweepId) s.bind(3, f.sweepId);
    std::vector<StoredRun> out;
    while (s.step()) out.push_back(readRun(s));
    return out;
}

std::optional<StoredRun> RunStore::run(std::int64_t id) const {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?1");
    s.bind(1, id);
    if (!s.step()) return std::nullopt;
    return readRun(s);
}

std::vector<AggregationRecord> RunStore::metrics(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "SELECT round, level, aggregator, time, wall_seconds, train_loss, participants, "
                       "learning_rate, cost, energy_j, bytes, mean_staleness, max_staleness, test_loss, "
                       "test_accuracy FROM metrics WHERE run_id = ?1 ORDER BY seq");
    s.bind(1, run);
    std::vector<AggregationRecord> out;
    while (s.step()) {
        AggregationRecord r;
        r.round = static_cast<int>(s.integer(0));
        r.level = static_cast<int>(s.integer(1));
        r.aggregator = s.text(2);
        r.time = s.real(3);
        r.wallSeconds = s.real(4);
        r.trainLoss = s.real(5);
        r.participants = static_cast<int>(s.integer(6));
        r.learningRate = s.real(7);
        r.cost = s.real(8);
        r.energyJ = s.real(9);
        r.bytes = s.real(10);
        r.meanStaleness = s.real(11);
        r.maxStaleness = static_cast<int>(s.integer(12));
        r.testLoss = s.real(13);
        r.testAccuracy = s.real(14);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<NodeInterval> RunStore::intervals(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "SELECT node, state, t_from, t_to FROM intervals WHERE run_id = ?1 ORDER BY rowid");
    s.bind(1, run);
    std::vector<NodeInterval> out;
    while (s.step())
        out.push_back({static_cast<int>(s.integer(0)), stateFromString(s.text(1)), s.real(2), s.real(3)});
    return out;
}

std::vector<RunEvent> RunStore::events(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "SELECT time, kind, node, detail FROM events WHERE run_id = ?1 ORDER BY rowid");
    s.bind(1, run);
    std::vector<RunEvent> out;
    while (s.step()) out.push_back({s.real(0), s.text(1), static_cast<int>(s.integer(2)), s.text(3)});
    return out;
}

std::vector<NodeInfo> RunStore::nodes(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "SELECT node_id, tier, role, parent, throughput, price_per_hour FROM nodes "
                       "WHERE run_id = ?1 ORDER BY idx");
    s.bind(1, run);
    std::vector<NodeInfo> out;
    while (s.step()) out.push_back({s.text(0), s.text(1), s.text(2), s.text(3), s.real(4), s.real(5)});
    return out;
}

bool RunStore::deleteRun(std::int64_t id) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "DELETE FROM runs WHERE id = ?1");
    s.bind(1, id).run();
    return sqlite3_changes(db_->handle()) > 0;
}

void RunStore::setTags(std::int64_t id, const std::vector<std::string>& tags) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "UPDATE runs SET tags = ?2 WHERE id = ?1");
    s.bind(1, id).bind(2, joinTags(tags)).run();
}

void RunStore::setNotes(std::int64_t id, const std::string& notes) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "UPDATE runs SET notes = ?2 WHERE id = ?1");
    s.bind(1, id).bind(2, notes).run();
}

void RunStore::rename(std::int64_t id, const std::string& name) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "UPDATE runs SET name = ?2 WHERE id = ?1");
    s.bind(1, id).bind(2, name).run();
}

std::int64_t RunStore::createSweep(const std::string& name, const std::string& spec) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "INSERT INTO sweeps(name, spec, created_at) VALUES(?1, ?2, ?3)");
    s.bind(1, name).bind(2, spec).bind(3, isoNow()).run();
    return db_->lastInsertId();
}

// ---------------------------------------------------------------- recorder

struct StoreRecorder::Impl {
    RunStore& store;
    std::int64_t run;
    double flushSeconds;
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<AggregationRecord> records;
    std::vector<NodeInterval> intervals;
    std::vector<RunEvent> events;
    bool stopping = false;
    std::string error;
    std::thread writer;

    Impl(RunStore& s, std::int64_t r, double f) : store(s), run(r), flushSeconds(f) {
        writer = std::thread([this] { loop(); });
    }

    void loop() {
        std::unique_lock lock(mutex);
        for (;;) {
            cv.wait_for(lock, std::chrono::duration<double>(flushSeconds), [this] { return stopping; });
            // Read before the flush: records that arrive while it writes (the lock is
            // released then) must get one more flush even if `stopping` is set meanwhile.
            const bool last = stopping;
            flushLocked(lock);
            if (last) return;
        }
    }

    void flushLocked(std::unique_lock<std::mutex>& lock) {
        auto r = std::move(records);
        auto i = std::move(intervals);
        auto e = std::move(events);
        records.clear();
        intervals.clear();
        events.clear();
        lock.unlock();
        try {
            store.appendBatch(run, r, i, e);
        } catch (const std::exception& ex) {
            error = ex.what(); // reported when the run finishes
        }
        lock.lock();
    }
};

StoreRecorder::StoreRecorder(RunStore& store, std::int64_t runId, double flushSeconds)
    : impl_(std::make_unique<Impl>(store, runId, flushSeconds)), runId_(runId) {}

StoreRecorder::~StoreRecorder() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stopping = true;
    }
    impl_->cv.notify_all();
    if (impl_->writer.joinable()) impl_->writer.join();
}

void StoreRecorder::onStart(const RunInfo& info) { impl_->store.setNodes(runId_, info.nodes); }

void StoreRecorder::onAggregation(const AggregationRecord& r) {
    std::lock_guard lock(impl_->mutex);
    impl_->records.push_back(r);
}

void StoreRecorder::onIntervals(const std::vector<NodeInterval>& v) {
    std::lock_guard lock(impl_->mutex);
    impl_->intervals.insert(impl_->intervals.end(), v.begin(), v.end());
}

void StoreRecorder::onEvent(const RunEvent& e) {
    std::lock_guard lock(impl_->mutex);
    impl_->events.push_back(e);
}

void StoreRecorder::onFinish(const RunSummary& s) {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->stopping = true;
    }
    impl_->cv.notify_all();
    if (impl_->writer.joinable()) impl_->writer.join();
    RunSummary summary = s;
    if (!impl_->error.empty() && summary.status != RunStatus::Failed) {
        summary.status = RunStatus::Failed;
        summary.stopReason = "could not store the metrics: " + impl_->error;
    }
    impl_->store.finishRun(runId_, summary);
}

} // namespace fog
