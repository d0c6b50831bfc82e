// The learning algorithms (docs/learning.md) against hand computations on a tiny logistic
// regression (2 features, 2 classes, 2 clients): local optimisers, server optimisers, FedProx's
// proximal term, SCAFFOLD's variates, FedNova's normalisation; the local optimisers against
// LibTorch's own bit for bit; and every new algorithm through the engine: same metrics for 1
// and 2 threads, bytes on the wire as documented.

#include "engine_fixtures.h"

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/policies/aggregation.h"
#include "core/policies/rdp_accountant.h"
#include "core/policies/secagg.h"
#include "core/policies/server_optimizer.h"
#include "core/policies/update_codec.h"
#include "core/scenario/scenario_io.h"
#include "core/util/random.h"

#include <QtTest>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace fog;
using namespace fogtest;

namespace {

// ---- the tiny model, by hand ------------------------------------------------------------
// Logistic regression z = W x + b, W 2x2 row-major, then b: the layout of Learner's flat
// parameters (torch::nn::Linear: weight [out, in], then bias).
using Vec = std::vector<double>;
constexpr int kF = 2, kC = 2, kP = kC * kF + kC;

struct Sample {
    std::array<double, kF> x;
    int y;
};

/// Mean cross-entropy gradient over `batch` at w (softmax(z) - onehot(y)) x, and for b.
Vec handGradient(const Vec& w, const std::vector<Sample>& batch) {
    Vec g(kP, 0.0);
    for (const auto& s : batch) {
        double z[kC], m = -1e300, sum = 0.0;
        for (int c = 0; c < kC; ++c) {
            z[c] = w[kC * kF + c];
            for (int f = 0; f < kF; ++f) z[c] += w[c * kF + f] * s.x[f];
            m = std::max(m, z[c]);
        }
        for (int c = 0; c < kC; ++c) sum += std::exp(z[c] - m);
        for (int c = 0; c < kC; ++c) {
            const double d = std::exp(z[c] - m) / sum - (c == s.y ? 1.0 : 0.0);
            for (int f = 0; f < kF; ++f) g[c * kF + f] += d * s.x[f] / batch.size();
            g[kC * kF + c] += d / batch.size();
        }
    }
    return g;
}

const std::vector<Sample>& samples() {
    static const std::vector<Sample> s{{{0.5, -1.0}, 0}, {{1.5, 0.25}, 1}, {{-0.75, 2.0}, 1}, {{0.3, 0.9}, 0},
                                       {{2.0, -0.5}, 1}, {{-1.2, -0.4}, 0}};
    return s;
}

Dataset tinyData() {
    Dataset d;
    d.channels = 1;
    d.height = 1;
    d.width = kF;
    d.classes = kC;
    for (const auto& s : samples()) {
        for (double x : s.x) d.features.push_back(static_cast<float>(x));
        d.labels.push_back(s.y);
    }
    return d;
}

std::vector<Sample> batchOf(const std::vector<std::int64_t>& idx) {
    std::vector<Sample> b;
    for (auto i : idx) {
        Sample s = samples()[static_cast<std::size_t>(i)];
        // The learner sees the features as floats.
        for (double& x : s.x) x = static_cast<float>(x);
        b.push_back(s);
    }
    return b;
}

Vec toVec(const Params& p) { return Vec(p.begin(), p.end()); }

ModelSpec logReg() {
    ModelSpec m;
    m.kind = ModelSpec::Kind::LogReg;
    return m;
}

/// Float results against double hand values: equal to the float rounding of their steps.
bool near(const Params& got, const Vec& want, double tol = 2e-6) {
    for (std::size_t i = 0; i < want.size(); ++i)
        if (std::fabs(got[i] - want[i]) > tol * std::max(1.0, std::fabs(want[i]))) {
            qWarning("parameter %zu: %.9g, by hand %.9g", i, double(got[i]), want[i]);
            return false;
        }
    return true;
}

/// One local optimiser by hand (torch.optim's formulas), state kept between calls.
struct HandOptimizer {
    LocalOptimizer kind = LocalOptimizer::Sgd;
    double lr = 0.0, momentum = 0.0, wd = 0.0, b1 = 0.9, b2 = 0.999, eps = 1e-8;
    Vec buf, m, v;
    int t = 0;
    void step(Vec& w, Vec g) {
        if (kind == LocalOptimizer::Sgd || kind == LocalOptimizer::Nesterov) {
            for (std::size_t i = 0; i < w.size(); ++i) g[i] += wd * w[i];
            if (momentum != 0) {
                if (buf.empty())
                    buf = g;
                else
                    for (std::size_t i = 0; i < w.size(); ++i) buf[i] = momentum * buf[i] + g[i];
            }
            for (std::size_t i = 0; i < w.size(); ++i) {
                const double d = momentum == 0 ? g[i] : kind == LocalOptimizer::Nesterov ? g[i] + momentum * buf[i] : buf[i];
                w[i] -= lr * d;
            }
            return;
        }
        ++t;
        if (m.empty()) m.assign(w.size(), 0.0), v.assign(w.size(), 0.0);
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (kind == LocalOptimizer::AdamW)
                w[i] *= 1 - lr * wd;
            else
                g[i] += wd * w[i];
            m[i] = b1 * m[i] + (1 - b1) * g[i];
            v[i] = b2 * v[i] + (1 - b2) * g[i] * g[i];
            const double mhat = m[i] / (1 - std::pow(b1, t)), vhat = v[i] / (1 - std::pow(b2, t));
            w[i] -= lr * mhat / (std::sqrt(vhat) + eps);
        }
    }
};

LocalJob tinyJob(const Params& start, std::vector<std::int64_t> idx, std::vector<int> batches) {
    LocalJob j;
    j.start = std::make_shared<Params>(start);
    j.samples = std::move(idx);
    j.batchSizes = std::move(batches);
    j.learningRate = 0.1;
    j.seed = 3;
    return j;
}

Params initialW() { return {0.2f, -0.1f, 0.05f, 0.3f, 0.01f, -0.02f}; }

/// A small real-training star (synthetic IID data, logistic regression) for engine runs.
Scenario smallStar(const std::string& policy) {
    Scenario s = timingStar(4, 50.0, NoiseSpec::Kind::Exponential);
    useSmallRealTraining(s, 10);
    s.training.localSteps = 3;
    s.sync.name = policy;
    s.stop.rounds = 4;
    return s;
}

