// `fogstudio-cli bench scale`: memory and set-up time of the engine at scale (issue 11,
// item 6). One group of --devices N devices (default 1,000,000) under one cloud, timing only
// (no data, no model), random-k 100 per round, fully-sync, 200 rounds, Markov availability.
// Prints peak RSS (getrusage), set-up seconds (from building the engine to the first
// callback after the run started, i.e. once every node's state is set up and the first
// round dispatched) and run seconds. A benchmark, not a test: it asserts nothing.
//
// The scenario goes through the loader with its full validation (docs/scenario.md,
// "Limits": at most 2,000,000 nodes), which counts as set-up.

#include "app/cli/bench_scale.h"
#include "core/engine/engine.h"
#include "core/scenario/scenario_io.h"

#include <QString>
#include <QStringList>

#include <sys/resource.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

namespace fog::cli {

namespace {

double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/// Peak resident set of this process so far, in bytes (Linux reports KiB).
double peakRssBytes() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_maxrss) * 1024.0;
}

std::string scaleScenario(long devices) {
    return R"(schema_version: 1
name: bench scale
seed: 11
topology:
  nodes:
    - {id: cloud, tier: cloud, role: aggregator, compute: {throughput: 50000}, price_per_hour: 0.40}
  groups:
    - id: phone
      count: )" + std::to_string(devices) + R"(
      tier: device
      role: trainer
      parent: cloud
      compute: {throughput: {min: 50, max: 250}, noise: {kind: exponential}}
      availability: {kind: markov, mean_up_s: 1200, mean_down_s: 300, start: stationary}
      price_per_hour: 0.01
      energy: {per_sample_j: 0.002, per_byte_j: 2.0e-7}
      link: {bandwidth_up_mbps: 20, bandwidth_down_mbps: 100, latency_ms: 15, price_per_gb: 0.01}
data: {dataset: none, samples_per_trainer: 10}
model: {kind: none, wire_bytes: 636040}
training: {batch_size: 10, local_steps: 1}
sync: {policy: fully-sync}
selection: {policy: random-k, k: 100}
stop: {rounds: 200}
)";
}

/// Notes when the first thing happens after the run started.
struct FirstCallback : RunObserver {
    double first = 0.0;
    std::size_t events = 0, rounds = 0;
    void mark() {
        if (first == 0.0) first = wallNow();
    }
    void onAggregation(const AggregationRecord&) override { mark(), ++rounds; }
    void onEvent(const RunEvent&) override { mark(), ++events; }
    void onDispatch(const JobPlan&) override { mark(); }
    void onMessage(const LinkMessage&) override { mark(); }
};

} // namespace

int runScaleBench(const QStringList& args, std::ostream& out) {
    long devices = 1000000;
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == "--devices" && i + 1 < args.size()) {
            bool ok = false;
            devices = args[++i].toLong(&ok);
            if (!ok || devices < 1 || devices > 10000000) {
                std::cerr << "fogstudio-cli: bench scale: --devices takes a whole number from 1 to 10,000,000\n";
                return 2;
            }
        } else {
            std::cerr << "fogstudio-cli: bench scale: unknown argument '" << args[i].toStdString()
                      << "' (bench scale [--devices N])\n";
            return 2;
        }
    }
    const double rssBefore = peakRssBytes();
    const double t0 = wallNow();
    Scenario s;
    try {
        s = loadScenarioText(scaleScenario(devices), "bench scale");
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: bench scale: " << e.what() << "\n";
        return 1;
    }
    // The engine at scale, without the flow-level network: with contention the 100 devices
    // of a round share the group's link, rounds last ~30 virtual s instead of ~1 s and the
    // run simulates 6,036 s of a million Markov devices (8 M events, 2.55 GB, 90 s measured
    // 2026-11-24) instead of 176 s: a different workload. `bench network` times the network.
    s.topology.contention = false;
    const double tRead = wallNow();
    FirstCallback probe;
    RunSummary summary;
    double tBuilt = 0.0;
    try {
        EngineOptions options;
        options.threads = 1;
        options.observer = &probe;
        Engine engine(s, options);
        tBuilt = wallNow();
        summary = engine.run();
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: bench scale: " << e.what() << "\n";
        return 1;
    }
    const double tEnd = wallNow();
    const double first = probe.first > 0 ? probe.first : tEnd;
    out << std::fixed << std::setprecision(2);
    out << "bench scale: " << devices << " devices under one cloud, timing only, random-k 100, fully-sync, "
        << "200 rounds, Markov availability, contention off (1 thread)\n";
    out << "  scenario read          " << tRead - t0 << " s\n";
    out << "  engine built           " << tBuilt - tRead << " s\n";
    out << "  set-up (to 1st event)  " << first - tRead << " s\n";
    out << "  run (rest)             " << tEnd - first << " s\n";
    out << "  peak RSS               " << std::setprecision(3) << peakRssBytes() / 1e9 << " GB (before the scenario: "
        << rssBefore / 1e9 << " GB)\n";
    out << std::setprecision(1) << "  run: " << toString(summary.status) << " (" << summary.stopReason << "), "
        << summary.rounds << " rounds, " << summary.virtualTime << " virtual s, " << probe.events << " events, "
        << summary.lostJobs << " jobs lost\n";
    return summary.status == RunStatus::Failed ? 1 : 0;
}

} // namespace fog::cli
