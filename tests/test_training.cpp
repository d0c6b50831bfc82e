// Real training through the emulator: FedAvg learns Fashion-MNIST, and the metrics are the
// same whatever the number of worker threads.

#include "engine_fixtures.h"

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/util/random.h"

#include <QtTest>
#include <cmath>
#include <filesystem>

using namespace fog;
using namespace fogtest;

namespace {

bool haveFashionMnist() {
    return std::filesystem::exists(defaultFashionMnistDir() + "/train-images-idx3-ubyte.gz");
}

Scenario fmnistFedAvg(int clients, int trainSamples) {
    Scenario s = timingStar(clients, 500.0, NoiseSpec::Kind::Exponential);
    s.name = "fmnist-fedavg";
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
    s.sync.name = "fedavg";
    return s;
}

/// 16x16 one-channel "images" with random pixels and labels: enough for every model kind.
Dataset randomImages(std::size_t n, std::uint64_t seed) {
    Dataset d;
    d.channels = 1;
    d.height = 16;
    d.width = 16;
    d.classes = 10;
    Rng rng(seed);
    for (std::size_t i = 0; i < n * 256; ++i)
        d.features.push_back(rng.uniform() < 0.3 ? 0.0f : static_cast<float>(rng.uniform(-1.0, 2.0)));
    for (std::size_t i = 0; i < n; ++i) d.labels.push_back(static_cast<std::int64_t>(rng.uniform() * 10) % 10);
    return d;
}

} // namespace

