#pragma once
// The run store: every run, its scenario, metrics, node timelines and events in one SQLite
// file, with a versioned schema, WAL, and batched writes off the engine's thread.

#include "core/system/metrics.h"
#include "core/store/sqlite_db.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fog {

inline constexpr int kStoreSchemaVersion = 6;

/// Rows of a run, per table: as produced by the engine or as found in the database.
struct RowCounts {
    std::int64_t metrics = 0;
    std::int64_t intervals = 0;
    std::int64_t events = 0;
    std::int64_t linkUsage = 0; ///< LinkUsage spans (runs with network contention)
    bool operator==(const RowCounts& o) const {
        return metrics == o.metrics && intervals == o.intervals && events == o.events && linkUsage == o.linkUsage;
    }
    bool operator!=(const RowCounts& o) const { return !(*this == o); }
};

/// What is known of a run before it starts.
struct NewRun {
    std::string name;
    std::vector<std::string> tags;
    std::string notes;
    std::string scenarioYaml;
    std::uint64_t seed = 0;
    std::int64_t sweepId = 0;    ///< 0: not part of a sweep
    int repeat = 0;              ///< repeat index within the sweep
    std::string sweepConfig;     ///< the varied values, e.g. "sync.policy=n-sync sync.n=3"
    int threads = 1;
    /// The kernels and CPU that computed it (numericsRecord()); empty: this process's.
    std::string numerics;
};

struct StoredRun {
    std::int64_t id = 0;
    std::string name;
    std::vector<std::string> tags;
    std::string notes;
    std::string scenarioYaml;
    std::uint64_t seed = 0;
    std::string programVersion;
    std::string startedAt; ///< ISO 8601, UTC
    std::string endedAt;   ///< empty while running
    /// running, finished, cancelled, interrupted, failed. A run still marked running whose
    /// process on this host is gone reads as interrupted (also from a read-only database).
    std::string status;
    std::int64_t sweepId = 0;
    int repeat = 0;
    std::string sweepConfig;
    /// The kernels and CPU that computed it (core/util/numerics.h numericsRecord()); empty for
    /// runs stored before schema 6, whose kernels are unknown.
    std::string numerics;
    RunSummary summary;
    /// A run killed mid-way (interrupted), which has no summary of its own: rounds, times,
    /// cost and accuracies were computed from the last metric rows it stored.
    bool summaryFromRows = false;
    /// What the run produced, counted by the recorder when it finished (unset for runs that
    /// never finished, and for runs stored before schema 3).
    std::optional<RowCounts> produced;
};

/// A stored snapshot's description (RunStore::snapshots); the model is read on demand
/// (RunStore::loadSnapshot). Snapshots live in table `snapshots` (run_store_snapshots.cpp),
/// deleted with their run.
struct StoredSnapshot {
    std::int64_t id = 0;
    std::int64_t runId = 0;
    std::string reason; ///< "every", "requested", "replay" (toString(RunSnapshot::Reason))
    double time = 0.0;
    int round = 0;
    std::uint64_t eventsHandled = 0;
    double cost = 0.0;
    double energyJ = 0.0;
    double bytes = 0.0;
    std::int64_t samplesComputed = 0;
    std::int64_t parameters = 0;      ///< floats in the model (0: timing only)
    std::int64_t compressedBytes = 0; ///< size of the stored blob (zlib)
};

/// What makes a run a fork (table `forks`, run_store_snapshots.cpp): its parent, the virtual
/// instant it branched at and the changes applied there (one event action per line, as
/// `--event` takes them without the trigger, e.g. "link edge-1.up=2").
struct ForkRecord {
    std::int64_t runId = 0;
    std::int64_t parentId = 0;
    double atSeconds = 0.0;
    std::vector<std::string> changes;
};

struct RunFilter {
    std::string tag;          ///< only runs with this tag
    std::string nameContains;
    std::int64_t sweepId = 0; ///< only runs of this sweep
    int limit = 0;            ///< 0: all, newest first
};

class RunStore {
public:
    /// $XDG_DATA_HOME/fogstudio/runs.db (or ~/.local/share/fogstudio/runs.db).
    static std::string defaultPath();

