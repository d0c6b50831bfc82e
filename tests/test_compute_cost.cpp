// Compute that follows the model (issue 26): nodes given in FLOP/s take batch x FLOPs per
// sample / FLOP/s per step (closed form); compute traces change the speed exactly when a
// hand timeline says; bad traces are refused with file:line:column; FedScale's device traces
// convert to FogStudio's CSV traces.

#include "engine_fixtures.h"

#include "core/model/torchscript_model.h"
#include "core/scenario/scenario_io.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace fog;
using namespace fogtest;

namespace {

std::string errorOf(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

/// A server and `n` trainers given in FLOP/s, fully synchronous rounds of one step of batch
/// 10, no network: a round takes 10 x FLOPs per sample / flops.
Scenario flopsStar(int n, double flops, std::vector<int> hidden) {
    Scenario s = timingStar(n, 1000.0, NoiseSpec::Kind::None);
    useSmallRealTraining(s, 10);
    s.model.kind = ModelSpec::Kind::Mlp;
    s.model.hidden = std::move(hidden);
    s.topology.nodes[1].compute.flops = Range::exactly(flops);
    s.sync.name = "fully-sync";
    s.training.localSteps = 1;
    s.stop.rounds = 5;
    return s;
}

std::string traceScenario(const std::string& trace, const std::string& compute) {
    return "topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n"
           "    - {id: d, parent: s, compute: {" +
           compute + ", trace: '" + trace +
           "'}}\n"
           "data: {dataset: none, samples_per_trainer: 100}\nmodel: {kind: none, flops_per_sample: 1000000}\n"
           "training: {batch_size: 10, local_steps: 1}\nsync: {policy: fully-sync}\nstop: {rounds: 6}\n";
}

} // namespace

class TestComputeCost : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Round time = batch x training FLOPs per sample / FLOP/s, with the FLOPs counted from
    // the layers: 3 x 2 x (60 x h + h x 10) for an MLP of h hidden units on 60 features.
    void roundTimeFollowsModelFlops() {
        const double flops = 2e8;
        double previous = 0.0;
        for (int h : {32, 64, 256}) {
            const Scenario s = flopsStar(3, flops, {h});
            const double perSample = 3.0 * 2.0 * (60.0 * h + h * 10.0);
            QCOMPARE(trainingFlopsPerSample(s.model, builtinModelSummary(s.model, 1, 1, 60, 10)), perSample);
            Recorder rec;
            QCOMPARE(runScenario(s, rec).status, RunStatus::Finished);
            QCOMPARE(rec.records.size(), std::size_t(5));
            const double round = 10.0 * perSample / flops;
            for (std::size_t k = 0; k < rec.records.size(); ++k)
                QVERIFY2(std::abs(rec.records[k].time - (k + 1) * round) <= 1e-12 * (k + 1) * round,
                         qPrintable(QString("h %1 round %2: %3 s, the closed form says %4 s")
                                        .arg(h)
                                        .arg(k + 1)
                                        .arg(rec.records[k].time, 0, 'g', 17)
                                        .arg((k + 1) * round, 0, 'g', 17)));
            if (previous > 0) QVERIFY(rec.records[0].time > previous); // a larger model is slower
            previous = rec.records[0].time;
        }
        // Given by hand, model.flops_per_sample replaces the count.
        Scenario s = flopsStar(2, 1e9, {32});
        s.model.flopsPerSample = 5e6;
        Recorder rec;
        runScenario(s, rec);
        QCOMPARE(rec.records[0].time, 10.0 * 5e6 / 1e9);
        // A group's FLOP/s range is drawn per member; samples/s follow member by member.
        s.topology.nodes[1].compute.flops = Range(1e9, 3e9);
        s.sync.name = "fully-sync";
        Recorder r2;
        runScenario(s, r2);
        QVERIFY(r2.records[0].time < 10.0 * 5e6 / 1e9 && r2.records[0].time > 10.0 * 5e6 / 3e9);
    }

    // The same scenario in samples/s takes its speeds as given (unchanged behaviour).
    void samplesPerSecondUnchanged() {
        Scenario s = flopsStar(3, 2e8, {32});
        s.topology.nodes[1].compute.flops = Range::exactly(0.0);
        s.topology.nodes[1].compute.throughput = Range::exactly(250.0);
        Recorder rec;
        runScenario(s, rec);
        QCOMPARE(rec.records[0].time, 10.0 / 250.0);
        QVERIFY(saveScenarioText(s).find("flops") == std::string::npos); // not written when unset
    }

    void flopsNeedAModelCost() {
        const std::string e = errorOf([] {
            loadScenarioText("topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n"
                             "    - {id: d, parent: s, compute: {flops: 1e9}}\n"
                             "data: {dataset: none}\nmodel: {kind: none}\nsync: {policy: fully-sync}\n",
                             "f.yaml");
        });
        QVERIFY2(e.find("topology.nodes[1].compute.flops") != std::string::npos &&
                     e.find("needs model.flops_per_sample when model.kind is none") != std::string::npos,
                 e.c_str());
    }

