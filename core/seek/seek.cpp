#include "core/seek/seek.h"
#include "core/scenario/variants.h"
#include "core/util/portable_math.h"

#include "core/seek/trials.h"
#include "core/sweep/sweep.h"
#include "core/scenario/events_io.h"
#include "core/util/random.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace fog {

namespace {

std::string label(const std::vector<Override>& values) {
    std::string s;
    for (const auto& o : values) s += (s.empty() ? "" : " ") + o.path + "=" + o.value;
    return s.empty() ? "(base)" : s;
}

std::string number(double v) {
    std::ostringstream s;
    s << std::setprecision(6) << v;
    return s.str();
}

std::string budgetText(SeekSpec::Resource r, double b) {
    return r == SeekSpec::Resource::Rounds ? number(b) + " rounds" : number(b) + " s";
}

/// Limits the scenario's stop rules to what the search needs: the rung's budget, and no
/// further than the constraints can still change the answer.
void applyStops(Scenario& s, const SeekSpec& spec, double budget) {
    if (spec.resource == SeekSpec::Resource::Rounds) {
        s.stop.rounds = static_cast<int>(budget);
    } else {
        s.stop.virtualTimeS = s.stop.virtualTimeS > 0 ? std::min(s.stop.virtualTimeS, budget) : budget;
    }
    for (const auto& c : spec.constraints) {
        if (c.metric == SeekMetric::Accuracy) {
            if (c.deadline > 0)
                s.stop.virtualTimeS = s.stop.virtualTimeS > 0 ? std::min(s.stop.virtualTimeS, c.deadline) : c.deadline;
            // Minimising cost, time, energy or bytes: nothing after the target counts.
            if (!spec.objective.maximise) s.stop.targetAccuracy = std::max(s.stop.targetAccuracy, c.value);
        } else if (c.metric == SeekMetric::Cost) {
            s.stop.budget = s.stop.budget > 0 ? std::min(s.stop.budget, c.value) : c.value;
        } else if (c.metric == SeekMetric::Time) {
            s.stop.virtualTimeS = s.stop.virtualTimeS > 0 ? std::min(s.stop.virtualTimeS, c.value) : c.value;
        }
    }
}

/// Keeps the level-0 aggregations of a run for scoring.
struct Level0 : RunObserver {
    std::vector<AggregationRecord> records;
    void onAggregation(const AggregationRecord& r) override {
        if (r.level == 0) records.push_back(r);
    }
};

void summarise(SeekConfig& c) {
    std::vector<double> obj, acc, time, cost, energy;
    double violation = 0.0;
    bool feasible = !c.scores.empty();
    for (const auto& s : c.scores) {
        obj.push_back(s.objective);
        acc.push_back(s.accuracy);
        time.push_back(s.time);
        cost.push_back(s.cost);
        energy.push_back(s.energyJ);
        violation += s.violation;
        feasible = feasible && s.feasible;
    }
    c.objective = meanWithCi(obj);
    c.violation = c.scores.empty() ? 0.0 : violation / static_cast<double>(c.scores.size());
    c.feasible = feasible;
    c.accuracy = meanWithCi(acc).mean;
    c.time = meanWithCi(time).mean;
    c.cost = meanWithCi(cost).mean;
    c.energyJ = meanWithCi(energy).mean;
}

} // namespace

int repeatsAtRung(const SeekSpec& spec, int rungs, int k) {
    return rungs > 1 && k == 0 ? 1 : spec.repeats;
}

bool ranksBefore(const SeekConfig& a, const SeekConfig& b, const SeekObjective& objective) {
    if (a.feasible != b.feasible) return a.feasible;
    if (!a.feasible && a.violation != b.violation) return a.violation < b.violation;
    const double x = a.objective.mean, y = b.objective.mean;
    if (std::isnan(x) != std::isnan(y)) return !std::isnan(x);
    if (!std::isnan(x) && x != y) return objective.maximise ? x > y : x < y;
    return false;
}

