#include "app/cli/bench.h"

#include "core/data/dataset.h"
#include "core/engine/engine.h"
#include "core/model/fast_blas.h"
#include "core/model/fast_kernels.h"
#include "core/model/fast_net.h"
#include "core/model/learner.h"
#include "core/store/run_store.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sys/resource.h>
#include <ctime>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
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

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// GFLOP/s of `lib`'s sgemm on C (m x n) = A (m x k) B^T or, `weightGradient`, A^T (m x k) B
/// (the two products of a dense layer's step): the best of a few timed repetitions.
double sgemmRate(const fastblas::Library& lib, int m, int n, int k, bool weightGradient, double seconds) {
    // CPU time of this thread, not wall time: on a loaded machine a large product is
    // preempted, and the bound is a CPU-seconds figure compared with CPU seconds.
    auto threadCpu = [] {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    };
    std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f), b(static_cast<std::size_t>(n) * k, 0.25f),
        c(static_cast<std::size_t>(m) * n);
    const double flops = 2.0 * m * n * k;
    int reps = std::max(1, static_cast<int>(1e8 / flops));
    double best = 1e300;
    const double until = threadCpu() + seconds;
    do {
        const double t0 = threadCpu();
        for (int r = 0; r < reps; ++r) {
            if (weightGradient)
                lib.sgemm(true, false, m, n, k, 1.0f, a.data(), m, b.data(), n, 0.0f, c.data(), n);
            else
                lib.sgemm(false, true, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, c.data(), n);
        }
        best = std::min(best, (threadCpu() - t0) / reps);
    } while (threadCpu() < until);
    return flops / best / 1e9;
}

/// GFLOP/s of the fast path's own dense kernels (core/model/fast_kernels.h) on the batch's
/// products: the forward (10x784 by 784x200, bias included) and the weight gradient fused with
/// the momentum step (200x10 by 10x784, counted as the product's FLOPs only).
std::pair<double, double> kernelRates(const fastkernels::Dense& k, double seconds) {
    auto threadCpu = [] {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    };
    const int b = 10, in = 784, out = 200;
    std::vector<float> x(static_cast<std::size_t>(b) * in + 16, 0.5f), w(static_cast<std::size_t>(out) * (in + 1), 0.01f),
        buf(w.size(), 0.0f), z(static_cast<std::size_t>(b) * out), delta(static_cast<std::size_t>(b) * out, 0.001f);
    // Rows 32-byte aligned, as the fast path hands them over.
    float* x0 = x.data();
    while (reinterpret_cast<std::uintptr_t>(x0) % 32) ++x0;
    std::vector<const float*> rows;
    for (int r = 0; r < b; ++r) rows.push_back(x0 + static_cast<std::size_t>(r) * in);
    fastkernels::StepArgs a;
    a.b = b;
    a.in = in;
    a.out = out;
    a.delta = delta.data();
    a.x = rows.data();
    a.beta = 0.5f;
    a.w = w.data();
    a.buf = buf.data();
    a.lr = 1e-6f;
    const double flops = 2.0 * b * in * out;
    double best[2] = {1e300, 1e300};
    for (int which = 0; which < 2; ++which) {
        const double until = threadCpu() + seconds;
        do {
            const double t0 = threadCpu();
            for (int r = 0; r < 100; ++r) {
                if (which == 0)
                    k.forward(b, in, out, rows.data(), w.data(), z.data());
                else
                    k.step(a);
            }
            best[which] = std::min(best[which], (threadCpu() - t0) / 100);
        } while (threadCpu() < until);
    }
    return {flops / best[0] / 1e9, flops / best[1] / 1e9};
}

} // namespace

