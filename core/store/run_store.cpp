#include "core/store/run_store.h"

#include "core/util/numerics.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
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

// Schema 3: how many rows each run produced, counted by the recorder, so that a stored
// run can say whether it is complete.
const char* kMigrateV2toV3 = R"sql(
ALTER TABLE runs ADD COLUMN metrics_produced INTEGER;
ALTER TABLE runs ADD COLUMN intervals_produced INTEGER;
ALTER TABLE runs ADD COLUMN events_produced INTEGER;
)sql";

// Schema 4: the cluster-scheduling experiments (core/cluster): one row per run, its tasks,
// the per-server allocation intervals, sampled queue/utilisation, and the learned policy.
const char* kMigrateV3toV4 = R"sql(
CREATE TABLE cluster_runs(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  scheduler TEXT NOT NULL, seed INTEGER NOT NULL, tasks INTEGER NOT NULL, completed INTEGER NOT NULL,
  mean_completion REAL, p50_completion REAL, p95_completion REAL, max_completion REAL, mean_wait REAL,
  makespan REAL, mean_pending REAL, cpu_utilisation REAL, gpu_utilisation REAL,
  preemptions INTEGER NOT NULL, decisions INTEGER NOT NULL, stop_reason TEXT NOT NULL, wall_seconds REAL);
CREATE TABLE cluster_tasks(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  task_id INTEGER NOT NULL, type INTEGER NOT NULL, arrival REAL NOT NULL, work REAL NOT NULL,
  first_start REAL, finish REAL, server INTEGER, cpus INTEGER, gpus INTEGER, preemptions INTEGER NOT NULL,
  PRIMARY KEY(run_id, task_id));
CREATE TABLE cluster_intervals(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  server INTEGER NOT NULL, task_id INTEGER NOT NULL, start REAL NOT NULL, end REAL NOT NULL,
  cpus INTEGER NOT NULL, gpus INTEGER NOT NULL, memory_gb REAL NOT NULL, bandwidth_gbps REAL NOT NULL);
CREATE INDEX cluster_intervals_run ON cluster_intervals(run_id);
CREATE TABLE cluster_samples(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  time REAL NOT NULL, pending INTEGER NOT NULL, running INTEGER NOT NULL, used_cpus INTEGER NOT NULL,
  used_gpus INTEGER NOT NULL, used_memory_gb REAL NOT NULL, used_bandwidth_gbps REAL NOT NULL);
CREATE INDEX cluster_samples_run ON cluster_samples(run_id);
CREATE TABLE cluster_policies(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, bytes BLOB NOT NULL);
)sql";

// Schema 5: the energy split (AggregationRecord / RunSummary energyComputeJ, ...): NULL in
// the rows of runs stored before it (read as NaN: not known).
const char* kMigrateV4toV5 = R"sql(
ALTER TABLE runs ADD COLUMN energy_compute_j REAL;
ALTER TABLE runs ADD COLUMN energy_network_j REAL;
ALTER TABLE runs ADD COLUMN energy_idle_j REAL;
ALTER TABLE metrics ADD COLUMN energy_compute_j REAL;
ALTER TABLE metrics ADD COLUMN energy_network_j REAL;
ALTER TABLE metrics ADD COLUMN energy_idle_j REAL;
)sql";

// Schema 6: the kernels and CPU that computed each run (core/util/numerics.h), so that a
// re-run or fork on another machine knows to compare its training values by the rule.
const char* kMigrateV5toV6 = R"sql(
ALTER TABLE runs ADD COLUMN numerics TEXT NOT NULL DEFAULT '';
)sql";

const char* kInterruptedReason = "the process ended during the run";

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
    "final_train_loss, samples_computed, lost_jobs, pid, host, metrics_produced, intervals_produced, "
    "events_produced, energy_compute_j, energy_network_j, energy_idle_j, numerics";

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

