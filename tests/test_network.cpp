// The flow-level network (issue 12, docs/network.md): max-min sharing in closed forms, store
// and forward, exactness of a lone transfer, accounting of cut transfers, relays, nic
// limits, serverless billing, and determinism of whole runs with contention.

#include "core/engine/event_queue.h"
#include "core/system/network.h"
#include "core/system/topology.h"
#include "engine_fixtures.h"

#include <QtTest>

#include <cmath>
#include <map>
#include <memory>

using namespace fog;
using namespace fogtest;

namespace {

LinkParams link(double mbpsUp, double mbpsDown, double latencyMs = 0.0, double pricePerGb = 0.0) {
    LinkParams l;
    l.bandwidthUpMbps = mbpsUp;
    l.bandwidthDownMbps = mbpsDown;
    l.latencyMs = latencyMs;
    l.pricePerGb = pricePerGb;
    return l;
}

/// A Network on its own event queue: transfers, their end times and the bytes charged.
struct Harness : RunObserver {
    Topology topo;
    EventQueue queue;
    Network net;
    std::map<std::uint64_t, double> ends; ///< transfer -> arrival time
    double bytes = 0.0;
    double price = 0.0;
    std::map<int, double> forwarded; ///< node -> bytes it forwarded
    std::vector<LinkUsage> usage;

    explicit Harness(const TopologySpec& spec)
        : topo(spec, 1),
          net(
              topo,
              [this](double t, std::function<void()> fn) { queue.schedule(t, std::move(fn)); },
              [this](const Network::HopBytes& h) {
                  bytes += h.bytes;
                  if (h.link) price += h.link->pricePerGb * h.bytes / 1e9;
                  if (h.sender != h.source) forwarded[h.sender] += h.bytes;
              },
              this) {}
    void onLinkUsage(const std::vector<LinkUsage>& u) override {
        usage.insert(usage.end(), u.begin(), u.end());
    }

    std::uint64_t send(const std::string& from, const std::string& to, double bytesToSend) {
        auto slot = std::make_shared<std::uint64_t>(0);
        const std::uint64_t id =
            net.start(topo.indexOf(from), topo.indexOf(to), bytesToSend, queue.now(), true,
                      [this, slot] { ends[*slot] = queue.now(); });
        *slot = id;
        return id;
    }
    void runUntil(double t) {
        while (!queue.idle() && queue.nextTime() <= t)
            queue.pop().fn();
    }
    void run() {
        while (!queue.idle())
            queue.pop().fn();
    }
};

TopologySpec star(int trainers, const LinkParams& l, LinkSharing sharing) {
    TopologySpec t;
    t.nodes.push_back(makeNode("server", Role::Aggregator, ""));
    NodeSpec g = makeNode("w", Role::Trainer, "server");
    g.group = true;
    g.count = trainers;
    g.link = l;
    g.linkSharing = sharing;
    t.nodes.push_back(g);
    return t;
}

/// The case: ten trainers behind one 10 Mbps link, 10 Mbit (1.25 MB) each way.
Scenario tenTrainers(LinkSharing sharing) {
    Scenario s = timingStar(10, 50.0, NoiseSpec::Kind::None); // a step of batch 1: 0.02 s
    s.topology.nodes[1].link = link(10, 10, 50);
    s.topology.nodes[1].linkSharing = sharing;
    s.model.wireBytes = 1.25e6;
    s.stop.rounds = 3;
    return s;
}

} // namespace

