// Compute that follows the model (issue 26): nodes given in FLOP/s take batch x FLOPs per
// sample / FLOP/s per step (closed form); compute traces change the speed exactly when a
// hand timeline says; bad traces are refused with file:line:column; FedScale's device traces
// convert to FogStudio's CSV traces.

#include "engine_fixtures.h"

#include "core/analysis/theory.h"
#include "core/model/torchscript_model.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/schema.h"
#include "core/spec/device_classes.h"
#include "core/system/topology.h"
#include "core/scenario/yaml_reader.h"

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

/// `s` with every node's speed given in FLOP/s: flops = throughput x f (ranges end by end),
/// model.flops_per_sample = f. With f a power of two every drawn speed divides back to the
/// samples/s the original draws, bit for bit.
Scenario inFlops(const Scenario& s, double f) {
    Scenario t = s;
    t.model.flopsPerSample = f;
    for (auto& n : t.topology.nodes) {
        n.compute.flops = Range(n.compute.throughput.min * f, n.compute.throughput.max * f);
        n.compute.throughput = Range::exactly(1.0); // not used
    }
    return t;
}

/// Everything a run reports that the clock decides, record by record and event by event.
void sameTimeline(const Recorder& a, const Recorder& b) {
    QCOMPARE(a.records.size(), b.records.size());
    for (std::size_t k = 0; k < a.records.size(); ++k) {
        const auto &x = a.records[k], &y = b.records[k];
        QCOMPARE(x.time, y.time);
        QCOMPARE(x.participants, y.participants);
        QCOMPARE(x.aggregator, y.aggregator);
        QCOMPARE(x.cost, y.cost);
        QCOMPARE(x.energyJ, y.energyJ);
        QCOMPARE(x.bytes, y.bytes);
        QCOMPARE(x.meanStaleness, y.meanStaleness);
    }
    QCOMPARE(a.events.size(), b.events.size());
    for (std::size_t k = 0; k < a.events.size(); ++k) {
        QCOMPARE(a.events[k].time, b.events[k].time);
        QCOMPARE(a.events[k].detail, b.events[k].detail); // plans, placements, selections
    }
}

const std::string kPresets = std::string(FOG_SOURCE_DIR) + "/presets/";