    // A compute trace against a hand timeline: 10 samples/s, 5 from t = 2.5, 20 from t = 4;
    // batch 10, one step per round. A step takes its speed at dispatch: rounds end at 1, 2, 3
    // (dispatched at 2, before the change), 5 (2 s at 5/s), 5.5 and 6 (0.5 s at 20/s).
    void computeTraceHandTimeline_data() {
        QTest::addColumn<QString>("compute");
        QTest::addColumn<double>("scale");
        QTest::newRow("samples/s") << "throughput: 99" << 1.0;
        QTest::newRow("FLOP/s") << "flops: 1e9" << 1e6; // 1e6 FLOPs per sample
    }
    void computeTraceHandTimeline() {
        QFETCH(QString, compute);
        QFETCH(double, scale);
        QTemporaryDir dir;
        const std::string trace = dir.path().toStdString() + "/speed.csv";
        std::ofstream(trace) << "time_s,value\n0," << 10 * scale << "\n2.5," << 5 * scale << "\n4," << 20 * scale << "\n";
        const Scenario s = loadScenarioText(traceScenario(trace, compute.toStdString()), "t.yaml");
        Recorder rec;
        QCOMPARE(runScenario(s, rec).status, RunStatus::Finished);
        QCOMPARE(rec.times(), (std::vector<double>{1, 2, 3, 5, 5.5, 6}));
        QCOMPARE(rec.count("trace"), 3);
    }

    void badTracesRefused_data() {
        QTest::addColumn<QString>("csv");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero") << "time_s,value\n0,10\n5,0\n" << ":3:3: value: compute speed must be > 0, got 0";
        QTest::newRow("not a number") << "time_s,value\n0,10\n5,fast\n" << ":3:3: value must be a finite number";
        QTest::newRow("time") << "time_s,value\n0,10\n0,5\n" << ":3:1: time_s must increase";
        QTest::newRow("negative") << "time_s,value\n0,-1\n" << ":2:3: value must be >= 0";
    }
    void badTracesRefused() {
        QFETCH(QString, csv);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string trace = dir.path().toStdString() + "/speed.csv";
        std::ofstream(trace) << csv.toStdString();
        const std::string e = errorOf([&] { loadScenarioText(traceScenario(trace, "throughput: 10"), "t.yaml"); });
        QVERIFY2(e.find(trace + expected.toStdString()) != std::string::npos, e.c_str());
    }

    // presets/traces/fedscale_to_fogstudio.py on pickles in FedScale's formats written here.
    void fedscaleConverter() {
        const QString python = "/usr/bin/python3";
        if (!QFileInfo::exists(python)) QSKIP("/usr/bin/python3 is not installed");
        QTemporaryDir dir;
        const QString d = dir.path();
        const QString make =
            "import pickle\n"
            "cap = {1: {'computation': 10.0, 'communication': 2000.0}, 2: {'computation': 50.0, 'communication': 500.0},"
            " 3: {'computation': 20.0, 'communication': 1000.0}}\n"
            "beh = {1: {'active': [0, 100], 'inactive': [50, 150], 'finish_time': 200, 'duration': 200},"
            " 2: {'active': [10], 'inactive': [190], 'finish_time': 200, 'duration': 200},"
            " 3: {'active': [0], 'inactive': [200], 'finish_time': 200, 'duration': 200}}\n"
            "pickle.dump(cap, open('" + d + "/client_device_capacity', 'wb'))\n"
            "pickle.dump(beh, open('" + d + "/client_behave_trace', 'wb'))\n";
        QProcess p;
        p.start(python, {"-c", make});
        QVERIFY(p.waitForFinished(60000) && p.exitCode() == 0);
        p.start(python, {QString(FOG_SOURCE_DIR) + "/presets/traces/fedscale_to_fogstudio.py", "--capacity",
                         d + "/client_device_capacity", "--behavior", d + "/client_behave_trace", "--clients", "2",
                         "--group", "phone", "--parent", "s", "--horizon", "400", "--out", d + "/out"});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        auto read = [&](const QString& name) {
            QFile f(d + "/out/" + name);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString("(missing)");
        };
        // 1000 / (3 x 10 ms) and 1000 / (3 x 50 ms) samples/s; 2 and 0.5 Mbit/s.
        QCOMPARE(read("compute.csv"), QString("time_s,phone-0,phone-1\n0,33.333333333333336,6.666666666666667\n"));
        QCOMPARE(read("bandwidth.csv"), QString("time_s,phone-0,phone-1\n0,2,0.5\n"));
        // Client 1: online [0, 50] and [100, 150], repeating every 200 s, up to 400 s.
        QCOMPARE(read("availability-phone-0.csv"), QString("time_s,value\n0,1\n50,0\n100,1\n150,0\n200,1\n250,0\n300,1\n350,0\n"));
        QCOMPARE(read("availability-phone-1.csv"), QString("time_s,value\n0,0\n10,1\n190,0\n210,1\n390,0\n"));
        QCOMPARE(read("members.csv"), QString("member,fedscale_client\nphone-0,1\nphone-1,2\n"));

        // The group it writes runs as is.
        QString group = read("group.yaml");
        group.replace("\n", "\n    ");
        const std::string yaml = "topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n  groups:\n    " +
                                 group.trimmed().toStdString() +
                                 "\ndata: {dataset: none, samples_per_trainer: 100}\nmodel: {kind: none}\n"
                                 "training: {batch_size: 10}\nsync: {policy: fedavg}\nstop: {rounds: 3}\n";
        std::ofstream(d.toStdString() + "/out/run.yaml") << yaml;
        const Scenario s = loadScenarioFile(d.toStdString() + "/out/run.yaml");
        Recorder rec;
        QCOMPARE(runScenario(s, rec).status, RunStatus::Finished);
        QCOMPARE(rec.records.size(), std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestComputeCost)
#include "test_compute_cost.moc"
