#include "core/cluster/cluster_store.h"
#include "core/store/run_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>

namespace fog::cluster {

ClusterStore::ClusterStore(const std::string& dbPath) {
    // The run store owns the schema (the cluster tables arrive with schema 4): opening it
    // first creates or upgrades the file, or refuses a foreign one, before any write here.
    { RunStore migrate(dbPath); }
    db_ = std::make_unique<SqliteDb>(dbPath, SqliteDb::Mode::ReadWrite);
    db_->exec("PRAGMA foreign_keys = ON");
}

ClusterStore::~ClusterStore() = default;

void ClusterStore::write(std::int64_t runId, const ClusterResult& r, const std::string& policyBytes) {
    SqliteTransaction tx(*db_);
    const ClusterSummary& s = r.summary;
    SqliteStmt run(*db_, "INSERT OR REPLACE INTO cluster_runs VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)");
    run.bind(1, runId).bind(2, s.scheduler).bind(3, static_cast<std::int64_t>(s.seed)).bind(4, s.tasks)
        .bind(5, s.completed).bind(6, s.meanCompletion).bind(7, s.p50Completion).bind(8, s.p95Completion)
        .bind(9, s.maxCompletion).bind(10, s.meanWait).bind(11, s.makespan).bind(12, s.meanPending)
        .bind(13, s.cpuUtilisation).bind(14, s.gpuUtilisation).bind(15, s.preemptions).bind(16, s.decisions)
        .bind(17, s.stopReason).bind(18, s.wallSeconds);
    run.run();
    SqliteStmt task(*db_, "INSERT OR REPLACE INTO cluster_tasks VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
    for (const auto& t : r.tasks) {
        task.bind(1, runId).bind(2, t.id).bind(3, t.type).bind(4, t.arrival).bind(5, t.work);
        if (t.firstStart >= 0) task.bind(6, t.firstStart); else task.bindNull(6);
        if (t.finish >= 0) task.bind(7, t.finish); else task.bindNull(7);
        task.bind(8, t.server).bind(9, t.cpus).bind(10, t.gpus).bind(11, t.preemptions);
        task.run();
    }
    SqliteStmt iv(*db_, "INSERT INTO cluster_intervals VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)");
    for (const auto& i : r.intervals) {
        iv.bind(1, runId).bind(2, i.server).bind(3, i.task).bind(4, i.start).bind(5, i.end).bind(6, i.cpus)
            .bind(7, i.gpus).bind(8, i.memoryGb).bind(9, i.bandwidthGbps);
        iv.run();
    }
    SqliteStmt sm(*db_, "INSERT INTO cluster_samples VALUES(?1,?2,?3,?4,?5,?6,?7,?8)");
    for (const auto& x : r.samples) {
        sm.bind(1, runId).bind(2, x.time).bind(3, x.pending).bind(4, x.running).bind(5, x.usedCpus)
            .bind(6, x.usedGpus).bind(7, x.usedMemoryGb).bind(8, x.usedBandwidthGbps);
        sm.run();
    }
    if (!policyBytes.empty()) {
        // SqliteStmt binds text; the policy is binary, so the blob goes through the C API.
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(db_->handle(), "INSERT OR REPLACE INTO cluster_policies VALUES(?1, ?2)", -1, &st, nullptr) != SQLITE_OK)
            db_->fail("preparing the policy insert");
        sqlite3_bind_int64(st, 1, runId);
        sqlite3_bind_blob(st, 2, policyBytes.data(), static_cast<int>(policyBytes.size()), SQLITE_TRANSIENT);
        const int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) db_->fail("storing the cluster policy");
    }
    tx.commit();
}