std::string devicesScenario(const std::string& compute, const std::string& energy = "") {
    return "topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n"
           "    - {id: d, parent: s, compute: {" +
           compute + "}" + (energy.empty() ? "" : ", energy: {" + energy + "}") +
           "}\n"
           "data: {dataset: none, samples_per_trainer: 100}\nmodel: {kind: none, flops_per_sample: 1000000}\n"
           "training: {batch_size: 10, local_steps: 1}\nsync: {policy: fully-sync}\nstop: {rounds: 3}\n";
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

    // ---------------------------------------------------------- estimates and planners
    // Every preset's timing-only twin, written in samples/s and in FLOP/s with matching model
    // FLOPs (2^20 per sample, so that each drawn speed divides back exactly): the same
    // timeline (rounds, participants, cost, energy, bytes) and the same events, so the
    // planners and selection policies inside the run (adacoopt, data-value, placement,
    // exp-growth, ton-plan, fastest-k, oort, deadline-budget) see the same speeds; and the
    // same expected round time (closed form or Monte Carlo), bit for bit.
    void presetsSameInSamplesAndFlops_data() {
        QTest::addColumn<QString>("preset");
        for (const auto& e : std::filesystem::directory_iterator(kPresets)) {
            if (e.path().extension() != ".yaml") continue;
            std::ifstream in(e.path());
            const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            if (text.find("\nkind: cluster") != std::string::npos) continue; // a cluster scheduling scenario
            QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().string());
        }
    }
    void presetsSameInSamplesAndFlops() {
        QFETCH(QString, preset);
        const Scenario full = loadScenarioFile(preset.toStdString());
        for (const auto& n : full.topology.nodes)
            if (!n.computeTrace.empty()) QSKIP("a compute trace is in the unit of its node's compute");
        const Scenario samples = timingOnlyScenario(full, 4e5, 100, 4);
        const Scenario flops = inFlops(samples, 1048576.0);
        Recorder a, b;
        const RunSummary ra = runScenario(samples, a), rb = runScenario(flops, b);
        QCOMPARE(ra.status, RunStatus::Finished);
        QCOMPARE(rb.status, ra.status);
        QVERIFY(!a.records.empty());
        sameTimeline(a, b);
        QCOMPARE(rb.virtualTime, ra.virtualTime);
        QCOMPARE(rb.energyJ, ra.energyJ);

        TheoryOptions o;
        o.wireBytes = 4e5;
        o.samplesPerTrainer = 100;
        o.monteCarloRounds = 12;
        const ExpectedRoundTime ea = expectedRoundTimeOf(samples, o), eb = expectedRoundTimeOf(flops, o);
        QCOMPARE(static_cast<int>(eb.source), static_cast<int>(ea.source));
        QVERIFY2(ea.source != ExpectedRoundTime::Source::None, ea.detail.c_str());
        QCOMPARE(eb.seconds, ea.seconds);
        QCOMPARE(eb.closedForm.applies, ea.closedForm.applies);
        if (ea.closedForm.applies) QCOMPARE(eb.closedForm.seconds, ea.closedForm.seconds);
    }

    // Selection policies that rank trainers by expected speed, and the calibrated planners
    // (a pilot phase of real training, then a plan), on unequal devices: samples/s and
    // FLOP/s give the same run.
    void speedRankingPoliciesSameInSamplesAndFlops_data() {
        QTest::addColumn<QString>("sync");
        QTest::addColumn<QString>("selection");
        QTest::newRow("fastest-k") << "{policy: fully-sync}" << "{policy: fastest-k, k: 2}";
        QTest::newRow("oort") << "{policy: fully-sync}" << "{policy: oort, k: 2}";
        QTest::newRow("deadline-budget") << "{policy: fully-sync}" << "{policy: deadline-budget, k: 2, deadline_s: 5}";
        QTest::newRow("adacoopt (pilot)") << "{policy: adacoopt, round_time_s: 2, max_tau: 4}" << "{policy: all}";
        QTest::newRow("ton-plan (pilot)") << "{policy: n-sync, n: 1}"
                                          << "{policy: ton-plan, target_accuracy: 0.75, pilot_steps: 4, deadline_s: 0.5}";
    }
    void speedRankingPoliciesSameInSamplesAndFlops() {
        QFETCH(QString, sync);
        QFETCH(QString, selection);
        const Scenario samples = loadScenarioText(
            "seed: 5\ntopology:\n  nodes:\n    - {id: server, tier: edge, role: aggregator, price_per_hour: 3.6}\n"
            "  groups:\n    - id: dev\n      count: 5\n      parent: server\n"
            "      compute: {throughput: {min: 50, max: 200}, noise: {kind: exponential}}\n"
            "      price_per_hour: {min: 10, max: 40}\n      energy: {per_sample_j: 0.5}\n"
            "      link: {bandwidth_up_mbps: 10, bandwidth_down_mbps: 10, latency_ms: 10}\n"
            "data: {dataset: synthetic, synthetic: {alpha: 0.5, beta: 0.5}}\nmodel: {kind: logreg}\n"
            "training: {learning_rate: 0.05, batch_size: 16, local_steps: 2}\nsync: " +
                sync.toStdString() + "\nselection: " + selection.toStdString() +
                "\nstop: {rounds: 3}\nevaluation: {every_rounds: 1}\n",
            "rank.yaml");
        const Scenario flops = inFlops(samples, 4096.0);
        QVERIFY(validateScenario(flops).empty());
        Recorder a, b;
        const RunSummary ra = runScenario(samples, a), rb = runScenario(flops, b);
        QVERIFY2(ra.status == RunStatus::Finished, ra.stopReason.c_str());
        QCOMPARE(rb.status, ra.status);
        sameTimeline(a, b);
        QCOMPARE(rb.finalTestAccuracy, ra.finalTestAccuracy);
    }

    // The closed form and the Monte Carlo estimate with the FLOPs counted from the model (an
    // MLP of 32 hidden units on 60 features: 13,440 per sample): 250 samples/s and
    // 250 x 13,440 FLOP/s are the same node.
    void estimatesFollowCountedFlops() {
        Scenario samples = flopsStar(4, 1.0, {32});
        samples.topology.nodes[1].compute.flops = Range::exactly(0.0);
        samples.topology.nodes[1].compute.throughput = Range::exactly(250.0);
        samples.topology.nodes[1].compute.noise.kind = NoiseSpec::Kind::Exponential;
        Scenario flops = samples;
        flops.topology.nodes[1].compute.flops = Range::exactly(250.0 * 13440.0);
        QCOMPARE(scenarioTrainingFlops(flops), 13440.0);
        const ClosedFormRoundTime ca = closedFormRoundTime(samples), cb = closedFormRoundTime(flops);
        QVERIFY2(ca.applies && cb.applies, cb.why.c_str());
        QCOMPARE(cb.seconds, ca.seconds);
        // H_4 / lambda with lambda = 250 / 10 steps per second.
        QVERIFY(std::abs(ca.seconds - harmonicNumber(4) / 25.0) < 1e-12);
        TheoryOptions o;
        o.forceMonteCarlo = true;
        o.monteCarloRounds = 40;
        const ExpectedRoundTime ma = expectedRoundTimeOf(samples, o), mb = expectedRoundTimeOf(flops, o);
        QCOMPARE(static_cast<int>(mb.source), static_cast<int>(ExpectedRoundTime::Source::MonteCarlo));
        QCOMPARE(mb.seconds, ma.seconds);
        // The Monte Carlo twin of a FLOP/s scenario keeps its FLOP/s and the model's count.
        const Scenario twin = timingOnlyScenario(flops, 1000, 100, 5);
        QCOMPARE(twin.model.flopsPerSample, 13440.0);
        QCOMPARE(twin.topology.nodes[1].compute.flops, flops.topology.nodes[1].compute.flops);
        QVERIFY(validateScenario(twin).empty());
    }

    // ---------------------------------------------------------- device classes
    // A device class stands for its FLOP/s, its power (energy per FLOP) and its interface:
    // a step of 10 samples of 1e6 FLOPs on a Raspberry Pi 4 takes 1e7 / 11.889e9 s and costs
    // 1e7 x 7.2 / 11.889e9 J.
    void deviceClassGivesItsFigures() {
        const DeviceClass* pi = findDeviceClass("raspberry-pi-4");
        QVERIFY(pi);
        const Scenario s = loadScenarioText(devicesScenario("device_class: raspberry-pi-4"), "d.yaml");
        QCOMPARE(s.topology.nodes[1].compute.deviceClass, std::string("raspberry-pi-4"));
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.status, RunStatus::Finished);
        const double step = 10.0 * 1e6 / pi->flops;
        QCOMPARE(rec.times(), (std::vector<double>{step, 2 * step, 3 * step}));
        QVERIFY(std::abs(r.energyComputeJ - 3 * 10.0 * (pi->powerW / pi->flops) * 1e6) < 1e-12 * r.energyComputeJ);
        const Topology topo(s.topology, s.seed);
        QCOMPARE(topo.entry(1).nicMbps, 1000.0);
        QCOMPARE(topo.entry(1).compute.flops, Range::exactly(pi->flops));
        // Written as it was given: the class, not its figures.
        const std::string saved = saveScenarioText(s);
        QVERIFY2(saved.find("device_class: raspberry-pi-4") != std::string::npos, saved.c_str());
        QVERIFY(saved.find("flops:") == std::string::npos && saved.find("nic_mbps") == std::string::npos);
        QVERIFY(sameScenario(loadScenarioText(saved, "again.yaml"), s));
        // The same node in numbers runs the same.
        Recorder numbers;
        runScenario(loadScenarioText(devicesScenario("flops: 11.889e9", "per_flop_j: " + formatNumber(pi->powerW / pi->flops)),
                                     "n.yaml"),
                    numbers);
        QCOMPARE(numbers.times(), rec.times());
        // The estimates read the class too: the Monte Carlo twin (no noise: no closed form)...
        TheoryOptions o;
        o.monteCarloRounds = 5;
        const ExpectedRoundTime e = expectedRoundTimeOf(s, o);
        QVERIFY2(e.source == ExpectedRoundTime::Source::MonteCarlo, e.detail.c_str());
        QVERIFY(std::abs(e.seconds - step) <= 1e-12 * step);
        // ... and the closed form, with exponential noise: H_1 / lambda = the mean step.
        Scenario noisy = s;
        noisy.topology.nodes[1].compute.noise.kind = NoiseSpec::Kind::Exponential;
        const ClosedFormRoundTime c = closedFormRoundTime(noisy);
        QVERIFY2(c.applies, c.why.c_str());
        QVERIFY(std::abs(c.seconds - step) <= 1e-12 * step);
    }

    // The node's own figures win over its class's.
    void ownFiguresOverrideTheClass() {
        const Scenario s = loadScenarioText(devicesScenario("device_class: nvidia-t4, flops: 1e9", "per_sample_j: 0.5"),
                                            "d.yaml");
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(rec.records.at(0).time, 10.0 * 1e6 / 1e9);
        QCOMPARE(r.energyComputeJ, 3 * 10 * 0.5);
        // The T4's data sheet says nothing of a network interface: unlimited, as without a class.
        QCOMPARE(Topology(s.topology, s.seed).entry(1).nicMbps, 0.0);
    }

    void unknownDeviceClassRefused() {
        const std::string e = errorOf([] { loadScenarioText(devicesScenario("device_class: raspbery-pi-4"), "d.yaml"); });
        QVERIFY2(e.find("d.yaml:4:") != std::string::npos && e.find("compute.device_class") != std::string::npos &&
                     e.find("did you mean 'raspberry-pi-4'?") != std::string::npos,
                 e.c_str());
        // With model.kind none the FLOPs per sample must be given.
        const std::string n = errorOf([] {
            loadScenarioText("topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n"
                             "    - {id: d, parent: s, compute: {device_class: raspberry-pi-5}}\n"
                             "data: {dataset: none}\nmodel: {kind: none}\nsync: {policy: fully-sync}\n",
                             "f.yaml");
        });
        QVERIFY2(n.find("topology.nodes[1].compute.device_class") != std::string::npos &&
                     n.find("needs model.flops_per_sample") != std::string::npos,
                 n.c_str());
    }

    // --set and the key reference go through the schema.
    void deviceClassThroughTheSchema() {
        const Scenario s = loadScenarioText(devicesScenario("throughput: 100"), "d.yaml",
                                            {parseOverride("topology.nodes[1].compute.device_class=nvidia-jetson-nano")});
        QCOMPARE(s.topology.nodes[1].compute.deviceClass, std::string("nvidia-jetson-nano"));
        const std::string e = errorOf([] {
            loadScenarioText(devicesScenario("throughput: 100"), "d.yaml",
                             {parseOverride("topology.nodes[1].compute.device_class=nvidia-jetson-nan")});
        });
        QVERIFY2(e.find("did you mean 'nvidia-jetson-nano'?") != std::string::npos, e.c_str());
        const NodeField* f = findNodeField("compute.device_class");
        QVERIFY(f);
        QCOMPARE(f->enumValues, deviceClassNames());
        QVERIFY(schemaMarkdown().find("`compute.device_class`") != std::string::npos);
    }

    // docs/own-model.md lists every class with its figures and their source.
    void deviceClassTableDocumented() {
        std::ifstream in(std::string(FOG_SOURCE_DIR) + "/docs/own-model.md");
        const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (const DeviceClass& d : deviceClasses()) {
            const std::size_t row = doc.find("| `" + d.name + "` |");
            QVERIFY2(row != std::string::npos, d.name.c_str());
            const std::string line = doc.substr(row, doc.find('\n', row) - row);
            QVERIFY2(line.find("| " + formatNumber(d.flops / 1e9) + " |") != std::string::npos, line.c_str());
            if (d.powerW > 0) QVERIFY2(line.find("| " + formatNumber(d.powerW) + " |") != std::string::npos, line.c_str());
            QVERIFY2(!d.source.empty() && !d.basis.empty(), d.name.c_str());
        }
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
