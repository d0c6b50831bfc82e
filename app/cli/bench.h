#pragma once
// `fogstudio-cli bench`: the reference workload through a plain LibTorch loop and through the
// emulator with each training backend (libtorch, fast), timed in one process, the
// configurations alternated over several passes and compared by their medians, so that the
// ratios hold on a shared machine; with the workload's FLOP count and this core's FLOP bound.

#include <ostream>
#include <string>

namespace fog::cli {

struct BenchOptions {
    int threads = 2;
    int rounds = 10;
    bool quick = false;
    /// The clients share one 100 Mbps link (10 ms) to the server, so that the emulator's
    /// flow-level network (contention on) runs; the plain loop has no network either way.
    bool sharedLink = false;
    /// Passes over the configurations (A B C A B C ...); the table shows medians.
    int pairs = 3;
    bool quiet = false; ///< no per-pass lines on stderr
    /// Rounds of the CNN workload (1 local epoch each); 0 skips it.
    int cnnRounds = 2;
};

/// `bench [SUBCOMMAND] --help`: the subcommand's own usage (exit code 0), or an error naming
/// the known subcommands (2).
int printBenchHelp(const std::string& subcommand, std::ostream& out);

int runBench(const BenchOptions& options, std::ostream& out);
/// `bench store`: writing 1,000,000 metric rows and listing 10,000 runs in a fresh database.
int runStoreBench(std::ostream& out);

} // namespace fog::cli