namespace {

/// Read-only when asked, or when this process may not write the file or create the WAL
/// files beside it (access() also answers for read-only mounts, where root cannot write).
bool mustOpenReadOnly(const std::string& path, bool exists) {
    if (const char* e = std::getenv("FOGSTUDIO_DB_READONLY"); e && std::string(e) == "1") return true;
    if (!exists) return false;
    if (::access(path.c_str(), W_OK) != 0) return true;
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    return ::access(dir.empty() ? "." : dir.c_str(), W_OK | X_OK) != 0;
}

struct Identity {
    std::int64_t app = 0;
    std::int64_t pages = 0;
    std::int64_t objects = 0;
    int version = 0;
};

Identity readIdentity(SqliteDb& db) {
    Identity id;
    id.pages = db.scalar("PRAGMA page_count"); // reads page 1: a damaged header fails here
    id.app = db.scalar("PRAGMA application_id");
    id.version = static_cast<int>(db.scalar("PRAGMA user_version"));
    id.objects = db.scalar("SELECT count(*) FROM sqlite_master");
    return id;
}

/// The schema version of a FogStudio file, 0 for an empty (brand-new) one; throws for
/// anything else. An SQLite file that has any page but not our application id belongs to
/// another program, even without tables: it is never adopted.
/// `pagesAllowed`: 1 inside our own first write transaction, where SQLite has already laid
/// out page 1 of an empty file in memory.
int ourVersion(const Identity& id, const std::string& path, std::int64_t pagesAllowed = 0) {
    if (id.app != kApplicationId) {
        if (id.pages > pagesAllowed || id.objects > 0 || id.app != 0 || id.version != 0)
            throw StoreError(path + ": not a FogStudio run database (an SQLite file of another program)");
        return 0;
    }
    if (id.version > kStoreSchemaVersion)
        throw StoreError(path + ": the database has schema version " + std::to_string(id.version) +
                         ", newer than this FogStudio understands (" + std::to_string(kStoreSchemaVersion) +
                         "); open it with a newer FogStudio");
    return id.version;
}

} // namespace

RunStore::RunStore(const std::string& path) : RunStore(path, false) {}

RunStore::RunStore(const std::string& path, bool readOnly) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool exists = fs::exists(path, ec); // stat only: no descriptor of the file
    readOnly = readOnly || mustOpenReadOnly(path, exists);
    if (!exists && readOnly) throw StoreError(path + ": no such database (and it is opened read-only)");
    if (!exists && fs::path(path).has_parent_path()) {
        fs::create_directories(fs::path(path).parent_path(), ec);
        if (ec) throw StoreError(path + ": cannot create its folder: " + ec.message());
    }
    open(path, readOnly);
}

void RunStore::open(const std::string& path, bool readOnly) {
    db_ = std::make_unique<SqliteDb>(path, readOnly ? SqliteDb::Mode::ReadOnly : SqliteDb::Mode::ReadWriteCreate);
    // Say plainly what a foreign file is before SQLite does it more cryptically. The header
    // is read through SQLite's own descriptor: a second one, closed, would drop our locks.
    const std::string header = db_->readHeader(16);
    const std::string magic("SQLite format 3\0", 16);
    if (!header.empty() && magic.compare(0, header.size(), header) != 0)
        throw StoreError(path + ": not a FogStudio run database (not an SQLite file)");
    if (!readOnly) db_->exec("PRAGMA foreign_keys = ON");
    migrate();
    if (!readOnly) ensureLinkTables();
    if (!readOnly) ensureSnapshotTables();
    if (!readOnly) {
        db_->exec("PRAGMA journal_mode = WAL");
        db_->exec("PRAGMA synchronous = NORMAL");
        // Housekeeping, not a reason to lock anyone out: on a full disk (or any write that
        // fails) the killed runs stay marked running, still read as interrupted (run()), and
        // are marked when a later open can write. Reading works; writes say why they fail.
        try {
            markInterrupted();
        } catch (const StoreError& e) {
            if (e.code != SQLITE_FULL && e.code != SQLITE_IOERR && e.code != SQLITE_READONLY) throw;
        }
    }
}

RunStore::~RunStore() = default;

void RunStore::setBusyTimeout(int milliseconds) {
    std::lock_guard lock(mutex_);
    db_->setBusyTimeout(milliseconds);
}

