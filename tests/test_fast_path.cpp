// The fast training path (training.backend: fast, core/model/fast_net.h) against the LibTorch
// path it stands in for: the same loss and parameters after a step on a fixed batch, the same
// accuracy band over seeds on a short Fashion-MNIST run, the same results for any number of
// threads, and the key's value checked with its file and line. Timings only in `bench`.

#include "engine_fixtures.h"

#include "core/data/dataset.h"
#include "core/model/fast_kernels.h"
#include "core/model/fast_net.h"
#include "core/model/learner.h"
#include "core/scenario/scenario_io.h"
#include "core/util/random.h"

#include <QtTest>
#include <cmath>
#include <cstring>
#include <filesystem>

using namespace fog;
using namespace fogtest;

namespace {

bool haveFashionMnist() {
    return std::filesystem::exists(defaultFashionMnistDir() + "/train-images-idx3-ubyte.gz");
}

/// side x side one-channel "images" with random pixels and labels: enough for every model kind.
Dataset randomImages(std::size_t n, std::uint64_t seed, int side = 16) {
    Dataset d;
    d.channels = 1;
    d.height = side;
    d.width = side;
    d.classes = 10;
    Rng rng(seed);
    for (std::size_t i = 0; i < n * static_cast<std::size_t>(side * side); ++i)
        d.features.push_back(rng.uniform() < 0.3 ? 0.0f : static_cast<float>(rng.uniform(-1.0, 2.0)));
    for (std::size_t i = 0; i < n; ++i) d.labels.push_back(static_cast<std::int64_t>(rng.uniform() * 10) % 10);
    return d;
}

double relative(double a, double b) { return std::abs(a - b) / std::max(1e-30, std::max(std::abs(a), std::abs(b))); }

/// The same job through both paths: the loss and every parameter change agree to float
/// rounding (the two compute the same sums in another order).
void compareJob(const Learner& torchPath, const Learner& fastPath, const LocalJob& job, double lossTolerance) {
    const LocalResult a = torchPath.run(job), b = fastPath.run(job);
    QCOMPARE(b.steps, a.steps);
    QCOMPARE(b.samples, a.samples);
    QVERIFY2(relative(a.meanLoss, b.meanLoss) <= lossTolerance,
             qPrintable(QString("loss %1 (LibTorch) vs %2 (fast)").arg(a.meanLoss, 0, 'g', 10).arg(b.meanLoss, 0, 'g', 10)));
    QCOMPARE(b.update.size(), a.update.size());
    double largest = 0.0;
    for (float u : a.update) largest = std::max(largest, std::abs(double(u)));
    QVERIFY(largest > 0.0);
    std::size_t moved = 0;
    for (std::size_t i = 0; i < a.update.size(); ++i) {
        // Float sums of up to a few hundred terms in another order: relative to the largest change.
        if (std::abs(double(a.update[i]) - double(b.update[i])) > 1e-4 * largest + 1e-7)
            QFAIL(qPrintable(QString("parameter %1: change %2 (LibTorch) vs %3 (fast)")
                                 .arg(i)
                                 .arg(double(a.update[i]), 0, 'g', 9)
                                 .arg(double(b.update[i]), 0, 'g', 9)));
        moved += a.update[i] != 0.0f;
    }
    QVERIFY2(moved > a.update.size() / 3, "the step should change most parameters");

    // Evaluation after the step: the same loss and accuracy on the test set.
    if (!job.gradientOnly) {
        Params after = *job.start;
        for (std::size_t i = 0; i < after.size(); ++i) after[i] += a.update[i];
        const EvalResult ea = torchPath.evaluate(after), eb = fastPath.evaluate(after);
        QVERIFY2(relative(ea.loss, eb.loss) <= 1e-5,
                 qPrintable(QString("test loss %1 vs %2").arg(ea.loss, 0, 'g', 10).arg(eb.loss, 0, 'g', 10)));
        QCOMPARE(eb.accuracy, ea.accuracy);
        QCOMPARE(eb.samples, ea.samples);
    }
}

Scenario fmnistFedAvg(int clients, int trainSamples, TrainingBackend backend, std::uint64_t seed) {
    Scenario s = timingStar(clients, 500.0, NoiseSpec::Kind::Exponential);
    s.name = "fmnist-fast-path";
    s.seed = seed;
    s.data.kind = DataSpec::Kind::FashionMnist;
    s.data.maxTrainSamples = trainSamples;
    s.data.maxTestSamples = 2000;
    s.model.kind = ModelSpec::Kind::Mlp;
    s.model.hidden = {200};
    s.model.dropout = 0.5;
    s.training.learningRate = 0.01;
    s.training.momentum = 0.5;
    s.training.batchSize = 10;
    s.training.localEpochs = 1;
    s.training.backend = backend;
    s.sync.name = "fedavg";
    return s;
}

QString loadErrors(const std::string& yaml) {
    try {
        loadScenarioText(yaml, "fast.yaml");
    } catch (const ScenarioError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

const char* kScenarioHead = R"(name: backends
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator}
    - {id: worker, role: trainer, parent: server}
data: {dataset: synthetic, partition: {kind: natural}}
)";

} // namespace

