// Models of the user's own (model.kind: torchscript, issue 26): a TorchScript MLP trains as
// the built-in MLP of the same shape does; bad files are refused with messages naming the
// file and the shapes; the FLOPs counted from the layer sizes are what LibTorch runs.
// The .pt fixtures in tests/data/models/ were made by presets/models/make_models.py.

#include "engine_fixtures.h"

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/model/torchscript_model.h"
#include "core/scenario/scenario_io.h"
#include "core/util/random.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace fog;
using namespace fogtest;

namespace {

std::string fixture(const std::string& name) { return std::string(FOG_TEST_DATA) + "/models/" + name; }

/// FedAvg over 5 synthetic (IID) devices with 60 features and 10 classes.
Scenario syntheticFedAvg(std::uint64_t seed) {
    Scenario s = timingStar(5, 1000.0, NoiseSpec::Kind::None);
    s.seed = seed;
    useSmallRealTraining(s, 10);
    s.data.syntheticIid = false;
    s.data.syntheticAlpha = 0.5;
    s.data.syntheticBeta = 0.5;
    s.model.kind = ModelSpec::Kind::Mlp;
    s.model.hidden = {32};
    s.training.learningRate = 0.05;
    s.training.localEpochs = 1;
    s.sync.name = "fedavg";
    s.stop.rounds = 15;
    s.topology.hasDefaultLink = true; // models cross 100 Mbit/s links: bytes show the wire size
    s.topology.defaultLink.bandwidthUpMbps = s.topology.defaultLink.bandwidthDownMbps = 100.0;
    return s;
}

std::string errorOf(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

std::string scenarioYaml(const std::string& modelPath) {
    return "name: own\n"
           "topology:\n"
           "  nodes:\n"
           "    - {id: server, tier: cloud, role: aggregator}\n"
           "  groups:\n"
           "    - {id: d, count: 3, parent: server}\n"
           "data: {dataset: synthetic, partition: {kind: natural}}\n"
           "model: {kind: torchscript, path: '" +
           modelPath +
           "'}\n"
           "sync: {policy: fedavg}\n"
           "stop: {rounds: 2}\n";
}

} // namespace

class TestOwnModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { useSingleThreadedKernels(); }

