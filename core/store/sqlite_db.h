#pragma once
// A thin RAII layer over the SQLite C API: a connection, prepared statements with typed
// binding, and errors that say which database and which statement failed.
//
// Connection policy (one for every process): the database file is only ever opened
// through SqliteDb, never with another file handle (std::ifstream, QFile, ...), because
// closing any other descriptor of the file drops the POSIX locks SQLite holds on it for the
// whole process, and the next process then "recovers" a live WAL and breaks the file.
// Every connection waits for a busy database (busy_timeout) instead of failing at once.

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace fog {

struct StoreError : std::runtime_error {
    using std::runtime_error::runtime_error;
    StoreError(const std::string& what, int sqliteCode) : std::runtime_error(what), code(sqliteCode) {}
    int code = 0; ///< SQLite's primary result code when SQLite failed, else 0
};

class SqliteDb;

class SqliteStmt {
public:
    SqliteStmt(SqliteDb& db, const std::string& sql);
    ~SqliteStmt();
    SqliteStmt(const SqliteStmt&) = delete;
    SqliteStmt& operator=(const SqliteStmt&) = delete;

    SqliteStmt& bind(int i, std::int64_t v);
    SqliteStmt& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
    SqliteStmt& bind(int i, double v); ///< NaN is stored as NULL
    SqliteStmt& bind(int i, const std::string& v);
    SqliteStmt& bindNull(int i);
    /// Steps once: true while a row is available.
    bool step();
    /// Steps to completion and resets, for statements without results.
    void run();
    void reset();

    std::int64_t integer(int col) const;
    double real(int col) const; ///< NULL reads as NaN
    std::string text(int col) const;
    bool isNull(int col) const;

private:
    SqliteDb& db_;
    sqlite3_stmt* stmt_ = nullptr;
    std::string sql_;
};

class SqliteDb {
public:
    enum class Mode { ReadWriteCreate, ReadWrite, ReadOnly };

    /// Opens (creating if `create`) the file. Throws StoreError naming the file.
    SqliteDb(const std::string& path, bool create);
    SqliteDb(const std::string& path, Mode mode);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(const std::string& sql);
    std::int64_t lastInsertId() const;
    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }
    bool readOnly() const { return mode_ == Mode::ReadOnly; }
    void setBusyTimeout(int milliseconds);
    /// The first `n` bytes of the file, read through SQLite's own file handle (never a second
    /// descriptor, see the policy above); fewer when the file is shorter.
    std::string readHeader(int n) const;
    /// Runs a one-value query such as "PRAGMA user_version".
    std::int64_t scalar(const std::string& sql);
    /// "path: what failed: sqlite's message".
    [[noreturn]] void fail(const std::string& what) const;

    // The busy handler's state (see setBusyTimeout).
    int busyTimeoutMs = 5000;
    std::chrono::steady_clock::time_point busySince;

private:
    sqlite3* db_ = nullptr;
    std::string path_;
    Mode mode_ = Mode::ReadWriteCreate;
};

/// BEGIN IMMEDIATE ... COMMIT, rolled back if not committed.
class SqliteTransaction {
public:
    explicit SqliteTransaction(SqliteDb& db);
    ~SqliteTransaction();
    void commit();

private:
    SqliteDb& db_;
    bool done_ = false;
};

} // namespace fog
