// run, sweep and runs rerun: the commands that start the emulator.

#include "app/cli/commands.h"
#include "app/cli/progress.h"
#include "app/cli/progress_bar.h"
#include "app/cli/sweep_mpi.h"
#include "core/engine/condition.h"
#include "core/engine/engine.h"
#include "core/engine/run_control.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/variants.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "core/analysis/analysis.h"
#include "core/analysis/reproduction.h"
#include "core/util/text.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <csignal>
#include <iomanip>
#include <iostream>

namespace fog::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) { g_interrupted.store(true); }

QJsonObject summaryJson(const Scenario& s, const RunSummary& r, int threads, std::int64_t runId) {
    auto num = [](double v) { return std::isnan(v) ? QJsonValue() : QJsonValue(v); };
    QJsonObject o;
    if (runId > 0) o["run_id"] = static_cast<double>(runId);
    o["scenario"] = QString::fromStdString(s.name);
    o["seed"] = static_cast<double>(s.seed);
    o["status"] = toString(r.status);
    o["stop_reason"] = QString::fromStdString(r.stopReason);
    o["final_test_accuracy"] = num(r.finalTestAccuracy);
    o["best_test_accuracy"] = num(r.bestTestAccuracy);
    o["final_test_loss"] = num(r.finalTestLoss);
    o["final_train_loss"] = num(r.finalTrainLoss);
    o["rounds"] = r.rounds;
    o["aggregations"] = r.aggregations;
    o["virtual_time_s"] = r.virtualTime;
    o["cost"] = r.cost;
    o["energy_j"] = r.energyJ;
    o["energy_compute_j"] = num(r.energyComputeJ);
    o["energy_network_j"] = num(r.energyNetworkJ);
    o["energy_idle_j"] = num(r.energyIdleJ);
    o["bytes_moved"] = r.bytes;
    o["samples_computed"] = static_cast<double>(r.samplesComputed);
    o["lost_jobs"] = r.lostJobs;
    o["wall_clock_s"] = r.wallSeconds;
    o["threads"] = threads;
    return o;
}

/// What the database holds for a run after it ended, read back rather than assumed.
struct StoredCheck {
    std::optional<StoredRun> run;
    RowCounts rows;
    std::string problem; ///< empty: stored, complete and as the engine ended it
};

StoredCheck readBack(const std::string& dbPath, std::int64_t runId, const RunSummary& summary) {
    StoredCheck c;
    try {
        // A fresh connection, so nothing cached in this process can pass for the stored state.
        RunStore store(dbPath, true);
        c.run = store.run(runId);
        if (c.run) c.rows = store.storedRows(runId);
    } catch (const StoreError& e) {
        c.problem = std::string("cannot read the stored run back: ") + e.what();
        return c;
    }
    if (!c.run) {
        c.problem = "run " + std::to_string(runId) + " is not in the database (deleted while it ran?)";
        return c;
    }
    const auto& r = *c.run;
    if (r.status == "running" || r.status == "interrupted")
        c.problem = "the run's end could not be stored; the database says '" + r.status + "'";
    else if (r.status != toString(summary.status))
        c.problem = "storing failed: the database says '" + r.status + "': " + r.summary.stopReason;
    else if (!r.produced)
        c.problem = "the database does not say how many rows the run produced";
    else if (*r.produced != c.rows)
        c.problem = "incomplete: " + std::to_string(c.rows.metrics) + " of " + std::to_string(r.produced->metrics) +
                    " metric rows stored";
    return c;
}

} // namespace

