// Cloudless-Training's cross-cloud modes (issue 18): asynchronous model averaging between
// regional servers, and async-ga across several roots with synchronous or asynchronous
// averaging. Timing-only runs with no noise, so every time is computed by hand in the
// comments; one small real-training run checks determinism across thread counts.

#include "engine_fixtures.h"

#include "core/policies/region_mixing.h"
#include "core/scenario/scenario_io.h"

#include <QtTest>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

using namespace fog;
using namespace fogtest;

namespace {

LinkParams link(double latencyS, double mbps = 1e12, double pricePerGb = 0.0) {
    LinkParams l;
    l.latencyMs = latencyS * 1000.0;
    l.bandwidthUpMbps = l.bandwidthDownMbps = mbps;
    l.pricePerGb = pricePerGb;
    return l;
}

/// Regions A and B (root aggregators joined by `wan`); A's trainers have the throughputs
/// `a`, B's `b` (samples/s); batch 1, timing only.
Scenario twoRegions(const std::vector<double>& a, const std::vector<double>& b, const LinkParams& wan) {
    Scenario s;
    s.name = "cross-cloud";
    s.seed = 3;
    s.topology.nodes.push_back(makeNode("A", Role::Aggregator, ""));
    s.topology.nodes.push_back(makeNode("B", Role::Aggregator, ""));
    for (std::size_t i = 0; i < a.size(); ++i)
        s.topology.nodes.push_back(makeNode("a" + std::to_string(i + 1), Role::Trainer, "A", a[i]));
    for (std::size_t i = 0; i < b.size(); ++i)
        s.topology.nodes.push_back(makeNode("b" + std::to_string(i + 1), Role::Trainer, "B", b[i]));
    LinkSpec l;
    l.from = "A";
    l.to = "B";
    l.params = wan;
    s.topology.links.push_back(l);
    s.data.kind = DataSpec::Kind::None;
    s.data.samplesPerTrainer = 100;
    s.model.kind = ModelSpec::Kind::None;
    s.training.batchSize = 1;
    return s;
}

PolicySpec policy(const std::string& name, std::map<std::string, double> params) {
    PolicySpec p;
    p.name = name;
    p.params = std::move(params);
    return p;
}

bool near(double a, double b) { return std::abs(a - b) < 1e-6; }

std::string times(const std::vector<AggregationRecord>& rs) {
    std::string out;
    for (const auto& r : rs) out += r.aggregator + "@" + QString::number(r.time).toStdString() + " ";
    return out;
}

int countOf(const std::vector<AggregationRecord>& rs, const std::string& aggregator) {
    int n = 0;
    for (const auto& r : rs) n += r.aggregator == aggregator;
    return n;
}

/// Keeps the messages between the regional servers.
struct WanRecorder : Recorder {
    std::vector<LinkMessage> wan;
    std::set<int> servers;
    void onMessage(const LinkMessage& m) override {
        if (servers.count(m.from) && servers.count(m.to)) wan.push_back(m);
    }
};

/// The narrow context the mixer needs: sends are held until the test delivers them.
class MailContext : public PolicyContext {
public:
    std::vector<std::function<void()>> inFlight;
    double now() const override { return 0.0; }
    const Scenario& scenario() const override { throw std::logic_error("unused"); }
    const PolicyParams& syncParams() const override { throw std::logic_error("unused"); }
    const PolicyParams& selectionParams() const override { throw std::logic_error("unused"); }
    const Topology& topology() const override { throw std::logic_error("unused"); }
    const DataBundle& data() const override { throw std::logic_error("unused"); }
    bool trainsModel() const override { return true; }
    bool isOnline(int) const override { return true; }
    bool isBusy(int) const override { return false; }
    std::int64_t samplesOf(int) const override { return 0; }
    std::vector<int> trainersOf(int) const override { return {}; }
    int serverOf(int) const override { return -1; }
    int localStepsOf(int) const override { return 1; }
    double expectedComputeSeconds(int, int, int) const override { return 0.0; }
    double learningRate() const override { return 0.1; }
    ParamsPtr initialModel() const override { return {}; }
    double modelBytes() const override { return 1.0; }
    int globalRound() const override { return 0; }
    bool stopped() const override { return false; }
    std::vector<int> selectTrainers(int, int) override { return {}; }
    std::uint64_t dispatch(const DispatchRequest&) override { return 0; }
    void cancelJob(std::uint64_t) override {}
    void send(int, int, double, std::function<void()> delivered) override { inFlight.push_back(std::move(delivered)); }
    TimerId at(double, std::function<void()> fn) override {
        fn();
        return 0;
    }
    void cancelTimer(TimerId) override {}
    void reportAggregation(AggregationRecord, const ParamsPtr&) override {}
    void report(PolicyEvent, int, const std::string&) override {}
    void deliverAll() {
        auto v = std::move(inFlight);
        inFlight.clear();
        for (auto& f : v) f();
    }
};

ParamsPtr vec(float x) { return std::make_shared<Params>(Params{x}); }

} // namespace

