#pragma once
// Sweeps: one scenario run over the cartesian product of varied values, R repeats each,
// with common random numbers. Repeat r of every configuration uses the same seed, and every
// random stream is keyed by (seed, node id), so all configurations meet the same node
// availability and the same straggler draws: differences come from the policy, not luck.

#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"

#include <atomic>
#include <functional>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace fog {

struct SweepAxis {
    std::string path;                ///< e.g. sync.policy
    std::vector<std::string> values; ///< e.g. fully-sync, n-sync
};

/// Parses `key.path=v1,v2,...`. Throws ScenarioError on a malformed argument.
SweepAxis parseSweepAxis(const std::string& arg);

/// Every combination of the axes' values, as override lists (first axis varies slowest).
std::vector<std::vector<Override>> sweepConfigurations(const std::vector<SweepAxis>& axes);

/// The seed of repeat `r` (repeat 0 keeps the scenario's own seed).
std::uint64_t repeatSeed(std::uint64_t scenarioSeed, int repeat);

/// Most runs of a sweep at once (--parallel): each holds its model and data; the caps of
/// --repeat and --vary are the file format's (kMaxRepeats, kMaxVariantConfigurations).
inline constexpr int kMaxParallelRuns = 256;

struct SweepSpec {
    std::string file;
    std::vector<Override> base; ///< --set overrides applied to every run
    std::vector<SweepAxis> axes;
    /// Repeats of each configuration; with `variants`, 0 or less takes the file's `repeats:`.
    int repeats = 1;
    /// Run the file's variants and `vary:` grid (core/scenario/variants.h), crossed with
    /// `axes`; each run is labelled by its variant. False: the file's base scenario only.
    bool variants = false;
    std::string variant; ///< with `variants`: only this one
    int parallel = 1;       ///< runs at once
    int threadsPerRun = 1;  ///< worker threads of each run
    std::vector<std::string> tags;
    std::string name;       ///< default: the scenario's name
    std::int64_t resume = 0; ///< continue this stored sweep: run only what it is missing
};

/// One run of a sweep: a configuration and a repeat.
struct SweepItem {
    Scenario scenario;  ///< overrides applied, seed of the repeat
    std::string config; ///< e.g. "sync.policy=n-sync sync.n=3"
    int repeat = 0;
};

struct SweepPlan {
    std::vector<SweepItem> items; ///< configuration-major, repeats inner
    std::string specText;         ///< the sweep's stored spec (parseSweepSpecText reads it back)
    std::string name;
};

/// Validates every configuration (so a typo fails before hours of runs) and lists the runs.
/// Throws ScenarioError listing every problem.
SweepPlan planSweep(const SweepSpec& spec);

/// The stored spec text of a sweep back as a spec (for `sweep --resume S` without FILE).
/// Throws ScenarioError when the text is not one this program wrote.
SweepSpec parseSweepSpecText(const std::string& text);
/// The name and spec text of a stored sweep; nullopt when there is no such sweep.
std::optional<std::pair<std::string, std::string>> storedSweep(const RunStore& store, std::int64_t sweepId);

/// What a stored sweep already holds, for resuming it.
struct SweepState {
    std::vector<char> done;                ///< per plan item: a finished (or failed) run exists
    std::vector<std::int64_t> incomplete;  ///< runs cut short (interrupted, cancelled): re-run
    std::vector<std::string> foreign;      ///< configurations stored that the plan lacks
};
SweepState sweepState(const RunStore& store, std::int64_t sweepId, const SweepPlan& plan);

/// The stored metadata of one sweep run.
NewRun sweepRunMeta(const SweepSpec& spec, std::int64_t sweepId, const SweepItem& item);

struct SweepProgress {
    int done = 0;
    int total = 0;
    std::string config; ///< the run that just finished
    int repeat = 0;
    RunSummary summary;
};

/// The scenario as stored with a run (or sent to another MPI rank): its data paths made
/// absolute, so that a re-run finds the same files from any working directory.
std::string storedScenarioText(const Scenario& scenario);

struct SweepResult {
    std::int64_t sweepId = 0;
    std::vector<std::int64_t> runIds; ///< per plan item; 0 for items not run (resumed, cancelled, or not storable)
    int failed = 0;
    int skipped = 0;   ///< already stored (resume)
    int replaced = 0;  ///< incomplete runs deleted after their replacement finished
    bool cancelled = false;
    std::vector<std::string> errors; ///< store errors that kept runs from being stored
};

/// Validates every configuration first (so a typo fails before hours of runs), then runs
/// them all, storing each under one sweep id. `progress` is called after each run (from
/// the thread that ran it, one call at a time). Throws ScenarioError for bad input.
SweepResult runSweep(const SweepSpec& spec, RunStore& store,
                     const std::function<void(const SweepProgress&)>& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

/// Runs one scenario and stores it (the CLI's run and rerun, and each sweep run).
/// `cancel` may be set from a signal handler.
std::int64_t runAndStore(const Scenario& scenario, RunStore& store, NewRun meta, int threads,
                         RunObserver* extraObserver, RunSummary& summary,
                         const std::atomic<bool>* cancel = nullptr);

class Engine;
struct EngineOptions;
/// The same, for a front-end that controls the run while it goes (the studio): `options`
/// give threads, an extra observer, playback speed and cancel flag; `onEngine` is called on
/// this thread with the engine once it is built (before it runs) and with nullptr once it
/// is done; it is not called when the engine cannot be built (the run is stored failed).
std::int64_t runAndStore(const Scenario& scenario, RunStore& store, NewRun meta,
                         const EngineOptions& options, RunSummary& summary,
                         const std::function<void(Engine*, std::int64_t runId)>& onEngine);

} // namespace fog
