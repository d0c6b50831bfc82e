#pragma once
// Goal seeking: successive halving over a scenario's parameters, with common random numbers
// and repeats. Every trial is a stored run of one sweep, so runs lists, comparisons and
// exports work on a search as on a sweep.
//
// Rung k of K gives each surviving configuration a budget of B / eta^(K-1-k) rounds or
// virtual seconds, ranks the configurations and keeps the best 1/eta. A trial (one repeat
// of a configuration; repeat r uses the same seed in every configuration) is ONE run that
// grows: promoted, it goes on from where it waited (core/seek/trials.h); dropped, it is
// stopped there and stored. The first rung runs one repeat of each configuration, later
// rungs all R: a search starts G + G'(R - 1) runs where the grid takes G R (G' the
// configurations promoted past the first rung). Ranking: configurations that meet every
// constraint in all their repeats come first, by their mean objective; the others follow by
// their mean constraint violation. A run that ended before its rung's budget (the target
// reached) keeps its results at higher rungs.

#include "core/analysis/analysis.h"
#include "core/seek/seek_spec.h"
#include "core/store/run_store.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fog {

struct SeekSpec {
    std::string file;
    std::vector<Override> base; ///< --set, applied to every trial
    SeekObjective objective;
    std::vector<SeekConstraint> constraints;
    std::vector<SeekParam> params;

    enum class Resource { Rounds, Time };
    Resource resource = Resource::Rounds;
    bool resourceGiven = false; ///< else: time when an accuracy deadline is given, else rounds
    double maxBudget = 0.0;     ///< 0: the accuracy deadline, else the scenario's stop rule
    double eta = 3.0;
    int rungs = 0;              ///< 0: as many as the trials allow (at most 4)
    int trials = 0;             ///< configurations to start with; 0: the grid if <= 81, else 27
    int repeats = 2;
    std::uint64_t seed = 1;     ///< for sampling configurations (the runs use the scenario's seed)
    bool bruteForce = false;    ///< every grid configuration at the full budget (validation)

    int parallel = 1;
    int threadsPerRun = 1;
    std::vector<std::string> tags;
    std::string name;
};

/// A configuration at the highest rung it reached.
struct SeekConfig {
    std::vector<Override> values;
    std::string label;          ///< e.g. "selection.k=4 sync.policy=fedavg"
    int rung = 0;
    double budget = 0.0;        ///< rounds or virtual seconds of that rung
    std::vector<TrialScore> scores;   ///< one per repeat
    std::vector<std::int64_t> runIds; ///< the stored run of each repeat
    MeanCi objective;           ///< over the repeats
    double violation = 0.0;     ///< mean
    bool feasible = false;      ///< every repeat meets the constraints
    double accuracy = kNaN, time = kNaN, cost = kNaN, energyJ = kNaN; ///< means
    bool settled = false;       ///< all runs ended before the budget: final at any budget
};

struct SeekResult {
    std::int64_t sweepId = 0;
    std::vector<SeekConfig> configs;  ///< every configuration tried
    std::vector<double> budgets;      ///< per rung
    std::vector<int> rungSizes;       ///< configurations per rung
    int best = -1;                    ///< index into configs; -1 when nothing was feasible
    int leader = -1;                  ///< best ranked even if infeasible
    std::vector<std::size_t> pareto;  ///< indices into configs: front over (time, cost, accuracy)
    int runs = 0;                     ///< engine runs started (each stored once, however far it went)
    int continued = 0;                ///< times a waiting run went on to a higher rung
    /// Work done, in full-budget runs: the rounds (or virtual seconds) all runs simulated,
    /// divided by the full budget.
    double fullRunEquivalents = 0.0;
    int fullBudgetRuns = 0;           ///< runs that took part in the last rung (full budget)
    int gridSize = 0;                 ///< configurations of the full grid (0: continuous)
    bool cancelled = false;
};

struct SeekProgress {
    int done = 0;   ///< trial steps done (a run waiting at its rung's budget, or ended)
    int total = 0;  ///< steps planned (an upper bound: a run that ended early takes no more)
    int rung = 0;
    int rungs = 1;
    std::string config;
    int repeat = 0;
    TrialScore score;
};

/// Resolves defaults against the scenario (budget, resource, rungs, trials), validates the
/// spec and every starting configuration. Throws ScenarioError listing every problem.
struct SeekPlan {
    SeekSpec spec;                               ///< with defaults filled in
    std::vector<std::vector<Override>> configs;  ///< the starting configurations
    std::vector<double> budgets;
    int gridSize = 0;
};
SeekPlan planSeek(const SeekSpec& spec);

/// Runs the search on threads of this process and stores every trial. `progress` is called
/// after each trial step, one call at a time. Throws ScenarioError on bad input before
/// anything runs.
SeekResult runSeek(const SeekSpec& spec, RunStore& store,
                   const std::function<void(const SeekProgress&)>& progress = {},
                   const std::atomic<bool>* cancel = nullptr);

class TrialRunner;
/// The same, with the trials run (and stored in `store`) by `runner`: MPI ranks.
SeekResult runSeek(const SeekSpec& spec, RunStore& store, TrialRunner& runner,
                   const std::function<void(const SeekProgress&)>& progress = {},
                   const std::atomic<bool>* cancel = nullptr);

/// Repeats run at rung k of `rungs`: one at the first rung of several, else spec.repeats.
int repeatsAtRung(const SeekSpec& spec, int rungs, int k);

/// True when configuration a ranks before b (see the header comment).
bool ranksBefore(const SeekConfig& a, const SeekConfig& b, const SeekObjective& objective);

/// The command line that reproduces a search (stored as the sweep's spec).
std::string seekCommandLine(const SeekSpec& spec);

} // namespace fog
