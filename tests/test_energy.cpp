// Energy (issue 18, docs/emulator.md "Energy"): idle power over the time a node is held and
// not computing, energy per byte received (per hop with contention), aggregation energy per
// update folded in, and the split into compute / network / idle: totals by hand on a small
// tree (timing only, noise none), with contention off and on; the split sums to the total;
// the store keeps the split and still opens a database written before it; determinism at 1
// and 2 threads.

#include "core/analysis/tidy_export.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "store_fixtures.h"
#include "engine_fixtures.h"

#include <QTemporaryDir>
#include <QtTest>


#include <cmath>
#include <cstring>
#include <sstream>

using namespace fog;
using namespace fogtest;

namespace {

LinkParams mbps8() {
    LinkParams l; // 8 Mbit/s both ways: 1 s per MB
    l.bandwidthUpMbps = 8;
    l.bandwidthDownMbps = 8;
    return l;
}

bool near(double got, double want) { return std::abs(got - want) <= 1e-9 * std::max(1.0, std::abs(want)); }

#define QVERIFY_NEAR(got, want)                                                                          \
    QVERIFY2(near((got), (want)), qPrintable(QString("%1 = %2, expected %3")                                \
                                                 .arg(#got)                                                 \
                                                 .arg((got), 0, 'g', 17)                                    \
                                                 .arg((want), 0, 'g', 17)))

/// The parts sum to the total (up to the rounding of summing in another order).
template <typename R> bool splitSums(const R& r) {
    const double sum = r.energyComputeJ + r.energyNetworkJ + r.energyIdleJ;
    return std::abs(sum - r.energyJ) <= 1e-12 * std::max(1.0, std::abs(r.energyJ));
}

/// cloud <- edge <- {d1, d2}, every link 8 Mbit/s, 1 MB models, batch 1, one local step,
/// hierarchical with tau1 = tau2 = 1, two cloud rounds. d1 computes a step in 1 s, d2 in 2 s;
/// d2 goes offline for good at t = 7.5, during its second step.
Scenario smallTree() {
    Scenario s;
    s.name = "energy-tree";
    s.seed = 3;
    NodeSpec cloud = makeNode("cloud", Role::Aggregator, "");
    cloud.energy.idleW = 10;
    cloud.energy.perUpdateAggregatedJ = 0.5;
    cloud.energy.perByteJ = 1e-7;
    cloud.energy.perByteReceivedJ = 2e-7;
    NodeSpec edge = makeNode("edge", Role::Aggregator, "cloud");
    edge.tier = Tier::Edge;
    edge.link = mbps8();
    edge.energy.idleW = 5;
    edge.energy.perUpdateAggregatedJ = 0.25;
    edge.energy.perByteJ = 3e-7;
    edge.energy.perByteReceivedJ = 4e-7;
    s.topology.nodes = {cloud, edge};
    for (const auto& [id, speed] : {std::make_pair("d1", 1.0), std::make_pair("d2", 0.5)}) {
        NodeSpec d = makeNode(id, Role::Trainer, "edge", speed);
        d.link = mbps8();
        d.energy.idleW = 1;
        d.energy.perSampleJ = 2;
        d.energy.perByteJ = 5e-7;
        d.energy.perByteReceivedJ = 6e-7;
        s.topology.nodes.push_back(d);
    }
    s.topology.nodes[3].availability.kind = AvailabilitySpec::Kind::Trace;
    s.topology.nodes[3].availability.offline = {{7.5, 1e9}};
    s.data.kind = DataSpec::Kind::None;
    s.data.samplesPerTrainer = 100;
    s.model.kind = ModelSpec::Kind::None;
    s.model.wireBytes = 1e6;
    s.training.batchSize = 1;
    s.training.localSteps = 1;
    s.sync.name = "hierarchical";
    s.sync.params["tau1"] = 1;
    s.sync.params["tau2"] = 1;
    s.stop.rounds = 2;
    return s;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

} // namespace

class TestEnergy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void smallTreeByHand_data() {
        QTest::addColumn<bool>("contention");
        QTest::newRow("contention off") << false;
        QTest::newRow("contention on") << true;
    }
    void smallTreeByHand() {
        // The timeline (every transfer alone on its link, so the same with and without
        // contention): round 1: d1 and d2 download 0..1; d1 computes 1..2 and uploads 2..3, d2
        // computes 1..3 and uploads 3..4; the edge aggregates 2 updates at 4 and sends its
        // model up 4..5; the cloud aggregates (1 edge model) at 5 and sends it down 5..6.
        // Round 2: downloads 6..7; d1 computes 7..8, uploads 8..9; d2 computes from 7 and goes
        // offline at 7.5 (its step unfinished: no sample counted, its work lost); the edge
        // aggregates 1 update at 9, sends up 9..10; the cloud aggregates at 10 and the run ends.
        QFETCH(bool, contention);
        Scenario s = smallTree();
        s.topology.contention = contention;
        Recorder rec;
        const RunSummary sum = runScenario(s, rec);
        const auto edgeRounds = rec.level(1), cloudRounds = rec.level(0);
        QCOMPARE(edgeRounds.size(), std::size_t(2));
        QCOMPARE(cloudRounds.size(), std::size_t(2));
        QCOMPARE(edgeRounds[0].time, 4.0);
        QCOMPARE(cloudRounds[0].time, 5.0);
        QCOMPARE(edgeRounds[1].time, 9.0);
        QCOMPARE(cloudRounds[1].time, 10.0);
        QCOMPARE(edgeRounds[1].participants, 1);
        QCOMPARE(sum.lostJobs, 1);

        // At t = 4 (the edge's first aggregation, before its model goes up).
        //  compute: 2 samples x 2 J + 2 updates x 0.25 J                         = 4.5
        //  network: downloads: edge sends 2 x 0.3, d1 and d2 receive 0.6 each    = 1.8
        //           uploads: d1 and d2 send 0.5 each, the edge receives 2 x 0.4  = 1.8
        //  idle: cloud 10 W x 4 s + edge 5 W x 4 s + d1 1 W x (4 - 1) + d2 1 W x (4 - 2) = 65
        QVERIFY_NEAR(edgeRounds[0].energyComputeJ, 4.5);
        QVERIFY_NEAR(edgeRounds[0].energyNetworkJ, 3.6);
        QVERIFY_NEAR(edgeRounds[0].energyIdleJ, 65.0);
        QVERIFY_NEAR(edgeRounds[0].energyJ, 73.1);

        // At t = 5: + the cloud folds 1 update (0.5 J); + the edge's model up: the edge
        // sends 0.3 J, the cloud receives 0.2 J; idle 10 x 5 + 5 x 5 + (5 - 1) + (5 - 2).
        QVERIFY_NEAR(cloudRounds[0].energyComputeJ, 5.0);
        QVERIFY_NEAR(cloudRounds[0].energyNetworkJ, 4.1);
        QVERIFY_NEAR(cloudRounds[0].energyIdleJ, 82.0);
        QVERIFY_NEAR(cloudRounds[0].energyJ, 91.1);

        // At t = 10: compute + d1's second sample (2 J), d2's cut step nothing, the edge folds
        // 1 update (0.25 J), the cloud 1 (0.5 J) = 7.75.
        // Network + model down (cloud 0.1 + edge 0.4), downloads (1.8), d1's upload (0.5 +
        // 0.4), the edge's model up (0.3 + 0.2) = 4.1 + 3.7 = 7.8.
        // Idle: cloud 100, edge 50, d1 held 10 s computing 2 s: 8, d2 held until it went
        // offline at 7.5 and computed 2 + 0.5 s: 5. Offline time draws nothing.
        QVERIFY_NEAR(cloudRounds[1].energyComputeJ, 7.75);
        QVERIFY_NEAR(cloudRounds[1].energyNetworkJ, 7.8);
        QVERIFY_NEAR(cloudRounds[1].energyIdleJ, 163.0);
        QVERIFY_NEAR(cloudRounds[1].energyJ, 178.55);

        // The run ends at t = 10, when the cloud sends the averaged model down: without
        // contention that transfer is paid in full when it starts (cloud 0.1 J, edge 0.4 J),
        // with contention it is cut at once, nothing sent (docs/network.md, "Accounting").
        QCOMPARE(sum.virtualTime, 10.0);
        QVERIFY_NEAR(sum.energyComputeJ, 7.75);
        QVERIFY_NEAR(sum.energyIdleJ, 163.0);
        QVERIFY_NEAR(sum.energyNetworkJ, contention ? 7.8 : 8.3);
        QVERIFY_NEAR(sum.energyJ, contention ? 178.55 : 179.05);

        for (const auto& r : rec.records) QVERIFY(splitSums(r));
        QVERIFY(splitSums(sum));
    }

    void idlePowerIsHeldTimeOnly() {
        // The tree above with idle power alone: per node, watts x (held - computing), where
        // a trainer is held from its first dispatch and not while offline; an aggregator from
        // t = 0. The rest of the energy is zero.
        Scenario s = smallTree();
        for (auto& n : s.topology.nodes) {
            const double w = n.energy.idleW;
            n.energy = EnergySpec{};
            n.energy.idleW = w;
        }
        Recorder rec;
        const RunSummary sum = runScenario(s, rec);
        QCOMPARE(sum.energyComputeJ, 0.0);
        QCOMPARE(sum.energyNetworkJ, 0.0);
        QVERIFY_NEAR(sum.energyIdleJ, 163.0);
        QVERIFY_NEAR(sum.energyJ, 163.0);
        // An idle-power-only serverless trainer draws nothing (it is never held).
        s.topology.nodes[2].billing = Billing::Serverless;
        Recorder rec2;
        const RunSummary sum2 = runScenario(s, rec2);
        QVERIFY_NEAR(sum2.energyIdleJ, 163.0 - 8.0);
    }

    void receivedEnergyPerHop_data() {
        QTest::addColumn<bool>("contention");
        QTest::newRow("contention off") << false;
        QTest::newRow("contention on") << true;
    }
    void receivedEnergyPerHop() {
        // cloud <- relay <- phone (FedAvg: the relay forwards), 8 Mbit/s per hop, 1 MB models:
        // down 0..2, compute 0.02 s, up 2.02..4.02. With contention every hop's receiver pays
        // its energy per byte received and every forwarding node its energy per byte
        // forwarded; without, bytes count once per transfer: the sender and the destination.
        QFETCH(bool, contention);
        Scenario s = smallTree();
        s.sync = PolicySpec{"fedavg", {}, {}, 0};
        s.topology.contention = contention;
        NodeSpec cloud = makeNode("cloud", Role::Aggregator, "");
        cloud.energy.perByteJ = 1e-7;
        cloud.energy.perByteReceivedJ = 2e-7;
        cloud.energy.idleW = 2;
        NodeSpec relay = makeNode("relay", Role::Relay, "cloud");
        relay.tier = Tier::Edge;
        relay.link = mbps8();
        relay.energy.perByteForwardedJ = 3e-7;
        relay.energy.perByteReceivedJ = 4e-7;
        relay.energy.idleW = 7; // a relay is never held (nor billed): it draws no idle power
        NodeSpec phone = makeNode("phone", Role::Trainer, "relay", 50.0);
        phone.link = mbps8();
        phone.energy.perByteJ = 5e-7;
        phone.energy.perByteReceivedJ = 6e-7;
        phone.energy.idleW = 1;
        s.topology.nodes = {cloud, relay, phone};
        s.stop.rounds = 1;
        Recorder rec;
        runScenario(s, rec);
        const auto r = rec.level(0);
        QCOMPARE(r.size(), std::size_t(1));
        QVERIFY_NEAR(r[0].time, 4.02);
        const double network = contention ? 0.1 + 0.4 + 0.3 + 0.6 + 0.5 + 0.4 + 0.3 + 0.2 // per hop
                                          : 0.1 + 0.6 + 0.5 + 0.2;                         // per transfer
        QVERIFY_NEAR(r[0].energyNetworkJ, network);
        QCOMPARE(r[0].energyComputeJ, 0.0);
        // Idle: the cloud 2 W x 4.02 s, the phone 1 W x (4.02 - 0.02) s, the relay nothing.
        QVERIFY_NEAR(r[0].energyIdleJ, 2 * 4.02 + 4.0);
        QVERIFY(splitSums(r[0]));
    }

    void modelAveragingChargesEveryRegion() {
        // Two regional servers with one trainer each: every regional round folds 1 update at
        // its server; every exchange, each server folds both regions' models.
        Scenario s = smallTree();
        s.topology.nodes.clear();
        for (const char* region : {"r1", "r2"}) {
            NodeSpec server = makeNode(std::string(region) + "-ps", Role::Aggregator, "");
            server.energy.perUpdateAggregatedJ = 1.0;
            s.topology.nodes.push_back(server);
            NodeSpec t = makeNode(std::string(region) + "-t", Role::Trainer, server.id, 1.0);
            t.link = mbps8();
            s.topology.nodes.push_back(t);
        }
        s.topology.links.push_back({"r1-ps", "r2-ps", mbps8(), 0});
        s.sync = PolicySpec{"model-averaging", {}, {}, 0};
        s.sync.params["period"] = 2;
        s.stop.rounds = 3;
        Recorder rec;
        const RunSummary sum = runScenario(s, rec);
        QCOMPARE(rec.level(0).size(), std::size_t(3));
        double want = 0.0;
        for (const auto& r : rec.level(1)) want += r.participants * 1.0;
        want += 3 * (2 * 2 * 1.0); // three exchanges, two servers, two models each
        QVERIFY_NEAR(rec.level(0).back().energyComputeJ, want);
        QVERIFY_NEAR(sum.energyJ, want);
    }

    void newKeysLoadValidateAndRoundTrip() {
        const std::string yaml = R"(schema_version: 1
name: energy keys
topology:
  nodes:
    - {id: ps, tier: cloud, role: aggregator, energy: {idle_w: 40, per_update_aggregated_j: 0.01}}
    - {id: d1, tier: device, role: trainer, parent: ps, energy: {idle_w: 0.5, per_byte_received_j: 1.0e-8}}
data: {dataset: none, samples_per_trainer: 10}
model: {kind: none, wire_bytes: 1000}
stop: {rounds: 1}
)";
        const Scenario s = loadScenarioText(yaml, "energy.yaml");
        QCOMPARE(s.topology.nodes[0].energy.idleW, 40.0);
        QCOMPARE(s.topology.nodes[0].energy.perUpdateAggregatedJ, 0.01);
        QCOMPARE(s.topology.nodes[1].energy.idleW, 0.5);
        QCOMPARE(s.topology.nodes[1].energy.perByteReceivedJ, 1e-8);
        const Scenario again = loadScenarioText(saveScenarioText(s), "again.yaml");
        QCOMPARE(again.topology.nodes[1].energy.perByteReceivedJ, 1e-8);
        QCOMPARE(again.topology.nodes[0].energy.perUpdateAggregatedJ, 0.01);
        // Zero keys are not written: scenarios without them save as before.
        QVERIFY(!QString::fromStdString(saveScenarioText(smallTreeWithout())).contains("idle_w"));

        // A negative power is refused with the file, line and field.
        std::string bad = yaml;
        bad.replace(bad.find("idle_w: 0.5"), 11, "idle_w: -3");
        try {
            loadScenarioText(bad, "bad.yaml");
            QFAIL("a negative idle power should be refused");
        } catch (const ScenarioError& e) {
            const QString msg = e.what();
            QVERIFY2(msg.contains("bad.yaml") && msg.contains(":6") && msg.contains("idle_w") && msg.contains("-3"),
                     qPrintable(msg));
        }
    }

