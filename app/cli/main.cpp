// fogstudio-cli: the headless face of the emulator, for scripts, sweeps and CI.

#include "app/cli/bench.h"
#include "app/cli/bench_scale.h"
#include "app/cli/bench_codecs.h"
#include "app/cli/bench_network.h"
#include "app/cli/cluster_commands.h"
#include "app/cli/commands.h"
#include "app/cli/testbed_command.h"
#include "app/cli/figure_module.h"
#include "core/cluster/cluster_io.h"
#include "core/policies/local_optimizers.h"
#include "core/policies/server_optimizer.h"
#include "core/policies/update_codec.h"
#include "core/policies/policy_info.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/lessons.h"
#include "core/scenario/policy_tables.h"
#include "core/scenario/schema.h"
#include "core/scenario/variants.h"
#include "core/sweep/sweep.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <iostream>
#include <thread>

namespace {

/// Most worker threads a command takes (--threads).
constexpr int kMaxCliThreads = 256;

const char* kUsage = R"(Usage: fogstudio-cli <command> [options]

FogStudio emulates distributed machine learning across clouds, edge servers and devices:
it trains a real model on real data while a virtual clock accounts the time, money and
energy the same job would take on the system a scenario file describes.

Commands:
  run FILE                 Run a scenario, store it, print its results. A file with
                           variants (variants:, vary:, repeats:) runs every variant x
                           repeat with common random numbers, stores them as one sweep
                           labelled by variant and prints a comparison table;
                           --variant NAME runs one variant (--repeat R: R repeats).
  validate FILE... [--set K=V]... [--event 'ACTION']...
                           Check scenario files (with the overrides and events applied);
                           print every problem as file:line:column.
  sweep FILE --vary K=V1,V2 [--vary ...] [--repeat R] [--parallel P]
                           Run every combination, R times each, with common random
                           numbers: repeat r of every configuration sees the same node
                           availability and straggler draws. Under mpirun the
                           runs are split over the ranks (rank 0 stores them);
                           --resume S runs what sweep S is missing.
  seek FILE --objective min:cost [--constraint 'accuracy>=0.8@600']...
       --param 'selection.k=int:2..20' [--param 'sync.policy=choice:A,B']...
                           Search for the best configuration by successive halving
                           (see docs/runs.md): --halving rounds|time, --max-budget B,
                           --eta 3, --rungs K, --trials N, --repeat R (default 2),
                           --seed S, --brute-force (whole grid, for validation).
                           Under mpirun the trials are split over the ranks.
  runs [list]              Stored runs, newest first (--tag T, --sweep S, --limit N).
  runs show ID...          A run's summary, events and time/cost to reach 50-85% accuracy.
  runs rerun ID...         Re-run exactly from what was stored.
  fork RUN --at SECONDS [--set K=V]... [--event 'ACTION']...
                           A new run that continues stored run RUN from virtual time
                           SECONDS with changed settings (replayed from t = 0 and checked
                           against RUN's rows and snapshots; docs/emulator.md, "Snapshots and forks").
  runs tag ID TAG...       Add tags ('-TAG' removes one).   runs notes ID TEXT
  runs delete ID...        Delete runs and their metrics.
  export metrics|summary [ID...] [--sweep S] [--tag T] [--format csv|json] [--out FILE]
                           Tidy tables: one row per run and aggregation (metrics) or per
                           run with time/cost/energy to --target accuracy (summary).
  export plots [ID...] [--sweep S] [--format png|svg|pdf] [--out DIR]
               [--tradeoff end|target] [--target A] [--repeats mean|each]
                           Accuracy, loss, cost and energy vs virtual time; the trade-off
                           scatter with its Pareto front (several runs) or the node
                           timeline (one run). Repeats of a sweep configuration are one
                           mean curve in its 95% band (--repeats each: one per run); the
                           trade-off compares totals (end) or time/cost to --target
                           (default: target when every run stopped at one time limit).
                           Light colours, vector with svg/pdf. No display needed.
  export report [ID...] [--sweep S] --out FILE.html|FILE.pdf
                           A report: scenario, topology figure, plots, summary table,
                           Pareto front and the commands that reproduce the runs.
  db check [FILE]          Check a run database (--db FILE, or the default one): SQLite's
                           integrity check, schema, runs killed mid-way, missing rows.
  policies [--markdown [trees]]
                           The sync and selection policies with their parameters.
                           --markdown prints the policy tables of docs/scenario.md,
                           --markdown trees those of docs/emulator.md.
  schema [--markdown]      Every scenario key: type, default, bounds, when it applies.
                           --markdown prints the key reference of docs/scenario.md.
  lessons [--markdown] [DIR]
                           The presets' lessons (question, what to look for, steps);
                           --markdown prints the lessons of docs/lessons.md.
  bench                    Time the reference workload: a plain LibTorch loop vs the emulator
                           with training.backend libtorch and fast; FLOP bound (--help).
  bench store              Time the run store: 1,000,000 metric rows, listing 10,000 runs.
  bench mpi                A 16-trial sweep at 1 and 2 MPI ranks: the speed-up.
  bench scale [--devices N] [--contention on|off|both]
                           Engine memory and time with N devices (default 10^6), with the
                           flow-level network off and on (default both).
  bench network [--presets [DIR]]  Flow-level network sharing: speed with contention on vs
                           off; --presets: every preset's round time and cost on vs off.
  bench codecs [--elements N] [--pairs P] [--bits B] [--exhaustive]
                           The update codecs' speed: fast fp16 and quantize vs their
                           reference, outputs compared bit for bit; top-k's throughput.
  calibrate MODEL [SHAPE]  This machine's training speed for a model (logreg, mlp, cnn, a
                           TorchScript .pt file, or a scenario's model and data), in samples/s
                           and FLOP/s, for compute.throughput or compute.flops; SHAPE is CxHxW
                           or a feature count, then :CLASSES (default 1x28x28:10); --quick, --json.
  testbed FILE [--dilation D]  Play the scenario's rounds on real shaped links: one process
                           per node in its own network namespace, TCP over tc-shaped veth
                           pairs; stores the measured run beside its prediction and prints
                           the per-round error (needs root; 'testbed --help', docs/testbed.md).
  cluster run|train|bench ...
                           Scheduling ML tasks on edge clusters (TapFinger); see
                           'fogstudio-cli cluster --help' and docs/cluster.md.

Options:
  --set KEY=VALUE  Override a scenario value before validation (repeatable), e.g.
                   --set sync.policy=n-sync --set sync.n=3 --set stop.rounds=20
                   --set topology.nodes[2].price_per_hour=0.4
  --threads N      Worker threads for the real training (default: all cores). Results
                   are identical for any N. For sweeps: shared by the --parallel runs.
  Counts have the caps of a scenario file: --repeat <= 1000 (repeats:), the --vary
                   grid (with the file's variants) <= 10000 configurations, seek
                   --trials <= 10000; --parallel and --threads <= 256, --rungs <= 20.
  --db FILE        The run database (default: $XDG_DATA_HOME/fogstudio/runs.db).
  --no-store       run: do not store the run.
  --until C        run: end the run as soon as C holds, and say so: round>=R,
                   accuracy>=A (0..1 or A%), time>=SECONDS, cost>=C ('=' means '>=').
  --event E        run: add a timed event, e.g. 'at 600: link edge-1.up=2' (docs/scenario.md,
                   "Events and traces"), checked like the file's and applied by the engine.
  --snapshot-every S  run, fork: store a snapshot of the model every S virtual seconds
                   (a fork checks its replay against them).
  --at SECONDS     fork: the virtual instant the fork branches at.
  --name NAME      run, sweep: the stored name.   --tag TAG: run, sweep: tag the runs.
  --json           run: print the summary as JSON.
  --quiet          No progress output.
  --target A       export summary, plots: the accuracy for time/cost-to-target (default 0.8).
  bench: --threads N (default 2), --rounds R (default 10), --pairs P (default 3 alternated
         passes, medians), --quick (small workload), --shared-link (the clients share one
         100 Mbps link: flow-level contention at work). 'bench [SUBCOMMAND] --help' for each.

Examples:
  fogstudio-cli run presets/quickstart.yaml
  fogstudio-cli run presets/quickstart.yaml --set sync.policy=fully-sync --json
  fogstudio-cli run presets/volatile-spot-sync.yaml --repeat 2
  fogstudio-cli run presets/volatile-spot-sync.yaml --variant n-sync
  fogstudio-cli sweep presets/quickstart.yaml --vary selection.k=4,8,16 --repeat 3
  fogstudio-cli seek presets/quickstart.yaml --objective min:cost \
      --constraint 'accuracy>=0.7@600' --param 'selection.k=int:2..10:2'
  mpirun -n 4 fogstudio-cli sweep presets/quickstart.yaml --vary selection.k=4,8,16
  fogstudio-cli export summary --sweep 1 --out sweep.csv
  fogstudio-cli export report --sweep 1 --out sweep.pdf
)";

int usageError(const std::string& message) {
    std::cerr << "fogstudio-cli: " << message << "\nTry 'fogstudio-cli --help'.\n";
    return 2;
}

int defaultThreads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : static_cast<int>(n);
}

int cmdValidate(const QStringList& files, const QStringList& sets, const QStringList& events) {
    if (files.isEmpty()) return usageError("validate needs at least one FILE");
    int bad = 0;
    for (const QString& f : files) {
        try {
            // --set applies here as in run and sweep, so a command line can be checked first.
            std::vector<fog::Override> overrides;
            for (const QString& set : sets) overrides.push_back(fog::parseOverride(set.toStdString()));
            if (fog::cluster::isClusterScenarioFile(f.toStdString())) {
                const auto c = fog::cluster::loadClusterScenarioFile(f.toStdString(), overrides);
                std::cout << f.toStdString() << ": ok (" << c.name << ", cluster)\n";
                continue;
            }
            fog::Scenario s = fog::loadScenarioFile(f.toStdString(), overrides);
            // --event is checked as run checks it: an event run would refuse is not "ok".
            for (const QString& e : events) fog::addEventArgument(s, e.toStdString());
            std::cout << f.toStdString() << ": ok (" << s.name << ")\n";
        } catch (const fog::ScenarioError& e) {
            std::cerr << e.what() << "\n";
            ++bad;
        }
    }
    return bad ? 1 : 0;
}

int cmdSchema(bool markdown) {
    if (markdown) {
        std::cout << fog::schemaMarkdown();
        return 0;
    }
    const fog::Scenario defaults;
    auto line = [](const fog::FieldInfo& f, const std::string& def, const fog::NumericBounds& b) {
        std::cout << f.path;
        if (!def.empty()) std::cout << " = " << def;
        if (f.isNumber() || f.type == fog::FieldType::IntList) {
            const bool lowSet = std::isfinite(b.min) && b.min > std::numeric_limits<int>::min();
            const bool highSet = std::isfinite(b.max) && b.max < std::numeric_limits<int>::max();
            if (lowSet) std::cout << "  " << (b.minInclusive ? ">= " : "> ") << fog::formatFieldValue(b.min);
            if (highSet) std::cout << "  " << (b.maxInclusive ? "<= " : "< ") << fog::formatFieldValue(b.max);
        }
        if (!f.enumValues.empty()) {
            std::cout << "  (";
            for (std::size_t i = 0; i < f.enumValues.size(); ++i) std::cout << (i ? " | " : "") << f.enumValues[i];
            std::cout << ")";
        }
        if (f.when) {
            std::cout << "  only with " << f.when->path << ":";
            for (const auto& v : f.when->values) std::cout << " " << v;
        }
        std::cout << "\n      " << f.help << "\n";
    };
    for (const auto& f : fog::scenarioSchema())
        if (f.type != fog::FieldType::Section)
            line(f, f.get ? fog::formatFieldValue(f.get(defaults)) : std::string(), fog::fieldBounds(f));
    std::cout << "\nLink keys (topology.default_link, a node's link, topology.links[i]):\n";
    for (const auto& f : fog::linkSchema()) line(f, fog::formatFieldValue(f.get(fog::LinkParams{})), fog::fieldBounds(f));
    std::cout << "\nPolicy parameters: fogstudio-cli policies\n";
    return 0;
}

/// The presets' lessons: a list, or the Markdown of docs/lessons.md.
int cmdLessons(const QStringList& args, bool markdown) {
    if (args.size() > 1) return usageError("lessons takes at most one DIR (default: the presets folder)");
    std::string dir = args.isEmpty() ? std::string() : args[0].toStdString();
    if (dir.empty()) {
        const std::string app = QCoreApplication::applicationDirPath().toStdString();
        for (const std::string& c : {app + "/../share/fogstudio/presets", app + "/../../presets", std::string("presets")})
            if (std::filesystem::exists(c + "/quickstart.yaml")) {
                dir = c;
                break;
            }
        if (dir.empty()) return usageError("no presets folder found: give DIR");
    }
    std::vector<std::string> problems;
    const auto lessons = fog::presetLessons(dir, &problems);
    for (const auto& p : problems) std::cerr << "fogstudio-cli: " << p << "\n";
    if (markdown) {
        std::cout << fog::lessonsMarkdown(lessons);
        return problems.empty() ? 0 : 1;
    }
    for (const auto& l : lessons) {
        std::cout << l.lesson.number << ". " << l.lesson.title << "\n   presets/" << l.fileName;
        if (!l.variants.empty()) {
            std::cout << " (variants:";
            for (const auto& v : l.variants) std::cout << " " << v;
            std::cout << "; " << l.repeats << " repeats)";
        }
        std::cout << "\n   " << fog::lessonPlainText(l.lesson.question) << "\n";
    }
    return problems.empty() ? 0 : 1;
}

int cmdPolicies(bool markdown, const QStringList& args) {
    if (markdown && args == QStringList{"trees"}) {
        std::cout << fog::policyTreesMarkdown();
        return 0;
    }
    if (!args.isEmpty()) {
        std::cerr << "fogstudio-cli policies: unexpected '" << args.join(' ').toStdString()
                  << "' (policies [--markdown [trees]])\n";
        return 2;
    }
    if (markdown) {
        std::cout << fog::policiesMarkdown();
        return 0;
    }
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
    print("Local optimizers (training.optimizer):", fog::localOptimizerInfos());
    print("Server optimizers (training.server_optimizer, aggregate.server_optimizer):", fog::serverOptimizerInfos());
    print("Update codecs (training.codec_up, training.codec_down):", fog::codecInfos());
    return 0;
}

} // namespace