void RunStore::migrate() {
    const Identity before = readIdentity(*db_);
    int version = ourVersion(before, db_->path());
    if (version == kStoreSchemaVersion) {
        schemaVersion_ = version;
        return;
    }
    if (db_->readOnly())
        throw StoreError(db_->path() + (version == 0 ? std::string(": the file is empty and opened read-only")
                                                      : ": the database has the older schema version " +
                                                            std::to_string(version) +
                                                            " and is opened read-only; open it once with "
                                                            "write access to upgrade it"));
    SqliteTransaction tx(*db_);
    // Another process may have created or upgraded the file while we waited for the lock.
    version = ourVersion(readIdentity(*db_), db_->path(), before.pages == 0 ? 1 : 0);
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
    if (version == 2) {
        db_->exec(kMigrateV2toV3);
        version = 3;
    }
    if (version == 3) {
        db_->exec(kMigrateV3toV4);
        version = 4;
    }
    if (version == 4) {
        db_->exec(kMigrateV4toV5);
        version = 5;
    }
    if (version == 5) {
        db_->exec(kMigrateV5toV6);
        version = 6;
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
        // Its figures as far as it got, from its last stored rows, computed once here so that
        // listing it later costs nothing.
        StoredRun got;
        got.id = id;
        summaryFromRows(got);
        SqliteStmt u(*db_, "UPDATE runs SET status = 'interrupted', stop_reason = ?3, ended_at = ?2 "
                           "WHERE id = ?1 AND status = 'running'");
        u.bind(1, id).bind(2, isoNow()).bind(3, std::string(kInterruptedReason)).run();
        if (!got.summaryFromRows) continue;
        const RunSummary& r = got.summary;
        SqliteStmt f(*db_, "UPDATE runs SET rounds = ?2, aggregations = ?3, virtual_time = ?4, wall_seconds = ?5, "
                           "cost = ?6, energy_j = ?7, bytes = ?8, final_test_loss = ?9, final_test_accuracy = ?10, "
                           "best_test_accuracy = ?11, final_train_loss = ?12, lost_jobs = ?13, "
                           "energy_compute_j = ?14, energy_network_j = ?15, energy_idle_j = ?16 WHERE id = ?1");
        f.bind(1, id).bind(2, r.rounds).bind(3, r.aggregations).bind(4, r.virtualTime).bind(5, r.wallSeconds);
        f.bind(6, r.cost).bind(7, r.energyJ).bind(8, r.bytes).bind(9, r.finalTestLoss).bind(10, r.finalTestAccuracy);
        f.bind(11, r.bestTestAccuracy).bind(12, r.finalTrainLoss).bind(13, r.lostJobs);
        f.bind(14, r.energyComputeJ).bind(15, r.energyNetworkJ).bind(16, r.energyIdleJ).run();
    }
}

std::int64_t RunStore::beginRun(const NewRun& r) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "INSERT INTO runs(name, tags, notes, scenario_yaml, seed, program_version, started_at, "
                       "status, pid, host, threads, sweep_id, repeat, sweep_config, numerics) "
                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
    s.bind(1, r.name).bind(2, joinTags(r.tags)).bind(3, r.notes).bind(4, r.scenarioYaml);
    s.bind(5, static_cast<std::int64_t>(r.seed)).bind(6, std::string(FOGSTUDIO_VERSION)).bind(7, isoNow());
    s.bind(8, static_cast<std::int64_t>(getpid())).bind(9, hostName()).bind(10, r.threads);
    s.bind(11, r.sweepId).bind(12, r.repeat).bind(13, r.sweepConfig);
    s.bind(14, r.numerics.empty() ? numericsRecord() : r.numerics);
    s.run();
    return db_->lastInsertId();
}

void RunStore::appendBatch(std::int64_t run, const std::vector<AggregationRecord>& records,
                           const std::vector<NodeInterval>& intervals, const std::vector<RunEvent>& events,
                           RowCounts* stored) {
    appendBatch(run, records, intervals, events, {}, stored);
}