    void deterministicAcrossThreads() {
        Scenario s = smallTree();
        for (bool contention : {false, true}) {
            s.topology.contention = contention;
            Recorder one, two;
            const RunSummary a = runScenario(s, one, 1);
            const RunSummary b = runScenario(s, two, 2);
            QCOMPARE(one.records.size(), two.records.size());
            for (std::size_t i = 0; i < one.records.size(); ++i) {
                const auto &x = one.records[i], &y = two.records[i];
                QVERIFY(sameBits(x.energyJ, y.energyJ) && sameBits(x.energyComputeJ, y.energyComputeJ) &&
                        sameBits(x.energyNetworkJ, y.energyNetworkJ) && sameBits(x.energyIdleJ, y.energyIdleJ));
            }
            QVERIFY(sameBits(a.energyJ, b.energyJ) && sameBits(a.energyIdleJ, b.energyIdleJ));
        }
    }

    void storeKeepsTheSplitAndOpensOlderFiles() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("v1.db").toStdString();
        // A file of the first schema version (long before the split; every migration
        // runs), with one finished run and one metric row.
        QVERIFY(fogtest::writeStoreV1(db,
                                      "INSERT INTO runs(name, scenario_yaml, seed, program_version, started_at, status, rounds, energy_j)"
                                      " VALUES('old run', 'name: old', 5, '0.0.4', '2026-01-01T00:00:00Z', 'finished', 1, 12.5);"
                                      "INSERT INTO metrics(run_id, seq, round, level, time, energy_j) VALUES(1, 1, 1, 0, 2.5, 12.5);"));
        RunStore store(db);
        QCOMPARE(store.schemaVersion(), kStoreSchemaVersion);
        const auto old = store.run(1);
        QVERIFY(old.has_value());
        QCOMPARE(old->summary.energyJ, 12.5);
        // Not known for a run stored before the split: NaN, an empty cell in tidy exports.
        QVERIFY(std::isnan(old->summary.energyComputeJ) && std::isnan(old->summary.energyIdleJ));
        const auto oldMetrics = store.metrics(1);
        QCOMPARE(oldMetrics.size(), std::size_t(1));
        QCOMPARE(oldMetrics[0].energyJ, 12.5);
        QVERIFY(std::isnan(oldMetrics[0].energyNetworkJ));