/// Runs `scenario` (stored unless --no-store) and prints its summary and, when stored,
/// what the database holds: the exit status follows what was stored, not what ran.
/// `runner`, when given, runs and stores instead of runAndStore (fork: app/cli/fork_command.cpp).
int runScenario(const Scenario& scenario, const CliOptions& o, NewRun meta, const std::string& label,
                const std::optional<Condition>& until, const StoredRunner& runner) {
    ProgressPrinter progress(scenario, o.quiet ? ProgressPrinter::Mode::Off : ProgressPrinter::Mode::Auto);
    installInterruptHandler();
    RunSummary summary;
    std::int64_t runId = 0;
    StoredCheck stored;
    EngineOptions options;
    options.threads = o.threads;
    options.observer = &progress;
    options.cancelFlag = interruptFlag();
    options.snapshotEverySeconds = o.snapshotEvery;
    if (until) {
        // The run ends where the condition holds, as finished, its stop reason saying what held.
        options.control = std::make_shared<RunControl>();
        options.control->runUntil(*until, RunControl::OnCondition::Stop);
    }
    if (o.noStore) {
        try {
            Engine engine(scenario, options);
            summary = engine.run();
        } catch (const std::exception& e) {
            std::cerr << label << ": " << e.what() << "\n";
            return 1;
        }
    } else {
        auto store = openStore(o);
        if (!store) return 1;
        if (store->readOnly()) {
            std::cerr << "fogstudio-cli: " << store->path()
                      << ": the database is read-only for this program; the run was not started "
                         "(use --db FILE for a writable database, or --no-store)\n";
            return 1;
        }
        for (const auto& t : o.tags) meta.tags.push_back(t.toStdString());
        if (!o.name.isEmpty()) meta.name = o.name.toStdString();
        try {
            runId = runner ? runner(*store, meta, options, summary) : runAndStore(scenario, *store, meta, options, summary, {});
        } catch (const StoreError& e) {
            std::cerr << "fogstudio-cli: " << e.what() << "\n"
                      << label << ": the run was not stored\n";
            return 1;
        }
        const std::string path = store->path();
        store.reset();
        stored = readBack(path, runId, summary);
    }
    if (o.json) {
        QJsonObject j = summaryJson(scenario, summary, o.threads, stored.run ? runId : 0);
        if (runId > 0) {
            QJsonObject st;
            st["run_id"] = static_cast<double>(runId);
            st["status"] = stored.run ? QString::fromStdString(stored.run->status) : QString("missing");
            st["metric_rows"] = static_cast<double>(stored.rows.metrics);
            st["event_rows"] = static_cast<double>(stored.rows.events);
            st["interval_rows"] = static_cast<double>(stored.rows.intervals);
            st["complete"] = stored.problem.empty();
            if (!stored.problem.empty()) st["problem"] = QString::fromStdString(stored.problem);
            j["stored"] = st;
            if (stored.run) j["status"] = QString::fromStdString(stored.run->status);
        }
        std::cout << QJsonDocument(j).toJson().toStdString() << "\n";
    } else {
        progress.printSummary(summary, std::cout);
        if (runId > 0 && stored.run)
            std::cout << "  " << std::left << std::setw(22) << "stored as"
                      << "run " << runId << ", " << stored.run->status << ", " << stored.rows.metrics
                      << " metric rows, " << stored.rows.events << " events, " << stored.rows.intervals
                      << " intervals" << (stored.problem.empty() ? "" : " (INCOMPLETE)") << "\n";
    }
    if (!stored.problem.empty()) {
        std::cerr << label << ": run " << runId << ": " << stored.problem << "\n";
        return 1;
    }
    if (summary.status == RunStatus::Failed) {
        std::cerr << label << ": run failed: " << summary.stopReason << "\n";
        return 1;
    }
    return summary.status == RunStatus::Cancelled ? 130 : 0;
}

namespace {

/// Per configuration: mean and 95% confidence interval over the repeats.
void printSweepTable(const RunStore& store, std::int64_t sweepId, double target) {
    std::map<std::string, std::vector<StoredRun>> byConfig;
    std::vector<std::string> order;
    auto runs = store.listRuns({"", "", sweepId, 0});
    std::reverse(runs.begin(), runs.end());
    for (const auto& r : runs) {
        if (!byConfig.count(r.sweepConfig)) order.push_back(r.sweepConfig);
        byConfig[r.sweepConfig].push_back(r);
    }
    auto cell = [](const MeanCi& m, double scale, int digits) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(digits);
        if (std::isnan(m.mean)) return std::string("-");
        s << m.mean * scale;
        if (!std::isnan(m.halfWidth)) s << " +/- " << m.halfWidth * scale;
        return s.str();
    };
    std::cout << "\nMean +/- 95% confidence interval over repeats:\n"
              << std::left << std::setw(34) << "configuration" << std::setw(20) << "accuracy (%)" << std::setw(24)
              << "virtual time (s)" << std::setw(22) << "cost" << "time to " << 100 * target << "% (s)\n";
    for (const auto& config : order) {
        std::vector<double> acc, time, cost, reach;
        for (const auto& r : byConfig[config]) {
            acc.push_back(r.summary.finalTestAccuracy);
            time.push_back(r.summary.virtualTime);
            cost.push_back(r.summary.cost);
            const auto t = reachTarget(store.metrics(r.id), target);
            reach.push_back(t ? t->time : kNaN);
        }
        const MeanCi reached = meanWithCi(reach);
        std::string reachCell = cell(reached, 1, 1);
        if (reached.n < reach.size()) reachCell += " (" + std::to_string(reached.n) + "/" + std::to_string(reach.size()) + " reached)";
        std::cout << std::left << std::setw(34) << config << std::setw(20) << cell(meanWithCi(acc), 100, 2)
                  << std::setw(24) << cell(meanWithCi(time), 1, 1) << std::setw(22) << cell(meanWithCi(cost), 1, 4)
                  << reachCell << "\n";
    }
    std::cout << "\n";
}

