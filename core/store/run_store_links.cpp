// The run store's link tables: the capacities a run's transfers shared (RunInfo::links) and
// their usage over virtual time (LinkUsage spans), written in the same transactions as a
// run's metrics, intervals and events (RunStore::appendBatch).
//
// The tables are additive: a writable open creates them when missing (no schema version
// step, so files stay readable by older FogStudio versions, which ignore them); a file opened
// read-only without them reads as having no link rows.

#include "core/store/run_store.h"

namespace fog {

namespace {

const char* kLinkTables = R"sql(
CREATE TABLE IF NOT EXISTS links(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL, link_id TEXT NOT NULL, kind TEXT NOT NULL, from_node INTEGER, to_node INTEGER,
  capacity_bytes_per_s REAL, members INTEGER, PRIMARY KEY(run_id, idx)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS link_usage(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  link INTEGER NOT NULL, t_from REAL NOT NULL, t_to REAL NOT NULL, bytes_per_s REAL NOT NULL, flows INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS link_usage_run ON link_usage(run_id);
CREATE TABLE IF NOT EXISTS link_usage_produced(
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, spans INTEGER NOT NULL);
)sql";

} // namespace

void RunStore::ensureLinkTables() {
    std::lock_guard lock(mutex_);
    if (hasLinkTables()) return;
    SqliteTransaction tx(*db_);
    db_->exec(kLinkTables);
    tx.commit();
}

bool RunStore::hasLinkTables() const {
    SqliteStmt s(*db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                       "('links', 'link_usage', 'link_usage_produced')");
    return s.step() && s.integer(0) == 3;
}

void RunStore::writeLinkUsage(SqliteDb& db, std::int64_t run, const std::vector<LinkUsage>& usage,
                              std::size_t& next, std::size_t& budget) {
    SqliteStmt s(db, "INSERT INTO link_usage VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
    for (; next < usage.size() && budget > 0; ++next, --budget) {
        const auto& u = usage[next];
        s.bind(1, run).bind(2, u.link).bind(3, u.from).bind(4, u.to).bind(5, u.bytesPerS).bind(6, u.flows);
        s.run();
    }
}

void RunStore::appendLinkUsage(std::int64_t run, const std::vector<LinkUsage>& usage) {
    appendBatch(run, {}, {}, {}, usage);
}

void RunStore::setLinks(std::int64_t run, const std::vector<LinkInfo>& links) {
    std::lock_guard lock(mutex_);
    SqliteTransaction tx(*db_);
    SqliteStmt del(*db_, "DELETE FROM links WHERE run_id = ?1");
    del.bind(1, run).run();
    SqliteStmt s(*db_, "INSERT INTO links VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    for (std::size_t i = 0; i < links.size(); ++i) {
        const auto& l = links[i];
        // The position is the index usage spans refer to (LinkInfo::index should equal it).
        s.bind(1, run).bind(2, static_cast<std::int64_t>(i)).bind(3, l.id).bind(4, l.kind).bind(5, l.from);
        s.bind(6, l.to).bind(7, l.capacityBytesPerS).bind(8, l.members);
        s.run();
    }
    tx.commit();
}

std::vector<LinkInfo> RunStore::links(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    std::vector<LinkInfo> out;
    if (!hasLinkTables()) return out;
    SqliteStmt s(*db_, "SELECT idx, link_id, kind, from_node, to_node, capacity_bytes_per_s, members FROM links "
                       "WHERE run_id = ?1 ORDER BY idx");
    s.bind(1, run);
    while (s.step()) {
        LinkInfo l;
        l.index = static_cast<int>(s.integer(0));
        l.id = s.text(1);
        l.kind = s.text(2);
        l.from = static_cast<int>(s.integer(3));
        l.to = static_cast<int>(s.integer(4));
        l.capacityBytesPerS = s.real(5);
        l.members = static_cast<int>(s.integer(6));
        out.push_back(l);
    }
    return out;
}

std::vector<LinkUsage> RunStore::linkUsage(std::int64_t run) const {
    std::lock_guard lock(mutex_);
    std::vector<LinkUsage> out;
    if (!hasLinkTables()) return out;
    SqliteStmt s(*db_, "SELECT link, t_from, t_to, bytes_per_s, flows FROM link_usage WHERE run_id = ?1 ORDER BY rowid");
    s.bind(1, run);
    while (s.step())
        out.push_back({static_cast<int>(s.integer(0)), s.real(1), s.real(2), s.real(3), static_cast<int>(s.integer(4))});
    return out;
}

std::int64_t RunStore::producedLinkUsage(std::int64_t run) const {
    if (!hasLinkTables()) return 0;
    SqliteStmt s(*db_, "SELECT spans FROM link_usage_produced WHERE run_id = ?1");
    s.bind(1, run);
    return s.step() ? s.integer(0) : 0;
}

void RunStore::setProducedLinkUsage(std::int64_t run, std::int64_t spans) {
    if (!hasLinkTables()) return; // read-only files throw on any write before this
    SqliteStmt s(*db_, "INSERT OR REPLACE INTO link_usage_produced VALUES(?1, ?2)");
    s.bind(1, run).bind(2, spans).run();
}

bool checkLinkUsageCounts(SqliteDb& db, const std::function<void(const std::string&)>& line) {
    SqliteStmt has(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                       "('link_usage', 'link_usage_produced')");
    if (!has.step() || has.integer(0) != 2) return true;
    SqliteStmt c(db, "SELECT p.run_id, p.spans, (SELECT count(*) FROM link_usage u WHERE u.run_id = p.run_id) "
                     "FROM link_usage_produced p JOIN runs r ON r.id = p.run_id WHERE r.status <> 'failed'");
    int checked = 0, short_ = 0;
    while (c.step()) {
        ++checked;
        if (c.integer(1) != c.integer(2)) {
            ++short_;
            line("run " + std::to_string(c.integer(0)) + ": " + std::to_string(c.integer(2)) + " of " +
                 std::to_string(c.integer(1)) + " link usage spans stored");
        }
    }
    if (checked > 0)
        line("link usage: " + std::to_string(checked - short_) + " of " + std::to_string(checked) +
             " runs with link usage hold every span they produced");
    return short_ == 0;
}

} // namespace fog
