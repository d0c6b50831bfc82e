// The emulator's round times against the order statistics of exponential step times
// (papers.md): n trainers with step times Exp(lambda) and no communication.

#include "engine_fixtures.h"

#include <QtTest>
#include <cmath>

using namespace fog;
using namespace fogtest;

namespace {
double harmonic(int n) {
    double h = 0;
    for (int i = 1; i <= n; ++i) h += 1.0 / i;
    return h;
}
} // namespace

class TestClosedForms : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void meanRoundTime_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("trainers");
        QTest::addColumn<int>("param");
        QTest::addColumn<double>("lambda");
        QTest::addColumn<double>("expected"); // mean round time
        // Fully synchronous: E[max of n] = H_n / lambda.
        QTest::newRow("fully-sync n=5") << "fully-sync" << 5 << 0 << 1.0 << harmonic(5);
        QTest::newRow("fully-sync n=10 lambda=4") << "fully-sync" << 10 << 0 << 4.0 << harmonic(10) / 4.0;
        // First k of n: (H_n - H_{n-k}) / lambda.
        QTest::newRow("n-sync 3 of 8") << "n-sync" << 8 << 3 << 1.0 << harmonic(8) - harmonic(5);
        QTest::newRow("n-sync 1 of 6 lambda=2") << "n-sync" << 6 << 1 << 2.0 << (harmonic(6) - harmonic(5)) / 2.0;
        // First m mini-batches from n: Erlang(m, n lambda), mean m / (n lambda).
        QTest::newRow("n-batch-sync m=6 of 4") << "n-batch-sync" << 4 << 6 << 1.0 << 6.0 / 4.0;
        QTest::newRow("n-batch-sync m=2 of 5 lambda=3") << "n-batch-sync" << 5 << 2 << 3.0 << 2.0 / 15.0;
    }
    void meanRoundTime() {
        QFETCH(QString, policy);
        QFETCH(int, trainers);
        QFETCH(int, param);
        QFETCH(double, lambda);
        QFETCH(double, expected);
        // Batch 1 at throughput lambda: a step takes Exp(mean 1) / lambda.
        Scenario s = timingStar(trainers, lambda, NoiseSpec::Kind::Exponential);
        s.sync.name = policy.toStdString();
        if (policy == "n-sync") s.sync.params["n"] = param;
        if (policy == "n-batch-sync") s.sync.params["m"] = param;
        const int rounds = 20000;
        s.stop.rounds = rounds;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.rounds, rounds);
        const double mean = r.virtualTime / rounds;
        qInfo("%s: mean round %.5f, closed form %.5f (%.2f%% off)", qPrintable(policy), mean, expected,
              100.0 * (mean / expected - 1.0));
        QVERIFY2(std::abs(mean / expected - 1.0) < 0.03, "mean round time is not within 3% of the closed form");
    }

    void varianceOfFullySyncRound() {
        // Var[max of n exponentials] = (1/lambda^2) sum 1/i^2.
        Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        s.stop.rounds = 20000;
        Recorder rec;
        runScenario(s, rec);
        double prev = 0, sum = 0, sum2 = 0;
        for (const auto& r : rec.records) {
            const double d = r.time - prev;
            prev = r.time;
            sum += d;
            sum2 += d * d;
        }
        const double n = static_cast<double>(rec.records.size());
        const double var = sum2 / n - (sum / n) * (sum / n);
        const double expected = 1.0 + 1.0 / 4 + 1.0 / 9 + 1.0 / 16;
        QVERIFY2(std::abs(var / expected - 1.0) < 0.06, qPrintable(QString("variance %1 vs %2").arg(var).arg(expected)));
    }

    void shiftedExponentialAddsTheShift() {
        // Noise d + Exp(1 - d) keeps mean 1; a fully-sync round of n takes d + (1 - d) H_n.
        Scenario s = timingStar(5, 1.0, NoiseSpec::Kind::ShiftedExponential);
        s.topology.group(0).compute.noise.shift = 0.4;
        s.sync.name = "fully-sync";
        s.stop.rounds = 20000;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        const double expected = 0.4 + 0.6 * harmonic(5);
        QVERIFY(std::abs(r.virtualTime / s.stop.rounds / expected - 1.0) < 0.03);
    }

    void noNoiseIsExact() {
        Scenario s = timingStar(3, 4.0, NoiseSpec::Kind::None);
        s.sync.name = "fully-sync";
        s.stop.rounds = 10;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.virtualTime, 10 * 0.25);
    }
};

QTEST_APPLESS_MAIN(TestClosedForms)
#include "test_closed_forms.moc"