/// Per variant (configuration), in the order run: mean +/- standard deviation over repeats.
void printVariantTable(const RunStore& store, std::int64_t sweepId, const std::vector<std::string>& order,
                       double target) {
    std::map<std::string, std::vector<StoredRun>> byConfig;
    for (const auto& r : store.listRuns({"", "", sweepId, 0})) byConfig[r.sweepConfig].push_back(r);
    auto meanSd = [](const std::vector<double>& xs, double scale, int digits) {
        std::vector<double> v;
        for (double x : xs)
            if (!std::isnan(x)) v.push_back(x * scale);
        if (v.empty()) return std::string("-");
        double mean = 0;
        for (double x : v) mean += x;
        mean /= static_cast<double>(v.size());
        std::ostringstream s;
        s << std::fixed << std::setprecision(digits) << mean;
        if (v.size() > 1) {
            double ss = 0;
            for (double x : v) ss += (x - mean) * (x - mean);
            s << " +/- " << std::sqrt(ss / static_cast<double>(v.size() - 1));
        }
        return s.str();
    };
    std::size_t width = 9;
    for (const auto& c : order) width = std::max(width, c.size() + 2);
    std::cout << "\nVariants, mean +/- standard deviation over repeats (common random numbers):\n" << std::left
              << std::setw(static_cast<int>(width)) << "variant" << std::setw(6) << "runs" << std::setw(20)
              << "final accuracy (%)" << std::setw(22) << "virtual time (s)" << std::setw(22) << "cost"
              << "time to " << 100 * target << "% (s)\n";
    for (const auto& config : order) {
        const auto& runs = byConfig[config];
        std::vector<double> acc, time, cost, reach;
        int reached = 0;
        for (const auto& r : runs) {
            acc.push_back(r.summary.finalTestAccuracy);
            time.push_back(r.summary.virtualTime);
            cost.push_back(r.summary.cost);
            const auto t = reachTarget(store.metrics(r.id), target);
            reach.push_back(t ? t->time : kNaN);
            reached += t ? 1 : 0;
        }
        std::string reachCell = meanSd(reach, 1, 1);
        if (reached < static_cast<int>(runs.size()))
            reachCell += " (" + std::to_string(reached) + "/" + std::to_string(runs.size()) + " reached)";
        std::cout << std::left << std::setw(static_cast<int>(width)) << config << std::setw(6) << runs.size()
                  << std::setw(20) << meanSd(acc, 100, 2) << std::setw(22) << meanSd(time, 1, 1) << std::setw(22)
                  << meanSd(cost, 1, 4) << reachCell << "\n";
    }
    std::cout << "\n";
}

