#pragma once
// The commands of fogstudio-cli, one function each, over the options main() parsed.

#include <QString>
#include <QStringList>

#include "core/engine/condition.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace fog {
class RunStore;
struct NewRun;
struct EngineOptions;
struct RunSummary;
struct Scenario;
}

namespace fog::cli {

struct CliOptions {
    QStringList args;     ///< positional arguments after the command
    QStringList sets;     ///< --set KEY=VALUE
    QStringList varies;   ///< --vary KEY=V1,V2
    QStringList tags;     ///< --tag
    int threads = 1;
    bool threadsGiven = false;
    bool json = false;
    bool quiet = false;
    bool noStore = false;
    QString db;           ///< --db, else the default store
    QString name;         ///< --name
    QString out;          ///< --out
    QString format;       ///< --format
    QString until;        ///< run --until CONDITION (core/engine/condition.h)
    QString variant;      ///< run --variant NAME: one variant of the file
    QStringList events;   ///< run --event 'at 600: link edge-1.up=2' (core/scenario/events_io.h)
    double snapshotEvery = 0.0; ///< run, fork --snapshot-every SECONDS (0: no snapshots)
    double at = -1.0;           ///< fork --at SECONDS (-1: not given)
    int repeat = 1;
    int parallel = 1;
    int limit = 0;
    int sweep = 0;
    double target = 0.8;
    QString tradeOff;        ///< export plots --tradeoff end|target ("" : chosen from the runs)
    QString repeats;         ///< export plots --repeats mean|each ("" : mean)
    bool repeatGiven = false;
    int resume = 0;          ///< sweep --resume SWEEP
    // seek (app/cli/seek_commands.cpp)
    QString objective;       ///< --objective min:cost
    QStringList constraints; ///< --constraint accuracy>=0.8@600
    QStringList params;      ///< --param selection.k=int:2..20
    QString halving;         ///< --halving rounds|time
    double maxBudget = 0.0;  ///< --max-budget
    double eta = 3.0;        ///< --eta
    int rungs = 0;           ///< --rungs
    int trials = 0;          ///< --trials
    quint64 seed = 1;        ///< --seed
    bool bruteForce = false; ///< --brute-force
};

int cmdRun(const CliOptions& o);
int cmdRuns(const CliOptions& o);   ///< runs list|show|delete|tag|notes|rerun
int cmdSweep(const CliOptions& o);
int cmdSeek(const CliOptions& o);
/// bench mpi: a 16-trial timing-only sweep at 1 and 2 MPI ranks (needs mpirun).
int cmdBenchMpi(const CliOptions& o);
int cmdExport(const CliOptions& o); ///< export metrics|summary
int cmdDb(const CliOptions& o);     ///< db check [FILE]
int rerun(const CliOptions& o, std::int64_t id);
int cmdCalibrate(const CliOptions& o, bool quick); ///< calibrate MODEL [SHAPE] (app/cli/calibrate_command.cpp)
int cmdFork(const CliOptions& o);   ///< fork RUN --at S (app/cli/fork_command.cpp)
/// `runs show`: a fork's parent and instant, and the run's snapshots (fork_command.cpp).
void showForkAndSnapshots(const RunStore& store, std::int64_t id);

/// Runs and stores in place of runAndStore (core/sweep/sweep.h); returns the run id.
using StoredRunner = std::function<std::int64_t(RunStore&, const NewRun&, const EngineOptions&, RunSummary&)>;
/// `run`'s engine, store, read-back and printing (run_commands.cpp), for run, rerun and fork.
int runScenario(const Scenario& scenario, const CliOptions& o, NewRun meta, const std::string& label,
                const std::optional<Condition>& until = std::nullopt, const StoredRunner& runner = {});

/// The store the options name, or the default one; prints the error and returns null.
std::unique_ptr<RunStore> openStore(const CliOptions& o);
/// For Ctrl-C: the flag the running engine watches.
void installInterruptHandler();
const std::atomic<bool>* interruptFlag();

} // namespace fog::cli
