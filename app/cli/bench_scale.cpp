// `fogstudio-cli bench scale`: memory and time of the engine at scale (issue 11, item 6;
// issue 27). One group of --devices N devices (default 1,000,000) under one cloud, timing
// only (no data, no model), random-k 100, fully-sync, 200 rounds, Markov availability, run
// with the flow-level network off (`topology.contention: false`: every transfer gets its
// links' whole bandwidth) and on (the default: the round's 100 devices share the group's
// link, docs/network.md). Each setting runs in a child process of its own (fork), so that
// each reports its own peak RSS (getrusage); per setting: set-up seconds (from building the
// engine to the first callback after the run started, i.e. once every node's state is set
// up and the first round dispatched), run seconds, wall and CPU seconds. A benchmark, not a
// test: it asserts nothing.
//
// The scenario goes through the loader with its full validation (docs/scenario.md,
// "Limits": at most 2,000,000 nodes), which counts as set-up.

#include "app/cli/bench_scale.h"
#include "core/engine/engine.h"
#include "core/scenario/scenario_io.h"

#include <QString>
#include <QStringList>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

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

/// CPU seconds (user + system) of this process so far.
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
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

/// One setting, in this process: prints its report to `out`; returns the exit code.
int runSetting(long devices, bool contention, std::ostream& out) {
    const double rssBefore = peakRssBytes();
    const double cpu0 = cpuSeconds();
    const double t0 = wallNow();
    Scenario s;
    try {
        s = loadScenarioText(scaleScenario(devices), "bench scale");
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: bench scale: " << e.what() << "\n";
        return 1;
    }
    s.topology.contention = contention;
    const double tRead = wallNow();
    FirstCallback probe;
    RunSummary summary;
    double tBuilt = 0.0;
    Network::Stats net;
    try {
        EngineOptions options;
        options.threads = 1;
        options.observer = &probe;
        Engine engine(s, options);
        tBuilt = wallNow();
        summary = engine.run();
        if (const Network* n = engine.network()) net = n->stats();
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: bench scale: " << e.what() << "\n";
        return 1;
    }
    const double tEnd = wallNow();
    const double cpu = cpuSeconds() - cpu0;
    const double first = probe.first > 0 ? probe.first : tEnd;
    out << std::fixed << std::setprecision(2);
    out << "contention " << (contention ? "on" : "off") << "\n";
    out << "  scenario read          " << tRead - t0 << " s\n";
    out << "  engine built           " << tBuilt - tRead << " s\n";
    out << "  set-up (to 1st event)  " << first - tRead << " s\n";
    out << "  run (rest)             " << tEnd - first << " s\n";
    out << "  wall, CPU              " << tEnd - t0 << " s, " << cpu << " s\n";
    out << "  peak RSS               " << std::setprecision(3) << peakRssBytes() / 1e9 << " GB (at the start: "
        << rssBefore / 1e9 << " GB)\n";
    out << std::setprecision(1) << "  run: " << toString(summary.status) << " (" << summary.stopReason << "), "
        << summary.rounds << " rounds, " << summary.virtualTime << " virtual s, " << probe.events << " events, "
        << summary.lostJobs << " jobs lost";
    if (contention)
        out << ", " << net.flowEvents << " flow starts and ends (at most " << net.maxConcurrent
            << " flows at once, " << net.classesRecomputed << " flow classes recomputed)";
    out << "\n";
    out.flush();
    return summary.status == RunStatus::Failed ? 1 : 0;
}

} // namespace

int runScaleBench(const QStringList& args, std::ostream& out) {
    long devices = 1000000;
    std::vector<bool> settings{false, true};
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == "--devices" && i + 1 < args.size()) {
            bool ok = false;
            devices = args[++i].toLong(&ok);
            if (!ok || devices < 1 || devices > 10000000) {
                std::cerr << "fogstudio-cli: bench scale: --devices takes a whole number from 1 to 10,000,000\n";
                return 2;
            }
        } else if (args[i] == "--contention" && i + 1 < args.size()) {
            const QString v = args[++i];
            if (v == "on")
                settings = {true};
            else if (v == "off")
                settings = {false};
            else if (v == "both")
                settings = {false, true};
            else {
                std::cerr << "fogstudio-cli: bench scale: --contention takes on, off or both, not '"
                          << v.toStdString() << "'\n";
                return 2;
            }
        } else {
            std::cerr << "fogstudio-cli: bench scale: unknown argument '" << args[i].toStdString()
                      << "' (bench scale [--devices N] [--contention on|off|both])\n";
            return 2;
        }
    }
    out << "bench scale: " << devices << " devices under one cloud, timing only, random-k 100, fully-sync, "
        << "200 rounds, Markov availability (1 thread; each setting in a process of its own)\n";
    int code = 0;
    for (const bool contention : settings) {
        out.flush();
        std::cout.flush();
        std::cerr.flush();
        const pid_t child = fork();
        if (child < 0) {
            std::cerr << "fogstudio-cli: bench scale: cannot start a process for the run\n";
            return 1;
        }
        if (child == 0) {
            const int rc = runSetting(devices, contention, out);
            std::cout.flush();
            std::cerr.flush();
            _exit(rc);
        }
        int status = 0;
        if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
            std::cerr << "fogstudio-cli: bench scale: the run with contention " << (contention ? "on" : "off")
                      << " ended abnormally" << (WIFSIGNALED(status) ? " (killed by a signal)" : "") << "\n";
            code = 1;
        } else if (WEXITSTATUS(status) != 0) {
            code = WEXITSTATUS(status);
        }
    }
    return code;
}

} // namespace fog::cli