int runBench(const BenchOptions& o, std::ostream& out) {
    const int clients = o.quick ? 20 : 100, perRound = 10, epochs = o.quick ? 1 : 5;
    const int rounds = o.quick ? 3 : o.rounds;
    const int pairs = o.quick ? std::min(o.pairs, 2) : o.pairs;
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

    // The arithmetic of the workload and what one core can do: the FLOP bound.
    const FastNet net(s.model, data->train, data->test);
    const double partSize = static_cast<double>(data->train.size()) / clients;
    const double trainedSamples = static_cast<double>(rounds) * perRound * epochs * partSize;
    const double evaluations = std::ceil(static_cast<double>(rounds) / s.evaluation.everyRounds);
    const double flops = trainedSamples * net.trainFlopsPerSample() +
                         evaluations * static_cast<double>(data->test.size()) * net.evalFlopsPerSample();
    out << "\nMatrix products, one core (GFLOP/s; the batch's 10-row products decide the fast path's library):\n";
    double peak = 0.0;
    std::string peakLib;
    for (const auto& lib : fastblas::libraries()) {
        const double large = sgemmRate(lib, 1536, 1536, 1536, false, o.quick ? 0.3 : 1.0);
        const double fwd = sgemmRate(lib, 10, 200, 784, false, 0.3);
        const double grad = sgemmRate(lib, 200, 784, 10, true, 0.3);
        out << "  " << std::left << std::setw(34) << lib.name << std::right << std::setprecision(1)
            << " 1536^3: " << std::setw(6) << large << "   10x784 by 784x200: " << std::setw(6) << fwd
            << "   200x10 by 10x784: " << std::setw(6) << grad << "\n";
        if (large > peak) {
            peak = large;
            peakLib = lib.name;
        }
    }
    if (const fastkernels::Dense* k = fastkernels::dense()) {
        const auto [fwd, step] = kernelRates(*k, 0.3);
        out << "  " << std::left << std::setw(34) << (std::string("fast path's ") + k->name + " kernels") << std::right
            << std::setprecision(1) << "         " << std::setw(6) << "" << "   10x784 by 784x200: " << std::setw(6) << fwd
            << "   200x10 by 10x784: " << std::setw(6) << step << " (with the momentum step)\n";
    }
    const double boundSeconds = peak > 0 ? flops / (peak * 1e9) : 0.0;
    out << "  the fast path uses " << fastblas::chosen().name
        << (fastkernels::dense() ? std::string(", and its ") + fastkernels::dense()->name +
                                       " kernels for the dense layers on batches of at most " +
                                       std::to_string(fastkernels::kMaxBatch)
                                 : std::string())
        << "\n"
        << std::setprecision(1) << "Workload: " << flops / 1e9 << " GFLOP of matrix products ("
        << trainedSamples / 1e3 << "k samples trained x " << net.trainFlopsPerSample() / 1e6 << " MFLOP, "
        << evaluations * data->test.size() / 1e3 << "k evaluated x " << net.evalFlopsPerSample() / 1e6
        << " MFLOP); FLOP bound " << std::setprecision(2) << boundSeconds << " CPU s at " << std::setprecision(1)
        << peak << " GFLOP/s (" << peakLib << ", large sgemm).\n";

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
    // blasOnly: the fast path without its dense kernels (FOGSTUDIO_FAST_KERNELS=blas), the code
    // it ran before them, timed in the same passes for a before/after ratio.
    auto emulator = [&](int threads, TrainingBackend backend, bool blasOnly = false) {
        Scenario sb = s;
        sb.training.backend = backend;
        EngineOptions opt;
        opt.threads = threads;
        opt.data = data;
        if (blasOnly) fastkernels::setMode(fastkernels::Mode::Blas);
        Engine engine(sb, opt);
        fastkernels::setMode(fastkernels::Mode::Auto);
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

    struct Config {
        std::string name;
        int threads;
        std::function<Row()> run;
        std::vector<Row> rows;
    };
    std::vector<Config> configs;
    for (int threads : {1, o.threads}) {
        if (threads == 1 && o.threads == 1 && !configs.empty()) break;
        configs.push_back({"plain loop", threads, [&plain, threads] { return plain(threads); }, {}});
        configs.push_back({"libtorch", threads, [&emulator, threads] { return emulator(threads, TrainingBackend::LibTorch); }, {}});
        configs.push_back({"fast", threads, [&emulator, threads] { return emulator(threads, TrainingBackend::Fast); }, {}});
        if (threads == 1 && fastkernels::dense())
            configs.push_back({"fast BLAS", threads, [&emulator] { return emulator(1, TrainingBackend::Fast, true); }, {}});
    }
    const std::string loadBefore = loadAverage();
    // A B C A B C ...: every configuration sees the same drift of the machine's load, and the
    // medians of the pairs hold a ratio on a shared machine where one run each would not.
    for (int p = 0; p < pairs; ++p)
        for (auto& c : configs) {
            c.rows.push_back(c.run());
            if (!o.quiet) std::cerr << "  pass " << p + 1 << "/" << pairs << ": " << c.name << ", " << c.threads
                                    << " thread(s): " << std::fixed << std::setprecision(2) << c.rows.back().cpu
                                    << " CPU s\n";
        }
    struct Med {
        double seconds, cpu, mainCpu, accuracy, preempted, cpuMin, cpuMax;
    };
    auto med = [](const Config& c) {
        std::vector<double> w, cpu, main, pre;
        for (const auto& r : c.rows) {
            w.push_back(r.seconds);
            cpu.push_back(r.cpu);
            main.push_back(r.mainCpu);
            pre.push_back(static_cast<double>(r.preempted));
        }
        return Med{median(w), median(cpu), median(main), c.rows.front().accuracy, median(pre),
                   *std::min_element(cpu.begin(), cpu.end()), *std::max_element(cpu.begin(), cpu.end())};
    };
    auto find = [&](const std::string& name, int threads) -> const Config& {
        for (const auto& c : configs)
            if (c.name == name && c.threads == threads) return c;
        return configs.front();
    };
    out << "\nTimes: medians of " << pairs << " passes, configurations alternated A B C A B C (same process,\n"
        << "same data; load average " << loadBefore << " before, " << loadAverage() << " after):\n  " << std::left
        << std::setw(11) << "" << std::right << std::setw(8) << "threads" << std::setw(9) << "wall s" << std::setw(8)
        << "CPU s" << std::setw(15) << "(min-max)" << std::setw(8) << "main s" << std::setw(9) << "workers"
        << std::setw(10) << "preempted" << std::setw(10) << "accuracy" << std::setw(10) << "of bound" << "\n";
    for (const auto& c : configs) {
        const Med m = med(c);
        const double workers = (m.cpu - m.mainCpu) / (c.threads * m.seconds);
        bool same = true;
        for (const auto& r : c.rows) same = same && r.accuracy == c.rows.front().accuracy;
        std::ostringstream range;
        range << std::fixed << std::setprecision(2) << "(" << m.cpuMin << "-" << m.cpuMax << ")";
        out << "  " << std::left << std::setw(11) << c.name << std::right << std::setw(8) << c.threads
            << std::setprecision(2) << std::setw(9) << m.seconds << std::setw(8) << m.cpu << std::setw(15)
            << range.str() << std::setw(8) << m.mainCpu << std::setprecision(0) << std::setw(8) << 100.0 * workers
            << "%" << std::setw(10) << m.preempted << std::setprecision(2) << std::setw(9) << 100.0 * m.accuracy
            << (same ? "%" : "%*") << std::setprecision(1) << std::setw(9) << 100.0 * boundSeconds / m.cpu << "%\n";
    }
    out << "  CPU s: all threads; main s: the calling thread (the emulator's event loop, or the plain\n"
        << "  loop's rounds: aggregation, evaluation); workers: CPU of the other threads over threads x\n"
        << "  wall (the rest is waiting for work or for a core); preempted: involuntary context switches\n"
        << "  (other processes taking the cores); of bound: the FLOP bound's CPU seconds over the CPU s\n"
        << "  (the fraction of one core's large-sgemm speed reached); libtorch and fast: the emulator with\n"
        << "  training.backend libtorch or fast; fast BLAS: fast without its dense kernels (all products\n"
        << "  through the BLAS, FOGSTUDIO_FAST_KERNELS=blas); * an accuracy that differed between passes.\n";
    const Med p1 = med(find("plain loop", 1)), e1 = med(find("libtorch", 1)), f1 = med(find("fast", 1));
    const Med pn = med(find("plain loop", o.threads)), en = med(find("libtorch", o.threads)),
              fn = med(find("fast", o.threads));
    out << std::setprecision(3) << "\nRatios of medians:\n"
        << "  fast / libtorch, CPU s, 1 thread:      " << f1.cpu / e1.cpu << "  (target <= 0.5)\n"
        << "  fast / libtorch, wall, " << o.threads << " threads:      " << fn.seconds / en.seconds << "\n"
        << "  libtorch / plain loop, wall, 1 thread: " << e1.seconds / p1.seconds << "  (target <= 1.10)\n"
        << "  libtorch / plain loop, wall, " << o.threads << " threads:" << en.seconds / pn.seconds
        << "  (target <= 1.10)\n"
        << "  speed-up 1 -> " << o.threads << " threads (wall):     libtorch " << e1.seconds / en.seconds << ", fast "
        << f1.seconds / fn.seconds << ", plain loop " << p1.seconds / pn.seconds << "  (target >= 1.8 with 2 threads)\n"
        << "  CPU s, libtorch / plain loop:          " << e1.cpu / p1.cpu << " (1 thread), " << en.cpu / pn.cpu << " ("
        << o.threads << " threads)\n"
        << "  FLOP bound / CPU s, 1 thread:          fast " << boundSeconds / f1.cpu << ", libtorch "
        << boundSeconds / e1.cpu << "\n";
    if (fastkernels::dense()) {
        const Med b1 = med(find("fast BLAS", 1));
        out << "  fast BLAS / libtorch, CPU s, 1 thread: " << b1.cpu / e1.cpu << "  (FLOP bound / CPU s "
            << boundSeconds / b1.cpu << ")\n"
            << "  fast / fast BLAS, CPU s, 1 thread:     " << f1.cpu / b1.cpu << "  (the dense kernels' gain)\n";
    }

    if (o.cnnRounds > 0) {
        // The CNN (5x5 conv 16, pool, 5x5 conv 32, pool, dense 128 with dropout 0.5) on the same
        // federation, shorter: its step costs about ten times the MLP's.
        Scenario c = s;
        c.model.kind = ModelSpec::Kind::Cnn;
        c.model.hidden = {128};
        c.training.localEpochs = 1;
        c.stop.rounds = o.quick ? 1 : o.cnnRounds;
        c.evaluation.everyRounds = c.stop.rounds;
        const FastNet cnn(c.model, data->train, data->test);
        const double cnnFlops =
            static_cast<double>(c.stop.rounds) * perRound * partSize * cnn.trainFlopsPerSample() +
            static_cast<double>(data->test.size()) * cnn.evalFlopsPerSample();
        const double cnnBound = peak > 0 ? cnnFlops / (peak * 1e9) : 0.0;
        out << "\nCNN workload: the same federation, model cnn (conv 5x5x16, pool, conv 5x5x32, pool, dense 128,\n"
            << "dropout 0.5), " << c.stop.rounds << " rounds of 1 local epoch, 1 thread: " << std::setprecision(1)
            << cnnFlops / 1e9 << " GFLOP of matrix products, FLOP bound " << std::setprecision(2) << cnnBound
            << " CPU s.\n";
        // libtorch, fast, and fast without its dense kernels (where it has them), alternated.
        const int kinds = fastkernels::dense() ? 3 : 2;
        const char* names[3] = {"libtorch", "fast", "fast BLAS"};
        std::vector<Row> rows[3];
        for (int p = 0; p < pairs; ++p)
            for (int k = 0; k < kinds; ++k) {
                Scenario sb = c;
                sb.training.backend = k == 0 ? TrainingBackend::LibTorch : TrainingBackend::Fast;
                EngineOptions opt;
                opt.threads = 1;
                opt.data = data;
                if (k == 2) fastkernels::setMode(fastkernels::Mode::Blas);
                Engine engine(sb, opt);
                fastkernels::setMode(fastkernels::Mode::Auto);
                rows[k].push_back(timed([&] { return engine.run().finalTestAccuracy; }));
                if (!o.quiet)
                    std::cerr << "  pass " << p + 1 << "/" << pairs << ": cnn " << names[k] << ": " << std::fixed
                              << std::setprecision(2) << rows[k].back().cpu << " CPU s\n";
            }
        double cpu[3], wall[3];
        for (int k = 0; k < kinds; ++k) {
            std::vector<double> cs, ws;
            for (const auto& r : rows[k]) {
                cs.push_back(r.cpu);
                ws.push_back(r.seconds);
            }
            cpu[k] = median(cs);
            wall[k] = median(ws);
            out << "  " << std::left << std::setw(11) << names[k] << std::right << std::setprecision(2)
                << std::setw(8) << wall[k] << " wall s" << std::setw(8) << cpu[k] << " CPU s  accuracy "
                << 100.0 * rows[k].front().accuracy << "%  " << std::setprecision(1) << 100.0 * cnnBound / cpu[k]
                << "% of the FLOP bound\n";
        }
        out << std::setprecision(3) << "  fast / libtorch, CPU s (medians of " << pairs << " alternated passes): "
            << cpu[1] / cpu[0];
        if (kinds == 3) out << "; fast BLAS / libtorch " << cpu[2] / cpu[0] << "; fast / fast BLAS " << cpu[1] / cpu[2];
        out << "\n";
    }
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

namespace fog::cli {

int printBenchHelp(const std::string& sub, std::ostream& out) {
    if (sub.empty()) {
        out << R"(Usage: fogstudio-cli bench [--threads N] [--rounds R] [--pairs P] [--cnn-rounds R] [--quick]
                           [--shared-link] [--quiet]

Times the reference workload (Fashion-MNIST, 100 IID clients, 10 per round, FedAvg with 5
local epochs of batch 10, SGD lr 0.01 momentum 0.5, MLP 784-200-10 with dropout 0.5) through
a plain LibTorch loop and through the emulator with training.backend libtorch and fast, at 1
thread and at N; at 1 thread also "fast BLAS", the fast path without its AVX2+FMA dense
kernels (where the CPU has them), for the kernels' gain in the same passes. The
configurations run in turn (A B C A B C ...) for P passes and the table shows medians, so
ratios hold on a shared machine. Also prints one core's sgemm speed (a large product and the
batch's 10-row products, per BLAS library found, and the dense kernels' on the same shapes),
the workload's FLOP count, its FLOP bound (the FLOPs at the large-sgemm speed) and the
fraction of it each path reached. Then the CNN on the same federation (shorter), libtorch vs
fast (vs fast BLAS), alternated the same way.
A benchmark: it prints, it never fails on a number.

Options:
  --threads N     threads of the second set of runs (default 2)
  --rounds R      rounds of the workload (default 10)
  --pairs P       passes over the configurations (default 3)
  --cnn-rounds R  rounds of the CNN workload (default 2, 1 local epoch each; 0 skips it)
  --quick         a small workload (20 clients, 1 epoch, 3 rounds, 1 CNN round, at most 2 passes)
  --shared-link   the clients share one 100 Mbps link: the emulator's flow-level network runs
  --quiet         no per-pass progress lines on stderr

Subcommands (each with its own --help): store, mpi, scale, network, codecs.
)";
        return 0;
    }
    if (sub == "store") {
        out << R"(Usage: fogstudio-cli bench store

Times the run store in a fresh temporary database: writing 1,000,000 metric rows (100
batches of 10,000, as the recorder writes them), reading them back, creating 10,000 runs,
listing them, and listing those with a tag. No options.
)";
        return 0;
    }
    if (sub == "mpi") {
        out << R"(Usage: fogstudio-cli bench mpi

A 16-trial timing-only sweep (120 spot devices, selection.k = 4..32 x 2 repeats, 2000
rounds) under `mpirun -n 1` and `mpirun -n 2`, alternated over 3 passes; prints each pass,
the medians and the speed-up (ratio of medians). Needs a build with MPI and mpirun on PATH.
No options.
)";
        return 0;
    }
    if (sub == "scale") {
        out << R"(Usage: fogstudio-cli bench scale [--devices N] [--contention on|off|both]

Engine memory and time at scale: one group of N devices (default 1,000,000; at most
10,000,000) under one cloud, timing only, Markov availability (up 20 min, down 5 min on
average), random-k 100 per round, fully-sync, 200 rounds, run with the flow-level network
off (topology.contention: false) and on (the default network model: the round's devices
share the group's link, so the run covers about 34 times the virtual time and 8 million
availability changes at 10^6 devices). Each setting runs in a child process of its own and
prints its peak RSS, the scenario's reading, the engine's building, set-up to the first
event, the run, wall and CPU seconds, and the run's figures (rounds, virtual seconds,
events, jobs lost; with contention the flow starts and ends, most flows at once and flow
classes recomputed). A benchmark: it asserts nothing. docs/network.md has the figures.
  --devices N        devices in the group (default 1000000)
  --contention MODE  on, off or both (default both: off, then on)
)";
        return 0;
    }
    if (sub == "network") {
        out << R"(Usage: fogstudio-cli bench network [--presets [DIR]]

Flow-level network sharing in speed: timing-only workloads (presets/edge-1000-devices.yaml,
10,000 devices under 100 relay sites, and 10,000 devices in one cell) with
topology.contention off and on, alternated over 3 passes (medians of the wall time shown):
events per second, the on/off ratio and the network's recompute counts.
  --presets [DIR]  instead: every training preset in DIR (default presets), shortened,
                   contention off vs on: virtual time per round, cost and bytes.
)";
        return 0;
    }
    if (sub == "codecs") {
        out << R"(Usage: fogstudio-cli bench codecs [--elements N] [--pairs P] [--bits B] [--exhaustive]

The update codecs' speed (docs/learning.md, "Codec speed"): fp16 and quantize encode and
decode one vector of N coordinates (normal draws, standard deviation 0.01), in their fast
form and in the element-by-element reference form they replaced, alternated over P passes;
prints the median seconds per pass, million coordinates per second, the speed-up, and
whether the two outputs are identical bit for bit (quantize: the same seed). Then top-k's
throughput at 1% with error feedback (one implementation). A benchmark: it asserts no
figure; it exits 1 only when a fast output differs from its reference.
  --elements N   coordinates (default 1000000)
  --pairs P      passes (default 5)
  --bits B       quantize's bits b (default 8; 2..16)
  --exhaustive   also compare fp16 with its reference on all 2^32 floats (about a minute)
)";
        return 0;
    }
    std::cerr << "fogstudio-cli: bench has no subcommand '" << sub
              << "' (known: store, mpi, scale, network, codecs)\nTry 'fogstudio-cli bench --help'.\n";
    return 2;
}

} // namespace fog::cli
