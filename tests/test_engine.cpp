// Engine semantics that are requirements: lost work, billing while held, staleness,
// timings of two-level policies along their links, stop rules and run control.

#include "core/engine/safety_net.h"
#include "core/engine/snapshots.h"
#include "core/scenario/scenario_io.h"
#include "engine_fixtures.h"
#include "wall_bounds.h"

#include <QtTest>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
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

std::string runawayPath() { return std::string(FOG_TEST_DATA) + "/scenarios/runaway_edge_nsync.yaml"; }

/// tests/data/scenarios/runaway_edge_nsync.yaml, timing only so that no data set is loaded.
Scenario runawayScenario() {
    Scenario s = loadScenarioFile(runawayPath());
    s.data.kind = DataSpec::Kind::None;
    s.data.samplesPerTrainer = 100;
    s.model.kind = ModelSpec::Kind::None;
    return s;
}

/// The same tree with work that can never be delivered: the phones stay online a second on
/// average and a push needs 1000 local steps (about 50 s). It validates; only the engine's
/// safety net can end it.
Scenario hopelessScenario() {
    Scenario s = runawayScenario();
    s.sync = {"async-ga", {{"k", 1000}}, {}, 0};
    s.topology.group(0).availability.meanUpS = 1;
    return s;
}

/// Every problem of a scenario as text, "" when it validates.
std::string problemsOf(const Scenario& s) {
    std::string out;
    for (const auto& d : validateScenario(s)) out += d.format() + "\n";
    return out;
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
        for (int i = 0; i < 10000 && !(engine.isPaused() && engine.globalRound() >= 1); ++i)
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
        QVERIFY(ms < fogtest::kPromptMs);
    }

    // ---- issue 10: runs that cannot make progress

    void runawayScenarioRunsThroughTheEdge() {
        // The issue's scenario: n-sync's server is the cloud and the edge relays (it used to
        // start no round while the phones' availability moved the clock on for ever).
        const Scenario relayed = runawayScenario();
        Recorder rec;
        const RunSummary r = runScenario(relayed, rec);
        QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Finished));
        QCOMPARE(r.rounds, 10);
        for (const auto& a : rec.records) {
            QCOMPARE(a.aggregator, std::string("cloud"));
            QCOMPARE(a.participants, 5);
        }
        // The relay's hop counts: the same phones right under the cloud (same links, same
        // draws) finish the first round earlier by at least the edge's latency both ways.
        Scenario direct = relayed;
        direct.topology.group(0).parent = "cloud";
        Recorder rec2;
        runScenario(direct, rec2);
        QVERIFY2(rec.records[0].time >= rec2.records[0].time + 0.02 - 1e-9,
                 qPrintable(QString("%1 vs %2").arg(rec.records[0].time).arg(rec2.records[0].time)));
    }

    void runawayScenarioFileRunsAsSaved() {
        // As the studio saved it (Fashion-MNIST, an MLP): validates, trains, ends by its rule.
        const Scenario s = loadScenarioFile(runawayPath());
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Finished));
        QCOMPARE(r.stopReason, std::string("round limit reached"));
        QVERIFY(r.samplesComputed > 0);
    }

    void hopelessRunStopsWithNoProgress() {
        // The safety net: the run stops by itself, failed, with a reason, within a bounded
        // number of events.
        const Scenario s = hopelessScenario();
        QCOMPARE(problemsOf(s), std::string());
        Recorder rec;
        EngineOptions o;
        o.observer = &rec;
        Engine engine(s, o);
        const RunSummary r = engine.run();
        qInfo("stopped at t = %.0f s after %zu events (limits: %llu events, %.0f s): %s", r.virtualTime,
              rec.events.size(), static_cast<unsigned long long>(engine.stallEvents()), engine.stallSeconds(),
              r.stopReason.c_str());
        QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Failed));
        QVERIFY2(r.stopReason.rfind("no progress: ", 0) == 0, r.stopReason.c_str());
        QCOMPARE(rec.count("no-progress"), 1);
        QCOMPARE(r.rounds, 0);
        QVERIFY(r.lostJobs > 0);
        QVERIFY(std::isfinite(r.virtualTime) && r.virtualTime > engine.stallSeconds());
        // Bounded: the events (each an availability flip) and what the store would keep.
        QVERIFY(rec.events.size() < 2 * engine.stallEvents() + 4 * engine.stallSeconds());
        QVERIFY(rec.intervals.size() < 4 * rec.events.size() + 100);
    }

    void workThatIsAlwaysLostStopsWithNoProgress() {
        // A shape that validates but can never deliver: the trainer is online for 1 s on
        // average and a push needs 100 local steps of 1 s. Work is computed (and lost) all
        // the time, and async-ga, unlike the round policies, counts no round for lost work.
        Scenario s = twoTrainers(1);
        s.topology.nodes.pop_back();
        s.sync = {"async-ga", {{"k", 100}}, {}, 0};
        s.topology.nodes[1].availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.nodes[1].availability.meanUpS = 1;
        s.topology.nodes[1].availability.meanDownS = 1;
        s.stop.rounds = 5;
        QCOMPARE(problemsOf(s), std::string());
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        qInfo("%s after %d lost jobs", r.stopReason.c_str(), r.lostJobs);
        QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Failed));
        QVERIFY2(r.stopReason.rfind("no progress: ", 0) == 0, r.stopReason.c_str());
        QVERIFY(r.lostJobs > 0);
        QVERIFY(rec.events.size() < 100000);
        QVERIFY(r.virtualTime < 1.1 * 100 * (100 + 1));
    }

    void slowButSteadyRunsAreNotStopped() {
        // Long rounds among many flipping nodes are progress, however slow: the net must not
        // fire. 50 spare phones flip every ~2 s while one round takes 500 s.
        Scenario s = twoTrainers(500);
        NodeSpec spare;
        spare.group = true;
        spare.id = "spare";
        spare.count = 50;
        spare.parent = "server";
        spare.availability.kind = AvailabilitySpec::Kind::Markov;
        spare.availability.meanUpS = 1;
        spare.availability.meanDownS = 1;
        spare.availability.startOnline = false; // offline at the start: a and b take the rounds
        s.topology.nodes.push_back(spare);
        s.selection = {"fastest-k", {{"k", 2}}, {}, 0};
        s.stop.rounds = 3;
        QCOMPARE(problemsOf(s), std::string());
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Finished));
        QCOMPARE(r.rounds, 3);
    }

    void shapesThatCannotUseTheirTrainers_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("expected"); // empty: valid
        const QString head = "name: shape\ndata: {dataset: none, samples_per_trainer: 10}\nmodel: {kind: none}\n"
                             "stop: {rounds: 3}\ntopology:\n  nodes:\n";
        QTest::newRow("fedavg, trainers under an edge and under the cloud (the edge relays)")
            << head + "    - {id: cloud, role: aggregator}\n    - {id: edge, role: aggregator, parent: cloud}\n"
                      "    - {id: a, parent: cloud}\n    - {id: b, parent: edge}\nsync: {policy: fedavg}\n"
            << "";
        QTest::newRow("async, everything under an edge (the edge relays)")
            << head + "    - {id: cloud, role: aggregator}\n    - {id: edge, role: aggregator, parent: cloud}\n"
                      "    - {id: b, parent: edge}\nsync: {policy: async}\n"
            << "";
        QTest::newRow("ton-plan, trainers under an edge")
            << head + "    - {id: cloud, role: aggregator}\n    - {id: edge, role: aggregator, parent: cloud}\n"
                      "    - {id: a, parent: cloud}\n    - {id: b, parent: edge}\nsync: {policy: fully-sync}\n"
                      "selection: {policy: ton-plan}\n"
            << "<string>:10:23: topology.nodes[3].parent reports to aggregator 'edge', but selection policy ton-plan "
               "plans and rents only the trainers right under the parameter server 'cloud'";
        QTest::newRow("hierarchical, devices two levels below the cloud")
            << head + "    - {id: cloud, role: aggregator}\n    - {id: region, role: aggregator, parent: cloud}\n"
                      "    - {id: site, role: aggregator, parent: region}\n    - {id: a, parent: region}\n"
                      "    - {id: b, parent: site}\nsync: {policy: hierarchical}\n"
            << "topology.nodes[4].parent reports to aggregator 'site', two or more levels below the cloud 'cloud'";
        QTest::newRow("hierarchical, two clouds")
            << head + "    - {id: c1, role: aggregator}\n    - {id: c2, role: aggregator}\n"
                      "    - {id: e, role: aggregator, parent: c1}\n    - {id: a, parent: e}\n    - {id: b, parent: c2}\n"
                      "sync: {policy: hierarchical}\n"
            << "sync.policy hierarchical needs exactly one root aggregator (the cloud that averages the edges), found 2";
        QTest::newRow("model-averaging, a region's devices under its edge")
            << head + "    - {id: r1, role: aggregator}\n    - {id: r2, role: aggregator}\n"
                      "    - {id: e, role: aggregator, parent: r2}\n    - {id: a, parent: r1}\n"
                      "  groups:\n    - {id: p, count: 3, parent: e}\nsync: {policy: model-averaging}\n"
            << "topology.groups[0].parent members report to aggregator 'e', which is below another aggregator";
        QTest::newRow("trainers under a member of an edge group (hierarchical: fine)")
            << head + "    - {id: cloud, role: aggregator}\n  groups:\n"
                      "    - {id: site, count: 2, role: aggregator, parent: cloud}\n"
                      "    - {id: p, count: 3, parent: site-1}\nsync: {policy: hierarchical}\n"
            << "";
        QTest::newRow("trainers under a member of an edge group (n-sync: relayed)")
            << head + "    - {id: cloud, role: aggregator}\n  groups:\n"
                      "    - {id: site, count: 2, role: aggregator, parent: cloud}\n"
                      "    - {id: p, count: 3, parent: site-1}\nsync: {policy: n-sync, n: 2}\n"
            << "";
        QTest::newRow("model-averaging, a region without trainers (fine: it takes no part)")
            << head + "    - {id: r1, role: aggregator}\n    - {id: r2, role: aggregator}\n    - {id: a, parent: r1}\n"
                      "sync: {policy: model-averaging}\n"
            << "";
    }
    void shapesThatCannotUseTheirTrainers() {
        QFETCH(QString, yaml);
        QFETCH(QString, expected);
        std::string all;
        try {
            const Scenario s = loadScenarioText(yaml.toStdString());
            QVERIFY2(expected.isEmpty(), "validated");
            // What validates runs to its end.
            Recorder rec;
            const RunSummary r = runScenario(s, rec);
            QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Finished));
            QCOMPARE(r.rounds, 3);
            return;
        } catch (const ScenarioError& e) {
            for (const auto& d : e.diagnostics) all += d.format() + "\n";
        }
        QVERIFY2(!expected.isEmpty(), all.c_str());
        QVERIFY2(all.find(expected.toStdString()) != std::string::npos, all.c_str());
    }

    void manyUnusedTrainersAreCountedNotListed() {
        // 80 nodes two levels below the cloud: 20 named, the rest counted, in linear time.
        std::string yaml = "name: many\ndata: {dataset: none}\nmodel: {kind: none}\nsync: {policy: hierarchical}\n"
                           "topology:\n  nodes:\n    - {id: cloud, role: aggregator}\n"
                           "    - {id: region, role: aggregator, parent: cloud}\n    - {id: a, parent: region}\n"
                           "    - {id: edge, role: aggregator, parent: region}\n";
        for (int i = 0; i < 80; ++i) yaml += "    - {id: d" + std::to_string(i) + ", parent: edge}\n";
        try {
            loadScenarioText(yaml);
            QFAIL("validated");
        } catch (const ScenarioError& e) {
            QCOMPARE(e.diagnostics.size(), std::size_t(21));
            int counted = 0;
            for (const auto& d : e.diagnostics)
                counted += d.format().find("and 60 more nodes or groups of trainers") != std::string::npos;
            QCOMPARE(counted, 1);
        }
    }

    void cancelFlagAloneStopsAPausedRun() {
        // The studio sets the flag without taking any lock: a paused engine must see it.
        Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::Exponential);
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 1e9;
        std::atomic<bool> flag{false};
        EngineOptions o;
        o.cancelFlag = &flag;
        Engine engine(s, o);
        engine.pause();
        RunSummary summary;
        std::thread runner([&] { summary = engine.run(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto t0 = std::chrono::steady_clock::now();
        flag = true;
        runner.join();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        qInfo("cancel of a paused run by the flag took %.1f ms", ms);
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(RunStatus::Cancelled));
        QVERIFY(ms < fogtest::kPromptMs);
    }

    void cancelFlagStopsATeachingSpeedRun() {
        // At 0.01 virtual seconds per wall second the next event is minutes of wall time away.
        Scenario s = timingStar(2, 1.0, NoiseSpec::Kind::None);
        std::atomic<bool> flag{false};
        EngineOptions o;
        o.cancelFlag = &flag;
        o.playbackSpeed = 0.01;
        Engine engine(s, o);
        RunSummary summary;
        std::thread runner([&] { summary = engine.run(); });
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const auto t0 = std::chrono::steady_clock::now();
        flag = true;
        runner.join();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        qInfo("cancel at teaching speed by the flag took %.1f ms", ms);
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(RunStatus::Cancelled));
        QCOMPARE(summary.rounds, 0);
        QVERIFY(ms < fogtest::kPromptMs);
    }

    void snapshotScheduleInterleavesPeriodicAndTimed() {
        // Every 10 s and at 25, 10 and 40 (sorted): at an equal instant the timed one (the
        // replay check) comes first; none is due at or after the next event's time.
        SnapshotSchedule schedule(10.0, {25.0, 10.0, 40.0});
        std::string got;
        auto drain = [&](double nextEvent) {
            while (const auto due = schedule.next(nextEvent))
                got += (due->reason == RunSnapshot::Reason::Replay ? "R" : "E") + std::to_string(int(due->time)) + " ";
            got += "| ";
        };
        drain(35.0);
        drain(std::numeric_limits<double>::infinity()); // no next event: nothing to take before it
        drain(40.0);
        drain(41.0);
        QCOMPARE(QString::fromStdString(got), QString("R10 E10 E20 R25 E30 | | | R40 E40 | "));
        SnapshotSchedule none(0.0, {});
        QVERIFY(!none.next(1e9));
        QVERIFY_THROWS_EXCEPTION(EngineError, SnapshotSchedule(-1.0, {}));
        QVERIFY_THROWS_EXCEPTION(EngineError, SnapshotSchedule(std::numeric_limits<double>::infinity(), {}));
        QVERIFY_THROWS_EXCEPTION(EngineError, SnapshotSchedule(0.0, {-2.0}));
    }

    void safetyNetCountsEventsAndProgress() {
        // The limits follow the topology; events without progress trip it only past both
        // limits, or past the event limit at one instant.
        Scenario s = timingStar(2, 1.0, NoiseSpec::Kind::None);
        const Topology topo(s.topology, s.seed);
        SafetyNet net(topo);
        QCOMPARE(net.stallEvents(), std::uint64_t(1000 + 10 * topo.firstJoining()));
        net.expectDispatch(2.0);
        net.dispatchTook(3.0);
        net.dispatchTook(1.0); // the longest stays
        QCOMPARE(net.stallSeconds(), 300.0);
        for (std::uint64_t i = 0; i <= net.stallEvents(); ++i) net.eventHandled();
        QCOMPARE(net.eventsRun(), net.stallEvents() + 1);
        QVERIFY(net.stalled(0.0));    // all at one instant
        QVERIFY(!net.stalled(100.0)); // time moved, not far enough
        QVERIFY(net.stalled(301.0));
        net.changeAt(500.0); // a timed change still to come
        QVERIFY(!net.stalled(400.0));
        QVERIFY(net.stalled(501.0));
        net.progressed(501.0);
        QVERIFY(!net.stalled(501.0));
        QCOMPARE(net.eventsRun(), net.stallEvents() + 1); // progress resets the stall count only
        QVERIFY(QString::fromStdString(net.why(900.0)).startsWith("no progress: 0 events and 399 virtual seconds"));
    }
};

QTEST_APPLESS_MAIN(TestEngine)
#include "test_engine.moc"