/// The clock tests' set-up (timing only, no noise): a server and 2 trainers with links of
/// their own at 0.8 Mbit/s each way (100,000 B/s), a 4,000-byte model (P = 1,000), one step
/// of one sample at 50 samples/s (0.02 s). Trainers draw 2 J per sample, so 100 W computing
/// (energy.per_sample_j x throughput); the server 1 J per sample at 1 sample/s: 1 W. Trainers
/// are serverless at 3,600 per hour: 1 per second of compute.
Scenario clockStar(const std::string& policy, bool contention) {
    Scenario s = timingStar(2, 50.0, NoiseSpec::Kind::None);
    s.model.wireBytes = 4000;
    s.sync.name = policy;
    s.stop.rounds = 3;
    s.topology.hasDefaultLink = true;
    s.topology.defaultLink.bandwidthUpMbps = 0.8;
    s.topology.defaultLink.bandwidthDownMbps = 0.8;
    s.topology.contention = contention;
    s.topology.linkSharing = LinkSharing::Private;
    s.topology.nodes[0].energy.perSampleJ = 1.0;
    NodeSpec& w = s.topology.nodes[1];
    w.energy.perSampleJ = 2.0;
    w.billing = Billing::Serverless;
    w.pricePerHour = Range::exactly(3600.0);
    return s;
}

/// The records' times, energy and cost against `round` seconds per round, `trainerWork`
/// seconds of extra work per job on each trainer, `serverWork` on the server per round.
void checkClock(const Recorder& rec, const RunSummary& sum, double round, double trainerWork, double serverWork) {
    QCOMPARE(rec.records.size(), std::size_t(3));
    for (std::size_t i = 0; i < rec.records.size(); ++i) {
        const double want = (i + 1) * round;
        QVERIFY2(std::fabs(rec.records[i].time - want) <= 1e-12,
                 qPrintable(QString("round %1 at %2, by hand %3").arg(i + 1).arg(rec.records[i].time, 0, 'g', 17).arg(want, 0, 'g', 17)));
    }
    const double jobs = 6; // 2 trainers x 3 rounds
    // Compute energy: 2 J per sample, 100 W for the trainers' extra work, 1 W at the server.
    const double energy = jobs * (2.0 + 100.0 * trainerWork) + 3 * serverWork;
    QVERIFY2(std::fabs(sum.energyComputeJ - energy) <= 1e-9, qPrintable(QString("energy %1, by hand %2").arg(sum.energyComputeJ, 0, 'g', 17).arg(energy, 0, 'g', 17)));
    QCOMPARE(sum.energyNetworkJ, 0.0);
    // Money: each job's compute seconds (the step and the extra work) at 1 per second.
    const double cost = jobs * (0.02 + trainerWork);
    QVERIFY2(std::fabs(sum.cost - cost) <= 1e-9, qPrintable(QString("cost %1, by hand %2").arg(sum.cost, 0, 'g', 17).arg(cost, 0, 'g', 17)));
}

Vec addScaled(const Vec& a, const Vec& b, double s) {
    Vec out(a);
    for (std::size_t i = 0; i < a.size(); ++i) out[i] += s * b[i];
    return out;
}

} // namespace