void RunStore::appendBatch(std::int64_t run, const std::vector<AggregationRecord>& records,
                           const std::vector<NodeInterval>& intervals, const std::vector<RunEvent>& events,
                           const std::vector<LinkUsage>& linkUsage, RowCounts* stored) {
    if (records.empty() && intervals.empty() && events.empty() && linkUsage.empty()) return;
    std::size_t r = 0, i = 0, e = 0, u = 0;
    bool more = true;
    for (bool first = true; more; first = false) {
        // One short transaction per chunk: the lock on the file (and our mutex) is released
        // between chunks, and a moment left free, so a writer elsewhere (the studio's tags)
        // waits milliseconds, not the whole batch.
        if (!first) std::this_thread::sleep_for(std::chrono::microseconds(500));
        std::lock_guard lock(mutex_);
        SqliteTransaction tx(*db_);
        std::size_t budget = kRowsPerTransaction;
        const std::size_t r0 = r, i0 = i, e0 = e;
        if (r < records.size()) {
            SqliteStmt next(*db_, "SELECT coalesce(max(seq), 0) FROM metrics WHERE run_id = ?1");
            next.bind(1, run);
            next.step();
            std::int64_t seq = next.integer(0);
            SqliteStmt s(*db_, "INSERT INTO metrics VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)");
            for (; r < records.size() && budget > 0; ++r, --budget) {
                const auto& m = records[r];
                s.bind(1, run).bind(2, ++seq).bind(3, m.round).bind(4, m.level).bind(5, m.aggregator);
                s.bind(6, m.time).bind(7, m.wallSeconds).bind(8, m.trainLoss).bind(9, m.participants);
                s.bind(10, m.learningRate).bind(11, m.cost).bind(12, m.energyJ).bind(13, m.bytes);
                s.bind(14, m.meanStaleness).bind(15, m.maxStaleness).bind(16, m.testLoss).bind(17, m.testAccuracy);
                s.bind(18, m.energyComputeJ).bind(19, m.energyNetworkJ).bind(20, m.energyIdleJ);
                s.run();
            }
        }
        if (i < intervals.size() && budget > 0) {
            SqliteStmt s(*db_, "INSERT INTO intervals VALUES(?1, ?2, ?3, ?4, ?5)");
            for (; i < intervals.size() && budget > 0; ++i, --budget) {
                const auto& iv = intervals[i];
                s.bind(1, run).bind(2, iv.node).bind(3, std::string(toString(iv.state))).bind(4, iv.from).bind(5, iv.to);
                s.run();
            }
        }
        if (e < events.size() && budget > 0) {
            SqliteStmt s(*db_, "INSERT INTO events VALUES(?1, ?2, ?3, ?4, ?5)");
            for (; e < events.size() && budget > 0; ++e, --budget) {
                const auto& ev = events[e];
                s.bind(1, run).bind(2, ev.time).bind(3, ev.kindName()).bind(4, ev.node).bind(5, ev.detail);
                s.run();
            }
        }
        const std::size_t u0 = u;
        if (u < linkUsage.size() && budget > 0) writeLinkUsage(*db_, run, linkUsage, u, budget);
        tx.commit();
        if (stored) {
            stored->metrics += static_cast<std::int64_t>(r - r0);
            stored->intervals += static_cast<std::int64_t>(i - i0);
            stored->events += static_cast<std::int64_t>(e - e0);
            stored->linkUsage += static_cast<std::int64_t>(u - u0);
        }
        more = r < records.size() || i < intervals.size() || e < events.size() || u < linkUsage.size();
    }
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
                       "final_train_loss = ?15, samples_computed = ?16, lost_jobs = ?17, energy_compute_j = ?18, "
                       "energy_network_j = ?19, energy_idle_j = ?20 WHERE id = ?1");
    s.bind(1, run).bind(2, std::string(toString(r.status))).bind(3, r.stopReason).bind(4, isoNow());
    s.bind(5, r.rounds).bind(6, r.aggregations).bind(7, r.virtualTime).bind(8, r.wallSeconds);
    s.bind(9, r.cost).bind(10, r.energyJ).bind(11, r.bytes).bind(12, r.finalTestLoss);
    s.bind(13, r.finalTestAccuracy).bind(14, r.bestTestAccuracy).bind(15, r.finalTrainLoss);
    s.bind(16, r.samplesComputed).bind(17, r.lostJobs);
    s.bind(18, r.energyComputeJ).bind(19, r.energyNetworkJ).bind(20, r.energyIdleJ);
    s.run();
}

void RunStore::finishRun(std::int64_t run, const RunSummary& summary, const RowCounts& produced) {
    finishRun(run, summary);
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "UPDATE runs SET metrics_produced = ?2, intervals_produced = ?3, events_produced = ?4 "
                       "WHERE id = ?1");
    s.bind(1, run).bind(2, produced.metrics).bind(3, produced.intervals).bind(4, produced.events).run();
    if (produced.linkUsage > 0) setProducedLinkUsage(run, produced.linkUsage);
}

std::string RunStore::listStamp() const {
    std::lock_guard lock(mutex_);
    // One pass over the runs table (no metric rows): ids, and the lengths and first letters
    // of what the list shows, weighted by id.
    SqliteStmt s(*db_,
                 "SELECT count(*), coalesce(max(id), 0), coalesce(sum(id * (length(name) + 3 * length(tags) + "
                 "7 * length(notes) + 11 * length(status) + 13 * length(coalesce(ended_at, '')) + "
                 "17 * coalesce(unicode(name), 0) + 19 * coalesce(unicode(tags), 0))), 0) FROM runs");
    if (!s.step()) return {};
    return std::to_string(s.integer(0)) + ":" + std::to_string(s.integer(1)) + ":" + std::to_string(s.integer(2));
}