    // Same layers, same start, same batches: the TorchScript MLP computes the built-in one's
    // updates (the same LibTorch kernels run); only the operation order may differ. With every
    // local optimiser, FedProx's proximal term, SCAFFOLD's correction, a kept optimiser state
    // and the one-gradient jobs of fully-sync and async.
    void sameUpdatesAsBuiltinMlp_data() {
        QTest::addColumn<int>("optimizer");
        QTest::addColumn<double>("proxMu");
        QTest::addColumn<bool>("correction");
        QTest::addColumn<bool>("gradientOnly");
        QTest::addColumn<bool>("keepState");
        using O = LocalOptimizer;
        QTest::newRow("sgd + momentum") << int(O::Sgd) << 0.0 << false << false << false;
        QTest::newRow("nesterov") << int(O::Nesterov) << 0.0 << false << false << false;
        QTest::newRow("adam") << int(O::Adam) << 0.0 << false << false << false;
        QTest::newRow("adamw, kept state") << int(O::AdamW) << 0.0 << false << false << true;
        QTest::newRow("fedprox") << int(O::Sgd) << 0.1 << false << false << false;
        QTest::newRow("scaffold") << int(O::Sgd) << 0.0 << true << false << false;
        QTest::newRow("one gradient") << int(O::Sgd) << 0.0 << false << true << false;
    }
    void sameUpdatesAsBuiltinMlp() {
        QFETCH(int, optimizer);
        QFETCH(double, proxMu);
        QFETCH(bool, correction);
        QFETCH(bool, gradientOnly);
        QFETCH(bool, keepState);
        const DataBundle b = makeSynthetic(syntheticFedAvg(1).data, 5, 3);
        ModelSpec builtin;
        builtin.kind = ModelSpec::Kind::Mlp;
        builtin.hidden = {32};
        ModelSpec script;
        script.kind = ModelSpec::Kind::TorchScript;
        script.path = fixture("mlp-60-32-10.pt");
        Learner a(builtin, b.train, b.test), c(script, b.train, b.test);
        QCOMPARE(c.parameterCount(), a.parameterCount());
        QCOMPARE(c.parameterCount(), std::size_t(60 * 32 + 32 + 32 * 10 + 10));
        QVERIFY2(QString::fromStdString(c.describe()).startsWith("torchscript (2282 parameters)"),
                 c.describe().c_str());
        LocalJob job;
        job.start = std::make_shared<Params>(a.initialParameters(5));
        Rng rng(3);
        for (int k = 0; k < 20; ++k) {
            job.batchSizes.push_back(10);
            for (int i = 0; i < 10; ++i)
                job.samples.push_back(static_cast<std::int64_t>(rng.uniform() * double(b.train.size())) %
                                      static_cast<std::int64_t>(b.train.size()));
        }
        job.learningRate = optimizer == int(LocalOptimizer::Adam) || optimizer == int(LocalOptimizer::AdamW) ? 0.005 : 0.05;
        job.momentum = 0.5;
        job.weightDecay = 1e-3;
        job.optimizer = static_cast<LocalOptimizer>(optimizer);
        job.proxMu = proxMu;
        job.gradientOnly = gradientOnly;
        if (gradientOnly) {
            job.batchSizes = {10};
            job.samples.resize(10);
        }
        if (correction) {
            Params c0(a.parameterCount());
            for (std::size_t i = 0; i < c0.size(); ++i) c0[i] = static_cast<float>(0.01 * std::sin(double(i)));
            job.correction = std::make_shared<Params>(std::move(c0));
        }
        LocalResult ra, rc;
        if (keepState) {
            // The state the first job ends with starts the second: both models keep theirs.
            job.returnState = true;
            LocalJob ja = job, jc = job;
            ja.optimizerState = a.run(job).optimizerState;
            jc.optimizerState = c.run(job).optimizerState;
            QVERIFY(ja.optimizerState && jc.optimizerState);
            ra = a.run(ja);
            rc = c.run(jc);
        } else {
            ra = a.run(job);
            rc = c.run(job);
        }
        QCOMPARE(rc.steps, gradientOnly ? 1 : 20);
        QCOMPARE(rc.update.size(), ra.update.size());
        double worst = 0.0, norm = 0.0;
        for (std::size_t i = 0; i < ra.update.size(); ++i) {
            worst = std::max(worst, std::abs(double(ra.update[i]) - double(rc.update[i])));
            norm = std::max(norm, std::abs(double(ra.update[i])));
        }
        qInfo("largest difference of the updates: %.3g (largest update %.3g)", worst, norm);
        QVERIFY(norm > 1e-3);
        QVERIFY2(worst <= 1e-5 * std::max(1.0, norm), "the TorchScript MLP should compute the built-in MLP's updates");
        QVERIFY(std::abs(ra.meanLoss - rc.meanLoss) < 1e-5);
        const EvalResult ea = a.evaluate(*job.start), ec = c.evaluate(*job.start);
        QVERIFY(std::abs(ea.loss - ec.loss) < 1e-5);
        QCOMPARE(ec.accuracy, ea.accuracy);
    }

    // Through the whole emulator, each starting from its own initialisation (the file's
    // weights, the built-in's seeded draw): over 3 seeds the final accuracies agree within
    // 3 points on average and 8 points per seed.
    void sameAccuracyAsBuiltinMlpOverSeeds() {
        double sumBuiltin = 0.0, sumScript = 0.0;
        for (std::uint64_t seed : {1, 2, 3}) {
            Scenario s = syntheticFedAvg(seed);
            Recorder r1;
            const RunSummary a = runScenario(s, r1, 2);
            s.model.kind = ModelSpec::Kind::TorchScript;
            s.model.path = fixture("mlp-60-32-10.pt");
            Recorder r2;
            const RunSummary c = runScenario(s, r2, 2);
            QCOMPARE(a.status, RunStatus::Finished);
            QCOMPARE(c.status, RunStatus::Finished);
            qInfo("seed %d: built-in mlp %.3f, torchscript mlp %.3f", int(seed), a.finalTestAccuracy,
                  c.finalTestAccuracy);
            QVERIFY(std::abs(a.finalTestAccuracy - c.finalTestAccuracy) < 0.08);
            sumBuiltin += a.finalTestAccuracy;
            sumScript += c.finalTestAccuracy;
            // Same wire size: 4 bytes per parameter.
            QCOMPARE(r2.records.size(), r1.records.size());
            QCOMPARE(r2.records.back().bytes, r1.records.back().bytes);
        }
        QVERIFY2(sumScript / 3 > 0.3, "the TorchScript MLP should learn");
        QVERIFY(std::abs(sumBuiltin - sumScript) / 3 < 0.03);
    }

