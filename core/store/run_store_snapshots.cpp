// The run store's snapshot and fork tables: a run's snapshots (core/system/run_snapshot.h),
// the model compressed with zlib, and the record that makes a run a fork of another
// (core/fork/fork.h). Both tables are deleted with their run.
//
// The tables are additive like the link tables (run_store_links.cpp): a writable open
// creates them when missing, with no schema version step, so a file of an older FogStudio
// gains them and older programs ignore them; a file opened read-only without them reads as
// having no snapshots and no forks.
//
// The blob is the model's floats in this machine's byte order (little-endian on every
// platform FogStudio builds for), compressed with zlib's compress2; the row keeps the number
// of floats and the CRC-32 of the raw bytes, so a damaged blob is reported, never loaded.

#include "core/store/run_store.h"

#include <sqlite3.h>
#include <zlib.h>

#include <cstring>

namespace fog {

namespace {

const char* kSnapshotTables = R"sql(
CREATE TABLE IF NOT EXISTS snapshots(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  reason TEXT NOT NULL, time REAL NOT NULL, round INTEGER NOT NULL, events_handled INTEGER NOT NULL,
  cost REAL, energy_j REAL, bytes REAL, samples_computed INTEGER NOT NULL,
  parameters INTEGER NOT NULL, crc32 INTEGER NOT NULL, model BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS snapshots_run ON snapshots(run_id, time);
CREATE TABLE IF NOT EXISTS forks(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  parent_id INTEGER NOT NULL, at_s REAL NOT NULL, changes TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS forks_parent ON forks(parent_id);
)sql";

const char* kSnapshotColumns =
    "id, run_id, reason, time, round, events_handled, cost, energy_j, bytes, samples_computed, parameters, "
    "length(model)";

StoredSnapshot readSnapshotRow(SqliteStmt& s) {
    StoredSnapshot r;
    r.id = s.integer(0);
    r.runId = s.integer(1);
    r.reason = s.text(2);
    r.time = s.real(3);
    r.round = static_cast<int>(s.integer(4));
    r.eventsHandled = static_cast<std::uint64_t>(s.integer(5));
    r.cost = s.real(6);
    r.energyJ = s.real(7);
    r.bytes = s.real(8);
    r.samplesComputed = s.integer(9);
    r.parameters = s.integer(10);
    r.compressedBytes = s.integer(11);
    return r;
}

std::string joinLines(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : "\n") + x;
    return out;
}

std::vector<std::string> splitLines(const std::string& s) {
    std::vector<std::string> out;
    std::size_t from = 0;
    while (from < s.size()) {
        auto nl = s.find('\n', from);
        if (nl == std::string::npos) nl = s.size();
        out.push_back(s.substr(from, nl - from));
        from = nl + 1;
    }
    return out;
}

ForkRecord readForkRow(SqliteStmt& s) {
    ForkRecord f;
    f.runId = s.integer(0);
    f.parentId = s.integer(1);
    f.atSeconds = s.real(2);
    f.changes = splitLines(s.text(3));
    return f;
}

} // namespace

const char* toString(RunSnapshot::Reason r) {
    switch (r) {
    case RunSnapshot::Reason::Every: return "every";
    case RunSnapshot::Reason::Requested: return "requested";
    case RunSnapshot::Reason::Replay: return "replay";
    }
    return "?";
}

void RunStore::ensureSnapshotTables() {
    std::lock_guard lock(mutex_);
    if (hasSnapshotTables()) return;
    SqliteTransaction tx(*db_);
    db_->exec(kSnapshotTables);
    tx.commit();
}

bool RunStore::hasSnapshotTables() const {
    SqliteStmt s(*db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('snapshots', 'forks')");
    return s.step() && s.integer(0) == 2;
}

std::int64_t RunStore::saveSnapshot(std::int64_t run, const RunSnapshot& snap) {
    // Compress before taking the lock: the recorder's writer thread shares this connection.
    const std::size_t floats = snap.model ? snap.model->size() : 0;
    const std::size_t rawBytes = floats * sizeof(float);
    const auto* raw = reinterpret_cast<const Bytef*>(floats ? snap.model->data() : nullptr);
    uLongf packedSize = compressBound(static_cast<uLong>(rawBytes));
    std::vector<Bytef> packed(packedSize);
    const int rc = compress2(packed.data(), &packedSize, raw ? raw : reinterpret_cast<const Bytef*>(""),
                             static_cast<uLong>(rawBytes), Z_DEFAULT_COMPRESSION);
    if (rc != Z_OK)
        throw StoreError("run " + std::to_string(run) + ": cannot compress the snapshot at t = " +
                         std::to_string(snap.time) + " s (zlib error " + std::to_string(rc) + ")");
    const std::uint32_t crc =
        static_cast<std::uint32_t>(crc32(0L, raw ? raw : Z_NULL, static_cast<uInt>(rawBytes)));

    std::lock_guard lock(mutex_);
    if (!hasSnapshotTables())
        throw StoreError(db_->path() + ": this database has no snapshot table (opened read-only?)");
    SqliteTransaction tx(*db_);
    {
        SqliteStmt s(*db_, "INSERT INTO snapshots(run_id, reason, time, round, events_handled, cost, energy_j, "
                           "bytes, samples_computed, parameters, crc32, model) "
                           "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, zeroblob(?12))");
        s.bind(1, run).bind(2, std::string(toString(snap.reason))).bind(3, snap.time).bind(4, snap.round);
        s.bind(5, static_cast<std::int64_t>(snap.eventsHandled)).bind(6, snap.cost).bind(7, snap.energyJ);
        s.bind(8, snap.bytes).bind(9, snap.samplesComputed).bind(10, static_cast<std::int64_t>(floats));
        s.bind(11, static_cast<std::int64_t>(crc)).bind(12, static_cast<std::int64_t>(packedSize));
        s.run();
    }
    const std::int64_t id = db_->lastInsertId();
    if (packedSize > 0) {
        sqlite3_blob* blob = nullptr;
        if (sqlite3_blob_open(db_->handle(), "main", "snapshots", "model", id, 1, &blob) != SQLITE_OK)
            db_->fail("storing a snapshot of run " + std::to_string(run));
        const int wrc = sqlite3_blob_write(blob, packed.data(), static_cast<int>(packedSize), 0);
        sqlite3_blob_close(blob);
        if (wrc != SQLITE_OK) db_->fail("storing a snapshot of run " + std::to_string(run));
    }
    tx.commit();
    return id;
}

std::vector<StoredSnapshot> RunStore::snapshots(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    std::vector<StoredSnapshot> out;
    if (!hasSnapshotTables()) return out;
    SqliteStmt s(*db_, std::string("SELECT ") + kSnapshotColumns + " FROM snapshots WHERE run_id = ?1 ORDER BY time, id");
    s.bind(1, run);
    while (s.step()) out.push_back(readSnapshotRow(s));
    return out;
}

RunSnapshot RunStore::loadSnapshot(std::int64_t snapshotId) const {
    std::lock_guard lock(mutex_);
    const std::string which = "snapshot " + std::to_string(snapshotId);
    if (!hasSnapshotTables()) throw StoreError(db_->path() + ": no " + which + " (the file has no snapshots)");
    SqliteStmt s(*db_, std::string("SELECT ") + kSnapshotColumns + ", crc32 FROM snapshots WHERE id = ?1");
    s.bind(1, snapshotId);
    if (!s.step()) throw StoreError(db_->path() + ": no " + which);
    const StoredSnapshot meta = readSnapshotRow(s);
    const auto crcStored = static_cast<std::uint32_t>(s.integer(12));
    const std::string of = which + " of run " + std::to_string(meta.runId) + " (t = " + std::to_string(meta.time) + " s)";

    RunSnapshot r;
    r.reason = meta.reason == "requested" ? RunSnapshot::Reason::Requested
               : meta.reason == "replay"  ? RunSnapshot::Reason::Replay
                                          : RunSnapshot::Reason::Every;
    r.time = meta.time;
    r.round = meta.round;
    r.eventsHandled = meta.eventsHandled;
    r.cost = meta.cost;
    r.energyJ = meta.energyJ;
    r.bytes = meta.bytes;
    r.samplesComputed = meta.samplesComputed;
    SqliteStmt b(*db_, "SELECT model FROM snapshots WHERE id = ?1");
    b.bind(1, snapshotId);
    b.step();
    // SqliteStmt reads text; a blob's bytes come through the same call unchanged.
    const std::string packed = b.text(0);
    // The count is checked before anything is allocated for it: deflate never shrinks more
    // than 1032:1, so the stored blob bounds what it can hold (a damaged or forged count
    // would otherwise allocate gigabytes), and no model has more than 2^30 parameters.
    const std::uint64_t mostBytes = static_cast<std::uint64_t>(packed.size()) * 1032 + 1024;
    if (meta.parameters < 0 || meta.parameters > (std::int64_t{1} << 30) ||
        static_cast<std::uint64_t>(meta.parameters) * sizeof(float) > mostBytes)
        throw StoreError(db_->path() + ": " + of + " is damaged: it claims " + std::to_string(meta.parameters) +
                         " parameters, more than its " + std::to_string(packed.size()) +
                         " stored bytes can hold");
    auto model = std::make_shared<std::vector<float>>(static_cast<std::size_t>(meta.parameters));
    uLongf rawSize = static_cast<uLongf>(model->size() * sizeof(float));
    const int rc = uncompress(reinterpret_cast<Bytef*>(model->data()), &rawSize,
                              reinterpret_cast<const Bytef*>(packed.data()), static_cast<uLong>(packed.size()));
    if (rc != Z_OK || rawSize != model->size() * sizeof(float))
        throw StoreError(db_->path() + ": " + of + " is damaged: its model does not decompress to " +
                         std::to_string(meta.parameters) + " parameters (" +
                         (rc == Z_DATA_ERROR  ? std::string("corrupt data")
                          : rc == Z_BUF_ERROR ? std::string("longer than recorded")
                          : rc != Z_OK        ? "zlib error " + std::to_string(rc)
                                              : "shorter than recorded") +
                         ")");
    const auto crc = static_cast<std::uint32_t>(
        crc32(0L, model->empty() ? Z_NULL : reinterpret_cast<const Bytef*>(model->data()), static_cast<uInt>(rawSize)));
    if (crc != crcStored)
        throw StoreError(db_->path() + ": " + of + " is damaged: its model's checksum does not match");
    r.model = std::move(model);
    return r;
}

void RunStore::setFork(const ForkRecord& fork) {
    std::lock_guard lock(mutex_);
    if (!hasSnapshotTables()) throw StoreError(db_->path() + ": this database has no fork table (opened read-only?)");
    SqliteStmt s(*db_, "INSERT OR REPLACE INTO forks VALUES(?1, ?2, ?3, ?4)");
    s.bind(1, fork.runId).bind(2, fork.parentId).bind(3, fork.atSeconds).bind(4, joinLines(fork.changes)).run();
}

std::optional<ForkRecord> RunStore::fork(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    if (!hasSnapshotTables()) return std::nullopt;
    SqliteStmt s(*db_, "SELECT run_id, parent_id, at_s, changes FROM forks WHERE run_id = ?1");
    s.bind(1, run);
    if (!s.step()) return std::nullopt;
    return readForkRow(s);
}

std::vector<ForkRecord> RunStore::forksOf(std::int64_t parent) const {
    std::lock_guard lock(mutex_);
    std::vector<ForkRecord> out;
    if (!hasSnapshotTables()) return out;
    SqliteStmt s(*db_, "SELECT run_id, parent_id, at_s, changes FROM forks WHERE parent_id = ?1 ORDER BY run_id");
    s.bind(1, parent);
    while (s.step()) out.push_back(readForkRow(s));
    return out;
}

} // namespace fog
