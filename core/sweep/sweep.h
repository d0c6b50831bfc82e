#pragma once
// Sweeps: one scenario run over the cartesian product of varied values, R repeats each,
// with common random numbers. Repeat r of every configuration uses the same seed, and every
// random stream is keyed by (seed, node id), so all configurations meet the same node
// availability and the same straggler draws: differences come from the policy, not luck.

#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"

#include <atomic>
#include <functional>
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

struct SweepSpec {
    std::string file;
    std::vector<Override> base; ///< --set overrides applied to every run
    std::vector<SweepAxis> axes;
    int repeats = 1;
    int parallel = 1;       ///< runs at once
    int threadsPerRun = 1;  ///< worker threads of each run
    std::vector<std::string> tags;
    std::string name;       ///< default: the scenario's name
};

struct SweepProgress {
    int done = 0;
    int total = 0;
    std::string config; ///< the run that just finished
    int repeat = 0;
    RunSummary summary;
};

struct SweepResult {
    std::int64_t sweepId = 0;
    std::vector<std::int64_t> runIds; ///< 0 where the run could not even be stored
    int failed = 0;
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