    void sameMetricsForAnyThreadCount() {
        Scenario s = syntheticFedAvg(4);
        s.model.kind = ModelSpec::Kind::TorchScript;
        s.model.path = fixture("mlp-60-32-10.pt");
        s.stop.rounds = 4;
        Recorder r1, r2;
        runScenario(s, r1, 1);
        runScenario(s, r2, 2);
        QCOMPARE(r2.records.size(), r1.records.size());
        for (std::size_t i = 0; i < r1.records.size(); ++i) {
            QCOMPARE(r2.records[i].trainLoss, r1.records[i].trainLoss);
            QCOMPARE(r2.records[i].testAccuracy, r1.records[i].testAccuracy);
        }
    }

    void badModelsRefused_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        QTest::newRow("wrong classes") << "wrong-classes.pt"
                                       << "gives an output of shape [2, 7]; the data need [2, 10] (10 classes)";
        QTest::newRow("dropout") << "dropout.pt" << "two forward passes in training mode";
        QTest::newRow("batchnorm") << "batchnorm.pt" << "has a buffer (1.running_mean [32])";
        QTest::newRow("wrong input") << "cnn-3x32x32.pt" << "the forward pass fails on input of shape [2, 60]";
        QTest::newRow("corrupt") << "corrupt" << "is not a TorchScript module LibTorch 1.13 can load";
        QTest::newRow("directory") << "directory" << "is a directory";
        QTest::newRow("huge") << "huge" << "is 64.0 MiB; TorchScript models of at most 64.0 MiB are read";
        QTest::newRow("missing") << "missing" << "No such file";
    }
    void badModelsRefused() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        std::string path = fixture(file.toStdString());
        const std::string tmp = dir.path().toStdString();
        if (file == "corrupt") {
            path = tmp + "/corrupt.pt";
            std::ofstream(path) << "PK\x03\x04 this is not a zip archive of a TorchScript module";
        } else if (file == "directory") {
            path = tmp + "/dir.pt";
            std::filesystem::create_directory(path);
        } else if (file == "huge") {
            path = tmp + "/huge.pt";
            std::ofstream(path).put('x');
            std::filesystem::resize_file(path, kMaxTorchScriptBytes + 1); // sparse: nothing is written
        } else if (file == "missing") {
            path = tmp + "/missing.pt";
        }
        // The validator places it at model.path with the file's name.
        const std::string v = errorOf([&] { loadScenarioText(scenarioYaml(path), "own.yaml"); });
        QVERIFY2(v.find("model.path") != std::string::npos, v.c_str());
        QVERIFY2(v.find(path) != std::string::npos, v.c_str());
        QVERIFY2(v.find(expected.toStdString()) != std::string::npos, v.c_str());
        // The learner refuses it too (a scenario built in code skips the validator).
        const DataBundle b = makeSynthetic(syntheticFedAvg(1).data, 3, 1);
        ModelSpec spec;
        spec.kind = ModelSpec::Kind::TorchScript;
        spec.path = path;
        const std::string l = errorOf([&] { Learner learner(spec, b.train, b.test); });
        QVERIFY2(l.find(expected.toStdString()) != std::string::npos, l.c_str());
    }

    void pathRequiredAndResolvedAgainstTheScenario() {
        const std::string v = errorOf([] {
            loadScenarioText("topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n"
                             "    - {id: d, parent: s}\ndata: {dataset: synthetic, partition: {kind: natural}}\n"
                             "model: {kind: torchscript}\nsync: {policy: fedavg}\n",
                             "own.yaml");
        });
        QVERIFY2(v.find("model.path") != std::string::npos && v.find("is required with kind: torchscript") != std::string::npos,
                 v.c_str());
        // A relative path is found beside the scenario file, and saved as written.
        QTemporaryDir dir;
        const std::string yamlPath = dir.path().toStdString() + "/own.yaml";
        std::filesystem::copy_file(fixture("mlp-60-32-10.pt"), dir.path().toStdString() + "/net.pt");
        std::ofstream(yamlPath) << scenarioYaml("net.pt");
        const Scenario s = loadScenarioFile(yamlPath);
        QCOMPARE(s.model.kind, ModelSpec::Kind::TorchScript);
        QCOMPARE(s.model.path, std::string("net.pt"));
        QVERIFY(saveScenarioText(s).find("path: net.pt") != std::string::npos);
        QCOMPARE(withAbsoluteModelPath(s.model).path, dir.path().toStdString() + "/net.pt");
        Recorder rec;
        QCOMPARE(runScenario(s, rec).status, RunStatus::Finished);
    }

    // The summary of a TorchScript file lists its layers and counts its FLOPs from what
    // LibTorch runs; for the MLP that is the built-in count, 2 x (60 x 32 + 32 x 10).
    void summaryOfTorchScriptModel() {
        const ModelSummary s = inspectTorchScript(fixture("mlp-60-32-10.pt"), 1, 1, 60, 10);
        QCOMPARE(s.parameters, std::int64_t(2282));
        QCOMPARE(s.layers.size(), std::size_t(2));
        QCOMPARE(s.layers[0].kind, std::string("Linear"));
        QCOMPARE(s.layers[0].weightShape, (std::vector<std::int64_t>{32, 60}));
        QCOMPARE(s.forwardFlopsPerSample, 2.0 * (60 * 32 + 32 * 10));
        ModelSpec mlp;
        mlp.hidden = {32};
        const ModelSummary b = builtinModelSummary(mlp, 1, 1, 60, 10);
        QCOMPARE(b.parameters, s.parameters);
        QCOMPARE(b.forwardFlopsPerSample, s.forwardFlopsPerSample);
        QCOMPARE(b.trainingFlopsPerSample(), 3 * b.forwardFlopsPerSample);

        // The CNN: two convolutions (GroupNorm between, whose parameters count but whose
        // element-wise work does not) and two dense layers.
        const ModelSummary c = inspectTorchScript(fixture("cnn-3x32x32.pt"), 3, 32, 32, 10);
        const double conv1 = 2.0 * 8 * 28 * 28 * 3 * 25, conv2 = 2.0 * 16 * 10 * 10 * 8 * 25;
        QCOMPARE(c.forwardFlopsPerSample, conv1 + conv2 + 2.0 * (400 * 64 + 64 * 10));
        QCOMPARE(c.parameters, std::int64_t(30154));
        QCOMPARE(c.layers.size(), std::size_t(5));
    }

    // The built-in models' counts from their layer sizes equal the FLOPs LibTorch runs for them.
    void builtinCountsAreWhatLibTorchRuns_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("channels");
        QTest::addColumn<int>("side");
        QTest::newRow("logreg") << int(ModelSpec::Kind::LogReg) << 1 << 28;
        QTest::newRow("mlp") << int(ModelSpec::Kind::Mlp) << 1 << 28;
        QTest::newRow("cnn 1x28x28") << int(ModelSpec::Kind::Cnn) << 1 << 28;
        QTest::newRow("cnn 3x32x32") << int(ModelSpec::Kind::Cnn) << 3 << 32;
    }
    void builtinCountsAreWhatLibTorchRuns() {
        QFETCH(int, kind);
        QFETCH(int, channels);
        QFETCH(int, side);
        Dataset d;
        d.channels = channels;
        d.height = d.width = side;
        d.classes = 10;
        d.features.assign(std::size_t(4) * channels * side * side, 0.5f);
        d.labels = {0, 1, 2, 3};
        ModelSpec spec;
        spec.kind = static_cast<ModelSpec::Kind>(kind);
        spec.hidden = {100, 50};
        Learner learner(spec, d, d);
        const Params p = learner.initialParameters(1);
        EvalResult e;
        // Evaluation runs the forward pass on the 4 test samples.
        const double measured = countForwardFlops([&] { e = learner.evaluate(p); });
        const ModelSummary s = builtinModelSummary(spec, channels, side, side, 10);
        QCOMPARE(std::size_t(s.parameters), learner.parameterCount());
        QCOMPARE(measured, 4 * s.forwardFlopsPerSample);
    }
};

QTEST_GUILESS_MAIN(TestOwnModel)
#include "test_own_model.moc"