std::optional<StoredClusterRun> ClusterStore::read(std::int64_t runId) const {
    SqliteStmt run(*db_, "SELECT scheduler, seed, tasks, completed, mean_completion, p50_completion, p95_completion, "
                         "max_completion, mean_wait, makespan, mean_pending, cpu_utilisation, gpu_utilisation, "
                         "preemptions, decisions, stop_reason, wall_seconds FROM cluster_runs WHERE run_id = ?1");
    run.bind(1, runId);
    if (!run.step()) return std::nullopt;
    StoredClusterRun out;
    out.runId = runId;
    ClusterSummary& s = out.result.summary;
    s.scheduler = run.text(0);
    s.seed = static_cast<std::uint64_t>(run.integer(1));
    s.tasks = static_cast<int>(run.integer(2));
    s.completed = static_cast<int>(run.integer(3));
    s.complete = s.completed == s.tasks;
    s.meanCompletion = run.real(4);
    s.p50Completion = run.real(5);
    s.p95Completion = run.real(6);
    s.maxCompletion = run.real(7);
    s.meanWait = run.real(8);
    s.makespan = run.real(9);
    s.meanPending = run.real(10);
    s.cpuUtilisation = run.real(11);
    s.gpuUtilisation = run.real(12);
    s.preemptions = static_cast<int>(run.integer(13));
    s.decisions = static_cast<int>(run.integer(14));
    s.stopReason = run.text(15);
    s.wallSeconds = run.real(16);
    SqliteStmt task(*db_, "SELECT task_id, type, arrival, work, first_start, finish, server, cpus, gpus, preemptions "
                          "FROM cluster_tasks WHERE run_id = ?1 ORDER BY task_id");
    task.bind(1, runId);
    while (task.step()) {
        TaskRecord t;
        t.id = static_cast<int>(task.integer(0));
        t.type = static_cast<int>(task.integer(1));
        t.arrival = task.real(2);
        t.work = task.real(3);
        t.firstStart = task.isNull(4) ? -1.0 : task.real(4);
        t.finish = task.isNull(5) ? -1.0 : task.real(5);
        t.server = static_cast<int>(task.integer(6));
        t.cpus = static_cast<int>(task.integer(7));
        t.gpus = static_cast<int>(task.integer(8));
        t.preemptions = static_cast<int>(task.integer(9));
        out.result.tasks.push_back(t);
    }
    SqliteStmt iv(*db_, "SELECT server, task_id, start, end, cpus, gpus, memory_gb, bandwidth_gbps FROM cluster_intervals "
                        "WHERE run_id = ?1 ORDER BY rowid");
    iv.bind(1, runId);
    while (iv.step())
        out.result.intervals.push_back({static_cast<int>(iv.integer(0)), static_cast<int>(iv.integer(1)), iv.real(2), iv.real(3),
                                        static_cast<int>(iv.integer(4)), static_cast<int>(iv.integer(5)), iv.real(6), iv.real(7)});
    SqliteStmt sm(*db_, "SELECT time, pending, running, used_cpus, used_gpus, used_memory_gb, used_bandwidth_gbps "
                        "FROM cluster_samples WHERE run_id = ?1 ORDER BY rowid");
    sm.bind(1, runId);
    while (sm.step())
        out.result.samples.push_back({sm.real(0), static_cast<int>(sm.integer(1)), static_cast<int>(sm.integer(2)),
                                      static_cast<int>(sm.integer(3)), static_cast<int>(sm.integer(4)), sm.real(5), sm.real(6)});
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_->handle(), "SELECT bytes FROM cluster_policies WHERE run_id = ?1", -1, &st, nullptr) != SQLITE_OK)
        db_->fail("preparing the policy query");
    sqlite3_bind_int64(st, 1, runId);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const void* p = sqlite3_column_blob(st, 0);
        const int n = sqlite3_column_bytes(st, 0);
        if (p && n > 0) out.policyBytes.assign(static_cast<const char*>(p), static_cast<std::size_t>(n));
    }
    sqlite3_finalize(st);
    return out;
}

std::vector<std::int64_t> ClusterStore::runIds() const {
    std::vector<std::int64_t> out;
    SqliteStmt s(*db_, "SELECT run_id FROM cluster_runs ORDER BY run_id DESC");
    while (s.step()) out.push_back(s.integer(0));
    return out;
}

std::int64_t storeClusterRun(RunStore& store, const ClusterScenario& s, const ClusterResult& r, NewRun run,
                             const std::string& policyBytes) {
    if (run.name.empty()) run.name = s.name + " / " + r.summary.scheduler;
    if (std::find(run.tags.begin(), run.tags.end(), "cluster") == run.tags.end()) run.tags.push_back("cluster");
    if (run.scenarioYaml.empty()) run.scenarioYaml = s.sourceText;
    run.seed = r.summary.seed;
    const std::int64_t id = store.beginRun(run);
    ClusterStore cs(store.path());
    cs.write(id, r, policyBytes);
    RunSummary sum;
    sum.status = r.summary.complete                ? RunStatus::Finished
                 : r.summary.stopReason == "cancelled" ? RunStatus::Cancelled
                                                       : RunStatus::Failed;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s; mean completion %.3f steps, p95 %.3f", r.summary.stopReason.c_str(),
                  r.summary.meanCompletion, r.summary.p95Completion);
    sum.stopReason = buf;
    sum.rounds = r.summary.completed;
    sum.aggregations = r.summary.decisions;
    sum.virtualTime = r.summary.makespan;
    sum.wallSeconds = r.summary.wallSeconds;
    store.finishRun(id, sum);
    return id;
}

} // namespace fog::cluster