    /// Opens or creates the database, migrating an older schema, and marks runs whose
    /// process is gone as interrupted. Throws StoreError with a clear message for a file
    /// that is not a FogStudio database, is damaged, or is newer than this program; such a
    /// file is never written to. The database is opened read-only (every write then throws
    /// StoreError, nothing is written) when the file or its folder is not writable for this
    /// process, or when the environment variable FOGSTUDIO_DB_READONLY is set to 1.
    explicit RunStore(const std::string& path);
    /// `readOnly`: open read-only whatever the permissions say.
    RunStore(const std::string& path, bool readOnly);
    ~RunStore();

    const std::string& path() const { return db_->path(); }
    int schemaVersion() const { return schemaVersion_; }
    bool readOnly() const { return db_->readOnly(); }
    /// How long a call waits for another connection's write before failing (default 5 s).
    void setBusyTimeout(int milliseconds);

    std::int64_t beginRun(const NewRun& run);
    void appendMetrics(std::int64_t run, const std::vector<AggregationRecord>& records);
    void appendIntervals(std::int64_t run, const std::vector<NodeInterval>& intervals);
    void appendEvents(std::int64_t run, const std::vector<RunEvent>& events);
    void setNodes(std::int64_t run, const std::vector<NodeInfo>& nodes);
    void finishRun(std::int64_t run, const RunSummary& summary);
    /// The same, recording how many rows the run produced (what the recorder calls).
    void finishRun(std::int64_t run, const RunSummary& summary, const RowCounts& produced);
    /// Writes the rows in order, in transactions of at most kRowsPerTransaction rows each, so
    /// that another connection's write (the studio's tags and notes) never waits long. On an
    /// error the rows of the failed transaction are not stored and StoreError says why;
    /// `stored`, when given, counts the rows committed before it.
    static constexpr std::size_t kRowsPerTransaction = 4096;
    void appendBatch(std::int64_t run, const std::vector<AggregationRecord>& records,
                     const std::vector<NodeInterval>& intervals, const std::vector<RunEvent>& events, RowCounts* stored = nullptr);
    /// The same with link usage spans, written in the same transactions (after the events).
    void appendBatch(std::int64_t run, const std::vector<AggregationRecord>& records,
                     const std::vector<NodeInterval>& intervals, const std::vector<RunEvent>& events,
                     const std::vector<LinkUsage>& linkUsage, RowCounts* stored = nullptr);
    void appendLinkUsage(std::int64_t run, const std::vector<LinkUsage>& usage);
    /// The capacities a run's transfers shared (RunInfo::links), replacing any stored.
    void setLinks(std::int64_t run, const std::vector<LinkInfo>& links);

    std::vector<StoredRun> listRuns(const RunFilter& filter = {}) const;
    std::optional<StoredRun> run(std::int64_t id) const;
    std::vector<AggregationRecord> metrics(std::int64_t run) const;
    std::vector<NodeInterval> intervals(std::int64_t run) const;
    std::vector<RunEvent> events(std::int64_t run) const;
    std::vector<NodeInfo> nodes(std::int64_t run) const;
    /// A run's links (LinkInfo::index order) and their usage spans in the order produced;
    /// empty for runs without contention and for files written before these tables.
    std::vector<LinkInfo> links(std::int64_t run) const;
    std::vector<LinkUsage> linkUsage(std::int64_t run) const;
    /// The rows of a run found in the database.
    RowCounts storedRows(std::int64_t run) const;
    /// A cheap fingerprint of the run list (ids, names, tags, notes, statuses, end times): it
    /// changes when any process adds, finishes, renames, tags or deletes a run, not when a
    /// run going stores its metric rows. Views poll it to follow other processes (the CLI).
    std::string listStamp() const;

    bool deleteRun(std::int64_t id);
    void setTags(std::int64_t id, const std::vector<std::string>& tags);
    void setNotes(std::int64_t id, const std::string& notes);
    /// The run's stored scenario, replaced (a live intervention appended to its events).
    void setScenarioYaml(std::int64_t id, const std::string& yaml);
    void rename(std::int64_t id, const std::string& name);

    std::int64_t createSweep(const std::string& name, const std::string& spec);