RowCounts RunStore::storedRows(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    RowCounts c;
    auto count = [&](const char* sql) {
        SqliteStmt s(*db_, sql);
        s.bind(1, run);
        return s.step() ? s.integer(0) : 0;
    };
    c.metrics = count("SELECT count(*) FROM metrics WHERE run_id = ?1");
    c.intervals = count("SELECT count(*) FROM intervals WHERE run_id = ?1");
    c.events = count("SELECT count(*) FROM events WHERE run_id = ?1");
    if (hasLinkTables()) c.linkUsage = count("SELECT count(*) FROM link_usage WHERE run_id = ?1");
    return c;
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
    r.summary.energyComputeJ = s.real(32);
    r.summary.energyNetworkJ = s.real(33);
    r.summary.energyIdleJ = s.real(34);
    r.numerics = s.text(35);
    if (r.status == "running" && s.text(28) == hostName() && !processAlive(s.integer(27))) {
        // Killed, and not yet marked (a read-only database, or killed since we opened it).
        r.status = "interrupted";
        r.summary.stopReason = kInterruptedReason;
    }
    if (!s.isNull(29)) r.produced = RowCounts{s.integer(29), s.integer(30), s.integer(31)};
    if (r.produced) r.produced->linkUsage = producedLinkUsage(r.id);
    // Figures of a run killed mid-way: computed from its rows when it was marked interrupted,
    // or now (read-only, or killed since). A live run's rows are not scanned on every list.
    if (r.status == "interrupted" && !s.isNull(14)) r.summaryFromRows = true;
    if (s.isNull(14) && r.status != "running") summaryFromRows(r);
    return r;
}

void RunStore::summaryFromRows(StoredRun& r) const {
    // Called with mutex_ held. The last metric row carries the cumulative figures.
    SqliteStmt last(*db_, "SELECT round, time, wall_seconds, cost, energy_j, bytes, train_loss, energy_compute_j, "
                          "energy_network_j, energy_idle_j FROM metrics "
                          "WHERE run_id = ?1 ORDER BY seq DESC LIMIT 1");
    last.bind(1, r.id);
    if (!last.step()) return;
    r.summaryFromRows = true;
    r.summary.rounds = static_cast<int>(last.integer(0));
    r.summary.virtualTime = last.real(1);
    r.summary.wallSeconds = last.real(2);
    r.summary.cost = last.real(3);
    r.summary.energyJ = last.real(4);
    r.summary.bytes = last.real(5);
    r.summary.finalTrainLoss = last.real(6);
    r.summary.energyComputeJ = last.real(7);
    r.summary.energyNetworkJ = last.real(8);
    r.summary.energyIdleJ = last.real(9);
    SqliteStmt agg(*db_, "SELECT count(*), max(test_accuracy) FROM metrics WHERE run_id = ?1");
    agg.bind(1, r.id);
    if (agg.step()) {
        r.summary.aggregations = static_cast<int>(agg.integer(0));
        r.summary.bestTestAccuracy = agg.real(1);
    }
    SqliteStmt test(*db_, "SELECT test_loss, test_accuracy FROM metrics WHERE run_id = ?1 AND test_accuracy "
                          "IS NOT NULL ORDER BY seq DESC LIMIT 1");
    test.bind(1, r.id);
    if (test.step()) {
        r.summary.finalTestLoss = test.real(0);
        r.summary.finalTestAccuracy = test.real(1);
    }
    SqliteStmt lost(*db_, "SELECT count(*) FROM events WHERE run_id = ?1 AND kind = ?2");
    lost.bind(1, r.id).bind(2, std::string(toString(RunEventKind::WorkLost)));
    if (lost.step()) r.summary.lostJobs = static_cast<int>(lost.integer(0));
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
                       "test_accuracy, energy_compute_j, energy_network_j, energy_idle_j FROM metrics "
                       "WHERE run_id = ?1 ORDER BY seq");
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
        r.energyComputeJ = s.real(15);
        r.energyNetworkJ = s.real(16);
        r.energyIdleJ = s.real(17);
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
    while (s.step()) out.push_back(RunEvent::fromStored(s.real(0), s.text(1), static_cast<int>(s.integer(2)), s.text(3)));
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

