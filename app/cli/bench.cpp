#include "app/cli/bench.h"

#include "core/data/dataset.h"
#include "core/engine/engine.h"
#include "core/model/learner.h"
#include "core/store/run_store.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <iomanip>
#include <sstream>

namespace fog::cli {

namespace {

double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); }

/// CPU seconds (user + system) and involuntary context switches, of the whole process or of
/// the calling thread: with the wall time they tell training work from waiting, and show
/// how much of the machine other processes took.
struct CpuSample {
    double process = 0.0, thread = 0.0;
    long preempted = 0; ///< involuntary context switches of the process
};

CpuSample cpuNow() {
    CpuSample c;
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) == 0) {
        c.process = seconds(u.ru_utime) + seconds(u.ru_stime);
        c.preempted = u.ru_nivcsw;
    }
    if (getrusage(RUSAGE_THREAD, &u) == 0) c.thread = seconds(u.ru_utime) + seconds(u.ru_stime);
    return c;
}

std::string loadAverage() {
    double l[3] = {0, 0, 0};
    if (getloadavg(l, 3) != 3) return "unknown";
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << l[0] << ", " << l[1] << ", " << l[2];
    return s.str();
}

/// Fashion-MNIST, N IID clients under one server, 10 per round, FedAvg with E local epochs,
/// batch 10, SGD lr 0.01 momentum 0.5, MLP 784-200-10 with dropout 0.5, no virtual delays.
Scenario referenceScenario(int clients, int perRound, int epochs, int rounds) {
    Scenario s;
    s.name = "bench-reference";
    s.seed = 1;
    NodeSpec server;
    server.id = "server";
    server.tier = Tier::Cloud;
    server.role = Role::Aggregator;
    s.topology.nodes.push_back(server);
    NodeSpec g;
    g.id = "client";
    g.group = true;
    g.count = clients;
    g.parent = "server";
    s.topology.nodes.push_back(g);
    s.data.kind = DataSpec::Kind::FashionMnist;
    s.data.partition.kind = PartitionSpec::Kind::Iid;
    s.model.kind = ModelSpec::Kind::Mlp;
    s.model.hidden = {200};
    s.model.dropout = 0.5;
    s.training.learningRate = 0.01;
    s.training.momentum = 0.5;
    s.training.batchSize = 10;
    s.training.localEpochs = epochs;
    s.sync.name = "fedavg";
    s.selection.name = "random-k";
    s.selection.params["k"] = perRound;
    s.stop.rounds = rounds;
    s.evaluation.everyRounds = rounds; // evaluate once, at the end, like the plain loop
    return s;
}

} // namespace