std::string seekCommandLine(const SeekSpec& spec) {
    std::ostringstream s;
    auto quoted = [](const std::string& v) {
        if (v.find_first_of(" '\"{}[],*?|&;<>()$`\\") == std::string::npos) return v;
        std::string q = "'";
        for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return q + "'";
    };
    s << "fogstudio-cli seek " << quoted(spec.file);
    for (const auto& o : spec.base) s << " --set " << quoted(o.path + "=" + o.value);
    s << " --objective " << describe(spec.objective);
    for (const auto& c : spec.constraints) s << " --constraint " << quoted(describe(c));
    for (const auto& p : spec.params) s << " --param " << quoted(describe(p));
    s << " --halving " << (spec.resource == SeekSpec::Resource::Rounds ? "rounds" : "time");
    if (spec.maxBudget > 0) s << " --max-budget " << number(spec.maxBudget);
    s << " --eta " << number(spec.eta) << " --rungs " << spec.rungs << " --trials " << spec.trials
      << " --repeat " << spec.repeats << " --seed " << spec.seed;
    if (spec.bruteForce) s << " --brute-force";
    return s.str();
}

SeekPlan planSeek(const SeekSpec& in) {
    SeekPlan plan;
    plan.spec = in;
    SeekSpec& spec = plan.spec;
    std::vector<Diagnostic> problems;
    auto problem = [&](const std::string& option, const std::string& what) {
        problems.push_back({option, 0, 0, "", what});
    };
    if (spec.params.empty()) problem("--param", "a search needs at least one --param to vary");
    {
        std::set<std::string> seen;
        for (const auto& p : spec.params)
            if (!seen.insert(p.path).second) problem("--param", p.path + " is given twice");
    }
    if (spec.eta < 2) problem("--eta", "must be at least 2 (the fraction 1/eta of configurations kept per rung)");
    if (spec.repeats < 1) problem("--repeat", "must be at least 1");
    // The caps of the file format (core/scenario/variants.h).
    if (spec.repeats > kMaxRepeats)
        problem("--repeat", "must be <= " + std::to_string(kMaxRepeats) + " (the cap of repeats: in a scenario file), got " +
                                std::to_string(spec.repeats));
    if (spec.trials > kMaxVariantConfigurations)
        problem("--trials", "must be <= " + std::to_string(kMaxVariantConfigurations) +
                                " (the cap of a scenario file's configurations), got " + std::to_string(spec.trials));
    int accuracyConstraints = 0;
    for (const auto& c : spec.constraints) accuracyConstraints += c.metric == SeekMetric::Accuracy;
    if (accuracyConstraints > 1) problem("--constraint", "give at most one accuracy constraint");

    const Scenario base = loadScenarioFile(spec.file, spec.base);

    // The resource halved and its full budget.
    double deadline = 0.0;
    for (const auto& c : spec.constraints)
        if (c.metric == SeekMetric::Accuracy && c.deadline > 0) deadline = c.deadline;
    if (!spec.resourceGiven) spec.resource = deadline > 0 ? SeekSpec::Resource::Time : SeekSpec::Resource::Rounds;
    if (spec.maxBudget <= 0) {
        if (spec.resource == SeekSpec::Resource::Time) {
            spec.maxBudget = deadline > 0 ? deadline : base.stop.virtualTimeS;
            if (spec.maxBudget <= 0)
                problem("--max-budget", "halving on virtual time needs a budget: give --max-budget SECONDS, an "
                                        "accuracy deadline (accuracy>=A@T) or stop.virtual_time_s in " + spec.file);
        } else {
            spec.maxBudget = base.stop.rounds;
            if (spec.maxBudget <= 0)
                problem("--max-budget", "halving on rounds needs a budget: give --max-budget ROUNDS or stop.rounds in " +
                                            spec.file);
        }
    }
    if (spec.resource == SeekSpec::Resource::Rounds && spec.maxBudget != std::floor(spec.maxBudget))
        problem("--max-budget", "rounds must be a whole number");

    // The grid, when every parameter is discrete.
    double grid = 1.0;
    bool discrete = true;
    for (const auto& p : spec.params) {
        if (p.levels() == 0) discrete = false;
        else grid *= static_cast<double>(p.levels());
    }
    plan.gridSize = discrete && grid < 1e9 ? static_cast<int>(grid) : 0;
    if (spec.bruteForce) {
        if (!discrete) problem("--brute-force", "needs int and choice parameters only (a grid to run whole)");
        else if (grid > 10000) problem("--brute-force", "the grid has " + number(grid) + " configurations; at most 10000");
        spec.trials = plan.gridSize;
        spec.rungs = 1;
    }
    if (!problems.empty()) throw ScenarioError(problems);

    if (spec.trials <= 0) spec.trials = discrete && grid <= 81 ? plan.gridSize : 27;
    if (discrete && spec.trials > grid) spec.trials = plan.gridSize;

    // Starting configurations: the whole grid when it fits, else a seeded sample.
    auto valuesAt = [&](std::size_t index) {
        std::vector<Override> v;
        for (auto it = spec.params.rbegin(); it != spec.params.rend(); ++it) {
            const std::size_t n = it->levels();
            v.push_back({it->path, it->level(index % n)});
            index /= n;
        }
        std::reverse(v.begin(), v.end());
        return v;
    };
    if (discrete && spec.trials == plan.gridSize) {
        for (int i = 0; i < plan.gridSize; ++i) plan.configs.push_back(valuesAt(static_cast<std::size_t>(i)));
    } else {
        Rng rng(deriveSeed(spec.seed, hashName("seek-sample")));
        std::set<std::string> seen;
        for (int attempt = 0; static_cast<int>(plan.configs.size()) < spec.trials && attempt < spec.trials * 50; ++attempt) {
            std::vector<Override> v;
            for (const auto& p : spec.params) {
                std::string value;
                switch (p.kind) {
                case SeekParam::Kind::Real: value = number(rng.uniform(p.lo, p.hi)); break;
                case SeekParam::Kind::LogReal:
                    value = number(pmath::exp(rng.uniform(pmath::log(p.lo), pmath::log(p.hi))));
                    break;
                default: value = p.level(static_cast<std::size_t>(rng.below(p.levels()))); break;
                }
                v.push_back({p.path, value});
            }
            if (seen.insert(label(v)).second) plan.configs.push_back(std::move(v));
        }
        spec.trials = static_cast<int>(plan.configs.size());
    }

    // Rungs: as many as keep at least one configuration, at most 4, and a first budget of
    // at least one round.
    if (spec.rungs <= 0) {
        int k = 1;
        double n = spec.trials;
        while (k < 4 && n / spec.eta >= 1.0 &&
               (spec.resource == SeekSpec::Resource::Time || spec.maxBudget / pmath::pow(spec.eta, k) >= 1.0)) {
            n /= spec.eta;
            ++k;
        }
        spec.rungs = k;
    }
    for (int k = 0; k < spec.rungs; ++k) {
        double b = spec.maxBudget / pmath::pow(spec.eta, spec.rungs - 1 - k);
        if (spec.resource == SeekSpec::Resource::Rounds) {
            // A rung ends on an evaluation round, so its ranking sees the accuracy there.
            const double every = std::max(1, base.evaluation.everyRounds);
            b = std::min(spec.maxBudget, std::max(every, std::ceil(b / every) * every));
        }
        plan.budgets.push_back(b);
    }

    // Validate every starting configuration before anything runs.
    for (const auto& config : plan.configs) {
        std::vector<Override> all = spec.base;
        all.insert(all.end(), config.begin(), config.end());
        try {
            loadScenarioFile(spec.file, all);
        } catch (const ScenarioError& e) {
            for (auto d : e.diagnostics) {
                d.message += " (configuration " + label(config) + ")";
                problems.push_back(d);
            }
        }
        if (problems.size() > 20) break;
    }
    if (!problems.empty()) throw ScenarioError(problems);
    return plan;
}