void RunStore::setScenarioYaml(std::int64_t id, const std::string& yaml) {
    std::lock_guard lock(mutex_);
    SqliteStmt s(*db_, "UPDATE runs SET scenario_yaml = ?2 WHERE id = ?1");
    s.bind(1, id).bind(2, yaml).run();
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
    std::size_t capacity;                 ///< rows the queue may hold before the engine waits
    std::size_t batchRows;                ///< the writer starts early once this many wait
    mutable std::mutex mutex;
    std::condition_variable wakeWriter;   ///< rows to write, or stopping
    std::condition_variable wakeProducer; ///< room in the queue, or the writer gave up
    std::vector<AggregationRecord> records;
    std::vector<NodeInterval> intervals;
    std::vector<RunEvent> events;
    std::vector<LinkUsage> linkUsage;
    std::size_t queued = 0;
    std::size_t peak = 0;
    bool stopping = false;
    bool failed = false; ///< a write failed: later rows are counted but not queued
    std::string error;
    RowCounts produced;
    RowCounts stored;
    std::thread writer;

    Impl(RunStore& s, std::int64_t r, double f, std::size_t cap)
        : store(s), run(r), flushSeconds(f), capacity(std::max<std::size_t>(cap, 1)),
          batchRows(std::max<std::size_t>(capacity / 4, 1)) {
        writer = std::thread([this] { loop(); });
    }

    /// Called by the engine's thread: waits while the queue is full (back-pressure).
    std::unique_lock<std::mutex> room() {
        std::unique_lock lock(mutex);
        wakeProducer.wait(lock, [this] { return queued < capacity || failed || stopping; });
        return lock;
    }

    void added(std::size_t n) {
        queued += n;
        peak = std::max(peak, queued);
        if (queued >= batchRows) wakeWriter.notify_one();
    }

    void loop() {
        std::unique_lock lock(mutex);
        for (;;) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(flushSeconds);
            wakeWriter.wait_until(lock, deadline, [this] { return stopping || queued >= batchRows; });
            if (queued == 0) {
                if (stopping) return; // only once everything queued has been written
                continue;
            }
            auto r = std::move(records);
            auto i = std::move(intervals);
            auto e = std::move(events);
            auto u = std::move(linkUsage);
            records.clear();
            intervals.clear();
            events.clear();
            linkUsage.clear();
            queued = 0;
            wakeProducer.notify_all();
            lock.unlock();
            RowCounts done;
            std::string message;
            try {
                store.appendBatch(run, r, i, e, u, &done);
            } catch (const std::exception& ex) {
                message = ex.what();
                try {
                    if (!store.run(run)) message = "run " + std::to_string(run) + " was deleted while it ran";
                } catch (const std::exception&) {
                }
            }
            lock.lock();
            stored.metrics += done.metrics;
            stored.intervals += done.intervals;
            stored.events += done.events;
            stored.linkUsage += done.linkUsage;
            if (!message.empty() && !failed) {
                failed = true;
                error = message;
                wakeProducer.notify_all();
            }
        }
    }

    void stop() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        wakeWriter.notify_all();
        wakeProducer.notify_all();
        if (writer.joinable()) writer.join();
    }
};

StoreRecorder::StoreRecorder(RunStore& store, std::int64_t runId, double flushSeconds, std::size_t queueRows)
    : impl_(std::make_unique<Impl>(store, runId, flushSeconds, queueRows)), runId_(runId) {}

StoreRecorder::~StoreRecorder() { impl_->stop(); }

RowCounts StoreRecorder::produced() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->produced;
}

RowCounts StoreRecorder::stored() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->stored;
}

std::string StoreRecorder::error() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->error;
}

std::size_t StoreRecorder::peakQueued() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->peak;
}

void StoreRecorder::onStart(const RunInfo& info) {
    try {
        impl_->store.setNodes(runId_, info.nodes);
        if (!info.links.empty()) impl_->store.setLinks(runId_, info.links);
    } catch (const std::exception& e) {
        std::lock_guard lock(impl_->mutex);
        if (!impl_->failed) {
            impl_->failed = true;
            impl_->error = std::string("could not store the nodes: ") + e.what();
        }
    }
}

void StoreRecorder::onAggregation(const AggregationRecord& r) {
    auto lock = impl_->room();
    ++impl_->produced.metrics;
    if (impl_->failed || impl_->stopping) return;
    impl_->records.push_back(r);
    impl_->added(1);
}

void StoreRecorder::onIntervals(const std::vector<NodeInterval>& v) {
    if (v.empty()) return;
    auto lock = impl_->room();
    impl_->produced.intervals += static_cast<std::int64_t>(v.size());
    if (impl_->failed || impl_->stopping) return;
    impl_->intervals.insert(impl_->intervals.end(), v.begin(), v.end());
    impl_->added(v.size());
}

