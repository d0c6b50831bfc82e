#pragma once
// `fogstudio-cli bench`: the reference workload through the emulator and through a plain
// LibTorch loop, timed in one process so that the ratios are comparable.

#include <ostream>

namespace fog::cli {

struct BenchOptions {
    int threads = 2;
    int rounds = 10;
    bool quick = false;
    /// The clients share one 100 Mbps link (10 ms) to the server, so that the emulator's
    /// flow-level network (contention on) runs; the plain loop has no network either way.
    bool sharedLink = false;
};

int runBench(const BenchOptions& options, std::ostream& out);
/// `bench store`: writing 1,000,000 metric rows and listing 10,000 runs in a fresh database.
int runStoreBench(std::ostream& out);

} // namespace fog::cli
