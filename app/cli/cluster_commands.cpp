// fogstudio-cli cluster run | train | bench | schedulers | show: the cluster scheduling
// experiment. It parses its own options (they differ from the training commands').

#include "app/cli/cluster_commands.h"

#include "app/cli/commands.h"
#include "app/cli/figure_module.h"
#include "core/cluster/cluster_compare.h"
#include "core/cluster/cluster_io.h"
#include "core/cluster/cluster_schema.h"
#include "core/cluster/cluster_store.h"
#include "core/cluster/learned_scheduler.h"
#include "core/model/learner.h"
#include "core/scenario/yaml_reader.h"


#include <QCommandLineParser>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>

namespace fog::cli {

namespace {

using namespace fog::cluster;

const char* kClusterUsage = R"(Usage: fogstudio-cli cluster <command> [options]

Scheduling ML tasks on edge clusters (after TapFinger, INFOCOM 2023); see docs/cluster.md.

Commands:
  run FILE [--scheduler NAME|all] [--policy P] [--repeat R] [--seed S] [--set K=V]...
                   Run episodes of a `kind: cluster` scenario (seeds S, S+1, ..., S+R-1;
                   default: the scenario's seed and scheduler), store each as a run,
                   print mean / p95 completion time with 95% CIs over the seeds.
                   `all` runs every scheduler (learned only when a policy is given).
  train FILE --episodes N --out POLICY [--seed S] [--lr X] [--max-seconds T]
             [--rollouts K] [--set K=V]...
                   Train the learned scheduler (multi-agent actor-critic) on generated
                   episodes, K rollouts of one arrival sequence per update (default 4;
                   1: one episode per update, the critic as baseline); prints the reward
                   curve; saves the policy that did best on the validation seeds.
  bench [--episodes N] [--train-episodes N]
                   Simulated tasks per second per scheduler (N episodes, default 200;
                   N/10 for the learned one) and training episodes per second (default
                   8, two updates of 4 rollouts), on the TapFinger setting (3 clusters,
                   200 tasks per episode).
  schedulers [--markdown]
                   The schedulers and where they come from; --markdown prints the
                   scheduler table of docs/cluster.md.
  schema           The key reference of docs/cluster.md (Markdown): every key of a
                   cluster file.
  show ID          A stored cluster run: summary and per-type completion times.
  export IDS... [--format tasks|runs|groups] [--out FILE]
                   Stored cluster runs as CSV: one row per task (default), per run, or
                   per scenario and scheduler (mean and p95 completion with 95% CIs
                   over the runs' seeds).
  plots IDS... [--out DIR] [--format png|svg|pdf]
                   The comparison's figures: completion-time CDFs side by side and the
                   mean completion per scheduler with its CI (and p95).
  report IDS... --out FILE.html|FILE.pdf
                   A report of the runs (as `fogstudio-cli export report`).

Options:
  --set KEY=VALUE  run, train: override a value of the cluster file before it is checked
                   (repeatable), e.g. --set scheduler=drf --set arrivals.tasks=50
                   --set clusters[2].servers[0].gpus=4 --set task_types[0].work.mean=8
  --db FILE        The run database (default: $XDG_DATA_HOME/fogstudio/runs.db).
  --no-store       run: do not store the runs.
  --json           run: print the results as JSON.
  --quiet          No progress output.
)";

int usage(const std::string& message) {
    std::cerr << "fogstudio-cli cluster: " << message << "\nTry 'fogstudio-cli cluster --help'.\n";
    return 2;
}

std::unique_ptr<RunStore> openClusterStore(const QString& db) {
    CliOptions o;
    o.db = db;
    return openStore(o);
}

bool loadScenario(const QCommandLineParser& p, const QString& file, ClusterScenario& s) {
    try {
        std::vector<Override> overrides;
        for (const QString& set : p.values("set")) overrides.push_back(parseOverride(set.toStdString()));
        s = loadClusterScenarioFile(file.toStdString(), overrides);
        return true;
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return false;
    }
}

struct Aggregate {
    std::string scheduler;
    std::vector<double> mean, p95, makespan, gpuUtil, wall;
    std::vector<std::int64_t> runIds;
    int incomplete = 0;
};

int cmdClusterRun(const QCommandLineParser& p, const QStringList& args) {
    if (args.size() != 1) return usage("run takes exactly one FILE");
    ClusterScenario s;
    if (!loadScenario(p, args[0], s)) return 1;
    if (p.isSet("policy")) s.scheduler.policyResolved = p.value("policy").toStdString();
    std::uint64_t seed = s.seed;
    if (p.isSet("seed")) {
        bool ok = false;
        seed = p.value("seed").toULongLong(&ok);
        if (!ok) return usage("--seed takes a whole number >= 0");
    }
    int repeat = 1;
    if (p.isSet("repeat")) {
        bool ok = false;
        repeat = p.value("repeat").toInt(&ok);
        if (!ok || repeat < 1) return usage("--repeat takes a whole number >= 1");
    }
    std::vector<std::string> names;
    const std::string chosen = p.isSet("scheduler") ? p.value("scheduler").toStdString() : s.scheduler.name;
    const auto known = schedulerNames();
    if (chosen == "all") {
        // A scheduler run by a policy network needs a trained one (scheduler.policy).
        for (const auto& i : schedulerInfos())
            if (!i.withPolicy || !s.scheduler.policyResolved.empty()) names.push_back(i.name);
    } else {
        if (std::find(known.begin(), known.end(), chosen) == known.end()) {
            std::cerr << "fogstudio-cli cluster: unknown scheduler '" << chosen << "'; known: " << joinNames(known)
                      << ", or all\n";
            return 2;
        }
        names.push_back(chosen);
    }
    std::unique_ptr<RunStore> store;
    if (!p.isSet("no-store")) {
        store = openClusterStore(p.value("db"));
        if (!store) return 1;
    }
    const bool quiet = p.isSet("quiet") || p.isSet("json");
    installInterruptHandler();
    std::vector<Aggregate> results;
    for (const auto& name : names) {
        std::unique_ptr<ClusterScheduler> sched;
        std::string policyBytes;
        try {
            s.scheduler.name = name;
            sched = makeScheduler(name, s);
            if (auto* learned = dynamic_cast<LearnedScheduler*>(sched.get())) policyBytes = learned->policy().serialize();
        } catch (const std::exception& e) {
            std::cerr << "fogstudio-cli cluster: " << (s.sourcePath.empty() ? "" : s.sourcePath + ": ") << e.what() << "\n";
            return 1;
        }
        Aggregate a;
        a.scheduler = name;
        for (int r = 0; r < repeat; ++r) {
            ClusterRunOptions ro;
            ro.cancel = interruptFlag();
            ClusterResult res;
            try {
                res = runCluster(s, *sched, seed + static_cast<std::uint64_t>(r), ro);
            } catch (const ClusterError& e) {
                std::cerr << "fogstudio-cli cluster: " << e.what() << "\n";
                return 1;
            }
            if (!res.summary.complete) ++a.incomplete;
            a.mean.push_back(res.summary.meanCompletion);
            a.p95.push_back(res.summary.p95Completion);
            a.makespan.push_back(res.summary.makespan);
            a.gpuUtil.push_back(res.summary.gpuUtilisation);
            a.wall.push_back(res.summary.wallSeconds);
            if (store) {
                NewRun run;
                run.tags.push_back("cluster");
                run.tags.push_back(name);
                try {
                    a.runIds.push_back(storeClusterRun(*store, s, res, run, policyBytes));
                } catch (const StoreError& e) {
                    std::cerr << "fogstudio-cli cluster: " << e.what() << "\n";
                    return 1;
                }
            }
            if (!quiet)
                std::fprintf(stderr, "  %-9s seed %-6llu mean completion %8.3f  p95 %8.3f  makespan %8.2f%s\n", name.c_str(),
                             static_cast<unsigned long long>(seed + r), res.summary.meanCompletion,
                             res.summary.p95Completion, res.summary.makespan,
                             res.summary.complete ? "" : ("  (" + res.summary.stopReason + ")").c_str());
            if (interruptFlag()->load()) break;
        }
        results.push_back(std::move(a));
        if (interruptFlag()->load()) break;
    }
    if (p.isSet("json")) {
        QJsonArray arr;
        for (const auto& a : results) {
            const cluster::MeanCi m = cluster::meanCi(a.mean), q = cluster::meanCi(a.p95), mk = cluster::meanCi(a.makespan), g = cluster::meanCi(a.gpuUtil);
            QJsonObject o;
            o["scheduler"] = QString::fromStdString(a.scheduler);
            o["episodes"] = m.n;
            o["incomplete"] = a.incomplete;
            o["mean_completion"] = m.mean;
            o["mean_completion_ci95"] = m.halfWidth;
            o["p95_completion"] = q.mean;
            o["p95_completion_ci95"] = q.halfWidth;
            o["makespan"] = mk.mean;
            o["gpu_utilisation"] = g.mean;
            QJsonArray ids;
            for (auto id : a.runIds) ids.append(static_cast<qint64>(id));
            o["runs"] = ids;
            arr.append(o);
        }
        std::cout << QJsonDocument(arr).toJson().toStdString();
    } else {
        std::cout << s.name << ": " << (results.empty() ? 0 : results[0].mean.size()) << " episode(s) per scheduler, seeds "
                  << seed << ".." << seed + repeat - 1 << " (completion time in steps, +- 95% CI over seeds)\n";
        std::printf("  %-10s %18s %18s %10s %8s  %s\n", "scheduler", "mean completion", "p95 completion", "makespan",
                    "GPU use", "stored runs");
        for (const auto& a : results) {
            const cluster::MeanCi m = cluster::meanCi(a.mean), q = cluster::meanCi(a.p95), mk = cluster::meanCi(a.makespan), g = cluster::meanCi(a.gpuUtil);
            std::string ids;
            if (!a.runIds.empty())
                ids = std::to_string(a.runIds.front()) + (a.runIds.size() > 1 ? ".." + std::to_string(a.runIds.back()) : "");
            std::printf("  %-10s %9.3f +- %-6.3f %9.3f +- %-6.3f %10.2f %7.1f%%  %s%s\n", a.scheduler.c_str(), m.mean,
                        m.halfWidth, q.mean, q.halfWidth, mk.mean, 100 * g.mean, ids.c_str(),
                        a.incomplete ? ("  " + std::to_string(a.incomplete) + " incomplete").c_str() : "");
        }
    }
    // Paired comparison: every scheduler met the same arrivals for a given seed, so the
    // per-seed difference to the best other scheduler has a much narrower CI than the two
    // means' intervals (which overlap because the seeds differ in load).
    if (!p.isSet("json") && results.size() > 1 && repeat > 1) {
        std::cout << "paired over seeds: mean completion minus the best other scheduler's (+- 95% CI; < 0 with the CI "
                     "below 0: significantly better)\n";
        for (std::size_t i = 0; i < results.size(); ++i) {
            std::size_t best = i;
            for (std::size_t j = 0; j < results.size(); ++j)
                if (j != i && results[j].mean.size() == results[i].mean.size() &&
                    (best == i || cluster::meanCi(results[j].mean).mean < cluster::meanCi(results[best].mean).mean))
                    best = j;
            if (best == i) continue;
            std::vector<double> diff;
            for (std::size_t k = 0; k < results[i].mean.size(); ++k) diff.push_back(results[i].mean[k] - results[best].mean[k]);
            const cluster::MeanCi d = cluster::meanCi(diff);
            std::printf("  %-10s - %-10s %9.3f +- %-6.3f (%+.1f%%)\n", results[i].scheduler.c_str(),
                        results[best].scheduler.c_str(), d.mean, d.halfWidth,
                        100 * d.mean / std::max(1e-12, cluster::meanCi(results[best].mean).mean));
        }
    }
    for (const auto& a : results)
        if (a.incomplete) return 1;
    return interruptFlag()->load() ? 130 : 0;
}

int cmdClusterTrain(const QCommandLineParser& p, const QStringList& args) {
    if (args.size() != 1) return usage("train takes exactly one FILE");
    if (!p.isSet("out")) return usage("train needs --out POLICY (the file the trained policy is saved to)");
    // Before the training spends its time, not after.
    if (const std::string why = ClusterPolicy::checkWritable(p.value("out").toStdString()); !why.empty()) {
        std::cerr << "fogstudio-cli cluster: --out " << p.value("out").toStdString() << " " << why << "\n";
        return 1;
    }
    ClusterScenario s;
    if (!loadScenario(p, args[0], s)) return 1;
    TrainOptions o;
    o.seed = s.seed;
    bool ok = true;
    if (p.isSet("episodes")) o.episodes = p.value("episodes").toInt(&ok);
    if (!ok || o.episodes < 1) return usage("--episodes takes a whole number >= 1");
    if (p.isSet("seed")) o.seed = p.value("seed").toULongLong(&ok);
    if (!ok) return usage("--seed takes a whole number >= 0");
    if (p.isSet("lr")) o.learningRate = p.value("lr").toDouble(&ok);
    if (!ok || !(o.learningRate > 0)) return usage("--lr takes a number > 0");
    if (p.isSet("max-seconds")) o.maxWallSeconds = p.value("max-seconds").toDouble(&ok);
    if (!ok || o.maxWallSeconds < 0) return usage("--max-seconds takes a number >= 0");
    if (p.isSet("rollouts")) o.rolloutsPerUpdate = p.value("rollouts").toInt(&ok);
    if (!ok || o.rolloutsPerUpdate < 1) return usage("--rollouts takes a whole number >= 1");
    const bool quiet = p.isSet("quiet");
    installInterruptHandler();
    o.cancel = interruptFlag();
    double window = 0;
    int inWindow = 0;
    o.onEpisode = [&](const TrainProgress& t) {
        window += t.meanCompletion;
        ++inWindow;
        // A line per validation (every ~10 episodes), with the sampled episodes since the last.
        if (!quiet && (t.validation >= 0 || (o.validateEvery <= 0 && t.episode % 10 == 0))) {
            std::printf("episode %5d  sampled mean completion (last %d) %8.3f  greedy on validation seeds %8.3f  "
                        "entropy %6.3f  %6.1f s\n",
                        t.episode, inWindow, window / inWindow, t.validation, t.stats.entropy, t.wallSeconds);
            std::fflush(stdout);
            window = 0;
            inWindow = 0;
        }
    };
    TrainResult r;
    try {
        r = trainClusterPolicy(s, o);
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli cluster: training failed: " << e.what() << "\n";
        return 1;
    }
    try {
        r.policy->save(p.value("out").toStdString());
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli cluster: " << e.what() << "\n";
        return 1;
    }
    std::printf("trained %zu episodes in %.1f s (%.2f episodes/s, validation included); saved the best policy "
                "(episode %d, greedy validation mean completion %.3f) to %s\n",
                r.curve.size(), r.wallSeconds, r.curve.size() / std::max(1e-9, r.wallSeconds), r.bestEpisode,
                r.bestValidation, p.value("out").toStdString().c_str());
    return interruptFlag()->load() ? 130 : 0;
}

/// The TapFinger setting (as presets/tapfinger-edge-cluster.yaml), built in code so the
/// benchmark needs no file.
ClusterScenario benchScenario() {
    ClusterScenario s;
    s.name = "bench-tapfinger";
    const int caps[3][2] = {{16, 4}, {16, 4}, {16, 8}};
    for (int c = 0; c < 3; ++c) {
        ClusterSpec cl;
        cl.id = "edge-" + std::to_string(c);
        ServerSpec srv;
        srv.id = cl.id + "-server";
        srv.cpus = caps[c][0];
        srv.gpus = caps[c][1];
        cl.servers.push_back(srv);
        s.clusters.push_back(cl);
    }
    const double cpuExp[3] = {0.3, 0.2, 0.5}, gpuExp[3] = {0.7, 0.8, 0.4}, work[3] = {10, 14, 6};
    const char* names[3] = {"image-classification", "language-model", "audio"};
    for (int i = 0; i < 3; ++i) {
        TaskType t;
        t.name = names[i];
        t.work.mean = work[i];
        t.speed.cpuExponent = cpuExp[i];
        t.speed.gpuExponent = gpuExp[i];
        s.taskTypes.push_back(t);
    }
    return s;
}

int cmdClusterBench(const QCommandLineParser& p) {
    bool ok = true;
    int episodes = 200, trainEpisodes = 8; // 8: two updates of 4 rollouts
    if (p.isSet("episodes")) episodes = p.value("episodes").toInt(&ok);
    if (!ok || episodes < 1) return usage("--episodes takes a whole number >= 1");
    if (p.isSet("train-episodes")) trainEpisodes = p.value("train-episodes").toInt(&ok);
    if (!ok || trainEpisodes < 1) return usage("--train-episodes takes a whole number >= 1");
    useSingleThreadedKernels();
    const ClusterScenario s = benchScenario();
    std::cout << "cluster bench: 3 clusters, 3 task types, Poisson 1/step, " << s.arrivals.tasks
              << " tasks per episode, one thread\n";
    auto policy = std::make_shared<ClusterPolicy>(3, 1);
    for (const auto& info : schedulerInfos()) {
        const bool network = static_cast<bool>(info.withPolicy);
        std::unique_ptr<ClusterScheduler> sched = network ? info.withPolicy(policy, s) : info.make(s);
        const auto t0 = std::chrono::steady_clock::now();
        long tasks = 0;
        const int n = network ? std::max(1, episodes / 10) : episodes; // the network is slower
        for (int e = 0; e < n; ++e) tasks += runCluster(s, *sched, 1 + e).summary.completed;
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("  %-10s %9.0f simulated tasks/s  (%d episodes, %.2f s)%s\n", info.name.c_str(), tasks / secs, n, secs,
                    network ? "  untrained policy, greedy" : "");
    }
    TrainOptions o;
    o.episodes = trainEpisodes;
    const TrainResult r = trainClusterPolicy(s, o);
    std::printf("  training   %9.2f episodes/s  (%d episodes of %d tasks, %.2f s)\n", r.curve.size() / r.wallSeconds,
                static_cast<int>(r.curve.size()), s.arrivals.tasks, r.wallSeconds);
    return 0;
}

int cmdClusterSchedulers(bool markdown) {
    if (markdown) {
        std::cout << clusterSchedulersMarkdown();
        return 0;
    }
    for (const auto& i : schedulerInfos()) {
        std::cout << "  " << i.name << "\n      " << i.summary << "\n";
        if (!i.source.empty()) std::cout << "      Source: " << i.source << "\n";
    }
    return 0;
}

std::optional<StoredClusterRun> readStored(const QCommandLineParser& p, const QStringList& args, std::unique_ptr<RunStore>& store,
                                           int& rc) {
    rc = 0;
    bool ok = false;
    const qint64 id = args.value(0).toLongLong(&ok);
    if (args.size() != 1 || !ok) {
        rc = usage("needs one run ID");
        return std::nullopt;
    }
    store = openClusterStore(p.value("db"));
    if (!store) {
        rc = 1;
        return std::nullopt;
    }
    auto stored = ClusterStore(store->path()).read(id);
    if (!stored) {
        std::cerr << "fogstudio-cli cluster: run " << id << " is not a cluster run in " << store->path() << "\n";
        rc = 1;
    }
    return stored;
}

int cmdClusterShow(const QCommandLineParser& p, const QStringList& args) {
    std::unique_ptr<RunStore> store;
    int rc = 0;
    const auto stored = readStored(p, args, store, rc);
    if (!stored) return rc;
    const auto run = store->run(stored->runId);
    const ClusterSummary& s = stored->result.summary;
    std::cout << "run " << stored->runId << ": " << (run ? run->name : "") << "\n";
    std::printf("  scheduler %s, seed %llu, %d/%d tasks completed (%s)\n", s.scheduler.c_str(),
                static_cast<unsigned long long>(s.seed), s.completed, s.tasks, s.stopReason.c_str());
    std::printf("  completion time: mean %.3f, p50 %.3f, p95 %.3f, max %.3f steps; mean wait %.3f\n", s.meanCompletion,
                s.p50Completion, s.p95Completion, s.maxCompletion, s.meanWait);
    std::printf("  makespan %.2f steps, mean pending %.2f, CPU use %.1f%%, GPU use %.1f%%, %d preemptions\n", s.makespan,
                s.meanPending, 100 * s.cpuUtilisation, 100 * s.gpuUtilisation, s.preemptions);
    std::map<int, std::pair<double, int>> perType;
    for (const auto& t : stored->result.tasks)
        if (t.finish >= 0) {
            perType[t.type].first += t.completionTime();
            perType[t.type].second += 1;
        }
    std::vector<std::string> typeNames;
    if (run) {
        try {
            for (const auto& t : loadClusterScenarioText(run->scenarioYaml, "stored scenario").taskTypes) typeNames.push_back(t.name);
        } catch (const std::exception&) {
        }
    }
    for (const auto& [type, v] : perType)
        std::printf("  type %-22s %4d tasks, mean completion %.3f\n",
                    type < static_cast<int>(typeNames.size()) ? typeNames[type].c_str() : std::to_string(type).c_str(), v.second,
                    v.first / v.second);
    if (!stored->policyBytes.empty()) std::printf("  learned policy stored with the run (%zu bytes)\n", stored->policyBytes.size());
    return 0;
}

/// Reads the cluster runs named on the command line; false (with a message) when an id is
/// not a number or not a cluster run.
bool readClusterRuns(const QCommandLineParser& p, const QStringList& args, std::unique_ptr<RunStore>& store,
                     std::vector<ComparedClusterRun>& runs, int& rc) {
    std::vector<std::int64_t> ids;
    std::vector<std::string> names;
    for (const QString& a : args) {
        bool ok = false;
        const qint64 id = a.toLongLong(&ok);
        if (!ok) {
            rc = usage("run IDs are whole numbers, got '" + a.toStdString() + "'");
            return false;
        }
        ids.push_back(id);
    }
    if (ids.empty()) {
        rc = usage("needs one or more run IDs");
        return false;
    }
    store = openClusterStore(p.value("db"));
    if (!store) {
        rc = 1;
        return false;
    }
    for (auto id : ids) {
        const auto run = store->run(id);
        const std::string name = run ? run->name : "";
        const auto cut = name.rfind(" / ");
        names.push_back(cut == std::string::npos ? name : name.substr(0, cut));
    }
    runs = loadClusterRuns(store->path(), ids, names);
    for (auto id : ids)
        if (std::none_of(runs.begin(), runs.end(), [id](const ComparedClusterRun& r) { return r.runId == id; })) {
            std::cerr << "fogstudio-cli cluster: run " << id << " is not a cluster run in " << store->path() << "\n";
            rc = 1;
            return false;
        }
    return true;
}

int cmdClusterExport(const QCommandLineParser& p, const QStringList& args) {
    std::unique_ptr<RunStore> store;
    std::vector<ComparedClusterRun> runs;
    int rc = 0;
    const QString format = p.isSet("format") ? p.value("format") : QString("tasks");
    if (format != "tasks" && format != "runs" && format != "groups")
        return usage("export --format is tasks, runs or groups, not '" + format.toStdString() + "'");
    if (!readClusterRuns(p, args, store, runs, rc)) return rc;
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (p.isSet("out")) {
        file.open(p.value("out").toStdString());
        if (!file) {
            std::cerr << "fogstudio-cli cluster: cannot write " << p.value("out").toStdString() << "\n";
            return 1;
        }
        out = &file;
    }
    if (format == "tasks") writeClusterTasksCsv(runs, *out);
    else if (format == "runs") writeClusterRunsCsv(runs, *out);
    else writeClusterGroupsCsv(groupClusterRuns(runs), *out);
    out->flush();
    if (!*out) {
        std::cerr << "fogstudio-cli cluster: writing " << p.value("out").toStdString() << " failed\n";
        return 1;
    }
    return 0;
}

int cmdClusterPlots(const QCommandLineParser& p, const QStringList& args) {
    std::unique_ptr<RunStore> store;
    FigureRequest r;
    r.kind = FigureRequest::Kind::ClusterPlots;
    r.prefix = "fogstudio-cli cluster";
    int rc = 0;
    r.format = p.isSet("format") ? p.value("format") : QString("png");
    if (r.format != "png" && r.format != "svg" && r.format != "pdf") return usage("plots --format is png, svg or pdf");
    if (!readClusterRuns(p, args, store, r.clusterRuns, rc)) return rc;
    r.out = p.isSet("out") ? p.value("out") : QString(".");
    r.db = store->path();
    return runFigures(r);
}

int cmdClusterReport(const QCommandLineParser& p, const QStringList& args) {
    if (!p.isSet("out")) return usage("report needs --out FILE.html or FILE.pdf");
    std::unique_ptr<RunStore> store;
    std::vector<ComparedClusterRun> runs;
    int rc = 0;
    if (!readClusterRuns(p, args, store, runs, rc)) return rc;
    FigureRequest r;
    r.kind = FigureRequest::Kind::Report;
    r.prefix = "fogstudio-cli cluster";
    for (const auto& run : runs) r.ids.push_back(run.runId);
    r.dbOption = p.value("db");
    r.db = store->path();
    r.out = p.value("out");
    return runFigures(r);
}

} // namespace

int cmdCluster(const QStringList& arguments) {
    QCommandLineParser p;
    p.addOptions({{{"h", "help"}, ""},
                  {"scheduler", "", "NAME"},
                  {"policy", "", "FILE"},
                  {"repeat", "", "R"},
                  {"seed", "", "S"},
                  {"db", "", "FILE"},
                  {"no-store", ""},
                  {"json", ""},
                  {"markdown", ""},
                  {"quiet", ""},
                  {"episodes", "", "N"},
                  {"train-episodes", "", "N"},
                  {"out", "", "FILE"},
                  {"lr", "", "X"},
                  {"max-seconds", "", "T"},
                  {"set", "", "KEY=VALUE"},
                  {"format", "", "F"},
                  {"rollouts", "", "K"}});
    if (!p.parse(QStringList{"fogstudio-cli"} + arguments)) return usage(p.errorText().toStdString());
    const QStringList args = p.positionalArguments();
    if (p.isSet("help") || args.isEmpty()) {
        std::cout << kClusterUsage;
        return args.isEmpty() && !p.isSet("help") ? 2 : 0;
    }
    const QString cmd = args.first();
    const QStringList rest = args.mid(1);
    if (cmd == "run") return cmdClusterRun(p, rest);
    if (cmd == "train") return cmdClusterTrain(p, rest);
    if (cmd == "bench") return cmdClusterBench(p);
    if (cmd == "schedulers") return cmdClusterSchedulers(p.isSet("markdown"));
    if (cmd == "schema") {
        std::cout << clusterSchemaMarkdown();
        return 0;
    }
    if (cmd == "show") return cmdClusterShow(p, rest);
    if (cmd == "export") return cmdClusterExport(p, rest);
    if (cmd == "plots") return cmdClusterPlots(p, rest);
    if (cmd == "report") return cmdClusterReport(p, rest);
    return usage("unknown cluster command '" + cmd.toStdString() + "'");
}

} // namespace fog::cli