    // ---- Snapshots and forks (run_store_snapshots.cpp) ----
    /// Stores `snapshot` for `run`, its model compressed with zlib; returns its id.
    std::int64_t saveSnapshot(std::int64_t run, const RunSnapshot& snapshot);
    /// A run's snapshots in time order (then in the order taken); empty for files without
    /// the table.
    std::vector<StoredSnapshot> snapshots(std::int64_t run) const;
    /// One snapshot with its model. Throws StoreError naming the snapshot and its run when
    /// it is missing or its blob is damaged (does not decompress to the size recorded).
    RunSnapshot loadSnapshot(std::int64_t snapshotId) const;
    /// Records that `fork.runId` is a fork (replacing any record).
    void setFork(const ForkRecord& fork);
    /// The record of a fork; nothing for a run that is not one (or a file without the table).
    std::optional<ForkRecord> fork(std::int64_t run) const;
    /// The forks of `parent`, by id.
    std::vector<ForkRecord> forksOf(std::int64_t parent) const;

private:
    void open(const std::string& path, bool readOnly);
    void migrate();
    // The link tables (run_store_links.cpp): additive, created on a writable open when
    // missing, so a file of an older FogStudio gains them and older programs ignore them.
    void ensureLinkTables();
    bool hasLinkTables() const; ///< callers hold mutex_
    std::int64_t producedLinkUsage(std::int64_t run) const; ///< callers hold mutex_; 0: none
    // The snapshot and fork tables (run_store_snapshots.cpp): additive like the link tables.
    void ensureSnapshotTables();
    bool hasSnapshotTables() const; ///< callers hold mutex_
    void setProducedLinkUsage(std::int64_t run, std::int64_t spans); ///< callers hold mutex_
    static void writeLinkUsage(SqliteDb& db, std::int64_t run, const std::vector<LinkUsage>& usage,
                               std::size_t& next, std::size_t& budget);
    void markInterrupted();
    StoredRun readRun(class SqliteStmt& s) const;
    void summaryFromRows(StoredRun& r) const;

    std::unique_ptr<SqliteDb> db_;
    mutable std::mutex mutex_;
    int schemaVersion_ = 0;
};

/// Observes a run and writes it to the store in batches from a thread of its own. Flushes
/// at least every `flushSeconds`, so a crash loses at most about that much. The queue is
/// bounded (`queueRows`): when the writer is behind, the engine's thread waits for it
/// (back-pressure), so memory stays bounded under any producer. Nothing is dropped: onFinish
/// writes every queued row before the run's final status, and if some rows could not be
/// stored the run is stored as failed, its reason saying it is incomplete and why.
class StoreRecorder : public RunObserver {
public:
    StoreRecorder(RunStore& store, std::int64_t runId, double flushSeconds = 0.5,
                  std::size_t queueRows = 65536);
    ~StoreRecorder() override;

    /// Rows received from the run so far, and rows committed to the database.
    RowCounts produced() const;
    RowCounts stored() const;
    /// The first store error (empty while all is well).
    std::string error() const;
    /// The most rows that were waiting in the queue at once (a measure of the bound).
    std::size_t peakQueued() const;

    void onStart(const RunInfo& info) override;
    void onAggregation(const AggregationRecord& r) override;
    void onIntervals(const std::vector<NodeInterval>& v) override;
    void onEvent(const RunEvent& e) override;
    void onLinkUsage(const std::vector<LinkUsage>& u) override;
    void onFinish(const RunSummary& s) override;
    /// Compresses and stores the snapshot at once (on the engine's thread); a store error is
    /// recorded like a row that could not be stored (the run is then stored as failed).
    void onSnapshot(const RunSnapshot& s) override;
    std::int64_t runId() const { return runId_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::int64_t runId_;
};

/// `fogstudio-cli db check`: SQLite's integrity check and FogStudio's own sanity checks
/// (application id, schema version, runs marked running whose process is gone, runs with
/// fewer rows than they produced). Opens the file read-only and never writes to it.
struct DbCheck {
    bool ok = false;                 ///< the file is a sound FogStudio database
    std::vector<std::string> lines;  ///< what was checked and found, for the user
};
DbCheck checkDatabase(const std::string& path);
/// Part of it: link usage spans stored against produced, per finished run (run_store_links.cpp);
/// false when some run lacks some. Says nothing for files without the link tables.
bool checkLinkUsageCounts(SqliteDb& db, const std::function<void(const std::string&)>& line);

std::string joinTags(const std::vector<std::string>& tags);
std::vector<std::string> splitTags(const std::string& s);

} // namespace fog
