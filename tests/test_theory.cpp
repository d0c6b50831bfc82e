// Theory beside the curve: the closed-form expected round time with communication on
// private links (latency + bytes / bandwidth, down and up), checked against the engine, and
// the Monte Carlo estimate (a timing-only run) where no closed form holds, checked against
// the closed form where both exist.

#include "core/analysis/closed_form.h"
#include "core/analysis/theory.h"
#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "engine_fixtures.h"
#include "wall_bounds.h"

#include <QtTest>

#include <cmath>

using namespace fog;
using namespace fogtest;

namespace {

/// n trainers of rate lambda (batch 1, exponential steps) under one server, each behind
/// a 10 ms, 8 Mbit/s down / 4 Mbit/s up link, models of 50 kB: 0.06 s down, 0.11 s up.
Scenario linkedStar(int n, double lambda, const QString& how) {
    Scenario s = timingStar(n, lambda, NoiseSpec::Kind::Exponential);
    s.sync.name = "fully-sync";
    s.model.wireBytes = 50000;
    LinkParams l;
    l.latencyMs = 10;
    l.bandwidthDownMbps = 8;
    l.bandwidthUpMbps = 4;
    if (how == "plain nodes") {
        // Plain nodes: each alone on its link, contention on (the default).
        s.topology.nodes.resize(1);
        for (int i = 0; i < n; ++i) {
            NodeSpec t = makeNode("t" + std::to_string(i), Role::Trainer, "server", lambda);
            t.compute.noise.kind = NoiseSpec::Kind::Exponential;
            t.link = l;
            s.topology.nodes.push_back(t);
        }
    } else if (how == "private group") {
        s.topology.group(0).link = l;
        s.topology.group(0).linkSharing = LinkSharing::Private;
    } else if (how == "contention off") {
        s.topology.hasDefaultLink = true;
        s.topology.defaultLink = l;
        s.topology.contention = false;
    }
    return s;
}

constexpr double kComm = 0.010 + 50000 * 8 / 8e6 + 0.010 + 50000 * 8 / 4e6; // 0.17 s

} // namespace