SeekResult runSeek(const SeekSpec& input, RunStore& store, const std::function<void(const SeekProgress&)>& progress,
                   const std::atomic<bool>* cancel) {
    SeekResult result;
    {
        LocalTrials local(store, input.parallel, input.threadsPerRun, cancel);
        result = runSeek(input, store, local, progress, cancel);
    } // every run's thread joined, every row written
    return result;
}

SeekResult runSeek(const SeekSpec& input, RunStore& store, TrialRunner& runner,
                   const std::function<void(const SeekProgress&)>& progress, const std::atomic<bool>* cancel) {
    const SeekPlan plan = planSeek(input);
    const SeekSpec& spec = plan.spec;
    SeekResult result;
    result.budgets = plan.budgets;
    result.gridSize = plan.gridSize;

    std::string name = spec.name;
    if (name.empty()) name = "seek " + describe(spec.objective) + ": " + loadScenarioFile(spec.file, spec.base).name;
    result.sweepId = store.createSweep(name, seekCommandLine(spec));

    std::vector<SeekConfig> configs;
    for (const auto& v : plan.configs) {
        SeekConfig c;
        c.values = v;
        c.label = label(v);
        configs.push_back(std::move(c));
    }
    std::vector<std::size_t> alive(configs.size());
    for (std::size_t i = 0; i < alive.size(); ++i) alive[i] = i;

    const int rungs = static_cast<int>(plan.budgets.size());
    const int repeats = spec.repeats;
    const bool rounds = spec.resource == SeekSpec::Resource::Rounds;
    int planned = 0;
    {
        double n = static_cast<double>(configs.size());
        for (int k = 0; k < rungs; ++k) {
            planned += static_cast<int>(n) * repeatsAtRung(spec, rungs, k);
            n = std::max(1.0, std::ceil(n / spec.eta));
        }
    }

    // Trial t = configuration * repeats + repeat: one run each, grown rung by rung.
    struct Trial {
        bool started = false, ended = false;
        std::vector<AggregationRecord> level0;
        RunSummary summary;
        std::int64_t runId = 0;
    };
    std::vector<Trial> trials(configs.size() * static_cast<std::size_t>(repeats));
    auto trialOf = [&](std::size_t config, int r) { return static_cast<int>(config) * repeats + r; };
    auto scoreAt = [&](const Trial& t, double budget) {
        std::vector<AggregationRecord> upTo;
        for (const auto& a : t.level0)
            if (rounds ? a.round <= budget : a.time <= budget) upTo.push_back(a);
        return scoreTrial(upTo, t.summary, spec.objective, spec.constraints);
    };
    auto take = [&](const TrialReport& rep) {
        Trial& t = trials[static_cast<std::size_t>(rep.trial)];
        t.level0 = rep.level0;
        t.summary = rep.summary;
        t.ended = rep.ended;
        if (rep.runId) t.runId = rep.runId;
        if (rep.summary.status == RunStatus::Cancelled) result.cancelled = true;
    };
    auto waiting = [&](const std::vector<std::size_t>& which) {
        std::vector<int> out;
        for (std::size_t idx : which)
            for (int r = 0; r < repeats; ++r) {
                const Trial& t = trials[static_cast<std::size_t>(trialOf(idx, r))];
                if (t.started && !t.ended) out.push_back(trialOf(idx, r));
            }
        return out;
    };
    int done = 0;

    for (int k = 0; k < rungs && !result.cancelled; ++k) {
        const double budget = plan.budgets[static_cast<std::size_t>(k)];
        const int need = repeatsAtRung(spec, rungs, k);
        const bool last = k + 1 == rungs;
        TrialBudget until;
        if (!last) until = {rounds ? TrialBudget::Kind::Rounds : TrialBudget::Kind::Time, budget};
        const std::string at = " @" + budgetText(spec.resource, budget);
        result.rungSizes.push_back(static_cast<int>(alive.size()));

        std::vector<TrialTask> tasks;
        for (std::size_t idx : alive) {
            SeekConfig& c = configs[idx];
            c.rung = k;
            c.budget = budget;
            for (int r = 0; r < need; ++r) {
                Trial& t = trials[static_cast<std::size_t>(trialOf(idx, r))];
                if (last) ++result.fullBudgetRuns;
                if (t.ended) continue; // ended before this budget: its results stand at any budget
                TrialTask task;
                task.trial = trialOf(idx, r);
                task.budget = until;
                if (!t.started) {
                    std::vector<Override> all = spec.base;
                    all.insert(all.end(), c.values.begin(), c.values.end());
                    task.start = true;
                    task.scenario = loadScenarioFile(spec.file, all);
                    task.scenario.seed = repeatSeed(task.scenario.seed, r);
                    applyStops(task.scenario, spec, spec.maxBudget);
                    task.meta.name = task.scenario.name + " [" + c.label + "] #" + std::to_string(r);
                    task.meta.tags = spec.tags;
                    task.meta.tags.push_back("seek");
                    task.meta.sweepId = result.sweepId;
                    task.meta.repeat = r;
                    task.meta.sweepConfig = c.label;
                    t.started = true;
                    ++result.runs;
                } else {
                    ++result.continued;
                }
                tasks.push_back(std::move(task));
            }
        }
        runner.run(tasks, [&](const TrialReport& rep) {
            take(rep);
            ++done;
            if (progress) {
                const auto config = static_cast<std::size_t>(rep.trial / repeats);
                progress({done, planned, k, rungs, configs[config].label + at, rep.trial % repeats,
                          scoreAt(trials[static_cast<std::size_t>(rep.trial)], budget)});
            }
        });
        if (cancel && cancel->load()) result.cancelled = true;
        if (result.cancelled) break;

        for (std::size_t idx : alive) {
            SeekConfig& c = configs[idx];
            c.scores.assign(static_cast<std::size_t>(need), TrialScore{});
            c.settled = true;
            for (int r = 0; r < need; ++r) {
                const Trial& t = trials[static_cast<std::size_t>(trialOf(idx, r))];
                c.scores[static_cast<std::size_t>(r)] = scoreAt(t, budget);
                // Settled: the run ended before this budget (the target reached, nothing left).
                c.settled = c.settled && t.ended &&
                            (rounds ? t.summary.rounds < budget : t.summary.virtualTime < budget * (1 - 1e-9));
            }
            summarise(c);
        }
        std::stable_sort(alive.begin(), alive.end(), [&](std::size_t a, std::size_t b) {
            return ranksBefore(configs[a], configs[b], spec.objective);
        });
        if (!last) {
            const auto keep = std::min(alive.size(), static_cast<std::size_t>(std::max(1.0, std::ceil(alive.size() / spec.eta))));
            const std::vector<std::size_t> dropped(alive.begin() + static_cast<std::ptrdiff_t>(keep), alive.end());
            alive.resize(keep);
            // The rest stop where they stand: stored, finished, with the reason.
            runner.stop(waiting(dropped),
                        "stopped by the search at " + budgetText(spec.resource, budget) +
                            " (successive halving: not in the best 1/" +
                            number(spec.eta) + " of rung " + std::to_string(k + 1) + " of " + std::to_string(rungs) +
                            ")",
                        take);
        }
    }
    // Cancelled: what still waits ends now (cancelled, with the search).
    {
        std::vector<std::size_t> everyone(configs.size());
        for (std::size_t i = 0; i < everyone.size(); ++i) everyone[i] = i;
        runner.stop(waiting(everyone), "search cancelled", take);
    }
    for (std::size_t idx = 0; idx < configs.size(); ++idx) {
        SeekConfig& c = configs[idx];
        c.runIds.assign(c.scores.size(), 0);
        for (std::size_t r = 0; r < c.scores.size(); ++r)
            c.runIds[r] = trials[static_cast<std::size_t>(trialOf(idx, static_cast<int>(r)))].runId;
    }
    for (const Trial& t : trials)
        if (t.started)
            result.fullRunEquivalents += (rounds ? t.summary.rounds : t.summary.virtualTime) / spec.maxBudget;

    result.configs = std::move(configs);
    // The winner: the best ranked configuration of the highest rung that ran.
    int top = -1;
    for (std::size_t i = 0; i < result.configs.size(); ++i) {
        const auto& c = result.configs[i];
        if (c.scores.empty()) continue;
        if (top < 0) {
            top = static_cast<int>(i);
            continue;
        }
        const auto& t = result.configs[static_cast<std::size_t>(top)];
        if (c.rung > t.rung || (c.rung == t.rung && ranksBefore(c, t, spec.objective))) top = static_cast<int>(i);
    }
    result.leader = top;
    if (top >= 0 && result.configs[static_cast<std::size_t>(top)].feasible) result.best = top;

    std::vector<TradeOffPoint> points;
    std::vector<std::size_t> index;
    for (std::size_t i = 0; i < result.configs.size(); ++i) {
        const auto& c = result.configs[i];
        if (c.scores.empty() || std::isnan(c.time) || std::isnan(c.cost)) continue;
        points.push_back({c.time, c.cost, std::isnan(c.accuracy) ? 0.0 : c.accuracy});
        index.push_back(i);
    }
    for (std::size_t p : paretoFront(points)) result.pareto.push_back(index[p]);
    return result;
}

} // namespace fog
