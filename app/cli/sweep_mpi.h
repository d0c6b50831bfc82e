#pragma once
// The sweep and seek commands' MPI path (app/cli/sweep_mpi.cpp): built with MPI when CMake
// finds it.

#include "app/cli/commands.h"
#include "core/store/run_store.h"
#include "core/seek/seek.h"
#include "core/sweep/sweep.h"

#include <functional>

namespace fog::cli {

/// True when an MPI launcher (mpirun, srun) started more than one process.
bool launchedByMpirun();
/// True when this build has MPI support.
bool mpiAvailable();

struct SweepCallbacks {
    std::function<void(const SweepProgress&, int rank)> progress; ///< rank 0, one call at a time
    std::function<void()> finished;                               ///< before the report
    std::function<void(RunStore&, std::int64_t sweepId)> summary; ///< the sweep's table
};

/// Runs the sweep over the MPI world; `makeSpec` is called on rank 0 only (it may read the
/// store for --resume). Returns the process exit code on every rank.
int runSweepMpi(const CliOptions& o, const std::function<SweepSpec()>& makeSpec, const SweepCallbacks& cb);

struct SeekCallbacks {
    std::function<void(const SeekProgress&, const SeekSpec&)> progress;       ///< rank 0, one call at a time
    std::function<void()> finished;                                           ///< before the report
    std::function<int(const SeekSpec&, const SeekResult&, RunStore&)> report; ///< prints; the exit code
};

/// Runs a search over the MPI world: rank 0 owns the store and the search (the same
/// successive halving as one process) and splits each rung's trial steps over the ranks,
/// itself included; a trial that waits at a rung stays on its rank, which goes on with it
/// when it is promoted. `makeSpec` is called on rank 0 only. Returns the exit code.
int runSeekMpi(const CliOptions& o, const std::function<SeekSpec()>& makeSpec, const SeekCallbacks& cb);

} // namespace fog::cli