class TestTraining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fedAvgLearnsFashionMnist() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        Scenario s = fmnistFedAvg(10, 20000);
        s.stop.rounds = 3;
        Recorder rec;
        const RunSummary r = runScenario(s, rec, 2);
        QCOMPARE(r.status, RunStatus::Finished);
        qInfo("FedAvg, 10 clients, 20000 samples, 3 rounds: test accuracy %.2f%%, loss %.4f, %.1f s wall",
              100 * r.finalTestAccuracy, r.finalTestLoss, r.wallSeconds);
        QVERIFY2(r.finalTestAccuracy > 0.75, "FedAvg should pass 75% test accuracy on Fashion-MNIST");
        // Loss falls and every round was evaluated.
        QCOMPARE(rec.records.size(), std::size_t(3));
        for (const auto& rr : rec.records) QVERIFY(!std::isnan(rr.testAccuracy));
        QVERIFY(rec.records.back().trainLoss < rec.records.front().trainLoss);
    }

    // Learner::run does its SGD steps without torch::optim::SGD (faster, see learner.cpp);
    // the parameters it returns must equal LibTorch's optimiser's bit for bit (zeros of
    // either sign compare equal: run drops gradients instead of zeroing them).
    void localStepsEqualLibTorchOptimiser_data() {
        QTest::addColumn<int>("model");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<double>("weightDecay");
        QTest::addColumn<bool>("gradientOnly");
        const int kinds[] = {static_cast<int>(ModelSpec::Kind::LogReg), static_cast<int>(ModelSpec::Kind::Mlp),
                             static_cast<int>(ModelSpec::Kind::Cnn)};
        for (int kind : kinds)
            for (double m : {0.0, 0.5, 0.9})
                for (double wd : {0.0, 1e-3})
                    QTest::addRow("%s momentum %.1f decay %g", toString(static_cast<ModelSpec::Kind>(kind)),
                                  m, wd)
                        << kind << m << wd << false;
        QTest::newRow("mlp gradient only") << static_cast<int>(ModelSpec::Kind::Mlp) << 0.0 << 0.0 << true;
    }
    void localStepsEqualLibTorchOptimiser() {
        QFETCH(int, model);
        QFETCH(double, momentum);
        QFETCH(double, weightDecay);
        QFETCH(bool, gradientOnly);
        const Dataset train = randomImages(200, 7), test = randomImages(20, 8);
        ModelSpec spec;
        spec.kind = static_cast<ModelSpec::Kind>(model);
        spec.hidden = {32};
        spec.dropout = spec.kind == ModelSpec::Kind::LogReg ? 0.0 : 0.5;
        Learner learner(spec, train, test);
        LocalJob job;
        job.start = std::make_shared<Params>(learner.initialParameters(3));
        Rng rng(11);
        for (int b : {10, 10, 7, 10, 10, 3, 10, 10, 10, 10, 10, 10}) {
            job.batchSizes.push_back(b);
            for (int i = 0; i < b; ++i) job.samples.push_back(static_cast<std::int64_t>(rng.uniform() * 200) % 200);
        }
        job.learningRate = 0.05;
        job.momentum = momentum;
        job.weightDecay = weightDecay;
        job.gradientOnly = gradientOnly;
        job.seed = 99;
        const LocalResult fast = learner.run(job);
        const LocalResult reference = learner.runWithLibTorchOptimiser(job);
        QCOMPARE(fast.steps, 12);
        QCOMPARE(reference.steps, fast.steps);
        QCOMPARE(reference.samples, fast.samples);
        QVERIFY(std::memcmp(&fast.meanLoss, &reference.meanLoss, sizeof(double)) == 0);
        QCOMPARE(fast.update.size(), learner.parameterCount());
        QCOMPARE(reference.update.size(), fast.update.size());
        std::size_t moved = 0;
        for (std::size_t i = 0; i < fast.update.size(); ++i) {
            if (!(fast.update[i] == reference.update[i]))
                QFAIL(qPrintable(QString("parameter %1: %2 vs LibTorch's %3")
                                     .arg(i)
                                     .arg(double(fast.update[i]), 0, 'g', 9)
                                     .arg(double(reference.update[i]), 0, 'g', 9)));
            moved += fast.update[i] != 0.0f;
        }
        QVERIFY2(moved > fast.update.size() / 2, "the local steps should change most parameters");
    }

    void sameMetricsForAnyThreadCount_data() {
        QTest::addColumn<QString>("policy");
        QTest::newRow("fedavg") << "fedavg";
        QTest::newRow("n-sync") << "n-sync";
        QTest::newRow("async") << "async";
        QTest::newRow("n-batch-sync") << "n-batch-sync";
    }
    void sameMetricsForAnyThreadCount() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        QFETCH(QString, policy);
        Scenario s = fmnistFedAvg(6, 3000);
        s.sync.name = policy.toStdString();
        s.sync.params = {{"n", 3}, {"m", 4}};
        if (policy == "fedavg") s.sync.params.clear();
        if (policy == "n-sync") s.sync.params = {{"n", 3}};
        if (policy == "n-batch-sync") s.sync.params = {{"m", 4}};
        if (policy == "async") s.sync.params.clear();
        s.training.localEpochs = 0;
        s.training.localSteps = 5;
        s.stop.rounds = policy == "fedavg" ? 3 : 12;
        s.evaluation.everyRounds = 3;
        // Volatile trainers too, so that lost work and re-selection are covered.
        s.topology.group(0).availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.group(0).availability.meanUpS = 0.2;
        s.topology.group(0).availability.meanDownS = 0.05;
        Recorder one, four;
        runScenario(s, one, 1);
        runScenario(s, four, 4);
        QCOMPARE(one.records.size(), four.records.size());
        QVERIFY(!one.records.empty());
        for (std::size_t i = 0; i < one.records.size(); ++i) {
            const auto& a = one.records[i];
            const auto& b = four.records[i];
            QCOMPARE(a.time, b.time);
            QCOMPARE(a.participants, b.participants);
            QCOMPARE(a.maxStaleness, b.maxStaleness);
            // Bit-identical, NaN included.
            QVERIFY(std::memcmp(&a.trainLoss, &b.trainLoss, sizeof(double)) == 0);
            QVERIFY(std::memcmp(&a.testAccuracy, &b.testAccuracy, sizeof(double)) == 0);
            QVERIFY(std::memcmp(&a.testLoss, &b.testLoss, sizeof(double)) == 0);
        }
        QCOMPARE(one.summary.finalTestAccuracy, four.summary.finalTestAccuracy);
        QCOMPARE(one.intervals.size(), four.intervals.size());
    }
};

QTEST_APPLESS_MAIN(TestTraining)
#include "test_training.moc"
