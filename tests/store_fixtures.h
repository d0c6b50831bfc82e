#pragma once
// A run database of the first schema version, as the first release wrote it: tests of the
// store's migrations create one and check that every later version reads it.

#include <sqlite3.h>

#include <string>

namespace fogtest {

/// The version-1 tables, application id and user_version (no rows).
inline const char* kStoreSchemaV1 =
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
    "PRAGMA application_id = 1179600723; PRAGMA user_version = 1;";

/// Creates a version-1 database at `path` and runs `rows` (INSERT statements) in it; true
/// when every statement succeeded.
inline bool writeStoreV1(const std::string& path, const std::string& rows) {
    sqlite3* h = nullptr;
    if (sqlite3_open(path.c_str(), &h) != SQLITE_OK) {
        sqlite3_close(h);
        return false;
    }
    const std::string sql = std::string(kStoreSchemaV1) + rows;
    const bool ok = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(h);
    return ok;
}

} // namespace fogtest