/// `run FILE` on a file with variants: every variant x repeat as one stored sweep.
int runVariants(const std::string& file, const CliOptions& o) {
    if (!o.until.isEmpty()) {
        std::cerr << "fogstudio-cli: --until ends one run; the file has variants or repeats: choose one run with "
                     "--variant NAME --repeat 1\n";
        return 2;
    }
    if (o.noStore) {
        std::cerr << "fogstudio-cli: a file with variants or repeats is stored as one group of runs; --no-store "
                     "works with one run: --variant NAME --repeat 1\n";
        return 2;
    }
    SweepSpec spec;
    spec.file = file;
    spec.variants = true;
    spec.variant = o.variant.toStdString();
    spec.repeats = o.repeatGiven ? o.repeat : 0;
    for (const QString& s : o.sets) spec.base.push_back(parseOverride(s.toStdString()));
    spec.name = o.name.toStdString();
    spec.parallel = o.parallel;
    spec.threadsPerRun = std::max(1, o.threads / std::max(1, o.parallel));
    for (const auto& t : o.tags) spec.tags.push_back(t.toStdString());
    const SweepPlan plan = planSweep(spec); // every variant checked before anything runs
    std::vector<std::string> order;
    for (const auto& it : plan.items)
        if (std::find(order.begin(), order.end(), it.config) == order.end()) order.push_back(it.config);
    if (!o.quiet)
        std::cout << file << ": " << order.size() << (order.size() == 1 ? " variant" : " variants") << " x "
                  << plan.items.size() / std::max<std::size_t>(1, order.size()) << " repeats = " << plan.items.size()
                  << " runs\n";
    auto store = openStore(o);
    if (!store) return 1;
    if (store->readOnly()) {
        std::cerr << "fogstudio-cli: " << store->path() << ": the database is read-only for this program; "
                  << "the runs were not started\n";
        return 1;
    }
    installInterruptHandler();
    ProgressBar bar(!o.quiet);
    const SweepResult r = runSweep(
        spec, *store,
        [&](const SweepProgress& p) {
            char buf[200];
            std::snprintf(buf, sizeof buf, " #%d: %s, acc %.2f%%, t=%.1f s, cost %.4f", p.repeat,
                          toString(p.summary.status), 100.0 * p.summary.finalTestAccuracy, p.summary.virtualTime,
                          p.summary.cost);
            bar.update(p.done, p.total, "", p.config + buf);
        },
        interruptFlag());
    bar.finish();
    printVariantTable(*store, r.sweepId, order, o.target);
    for (const auto& e : r.errors) std::cerr << "fogstudio-cli: " << e << "\n";
    int stored = 0;
    for (const auto id : r.runIds) stored += id != 0;
    std::cout << "sweep " << r.sweepId << ": " << stored << " runs stored in " << store->path();
    if (r.failed) std::cout << " (" << r.failed << " failed)";
    std::cout << "\ncompare them with: fogstudio-cli export plots --sweep " << r.sweepId << " --out DIR"
              << "\nexport them with: fogstudio-cli export summary --sweep " << r.sweepId << "\n";
    if (r.cancelled) {
        std::cout << "cancelled: resume with: fogstudio-cli sweep --resume " << r.sweepId << "\n";
        return 130;
    }
    return r.failed || !r.errors.empty() ? 1 : 0;
}

} // namespace

void installInterruptHandler() {
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
}

const std::atomic<bool>* interruptFlag() { return &g_interrupted; }

std::unique_ptr<RunStore> openStore(const CliOptions& o) {
    // Past a file-size limit (ulimit -f) a write should fail with an error the store reports,
    // not kill the process with SIGXFSZ half-way through a transaction.
    std::signal(SIGXFSZ, SIG_IGN);
    const std::string path = o.db.isEmpty() ? RunStore::defaultPath() : o.db.toStdString();
    try {
        return std::make_unique<RunStore>(path);
    } catch (const std::exception& e) { // StoreError, or out of memory on a huge file
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return nullptr;
    }
}

int cmdRun(const CliOptions& o) {
    if (o.args.size() != 1) {
        std::cerr << "fogstudio-cli: run takes exactly one FILE\n";
        return 2;
    }
    const std::string file = o.args[0].toStdString();
    std::optional<Condition> until;
    if (!o.until.isEmpty()) {
        try {
            until = parseCondition(o.until.toStdString(), "--until");
        } catch (const ConditionError& e) {
            std::cerr << "fogstudio-cli: " << e.what() << "\n";
            return 2;
        }
    }
    Scenario scenario;
    NewRun meta;
    try {
        std::vector<Override> overrides;
        for (const QString& s : o.sets) overrides.push_back(parseOverride(s.toStdString()));
        scenario = loadVariantBase(file, overrides);
        if (hasVariants(scenario) || !o.variant.isEmpty() || o.repeatGiven) {
            // One variant, once: a plain run (--until, --no-store and --json work), labelled.
            const auto configs = variantConfigurations(scenario, o.variant.toStdString());
            const int repeats = o.repeatGiven ? o.repeat : scenario.repeats;
            if (configs.size() != 1 || repeats != 1) {
                if (!o.events.isEmpty()) {
                    std::cerr << "fogstudio-cli run: --event applies to a single run: add --variant NAME --repeat 1\n";
                    return 2;
                }
                return runVariants(file, o);
            }
            std::vector<Override> all = configs.front().overrides;
            all.insert(all.end(), overrides.begin(), overrides.end());
            SuspendVariantChecks checked; // the file's variants were checked by the first load
            scenario = withoutVariants(loadScenarioFile(file, all));
            if (!configs.front().variant.empty()) meta.name = scenario.name + " [" + configs.front().label + "]";
        }
        for (const QString& e : o.events) addEventArgument(scenario, e.toStdString());
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const StoreError& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return 1;
    }
    return runScenario(scenario, o, meta, file, until);
}

