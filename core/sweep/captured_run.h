#pragma once
// A run kept in memory and turned into bytes, so that a process that does not own the run
// store (an MPI rank) can run it and send it to the one that does. Stored back, it is the
// same run a StoreRecorder would have written.

#include "core/spec/scenario.h"
#include "core/store/run_store.h"

#include <atomic>
#include <string>
#include <vector>

namespace fog {

struct CapturedRun {
    std::vector<NodeInfo> nodes;
    std::vector<AggregationRecord> records;
    std::vector<NodeInterval> intervals;
    std::vector<RunEvent> events;
    RunSummary summary;
};

/// Runs `scenario` and keeps everything it produced. Set-up failures give a Failed summary
/// with the reason, as runAndStore stores them.
CapturedRun captureRun(const Scenario& scenario, int threads, const std::atomic<bool>* cancel = nullptr);

/// Stores a captured run (scenario text, seed and threads go into `meta`) and returns its id.
std::int64_t storeCaptured(RunStore& store, NewRun meta, const Scenario& scenario, int threads,
                           const CapturedRun& run);

/// Bytes for the wire (little-endian, versioned) and back; decode throws std::runtime_error
/// on truncated or foreign bytes.
std::string encodeCaptured(const CapturedRun& run);
CapturedRun decodeCaptured(const std::string& bytes);

} // namespace fog
