#include "app/cli/bench.h"

#include "core/data/dataset.h"
#include "core/engine/engine.h"
#include "core/model/learner.h"
#include "core/store/run_store.h"

#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include <chrono>
#include <iomanip>

namespace fog::cli {

namespace {

double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
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
    out << "Reference workload: Fashion-MNIST, " << clients << " IID clients, " << perRound
        << " per round, FedAvg, " << epochs << " local epochs, batch 10, SGD lr 0.01 momentum 0.5,\n"
        << "MLP 784-200-10 with dropout 0.5, " << rounds << " rounds, no virtual delays.\n\n";

    double t0 = wallNow();
    std::vector<double> weights(static_cast<std::size_t>(clients), 1.0);
    auto data = std::make_shared<DataBundle>(loadData(s.data, weights, s.seed));
    out << "data loaded in " << std::fixed << std::setprecision(2) << wallNow() - t0 << " s\n";
    useSingleThreadedKernels();

    struct Row {
        double seconds;
        double accuracy;
    };
    auto emulator = [&](int threads) {
        EngineOptions opt;
        opt.threads = threads;
        opt.data = data;
        Engine engine(s, opt);
        const double start = wallNow();
        const RunSummary r = engine.run();
        return Row{wallNow() - start, r.finalTestAccuracy};
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
        const double start = wallNow();
        const EvalResult r = runPlainFedAvg(c, data->train, data->test, data->parts);
        return Row{wallNow() - start, r.accuracy};
    };

    const Row p1 = plain(1), e1 = emulator(1);
    const Row pn = plain(o.threads), en = emulator(o.threads);
    auto line = [&](const char* what, int threads, const Row& r) {
        out << "  " << std::left << std::setw(12) << what << std::right << std::setw(3) << threads
            << " thread(s) " << std::setw(9) << std::setprecision(2) << r.seconds << " s   test accuracy "
            << std::setprecision(2) << 100.0 * r.accuracy << "%\n";
    };
    out << "\nWall-clock times (same process, same data):\n";
    line("plain loop", 1, p1);
    line("emulator", 1, e1);
    line("plain loop", o.threads, pn);
    line("emulator", o.threads, en);
    out << std::setprecision(3) << "\nRatios:\n"
        << "  emulator / plain loop, 1 thread:       " << e1.seconds / p1.seconds << "  (target <= 1.10)\n"
        << "  emulator / plain loop, " << o.threads << " threads:      " << en.seconds / pn.seconds
        << "  (target <= 1.10)\n"
        << "  emulator speed-up, 1 -> " << o.threads << " threads:      " << e1.seconds / en.seconds
        << "  (target >= 1.8 with 2 threads)\n"
        << "  plain loop speed-up, 1 -> " << o.threads << " threads:    " << p1.seconds / pn.seconds << "\n";
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
