// fogstudio-cli: the headless face of the emulator, for scripts, sweeps and CI.

#include "app/cli/bench.h"
#include "app/cli/progress.h"
#include "core/data/dataset.h"
#include "core/engine/engine.h"
#include "core/model/learner.h"
#include "core/policies/policy_info.h"
#include "core/scenario/scenario_io.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

namespace {

const char* kUsage = R"(Usage: fogstudio-cli <command> [options]

FogStudio emulates distributed machine learning across clouds, edge servers and devices:
it trains a real model on real data while a virtual clock accounts the time, money and
energy the same job would take on the system a scenario file describes.

Commands:
  run FILE        Run a scenario and print its results.
  validate FILE   Check scenario files; print every problem with file:line:column.
  policies        List the sync and selection policies with their parameters.
  bench           Time the reference workload: emulator vs a plain LibTorch loop.

Options of run:
  --set KEY=VALUE Override a scenario value before validation, e.g.
                  --set sync.policy=n-sync --set sync.n=3 --set stop.rounds=20
                  (repeatable; list items as topology.nodes[2].price_per_hour=0.4)
  --threads N     Worker threads for the real training (default: all cores).
                  Results are identical for any N.
  --json          Print a JSON summary on stdout instead of the table.
  --quiet         No progress line.

Options of bench:
  --threads N     Threads for the multi-threaded measurement (default 2).
  --rounds R      FedAvg rounds (default 10).
  --quick         A smaller workload (20 clients, 1 epoch, 3 rounds) for a fast check.

Examples:
  fogstudio-cli run presets/quickstart.yaml
  fogstudio-cli run presets/quickstart.yaml --set sync.policy=fully-sync --json
  fogstudio-cli validate my-scenario.yaml
)";

fog::Engine* g_engine = nullptr;

void onInterrupt(int) {
    if (g_engine) g_engine->cancel(); // the run stops at the next event and reports
}

int usageError(const std::string& message) {
    std::cerr << "fogstudio-cli: " << message << "\nTry 'fogstudio-cli --help'.\n";
    return 2;
}

int defaultThreads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

int cmdValidate(const QStringList& files) {
    if (files.isEmpty()) return usageError("validate needs at least one FILE");
    int bad = 0;
    for (const QString& f : files) {
        try {
            const fog::Scenario s = fog::loadScenarioFile(f.toStdString());
            std::cout << f.toStdString() << ": ok (" << s.name << ")\n";
        } catch (const fog::ScenarioError& e) {
            std::cerr << e.what() << "\n";
            ++bad;
        }
    }
    return bad ? 1 : 0;
}

int cmdPolicies() {
    auto print = [](const char* title, const std::vector<fog::PolicyInfo>& infos) {
        std::cout << title << "\n";
        for (const auto& p : infos) {
            std::cout << "  " << p.name << "\n      " << p.summary << "\n";
            if (!p.source.empty()) std::cout << "      Source: " << p.source << "\n";
            for (const auto& k : p.params)
                std::cout << "      " << k.key << " (default " << k.defaultValue << "): " << k.help << "\n";
        }
        std::cout << "\n";
    };
    print("Sync policies (sync.policy):", fog::syncPolicyInfos());
    print("Selection policies (selection.policy):", fog::selectionPolicyInfos());
    return 0;
}

QJsonObject summaryJson(const fog::Scenario& s, const fog::RunSummary& r, int threads) {
    auto num = [](double v) { return std::isnan(v) ? QJsonValue() : QJsonValue(v); };
    QJsonObject o;
    o["scenario"] = QString::fromStdString(s.name);
    o["seed"] = static_cast<double>(s.seed);
    o["status"] = fog::toString(r.status);
    o["stop_reason"] = QString::fromStdString(r.stopReason);
    o["final_test_accuracy"] = num(r.finalTestAccuracy);
    o["best_test_accuracy"] = num(r.bestTestAccuracy);
    o["final_test_loss"] = num(r.finalTestLoss);
    o["final_train_loss"] = num(r.finalTrainLoss);
    o["rounds"] = r.rounds;
    o["aggregations"] = r.aggregations;
    o["virtual_time_s"] = r.virtualTime;
    o["cost"] = r.cost;
    o["energy_j"] = r.energyJ;
    o["bytes_moved"] = r.bytes;
    o["samples_computed"] = static_cast<double>(r.samplesComputed);
    o["lost_jobs"] = r.lostJobs;
    o["wall_clock_s"] = r.wallSeconds;
    o["threads"] = threads;
    return o;
}