class TestNetwork : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void equalFlowsFinishTogether_data() {
        QTest::addColumn<int>("n");
        for (int n : {1, 2, 5, 100})
            QTest::newRow(std::to_string(n).c_str()) << n;
    }
    void equalFlowsFinishTogether() {
        // n flows on one 8 Mbps (1 MB/s) shared link, 1 MB each: n x 1 s, all together.
        QFETCH(int, n);
        Harness h(star(n, link(8, 8), LinkSharing::Shared));
        std::vector<std::uint64_t> ids;
        for (int i = 0; i < n; ++i)
            ids.push_back(h.send("w-" + std::to_string(i), "server", 1e6));
        QCOMPARE(h.net.rateOf(ids[0]), 1e6 / n);
        h.run();
        for (auto id : ids)
            QCOMPARE(h.ends.at(id), static_cast<double>(n));
        QCOMPARE(h.bytes, 1e6 * n);
        QCOMPARE(h.net.links().size(), std::size_t(2)); // one shared link, two directions
        QCOMPARE(h.net.links()[0].members, n);
    }

    void manyFlowsInOneCellAreNotQuadratic() {
        // 5,000 flows in one cell, started together, of different sizes: they form one class,
        // so each start or end recomputes one class (not 5,000 flows), and the flows end in
        // size order at the processor-sharing times.
        const int n = 5000;
        Harness h(star(n, link(8, 8), LinkSharing::Shared));
        std::vector<std::uint64_t> ids;
        for (int i = 0; i < n; ++i)
            ids.push_back(h.send("w-" + std::to_string(i), "server", 1000.0 * (1 + i % 2)));
        h.run();
        const auto& st = h.net.stats();
        QVERIFY2(st.classesRecomputed <= 2 * st.flowEvents,
                 std::to_string(st.classesRecomputed).c_str());
        QCOMPARE(st.maxComponent, std::uint64_t(1));
        // 5,000 x 1 KB at 1 MB/s shared: the small ones end at 5,000 x 1 KB / 1 MB/s = 5 s;
        // the large ones have 1 KB each left, 2,500 of them: 2.5 s more.
        QVERIFY(std::abs(h.ends.at(ids[0]) - 5.0) < 1e-9);
        QVERIFY(std::abs(h.ends.at(ids[1]) - 7.5) < 1e-9);
    }

    void privateLinksDoNotShare() {
        Harness h(star(4, link(8, 8), LinkSharing::Private));
        for (int i = 0; i < 4; ++i)
            h.send("w-" + std::to_string(i), "server", 1e6);
        h.run();
        for (const auto& [id, t] : h.ends)
            QCOMPARE(t, 1.0);
        QCOMPARE(h.net.links().size(), std::size_t(8));
    }

    void textbookMaxMin() {
        // Three capacities, three flows: S's interface out (10 Mbps) carries f1 and f2, B's
        // interface in (8 Mbps) carries f2 and f3; the links (100 Mbps) never bind.
        // Progressive filling: B's fair share 4 < S's 5, so f2 = f3 = 4 Mbps; S has 6 left
        // for f1 alone: f1 = 6 Mbps. f1 and f2 end on different bottlenecks.
        TopologySpec t;
        for (const char* id : {"S", "A", "B", "C"})
            t.nodes.push_back(makeNode(id, Role::Aggregator, ""));
        t.nodes[0].nicMbps = 10;
        t.nodes[2].nicMbps = 8;
        t.links.push_back({"S", "A", link(100, 100), 0});
        t.links.push_back({"S", "B", link(100, 100), 0});
        t.links.push_back({"C", "B", link(100, 100), 0});
        Harness h(t);
        const auto f1 = h.send("S", "A", 6e6);
        const auto f2 = h.send("S", "B", 4e6);
        const auto f3 = h.send("C", "B", 8e6);
        QCOMPARE(h.net.rateOf(f1), 6e6 / 8);
        QCOMPARE(h.net.rateOf(f2), 4e6 / 8);
        QCOMPARE(h.net.rateOf(f3), 4e6 / 8);
        // f1 and f2 end at 8 s (48 Mbit at 6, 32 Mbit at 4); f3 has 32 Mbit left alone on B's
        // interface at 8 Mbps: 4 s more.
        h.run();
        QCOMPARE(h.ends.at(f1), 8.0);
        QCOMPARE(h.ends.at(f2), 8.0);
        QCOMPARE(h.ends.at(f3), 12.0);
    }

    void aloneEqualsTopologyTransferExactly_data() {
        QTest::addColumn<double>("bytes");
        for (double b : {1.0, 636040.0, 1.25e6, 3.3333e7})
            QTest::newRow(std::to_string(b).c_str()) << b;
    }
    void aloneEqualsTopologyTransferExactly() {
        // Device -> edge -> cloud and back down: latency + bytes / bandwidth per hop, to the bit.
        QFETCH(double, bytes);
        TopologySpec t;
        t.nodes.push_back(makeNode("cloud", Role::Aggregator, ""));
        NodeSpec edge = makeNode("edge", Role::Aggregator, "cloud");
        edge.link = link(1000, 900, 30);
        t.nodes.push_back(edge);
        NodeSpec dev = makeNode("phone", Role::Trainer, "edge");
        dev.group = true;
        dev.count = 3;
        dev.link = link(20, 100, 15);
        t.nodes.push_back(dev);
        Harness h(t);
        const double t0 = 0.0;
        const auto up = h.send("phone-1", "cloud", bytes);
        h.run();
        const auto down = h.send("cloud", "phone-2", bytes);
        const double t1 = h.queue.now();
        h.run();
        QCOMPARE(
            h.ends.at(up),
            t0 +
                h.topo.transfer(h.topo.indexOf("phone-1"), h.topo.indexOf("cloud"), bytes).seconds);
        QCOMPARE(
            h.ends.at(down),
            t1 +
                h.topo.transfer(h.topo.indexOf("cloud"), h.topo.indexOf("phone-2"), bytes).seconds);
        QVERIFY(std::abs(h.bytes - 4 * bytes) <= 1e-9 * bytes); // per hop
    }

    void storeAndForward() {
        // X goes phone -> edge -> cloud (1 MB, 1 MB/s per hop, no latency); Y goes edge ->
        // cloud at the same instant. Store and forward: X is on its first hop while Y uses the
        // edge's uplink, so they never share: Y ends at 1 s, X at 2 s.
        TopologySpec t;
        t.nodes.push_back(makeNode("cloud", Role::Aggregator, ""));
        NodeSpec edge = makeNode("edge", Role::Relay, "cloud");
        edge.link = link(8, 8);
        t.nodes.push_back(edge);
        NodeSpec dev = makeNode("phone", Role::Trainer, "edge");
        dev.link = link(8, 8);
        t.nodes.push_back(dev);
        Harness h(t);
        const auto x = h.send("phone", "cloud", 1e6);
        const auto y = h.send("edge", "cloud", 1e6);
        h.run();
        QCOMPARE(h.ends.at(y), 1.0);
        QCOMPARE(h.ends.at(x), 2.0);
        // A third transfer that does overlap on the edge's uplink shares it: Z starts at the
        // edge when X reaches it.
        Harness k(t);
        const auto x2 = k.send("phone", "cloud", 1e6);
        k.runUntil(1.0);
        const auto z = k.send("edge", "cloud", 1e6);
        k.run();
        QCOMPARE(k.ends.at(x2), 3.0);
        QCOMPARE(k.ends.at(z), 3.0);
    }

    void linkChangesDuringATransfer_data() {
        // Hand-computed timelines (docs/network.md, "Links that change during a transfer"):
        // 1 MB over 8 Mbit/s (1 MB/s) links with no latency; at `at` the latency of `which`
        // becomes 500 ms and/or its bandwidth (both directions) `mbps`. A latency is the one in
        // force when the transfer started, for all its hops; a bandwidth moves the flows in
        // flight and applies to hops not yet started.
        QTest::addColumn<QString>("tree");    // "cell": server + a shared group w; "chain": cloud-edge-phone
        QTest::addColumn<int>("members");     // transfers at t = 0 (cell: server -> w-i; chain: phone -> cloud)
        QTest::addColumn<double>("start");    // when they start
        QTest::addColumn<QString>("which");   // the link that changes (an entry id)
        QTest::addColumn<double>("at");
        QTest::addColumn<double>("latencyMs"); // -1: unchanged
        QTest::addColumn<double>("mbps");      // -1: unchanged
        QTest::addColumn<double>("arrival");
        // One device alone: 1 s of flow, the latency it started with (0).
        QTest::newRow("one device, latency raised at 0.4 s") << "cell" << 1 << 0.0 << "w" << 0.4 << 500.0 << -1.0 << 1.0;
        // Two devices share the cell at 4 Mbit/s each: 2 s, still the latency they started with
        // (was 2.5 s: a shared flow took the new latency, a lone one the old).
        QTest::newRow("two devices sharing, latency raised at 0.4 s") << "cell" << 2 << 0.0 << "w" << 0.4 << 500.0 << -1.0 << 2.0;
        // Bandwidth doubled at 0.2 s (1.6 Mbit sent, 6.4 Mbit left at 16 Mbit/s: 0.4 s), then
        // the latency raised at 0.4 s: 0.6 s (was 1.1 s).
        QTest::newRow("bandwidth doubled at 0.2 s, then latency") << "cell" << 1 << 0.0 << "w+" << 0.4 << 500.0 << 16.0 << 0.6;
        // A transfer that starts after the change has the new latency: 0.5 + 1 + 0.5.
        QTest::newRow("started after the change") << "cell" << 1 << 0.5 << "w" << 0.4 << 500.0 << -1.0 << 2.0;
        // Two hops (phone -> edge -> cloud, 1 s each): the edge's latency raised during the
        // first hop does not apply to the second (the transfer started before it).
        QTest::newRow("second hop's latency raised during the first") << "chain" << 1 << 0.0 << "edge" << 0.4 << 500.0 << -1.0 << 2.0;
        // The edge's bandwidth doubled during the first hop: the second takes 0.5 s (was 2 s:
        // the arrival kept the ideal time of the bandwidths at the start).
        QTest::newRow("second hop's bandwidth doubled during the first") << "chain" << 1 << 0.0 << "edge" << 0.4 << -1.0 << 16.0 << 1.5;
        // Both: 1 s, then 0.5 s at 16 Mbit/s, with the latency of the start (0).
        QTest::newRow("second hop: both changed during the first") << "chain" << 1 << 0.0 << "edge" << 0.4 << 500.0 << 16.0 << 1.5;
    }
    void linkChangesDuringATransfer() {
        QFETCH(QString, tree);
        QFETCH(int, members);
        QFETCH(double, start);
        QFETCH(QString, which);
        QFETCH(double, at);
        QFETCH(double, latencyMs);
        QFETCH(double, mbps);
        QFETCH(double, arrival);
        TopologySpec t;
        if (tree == "cell") {
            t = star(std::max(members, 1), link(8, 8), LinkSharing::Shared);
        } else {
            t.nodes.push_back(makeNode("cloud", Role::Aggregator, ""));
            NodeSpec edge = makeNode("edge", Role::Relay, "cloud");
            edge.link = link(8, 8);
            t.nodes.push_back(edge);
            NodeSpec dev = makeNode("phone", Role::Trainer, "edge");
            dev.link = link(8, 8);
            t.nodes.push_back(dev);
        }
        Harness h(t);
        // "w+": the bandwidth changes at 0.2 s and the latency at `at`.
        const bool split = which.endsWith('+');
        const std::string id = which.remove('+').toStdString();
        int entry = -1;
        std::vector<int> changed;
        for (int i = 0; i < h.topo.size(); ++i)
            if (h.topo.entry(i).id == id) {
                entry = h.topo.entryIndex(i);
                changed.push_back(i);
            }
        QVERIFY(entry >= 0);
        auto change = [&h, entry, changed](double lat, double bw) {
            LinkParams* l = h.topo.entryLink(entry);
            QVERIFY(l);
            if (lat >= 0) l->latencyMs = lat;
            if (bw > 0) l->bandwidthUpMbps = l->bandwidthDownMbps = bw;
            h.net.linksChanged(changed, {}, h.queue.now());
        };
        if (split) {
            h.queue.schedule(0.2, [&] { change(-1, mbps); });
            h.queue.schedule(at, [&] { change(latencyMs, -1); });
        } else {
            h.queue.schedule(at, [&] { change(latencyMs, mbps); });
        }
        std::vector<std::uint64_t> ids;
        auto sendAll = [&] {
            for (int i = 0; i < members; ++i)
                ids.push_back(tree == "cell" ? h.send("server", "w-" + std::to_string(i), 1e6)
                                             : h.send("phone", "cloud", 1e6));
        };
        if (start > 0)
            h.queue.schedule(start, sendAll);
        else
            sendAll();
        h.run();
        QCOMPARE(static_cast<int>(ids.size()), members);
        for (auto x : ids)
            QCOMPARE(h.ends.at(x), arrival);
    }

    void cutPaysTheBytesSent() {
        Harness h(star(2, link(8, 8, 0, 2.0), LinkSharing::Shared));
        const auto a = h.send("w-0", "server", 1e6);
        h.runUntil(0.25);
        h.queue.advanceTo(0.25);
        h.net.cut(a, 0.25);
        h.run();
        QVERIFY(!h.ends.count(a));
        QCOMPARE(h.bytes, 250000.0);
        QCOMPARE(h.price, 250000.0 * 2.0 / 1e9);
        // The cut frees its share at once: a transfer started before the cut speeds up.
        Harness k(star(2, link(8, 8), LinkSharing::Shared));
        const auto b = k.send("w-0", "server", 1e6);
        const auto c = k.send("w-1", "server", 1e6);
        k.runUntil(0.5);
        k.queue.advanceTo(0.5);
        k.net.cut(b, 0.5);
        QCOMPARE(k.net.rateOf(c), 1e6);
        k.run();
        QCOMPARE(k.ends.at(c), 1.25); // 0.25 MB by 0.5 s at half rate, 0.75 MB at full
    }

    void usageSpansAreClosedAndSum() {
        Harness h(star(2, link(8, 8), LinkSharing::Shared));
        h.send("w-0", "server", 1e6);
        h.send("w-1", "server", 2e6);
        h.run();
        h.net.finish(h.queue.now());
        // [0, 2): two flows at 1 MB/s in all; [2, 3): one flow at 1 MB/s.
        QCOMPARE(h.usage.size(), std::size_t(2));
        QCOMPARE(h.usage[0].from, 0.0);
        QCOMPARE(h.usage[0].to, 2.0);
        QCOMPARE(h.usage[0].flows, 2);
        QCOMPARE(h.usage[0].bytesPerS, 1e6);
        QCOMPARE(h.usage[1].to, 3.0);
        QCOMPARE(h.usage[1].flows, 1);
        double carried = 0.0;
        for (const auto& u : h.usage)
            carried += u.bytesPerS * (u.to - u.from);
        QCOMPARE(carried, 3e6);
    }

    void tenTrainersShared() {
        // Ten trainers behind one 10 Mbps link (50 ms latency), 10 Mbit = 1.25 MB each way,
        // a step of 0.02 s. Shared: ten flows at 1 Mbps each: 10 s down + 0.05 s latency +
        // 0.02 s compute + 10 s up + 0.05 s = 20.12 s per round.
        Recorder rec;
        const RunSummary s = runScenario(tenTrainers(LinkSharing::Shared), rec);
        QCOMPARE(s.rounds, 3);
        const auto rounds = rec.level(0);
        QVERIFY(std::abs(rounds[0].time - 20.12) < 1e-9);
        QVERIFY(std::abs(rounds[2].time - 3 * 20.12) < 1e-9);
        QCOMPARE(rounds[0].bytes, 20 * 1.25e6);
    }

    void tenTrainersPrivate() {
        // Private: each alone on its own 10 Mbps: 1 + 0.05 + 0.02 + 1 + 0.05 = 2.12 s, exactly
        // what the model without contention gives.
        Recorder rec;
        runScenario(tenTrainers(LinkSharing::Private), rec);
        Scenario off = tenTrainers(LinkSharing::Private);
        off.topology.contention = false;
        Recorder recOff;
        runScenario(off, recOff);
        const auto rounds = rec.level(0);
        QVERIFY(std::abs(rounds[0].time - 2.12) < 1e-9);
        QCOMPARE(rounds[0].time, recOff.level(0)[0].time);
        QCOMPARE(rounds[2].time, recOff.level(0)[2].time);
        QCOMPARE(rec.summary.bytes, recOff.summary.bytes); // one hop each way: same count
    }

    void privateLinksWithChurnAndDeadlineMatchTheIdealNetwork() {
        // Private links share nothing, so contention on must give the run of the model without
        // contention, also when trainers go offline while their model is still on the way and
        // rounds cut local work at a compute deadline (the flexible-participation setting):
        // the steps are drawn at dispatch in both models, so batch orders and compute streams
        // advance alike (found when the preset's lesson differed between the two).
        Scenario s = timingStar(12, 40.0, NoiseSpec::Kind::LogNormal);
        s.training.localSteps = 20;
        s.training.batchSize = 2;
        s.model.wireBytes = 2e6;
        NodeSpec& g = s.topology.nodes[1];
        g.link = link(8, 20, 30);
        g.linkSharing = LinkSharing::Private;
        g.compute.throughput = Range{5.0, 50.0};
        g.availability.kind = AvailabilitySpec::Kind::Markov;
        g.availability.meanUpS = 6.0;
        g.availability.meanDownS = 2.0;
        s.sync.name = "flexible";
        s.sync.params["compute_deadline_s"] = 1.0;
        s.stop.rounds = 60;
        Recorder on, off;
        runScenario(s, on);
        Scenario ideal = s;
        ideal.topology.contention = false;
        runScenario(ideal, off);
        QVERIFY(on.count("offline") > 10);     // churn happened
        QVERIFY(on.count("partial-work") > 10); // and deadlines cut work
        QCOMPARE(on.records.size(), off.records.size());
        for (std::size_t i = 0; i < on.records.size(); ++i) {
            QCOMPARE(on.records[i].time, off.records[i].time);
            QCOMPARE(on.records[i].participants, off.records[i].participants);
        }
        QCOMPARE(on.summary.samplesComputed, off.summary.samplesComputed);
        QCOMPARE(on.summary.lostJobs, off.summary.lostJobs);
        QCOMPARE(on.events.size(), off.events.size());
        for (std::size_t i = 0; i < on.events.size(); ++i) {
            QCOMPARE(on.events[i].time, off.events[i].time);
            QCOMPARE(on.events[i].node, off.events[i].node);
            QCOMPARE(on.events[i].detail, off.events[i].detail);
        }
    }

    void contentionOffIsTheIdealNetwork() {
        Scenario s = tenTrainers(LinkSharing::Shared);
        s.topology.contention = false;
        Recorder rec;
        runScenario(s, rec);
        QVERIFY(std::abs(rec.level(0)[0].time - 2.12) < 1e-9);
    }

    void nicLimitsAllFlowsOfAServer() {
        // Five trainers on private 100 Mbps links; the server's interface is 10 Mbps. Down:
        // five flows share its nic-out at 2 Mbps: 10 Mbit take 5 s; 0.02 s compute; up: its
        // nic-in likewise, 5 s. Round: 10.02 s (without the nic: 0.1 + 0.02 + 0.1 = 0.22 s).
        Scenario s = timingStar(5, 50.0, NoiseSpec::Kind::None);
        s.topology.nodes[1].link = link(100, 100);
        s.topology.nodes[1].linkSharing = LinkSharing::Private;
        s.model.wireBytes = 1.25e6;
        s.stop.rounds = 1;
        Recorder rec;
        runScenario(s, rec);
        QVERIFY(std::abs(rec.level(0)[0].time - 0.22) < 1e-9);
        s.topology.nodes[0].nicMbps = 10;
        Recorder limited;
        runScenario(s, limited);
        QVERIFY(std::abs(limited.level(0)[0].time - 10.02) < 1e-9);
    }

    void offlineTrainerPaysThePartialUpload() {
        // One trainer: 1 MB down at 1 MB/s (1 s), 0.02 s compute, upload from 1.02 s; it goes
        // offline at 1.52 s, half way: 0.5 MB sent. Bytes 1.5 MB, price 2 $/GB on them, its
        // energy 1e-6 J per byte sent on 0.5 MB.
        Scenario s = timingStar(1, 50.0, NoiseSpec::Kind::None);
        s.topology.nodes[1].link = link(8, 8, 0, 2.0);
        s.topology.nodes[1].energy.perByteJ = 1e-6;
        s.topology.nodes[1].availability.kind = AvailabilitySpec::Kind::Trace;
        s.topology.nodes[1].availability.offline = {{1.52, 1e9}};
        s.model.wireBytes = 1e6;
        s.stop.virtualTimeS = 10;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.lostJobs, 1);
        QVERIFY(std::abs(r.bytes - 1.5e6) < 1e-3);
        QVERIFY(std::abs(r.cost - 1.5e6 * 2.0 / 1e9) < 1e-12);
        QVERIFY(std::abs(r.energyJ - 0.5) < 1e-9);
    }

    void nSyncDiscardPaysTheBytesSent() {
        // n-sync with n = 1 of two trainers, each on its own 8 Mbps link, 1 MB models. Both
        // download in 1 s; a (0.02 s step) uploads 1.02 .. 2.02 s and closes the round; b
        // (0.5 s step) has uploaded since 1.5 s: 0.52 MB when its job is discarded. The
        // round's bytes: 2 MB down + 1 MB + 0.52 MB up; energy 1e-6 J per byte sent.
        // (Contention off: 3 MB, the discarded upload unpaid.)
        Scenario s = timingStar(1, 50.0, NoiseSpec::Kind::None);
        s.topology.nodes.resize(1);
        for (const auto& [id, speed] : {std::make_pair("a", 50.0), std::make_pair("b", 2.0)}) {
            NodeSpec n = makeNode(id, Role::Trainer, "server", speed);
            n.link = link(8, 8);
            n.energy.perByteJ = 1e-6;
            s.topology.nodes.push_back(n);
        }
        s.sync.name = "n-sync";
        s.sync.params["n"] = 1;
        s.model.wireBytes = 1e6;
        s.stop.rounds = 1;
        Recorder rec;
        runScenario(s, rec);
        const auto r = rec.level(0);
        QCOMPARE(r[0].participants, 1);
        QVERIFY(std::abs(r[0].time - 2.02) < 1e-9);
        QVERIFY(std::abs(r[0].bytes - 3.52e6) < 1e-3);
        QVERIFY(std::abs(r[0].energyJ - 1.52) < 1e-9);
        s.topology.contention = false;
        Recorder off;
        runScenario(s, off);
        QCOMPARE(off.level(0)[0].bytes, 3e6);
    }

    void relayForwardsAndPaysEnergy() {
        // cloud <- relay <- phone, 8 Mbps per hop, 1 MB models. The phone reports to the
        // cloud (the nearest aggregating ancestor); the relay forwards 1 MB down and 1 MB up
        // at 1e-6 J per byte: 2 J. Four hop-crossings of 1 MB: 4 MB moved. Round: 2 s down,
        // 0.02 s compute, 2 s up.
        Scenario s = timingStar(1, 50.0, NoiseSpec::Kind::None);
        s.topology.nodes.clear();
        s.topology.nodes.push_back(makeNode("cloud", Role::Aggregator, ""));
        NodeSpec relay = makeNode("relay", Role::Relay, "cloud");
        relay.tier = Tier::Edge;
        relay.link = link(8, 8);
        relay.energy.perByteForwardedJ = 1e-6;
        s.topology.nodes.push_back(relay);
        NodeSpec phone = makeNode("phone", Role::Trainer, "relay", 50.0);
        phone.link = link(8, 8);
        s.topology.nodes.push_back(phone);
        s.model.wireBytes = 1e6;
        s.stop.rounds = 1;
        const Topology topo(s.topology, 1);
        QCOMPARE(topo.aggregator(topo.indexOf("phone")), topo.indexOf("cloud"));
        QVERIFY(!topo.trains(topo.indexOf("relay")) && !topo.aggregates(topo.indexOf("relay")));
        Recorder rec;
        runScenario(s, rec);
        const auto r = rec.level(0);
        QCOMPARE(r.size(), std::size_t(1));
        QVERIFY(std::abs(r[0].time - 4.02) < 1e-9);
        QVERIFY(std::abs(r[0].energyJ - 2.0) < 1e-12);
        QCOMPARE(r[0].bytes, 4e6);
    }

    void serverlessBilling() {
        // A serverless trainer at 3600 $/h (1 $ per second computed) and 0.5 $ per invocation,
        // two steps of 1 s per dispatch, no links: each round costs 0.5 + 2 = 2.5 $; three
        // rounds: 7.5 $. Billed while held it would cost the whole 6 s held (6 $), no fee.
        Scenario s = timingStar(1, 1.0, NoiseSpec::Kind::None);
        s.training.localSteps = 2;
        s.stop.rounds = 3;
        s.topology.nodes[1].pricePerHour = Range::exactly(3600.0);
        s.topology.nodes[1].billing = Billing::Serverless;
        s.topology.nodes[1].invocationFeeUsd = 0.5;
        Recorder rec;
        runScenario(s, rec);
        const auto r = rec.level(0);
        QCOMPARE(r[0].cost, 2.5);
        QCOMPARE(r[2].cost, 7.5);
        s.topology.nodes[1].billing = Billing::Held;
        Recorder held;
        runScenario(s, held);
        QCOMPARE(held.level(0)[2].cost, 6.0);
    }

    void serverlessJobCutPaysItsSecondsUpToTheCut() {
        // The same trainer, the run ended at 3.5 s by its time limit: round 1 (2.5 $), then the
        // second job is cut 1.5 s into its compute, in its second step. It pays the exact
        // seconds computed up to the cut (docs/network.md and docs/emulator.md, "Serverless
        // billing"): 0.5 + 1.5 = 2 $, not the one finished step (1.5 $).
        Scenario s = timingStar(1, 1.0, NoiseSpec::Kind::None);
        s.training.localSteps = 2;
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 3.5;
        s.topology.nodes[1].pricePerHour = Range::exactly(3600.0);
        s.topology.nodes[1].billing = Billing::Serverless;
        s.topology.nodes[1].invocationFeeUsd = 0.5;
        Recorder rec;
        const RunSummary summary = runScenario(s, rec);
        QCOMPARE(rec.level(0).size(), std::size_t(1));
        QCOMPARE(rec.level(0)[0].cost, 2.5);
        QCOMPARE(summary.cost, 4.5);
    }

    void deterministicAcrossThreads() {
        // Real training (logistic regression on synthetic data) over shared links with
        // exponential compute noise: 1 and 2 threads give identical rows and summaries.
        Scenario s = timingStar(6, 200.0, NoiseSpec::Kind::Exponential);
        useSmallRealTraining(s, 10);
        s.model.wireBytes = 2e5;
        s.training.localSteps = 3;
        s.topology.nodes[1].link = link(4, 8, 20);
        s.stop.rounds = 6;
        Recorder a, b;
        const RunSummary ra = runScenario(s, a, 1);
        const RunSummary rb = runScenario(s, b, 2);
        QCOMPARE(a.records.size(), b.records.size());
        for (std::size_t i = 0; i < a.records.size(); ++i) {
            QCOMPARE(a.records[i].time, b.records[i].time);
            QCOMPARE(a.records[i].trainLoss, b.records[i].trainLoss);
            QCOMPARE(a.records[i].cost, b.records[i].cost);
            QCOMPARE(a.records[i].bytes, b.records[i].bytes);
            QCOMPARE(a.records[i].energyJ, b.records[i].energyJ);
        }
        QCOMPARE(ra.virtualTime, rb.virtualTime);
        QCOMPARE(ra.finalTestAccuracy, rb.finalTestAccuracy);
        QCOMPARE(ra.bytes, rb.bytes);
        QCOMPARE(ra.samplesComputed, rb.samplesComputed);
        // Contention made the rounds longer than the ideal network's.
        Scenario off = s;
        off.topology.contention = false;
        Recorder c;
        runScenario(off, c, 1);
        QVERIFY(c.level(0)[0].time < a.level(0)[0].time);
    }
};

QTEST_GUILESS_MAIN(TestNetwork)
#include "test_network.moc"
