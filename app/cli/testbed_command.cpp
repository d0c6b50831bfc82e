// fogstudio-cli testbed: a scenario's prediction, then the same rounds on real shaped links
// in network namespaces, both stored, and the comparison (docs/testbed.md).

#include "app/cli/commands.h"
#include "app/cli/testbed_command.h"
#include "core/engine/engine.h"
#include "core/engine/local_job_tap.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "core/testbed/testbed.h"
#include "core/testbed/testbed_store.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace fog::cli {

namespace {

const char* kTestbedUsage = R"(Usage:
  fogstudio-cli testbed FILE [--set KEY=VALUE]... [--dilation D] [--latency auto|kernel|user]
                [--relay route|store] [--compute paced|real] [--no-training]
                [--threads N] [--db FILE] [--no-store] [--quiet]
  fogstudio-cli testbed compare RUN [--db FILE]
  fogstudio-cli testbed cleanup

Runs FILE's prediction (the emulator, stored as a run), then plays the same rounds on this
machine: every aggregator, trainer, relay and shared cell is a process in a network namespace
of its own, links are veth pairs shaped with tc, models and updates move over TCP with the
emulator's byte counts, each trainer runs its job's local work (the same model, data,
seed, steps and optimiser as the prediction's) and holds its update for the compute time
the emulator drew, and the aggregator aggregates the updates as the policy does and
evaluates the model. The measured run is stored too (tag testbed) and the per-round
comparison printed: times, bytes and the training values against the prediction's.
Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN). Ctrl-C stops it and removes everything.

  --dilation D   Bandwidths divided by D, compute times and latencies multiplied by D; the
                 measured times are divided back (for links or compute this machine cannot
                 keep up with). Default 1.
  --latency M    auto (netem when the kernel has it, else user space), kernel, user.
  --relay M      route: relays are routers forwarding packets (default); store: relays are
                 applications that receive each message whole, then send it on (the
                 emulator's store and forward).
  --compute M    paced: a trainer holds its update until the compute time the emulator drew
                 has passed (default); real: it sends it when its training is done.
  --no-training  The processes move the bytes and hold the updates, without training (for
                 what they cannot train: other policies, codecs, a smaller wire size).
  compare RUN    The comparison of a stored testbed run with its prediction.
  cleanup        End the processes (and so namespaces and links) of testbeds that crashed.
See docs/testbed.md.
)";

int usage(const std::string& message) {
    std::cerr << "fogstudio-cli testbed: " << message << "\nTry 'fogstudio-cli testbed --help'.\n";
    return 2;
}

std::string mb(double bytes) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4f", bytes / 1e6);
    return b;
}

void printLinks(std::ostream& out, const testbed::TestbedPlan& plan, const testbed::TestbedResult& result) {
    out << "  link                                  predicted MB up/down   payload MB up/down   wire MB up/down   "
           "wire/payload\n";
    for (const auto& l : result.links) {
        const auto& b = plan.boxes[static_cast<std::size_t>(l.box)];
        if (!b.modelLink) continue;
        const auto [up, down] = testbed::predictedBytes(plan, l.box, result.rounds.size());
        const double payload = l.payloadUpBytes + l.payloadDownBytes;
        const double wire = l.wireUpBytes + l.wireDownBytes;
        char line[256];
        std::snprintf(line, sizeof line, "  %-36s  %9s / %-9s  %8s / %-8s  %7s / %-7s  %.4f\n", b.linkName.c_str(),
                      mb(up).c_str(), mb(down).c_str(), mb(l.payloadUpBytes).c_str(),
                      mb(l.payloadDownBytes).c_str(), mb(l.wireUpBytes).c_str(), mb(l.wireDownBytes).c_str(),
                      payload > 0 ? wire / payload : 0.0);
        out << line;
    }
    if (result.cancelled) out << "  (interrupted: the wire counts include the bytes of the round that was cut)\n";
}