class TestCrossCloud : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ------------------------------------------------ asynchronous model averaging
    void asyncAveragingFastRegionDoesNotWait() {
        // A's trainer: 2 steps of 1 s = a 2 s round; B's: 2 steps of 2.5 s = 5 s. P = 2, so
        // A reaches a barrier every 4 s (4, 8, 12, 16) and B every 10 s; the WAN takes 1.5 s.
        // A mixes at 4 and 8 with nothing received; B at 10 holds A's model of 8 (arrived
        // 9.5, A's 2nd barrier, B's 1st: staleness max(0, 1 - 2) = 0); A at 12 holds B's of
        // 10 (arrived 11.5: A's 3rd barrier, B's 1st: staleness 2); A at 16 nothing new.
        Scenario s = twoRegions({1.0}, {0.4}, link(1.5));
        s.training.localSteps = 2;
        s.sync = policy("model-averaging", {{"period", 2}, {"async_averaging", 1}});
        s.stop.rounds = 5;
        Recorder rec;
        runScenario(s, rec);
        const auto global = rec.level(0);
        QCOMPARE(global.size(), std::size_t(5));
        const double when[] = {4, 8, 10, 12, 16};
        const char* who[] = {"A", "A", "B", "A", "A"};
        const int participants[] = {1, 1, 2, 2, 1};
        const int staleness[] = {0, 0, 0, 2, 0};
        for (std::size_t i = 0; i < 5; ++i) {
            QVERIFY2(near(global[i].time, when[i]), times(global).c_str());
            QCOMPARE(global[i].aggregator, std::string(who[i]));
            QCOMPARE(global[i].participants, participants[i]);
            QCOMPARE(global[i].maxStaleness, staleness[i]);
        }
        // By 16 s A has run 8 regional rounds (one every 2 s, never waiting), B 3 (5, 10, 15).
        const auto regional = rec.level(1);
        QCOMPARE(countOf(regional, "A"), 8);
        QCOMPARE(countOf(regional, "B"), 3);

        // The same with synchronous averaging: A waits at 4 for B's model (sent at 10,
        // arriving 11.5), so the first global round is at 11.5 and A's rounds end at 2, 4,
        // 13.5, 15.5 by 16 s.
        s.sync = policy("model-averaging", {{"period", 2}});
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 16.0;
        Recorder sync;
        runScenario(s, sync);
        QVERIFY2(!sync.level(0).empty() && near(sync.level(0)[0].time, 11.5), times(sync.level(0)).c_str());
        QCOMPARE(countOf(sync.level(1), "A"), 4);
    }

    void asyncAveragingThreeRegions() {
        // Three regions, rounds of 1, 2 and 4 s (one step each), P = 1, WAN 0.5 s: the
        // fastest one's barriers never wait: by 8 s A has mixed 8 times, B 4, C 2, and every
        // region's model reached every other (2 messages per barrier).
        Scenario s = twoRegions({1.0}, {0.5}, link(0.5));
        s.topology.nodes.push_back(makeNode("C", Role::Aggregator, ""));
        s.topology.nodes.push_back(makeNode("c1", Role::Trainer, "C", 0.25));
        for (const char* from : {"A", "B"}) {
            LinkSpec l;
            l.from = from;
            l.to = "C";
            l.params = link(0.5);
            s.topology.links.push_back(l);
        }
        s.training.localSteps = 1;
        s.sync = policy("model-averaging", {{"period", 1}, {"async_averaging", 1}});
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 8.5;
        WanRecorder rec;
        rec.servers = {0, 1, 4}; // A, B, C (after a1, b1)
        runScenario(s, rec);
        const auto global = rec.level(0);
        QCOMPARE(countOf(global, "A"), 8);
        QCOMPARE(countOf(global, "B"), 4);
        QCOMPARE(countOf(global, "C"), 2);
        QCOMPARE(rec.wan.size(), std::size_t(2 * (8 + 4 + 2)));
    }

    void mixerWeighsByDataAndStaleness() {
        // Regions of 100, 300 and 100 samples, b = 1. Region 0's first barrier: nothing
        // received. Region 1 sends (its 1st barrier) and region 2 sends twice (1st, 2nd); at
        // region 0's 2nd barrier it holds region 1's model (staleness 2 - 1 = 1, weight
        // 300 / 2) and only region 2's newest (staleness 0, weight 100):
        // (100 * 0 + 150 * 1 + 100 * 4) / 350.
        MailContext e;
        AsyncRegionMixer m;
        m.setup({10, 11, 12}, {100, 300, 100}, 1.0);
        QCOMPARE(m.mix(e, 0, vec(0.0f)).participants, 1);
        m.mix(e, 1, vec(1.0f));
        m.mix(e, 2, vec(3.0f));
        m.mix(e, 2, vec(4.0f));
        QCOMPARE(e.inFlight.size(), std::size_t(8)); // every barrier sends to both peers
        e.deliverAll();
        const RegionMix r = m.mix(e, 0, vec(0.0f));
        QCOMPARE(r.participants, 3);
        QCOMPARE(r.maxStaleness, 1);
        QCOMPARE(r.meanStaleness, 0.5);
        QVERIFY2(std::abs((*r.model)[0] - 550.0f / 350.0f) < 1e-6, qPrintable(QString::number((*r.model)[0])));
        // Mixed once: the next barrier with nothing new keeps the model as it is.
        const RegionMix again = m.mix(e, 0, vec(2.0f));
        QCOMPARE(again.participants, 1);
        QCOMPARE((*again.model)[0], 2.0f);
        // An older model arriving after a newer one is ignored.
        MailContext late;
        AsyncRegionMixer n;
        n.setup({1, 2}, {1, 1}, 0.0);
        n.mix(late, 1, vec(5.0f));
        n.mix(late, 1, vec(7.0f));
        auto first = std::move(late.inFlight[0]), second = std::move(late.inFlight[1]);
        second();
        first();
        QCOMPARE((*n.mix(late, 0, vec(1.0f)).model)[0], 4.0f); // (1 + 7) / 2
    }

    // ------------------------------------------------ async-ga across several roots
    void asyncGaSeveralRootsSynchronousAveraging() {
        // k = 2 steps per push. A: a1 1 s/step (pushes at 2, 4), a2 2.5 s/step (push at 5);
        // B: b1 2 s/step (pushes at 4, 8). P = 2 updates; WAN 2 s. A reaches its barrier at
        // 4 (its model reaches B at 6) and waits; a2's push at 5 is held. B's barrier at 8:
        // A's model is there, so B goes on at 8; B's model reaches A at 10: the 1st global
        // round is at 10, A goes on at 10 and applies a2's held push (pulled version 0; A's
        // model is at version 3 after two pushes and the average: staleness 3). a1 pushes at
        // 12 (A's 2nd barrier, model at B at 14), b1 at 12 and 16 (B's 2nd barrier, model at
        // A at 18): the 2nd global round is at 18.
        Scenario s = twoRegions({1.0, 0.4}, {0.5}, link(2.0));
        s.sync = policy("async-ga", {{"k", 2}, {"period", 2}});
        s.stop.rounds = 2;
        Recorder rec;
        runScenario(s, rec);
        const auto global = rec.level(0);
        QCOMPARE(global.size(), std::size_t(2));
        QVERIFY2(near(global[0].time, 10.0) && near(global[1].time, 18.0), times(global).c_str());
        QCOMPARE(global[0].participants, 2);
        std::vector<AggregationRecord> a;
        for (const auto& r : rec.level(1))
            if (r.aggregator == "A") a.push_back(r);
        QVERIFY2(a.size() == 4, times(rec.level(1)).c_str());
        QVERIFY2(near(a[0].time, 2) && near(a[1].time, 4) && near(a[2].time, 10) && near(a[3].time, 12),
                 times(a).c_str());
        QCOMPARE(a[2].maxStaleness, 3);
        QCOMPARE(a[3].maxStaleness, 0);
        QCOMPARE(countOf(rec.level(1), "B"), 4); // 4, 8, 12, 16
    }

    void asyncGaSeveralRootsAsynchronousAveragingWanTraffic() {
        // a1 pushes every 2 s, b1 every 4 s (k = 2); P = 2: A averages at 4, 8, 12, B at 8.
        // Each averaging sends one model over the WAN (one peer). The WAN (8 Mbit/s, 1 s
        // latency) takes 2 s, so by 15 s the 4 messages of 1 MB (leaving at 4, 8, 8, 12) have
        // arrived, at 0.1 per GB: 4 MB and 0.0004. (Bytes are charged as they are sent: a
        // message still on the WAN when the run stops is charged only in part.)
        Scenario s = twoRegions({1.0}, {0.5}, link(1.0, 8.0, 0.1));
        for (std::size_t i = 2; i < s.topology.nodes.size(); ++i) s.topology.nodes[i].link = link(0.0);
        s.model.wireBytes = 1e6;
        s.sync = policy("async-ga", {{"k", 2}, {"period", 2}, {"async_averaging", 1}});
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 15.0;
        WanRecorder rec;
        rec.servers = {0, 1};
        const RunSummary sum = runScenario(s, rec);
        const auto global = rec.level(0);
        QCOMPARE(global.size(), std::size_t(4));
        QVERIFY2(near(global.back().time, 12.0), times(global).c_str());
        QCOMPARE(rec.wan.size(), std::size_t(4));
        double bytes = 0.0;
        std::multiset<double> departures;
        for (const auto& m : rec.wan) {
            bytes += m.bytes;
            departures.insert(std::round(m.depart * 1e6) / 1e6);
            QVERIFY(near(m.arrive - m.depart, 2.0));
        }
        QCOMPARE(bytes, 4e6);
        QCOMPARE(departures, (std::multiset<double>{4, 8, 8, 12}));
        QVERIFY2(near(sum.cost, 4e6 / 1e9 * 0.1), qPrintable(QString::number(sum.cost)));
        // B's barrier at 8 mixes A's model of 4 (arrived at 6): 2 participants, A's 1st
        // barrier and B's 1st: staleness 0. A at 12 mixes B's of 8 (arrived 10): staleness 2.
        for (const auto& r : global) {
            if (r.aggregator == "B") QCOMPARE(r.participants, 2);
            if (r.aggregator == "A" && near(r.time, 12)) QCOMPARE(r.maxStaleness, 2);
        }
        // One root: the classic single server, the pushes are the global rounds.
        Scenario one = twoRegions({1.0}, {}, link(1.0));
        one.topology.nodes.erase(one.topology.nodes.begin() + 1);
        one.topology.links.clear();
        one.sync = policy("async-ga", {{"k", 2}, {"period", 2}});
        one.stop.rounds = 3;
        Recorder single;
        runScenario(one, single);
        QCOMPARE(single.level(0).size(), std::size_t(3));
        QVERIFY(single.level(1).empty());
        QVERIFY(near(single.level(0)[2].time, 6.0));
    }

    void aggregationEnergyPerServer() {
        // 1 J per model or push folded in. Synchronous averaging of async-ga regions: each
        // push folds 1 at its own server (level 1); at an exchange both servers fold both
        // models (2 x 2 J). Asynchronous MA: only the server that mixes folds, once per
        // model it mixes (its level-0 participants).
        for (const bool async : {false, true}) {
            Scenario s = twoRegions({1.0, 0.4}, {0.5}, link(2.0));
            for (std::size_t i = 0; i < 2; ++i) s.topology.nodes[i].energy.perUpdateAggregatedJ = 1.0;
            s.training.localSteps = 2;
            s.sync = async ? policy("model-averaging", {{"period", 2}, {"async_averaging", 1}})
                           : policy("async-ga", {{"k", 2}, {"period", 2}});
            s.stop.rounds = 3;
            Recorder rec;
            const RunSummary sum = runScenario(s, rec);
            double want = 0.0;
            for (const auto& r : rec.level(1)) want += r.participants;
            for (const auto& r : rec.level(0)) want += async ? r.participants : 2.0 * r.participants;
            QVERIFY2(std::abs(sum.energyJ - want) < 1e-9,
                     qPrintable(QString("%1 J, want %2 J").arg(sum.energyJ).arg(want)));
            QVERIFY(want > 3.0);
        }
    }

    // ------------------------------------------------ determinism
    void sameMetricsForAnyThreadCount() {
        for (const PolicySpec& sync :
             {policy("model-averaging", {{"period", 2}, {"async_averaging", 1}}),
              policy("async-ga", {{"k", 3}, {"period", 4}, {"mixing", 0.5}}),
              policy("async-ga", {{"k", 3}, {"period", 4}, {"async_averaging", 1}})}) {
            Scenario s = twoRegions({40, 25}, {20, 15}, link(0.05, 100));
            s.topology.nodes.push_back(makeNode("C", Role::Aggregator, ""));
            s.topology.nodes.push_back(makeNode("c1", Role::Trainer, "C", 10));
            for (const char* from : {"A", "B"}) {
                LinkSpec l;
                l.from = from;
                l.to = "C";
                l.params = link(0.08, 50);
                s.topology.links.push_back(l);
            }
            for (auto& n : s.topology.nodes)
                if (n.role == Role::Trainer) n.compute.noise.kind = NoiseSpec::Kind::Exponential;
            useSmallRealTraining(s, 10);
            s.training.localSteps = 3;
            s.sync = sync;
            s.stop.rounds = 12;
            Recorder one, two;
            runScenario(s, one, 1);
            runScenario(s, two, 2);
            QCOMPARE(one.records.size(), two.records.size());
            QVERIFY(one.level(0).size() == 12);
            for (std::size_t i = 0; i < one.records.size(); ++i) {
                QCOMPARE(one.records[i].time, two.records[i].time);
                QCOMPARE(one.records[i].aggregator, two.records[i].aggregator);
                QCOMPARE(one.records[i].trainLoss, two.records[i].trainLoss);
                QCOMPARE(one.records[i].maxStaleness, two.records[i].maxStaleness);
                if (!std::isnan(one.records[i].testAccuracy))
                    QCOMPARE(one.records[i].testAccuracy, two.records[i].testAccuracy);
            }
            QCOMPARE(one.summary.finalTestAccuracy, two.summary.finalTestAccuracy);
        }
    }

    // ------------------------------------------------ bad input
    void badInput_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("expected");
        const QString head = "schema_version: 1\nname: x\ndata: {dataset: none}\nmodel: {kind: none}\n"
                             "stop: {rounds: 3}\ntopology:\n  nodes:\n"
                             "    - {id: r1, role: aggregator}\n    - {id: r2, role: aggregator}\n"
                             "    - {id: a, parent: r1}\n    - {id: b, parent: r2}\n";
        const QString wan = "  links:\n    - {from: r1, to: r2, latency_ms: 30}\n";
        QTest::newRow("async_averaging out of bounds")
            << head + wan + "sync: {policy: model-averaging, async_averaging: 2}\n"
            << "<string>:14:50: sync.async_averaging must be <= 1, got 2";
        QTest::newRow("async_averaging a fraction")
            << head + wan + "sync: {policy: async-ga, async_averaging: 0.5}\n"
            << "<string>:14:43: sync.async_averaging must be an integer, got 0.5";
        QTest::newRow("async-ga regions joined by no link")
            << head + "sync: {policy: async-ga, period: 4}\n"
            << "<string>:12:16: sync.policy async-ga with several root aggregators exchanges models between the "
               "regional servers 'r1' and 'r2' over the WAN, but no link joins them";
        QTest::newRow("asynchronous MA joined by no link")
            << head + "sync: {policy: model-averaging, async_averaging: 1}\n"
            << "<string>:12:16: sync.policy asynchronous model averaging exchanges models between the regional "
               "servers 'r1' and 'r2'";
        QTest::newRow("synchronous MA joined by no link")
            << head + "sync: {policy: model-averaging, period: 1}\n"
            << "<string>:12:16: sync.policy model averaging exchanges models between the regional servers 'r1' "
               "and 'r2' over the WAN, but no link joins them";
        QTest::newRow("synchronous MA (fine)") << head + wan + "sync: {policy: model-averaging, period: 1}\n" << "";
        QTest::newRow("plain async still needs one server")
            << head + wan + "sync: {policy: async}\n"
            << "sync.policy async needs exactly one root aggregator";
        QTest::newRow("async-ga across two regions (fine)") << head + wan + "sync: {policy: async-ga, period: 2}\n"
                                                            << "";
        QTest::newRow("asynchronous MA (fine)")
            << head + wan + "sync: {policy: model-averaging, period: 1, async_averaging: 1}\n" << "";
    }
    void badInput() {
        QFETCH(QString, yaml);
        QFETCH(QString, expected);
        std::string all;
        try {
            const Scenario s = loadScenarioText(yaml.toStdString());
            QVERIFY2(expected.isEmpty(), "validated");
            Recorder rec;
            const RunSummary r = runScenario(s, rec); // what validates runs to its end
            QCOMPARE(static_cast<int>(r.status), static_cast<int>(RunStatus::Finished));
            QCOMPARE(r.rounds, 3);
            return;
        } catch (const ScenarioError& e) {
            for (const auto& d : e.diagnostics) all += d.format() + "\n";
        }
        QVERIFY2(!expected.isEmpty(), all.c_str());
        QVERIFY2(QString::fromStdString(all).contains(expected), all.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCrossCloud)
#include "test_crosscloud.moc"