void StoreRecorder::onEvent(const RunEvent& e) {
    auto lock = impl_->room();
    ++impl_->produced.events;
    if (impl_->failed || impl_->stopping) return;
    impl_->events.push_back(e);
    impl_->added(1);
}

void StoreRecorder::onLinkUsage(const std::vector<LinkUsage>& u) {
    if (u.empty()) return;
    auto lock = impl_->room();
    impl_->produced.linkUsage += static_cast<std::int64_t>(u.size());
    if (impl_->failed || impl_->stopping) return;
    impl_->linkUsage.insert(impl_->linkUsage.end(), u.begin(), u.end());
    impl_->added(u.size());
}

void StoreRecorder::onSnapshot(const RunSnapshot& s) {
    try {
        impl_->store.saveSnapshot(runId_, s);
    } catch (const std::exception& e) {
        std::lock_guard lock(impl_->mutex);
        if (!impl_->failed) {
            impl_->failed = true;
            impl_->error = std::string("could not store a snapshot: ") + e.what();
        }
    }
}

void StoreRecorder::onFinish(const RunSummary& s) {
    impl_->stop(); // writes everything still queued first
    RowCounts produced, stored;
    std::string error;
    {
        std::lock_guard lock(impl_->mutex);
        produced = impl_->produced;
        stored = impl_->stored;
        error = impl_->error;
    }
    RunSummary summary = s;
    if (!error.empty() || stored != produced) {
        // Incomplete: say so in the run's status and reason rather than pass it as whole.
        std::ostringstream why;
        why << "incomplete: stored " << stored.metrics << " of " << produced.metrics << " metric rows, "
            << stored.events << " of " << produced.events << " events and " << stored.intervals << " of "
            << produced.intervals << " intervals";
        if (produced.linkUsage > 0 || stored.linkUsage > 0)
            why << ", " << stored.linkUsage << " of " << produced.linkUsage << " link usage spans";
        if (!error.empty()) why << "; could not store the run: " << error;
        if (!s.stopReason.empty()) why << "; the run itself: " << toString(s.status) << ", " << s.stopReason;
        summary.status = RunStatus::Failed;
        summary.stopReason = why.str();
    }
    try {
        impl_->store.finishRun(runId_, summary, produced);
    } catch (const std::exception& e) {
        // The run stays "running" in the database (read back as interrupted once this
        // process is gone); whoever started it learns it from error() or by reading it back.
        std::lock_guard lock(impl_->mutex);
        if (impl_->error.empty()) impl_->error = std::string("could not store the run's end: ") + e.what();
    }
}

// ---------------------------------------------------------------- db check

