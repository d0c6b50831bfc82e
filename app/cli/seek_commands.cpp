// seek: goal seeking by successive halving (core/seek), with a progress bar and a report.

#include "app/cli/commands.h"
#include "app/cli/progress_bar.h"
#include "app/cli/sweep_mpi.h"
#include "core/seek/seek.h"
#include "core/store/run_store.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace fog::cli {

namespace {

std::string fmt(double v, int digits = 4) {
    if (std::isnan(v)) return "-";
    std::ostringstream s;
    s << std::setprecision(digits) << v;
    return s.str();
}

std::string withCi(const MeanCi& m) {
    if (std::isnan(m.mean)) return "-";
    return std::isnan(m.halfWidth) ? fmt(m.mean) : fmt(m.mean) + " +- " + fmt(m.halfWidth, 3);
}

std::string feasibleCount(const SeekConfig& c) {
    int n = 0;
    for (const auto& s : c.scores) n += s.feasible;
    return std::to_string(n) + "/" + std::to_string(c.scores.size());
}

QJsonValue num(double v) { return std::isnan(v) ? QJsonValue() : QJsonValue(v); }

QJsonObject configJson(const SeekConfig& c) {
    QJsonObject o;
    QJsonObject values;
    for (const auto& v : c.values) values[QString::fromStdString(v.path)] = QString::fromStdString(v.value);
    o["values"] = values;
    o["rung"] = c.rung;
    o["budget"] = c.budget;
    o["feasible"] = c.feasible;
    o["objective_mean"] = num(c.objective.mean);
    o["objective_ci95"] = num(c.objective.halfWidth);
    o["violation"] = c.violation;
    o["accuracy"] = num(c.accuracy);
    o["time_s"] = num(c.time);
    o["cost"] = num(c.cost);
    o["energy_j"] = num(c.energyJ);
    QJsonArray ids;
    for (auto id : c.runIds) ids.append(static_cast<double>(id));
    o["run_ids"] = ids;
    return o;
}

} // namespace

/// The search's report (text or JSON); returns the exit code.
int printSeek(const CliOptions& o, const SeekSpec& spec, const SeekResult& r, RunStore& storeRef);
/// Why the search's runs are not all kept in the store ("" when they are).
std::string unstoredRuns(RunStore& store, const SeekResult& r);

std::function<void(const SeekProgress&)> seekProgress(ProgressBar& bar, const SeekSpec& spec) {
    return [&bar, metric = spec.objective.metric](const SeekProgress& p) {
        std::ostringstream what;
        what << p.config << " #" << p.repeat << ": "
             << (p.score.feasible ? "meets constraints" : "violates constraints") << ", " << toString(metric) << " "
             << fmt(p.score.objective);
        bar.update(p.done, p.total, "rung " + std::to_string(p.rung + 1) + "/" + std::to_string(p.rungs) + " ",
                   what.str());
    };
}

int cmdSeek(const CliOptions& o) {
    if (o.args.size() != 1) {
        std::cerr << "fogstudio-cli: seek takes exactly one FILE\n";
        return 2;
    }
    // Throws ScenarioError naming the option; under mpirun only rank 0 calls it.
    auto makeSpec = [&o] {
        SeekSpec spec;
        spec.file = o.args[0].toStdString();
        spec.repeats = o.repeatGiven ? o.repeat : 2;
        spec.parallel = o.parallel;
        spec.threadsPerRun = std::max(1, o.threads / std::max(1, o.parallel));
        spec.name = o.name.toStdString();
        spec.eta = o.eta;
        spec.rungs = o.rungs;
        spec.trials = o.trials;
        spec.seed = o.seed;
        spec.maxBudget = o.maxBudget;
        spec.bruteForce = o.bruteForce;
        for (const auto& t : o.tags) spec.tags.push_back(t.toStdString());
        if (o.objective.isEmpty())
            throw ScenarioError({{"--objective", 0, 0, "", "is required, e.g. --objective min:cost or max:accuracy"}});
        spec.objective = parseObjective(o.objective.toStdString());
        for (const QString& c : o.constraints) spec.constraints.push_back(parseConstraint(c.toStdString()));
        for (const QString& p : o.params) spec.params.push_back(parseParam(p.toStdString()));
        for (const QString& s : o.sets) spec.base.push_back(parseOverride(s.toStdString()));
        if (!o.halving.isEmpty()) {
            spec.resourceGiven = true;
            if (o.halving == "rounds") spec.resource = SeekSpec::Resource::Rounds;
            else if (o.halving == "time") spec.resource = SeekSpec::Resource::Time;
            else throw ScenarioError({{"--halving", 0, 0, "", "is rounds or time, not '" + o.halving.toStdString() + "'"}});
        }
        planSeek(spec); // every problem before the store is touched
        return spec;
    };

    ProgressBar bar(!o.quiet);
    if (launchedByMpirun()) {
        SeekCallbacks cb;
        cb.progress = [&](const SeekProgress& p, const SeekSpec& spec) { seekProgress(bar, spec)(p); };
        cb.finished = [&] { bar.finish(); };
        cb.report = [&](const SeekSpec& spec, const SeekResult& r, RunStore& store) {
            if (const std::string why = unstoredRuns(store, r); !why.empty()) {
                std::cerr << "fogstudio-cli: seek: " << why << "\n";
                return 1;
            }
            return printSeek(o, spec, r, store);
        };
        return runSeekMpi(o, makeSpec, cb);
    }

    SeekSpec spec;
    try {
        spec = makeSpec();
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return 2;
    }
    auto store = openStore(o);
    if (!store) return 1;
    installInterruptHandler();
    SeekResult r;
    try {
        r = runSeek(spec, *store, seekProgress(bar, spec), interruptFlag());
    } catch (const ScenarioError& e) {
        bar.finish();
        std::cerr << e.what() << "\n";
        return 2;
    } catch (const StoreError& e) {
        // A read-only database, a full disk: the search cannot keep its runs.
        bar.finish();
        std::cerr << "fogstudio-cli: seek: " << e.what() << "\n";
        return 1;
    }
    bar.finish();
    if (const std::string why = unstoredRuns(*store, r); !why.empty()) {
        std::cerr << "fogstudio-cli: seek: " << why << "\n";
        return 1;
    }
    return printSeek(o, spec, r, *store);
}

