// Engine semantics that are requirements: lost work, billing while held, staleness,
// timings of two-level policies along their links, stop rules and run control.

#include "engine_fixtures.h"

#include <QtTest>
#include <chrono>
#include <cmath>
#include <thread>

using namespace fog;
using namespace fogtest;

namespace {

AvailabilitySpec offlineBetween(double from, double to) {
    AvailabilitySpec a;
    a.kind = AvailabilitySpec::Kind::Trace;
    a.offline.push_back({from, to});
    return a;
}

LinkParams latencyLink(double seconds) {
    LinkParams l;
    l.latencyMs = seconds * 1000.0;
    l.bandwidthUpMbps = l.bandwidthDownMbps = 1e12; // latency only
    return l;
}

Scenario twoTrainers(double steps) {
    Scenario s;
    s.name = "two";
    s.topology.nodes.push_back(makeNode("server", Role::Aggregator, ""));
    s.topology.nodes.push_back(makeNode("a", Role::Trainer, "server"));
    s.topology.nodes.push_back(makeNode("b", Role::Trainer, "server"));
    s.data.kind = DataSpec::Kind::None;
    s.model.kind = ModelSpec::Kind::None;
    s.training.batchSize = 1;
    s.training.localSteps = static_cast<int>(steps);
    s.sync.name = "fedavg";
    return s;
}

} // namespace

