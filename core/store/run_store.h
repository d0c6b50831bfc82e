#pragma once
// The run store: every run, its scenario, metrics, node timelines and events in one SQLite
// file, with a versioned schema, WAL, and batched writes off the engine's thread.

#include "core/engine/metrics.h"
#include "core/store/sqlite_db.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace fog {

inline constexpr int kStoreSchemaVersion = 2;

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
    std::string status;    ///< running, finished, cancelled, interrupted, failed
    std::int64_t sweepId = 0;
    int repeat = 0;
    std::string sweepConfig;
    RunSummary summary;
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
    /// that is not a FogStudio database, is damaged, or is newer than this program.
    explicit RunStore(const std::string& path);
    ~RunStore();

    const std::string& path() const { return db_->path(); }
    int schemaVersion() const { return schemaVersion_; }

    std::int64_t beginRun(const NewRun& run);
    void appendMetrics(std::int64_t run, const std::vector<AggregationRecord>& records);
    void appendIntervals(std::int64_t run, const std::vector<NodeInterval>& intervals);
    void appendEvents(std::int64_t run, const std::vector<RunEvent>& events);
    void setNodes(std::int64_t run, const std::vector<NodeInfo>& nodes);
    void finishRun(std::int64_t run, const RunSummary& summary);
    /// Writes everything in one transaction (what the batching recorder uses).
    void appendBatch(std::int64_t run, const std::vector<AggregationRecord>& records,
                     const std::vector<NodeInterval>& intervals, const std::vector<RunEvent>& events);

    std::vector<StoredRun> listRuns(const RunFilter& filter = {}) const;
    std::optional<StoredRun> run(std::int64_t id) const;
    std::vector<AggregationRecord> metrics(std::int64_t run) const;
    std::vector<NodeInterval> intervals(std::int64_t run) const;
    std::vector<RunEvent> events(std::int64_t run) const;
    std::vector<NodeInfo> nodes(std::int64_t run) const;

    bool deleteRun(std::int64_t id);
    void setTags(std::int64_t id, const std::vector<std::string>& tags);
    void setNotes(std::int64_t id, const std::string& notes);
    void rename(std::int64_t id, const std::string& name);

    std::int64_t createSweep(const std::string& name, const std::string& spec);

private:
    void migrate();
    void markInterrupted();
    StoredRun readRun(class SqliteStmt& s) const;

    std::unique_ptr<SqliteDb> db_;
    mutable std::mutex mutex_;
    int schemaVersion_ = 0;
};

/// Observes a run and writes it to the store in batches from a thread of its own, so the
/// engine never waits for the disk. Flushes at least every `flushSeconds`, so a crash loses
/// at most about that much.
class StoreRecorder : public RunObserver {
public:
    StoreRecorder(RunStore& store, std::int64_t runId, double flushSeconds = 0.5);
    ~StoreRecorder() override;

    void onStart(const RunInfo& info) override;
    void onAggregation(const AggregationRecord& r) override;
    void onIntervals(const std::vector<NodeInterval>& v) override;
    void onEvent(const RunEvent& e) override;
    void onFinish(const RunSummary& s) override;
    std::int64_t runId() const { return runId_; }

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::int64_t runId_;
};

std::string joinTags(const std::vector<std::string>& tags);
std::vector<std::string> splitTags(const std::string& s);

} // namespace fog
