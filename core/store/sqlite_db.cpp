#include "core/store/sqlite_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <thread>
#include <cmath>

namespace fog {

SqliteDb::SqliteDb(const std::string& path, bool create)
    : SqliteDb(path, create ? Mode::ReadWriteCreate : Mode::ReadWrite) {}

namespace {

/// A WAL database can be read without its -shm file only as "immutable". That is exact when
/// the -shm cannot exist (a read-only folder or mount, so nobody writes here) and there is
/// no write-ahead log to replay; otherwise SQLite's normal read-only opening is the one.
bool readableOnlyAsImmutable(const std::string& path) {
    struct stat st {};
    if (::stat((path + "-shm").c_str(), &st) == 0) return false;
    if (::stat((path + "-wal").c_str(), &st) == 0 && st.st_size > 0) return false;
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    return ::access(dir.c_str(), W_OK) != 0;
}

std::string immutableUri(const std::string& path) {
    std::string uri = "file:";
    for (const char c : path) {
        if (c == '%' || c == '?' || c == '#') {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
            uri += hex;
        } else {
            uri += c;
        }
    }
    return uri + "?immutable=1";
}

} // namespace

SqliteDb::SqliteDb(const std::string& path, Mode mode) : path_(path), mode_(mode) {
    int flags = SQLITE_OPEN_FULLMUTEX;
    std::string name = path;
    if (mode == Mode::ReadOnly) {
        flags |= SQLITE_OPEN_READONLY;
        if (readableOnlyAsImmutable(path)) {
            flags |= SQLITE_OPEN_URI;
            name = immutableUri(path);
        }
    } else {
        flags |= SQLITE_OPEN_READWRITE | (mode == Mode::ReadWriteCreate ? SQLITE_OPEN_CREATE : 0);
    }
    const int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        db_ = nullptr;
        throw StoreError(path + ": cannot open the database: " + msg, rc & 0xff);
    }
    setBusyTimeout(5000);
    sqlite3_extended_result_codes(db_, 1);
}

namespace {

/// Busy handler: retry every millisecond until the timeout. SQLite's own handler sleeps
/// longer and longer (up to 100 ms a try), so a connection waiting behind a stream of short
/// write transactions (a recorder) keeps missing the gaps between them; polling often finds
/// the next gap within milliseconds.
int pollWhileBusy(void* self, int attempt) {
    auto* db = static_cast<SqliteDb*>(self);
    const auto now = std::chrono::steady_clock::now();
    if (attempt == 0) db->busySince = now;
    if (now - db->busySince >= std::chrono::milliseconds(db->busyTimeoutMs)) return 0;
    std::this_thread::sleep_for(std::chrono::microseconds(attempt < 20 ? 200 : 1000));
    return 1;
}

} // namespace

void SqliteDb::setBusyTimeout(int milliseconds) {
    busyTimeoutMs = milliseconds;
    sqlite3_busy_handler(db_, milliseconds > 0 ? pollWhileBusy : nullptr, this);
}

std::string SqliteDb::readHeader(int n) const {
    sqlite3_file* file = nullptr;
    if (sqlite3_file_control(db_, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file ||
        !file->pMethods)
        return {};
    sqlite3_int64 size = 0;
    if (file->pMethods->xFileSize(file, &size) != SQLITE_OK) return {};
    std::string buf(static_cast<std::size_t>(std::min<sqlite3_int64>(size, n)), '\0');
    if (!buf.empty() && file->pMethods->xRead(file, buf.data(), static_cast<int>(buf.size()), 0) != SQLITE_OK)
        return {};
    return buf;
}

std::int64_t SqliteDb::scalar(const std::string& sql) {
    SqliteStmt s(*this, sql);
    return s.step() ? s.integer(0) : 0;
}

SqliteDb::~SqliteDb() { sqlite3_close_v2(db_); }

void SqliteDb::fail(const std::string& what) const {
    const int code = sqlite3_errcode(db_) & 0xff;
    const std::string sqliteMsg = sqlite3_errmsg(db_);
    std::string msg = path_ + ": " + what + ": " + sqliteMsg;
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
        msg = path_ + ": not a FogStudio run database, or the file is damaged (" + sqliteMsg + ")";
    else if (code == SQLITE_READONLY)
        msg = path_ + ": the database is read-only for this program, nothing was written (" + sqliteMsg + ")";
    else if (code == SQLITE_FULL)
        msg = path_ + ": the disk (or the database) is full: " + what + " (" + sqliteMsg + ")";
    else if (code == SQLITE_IOERR)
        msg = path_ + ": " + what + ": the file could not be written or read (disk full, file too large, "
              "or an I/O error: " + sqliteMsg + ")";
    else if (code == SQLITE_BUSY)
        msg = path_ + ": the database stayed busy (another program is writing to it): " + what;
    throw StoreError(msg, code);
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