int compare(const QString& idText, const QString& db) {
    bool ok = false;
    const std::int64_t id = idText.toLongLong(&ok);
    if (!ok || id <= 0) return usage("compare needs a run id");
    CliOptions o;
    o.db = db;
    auto store = openStore(o);
    if (!store) return 1;
    try {
        if (!store->run(id)) {
            std::cerr << "fogstudio-cli: no run " << id << " in " << store->path() << "\n";
            return 1;
        }
        const auto events = store->events(id);
        const auto pred = testbed::predictionOf(events);
        if (!pred) {
            std::cerr << "fogstudio-cli: run " << id << " is not a testbed run with a stored prediction\n";
            return 1;
        }
        if (!store->run(*pred)) {
            std::cerr << "fogstudio-cli: run " << id << "'s prediction, run " << *pred << ", is no longer stored\n";
            return 1;
        }
        std::cout << "run " << id << " (testbed) against run " << *pred << " (prediction)\n";
        const auto predictedRows = store->metrics(*pred), measuredRows = store->metrics(id);
        testbed::printComparison(std::cout, testbed::compareRuns(predictedRows, measuredRows));
        bool trained = false;
        for (const auto& r : measuredRows) trained = trained || !std::isnan(r.trainLoss);
        if (trained) testbed::printTraining(std::cout, testbed::compareTraining(predictedRows, measuredRows));
        for (const auto& e : events)
            if (e.kindName() == testbed::kEventKind) std::cout << "  " << e.detail << "\n";
    } catch (const StoreError& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace

int cmdTestbed(const QStringList& arguments) {
    QCommandLineParser parser;
    parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    const QCommandLineOption help({"h", "help"}, "Help.");
    const QCommandLineOption set("set", "Override a scenario value.", "KEY=VALUE");
    const QCommandLineOption dilation("dilation", "Time dilation.", "D", "1");
    const QCommandLineOption latency("latency", "Latency: auto, kernel, user.", "MODE", "auto");
    const QCommandLineOption relay("relay", "Relays: route or store.", "MODE", "route");
    const QCommandLineOption compute("compute", "Compute: paced or real.", "MODE", "paced");
    const QCommandLineOption noTraining("no-training", "The processes do not train.");
    const QCommandLineOption threads("threads", "Threads for the prediction.", "N", "2");
    const QCommandLineOption db("db", "Run database.", "FILE");
    const QCommandLineOption noStore("no-store", "Do not store the runs.");
    const QCommandLineOption quiet("quiet", "No progress lines.");
    parser.addOptions({help, set, dilation, latency, relay, compute, noTraining, threads, db, noStore, quiet});
    QStringList argv = arguments;
    argv.prepend("fogstudio-cli testbed");
    if (!parser.parse(argv)) return usage(parser.errorText().toStdString());
    if (parser.isSet(help)) {
        std::cout << kTestbedUsage;
        return 0;
    }
    const QStringList args = parser.positionalArguments();
    if (args.value(0) == "compare") {
        if (args.size() != 2) return usage("compare takes one RUN");
        return compare(args[1], parser.value(db));
    }
    if (args.value(0) == "cleanup") {
        const int n = testbed::cleanLeftovers();
        std::cout << "ended " << n << " leftover testbed processes\n";
        return 0;
    }
    if (args.size() != 1) return usage("give one scenario FILE (or compare RUN, cleanup)");
    bool ok = false;
    const double d = parser.value(dilation).toDouble(&ok);
    if (!ok || !(d > 0) || !std::isfinite(d)) return usage("--dilation must be a positive number");
    testbed::TestbedOptions options;
    options.dilation = d;
    const QString lat = parser.value(latency);
    if (lat == "auto") options.latency = testbed::TestbedOptions::Latency::Auto;
    else if (lat == "kernel") options.latency = testbed::TestbedOptions::Latency::Kernel;
    else if (lat == "user") options.latency = testbed::TestbedOptions::Latency::UserSpace;
    else return usage("--latency is auto, kernel or user");
    const QString relayMode = parser.value(relay);
    if (relayMode != "route" && relayMode != "store") return usage("--relay is route or store");
    options.storeAndForward = relayMode == "store";
    const QString computeMode = parser.value(compute);
    if (computeMode != "paced" && computeMode != "real") return usage("--compute is paced or real");
    options.compute = computeMode == "real" ? testbed::TestbedOptions::Compute::Real
                                            : testbed::TestbedOptions::Compute::Paced;
    options.training = !parser.isSet(noTraining);
    const int nThreads = parser.value(threads).toInt(&ok);
    if (!ok || nThreads < 1 || nThreads > 256) return usage("--threads must be 1..256");

    // Privileges before anything else: refused, nothing is set up, nothing is stored.
    const std::string problem = testbed::privilegeProblem();
    if (!problem.empty()) {
        std::cerr << "fogstudio-cli testbed: " << problem << "\n";
        return 1;
    }
    const std::string file = args[0].toStdString();
    Scenario scenario;
    try {
        std::vector<Override> overrides;
        for (const QString& s : parser.values(set)) overrides.push_back(parseOverride(s.toStdString()));
        scenario = loadScenarioFile(file, overrides);
    } catch (const ScenarioError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    const bool verbose = !parser.isSet(quiet);
    installInterruptHandler();
    options.cancel = interruptFlag();
    if (verbose) options.log = [](const std::string& line) { std::cerr << "testbed: " << line << "\n"; };

    // The prediction.
    testbed::PredictionRecorder prediction;
    RunSummary predicted;
    std::int64_t predictionId = 0;
    std::unique_ptr<RunStore> store;
    CliOptions so;
    so.db = parser.value(db);
    try {
        // The tap records every job's local work for the processes to run (this thread: the
        // engine runs on it, and the tap goes when this block ends).
        ScopedLocalJobTap tap(options.training ? &prediction : nullptr);
        if (parser.isSet(noStore)) {
            EngineOptions eo;
            eo.threads = nThreads;
            eo.observer = &prediction;
            eo.cancelFlag = interruptFlag();
            Engine engine(scenario, eo);
            predicted = engine.run();
        } else {
            store = openStore(so);
            if (!store) return 1;
            NewRun meta;
            meta.name = scenario.name + " (testbed prediction)";
            meta.tags = {"testbed-prediction"};
            predictionId = runAndStore(scenario, *store, meta, nThreads, &prediction, predicted, interruptFlag());
        }
    } catch (const std::exception& e) {
        std::cerr << file << ": the prediction failed: " << e.what() << "\n";
        return 1;
    }
    if (predicted.status != RunStatus::Finished) {
        std::cerr << file << ": the prediction did not finish (" << toString(predicted.status) << ": "
                  << predicted.stopReason << "); nothing played on the testbed\n";
        return predicted.status == RunStatus::Cancelled ? 130 : 1;
    }
    if (verbose)
        std::cerr << "testbed: prediction" << (predictionId ? " stored as run " + std::to_string(predictionId) : "")
                  << ": " << predicted.rounds << " rounds, " << predicted.virtualTime << " s\n";

    testbed::TestbedPlan plan;
    testbed::TestbedResult result;
    try {
        plan = testbed::buildPlan(scenario, prediction, 64, options.training);
        result = testbed::runTestbed(plan, options);
    } catch (const testbed::TestbedError& e) {
        std::cerr << file << ": " << e.what() << "\n";
        return 1;
    }
    std::int64_t measuredId = 0;
    if (store) {
        NewRun meta;
        meta.name = scenario.name + " (testbed)";
        meta.tags = {"testbed"};
        meta.seed = scenario.seed;
        meta.threads = nThreads;
        meta.scenarioYaml = storedScenarioText(scenario);
        meta.notes = "measured on the testbed; prediction: run " + std::to_string(predictionId);
        try {
            measuredId = testbed::storeTestbedRun(*store, meta, prediction.info(), plan, result, predictionId);
        } catch (const StoreError& e) {
            std::cerr << "fogstudio-cli: " << e.what() << "\n" << file << ": the testbed run was not stored\n";
            return 1;
        }
    }
    std::cout << scenario.name << " on the testbed: " << result.processes << " processes, dilation " << result.dilation
              << ", latency " << (result.kernelLatency ? "netem" : "user space") << ", compute "
              << (result.computeReal ? "real" : "paced") << (result.trained ? ", trained" : ", not trained")
              << (result.storeAndForward ? ", relays store and forward" : "")
              << (result.cancelled ? " (interrupted)" : "") << "\n";
    testbed::printComparison(std::cout, testbed::compareRuns(prediction.aggregations(),
                                                             testbed::measuredRecords(plan, result)));
    if (result.trained) {
        testbed::printTraining(std::cout, testbed::compareTraining(prediction.aggregations(),
                                                                   testbed::measuredRecords(plan, result)));
        if (!result.computeReal && result.lateJobs > 0)
            std::cout << "  " << result.lateJobs
                      << " updates left late: their training took longer than the compute time the emulator drew "
                         "(try --dilation)\n";
    }
    for (std::size_t i = 0; i < result.rounds.size() && i < plan.rounds.size(); ++i) {
        const auto& r = result.rounds[i];
        if (r.samePredictedUpdates) continue;
        int taken = 0;
        for (const auto& j : r.jobs) taken += j.aggregated ? 1 : 0;
        std::cout << "  round " << r.round << " aggregated other updates than the prediction's (" << taken
                  << " taken here, " << plan.rounds[i].participants << " predicted: the first to arrive"
                  << (plan.rounds[i].deadlineS > 0 ? " by the deadline" : "") << ")\n";
    }
    testbed::printTransfers(std::cout, plan, result);
    testbed::printSubRounds(std::cout, plan, result);
    printLinks(std::cout, plan, result);
    if (!plan.availability.empty()) {
        int lost = 0;
        for (const auto& r : plan.rounds)
            for (const auto& j : r.jobs) lost += j.lost ? 1 : 0;
        std::cout << "  availability: " << result.availabilityChanges << " of " << plan.availability.size()
                  << " changes played (processes stopped and resumed), " << lost
                  << " jobs lost or cancelled as predicted (their updates not waited for)\n";
        for (const auto& st : result.stopped)
            std::cout << "    " << plan.boxes[static_cast<std::size_t>(st.box)].label << " stopped " << st.fromS
                      << " - " << st.toS << " s\n";
    }
    if (measuredId)
        std::cout << "  stored as run " << measuredId << " (testbed) and run " << predictionId << " (prediction)\n";
    return result.cancelled ? 130 : 0;
}

} // namespace fog::cli