std::string unstoredRuns(RunStore& store, const SeekResult& r) {
    // The ranking is only as good as the runs behind it: a run the store could not keep
    // (a full disk: "failed, incomplete", or still "running") makes the search's answer one
    // nobody can look at again, so no best configuration is named.
    int bad = 0;
    std::string first;
    try {
        for (const auto& c : r.configs)
            for (const auto id : c.runIds) {
                const auto run = store.run(id);
                const bool incomplete =
                    !run || run->status == "running" ||
                    (run->status == "failed" && run->summary.stopReason.rfind("incomplete", 0) == 0);
                if (!incomplete) continue;
                if (bad++ == 0)
                    first = "run " + std::to_string(id) + (run ? " is " + run->status + ": " + run->summary.stopReason
                                                               : std::string(" is missing"));
            }
    } catch (const StoreError& e) {
        return std::string("cannot read the search's runs back: ") + e.what();
    }
    if (bad == 0) return {};
    return std::to_string(bad) + " of the search's runs were not stored completely (" + first +
           "); no best configuration is named from runs that were not kept: free space (or fix the database) and "
           "run the search again";
}

int printSeek(const CliOptions& o, const SeekSpec& spec, const SeekResult& r, RunStore& storeRef) {
    RunStore* store = &storeRef;
    const SeekPlan plan = planSeek(spec); // the resolved defaults, for the report
    const SeekSpec& used = plan.spec;
    const int bruteRuns = r.gridSize > 0 ? r.gridSize * used.repeats : 0;

    if (o.json) {
        QJsonObject j;
        j["sweep_id"] = static_cast<double>(r.sweepId);
        j["objective"] = QString::fromStdString(describe(used.objective));
        QJsonArray cons;
        for (const auto& c : used.constraints) cons.append(QString::fromStdString(describe(c)));
        j["constraints"] = cons;
        QJsonArray budgets;
        for (double b : r.budgets) budgets.append(b);
        j["rung_budgets"] = budgets;
        j["resource"] = used.resource == SeekSpec::Resource::Rounds ? "rounds" : "time";
        j["runs"] = r.runs;
        j["continued"] = r.continued;
        j["full_budget_runs"] = r.fullBudgetRuns;
        j["full_run_equivalents"] = r.fullRunEquivalents;
        j["grid_size"] = r.gridSize;
        j["brute_force_runs"] = bruteRuns;
        j["cancelled"] = r.cancelled;
        j["best"] = r.best >= 0 ? QJsonValue(configJson(r.configs[static_cast<std::size_t>(r.best)])) : QJsonValue();
        QJsonArray all, front;
        for (const auto& c : r.configs) all.append(configJson(c));
        for (auto i : r.pareto) front.append(static_cast<int>(i));
        j["configs"] = all;
        j["pareto"] = front;
        std::cout << QJsonDocument(j).toJson().toStdString();
        return r.cancelled ? 130 : (r.best >= 0 ? 0 : 3);
    }

    const char* unit = used.resource == SeekSpec::Resource::Rounds ? " rounds" : " s";
    std::cout << "Search " << describe(used.objective);
    for (const auto& c : used.constraints) std::cout << "  subject to " << describe(c);
    std::cout << "\n  " << used.trials << " configurations, " << used.repeats
              << " repeats each (common random numbers"
              << (r.budgets.size() > 1 ? "; one at the first rung" : "") << "), successive halving with eta " << fmt(used.eta) << " over "
              << r.budgets.size() << " rung(s):";
    for (std::size_t k = 0; k < r.budgets.size(); ++k)
        std::cout << (k ? "," : "") << " " << (k < r.rungSizes.size() ? r.rungSizes[k] : 0) << " at "
                  << fmt(r.budgets[k]) << unit;
    std::cout << "\n\n";

    // The configurations of the last rung, ranked, then the rest by rung.
    std::vector<std::size_t> order(r.configs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const auto &x = r.configs[a], &y = r.configs[b];
        if (x.rung != y.rung) return x.rung > y.rung;
        return ranksBefore(x, y, used.objective);
    });
    std::cout << std::left << std::setw(6) << "rank" << std::setw(8) << "rung" << std::setw(10) << "feasible"
              << std::setw(24) << (std::string(toString(used.objective.metric)) + " (95% CI)") << std::setw(10)
              << "accuracy" << std::setw(10) << "time s" << std::setw(10) << "cost" << "configuration\n";
    const std::size_t shown = std::min<std::size_t>(order.size(), 15);
    for (std::size_t i = 0; i < shown; ++i) {
        const auto& c = r.configs[order[i]];
        std::cout << std::left << std::setw(6) << (i + 1) << std::setw(8) << (c.rung + 1) << std::setw(10)
                  << feasibleCount(c) << std::setw(24) << withCi(c.objective) << std::setw(10) << fmt(c.accuracy)
                  << std::setw(10) << fmt(c.time) << std::setw(10) << fmt(c.cost) << c.label
                  << (c.settled ? " (settled)" : "") << "\n";
    }
    if (order.size() > shown) std::cout << "  ... " << order.size() - shown << " more: fogstudio-cli seek ... --json\n";

    std::cout << "\n";
    if (r.cancelled) std::cout << "Search cancelled: the ranking above covers what ran.\n";
    if (r.best >= 0) {
        const auto& b = r.configs[static_cast<std::size_t>(r.best)];
        std::cout << "Best: " << b.label << "\n  " << toString(used.objective.metric) << " " << fmt(b.objective.mean);
        if (!std::isnan(b.objective.halfWidth))
            std::cout << ", 95% CI [" << fmt(b.objective.mean - b.objective.halfWidth) << ", "
                      << fmt(b.objective.mean + b.objective.halfWidth) << "] over " << b.objective.n << " repeats";
        std::cout << "; meets the constraints in " << feasibleCount(b) << " repeats\n  runs:";
        for (auto id : b.runIds) std::cout << " " << id;
        std::cout << "\n";
    } else if (r.leader >= 0) {
        const auto& b = r.configs[static_cast<std::size_t>(r.leader)];
        std::cout << "No configuration met the constraints in every repeat. Closest: " << b.label
                  << " (mean violation " << fmt(b.violation, 3) << ", " << feasibleCount(b) << " repeats feasible)\n";
    }
    std::cout << "Pareto front over (time, cost, accuracy) of the configurations tried:\n";
    for (auto i : r.pareto) {
        const auto& c = r.configs[i];
        std::cout << "  time " << fmt(c.time) << " s, cost " << fmt(c.cost) << ", accuracy " << fmt(c.accuracy)
                  << "  " << c.label << " @" << fmt(c.budget) << unit << "\n";
    }
    std::cout << "\n" << r.runs << " runs";
    if (r.continued) std::cout << " (promoted runs went on from where they waited " << r.continued << " times)";
    std::cout << ", " << r.fullBudgetRuns << " in the last rung; work: " << fmt(r.fullRunEquivalents, 3)
              << " full-budget runs (" << (used.resource == SeekSpec::Resource::Rounds ? "rounds" : "virtual time")
              << " simulated / " << fmt(used.maxBudget) << unit << ")";
    if (bruteRuns > 0 && !used.bruteForce)
        std::cout << "\nthe whole grid at the full budget: " << bruteRuns << " runs (ratio of runs "
                  << fmt(static_cast<double>(r.runs) / bruteRuns, 3) << ", of work at least "
                  << fmt(r.fullRunEquivalents / bruteRuns, 3) << "; --brute-force measures it)";
    std::cout << "\nsweep " << r.sweepId << " in " << store->path() << "\nsee them with: fogstudio-cli runs list --sweep "
              << r.sweepId << "\nplot them with: fogstudio-cli export plots --sweep " << r.sweepId << " --out DIR\n";
    if (r.cancelled) return 130;
    return r.best >= 0 ? 0 : 3;
}

} // namespace fog::cli