int cmdRun(const QString& file, const QStringList& sets, int threads, bool json, bool quiet) {
    std::vector<fog::Override> overrides;
    fog::Scenario scenario;
    try {
        for (const QString& s : sets) overrides.push_back(fog::parseOverride(s.toStdString()));
        scenario = fog::loadScenarioFile(file.toStdString(), overrides);
    } catch (const fog::ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    fog::cli::ProgressPrinter progress(scenario, quiet ? fog::cli::ProgressPrinter::Mode::Off
                                                       : fog::cli::ProgressPrinter::Mode::Auto);
    fog::EngineOptions options;
    options.threads = threads;
    options.observer = &progress;
    try {
        fog::Engine engine(scenario, options);
        g_engine = &engine;
        std::signal(SIGINT, onInterrupt);
        std::signal(SIGTERM, onInterrupt);
        const fog::RunSummary summary = engine.run();
        g_engine = nullptr;
        if (json)
            std::cout << QJsonDocument(summaryJson(scenario, summary, threads)).toJson().toStdString() << "\n";
        else
            progress.printSummary(summary, std::cout);
        if (summary.status == fog::RunStatus::Failed) {
            std::cerr << file.toStdString() << ": run failed: " << summary.stopReason << "\n";
            return 1;
        }
        return summary.status == fog::RunStatus::Cancelled ? 130 : 0;
    } catch (const std::exception& e) {
        g_engine = nullptr;
        std::cerr << file.toStdString() << ": " << e.what() << "\n";
        return 1;
    }
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName("fogstudio-cli");
    QCoreApplication::setApplicationVersion(FOGSTUDIO_VERSION);

    QCommandLineParser parser;
    parser.setApplicationDescription("FogStudio headless emulator");
    const QCommandLineOption help({"h", "help"}, "Show help.");
    const QCommandLineOption version("version", "Show the version.");
    const QCommandLineOption set("set", "Override a scenario value.", "KEY=VALUE");
    const QCommandLineOption threads("threads", "Worker threads.", "N");
    const QCommandLineOption json("json", "JSON summary.");
    const QCommandLineOption quiet("quiet", "No progress line.");
    const QCommandLineOption rounds("rounds", "Bench rounds.", "R");
    const QCommandLineOption quick("quick", "Smaller bench workload.");
    parser.addOptions({help, version, set, threads, json, quiet, rounds, quick});
    if (!parser.parse(app.arguments())) return usageError(parser.errorText().toStdString());
    if (parser.isSet(version)) {
        std::cout << "fogstudio-cli " << FOGSTUDIO_VERSION << "\n";
        return 0;
    }
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(help) || args.isEmpty() || args.first() == "help") {
        std::cout << kUsage;
        return args.isEmpty() && !parser.isSet(help) ? 2 : 0;
    }
    bool ok = true;
    int nThreads = defaultThreads();
    if (parser.isSet(threads)) {
        nThreads = parser.value(threads).toInt(&ok);
        if (!ok || nThreads < 1) return usageError("--threads takes a whole number >= 1");
    }
    const QString cmd = args.first();
    if (cmd == "validate") return cmdValidate(args.mid(1));
    if (cmd == "policies") return cmdPolicies();
    if (cmd == "run") {
        if (args.size() != 2) return usageError("run takes exactly one FILE");
        return cmdRun(args[1], parser.values(set), nThreads, parser.isSet(json), parser.isSet(quiet));
    }
    if (cmd == "bench") {
        fog::cli::BenchOptions b;
        b.threads = parser.isSet(threads) ? nThreads : 2;
        if (parser.isSet(rounds)) {
            b.rounds = parser.value(rounds).toInt(&ok);
            if (!ok || b.rounds < 1) return usageError("--rounds takes a whole number >= 1");
        }
        b.quick = parser.isSet(quick);
        return fog::cli::runBench(b, std::cout);
    }
    return usageError("unknown command '" + cmd.toStdString() + "'");
}