int runBench(const BenchOptions& o, std::ostream& out) {
    const int clients = o.quick ? 20 : 100, perRound = 10, epochs = o.quick ? 1 : 5;
    const int rounds = o.quick ? 3 : o.rounds;
    Scenario s = referenceScenario(clients, perRound, epochs, rounds);
    if (o.sharedLink) {
        LinkParams l;
        l.bandwidthUpMbps = l.bandwidthDownMbps = 100;
        l.latencyMs = 10;
        s.topology.nodes[1].link = l;
        s.topology.nodes[1].linkSharing = LinkSharing::Shared;
        s.topology.contention = true;
    }
    out << "Reference workload: Fashion-MNIST, " << clients << " IID clients, " << perRound
        << " per round, FedAvg, " << epochs << " local epochs, batch 10, SGD lr 0.01 momentum 0.5,\n"
        << "MLP 784-200-10 with dropout 0.5, " << rounds << " rounds, "
        << (o.sharedLink ? "the clients share one 100 Mbps link (contention on).\n\n" : "no virtual delays.\n\n");

    double t0 = wallNow();
    std::vector<double> weights(static_cast<std::size_t>(clients), 1.0);
    auto data = std::make_shared<DataBundle>(loadData(s.data, weights, s.seed));
    out << "data loaded in " << std::fixed << std::setprecision(2) << wallNow() - t0 << " s\n";
    useSingleThreadedKernels();

    struct Row {
        double seconds = 0.0;
        double accuracy = 0.0;
        double cpu = 0.0;     ///< CPU seconds of every thread
        double mainCpu = 0.0; ///< of the calling thread: the engine thread, or the plain loop's round loop
        long preempted = 0;
    };
    auto timed = [](auto&& body) {
        const CpuSample c0 = cpuNow();
        const double start = wallNow();
        Row r;
        r.accuracy = body();
        r.seconds = wallNow() - start;
        const CpuSample c1 = cpuNow();
        r.cpu = c1.process - c0.process;
        r.mainCpu = c1.thread - c0.thread;
        r.preempted = c1.preempted - c0.preempted;
        return r;
    };
    auto emulator = [&](int threads) {
        EngineOptions opt;
        opt.threads = threads;
        opt.data = data;
        Engine engine(s, opt);
        return timed([&] { return engine.run().finalTestAccuracy; });
    };
    auto plain = [&](int threads) {
        PlainFedAvgConfig c;
        c.model = s.model;
        c.clients = clients;
        c.clientsPerRound = perRound;
        c.rounds = rounds;
        c.epochs = epochs;
        c.threads = threads;
        c.seed = s.seed;
        return timed([&] { return runPlainFedAvg(c, data->train, data->test, data->parts).accuracy; });
    };

    const std::string loadBefore = loadAverage();
    const Row p1 = plain(1), e1 = emulator(1);
    const Row pn = plain(o.threads), en = emulator(o.threads);
    auto line = [&](const char* what, int threads, const Row& r) {
        const double workers = (r.cpu - r.mainCpu) / (threads * r.seconds);
        out << "  " << std::left << std::setw(11) << what << std::right << std::setw(8) << threads
            << std::setprecision(2) << std::setw(9) << r.seconds << std::setw(8) << r.cpu << std::setw(8)
            << r.mainCpu << std::setprecision(0) << std::setw(8) << 100.0 * workers << "%" << std::setw(10)
            << r.preempted << std::setprecision(2) << std::setw(9) << 100.0 * r.accuracy << "%\n";
    };
    out << "\nTimes (same process, same data; load average " << loadBefore << " before, " << loadAverage()
        << " after):\n  " << std::left << std::setw(11) << "" << std::right << std::setw(8) << "threads"
        << std::setw(9) << "wall s" << std::setw(8) << "CPU s" << std::setw(8) << "main s" << std::setw(9)
        << "workers" << std::setw(10) << "preempted" << std::setw(10) << "accuracy" << "\n";
    line("plain loop", 1, p1);
    line("emulator", 1, e1);
    line("plain loop", o.threads, pn);
    line("emulator", o.threads, en);
    out << "  CPU s: all threads; main s: the calling thread (the emulator's event loop, or the plain\n"
        << "  loop's rounds: aggregation, evaluation); workers: CPU of the other threads over threads x\n"
        << "  wall (the rest is waiting for work or for a core); preempted: involuntary context switches\n"
        << "  (other processes taking the cores).\n";
    out << std::setprecision(3) << "\nRatios:\n"
        << "  emulator / plain loop, 1 thread:       " << e1.seconds / p1.seconds << "  (target <= 1.10)\n"
        << "  emulator / plain loop, " << o.threads << " threads:      " << en.seconds / pn.seconds
        << "  (target <= 1.10)\n"
        << "  emulator speed-up, 1 -> " << o.threads << " threads:      " << e1.seconds / en.seconds
        << "  (target >= 1.8 with 2 threads)\n"
        << "  plain loop speed-up, 1 -> " << o.threads << " threads:    " << p1.seconds / pn.seconds << "\n"
        << "  CPU seconds, emulator / plain loop:    " << e1.cpu / p1.cpu << " (1 thread), " << en.cpu / pn.cpu
        << " (" << o.threads << " threads)\n";
    return 0;
}

int runStoreBench(std::ostream& out) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("fogstudio-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string path = (dir / "bench.db").string();
    {
        RunStore store(path);
        NewRun meta;
        meta.name = "bench";
        const auto run = store.beginRun(meta);
        // One million rows as the recorder writes them: batches of 10,000 per transaction.
        std::vector<AggregationRecord> batch(10000);
        double t0 = wallNow();
        for (int b = 0; b < 100; ++b) {
            for (int i = 0; i < 10000; ++i) {
                auto& r = batch[static_cast<std::size_t>(i)];
                r.round = b * 10000 + i + 1;
                r.time = r.round * 0.5;
                r.trainLoss = 1.0 / r.round;
                r.participants = 10;
                r.cost = r.round * 0.001;
                r.testAccuracy = i % 10 == 0 ? 0.8 : kNaN;
                r.aggregator = "cloud";
            }
            store.appendBatch(run, batch, {}, {});
        }
        const double writeS = wallNow() - t0;
        t0 = wallNow();
        const auto back = store.metrics(run);
        const double readS = wallNow() - t0;

        t0 = wallNow();
        RunSummary summary;
        for (int i = 0; i < 10000; ++i) {
            meta.name = "run " + std::to_string(i);
            meta.tags = {i % 2 ? "odd" : "even"};
            store.finishRun(store.beginRun(meta), summary);
        }
        const double createS = wallNow() - t0;
        t0 = wallNow();
        const auto runs = store.listRuns();
        const double listS = wallNow() - t0;
        t0 = wallNow();
        const auto tagged = store.listRuns({"odd", "", 0, 0});
        const double listTagS = wallNow() - t0;

        out << std::fixed << std::setprecision(3) << "Run store benchmark (" << path << "):\n"
            << "  store 1,000,000 metric rows (100 batches):  " << writeS << " s   (goal < 2 s)\n"
            << "  read them back (" << back.size() << " rows):             " << readS << " s\n"
            << "  create 10,000 runs (one transaction each):   " << createS << " s\n"
            << "  list " << runs.size() << " runs:                          " << listS << " s   (goal < 0.5 s)\n"
            << "  list the " << tagged.size() << " runs with a tag:              " << listTagS << " s\n";
    }
    fs::remove_all(dir);
    return 0;
}

} // namespace fog::cli
