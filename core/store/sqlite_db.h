#pragma once
// A thin RAII layer over the SQLite C API: a connection, prepared statements with typed
// binding, and errors that say which database and which statement failed.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace fog {

struct StoreError : std::runtime_error {
    using std::runtime_error::runtime_error;
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
    /// Opens (creating if `create`) the file. Throws StoreError naming the file.
    SqliteDb(const std::string& path, bool create);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(const std::string& sql);
    std::int64_t lastInsertId() const;
    const std::string& path() const { return path_; }
    sqlite3* handle() const { return db_; }
    /// "path: what failed: sqlite's message".
    [[noreturn]] void fail(const std::string& what) const;

private:
    sqlite3* db_ = nullptr;
    std::string path_;
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
