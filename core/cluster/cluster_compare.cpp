#include "core/cluster/cluster_compare.h"
#include "core/util/csv_cell.h"

#include <algorithm>
#include <iomanip>
#include <ostream>

namespace fog::cluster {

namespace {

/// A CSV text cell: quoted when it holds a comma, a quote or a line break; a formula defused.
std::string cell(const std::string& s) {
    return csvCell(s); // quoted, and a formula defused (core/util/csv_cell.h)
}

} // namespace

std::vector<ClusterGroup> groupClusterRuns(const std::vector<ComparedClusterRun>& runs) {
    std::vector<ClusterGroup> groups;
    std::vector<std::vector<double>> mean, p95, makespan, cpu, gpu;
    for (const auto& r : runs) {
        const ClusterSummary& s = r.data.result.summary;
        std::size_t g = 0;
        while (g < groups.size() &&
               !(groups[g].scenario == r.scenario && groups[g].scheduler == s.scheduler))
            ++g;
        if (g == groups.size()) {
            groups.push_back({r.scenario, s.scheduler, {}, 0, {}, {}, {}, {}, {}});
            mean.emplace_back();
            p95.emplace_back();
            makespan.emplace_back();
            cpu.emplace_back();
            gpu.emplace_back();
        }
        groups[g].runIds.push_back(r.runId);
        if (!s.complete) ++groups[g].incomplete;
        mean[g].push_back(s.meanCompletion);
        p95[g].push_back(s.p95Completion);
        makespan[g].push_back(s.makespan);
        cpu[g].push_back(s.cpuUtilisation);
        gpu[g].push_back(s.gpuUtilisation);
    }
    for (std::size_t g = 0; g < groups.size(); ++g) {
        groups[g].meanCompletion = meanCi(mean[g]);
        groups[g].p95Completion = meanCi(p95[g]);
        groups[g].makespan = meanCi(makespan[g]);
        groups[g].cpuUtilisation = meanCi(cpu[g]);
        groups[g].gpuUtilisation = meanCi(gpu[g]);
    }
    return groups;
}

std::vector<double> sortedCompletionTimes(const ClusterResult& r) {
    std::vector<double> v;
    for (const auto& t : r.tasks)
        if (t.finish >= 0) v.push_back(t.completionTime());
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<ComparedClusterRun> loadClusterRuns(const std::string& dbPath,
                                                const std::vector<std::int64_t>& ids,
                                                const std::vector<std::string>& scenarioNames) {
    std::vector<ComparedClusterRun> out;
    if (ids.empty()) return out;
    ClusterStore store(dbPath);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        auto r = store.read(ids[i]);
        if (!r) continue;
        ComparedClusterRun c;
        c.runId = ids[i];
        c.scenario = i < scenarioNames.size() && !scenarioNames[i].empty() ? scenarioNames[i] : "?";
        c.data = std::move(*r);
        out.push_back(std::move(c));
    }
    return out;
}

void writeClusterRunsCsv(const std::vector<ComparedClusterRun>& runs, std::ostream& out) {
    out << "run_id,scenario,scheduler,seed,tasks,completed,mean_completion,p50_completion,p95_"
           "completion,"
           "max_completion,mean_wait,makespan,mean_pending,cpu_utilisation,gpu_utilisation,"
           "preemptions,stop_reason\n";
    out << std::setprecision(10);
    for (const auto& r : runs) {
        const ClusterSummary& s = r.data.result.summary;
        out << r.runId << "," << cell(r.scenario) << "," << cell(s.scheduler) << "," << s.seed
            << "," << s.tasks << "," << s.completed << "," << s.meanCompletion << ","
            << s.p50Completion << "," << s.p95Completion << "," << s.maxCompletion << ","
            << s.meanWait << "," << s.makespan << "," << s.meanPending << "," << s.cpuUtilisation
            << "," << s.gpuUtilisation << "," << s.preemptions << "," << cell(s.stopReason) << "\n";
    }
}

void writeClusterGroupsCsv(const std::vector<ClusterGroup>& groups, std::ostream& out) {
    out << "scenario,scheduler,runs,incomplete,mean_completion,mean_completion_ci95,p95_completion,"
           "p95_completion_ci95,"
           "makespan,makespan_ci95,gpu_utilisation,gpu_utilisation_ci95\n";
    out << std::setprecision(10);
    auto pair = [&](const MeanCi& m) {
        out << "," << m.mean << ",";
        if (m.n > 1) out << m.halfWidth; // one run: no interval
    };
    for (const auto& g : groups) {
        out << cell(g.scenario) << "," << cell(g.scheduler) << "," << g.runIds.size() << ","
            << g.incomplete;
        pair(g.meanCompletion);
        pair(g.p95Completion);
        pair(g.makespan);
        pair(g.gpuUtilisation);
        out << "\n";
    }
}

void writeClusterTasksCsv(const std::vector<ComparedClusterRun>& runs, std::ostream& out) {
    out << "run_id,task_id,type,arrival,work,first_start,finish,completion_time,server,cpus,gpus,"
           "preemptions\n";
    out << std::setprecision(10);
    for (const auto& r : runs)
        for (const auto& t : r.data.result.tasks) {
            out << r.runId << "," << t.id << "," << t.type << "," << t.arrival << "," << t.work
                << ",";
            if (t.firstStart >= 0) out << t.firstStart;
            out << ",";
            if (t.finish >= 0)
                out << t.finish << "," << t.completionTime();
            else
                out << ",";
            out << "," << t.server << "," << t.cpus << "," << t.gpus << "," << t.preemptions
                << "\n";
        }
}

} // namespace fog::cluster