namespace {

/// Table -> columns of a database (sqlite_master and PRAGMA table_info).
std::map<std::string, std::set<std::string>> tableColumns(SqliteDb& db) {
    std::map<std::string, std::set<std::string>> out;
    std::vector<std::string> tables;
    {
        SqliteStmt t(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
        while (t.step()) tables.push_back(t.text(0));
    }
    for (const auto& name : tables) {
        SqliteStmt c(db, "SELECT name FROM pragma_table_info(?1)");
        c.bind(1, name);
        auto& cols = out[name];
        while (c.step()) cols.insert(c.text(0));
    }
    return out;
}

} // namespace

/// The file holds every table and column of the current schema (built in memory from the
/// same statements as a new database); the link and snapshot tables, created when a file is
/// next opened for writing, only when present. False (with lines saying what) otherwise.
static bool checkSchemaColumns(SqliteDb& db, const std::function<void(const std::string&)>& line) {
    SqliteDb ref(":memory:", SqliteDb::Mode::ReadWriteCreate);
    for (const char* sql : {kSchemaV1, kMigrateV1toV2, kMigrateV2toV3, kMigrateV3toV4, kMigrateV4toV5})
        ref.exec(sql);
    const auto want = tableColumns(ref);
    const auto have = tableColumns(db);
    bool ok = true;
    for (const auto& [table, cols] : want) {
        const auto it = have.find(table);
        if (it == have.end()) {
            line("schema: table " + table + " is missing (the file is damaged or not FogStudio's)");
            ok = false;
            continue;
        }
        std::string missing;
        for (const auto& c : cols)
            if (!it->second.count(c)) missing += (missing.empty() ? "" : ", ") + c;
        if (!missing.empty()) {
            line("schema: table " + table + " lacks column(s) " + missing);
            ok = false;
        }
    }
    if (ok) line("schema: every table and column of version " + std::to_string(kStoreSchemaVersion));
    return ok;
}

DbCheck checkDatabase(const std::string& path) {
    DbCheck out;
    auto line = [&](const std::string& s) { out.lines.push_back(s); };
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        line(path + ": no such database file");
        return out;
    }
    try {
        SqliteDb db(path, SqliteDb::Mode::ReadOnly);
        const std::string header = db.readHeader(16);
        if (header.empty()) {
            line("empty file: no database yet (FogStudio creates one here on first use)");
            return out;
        }
        if (std::string("SQLite format 3\0", 16).compare(0, header.size(), header) != 0) {
            line("not an SQLite file: not a FogStudio run database");
            return out;
        }
        bool ok = true;
        {
            SqliteStmt s(db, "PRAGMA integrity_check");
            std::vector<std::string> problems;
            while (s.step()) problems.push_back(s.text(0));
            if (problems.size() == 1 && problems[0] == "ok") {
                line("integrity check: ok");
            } else {
                ok = false;
                line("integrity check: " + std::to_string(problems.size()) + " problem(s)");
                for (std::size_t i = 0; i < problems.size() && i < 20; ++i) line("  " + problems[i]);
            }
        }
        const Identity id = readIdentity(db);
        if (id.app != kApplicationId) {
            line(id.pages == 0 ? "empty database: no FogStudio schema yet"
                               : "application id " + std::to_string(id.app) +
                                     ": not a FogStudio run database (another program's SQLite file)");
            out.ok = false;
            return out;
        }
        line("application id: FogStudio");
        if (id.version > kStoreSchemaVersion) {
            line("schema version " + std::to_string(id.version) + ": newer than this FogStudio (" +
                 std::to_string(kStoreSchemaVersion) + ")");
            out.ok = false;
            return out;
        }
        line("schema version " + std::to_string(id.version) +
             (id.version < kStoreSchemaVersion ? " (upgraded to " + std::to_string(kStoreSchemaVersion) +
                                                     " when next opened for writing)"
                                               : ""));
        if (id.version == kStoreSchemaVersion && !checkSchemaColumns(db, line)) {
            // Every other command would fail on it ("no such table", "no such column").
            out.ok = false;
            return out;
        }
        std::int64_t runs = 0;
        {
            SqliteStmt s(db, "SELECT count(*) FROM runs");
            if (s.step()) runs = s.integer(0);
        }
        line("runs: " + std::to_string(runs));
        const std::string host = hostName();
        SqliteStmt running(db, "SELECT id, pid, host FROM runs WHERE status = 'running'");
        while (running.step()) {
            const bool here = running.text(2) == host;
            const bool alive = here && processAlive(running.integer(1));
            line("run " + std::to_string(running.integer(0)) + ": marked running; " +
                 (alive ? "its process " + std::to_string(running.integer(1)) + " is still going"
                  : here ? "its process is gone (interrupted; marked so when next opened for writing)"
                         : "started on host " + running.text(2) + ", cannot tell if it still runs"));
        }
        if (id.version >= 3) {
            SqliteStmt c(db, "SELECT r.id, r.metrics_produced, r.events_produced, r.intervals_produced, "
                             "(SELECT count(*) FROM metrics m WHERE m.run_id = r.id), "
                             "(SELECT count(*) FROM events e WHERE e.run_id = r.id), "
                             "(SELECT count(*) FROM intervals i WHERE i.run_id = r.id) "
                             "FROM runs r WHERE r.metrics_produced IS NOT NULL AND r.status <> 'failed'");
            int checked = 0, short_ = 0;
            while (c.step()) {
                ++checked;
                if (c.integer(1) != c.integer(4) || c.integer(2) != c.integer(5) || c.integer(3) != c.integer(6)) {
                    ++short_;
                    ok = false;
                    line("run " + std::to_string(c.integer(0)) + ": " + std::to_string(c.integer(4)) + " of " +
                         std::to_string(c.integer(1)) + " metric rows, " + std::to_string(c.integer(5)) + " of " +
                         std::to_string(c.integer(2)) + " events, " + std::to_string(c.integer(6)) + " of " +
                         std::to_string(c.integer(3)) + " intervals stored");
                }
            }
            line("row counts: " + std::to_string(checked - short_) + " of " + std::to_string(checked) +
                 " finished runs hold every row they produced");
            if (!checkLinkUsageCounts(db, line)) ok = false;
        }
        out.ok = ok;
    } catch (const StoreError& e) {
        line(e.what());
        out.ok = false;
    }
    return out;
}

} // namespace fog
