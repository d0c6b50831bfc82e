// Real training through the emulator: FedAvg learns Fashion-MNIST, and the metrics are the
// same whatever the number of worker threads.

#include "engine_fixtures.h"

#include "core/data/dataset.h"

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

} // namespace

class TestTraining : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
    }

    void fedAvgLearnsFashionMnist() {
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

    void sameMetricsForAnyThreadCount_data() {
        QTest::addColumn<QString>("policy");
        QTest::newRow("fedavg") << "fedavg";
        QTest::newRow("n-sync") << "n-sync";
        QTest::newRow("async") << "async";
        QTest::newRow("n-batch-sync") << "n-batch-sync";
    }
    void sameMetricsForAnyThreadCount() {
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