int rerun(const CliOptions& o, std::int64_t id) {
    auto store = openStore(o);
    if (!store) return 1;
    std::optional<StoredRun> stored;
    try {
        stored = store->run(id);
    } catch (const StoreError& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return 1;
    }
    if (!stored) {
        std::cerr << "fogstudio-cli: no run " << id << " in " << store->path() << "\n";
        return 1;
    }
    Scenario scenario;
    try {
        // Stored scenarios carry their seed, so the re-run is exact.
        scenario = loadScenarioText(stored->scenarioYaml, "run " + std::to_string(id));
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    const std::vector<AggregationRecord> storedRows = store->metrics(id);
    const std::string path = store->path();
    store.reset();
    NewRun meta;
    meta.name = "rerun of " + std::to_string(id) + ": " + stored->name;
    meta.tags = stored->tags;
    const bool fastPath = scenario.training.backend != TrainingBackend::LibTorch;
    const std::string kernels = kernelMatchNote(stored->numerics, "run " + std::to_string(id), fastPath);
    meta.notes = "re-run of run " + std::to_string(id) + (kernels.empty() ? "" : "; " + kernels);
    std::int64_t newId = 0;
    const int rc = runScenario(scenario, o, meta, "run " + std::to_string(id), std::nullopt,
                               [&](RunStore& s, const NewRun& m, const EngineOptions& options, RunSummary& summary) {
                                   return newId = runAndStore(scenario, s, m, options, summary, {});
                               });
    if (newId <= 0 || (rc != 0 && rc != 130)) return rc;
    // Does it reproduce? Clock values exactly; training values bit for bit with the same
    // kernels, by the cross-kernel rule otherwise (docs/reproducibility.md).
    std::vector<AggregationRecord> again;
    try {
        again = RunStore(path, true).metrics(newId);
    } catch (const StoreError& e) {
        std::cerr << "fogstudio-cli: cannot read run " << newId << " back to compare it: " << e.what() << "\n";
        return 1;
    }
    const bool exact = kernelMatch(stored->numerics, fastPath) == KernelMatch::Same;
    // A stored run that was stopped, interrupted or failed has the rows it reached.
    const bool prefix = stored->status != "finished" || rc == 130;
    const RowsComparison c = compareRows(storedRows, again, exact, prefix);
    std::ostream& out = o.json ? std::cerr : std::cout;
    if (!kernels.empty()) out << "  " << kernels << "\n";
    if (c.identical && storedRows.size() == again.size())
        out << "  reproduces run " << id << " bit for bit (" << c.rowsCompared << " metric rows)\n";
    else if (c.agrees())
        out << "  reproduces run " << id << (exact ? "" : " by the cross-kernel rule") << " over " << c.rowsCompared
            << " metric rows" << (exact ? "" : ": clock values identical, largest loss difference " +
                                                 shortNumber(c.maxTrainingRelative) + " relative, accuracy " +
                                                 shortNumber(c.maxAccuracyAbsolute))
            << (storedRows.size() != again.size() ? " (run " + std::to_string(id) + " " + stored->status + " with " +
                                                        std::to_string(storedRows.size()) + " rows)"
                                                  : "")
            << "\n";
    else {
        std::cerr << "run " << id << ": the re-run (run " << newId << ") does not reproduce it: " << c.firstDifference
                  << "\n";
        return 1;
    }
    return rc;
}

int cmdSweep(const CliOptions& o) {
    if (o.resume == 0 && o.args.size() != 1) {
        std::cerr << "fogstudio-cli: sweep takes exactly one FILE (or --resume SWEEP)\n";
        return 2;
    }
    if (o.resume == 0 && o.varies.isEmpty()) {
        std::cerr << "fogstudio-cli: sweep needs at least one --vary KEY=V1,V2,...\n";
        return 2;
    }
    if (o.args.size() > 1) {
        std::cerr << "fogstudio-cli: sweep takes one FILE\n";
        return 2;
    }
    // The spec: from the command line, or for `--resume S` alone, from what sweep S stored.
    auto makeSpec = [&o]() {
        SweepSpec spec;
        if (o.args.isEmpty()) {
            auto store = openStore(o);
            if (!store) throw ScenarioError({{"--db", 0, 0, "", "cannot open the run store"}});
            const auto stored = storedSweep(*store, o.resume);
            if (!stored)
                throw ScenarioError({{"--resume", 0, 0, "", "there is no sweep " + std::to_string(o.resume) + " in " +
                                                                store->path()}});
            spec = parseSweepSpecText(stored->second);
            spec.name = stored->first;
        } else {
            spec.file = o.args[0].toStdString();
            spec.repeats = o.repeat;
            for (const QString& s : o.sets) spec.base.push_back(parseOverride(s.toStdString()));
            for (const QString& v : o.varies) spec.axes.push_back(parseSweepAxis(v.toStdString()));
            spec.name = o.name.toStdString();
        }
        spec.resume = o.resume;
        spec.parallel = o.parallel;
        spec.threadsPerRun = std::max(1, o.threads / std::max(1, o.parallel));
        for (const auto& t : o.tags) spec.tags.push_back(t.toStdString());
        return spec;
    };
    ProgressBar bar(!o.quiet);
    auto line = [](const SweepProgress& p) {
        char buf[200];
        std::snprintf(buf, sizeof buf, " #%d: %s, acc %.2f%%, t=%.1f s, cost %.4f", p.repeat,
                      toString(p.summary.status), 100.0 * p.summary.finalTestAccuracy, p.summary.virtualTime,
                      p.summary.cost);
        return p.config + buf;
    };

    if (launchedByMpirun()) {
        SweepCallbacks cb;
        cb.progress = [&](const SweepProgress& p, int rank) {
            bar.update(p.done, p.total, "rank " + std::to_string(rank) + ": ", line(p));
        };
        cb.finished = [&] { bar.finish(); };
        cb.summary = [&](RunStore& store, std::int64_t id) { printSweepTable(store, id, o.target); };
        return runSweepMpi(o, makeSpec, cb);
    }

    SweepSpec spec;
    try {
        spec = makeSpec();
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
    if (!spec.file.empty() && !o.quiet) try {
            // A file with variants: the sweep varies its base scenario; say how to run them.
            if (const Scenario s = loadScenarioFile(spec.file, spec.base); hasVariants(s))
                std::cerr << "fogstudio-cli: note: " << spec.file
                          << " has variants; this sweep varies its base scenario (run FILE runs the variants)\n";
        } catch (const ScenarioError&) { // reported by the sweep itself
        }
    auto store = openStore(o);
    if (!store) return 1;
    if (store->readOnly()) {
        std::cerr << "fogstudio-cli: " << store->path() << ": the database is read-only for this program; "
                  << "the sweep was not started\n";
        return 1;
    }
    installInterruptHandler();
    try {
        const SweepResult r = runSweep(
            spec, *store, [&](const SweepProgress& p) { bar.update(p.done, p.total, "", line(p)); }, interruptFlag());
        bar.finish();
        printSweepTable(*store, r.sweepId, o.target);
        for (const auto& e : r.errors) std::cerr << "fogstudio-cli: " << e << "\n";
        // Count what the database holds, not what the engine reported.
        int ran = 0, notStored = 0;
        for (const auto id : r.runIds) {
            if (id == 0) continue; // not run (resumed, cancelled) or not even begun (among r.errors)
            ++ran;
            const auto run = store->run(id);
            if (!run || run->status == "running" || run->status == "interrupted" ||
                (run->status != "failed" && (!run->produced || *run->produced != store->storedRows(id)))) {
                ++notStored;
                std::cerr << "fogstudio-cli: run " << id << " of the sweep is missing or incomplete in "
                          << store->path() << "\n";
            }
        }
        std::cout << "sweep " << r.sweepId << ": " << ran - notStored << " runs stored in " << store->path();
        if (r.failed) std::cout << " (" << r.failed << " failed)";
        if (notStored) std::cout << " (" << notStored << " not stored completely)";
        if (r.skipped) std::cout << "; " << r.skipped << " were already stored";
        if (r.replaced) std::cout << "; " << r.replaced << " incomplete runs replaced";
        std::cout << "\nsee them with: fogstudio-cli runs list --sweep " << r.sweepId
                  << "\nexport them with: fogstudio-cli export summary --sweep " << r.sweepId << "\n";
        if (r.cancelled) {
            std::cout << "cancelled: resume with: fogstudio-cli sweep --resume " << r.sweepId << "\n";
            return 130;
        }
        return r.failed || notStored || !r.errors.empty() ? 1 : 0;
    } catch (const ScenarioError& e) {
        bar.finish();
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const StoreError& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return 1;
    }
}

} // namespace fog::cli