class TestLearning : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ---- local optimisers ---------------------------------------------------------------
    void localOptimizersByHand_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<double>("weightDecay");
        QTest::newRow("sgd momentum 0.9") << int(LocalOptimizer::Sgd) << 0.9 << 0.0;
        QTest::newRow("nesterov 0.9 decay 0.01") << int(LocalOptimizer::Nesterov) << 0.9 << 0.01;
        QTest::newRow("adam") << int(LocalOptimizer::Adam) << 0.0 << 0.0;
        QTest::newRow("adam L2 0.05") << int(LocalOptimizer::Adam) << 0.0 << 0.05;
        QTest::newRow("adamw 0.05") << int(LocalOptimizer::AdamW) << 0.0 << 0.05;
    }
    void localOptimizersByHand() {
        QFETCH(int, kind);
        QFETCH(double, momentum);
        QFETCH(double, weightDecay);
        const Dataset d = tinyData();
        const Learner learner(logReg(), d, d);
        QCOMPARE(learner.parameterCount(), std::size_t(kP));
        // Three steps of batch 2 over samples 0..5.
        LocalJob j = tinyJob(initialW(), {0, 1, 2, 3, 4, 5}, {2, 2, 2});
        j.optimizer = static_cast<LocalOptimizer>(kind);
        j.momentum = momentum;
        j.weightDecay = weightDecay;
        const LocalResult r = learner.run(j);
        HandOptimizer h;
        h.kind = j.optimizer;
        h.lr = 0.1;
        h.momentum = momentum;
        h.wd = weightDecay;
        Vec w = toVec(initialW());
        for (int s = 0; s < 3; ++s) h.step(w, handGradient(w, batchOf({2 * s, 2 * s + 1})));
        Params got = initialW();
        for (std::size_t i = 0; i < got.size(); ++i) got[i] += r.update[i];
        QVERIFY(near(got, w));
    }

    // run() against torch::optim's own optimiser, bit for bit.
    void localOptimizersEqualLibTorch_data() {
        QTest::addColumn<int>("model");
        QTest::addColumn<int>("kind");
        QTest::addColumn<double>("momentum");
        QTest::addColumn<double>("weightDecay");
        for (int model : {int(ModelSpec::Kind::LogReg), int(ModelSpec::Kind::Mlp)})
            for (double wd : {0.0, 0.01}) {
                const char* m = toString(static_cast<ModelSpec::Kind>(model));
                QTest::addRow("%s nesterov decay %g", m, wd) << model << int(LocalOptimizer::Nesterov) << 0.9 << wd;
                QTest::addRow("%s adam decay %g", m, wd) << model << int(LocalOptimizer::Adam) << 0.0 << wd;
                QTest::addRow("%s adamw decay %g", m, wd) << model << int(LocalOptimizer::AdamW) << 0.0 << wd;
            }
    }
    void localOptimizersEqualLibTorch() {
        QFETCH(int, model);
        QFETCH(int, kind);
        QFETCH(double, momentum);
        QFETCH(double, weightDecay);
        Dataset train;
        train.channels = 1;
        train.height = 1;
        train.width = 20;
        train.classes = 4;
        Rng rng(5);
        for (int i = 0; i < 120 * 20; ++i) train.features.push_back(static_cast<float>(rng.uniform(-1, 1)));
        for (int i = 0; i < 120; ++i) train.labels.push_back(static_cast<std::int64_t>(rng.uniform() * 4) % 4);
        ModelSpec spec;
        spec.kind = static_cast<ModelSpec::Kind>(model);
        spec.hidden = {16};
        const Learner learner(spec, train, train);
        LocalJob j;
        j.start = std::make_shared<Params>(learner.initialParameters(4));
        for (std::int64_t i = 0; i < 120; ++i) j.samples.push_back((i * 7) % 120);
        j.batchSizes.assign(12, 10);
        j.learningRate = 0.01;
        j.optimizer = static_cast<LocalOptimizer>(kind);
        j.momentum = momentum;
        j.weightDecay = weightDecay;
        j.seed = 1;
        const LocalResult ours = learner.run(j);
        const LocalResult theirs = learner.runWithLibTorchOptimiser(j);
        QCOMPARE(ours.update.size(), theirs.update.size());
        for (std::size_t i = 0; i < ours.update.size(); ++i)
            if (!(ours.update[i] == theirs.update[i]))
                QFAIL(qPrintable(QString("parameter %1: %2 vs LibTorch's %3")
                                     .arg(i)
                                     .arg(double(ours.update[i]), 0, 'g', 9)
                                     .arg(double(theirs.update[i]), 0, 'g', 9)));
    }

    // A kept state continues where the last job ended: two jobs of 2 steps equal one of 4.
    void keptStateContinues_data() {
        QTest::addColumn<int>("kind");
        QTest::newRow("sgd momentum") << int(LocalOptimizer::Sgd);
        QTest::newRow("nesterov") << int(LocalOptimizer::Nesterov);
        QTest::newRow("adam") << int(LocalOptimizer::Adam);
        QTest::newRow("adamw") << int(LocalOptimizer::AdamW);
    }
    void keptStateContinues() {
        QFETCH(int, kind);
        const Dataset d = tinyData();
        const Learner learner(logReg(), d, d);
        LocalJob whole = tinyJob(initialW(), {0, 1, 2, 3, 4, 5, 1, 3}, {2, 2, 2, 2});
        whole.optimizer = static_cast<LocalOptimizer>(kind);
        whole.momentum = 0.5;
        whole.weightDecay = 0.01;
        const LocalResult all = learner.run(whole);

        LocalJob first = whole;
        first.samples = {0, 1, 2, 3};
        first.batchSizes = {2, 2};
        first.returnState = true;
        const LocalResult a = learner.run(first);
        QVERIFY(a.optimizerState);
        Params mid = initialW();
        for (std::size_t i = 0; i < mid.size(); ++i) mid[i] += a.update[i];
        LocalJob second = whole;
        second.start = std::make_shared<Params>(mid);
        second.samples = {4, 5, 1, 3};
        second.batchSizes = {2, 2};
        second.optimizerState = a.optimizerState;
        const LocalResult b = learner.run(second);
        for (std::size_t i = 0; i < mid.size(); ++i) {
            const float end2 = mid[i] + b.update[i];
            const float end1 = initialW()[i] + all.update[i];
            QVERIFY2(std::fabs(end1 - end2) <= 4e-7f * std::max(1.0f, std::fabs(end1)), qPrintable(QString::number(i)));
        }
        // A fresh start differs (the state matters).
        LocalJob fresh = second;
        fresh.optimizerState = nullptr;
        const LocalResult c = learner.run(fresh);
        bool differs = false;
        for (std::size_t i = 0; i < mid.size(); ++i) differs = differs || c.update[i] != b.update[i];
        QVERIFY(differs);
    }

    // ---- server optimisers --------------------------------------------------------------
    void serverOptimizersByHand_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"none", "fedavgm", "fedadagrad", "fedadam", "fedyogi"}) QTest::newRow(n) << n;
    }
    void serverOptimizersByHand() {
        QFETCH(QString, name);
        const std::string opt = name.toStdString();
        TrainingSpec t;
        t.serverOptimizer = opt;
        t.serverLearningRate = opt == "none" ? 0.0 : 0.3;
        t.serverMomentum = 0.8;
        t.serverBeta1 = 0.9;
        t.serverBeta2 = 0.99;
        t.serverTau = 0.01;
        const ServerOptimizerConfig cfg = serverOptimizerConfig(t);
        const Dataset d = tinyData();
        const Learner learner(logReg(), d, d);
        ServerModel server(std::make_shared<Params>(initialW()), cfg);
        // Two clients, 3 samples each; every round each runs one full-batch SGD step.
        const std::vector<std::vector<std::int64_t>> parts{{0, 1, 2}, {3, 4, 5}};
        Vec x = toVec(initialW()), m(kP, 0.0), v(kP, t.serverTau * t.serverTau);
        for (int round = 1; round <= 3; ++round) {
            std::vector<Contribution> cs;
            Vec delta(kP, 0.0);
            for (int k = 0; k < 2; ++k) {
                const LocalResult r = learner.run(tinyJob(*server.params(), parts[k], {3}));
                cs.push_back({k, 3, r.meanLoss, 0, r.update, 1, 1});
                delta = addScaled(delta, handGradient(x, batchOf(parts[k])), -0.1 * 0.5);
            }
            const Params before = *server.params();
            const Params aggregated = sampleWeightedUpdate(cs);
            server.addDelta(aggregated);
            // The step itself, exactly: the paper's formulas in double on the same floats.
            Params exact = before;
            {
                static Vec em(kP, 0.0), ev(kP, 0.0);
                if (round == 1) em.assign(kP, 0.0), ev.assign(kP, t.serverTau * t.serverTau);
                for (int i = 0; i < kP; ++i) {
                    const double dl = aggregated[i];
                    if (opt == "none") {
                        exact[i] = before[i] + aggregated[i];
                        continue;
                    }
                    if (opt == "fedavgm") {
                        em[i] = 0.8 * em[i] + dl;
                        exact[i] = static_cast<float>(before[i] + 0.3 * em[i]);
                        continue;
                    }
                    em[i] = 0.9 * em[i] + (1 - 0.9) * dl;
                    if (opt == "fedadagrad") ev[i] = ev[i] + dl * dl;
                    if (opt == "fedadam") ev[i] = 0.99 * ev[i] + (1 - 0.99) * dl * dl;
                    if (opt == "fedyogi")
                        ev[i] = ev[i] - (1 - 0.99) * dl * dl * (ev[i] - dl * dl > 0 ? 1 : ev[i] - dl * dl < 0 ? -1 : 0);
                    exact[i] = static_cast<float>(before[i] + 0.3 * em[i] / (std::sqrt(ev[i]) + 0.01));
                }
            }
            QVERIFY2(std::memcmp(exact.data(), server.params()->data(), exact.size() * sizeof(float)) == 0,
                     qPrintable(QString("round %1: the server step differs from its formula").arg(round)));
            // The whole round by hand (gradients, averaging, server step) in double.
            for (int i = 0; i < kP; ++i) {
                const double dl = delta[i];
                if (opt == "none") {
                    x[i] += dl;
                } else if (opt == "fedavgm") {
                    m[i] = 0.8 * m[i] + dl;
                    x[i] += 0.3 * m[i];
                } else {
                    m[i] = 0.9 * m[i] + 0.1 * dl;
                    if (opt == "fedadagrad") v[i] += dl * dl;
                    if (opt == "fedadam") v[i] = 0.99 * v[i] + 0.01 * dl * dl;
                    if (opt == "fedyogi") v[i] -= 0.01 * dl * dl * (v[i] > dl * dl ? 1 : v[i] < dl * dl ? -1 : 0);
                    x[i] += 0.3 * m[i] / (std::sqrt(v[i]) + 0.01);
                }
            }
            QVERIFY2(near(*server.params(), x, 1e-5), qPrintable(QString("round %1").arg(round)));
        }
    }

    void serverOptimizerDefaults() {
        QCOMPARE(serverOptimizerConfig(TrainingSpec{}).kind, ServerOptimizerConfig::Kind::None);
        TrainingSpec t;
        t.serverOptimizer = "fedyogi";
        QCOMPARE(serverOptimizerConfig(t).learningRate, 0.01);
        t.serverOptimizer = "fedadam";
        QCOMPARE(serverOptimizerConfig(t).learningRate, 0.1);
        t.serverLearningRate = 0.5;
        QCOMPARE(serverOptimizerConfig(t).learningRate, 0.5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, serverOptimizerConfig(t, "fedbogus"));
    }

    // ---- FedProx, SCAFFOLD, FedNova -----------------------------------------------------
    void fedProxGradientTermByHand() {
        const Dataset d = tinyData();
        const Learner learner(logReg(), d, d);
        LocalJob j = tinyJob(initialW(), {0, 1, 2, 3, 4, 5}, {2, 2, 2});
        j.proxMu = 0.5;
        const LocalResult r = learner.run(j);
        const Vec w0 = toVec(initialW());
        Vec w = w0;
        for (int s = 0; s < 3; ++s) {
            Vec g = handGradient(w, batchOf({2 * s, 2 * s + 1}));
            for (int i = 0; i < kP; ++i) g[i] += 0.5 * (w[i] - w0[i]);
            w = addScaled(w, g, -0.1);
        }
        Params got = initialW();
        for (int i = 0; i < kP; ++i) got[i] += r.update[i];
        QVERIFY(near(got, w));
        // mu 0 is plain local SGD, bit for bit.
        j.proxMu = 0.0;
        const LocalResult plain = learner.run(j);
        LocalJob none = tinyJob(initialW(), {0, 1, 2, 3, 4, 5}, {2, 2, 2});
        QVERIFY(learner.run(none).update == plain.update);
        QVERIFY(plain.update != r.update);
    }

    void scaffoldCorrectionByHand() {
        const Dataset d = tinyData();
        const Learner learner(logReg(), d, d);
        LocalJob j = tinyJob(initialW(), {0, 1, 2, 3}, {2, 2});
        const Params corr{0.05f, -0.02f, 0.0f, 0.1f, -0.03f, 0.04f};
        j.correction = std::make_shared<Params>(corr);
        const LocalResult r = learner.run(j);
        Vec w = toVec(initialW());
        for (int s = 0; s < 2; ++s) {
            Vec g = handGradient(w, batchOf({2 * s, 2 * s + 1}));
            for (int i = 0; i < kP; ++i) g[i] += corr[i];
            w = addScaled(w, g, -0.1);
        }
        Params got = initialW();
        for (int i = 0; i < kP; ++i) got[i] += r.update[i];
        QVERIFY(near(got, w));
    }

    void scaffoldVariatesByHand() {
        // Round 1: c = 0, c_i = 0; client 0 ran K = 2 steps of eta 0.1, client 1 K = 4 of 0.05.
        ScaffoldVariates v;
        std::vector<Contribution> cs{{0, 10, 0.0, 0, {0.2f, -0.4f}, 2, 2}, {1, 10, 0.0, 0, {-0.1f, 0.3f}, 4, 4}};
        const std::map<int, double> lr{{0, 0.1}, {1, 0.05}};
        const Params dx = scaffoldRound(v, cs, lr, 4);
        // c_0+ = 0 - 0 - (0.2, -0.4) / 0.2 = (-1, 2); c_1+ = -(-0.1, 0.3) / 0.2 = (0.5, -1.5).
        QVERIFY(std::fabs(v.ci[0][0] - -1.0f) < 1e-6f && std::fabs(v.ci[0][1] - 2.0f) < 1e-6f);
        QVERIFY(std::fabs(v.ci[1][0] - 0.5f) < 1e-6f && std::fabs(v.ci[1][1] - -1.5f) < 1e-6f);
        // c = 0 + (1/4) ((-1, 2) + (0.5, -1.5)) = (-0.125, 0.125); Delta x = mean = (0.05, -0.05).
        QVERIFY(std::fabs(v.c[0] - -0.125f) < 1e-6f && std::fabs(v.c[1] - 0.125f) < 1e-6f);
        QVERIFY(std::fabs(dx[0] - 0.05f) < 1e-7f && std::fabs(dx[1] - -0.05f) < 1e-7f);
        // Round 2: client 0 again, K = 1, eta 0.1, Delta y = (0.1, 0.1):
        // c_0+ = (-1, 2) - (-0.125, 0.125) - (1, 1) = (-1.875, 0.875); c += (1/4)(c_0+ - c_0).
        std::vector<Contribution> again{{0, 10, 0.0, 0, {0.1f, 0.1f}, 1, 1}};
        scaffoldRound(v, again, lr, 4);
        QVERIFY(std::fabs(v.ci[0][0] - -1.875f) < 1e-6f && std::fabs(v.ci[0][1] - 0.875f) < 1e-6f);
        QVERIFY(std::fabs(v.c[0] - (-0.125f + 0.25f * -0.875f)) < 1e-6f);
        QVERIFY(std::fabs(v.c[1] - (0.125f + 0.25f * -1.125f)) < 1e-6f);
    }

    void fedNovaByHand() {
        // Data sizes 30 and 10 (p = 0.75, 0.25), steps 2 and 4.
        std::vector<Contribution> cs{{0, 20, 0.0, 0, {0.4f}, 2, 4}, {1, 40, 0.0, 0, {1.0f}, 4, 4}};
        const std::vector<double> sizes{30, 10};
        // SGD: a = (2, 4); tau_eff = 0.75*2 + 0.25*4 = 2.5; weights p tau_eff / a = (0.9375, 0.15625).
        auto w = fedNovaWeights(cs, sizes, 0.0);
        QCOMPARE(w[0], 0.75 * 2.5 / 2);
        QCOMPARE(w[1], 0.25 * 2.5 / 4);
        // Momentum 0.5: a(2) = (2 - 0.5 (1 - 0.25) / 0.5) / 0.5 = 2.5; a(4) = (4 - 0.5 (1 - 0.0625) / 0.5) / 0.5 = 6.125.
        QCOMPARE(fedNovaNorm(2, 0.5), 2.5);
        QCOMPARE(fedNovaNorm(4, 0.5), 6.125);
        w = fedNovaWeights(cs, sizes, 0.5);
        const double tauEff = 0.75 * 2.5 + 0.25 * 6.125;
        QCOMPARE(w[0], 0.75 * tauEff / 2.5);
        QCOMPARE(w[1], 0.25 * tauEff / 6.125);
        // Equal steps: FedAvg's data weights.
        cs[0].steps = 4;
        w = fedNovaWeights(cs, sizes, 0.0);
        QCOMPARE(w[0], 0.75);
        QCOMPARE(w[1], 0.25);
    }

    void fedBuffByHand() {
        // K = 2 buffered changes with staleness 0 and 3, b = 0.5: weights 1/2 and (1/2)/sqrt(4).
        std::vector<Contribution> buf{{0, 5, 0.0, 0, {1.0f, -2.0f}, 1, 1}, {1, 5, 0.0, 3, {4.0f, 0.5f}, 1, 1}};
        const auto w = fedBuffWeights(buf, 0.5);
        QCOMPARE(w[0], 0.5);
        QCOMPARE(w[1], 0.25);
        const Params step = weightedSum(buf, w);
        QCOMPARE(step[0], 0.5f * 1.0f + 0.25f * 4.0f);
        QCOMPARE(step[1], 0.5f * -2.0f + 0.25f * 0.5f);
        QCOMPARE(fedBuffWeights(buf, 0.0)[1], 0.5); // b 0: the plain mean
    }

    void fedBuffStepsEveryKChanges() {
        Scenario s = smallStar("fedbuff");
        s.sync.params["buffer"] = 3;
        s.stop.rounds = 6;
        Recorder one, two;
        const RunSummary a = runScenario(s, one, 1);
        const RunSummary b = runScenario(s, two, 2);
        QCOMPARE(a.status, RunStatus::Finished);
        QCOMPARE(one.records.size(), std::size_t(6));
        int stale = 0;
        for (const auto& r : one.records) {
            QCOMPARE(r.participants, 3);
            stale += r.maxStaleness > 0;
        }
        QVERIFY2(stale > 0, "with 4 trainers and a buffer of 3 some changes come from older versions");
        QVERIFY(std::memcmp(&a.finalTestLoss, &b.finalTestLoss, sizeof(double)) == 0);
        QCOMPARE(one.times(), two.times());
    }

    // ---- through the engine -------------------------------------------------------------
    void sameMetricsForAnyThreadCount_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<QString>("settings");
        QTest::newRow("fedavg nesterov") << "fedavg" << "training.optimizer=nesterov training.momentum=0.9";
        QTest::newRow("fedavg adam keep") << "fedavg" << "training.optimizer=adam training.optimizer_state=keep";
        QTest::newRow("fedavg adamw") << "fedavg" << "training.optimizer=adamw training.weight_decay=0.01";
        QTest::newRow("fedavg fedadam") << "fedavg" << "training.server_optimizer=fedadam";
        QTest::newRow("fedavg fedyogi") << "fedavg" << "training.server_optimizer=fedyogi";
        QTest::newRow("fedavg fedavgm") << "fedavg" << "training.server_optimizer=fedavgm";
        QTest::newRow("fedavg fedadagrad") << "fedavg" << "training.server_optimizer=fedadagrad";
        QTest::newRow("fedprox") << "fedprox" << "";
        QTest::newRow("scaffold") << "scaffold" << "";
        QTest::newRow("fednova") << "fednova" << "sync.compute_deadline_s=0.5";
        QTest::newRow("quantize up, fp16 down")
            << "fedavg" << "training.codec_up=quantize training.codec_up_bits=4 training.codec_down=fp16";
        QTest::newRow("topk up") << "fedavg" << "training.codec_up=topk training.codec_up_fraction=0.1";
        QTest::newRow("quantize down") << "fedavg" << "training.codec_down=quantize training.codec_down_bits=3";
    }
    void sameMetricsForAnyThreadCount() {
        QFETCH(QString, policy);
        QFETCH(QString, settings);
        Scenario s = smallStar(policy.toStdString());
        std::vector<Override> sets;
        for (const auto& kv : settings.split(' ', Qt::SkipEmptyParts)) sets.push_back(parseOverride(kv.toStdString()));
        s = loadScenarioText(saveScenarioText(s), "learning", sets);
        Recorder one, two;
        const RunSummary a = runScenario(s, one, 1);
        const RunSummary b = runScenario(s, two, 2);
        QCOMPARE(a.status, RunStatus::Finished);
        QCOMPARE(one.records.size(), two.records.size());
        for (std::size_t i = 0; i < one.records.size(); ++i) {
            QVERIFY(std::memcmp(&one.records[i].trainLoss, &two.records[i].trainLoss, sizeof(double)) == 0);
            QVERIFY(std::memcmp(&one.records[i].testAccuracy, &two.records[i].testAccuracy, sizeof(double)) == 0);
            QCOMPARE(one.records[i].time, two.records[i].time);
        }
        QVERIFY(std::isfinite(a.finalTestLoss));
        // Different from plain FedAvg with SGD: the algorithm did something.
        Recorder plain;
        const RunSummary p = runScenario(smallStar("fedavg"), plain, 1);
        QVERIFY(std::memcmp(&p.finalTestLoss, &a.finalTestLoss, sizeof(double)) != 0);
    }

    // ---- codecs -------------------------------------------------------------------------
    void fp16RoundsAsIeeeHalf() {
        QCOMPARE(roundToHalf(1.0f), 1.0f);
        QCOMPARE(roundToHalf(0.1f), 0.0999755859375f);
        QCOMPARE(roundToHalf(-0.1f), -0.0999755859375f);
        QCOMPARE(roundToHalf(65504.0f), 65504.0f);
        QVERIFY(std::isinf(roundToHalf(70000.0f)));
        QCOMPARE(roundToHalf(65519.0f), 65504.0f);
        QCOMPARE(roundToHalf(1e-8f), 0.0f);                            // below half the smallest subnormal
        QCOMPARE(roundToHalf(3e-8f), std::ldexp(1.0f, -24));           // the smallest subnormal, 2^-24
        QCOMPARE(roundToHalf(1.0f + std::ldexp(1.0f, -11)), 1.0f);     // a tie: to even
        QCOMPARE(roundToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 1.0f + std::ldexp(1.0f, -9));
        QCOMPARE(roundToHalf(std::ldexp(1.0f, -14) * 1.5f), std::ldexp(1.0f, -14) * 1.5f); // smallest normals
    }

    void quantizeIsUnbiased() {
        CodecConfig c = codecConfig("quantize", 3, 0.0); // L = 3 levels per sign
        Params v;
        Rng pick(11);
        for (int i = 0; i < 40; ++i) v.push_back(static_cast<float>(pick.uniform(-2, 2)));
        float s = 0;
        for (float x : v) s = std::max(s, std::fabs(x));
        const int n = 20000;
        std::vector<double> sum(v.size(), 0.0);
        Rng rng(12);
        for (int k = 0; k < n; ++k) {
            Params e = v;
            encodeDecode(c, e, rng, nullptr);
            for (std::size_t i = 0; i < v.size(); ++i) {
                // On the grid: s l / 3 with l in 0..3, the sign of v_i.
                const double l = std::fabs(e[i]) * 3 / s;
                QVERIFY(std::fabs(l - std::round(l)) < 1e-5 && l <= 3 + 1e-5);
                sum[i] += e[i];
            }
        }
        int outside2se = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const double r = 3 * std::fabs(v[i]) / s, p = r - std::floor(r);
            const double se = (s / 3.0) * std::sqrt(p * (1 - p) / n);
            const double mean = sum[i] / n;
            QVERIFY2(std::fabs(mean - v[i]) <= 4 * se + 1e-6,
                     qPrintable(QString("coordinate %1: mean %2, value %3, se %4").arg(i).arg(mean).arg(v[i]).arg(se)));
            outside2se += std::fabs(mean - v[i]) > 2 * se + 1e-6;
        }
        QVERIFY(outside2se <= 8); // about 5% of 40 expected outside 2 standard errors
    }

    void topKConservesWhatItHasNotSent() {
        CodecConfig c = codecConfig("topk", 8, 0.1);
        Rng rng(3), draw(4);
        Params residual;
        std::vector<double> total(100, 0.0), sent(100, 0.0);
        for (int round = 0; round < 6; ++round) {
            Params v;
            for (int i = 0; i < 100; ++i) v.push_back(static_cast<float>(draw.normal()));
            const Params before = residual.empty() ? Params(100, 0.0f) : residual;
            Params e = v;
            encodeDecode(c, e, rng, &residual);
            int nonzero = 0;
            for (int i = 0; i < 100; ++i) {
                // sent + residual = update + old residual, exactly (one of the two is 0).
                QCOMPARE(e[i] + residual[i], v[i] + before[i]);
                QVERIFY(e[i] == 0.0f || residual[i] == 0.0f);
                nonzero += e[i] != 0.0f;
                total[i] += v[i];
                sent[i] += e[i];
            }
            QCOMPARE(nonzero, 10);
            // The sent ones are the largest in magnitude.
            float smallestSent = 1e30f, largestKept = 0.0f;
            for (int i = 0; i < 100; ++i) {
                if (e[i] != 0.0f) smallestSent = std::min(smallestSent, std::fabs(e[i]));
                largestKept = std::max(largestKept, std::fabs(residual[i]));
            }
            QVERIFY(smallestSent >= largestKept);
        }
        for (int i = 0; i < 100; ++i) QVERIFY(std::fabs(sent[i] + residual[i] - total[i]) < 1e-4);
    }

    void encodedBytesFollowTheirFormula() {
        const std::size_t p = 7850; // logistic regression on Fashion-MNIST
        QCOMPARE(encodedBytes(codecConfig("none", 8, 0.01), p), 31400.0);
        QCOMPARE(encodedBytes(codecConfig("fp16", 8, 0.01), p), 15700.0);
        QCOMPARE(encodedBytes(codecConfig("quantize", 8, 0.01), p), 4.0 + 7850.0);
        QCOMPARE(encodedBytes(codecConfig("quantize", 3, 0.01), p), 4.0 + 2944.0); // ceil(23550 / 8)
        QCOMPARE(encodedBytes(codecConfig("topk", 8, 0.01), p), 8.0 * 79);         // k = ceil(78.5)
        QCOMPARE(topKCount(codecConfig("topk", 8, 1e-9), p), std::size_t(1));
    }

    void codecsChangeTheBytesOnTheWire() {
        Recorder avg, half, top;
        const RunSummary a = runScenario(smallStar("fedavg"), avg, 1);
        Scenario s = smallStar("fedavg");
        s.training.codecUp = "fp16";
        const RunSummary b = runScenario(s, half, 1);
        // Every job: the model down at 4 P bytes, the update up at 2 P.
        QCOMPARE(b.bytes, 0.75 * a.bytes);
        QVERIFY(b.finalTestLoss != a.finalTestLoss);
        s.training.codecUp = "topk";
        s.training.codecUpFraction = 0.25;
        s.training.codecDown = "quantize";
        s.training.codecDownBits = 8;
        const RunSummary c = runScenario(s, top, 1);
        Engine probe(s, {});
        const double p = probe.modelBytes() / 4;
        const double perJob = (4 + std::ceil(p * 8 / 8)) + 8 * std::ceil(0.25 * p);
        const double jobs = std::round(a.bytes / (8 * p)); // instantaneous links: the same jobs
        QCOMPARE(a.bytes, jobs * 8 * p);
        QCOMPARE(c.bytes, jobs * perJob);
    }

    // ---- differential privacy ---------------------------------------------------------------
    // Reference values: the published RDP of the sampled Gaussian mechanism (Mironov, Talwar and
    // Zhang 2019, Sec. 3.3, integer orders 2..256) composed over the steps and converted with
    // Mironov 2017, Prop. 3, evaluated with 50-digit arithmetic (mpmath) by the script in
    // docs/learning.md ("The accountant's reference values"). The (256/60000, 1.3, 4688) row is
    // 20 epochs of DP-SGD on MNIST: Bu et al. (HDSR 2020, Fig. 4) report 1.34 for the moments
    // accountant there; the (256/60000, 1.1, 14063) row is TensorFlow Privacy's MNIST tutorial
    // (60 epochs), which reports 3.01.
    void accountantMatchesReferenceValues_data() {
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("sigma");
        QTest::addColumn<int>("steps");
        QTest::addColumn<double>("delta");
        QTest::addColumn<double>("epsilon");
        QTest::addColumn<int>("order");
        QTest::newRow("q 0.01 sigma 1") << 0.01 << 1.0 << 100 << 1e-5 << 1.6172818874595796 << 9;
        QTest::newRow("q 0.1 sigma 2") << 0.1 << 2.0 << 50 << 1e-5 << 2.2104266534621874 << 10;
        QTest::newRow("mnist 20 epochs") << 256.0 / 60000 << 1.3 << 4688 << 1e-5 << 1.3498332647679116 << 17;
        QTest::newRow("mnist 60 epochs") << 256.0 / 60000 << 1.1 << 14063 << 1e-5 << 3.0092111729975722 << 9;
        QTest::newRow("no sampling") << 1.0 << 5.0 << 10 << 1e-6 << 3.5269388197455343 << 9;
        QTest::newRow("q 0.05 sigma 0.8") << 0.05 << 0.8 << 200 << 1e-5 << 9.7087359542819309 << 3;
    }
    void accountantMatchesReferenceValues() {
        QFETCH(double, q);
        QFETCH(double, sigma);
        QFETCH(int, steps);
        QFETCH(double, delta);
        QFETCH(double, epsilon);
        QFETCH(int, order);
        int got = 0;
        const double e = rdpEpsilon(q, sigma, steps, delta, &got);
        QVERIFY2(std::fabs(e - epsilon) <= 1e-9 * epsilon, qPrintable(QString::number(e, 'g', 17)));
        QCOMPARE(got, order);
        // Without sampling the Gaussian mechanism's RDP is alpha / (2 sigma^2) exactly.
        QVERIFY(std::fabs(sampledGaussianRdp(1.0, 2.0, 7) - 7.0 / 8) < 1e-12);
    }

    void dpFedAvgReportsEpsilonEveryRound() {
        Scenario s = smallStar("dp-fedavg");
        s.selection.name = "random-k";
        s.selection.params["k"] = 2;
        s.sync.params["noise_multiplier"] = 1.2;
        s.sync.params["clip"] = 0.5;
        Recorder one, two;
        const RunSummary a = runScenario(s, one, 1);
        const RunSummary b = runScenario(s, two, 2);
        QCOMPARE(a.status, RunStatus::Finished);
        QVERIFY(std::memcmp(&a.finalTestLoss, &b.finalTestLoss, sizeof(double)) == 0);
        std::vector<std::string> details;
        for (const auto& ev : one.events)
            if (ev.kind == RunEventKind::Privacy) details.push_back(ev.detail);
        QCOMPARE(details.size(), std::size_t(4));
        for (int r = 1; r <= 4; ++r) {
            char want[64];
            std::snprintf(want, sizeof want, "epsilon=%.6g ", rdpEpsilon(0.5, 1.2, r, 1e-5));
            QVERIFY2(details[r - 1].rfind(want, 0) == 0, details[r - 1].c_str());
        }
        // Client-side noise: another stream, the same accountant.
        s.sync.params["noise_at"] = 1;
        Recorder c;
        const RunSummary x = runScenario(s, c, 1);
        QVERIFY(x.finalTestLoss != a.finalTestLoss);
    }

    // SecAgg's messages, priced: the same models as FedAvg (the masks cancel), every extra
    // byte of secAggBytes on the wire, and the mask expansion in the round's time.
    void secAggCostsItsMessages_data() {
        QTest::addColumn<int>("neighbors");
        QTest::newRow("secagg (k = n - 1)") << 0;
        QTest::newRow("secagg+ k = 1") << 1;
    }
    void secAggCostsItsMessages() {
        QFETCH(int, neighbors);
        Recorder avg, sec, sec2;
        const RunSummary a = runScenario(smallStar("fedavg"), avg, 1);
        Scenario s = smallStar("secagg");
        s.sync.params["neighbors"] = neighbors;
        s.sync.params["prg_elements_per_s"] = 1000;
        const RunSummary b = runScenario(s, sec, 1);
        const RunSummary b2 = runScenario(s, sec2, 2);
        QCOMPARE(b.status, RunStatus::Finished);
        QVERIFY(std::memcmp(&a.finalTestLoss, &b.finalTestLoss, sizeof(double)) == 0);
        QVERIFY(std::memcmp(&b.finalTestLoss, &b2.finalTestLoss, sizeof(double)) == 0);
        const int n = 4, k = secAggNeighbours(n, neighbors);
        QCOMPARE(k, neighbors == 0 ? 3 : 1);
        const SecAggBytes m = secAggBytes(n, k);
        const double perClient = m.advertiseUp + m.advertiseDown + m.shareUp + m.shareDown + m.unmaskDown + m.unmaskUp;
        QCOMPARE(perClient, 64 + 64.0 * k + 2 * 92.0 * k + 4.0 * n + 32.0 * k);
        QCOMPARE(b.bytes, a.bytes + 4 * n * perClient);
        // Instantaneous links: each round is longer by the clients' mask expansion.
        Engine probe(s, {});
        const double prg = (k + 1) * probe.modelBytes() / 4 / 1000;
        QCOMPARE(sec.records.size(), avg.records.size());
        for (std::size_t i = 0; i < avg.records.size(); ++i)
            QVERIFY(std::fabs(sec.records[i].time - avg.records[i].time - (i + 1) * prg) < 1e-9);
    }

    // sync.field_bits b: the masked update is P elements of Z_(2^b), ceil(P b / 8) bytes; the
    // arithmetic stays FedAvg's, the upload's bytes and time follow b.
    void secAggFieldBitsSetTheMaskedBytes() {
        QCOMPARE(secAggMaskedBytes(1000, 32), 4000.0);
        QCOMPARE(secAggMaskedBytes(1000, 16), 2000.0);
        QCOMPARE(secAggMaskedBytes(1001, 20), 2503.0); // ceil(20020 / 8)
        QCOMPARE(secAggMaskedBytes(7850, 64), 62800.0);
        Scenario s = smallStar("secagg");
        Recorder a, b;
        const RunSummary x = runScenario(s, a, 1);
        s.sync.params["field_bits"] = 20;
        const RunSummary y = runScenario(s, b, 1);
        QCOMPARE(y.status, RunStatus::Finished);
        QVERIFY(std::memcmp(&x.finalTestLoss, &y.finalTestLoss, sizeof(double)) == 0);
        Engine probe(s, {});
        const double p = probe.modelBytes() / 4;
        const double jobs = 4 * 4; // 4 rounds of the 4 trainers (secAggCostsItsMessages)
        QCOMPARE(x.bytes - y.bytes, jobs * (4 * p - std::ceil(20 * p / 8)));
        // On the clock's links (100,000 B/s up): a 16-bit ring halves the 4,000-byte upload,
        // 0.02 s less per round.
        Scenario c = clockStar("secagg", false);
        Recorder r32, r16;
        runScenario(c, r32, 1);
        c.sync.params["field_bits"] = 16;
        runScenario(c, r16, 1);
        QCOMPARE(r16.records.size(), r32.records.size());
        for (std::size_t i = 0; i < r32.records.size(); ++i)
            QVERIFY2(std::fabs(r32.records[i].time - r16.records[i].time - (i + 1) * 0.02) < 1e-9,
                     qPrintable(QString("round %1: %2 vs %3").arg(i + 1).arg(r32.records[i].time).arg(r16.records[i].time)));
        // A ring other than 32 bits does not combine with an uplink codec.
        s.training.codecUp = "fp16";
        QString refused;
        try {
            Recorder z;
            runScenario(s, z, 1);
        } catch (const EngineError& e) {
            refused = e.what();
        }
        QVERIFY2(refused.contains("field_bits 20 with training.codec_up fp16"), qPrintable(refused));
        // field_bits 32 (the default) with a codec: the codec's size, as before.
        s.sync.params["field_bits"] = 32;
        Recorder w;
        const RunSummary z = runScenario(s, w, 1);
        QCOMPARE(z.status, RunStatus::Finished);
        QCOMPARE(x.bytes - z.bytes, jobs * 2 * p);
    }

    // ---- what each algorithm costs, by hand (docs/learning.md, "What each algorithm costs") --
    // Every row: contention off (planned at dispatch) and on (flows); the same figures.
    void codecWorkIsPricedByTheClock_data() {
        QTest::addColumn<bool>("contention");
        QTest::newRow("ideal network") << false;
        QTest::newRow("flows") << true;
    }
    void codecWorkIsPricedByTheClock() {
        QFETCH(bool, contention);
        Scenario s = clockStar("fedavg", contention);
        s.training.codecDown = "fp16";     // 2,000 B down: 0.02 s
        s.training.codecUp = "quantize";   // 4 + 1,000 B up: 0.01004 s
        s.training.codecUpBits = 8;
        s.training.codecElementsPerSecond = 10000; // 0.1 s per vector encoded or decoded
        Recorder rec;
        const RunSummary sum = runScenario(s, rec, 1);
        QCOMPARE(sum.status, RunStatus::Finished);
        QCOMPARE(sum.bytes, 6 * (2000.0 + 1004.0));
        // The server encodes (0.1), the model goes down (0.02), the trainer decodes (0.1),
        // steps (0.02), encodes (0.1), the update goes up (0.01004), the server decodes (0.1).
        const double round = 0.1 + 0.02 + 0.1 + 0.02 + 0.1 + 0.01004 + 0.1;
        checkClock(rec, sum, round, 0.2, 0.0 + 2 * 2 * 0.1); // the server: 4 vectors a round at 1 W
        // Free codecs (the default): the same bytes, none of the work.
        s.training.codecElementsPerSecond = 0;
        Recorder free;
        const RunSummary f = runScenario(s, free, 1);
        checkClock(free, f, 0.02 + 0.02 + 0.01004, 0.0, 0.0);
    }

    void scaffoldThroughCodecsByHand() {
        QFETCH(bool, contention);
        // SCAFFOLD sends the model with c and the change with Delta c_i, each through the codec:
        // twice the encoded bytes and twice the codec work in each direction.
        Scenario s = clockStar("scaffold", contention);
        s.training.codecDown = "fp16";
        s.training.codecUp = "quantize";
        s.training.codecElementsPerSecond = 10000;
        Recorder rec;
        const RunSummary sum = runScenario(s, rec, 1);
        QCOMPARE(sum.status, RunStatus::Finished);
        QCOMPARE(sum.bytes, 6 * 2 * (2000.0 + 1004.0));
        const double round = 0.2 + 0.04 + 0.2 + 0.02 + 0.2 + 0.02008 + 0.2;
        checkClock(rec, sum, round, 0.4, 2 * 4 * 0.1);
    }
    void scaffoldThroughCodecsByHand_data() { codecWorkIsPricedByTheClock_data(); }

    void dpWorkIsPricedByTheClock_data() {
        QTest::addColumn<bool>("contention");
        QTest::addColumn<int>("noiseAt");
        QTest::newRow("server noise, ideal network") << false << 0;
        QTest::newRow("server noise, flows") << true << 0;
        QTest::newRow("client noise, ideal network") << false << 1;
        QTest::newRow("client noise, flows") << true << 1;
    }
    void dpWorkIsPricedByTheClock() {
        QFETCH(bool, contention);
        QFETCH(int, noiseAt);
        Scenario s = clockStar("dp-fedavg", contention);
        s.sync.params["noise_at"] = noiseAt;
        s.sync.params["elements_per_s"] = 10000; // a pass over P = 1,000 takes 0.1 s
        Recorder rec;
        const RunSummary sum = runScenario(s, rec, 1);
        QCOMPARE(sum.status, RunStatus::Finished);
        // Down 0.04, the step 0.02, the client clips (0.1) and with noise_at 1 draws its
        // noise (0.1 more), up 0.04; with noise_at 0 the server draws the noise (0.1).
        const double client = noiseAt ? 0.2 : 0.1, server = noiseAt ? 0.0 : 0.1;
        checkClock(rec, sum, 0.04 + 0.02 + client + 0.04 + server, client, server);
        QCOMPARE(rec.count("privacy"), 3);
    }

    void secAggMasksArePricedByTheClock_data() { codecWorkIsPricedByTheClock_data(); }
    void secAggMasksArePricedByTheClock() {
        QFETCH(bool, contention);
        Scenario s = clockStar("secagg", contention);
        s.topology.hasDefaultLink = false; // instantaneous links: the key messages take no time
        s.sync.params["prg_elements_per_s"] = 10000;
        Recorder rec;
        const RunSummary sum = runScenario(s, rec, 1);
        QCOMPARE(sum.status, RunStatus::Finished);
        // n = 2, k = 1: each client expands k + 1 = 2 masks of 1,000 elements (0.2 s) before
        // its step, held, billed and at 100 W.
        checkClock(rec, sum, 0.2 + 0.02, 0.2, 0.0);
    }

    void scaffoldSendsTwiceTheBytes() {
        Recorder avg, sc;
        const RunSummary a = runScenario(smallStar("fedavg"), avg, 1);
        const RunSummary b = runScenario(smallStar("scaffold"), sc, 1);
        QCOMPARE(a.status, RunStatus::Finished);
        QCOMPARE(b.status, RunStatus::Finished);
        QVERIFY(a.bytes > 0);
        QCOMPARE(b.bytes, 2 * a.bytes);
        // The transfers take longer: rounds end later on the same links.
        Scenario slow = smallStar("scaffold");
        Scenario slowAvg = smallStar("fedavg");
        for (Scenario* s : {&slow, &slowAvg}) {
            s->topology.hasDefaultLink = true;
            s->topology.defaultLink.bandwidthUpMbps = 0.1;
            s->topology.defaultLink.bandwidthDownMbps = 0.1;
        }
        Recorder r1, r2;
        const RunSummary x = runScenario(slow, r1, 1);
        const RunSummary y = runScenario(slowAvg, r2, 1);
        QVERIFY(x.virtualTime > y.virtualTime);
    }
};

QTEST_GUILESS_MAIN(TestLearning)
#include "test_learning.moc"