/// Plots and reports draw with Qt's GUI classes, in the figures module (app/cli/figure_module.h).
bool needsGui(int argc, char** argv) {
    std::vector<std::string> words;
    for (int i = 1; i < argc; ++i)
        if (argv[i][0] != '-') words.push_back(argv[i]);
    return words.size() >= 2 && (words[0] == "export" || words[0] == "cluster") &&
           (words[1] == "plots" || words[1] == "report");
}

static int cliMain(int argc, char** argv) {
    std::unique_ptr<QCoreApplication> appPtr;
    if (needsGui(argc, argv)) appPtr = fog::cli::makeFigureApplication(argc, argv);
    if (!appPtr) appPtr = std::make_unique<QCoreApplication>(argc, argv); // without the module: the command says why
    QCoreApplication& app = *appPtr;
    QCoreApplication::setApplicationName("fogstudio-cli");
    QCoreApplication::setApplicationVersion(FOGSTUDIO_VERSION);

    // The cluster experiment parses its own options.
    if (argc >= 2 && std::string(argv[1]) == "cluster") return fog::cli::cmdCluster(app.arguments().mid(2));
    // So does the testbed (docs/testbed.md).
    if (argc >= 2 && std::string(argv[1]) == "testbed") return fog::cli::cmdTestbed(app.arguments().mid(2));

    QCommandLineParser parser;
    const QCommandLineOption help({"h", "help"}, "");
    const QCommandLineOption version("version", "");
    const QCommandLineOption set("set", "", "KEY=VALUE");
    const QCommandLineOption vary("vary", "", "KEY=V1,V2");
    const QCommandLineOption threads("threads", "", "N");
    const QCommandLineOption json("json", "");
    const QCommandLineOption quiet("quiet", "");
    const QCommandLineOption db("db", "", "FILE");
    const QCommandLineOption noStore("no-store", "");
    const QCommandLineOption name("name", "", "NAME");
    const QCommandLineOption tag("tag", "", "TAG");
    const QCommandLineOption out("out", "", "FILE");
    const QCommandLineOption format("format", "", "FORMAT");
    const QCommandLineOption repeat("repeat", "", "R");
    const QCommandLineOption parallel("parallel", "", "P");
    const QCommandLineOption limit("limit", "", "N");
    const QCommandLineOption sweep("sweep", "", "ID");
    const QCommandLineOption target("target", "", "ACCURACY");
    const QCommandLineOption tradeOff("tradeoff", "", "end|target"), repeatsShown("repeats", "", "mean|each"); // export plots
    parser.addOptions({tradeOff, repeatsShown});
    const QCommandLineOption rounds("rounds", "", "R");
    const QCommandLineOption quick("quick", "");
    const QCommandLineOption pairs("pairs", "", "P"); // bench: passes over the configurations
    const QCommandLineOption cnnRounds("cnn-rounds", "", "R"); // bench: rounds of the CNN workload
    const QCommandLineOption markdown("markdown", "");
    parser.addOption(markdown);
    const QCommandLineOption devices("devices", "", "N"); // bench scale
    const QCommandLineOption contentionSetting("contention", "", "on|off|both"); // bench scale
    parser.addOption(contentionSetting);
    const QCommandLineOption sharedLink("shared-link", ""); // bench: clients share one link
    const QCommandLineOption presetTable("presets", "");    // bench network
    const QCommandLineOption codecElements("elements", "", "N"), codecBits("bits", "", "B"),
        exhaustive("exhaustive", ""); // bench codecs
    parser.addOptions({codecElements, codecBits, exhaustive});
    parser.addOptions({sharedLink, presetTable, pairs, cnnRounds});
    const QCommandLineOption until("until", "", "CONDITION"); // run
    const QCommandLineOption variant("variant", "", "NAME");  // run
    parser.addOption(variant);
    const QCommandLineOption event("event", "", "EVENT");     // run
    parser.addOption(event);
    const QCommandLineOption snapshotEvery("snapshot-every", "", "SECONDS"), forkAt("at", "", "SECONDS"); // run, fork
    parser.addOptions({snapshotEvery, forkAt});
    parser.addOptions({help, version, set, vary, threads, json, quiet, db, noStore, name, tag, out, format,
                       repeat, parallel, limit, sweep, target, rounds, quick, devices, until});
    // seek and sweep --resume (app/cli/seek_commands.cpp, core/seek)
    const QCommandLineOption resume("resume", "", "SWEEP"), objective("objective", "", "DIR:METRIC"),
        constraint("constraint", "", "C"), param("param", "", "P"), halving("halving", "", "R"),
        maxBudget("max-budget", "", "B"), eta("eta", "", "ETA"), rungs("rungs", "", "K"), trials("trials", "", "N"),
        seed("seed", "", "S"), bruteForce("brute-force", "");
    parser.addOptions({resume, objective, constraint, param, halving, maxBudget, eta, rungs, trials, seed, bruteForce});
    if (!parser.parse(app.arguments())) return usageError(parser.errorText().toStdString());
    if (parser.isSet(version)) {
        std::cout << "fogstudio-cli " << FOGSTUDIO_VERSION << "\n";
        return 0;
    }
    const QStringList args = parser.positionalArguments();
    if (parser.isSet(help) && !args.isEmpty() && args.first() == "bench")
        return fog::cli::printBenchHelp(args.value(1).toStdString(), std::cout);
    if (parser.isSet(help) || args.isEmpty() || args.first() == "help") {
        std::cout << kUsage;
        return args.isEmpty() && !parser.isSet(help) ? 2 : 0;
    }

    fog::cli::CliOptions o;
    o.args = args.mid(1);
    o.sets = parser.values(set);
    if (parser.values(until).size() > 1) return usageError("--until takes one condition (the first that holds would end the run)");
    if (parser.values(forkAt).size() > 1) return usageError("--at is given twice: a fork branches at one instant");
    o.until = parser.value(until);
    o.variant = parser.value(variant);
    o.events = parser.values(event);
    o.varies = parser.values(vary);
    o.tags = parser.values(tag);
    o.json = parser.isSet(json);
    o.quiet = parser.isSet(quiet);
    o.noStore = parser.isSet(noStore);
    o.db = parser.value(db);
    o.name = parser.value(name);
    o.out = parser.value(out);
    o.format = parser.value(format);
    o.tradeOff = parser.value(tradeOff);
    o.repeats = parser.value(repeatsShown);
    o.threads = defaultThreads();
    auto wholeNumber = [&](const QCommandLineOption& opt, int& into, int min,
                           int max = std::numeric_limits<int>::max(), const char* why = "") {
        if (!parser.isSet(opt)) return true;
        bool ok = false;
        into = parser.value(opt).toInt(&ok);
        if (!ok || into < min) {
            usageError("--" + opt.names().first().toStdString() + " takes a whole number >= " + std::to_string(min));
            return false;
        }
        if (into > max) {
            usageError("--" + opt.names().first().toStdString() + " must be <= " + std::to_string(max) + why +
                       ", got " + parser.value(opt).toStdString());
            return false;
        }
        return true;
    };
    // The caps of the file format (core/scenario/variants.h) and of the sweep (sweep.h).
    if (!wholeNumber(threads, o.threads, 1, kMaxCliThreads) ||
        !wholeNumber(repeat, o.repeat, 1, fog::kMaxRepeats, " (the cap of repeats: in a scenario file)") ||
        !wholeNumber(parallel, o.parallel, 1, fog::kMaxParallelRuns) || !wholeNumber(limit, o.limit, 0) ||
        !wholeNumber(sweep, o.sweep, 0))
        return 2;
    o.threadsGiven = parser.isSet(threads);
    o.repeatGiven = parser.isSet(repeat);
    o.objective = parser.value(objective);
    o.constraints = parser.values(constraint);
    o.params = parser.values(param);
    o.halving = parser.value(halving);
    o.bruteForce = parser.isSet(bruteForce);
    if (!wholeNumber(resume, o.resume, 1) || !wholeNumber(rungs, o.rungs, 1, 20) ||
        !wholeNumber(trials, o.trials, 1, fog::kMaxVariantConfigurations,
                     " (the cap of a scenario file's configurations)"))
        return 2;
    auto positive = [&](const QCommandLineOption& opt, double& into, double min) {
        if (!parser.isSet(opt)) return true;
        bool ok = false;
        into = parser.value(opt).toDouble(&ok);
        if (!ok || !(into >= min)) {
            usageError("--" + opt.names().first().toStdString() + " takes a number >= " + std::to_string(min));
            return false;
        }
        return true;
    };
    if (!positive(maxBudget, o.maxBudget, 0) || !positive(eta, o.eta, 2)) return 2;
    if (!positive(snapshotEvery, o.snapshotEvery, 0) || !positive(forkAt, o.at, 0)) return 2;
    if (std::isinf(o.snapshotEvery) || std::isinf(o.at)) return usageError("--snapshot-every and --at take finite seconds");
    if (parser.isSet(seed)) {
        bool ok = false;
        o.seed = parser.value(seed).toULongLong(&ok);
        if (!ok) return usageError("--seed takes a whole number >= 0");
    }
    if (parser.isSet(target)) {
        bool ok = false;
        o.target = parser.value(target).toDouble(&ok);
        if (!ok || o.target <= 0 || o.target > 1) return usageError("--target takes an accuracy in (0, 1], e.g. 0.8");
    }

    const QString cmd = args.first();
    if (cmd == "validate") return cmdValidate(o.args, o.sets, o.events);
    if (cmd == "policies") return cmdPolicies(parser.isSet(markdown), o.args);
    if (cmd == "schema") return cmdSchema(parser.isSet(markdown));
    if (cmd == "lessons") return cmdLessons(o.args, parser.isSet(markdown));
    if (cmd == "run") return fog::cli::cmdRun(o);
    if (cmd == "runs") return fog::cli::cmdRuns(o);
    if (cmd == "fork") return fog::cli::cmdFork(o);
    if (cmd == "calibrate") return fog::cli::cmdCalibrate(o, parser.isSet(quick));
    if (cmd == "sweep") return fog::cli::cmdSweep(o);
    if (cmd == "seek") return fog::cli::cmdSeek(o);
    if (cmd == "bench" && o.args.value(0) == "mpi") return fog::cli::cmdBenchMpi(o);
    if (cmd == "export") return fog::cli::cmdExport(o);
    if (cmd == "db") return fog::cli::cmdDb(o);
    if (cmd == "bench" && o.args.value(0) == "store") return fog::cli::runStoreBench(std::cout);
    if (cmd == "bench" && o.args.value(0) == "network") return fog::cli::runNetworkBench(parser.isSet(presetTable) ? QStringList{"--presets", o.args.value(1, "presets")} : QStringList{}, std::cout);
    if (cmd == "bench" && o.args.value(0) == "codecs") {
        fog::cli::CodecBenchOptions c;
        int elements = static_cast<int>(c.elements);
        if (!wholeNumber(codecElements, elements, 1, 200000000) || !wholeNumber(pairs, c.passes, 1, 100) ||
            !wholeNumber(codecBits, c.bits, 2, 16))
            return 2;
        c.elements = static_cast<std::size_t>(elements);
        c.exhaustive = parser.isSet(exhaustive);
        return fog::cli::runCodecBench(c, std::cout);
    }
    if (cmd == "bench" && o.args.value(0) == "scale") {
        QStringList a;
        if (parser.isSet(devices)) a << "--devices" << parser.value(devices);
        if (parser.isSet(contentionSetting)) a << "--contention" << parser.value(contentionSetting);
        return fog::cli::runScaleBench(a, std::cout);
    }
    if (cmd == "bench") {
        fog::cli::BenchOptions b;
        b.threads = o.threadsGiven ? o.threads : 2;
        if (!wholeNumber(rounds, b.rounds, 1) || !wholeNumber(pairs, b.pairs, 1) || !wholeNumber(cnnRounds, b.cnnRounds, 0)) return 2;
        if (b.pairs > 100) return usageError("--pairs takes a whole number from 1 to 100");
        if (!o.args.isEmpty()) return usageError("bench has no subcommand '" + o.args.first().toStdString() + "' (known: store, mpi, scale, network, codecs)");
        b.quick = parser.isSet(quick);
        b.quiet = o.quiet;
        b.sharedLink = parser.isSet(sharedLink);
        return fog::cli::runBench(b, std::cout);
    }
    return usageError("unknown command '" + cmd.toStdString() + "'");
}

int main(int argc, char** argv) {
    // No command ends in an abort: an error no command caught (a database that cannot be
    // written, ...) is said in one line and the exit status is 1.
    try {
        return cliMain(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "fogstudio-cli: " << e.what() << "\n";
        return 1;
    }
}