        // A new run keeps its split, per aggregation and in the summary.
        Recorder rec;
        const RunSummary sum = runScenario(smallTree(), rec);
        NewRun nr;
        nr.name = "split";
        const auto id = store.beginRun(nr);
        store.appendMetrics(id, rec.records);
        store.finishRun(id, sum);
        const auto back = store.metrics(id);
        QCOMPARE(back.size(), rec.records.size());
        for (std::size_t i = 0; i < back.size(); ++i) {
            QCOMPARE(back[i].energyComputeJ, rec.records[i].energyComputeJ);
            QCOMPARE(back[i].energyNetworkJ, rec.records[i].energyNetworkJ);
            QCOMPARE(back[i].energyIdleJ, rec.records[i].energyIdleJ);
        }
        const auto run = store.run(id);
        QCOMPARE(run->summary.energyIdleJ, sum.energyIdleJ);
        QCOMPARE(run->summary.energyNetworkJ, sum.energyNetworkJ);
        QCOMPARE(run->summary.energyComputeJ, sum.energyComputeJ);

        // Tidy exports: the split columns, empty for the old run.
        std::ostringstream csv;
        writeMetricsCsv({{*old, oldMetrics}, {*run, back}}, csv);
        std::istringstream lines(csv.str());
        std::string header, oldRow, newRow;
        std::getline(lines, header);
        std::getline(lines, oldRow);
        std::getline(lines, newRow);
        QVERIFY2(QString::fromStdString(header).contains("energy_j,energy_compute_j,energy_network_j,energy_idle_j,"),
                 header.c_str());
        QVERIFY2(QString::fromStdString(oldRow).contains(",12.5,,,,"), oldRow.c_str());
        std::ostringstream summary;
        writeSummaryCsv({{*run, back}}, 0.5, summary);
        QVERIFY(QString::fromStdString(summary.str()).contains("energy_idle_j"));
    }

private:
    static Scenario smallTreeWithout() {
        Scenario s = smallTree();
        for (auto& n : s.topology.nodes) {
            n.energy.idleW = 0;
            n.energy.perByteReceivedJ = 0;
            n.energy.perUpdateAggregatedJ = 0;
        }
        return s;
    }
};

QTEST_GUILESS_MAIN(TestEnergy)
#include "test_energy.moc"