class TestEngine : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void offlineTrainerLosesItsRound() {
        // Both need 10 s; b goes offline at 5 s and is back at 100 s.
        Scenario s = twoTrainers(10);
        s.topology.nodes[2].availability = offlineBetween(5, 100);
        s.stop.rounds = 3;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.lostJobs, 1);
        QCOMPARE(rec.count("work-lost"), 1);
        QCOMPARE(rec.count("offline"), 1);
        QCOMPARE(rec.records.size(), std::size_t(3));
        // Round 1 ends when a delivers at 10 s, with a alone; b's 5 finished steps are
        // counted as computed but contribute nothing.
        QCOMPARE(rec.records[0].time, 10.0);
        QCOMPARE(rec.records[0].participants, 1);
        QCOMPARE(rec.records[1].participants, 1); // b is still offline in round 2
        QCOMPARE(r.samplesComputed, std::int64_t(10 + 5 + 10 + 10));
        // The timeline shows b computing until 5 s, then offline until 30 s (the end).
        bool sawOffline = false;
        for (const auto& iv : rec.intervals)
            if (iv.node == 2 && iv.state == NodeState::Offline) {
                QCOMPARE(iv.from, 5.0);
                QCOMPARE(iv.to, 30.0);
                sawOffline = true;
            }
        QVERIFY(sawOffline);
    }

    void waitsForOnlineTrainerWhenAllAreOffline() {
        Scenario s = twoTrainers(1);
        s.topology.nodes[1].availability = offlineBetween(0, 50);
        s.topology.nodes[2].availability = offlineBetween(0, 80);
        s.stop.rounds = 1;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        // Nobody can start before 50 s; a alone then needs 1 s.
        QCOMPARE(r.virtualTime, 51.0);
        QCOMPARE(rec.records[0].participants, 1);
    }

    void costAccruesOnlyWhileHeld() {
        // One trainer at 3600/h (1 per second), a server at 36/h; the trainer is reclaimed
        // from 5 s to 100 s; the run lasts 200 s.
        Scenario s = twoTrainers(1);
        s.topology.nodes.pop_back();
        s.topology.nodes[0].pricePerHour = 36.0;
        s.topology.nodes[1].pricePerHour = 3600.0;
        s.topology.nodes[1].availability = offlineBetween(5, 100);
        s.sync.name = "fully-sync";
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 200;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.virtualTime, 200.0);
        QVERIFY(std::abs(r.cost - (105.0 + 2.0)) < 1e-9);
    }

    void billingIsPerStartedSecond() {
        Scenario s = twoTrainers(1);
        s.topology.nodes.pop_back();
        s.topology.nodes[1].pricePerHour = 3600.0;
        s.topology.nodes[1].compute.throughput = Range::exactly(4.0); // 0.25 s a round
        s.sync.name = "fully-sync";
        s.stop.rounds = 5; // 1.25 s held: billed 2 s
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.virtualTime, 1.25);
        QVERIFY(std::abs(r.cost - 2.0) < 1e-9);
    }

    void trafficAndEnergyAreAccounted() {
        Scenario s = twoTrainers(4);
        s.topology.nodes.pop_back();
        LinkParams l;
        l.bandwidthUpMbps = 8;   // 1 MB/s up
        l.bandwidthDownMbps = 16;
        l.latencyMs = 100;
        l.pricePerGb = 2.0;
        s.topology.nodes[1].link = l;
        s.topology.nodes[1].energy.perSampleJ = 0.5;
        s.topology.nodes[1].energy.perByteJ = 1e-6;
        s.model.wireBytes = 1e6;
        s.stop.rounds = 2;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        // Per round: down 0.1 + 0.5, compute 4, up 0.1 + 1.0.
        QVERIFY(std::abs(r.virtualTime - 2 * 5.7) < 1e-9);
        QCOMPARE(r.bytes, 4e6);
        QVERIFY(std::abs(r.cost - 4e6 / 1e9 * 2.0) < 1e-12);
        QVERIFY(std::abs(r.energyJ - (8 * 0.5 + 2e6 * 1e-6)) < 1e-9);
    }

    void asyncRecordsStaleness() {
        // a is twice as fast as b: b's updates arrive after a has moved the model on.
        Scenario s = twoTrainers(1);
        s.topology.nodes[1].compute.throughput = Range::exactly(2.0);
        s.sync.name = "async";
        s.stop.rounds = 30;
        Recorder rec;
        runScenario(s, rec);
        QCOMPARE(rec.records.front().maxStaleness, 0); // a at 0.5 s, nothing before it
        int stale = 0;
        for (const auto& r : rec.records) {
            QCOMPARE(r.participants, 1);
            if (r.maxStaleness > 0) {
                ++stale;
                QVERIFY(r.maxStaleness <= 2);
            }
        }
        QVERIFY(stale >= 9); // every update of b is stale
    }

    void hierarchicalTimingsFollowTheLinks() {
        // cloud <- (1 s) edge-i <- (0.5 s) 2 devices; devices run tau1 = 2 steps of 1 s.
        Scenario s;
        s.name = "hier";
        s.topology.nodes.push_back(makeNode("cloud", Role::Aggregator, ""));
        for (int e = 0; e < 2; ++e) {
            NodeSpec edge = makeNode("edge" + std::to_string(e), Role::Aggregator, "cloud");
            edge.link = latencyLink(1.0);
            s.topology.nodes.push_back(edge);
            for (int d = 0; d < 2; ++d) {
                NodeSpec dev = makeNode("d" + std::to_string(e) + std::to_string(d), Role::Trainer, edge.id);
                dev.link = latencyLink(0.5);
                s.topology.nodes.push_back(dev);
            }
        }
        s.data.kind = DataSpec::Kind::None;
        s.model.kind = ModelSpec::Kind::None;
        s.training.batchSize = 1;
        s.sync.name = "hierarchical";
        s.sync.params = {{"tau1", 2}, {"tau2", 2}};
        s.stop.rounds = 2;
        Recorder rec;
        runScenario(s, rec);
        // Edge round: 0.5 down + 2 compute + 0.5 up = 3 s; two of them, 1 s up, cloud
        // aggregates at 7 s, 1 s down, and again 8 + 6 + 1 = 15 s.
        const auto cloud = rec.level(0);
        QCOMPARE(cloud.size(), std::size_t(2));
        QVERIFY(std::abs(cloud[0].time - 7.0) < 1e-9);
        QVERIFY(std::abs(cloud[1].time - 15.0) < 1e-9);
        const auto edges = rec.level(1);
        QCOMPARE(edges.size(), std::size_t(8));
        QVERIFY(std::abs(edges[0].time - 3.0) < 1e-9);
        QVERIFY(std::abs(edges[4].time - 11.0) < 1e-9);
    }

    void modelAveragingWaitsForTheWan() {
        // Regions A and B joined by a 2 s WAN; A's trainer needs 3 s a round, B's 6 s; P = 2.
        Scenario s;
        s.name = "ma";
        s.topology.nodes.push_back(makeNode("A", Role::Aggregator, ""));
        s.topology.nodes.push_back(makeNode("B", Role::Aggregator, ""));
        s.topology.nodes.push_back(makeNode("ta", Role::Trainer, "A", 1.0));
        s.topology.nodes.push_back(makeNode("tb", Role::Trainer, "B", 0.5));
        LinkSpec wan;
        wan.from = "A";
        wan.to = "B";
        wan.params = latencyLink(2.0);
        s.topology.links.push_back(wan);
        s.data.kind = DataSpec::Kind::None;
        s.model.kind = ModelSpec::Kind::None;
        s.training.batchSize = 1;
        s.training.localSteps = 3;
        s.sync.name = "model-averaging";
        s.sync.params = {{"period", 2}};
        s.stop.rounds = 1;
        Recorder rec;
        runScenario(s, rec);
        // A reaches the barrier at 6 s (its model reaches B at 8 s); B at 12 s (reaches A
        // at 14 s). The exchange completes at 14 s.
        const auto global = rec.level(0);
        QCOMPARE(global.size(), std::size_t(1));
        QVERIFY(std::abs(global[0].time - 14.0) < 1e-9);
        QCOMPARE(rec.summary.bytes, 0.0); // timing only: no model bytes
    }

    void budgetStopsTheRun() {
        Scenario s = timingStar(3, 1.0, NoiseSpec::Kind::None);
        s.topology.nodes[0].pricePerHour = 3600.0; // 1 per second
        s.sync.name = "fully-sync";
        s.stop.rounds = 0;
        s.stop.budget = 10.0;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.stopReason, std::string("budget reached"));
        QCOMPARE(rec.count("budget-reached"), 1);
        QVERIFY(r.cost >= 10.0 && r.cost < 11.0 + 1e-9);
    }

    void virtualTimeLimitStopsTheRun() {
        Scenario s = timingStar(3, 1.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 50.0;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.virtualTime, 50.0);
        QVERIFY(!rec.records.empty() && rec.records.back().time <= 50.0);
    }

    void stepPauseResumeAndCancel() {
        Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 1e9;
        Recorder rec;
        EngineOptions o;
        o.observer = &rec;
        Engine engine(s, o);
        engine.pause();
        engine.stepRound();
        RunSummary summary;
        std::thread runner([&] { summary = engine.run(); });
        // Stepping pauses the engine after exactly one round.
        for (int i = 0; i < 500 && !(engine.isPaused() && engine.globalRound() >= 1); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        QVERIFY(engine.isPaused());
        QCOMPARE(engine.globalRound(), 1);
        engine.resume();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto t0 = std::chrono::steady_clock::now();
        engine.cancel();
        runner.join();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        qInfo("cancel took %.1f ms", ms);
        QCOMPARE(summary.status, RunStatus::Cancelled);
        QVERIFY(summary.rounds > 1);
        QVERIFY(ms < 1000.0);
    }
};

QTEST_APPLESS_MAIN(TestEngine)
#include "test_engine.moc"