class TestTheory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void closedFormAddsPrivateLinks_data() {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("k");
        QTest::addColumn<double>("expected");
        const double h5 = harmonicNumber(5), h8 = harmonicNumber(8);
        QTest::newRow("plain nodes, fully-sync") << "plain nodes" << "fully-sync" << 0 << kComm + h5 / 2.0;
        QTest::newRow("private group, fully-sync") << "private group" << "fully-sync" << 0 << kComm + h5 / 2.0;
        QTest::newRow("contention off, fully-sync") << "contention off" << "fully-sync" << 0 << kComm + h5 / 2.0;
        QTest::newRow("private group, n-sync 3 of 8")
            << "private group" << "n-sync" << 3 << kComm + (h8 - harmonicNumber(5)) / 2.0;
    }
    void closedFormAddsPrivateLinks() {
        QFETCH(QString, how);
        QFETCH(QString, policy);
        QFETCH(int, k);
        QFETCH(double, expected);
        Scenario s = linkedStar(policy == "n-sync" ? 8 : 5, 2.0, how);
        s.sync.name = policy.toStdString();
        if (k) s.sync.params["n"] = k;
        const ClosedFormRoundTime c = closedFormRoundTime(s);
        QVERIFY2(c.applies, c.why.c_str());
        QVERIFY2(std::abs(c.seconds - expected) < 1e-12, qPrintable(QString("%1 vs %2").arg(c.seconds).arg(expected)));
        QVERIFY(std::abs(c.communicationSeconds - kComm) < 1e-12);
        QVERIFY2(QString::fromStdString(c.formula).contains("down + up"), c.formula.c_str());

        // The engine, timing only, over enough rounds: its mean round time is the closed
        // form's within 3% (the expected-time curve matches the measured one).
        const int rounds = 20000;
        s.stop.rounds = rounds;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.rounds, rounds);
        const double mean = r.virtualTime / rounds;
        qInfo("%s: engine %.5f s per round, closed form %.5f s (%.2f%% off)", qPrintable(how), mean, c.seconds,
              100.0 * (mean / c.seconds - 1.0));
        QVERIFY2(std::abs(mean / c.seconds - 1.0) < 0.03, "mean round time is not within 3% of the closed form");
    }

    void closedFormRefusesWhatItCannotPredict_data() {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("why"); // a word the reason must contain
        QTest::newRow("shared group link") << "shared" << "share";
        QTest::newRow("shared default link") << "shared default" << "share";
        QTest::newRow("nic cap") << "nic" << "nic_mbps";
        QTest::newRow("unequal links") << "unequal" << "unequal communication";
        QTest::newRow("n-batch-sync with links") << "n-batch-sync" << "communication";
        QTest::newRow("model size unknown") << "model" << "size on the wire";
    }
    void closedFormRefusesWhatItCannotPredict() {
        QFETCH(QString, change);
        QFETCH(QString, why);
        Scenario s = linkedStar(5, 2.0, change == "unequal" ? "plain nodes" : "private group");
        if (change == "shared") s.topology.group(0).linkSharing = LinkSharing::Shared;
        if (change == "shared default") {
            s = linkedStar(5, 2.0, "contention off");
            s.topology.contention = true; // groups share their link by default
        }
        if (change == "nic") s.topology.nodes[0].nicMbps = 100;
        if (change == "unequal") s.topology.nodes[3].link->latencyMs = 20;
        if (change == "n-batch-sync") {
            s.sync.name = "n-batch-sync";
            s.sync.params["m"] = 3;
        }
        if (change == "model") {
            s.model.kind = ModelSpec::Kind::LogReg;
            s.model.wireBytes = 0;
        }
        const ClosedFormRoundTime c = closedFormRoundTime(s);
        QVERIFY(!c.applies);
        QVERIFY(std::isnan(c.seconds));
        QVERIFY2(QString::fromStdString(c.why).contains(why), c.why.c_str());
        QCOMPARE(c.needsWireBytes, change == "model");
        if (change == "model") {
            // Once the model is known (a run's description), it applies.
            const double bytes = wireBytesOf(s, "logreg (7850 parameters)");
            QCOMPARE(bytes, 4.0 * 7850);
            QVERIFY(closedFormRoundTime(s, bytes).applies);
        }
    }

    void wireBytes() {
        Scenario s;
        s.model.kind = ModelSpec::Kind::Mlp;
        QVERIFY(std::isnan(wireBytesOf(s, "")));
        QVERIFY(std::isnan(wireBytesOf(s, "mlp (no count)")));
        QCOMPARE(wireBytesOf(s, "mlp (159010 parameters)"), 636040.0);
        s.model.wireBytes = 1000;
        QCOMPARE(wireBytesOf(s, "mlp (159010 parameters)"), 1000.0); // the file's value wins
        s.model = ModelSpec{};
        s.model.kind = ModelSpec::Kind::None;
        QCOMPARE(wireBytesOf(s, ""), 0.0);
    }

    void monteCarloAgreesWithClosedForm_data() {
        QTest::addColumn<QString>("how");
        QTest::addColumn<QString>("policy");
        QTest::newRow("no links, fully-sync") << "none" << "fully-sync";
        QTest::newRow("private links, fully-sync") << "private group" << "fully-sync";
        QTest::newRow("private links, n-sync 2 of 5") << "private group" << "n-sync";
    }
    void monteCarloAgreesWithClosedForm() {
        QFETCH(QString, how);
        QFETCH(QString, policy);
        Scenario s = linkedStar(5, 2.0, how);
        s.sync.name = policy.toStdString();
        if (policy == "n-sync") s.sync.params["n"] = 2;
        TheoryOptions o;
        o.monteCarloRounds = 3000;
        o.forceMonteCarlo = true;
        const ExpectedRoundTime e = expectedRoundTimeOf(s, o);
        QCOMPARE(e.source, ExpectedRoundTime::Source::MonteCarlo);
        QCOMPARE(e.rounds, 3000);
        QCOMPARE(QString::fromStdString(e.label), QString("Monte Carlo estimate (3000 rounds)"));
        QVERIFY(e.closedForm.applies);
        const double cf = e.closedForm.seconds;
        qInfo("%s: Monte Carlo %.5f ± %.5f s, closed form %.5f s (%.2f%% off)", qPrintable(how), e.seconds,
              e.standardError, cf, 100.0 * (e.seconds / cf - 1.0));
        QVERIFY2(std::abs(e.seconds / cf - 1.0) < 0.03, "the estimate is not within 3% of the closed form");
        QVERIFY2(std::abs(e.seconds - cf) < 4 * e.standardError, "the estimate is more than 4 standard errors off");
        // Without forcing, the closed form is what is drawn.
        const ExpectedRoundTime c = expectedRoundTimeOf(s);
        QCOMPARE(c.source, ExpectedRoundTime::Source::ClosedForm);
        QCOMPARE(QString::fromStdString(c.label), QString("closed form"));
        QCOMPARE(c.seconds, cf);
    }

    void monteCarloWhereNoClosedFormExists() {
        // Log-normal steps and a link shared by the group (contention): no closed form.
        Scenario s = linkedStar(4, 2.0, "private group");
        s.topology.group(0).compute.noise.kind = NoiseSpec::Kind::LogNormal;
        s.topology.group(0).linkSharing = LinkSharing::Shared;
        const ExpectedRoundTime e = expectedRoundTimeOf(s);
        QCOMPARE(e.source, ExpectedRoundTime::Source::MonteCarlo);
        QVERIFY(!e.closedForm.applies);
        QCOMPARE(e.rounds, 300);
        QCOMPARE(QString::fromStdString(e.label), QString("Monte Carlo estimate (300 rounds)"));
        QVERIFY(std::isfinite(e.seconds) && e.seconds > kComm);
        QVERIFY(e.standardError > 0 && e.standardError < 0.1 * e.seconds);
        // It is the timing-only run's mean: the same run made directly agrees exactly.
        Recorder rec;
        Scenario t = timingOnlyScenario(s, 50000, s.data.samplesPerTrainer, 300);
        const RunSummary r = runScenario(t, rec);
        QVERIFY(std::abs(e.seconds - r.virtualTime / r.rounds) < 1e-12 * e.seconds);
    }

    void timingOnlyKeepsWhatDecidesTime() {
        Scenario s = linkedStar(3, 2.0, "private group");
        s.model.kind = ModelSpec::Kind::Mlp;
        s.data.kind = DataSpec::Kind::Synthetic;
        s.stop.targetAccuracy = 0.8;
        s.stop.budget = 3;
        const Scenario t = timingOnlyScenario(s, 1234, 77, 50);
        QCOMPARE(t.model.kind, ModelSpec::Kind::None);
        QCOMPARE(t.model.wireBytes, 1234.0);
        QCOMPARE(t.data.kind, DataSpec::Kind::None);
        QCOMPARE(t.data.samplesPerTrainer, 77);
        QCOMPARE(t.stop.rounds, 50);
        QCOMPARE(t.stop.targetAccuracy, 0.0);
        QCOMPARE(t.stop.budget, 0.0);
        QCOMPARE(t.topology.nodes.size(), s.topology.nodes.size());
        QCOMPARE(t.sync.name, s.sync.name);
        QCOMPARE(t.seed, s.seed);
    }

    void sizesARealModel() {
        // A trained model without wire_bytes: the theory builds it on the data to count its
        // parameters, as the engine does, and the closed form then applies with its size.
        Scenario s = linkedStar(4, 2.0, "private group");
        s.model = ModelSpec{};
        s.model.kind = ModelSpec::Kind::LogReg;
        s.data = DataSpec{};
        s.data.kind = DataSpec::Kind::Synthetic;
        s.data.maxTrainSamples = 400;
        s.data.maxTestSamples = 100;
        QVERIFY(closedFormRoundTime(s).needsWireBytes);
        const ExpectedRoundTime e = expectedRoundTimeOf(s);
        QCOMPARE(e.source, ExpectedRoundTime::Source::ClosedForm);
        const DataBundle data = loadData(s.data, 1, s.seed);
        const double bytes = 4.0 * static_cast<double>(Learner(s.model, data.train, data.test).parameterCount());
        QVERIFY(bytes > 0);
        QCOMPARE(e.seconds, closedFormRoundTime(s, bytes).seconds);
        const double comm = 0.02 + bytes * 8 / 8e6 + bytes * 8 / 4e6;
        QVERIFY(std::abs(e.closedForm.communicationSeconds - comm) < 1e-12);
    }

    void cancelled() {
        Scenario s = linkedStar(4, 2.0, "private group");
        s.topology.group(0).compute.noise.kind = NoiseSpec::Kind::LogNormal;
        std::atomic<bool> cancel{true};
        TheoryOptions o;
        o.monteCarloRounds = 1000000; // would take long: the flag stops it at once
        QElapsedTimer timer;
        timer.start();
        const ExpectedRoundTime e = expectedRoundTimeOf(s, o, &cancel);
        QCOMPARE(e.source, ExpectedRoundTime::Source::None);
        QCOMPARE(QString::fromStdString(e.detail), QString("cancelled"));
        QVERIFY(timer.elapsed() < fogtest::kPromptMs);
    }
};

QTEST_APPLESS_MAIN(TestTheory)
#include "test_theory.moc"
