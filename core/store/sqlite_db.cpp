#include "core/store/sqlite_db.h"

#include <sqlite3.h>

#include <cmath>

namespace fog {

SqliteDb::SqliteDb(const std::string& path, bool create) : path_(path) {
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_FULLMUTEX;
    if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(path + ": cannot open the database: " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
    sqlite3_extended_result_codes(db_, 1);
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

void SqliteDb::fail(const std::string& what) const {
    const int code = sqlite3_errcode(db_) & 0xff;
    std::string msg = path_ + ": " + what + ": " + sqlite3_errmsg(db_);
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
        msg = path_ + ": not a FogStudio run database, or the file is damaged (" + sqlite3_errmsg(db_) + ")";
    throw StoreError(msg);
}

void SqliteDb::exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        sqlite3_free(err);
        fail("cannot run '" + sql.substr(0, 60) + "'");
    }
}

std::int64_t SqliteDb::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }

SqliteStmt::SqliteStmt(SqliteDb& db, const std::string& sql) : db_(db), sql_(sql) {
    if (sqlite3_prepare_v2(db.handle(), sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
        db.fail("cannot prepare '" + sql.substr(0, 60) + "'");
}

SqliteStmt::~SqliteStmt() { sqlite3_finalize(stmt_); }

SqliteStmt& SqliteStmt::bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
}

SqliteStmt& SqliteStmt::bind(int i, double v) {
    if (std::isnan(v))
        sqlite3_bind_null(stmt_, i);
    else
        sqlite3_bind_double(stmt_, i, v);
    return *this;
}

SqliteStmt& SqliteStmt::bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
}

SqliteStmt& SqliteStmt::bindNull(int i) {
    sqlite3_bind_null(stmt_, i);
    return *this;
}

bool SqliteStmt::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_.fail("cannot run '" + sql_.substr(0, 60) + "'");
}

void SqliteStmt::run() {
    while (step()) {
    }
    reset();
}

void SqliteStmt::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::int64_t SqliteStmt::integer(int col) const { return sqlite3_column_int64(stmt_, col); }

double SqliteStmt::real(int col) const {
    return isNull(col) ? std::nan("") : sqlite3_column_double(stmt_, col);
}

std::string SqliteStmt::text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
}

bool SqliteStmt::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

SqliteTransaction::SqliteTransaction(SqliteDb& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

SqliteTransaction::~SqliteTransaction() {
    if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
    db_.exec("COMMIT");
    done_ = true;
}

} // namespace fog