class TestFastPath : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneStepSameLoss_data() {
        QTest::addColumn<int>("model");
        QTest::addColumn<int>("steps");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<double>("weightDecay");
        QTest::addColumn<bool>("gradientOnly");
        QTest::addColumn<int>("side");    // 0: 21 for the CNN, 16 otherwise
        QTest::addColumn<bool>("odd");    // hidden {13, 7} and batches of 13 and 20 as well
        QTest::addColumn<bool>("kernels"); // the dense kernels where the CPU has them, else BLAS only
        const auto logreg = static_cast<int>(ModelSpec::Kind::LogReg), mlp = static_cast<int>(ModelSpec::Kind::Mlp);
        const auto cnn = static_cast<int>(ModelSpec::Kind::Cnn);
        QTest::newRow("logreg, one step, kernels") << logreg << 1 << 0.0 << 0.0 << false << 0 << false << true;
        QTest::newRow("logreg, one step, BLAS") << logreg << 1 << 0.0 << 0.0 << false << 0 << false << false;
        QTest::newRow("mlp, one step, kernels") << mlp << 1 << 0.0 << 0.0 << false << 0 << false << true;
        QTest::newRow("mlp, one step, BLAS") << mlp << 1 << 0.0 << 0.0 << false << 0 << false << false;
        QTest::newRow("mlp, one step, decay, kernels") << mlp << 1 << 0.5 << 1e-3 << false << 0 << false << true;
        QTest::newRow("mlp, one step, decay, BLAS") << mlp << 1 << 0.5 << 1e-3 << false << 0 << false << false;
        QTest::newRow("mlp, 5 steps, momentum 0.9, decay, kernels") << mlp << 5 << 0.9 << 1e-3 << false << 0 << false << true;
        QTest::newRow("mlp, 5 steps, momentum 0.9, decay, BLAS") << mlp << 5 << 0.9 << 1e-3 << false << 0 << false << false;
        QTest::newRow("logreg, 5 steps, momentum 0.5, kernels") << logreg << 5 << 0.5 << 0.0 << false << 0 << false << true;
        QTest::newRow("logreg, 5 steps, momentum 0.5, BLAS") << logreg << 5 << 0.5 << 0.0 << false << 0 << false << false;
        QTest::newRow("mlp, gradient only, kernels") << mlp << 3 << 0.0 << 0.0 << true << 0 << false << true;
        QTest::newRow("mlp, gradient only, BLAS") << mlp << 3 << 0.0 << 0.0 << true << 0 << false << false;
        QTest::newRow("cnn, one step, kernels") << cnn << 1 << 0.0 << 0.0 << false << 0 << false << true;
        QTest::newRow("cnn, one step, BLAS") << cnn << 1 << 0.0 << 0.0 << false << 0 << false << false;
        QTest::newRow("cnn, 5 steps, momentum 0.5, decay, kernels") << cnn << 5 << 0.5 << 1e-3 << false << 0 << false << true;
        QTest::newRow("cnn, 5 steps, momentum 0.5, decay, BLAS") << cnn << 5 << 0.5 << 1e-3 << false << 0 << false << false;
        QTest::newRow("cnn, gradient only, kernels") << cnn << 3 << 0.0 << 0.0 << true << 0 << false << true;
        QTest::newRow("cnn, gradient only, BLAS") << cnn << 3 << 0.0 << 0.0 << true << 0 << false << false;
        // Row lengths that are not multiples of 8 (the kernels' masked tails), an odd number of
        // units, and batches above fastkernels::kMaxBatch (BLAS code) inside the same job.
        for (bool k : {true, false}) {
            const char* tag = k ? ", kernels" : ", BLAS";
            QTest::newRow(qPrintable(QString("mlp, odd sizes, 5 steps, momentum 0.9, decay") + tag))
                << mlp << 5 << 0.9 << 1e-3 << false << 15 << true << k;
            QTest::newRow(qPrintable(QString("mlp, odd sizes, gradient only") + tag))
                << mlp << 4 << 0.0 << 0.0 << true << 15 << true << k;
            QTest::newRow(qPrintable(QString("logreg, odd sizes, 4 steps, momentum 0.5") + tag))
                << logreg << 4 << 0.5 << 0.0 << false << 13 << true << k;
        }
    }
    // Without dropout (the two paths draw different masks) the paths compute the same
    // function: the loss of the first step to 1e-5 relative, and the parameters after it.
    void oneStepSameLoss() {
        QFETCH(int, model);
        QFETCH(int, steps);
        QFETCH(double, momentum);
        QFETCH(double, weightDecay);
        QFETCH(bool, gradientOnly);
        QFETCH(int, side);
        QFETCH(bool, odd);
        QFETCH(bool, kernels);
        // 21x21 for the CNN: 17x17 after the first convolution, so pooling drops a row and a column.
        if (side == 0) side = model == static_cast<int>(ModelSpec::Kind::Cnn) ? 21 : 16;
        const Dataset train = randomImages(200, 7, side), test = randomImages(300, 8, side);
        ModelSpec spec;
        spec.kind = static_cast<ModelSpec::Kind>(model);
        spec.hidden = odd ? std::vector<int>{13, 7} : std::vector<int>{64, 32};
        spec.dropout = 0.0;
        fastkernels::setMode(kernels ? fastkernels::Mode::Auto : fastkernels::Mode::Blas);
        const Learner torchPath(spec, train, test, TrainingBackend::LibTorch);
        const Learner fastPath(spec, train, test, TrainingBackend::Fast);
        fastkernels::setMode(fastkernels::Mode::Auto);
        QVERIFY(!torchPath.fast());
        QVERIFY(fastPath.fast());
        // Where the CPU has AVX2 and FMA the kernels say so; with BLAS only, nothing is said.
        const bool usesKernels = fastPath.describe().find("dense kernels") != std::string::npos;
        QCOMPARE(usesKernels, kernels && fastkernels::dense() != nullptr);
        QCOMPARE(fastPath.parameterCount(), torchPath.parameterCount());
        QVERIFY(fastPath.describe().find("fast (") != std::string::npos);
        LocalJob job;
        job.start = std::make_shared<Params>(torchPath.initialParameters(3));
        Rng rng(11);
        const int evenSizes[] = {10, 7, 10, 10, 3}, oddSizes[] = {13, 20, 10, 1, 9};
        const int* sizes = odd ? oddSizes : evenSizes;
        for (int s = 0; s < steps; ++s) {
            job.batchSizes.push_back(sizes[s]);
            for (int i = 0; i < sizes[s]; ++i) job.samples.push_back(static_cast<std::int64_t>(rng.below(200)));
        }
        job.learningRate = 0.05;
        job.momentum = momentum;
        job.weightDecay = weightDecay;
        job.gradientOnly = gradientOnly;
        job.seed = 99;
        compareJob(torchPath, fastPath, job, steps == 1 ? 1e-5 : 1e-4);
    }

    // Dropout keeps units with probability 1 - p and scales them by 1 / (1 - p): averaged
    // over many masks, the fast path's loss at the start matches LibTorch's.
    void dropoutSameMeanLoss() {
        const Dataset train = randomImages(200, 7), test = randomImages(20, 8);
        ModelSpec spec;
        spec.kind = ModelSpec::Kind::Mlp;
        spec.hidden = {64};
        spec.dropout = 0.5;
        const Learner torchPath(spec, train, test, TrainingBackend::LibTorch);
        const Learner fastPath(spec, train, test, TrainingBackend::Fast);
        LocalJob job;
        job.start = std::make_shared<Params>(torchPath.initialParameters(5));
        for (int i = 0; i < 200; ++i) job.samples.push_back(i);
        job.batchSizes.assign(20, 10);
        job.gradientOnly = true; // every batch at the start parameters, with its own masks
        double a = 0.0, b = 0.0;
        const int draws = 40;
        for (int d = 0; d < draws; ++d) {
            job.seed = 1000 + static_cast<std::uint64_t>(d);
            a += torchPath.run(job).meanLoss / draws;
            b += fastPath.run(job).meanLoss / draws;
        }
        // The loss without dropout is lower: both paths must be above it by about as much.
        LocalJob plain = job;
        ModelSpec noDrop = spec;
        noDrop.dropout = 0.0;
        const Learner reference(noDrop, train, test, TrainingBackend::LibTorch);
        const double clean = reference.run(plain).meanLoss;
        qInfo("mean loss over %d mask draws: LibTorch %.5f, fast %.5f, without dropout %.5f", draws, a, b, clean);
        QVERIFY(a > clean && b > clean);
        QVERIFY2(std::abs((a - clean) - (b - clean)) < 0.15 * (a - clean),
                 "dropout should raise the loss by the same amount on both paths (within 15%)");
        // And a job is a pure function of its seed.
        job.seed = 7;
        const LocalResult r1 = fastPath.run(job), r2 = fastPath.run(job);
        QVERIFY(std::memcmp(&r1.meanLoss, &r2.meanLoss, sizeof(double)) == 0);
        QVERIFY(r1.update == r2.update);
    }

    // Band: over 5 seeds of a short run (10 IID clients, 6,000 samples, 3 rounds of one
    // epoch, MLP 784-200-10 with dropout 0.5), each path's mean accuracy is within 1.5 points
    // of the other's and every run of either is within 3 points of the LibTorch mean.
    void sameAccuracyBandOverSeeds() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        std::vector<double> torchAcc, fastAcc;
        for (std::uint64_t seed = 1; seed <= 5; ++seed) {
            for (auto backend : {TrainingBackend::LibTorch, TrainingBackend::Fast}) {
                Scenario s = fmnistFedAvg(10, 6000, backend, seed);
                s.stop.rounds = 3;
                s.evaluation.everyRounds = 3;
                Recorder rec;
                const RunSummary r = runScenario(s, rec, 2);
                QCOMPARE(r.status, RunStatus::Finished);
                (backend == TrainingBackend::Fast ? fastAcc : torchAcc).push_back(r.finalTestAccuracy);
            }
        }
        auto mean = [](const std::vector<double>& v) {
            double m = 0;
            for (double x : v) m += x / static_cast<double>(v.size());
            return m;
        };
        const double mt = mean(torchAcc), mf = mean(fastAcc);
        QString line;
        for (std::size_t i = 0; i < torchAcc.size(); ++i)
            line += QString(" seed %1: %2%/%3%").arg(i + 1).arg(100 * torchAcc[i], 0, 'f', 2).arg(100 * fastAcc[i], 0, 'f', 2);
        qInfo("test accuracy LibTorch/fast:%s; means %.2f%% / %.2f%%", qPrintable(line), 100 * mt, 100 * mf);
        QVERIFY2(mt > 0.70, "the short run should learn (LibTorch path)");
        QVERIFY2(std::abs(mt - mf) <= 0.015, "mean accuracies over 5 seeds differ by more than 1.5 points");
        for (double a : torchAcc) QVERIFY(std::abs(a - mt) <= 0.03);
        for (double a : fastAcc) QVERIFY(std::abs(a - mt) <= 0.03);
    }

    // Bit-identical metrics for 1 and 2 worker threads on the fast path, with volatile
    // trainers (lost work) and asynchronous updates.
    void sameMetricsForAnyThreadCount_data() {
        QTest::addColumn<QString>("policy");
        QTest::newRow("fedavg") << "fedavg";
        QTest::newRow("async") << "async";
    }
    void sameMetricsForAnyThreadCount() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        QFETCH(QString, policy);
        Scenario s = fmnistFedAvg(6, 3000, TrainingBackend::Fast, 7);
        s.sync.name = policy.toStdString();
        s.training.localEpochs = 0;
        s.training.localSteps = 5;
        s.training.weightDecay = 1e-4;
        s.stop.rounds = policy == "fedavg" ? 3 : 12;
        s.evaluation.everyRounds = 3;
        s.topology.group(0).availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.group(0).availability.meanUpS = 0.2;
        s.topology.group(0).availability.meanDownS = 0.05;
        Recorder one, two;
        runScenario(s, one, 1);
        runScenario(s, two, 2);
        QCOMPARE(one.records.size(), two.records.size());
        QVERIFY(!one.records.empty());
        for (std::size_t i = 0; i < one.records.size(); ++i) {
            const auto& a = one.records[i];
            const auto& b = two.records[i];
            QCOMPARE(a.time, b.time);
            QCOMPARE(a.participants, b.participants);
            QVERIFY(std::memcmp(&a.trainLoss, &b.trainLoss, sizeof(double)) == 0);
            QVERIFY(std::memcmp(&a.testAccuracy, &b.testAccuracy, sizeof(double)) == 0);
            QVERIFY(std::memcmp(&a.testLoss, &b.testLoss, sizeof(double)) == 0);
        }
        QCOMPARE(one.summary.finalTestAccuracy, two.summary.finalTestAccuracy);
        // The run says which path trained.
        QCOMPARE(one.count("training-backend"), 1);
        QVERIFY(one.events.front().detail.find("fast (") != std::string::npos);
    }

    // auto takes the fast path for the built-in dense models; libtorch (the default) emits
    // no event, so earlier runs' event logs stay as they were.
    void autoPicksTheFastPath() {
        for (auto backend : {TrainingBackend::Auto, TrainingBackend::LibTorch}) {
            Scenario s = timingStar(2, 100.0, NoiseSpec::Kind::None);
            useSmallRealTraining(s, 10);
            s.stop.rounds = 2;
            s.training.backend = backend;
            Recorder rec;
            runScenario(s, rec, 1);
            QCOMPARE(rec.count("training-backend"), backend == TrainingBackend::Auto ? 1 : 0);
            if (backend == TrainingBackend::Auto)
                QVERIFY(rec.events.front().detail.find("training.backend auto: fast (") == 0);
        }
    }

    void badValueRefusedWithLine() {
        const std::string yaml = std::string(kScenarioHead) + "model: {kind: logreg}\ntraining:\n  backend: fats\n";
        const QString e = loadErrors(yaml);
        QVERIFY2(e.contains("fast.yaml:9"), qPrintable(e));
        QVERIFY2(e.contains("training.backend"), qPrintable(e));
        QVERIFY2(e.contains("fast") && e.contains("libtorch") && e.contains("auto"), qPrintable(e));
        // The good values load, and a non-default one is written back.
        for (const char* v : {"libtorch", "fast", "auto"}) {
            const std::string ok = std::string(kScenarioHead) + "model: {kind: logreg}\ntraining:\n  backend: " + v + "\n";
            QVERIFY2(loadErrors(ok).isEmpty(), qPrintable(loadErrors(ok)));
            const Scenario s = loadScenarioText(ok, "fast.yaml");
            const std::string saved = saveScenarioText(s);
            QCOMPARE(saved.find("backend: ") != std::string::npos, std::string(v) != "libtorch");
            QCOMPARE(toString(loadScenarioText(saved, "saved").training.backend), v);
        }
    }
};

QTEST_APPLESS_MAIN(TestFastPath)
#include "test_fast_path.moc"
