// Codecs on the links between the aggregators of a tiered tree (training.aggregator_codec_up
// / aggregator_codec_down, docs/learning.md "Codecs between aggregators"): the bytes and the
// round times by hand (timing only, noise none), the codec work in time and energy, the
// models a child aggregator's trainers start from and the parent's model after each round
// computed by hand from the codecs (real training, bit for bit), determinism across thread
// counts, and the validator's refusals. Also: the fast fp16 and quantize codecs equal the
// element-by-element reference bit for bit.

#include "engine_fixtures.h"
#include "scenario_problems.h"
#include "tier_trees.h"

#include "core/engine/local_job_tap.h"
#include "core/policies/aggregation.h"
#include "core/policies/update_codec.h"
#include "core/scenario/scenario_io.h"
#include "core/util/random.h"

#include <QtTest>

#include <cmath>
#include <cstring>
#include <string>

using namespace fog;
using namespace fogtest;

namespace {

// As test_tiers' tree: model 1 MB (P = 250,000 in a timing-only run). Cloud -> edge links
// 80 Mbit/s, 10 ms; edge -> phone links 40 Mbit/s, 50 ms. Edges: FedAvg, 2 local steps, 2
// rounds per cloud round; a phone of pa takes 0.5 s a step, one of pb 1 s. With floats a
// cloud round is 0.11 down + 2 x 2.5 (edge-1's session) + 0.11 up = 5.22 s.
std::string timingTree(const std::string& training) {
    TierTree t;
    t.name = "codec-links";
    t.edgeAggregate = "{sync: fedavg, local_steps: 2, rounds: 2}";
    t.cloudExtra = ", compute: {throughput: 1}, energy: {per_sample_j: 1}";
    t.edgeExtra = ", compute: {throughput: 1}, energy: {per_sample_j: 2}";
    t.training = training;
    return tierTree(t);
}

/// A cloud, one edge aggregator (FedAvg, one round per cloud round) and its two trainers:
/// logistic regression on the synthetic devices, learning rate 0.1, 3 local steps.
std::string trainingTree(const std::string& training, int rounds = 3) {
    std::string y = "schema_version: 1\nname: codec-links-training\nseed: 5\ntopology:\n  contention: false\n  nodes:\n";
    y += "    - {id: cloud, tier: cloud, role: aggregator}\n";
    y += "    - {id: edge, tier: edge, role: aggregator, parent: cloud, aggregate: {sync: fedavg, rounds: 1},\n"
         "       link: {bandwidth_up_mbps: 80, bandwidth_down_mbps: 80, latency_ms: 10}}\n";
    y += "  groups:\n";
    y += "    - {id: w, count: 2, role: trainer, parent: edge, compute: {throughput: 50, noise: {kind: lognormal, sigma: 0.3}},\n"
         "       link: {bandwidth_up_mbps: 40, bandwidth_down_mbps: 40, latency_ms: 5}}\n";
    y += "data: {dataset: synthetic, synthetic: {iid: true}}\n";
    y += "model: {kind: logreg}\n";
    y += "training: {batch_size: 10, local_steps: 3, learning_rate: 0.1" + training + "}\n";
    y += "sync: {policy: fedavg}\nselection: {policy: all}\nstop: {rounds: " + std::to_string(rounds) + "}\n";
    return y;
}

/// Every job's start model and every collected update, in order.
struct Tap : LocalJobTap {
    struct Started {
        int trainer;
        ParamsPtr start;
    };
    std::vector<Started> started;
    std::vector<Contribution> collectedUpdates;
    void trainingData(const std::shared_ptr<const DataBundle>&) override {}
    void submitted(const Job& job, const LocalJob& work) override { started.push_back({job.trainer, work.start}); }
    void collected(const Job& job, const LocalResult& result) override {
        Contribution c;
        c.trainer = job.trainer;
        c.samples = result.samples;
        c.update = result.update;
        collectedUpdates.push_back(std::move(c));
    }
};

bool sameBits(const Params& a, const Params& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

class TestCodecLinks : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void bytesAndTimesByHand_data() {
        QTest::addColumn<QString>("training");
        QTest::addColumn<double>("downBytes");
        QTest::addColumn<double>("upBytes");
        // P = 250,000: fp16 2 P; quantize 8 bits 4 + P; quantize 3 bits 4 + ceil(3 P / 8);
        // top-k 10%: 8 x 25,000.
        QTest::newRow("none (floats)") << "" << 1e6 << 1e6;
        QTest::newRow("fp16 down, quantize 8 up")
            << ", aggregator_codec_down: fp16, aggregator_codec_up: quantize, aggregator_codec_up_bits: 8" << 5e5
            << 250004.0;
        QTest::newRow("quantize 3 down, topk 10% up")
            << ", aggregator_codec_down: quantize, aggregator_codec_down_bits: 3, aggregator_codec_up: topk, "
               "aggregator_codec_up_fraction: 0.1"
            << 93754.0 << 200000.0;
    }
    void bytesAndTimesByHand() {
        QFETCH(QString, training);
        QFETCH(double, downBytes);
        QFETCH(double, upBytes);
        const Scenario s = loadScenarioText(timingTree(training.toStdString()), "links.yaml");
        Recorder rec;
        const RunSummary sum = runScenario(s, rec);
        QCOMPARE(sum.status, RunStatus::Finished);
        // A cloud round: the model down to both edges (latency 0.01 + bytes x 8 / 80e6), edge-1's
        // session of 5 s, its change up. The trainers' jobs keep their floats.
        const double down = 0.01 + downBytes * 8 / 80e6, up = 0.01 + upBytes * 8 / 80e6;
        const double round = down + 5 + up;
        compareTimes(rec.level(0), {round, 2 * round, 3 * round, 4 * round});
        const auto edges = rec.level(1);
        QVERIFY(edges.size() >= 4);
        compareTimes({edges.begin(), edges.begin() + 4}, {down + 1.5, down + 2.5, down + 3, down + 5});
        // Bytes: per cloud round each edge runs 2 rounds of 2 jobs (1 MB down, 1 MB up each)
        // and exchanges one model and one change with the cloud.
        const double perRound = 2 * (2 * 2 * 2e6) + 2 * (downBytes + upBytes);
        QCOMPARE(sum.bytes, 4 * perRound);
    }

    void codecWorkIsPricedByTheClock() {
        // codec_elements_per_s 2.5e6: 0.1 s per vector of P = 250,000. The cloud encodes (0.1),
        // the model goes down (0.06 at fp16), the edge decodes (0.1), the session (5), the
        // edge encodes (0.1), the change goes up (0.0350004 at quantize 8), the cloud decodes
        // (0.1). Compute energy: the cloud at 1 W encodes 2 and decodes 2 vectors a round
        // (0.4 J), each edge at 2 W decodes 1 and encodes 1 (0.4 J each).
        const Scenario s = loadScenarioText(
            timingTree(", aggregator_codec_down: fp16, aggregator_codec_up: quantize, codec_elements_per_s: 2500000"),
            "links.yaml");
        Recorder rec;
        const RunSummary sum = runScenario(s, rec);
        QCOMPARE(sum.status, RunStatus::Finished);
        const double round = 0.1 + 0.06 + 0.1 + 5 + 0.1 + (0.01 + 250004.0 * 8 / 80e6) + 0.1;
        compareTimes(rec.level(0), {round, 2 * round, 3 * round, 4 * round});
        const auto edges = rec.level(1);
        QVERIFY(edges.size() >= 2);
        compareTimes({edges.begin(), edges.begin() + 2}, {0.26 + 1.5, 0.26 + 2.5});
        QVERIFY2(std::fabs(sum.energyComputeJ - 4 * (0.4 + 2 * 0.4)) < 1e-9,
                 qPrintable(QString::number(sum.energyComputeJ, 'g', 17)));
        // Free codecs (the default rate 0): the same bytes, none of the work.
        const Scenario f = loadScenarioText(
            timingTree(", aggregator_codec_down: fp16, aggregator_codec_up: quantize"), "links.yaml");
        Recorder free;
        const RunSummary g = runScenario(f, free);
        QCOMPARE(g.bytes, sum.bytes);
        QCOMPARE(g.energyComputeJ, 0.0);
        const double plain = 0.06 + 5 + (0.01 + 250004.0 * 8 / 80e6);
        compareTimes(free.level(0), {plain, 2 * plain, 3 * plain, 4 * plain});
    }

    void modelsByHand_data() {
        QTest::addColumn<QString>("training");
        QTest::newRow("quantize 4 down, topk 5% up")
            << ", aggregator_codec_down: quantize, aggregator_codec_down_bits: 4, aggregator_codec_up: topk, "
               "aggregator_codec_up_fraction: 0.05";
        QTest::newRow("fp16 down, quantize 3 up")
            << ", aggregator_codec_down: fp16, aggregator_codec_up: quantize, aggregator_codec_up_bits: 3";
    }
    void modelsByHand() {
        // Cloud round r: the edge decodes d_r = down(x_{r-1}) (its stream for session r) and its
        // trainers start from it; the edge adds the samples-weighted mean of their changes
        // (e_r = d_r + mean) and sends c_r = e_r - d_r up; the cloud adds up(c_r) (the edge's
        // stream for upload r; top-k with the edge's residual): x_r = x_{r-1} + up(c_r).
        QFETCH(QString, training);
        const std::string text = trainingTree(training.toStdString());
        const Scenario s = loadScenarioText(text, "links.yaml");
        CodecConfig down, up;
        down = codecConfig(s.training.aggregatorCodecDown, s.training.aggregatorCodecDownBits, 1.0);
        up = codecConfig(s.training.aggregatorCodecUp, s.training.aggregatorCodecUpBits,
                         s.training.aggregatorCodecUpFraction);
        Tap tap;
        Params x;
        {
            ScopedLocalJobTap scoped(&tap);
            Engine probe(s, {});
            x = *probe.initialModel();
            Recorder rec;
            runScenario(s, rec);
            QCOMPARE(rec.level(0).size(), std::size_t(3));
        }
        QCOMPARE(tap.started.size(), std::size_t(6));
        QCOMPARE(tap.collectedUpdates.size(), std::size_t(6));
        Params residual;
        bool downChanged = false, upChanged = false;
        for (std::uint64_t r = 1; r <= 3; ++r) {
            Params d = x;
            Rng rd(deriveSeed(deriveSeed(s.seed, hashName("aggregator-codec-down"), hashName("edge")), r));
            encodeDecode(down, d, rd, nullptr);
            downChanged = downChanged || !sameBits(d, x);
            for (std::size_t j = 2 * (r - 1); j < 2 * r; ++j)
                QVERIFY2(sameBits(*tap.started[j].start, d), qPrintable(QString("round %1, job %2").arg(r).arg(j)));
            const std::vector<Contribution> results(tap.collectedUpdates.begin() + 2 * (r - 1),
                                                    tap.collectedUpdates.begin() + 2 * r);
            const Params mean = sampleWeightedUpdate(results);
            Params c(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) {
                const float e = d[i] + 1.0f * mean[i];
                c[i] = e - d[i];
            }
            Params sent = c;
            Rng ru(deriveSeed(deriveSeed(s.seed, hashName("aggregator-codec-up"), hashName("edge")), r));
            encodeDecode(up, sent, ru, &residual);
            upChanged = upChanged || !sameBits(sent, c);
            // The cloud's FedAvg of its one child: weight samples / samples = 1.
            Contribution fromEdge;
            fromEdge.samples = results[0].samples + results[1].samples;
            fromEdge.update = sent;
            const Params step = sampleWeightedUpdate({fromEdge});
            for (std::size_t i = 0; i < x.size(); ++i) x[i] += 1.0f * step[i];
        }
        QVERIFY(downChanged);
        QVERIFY(upChanged);
        // The codecs changed the run: without them the final loss differs.
        Recorder again;
        const RunSummary sum = runScenario(s, again);
        QVERIFY(std::isfinite(sum.finalTestLoss));
        const Scenario plain = loadScenarioText(trainingTree(""), "links.yaml");
        Recorder p;
        const RunSummary q = runScenario(plain, p);
        QVERIFY(std::memcmp(&q.finalTestLoss, &sum.finalTestLoss, sizeof(double)) != 0);
    }

    void sameRecordsAtOneAndTwoThreads() {
        const Scenario s = loadScenarioText(
            trainingTree(", aggregator_codec_down: quantize, aggregator_codec_up: topk, aggregator_codec_up_fraction: 0.1", 6),
            "links.yaml");
        Recorder one, two;
        const RunSummary a = runScenario(s, one, 1);
        const RunSummary b = runScenario(s, two, 2);
        QCOMPARE(one.records.size(), two.records.size());
        for (std::size_t i = 0; i < one.records.size(); ++i) {
            QCOMPARE(one.records[i].time, two.records[i].time);
            QVERIFY(std::memcmp(&one.records[i].trainLoss, &two.records[i].trainLoss, sizeof(double)) == 0);
        }
        QVERIFY(std::memcmp(&a.finalTestLoss, &b.finalTestLoss, sizeof(double)) == 0);
        QCOMPARE(a.bytes, b.bytes);
    }

    void defaultsChangeNothing() {
        // Both codecs none (the default) and given explicitly: the same run as without the keys.
        const Scenario s = loadScenarioText(trainingTree(""), "links.yaml");
        const Scenario n = loadScenarioText(
            trainingTree(", aggregator_codec_down: none, aggregator_codec_up: none"), "links.yaml");
        Recorder a, b;
        const RunSummary x = runScenario(s, a), y = runScenario(n, b);
        QVERIFY(std::memcmp(&x.finalTestLoss, &y.finalTestLoss, sizeof(double)) == 0);
        QCOMPARE(x.bytes, y.bytes);
        QCOMPARE(a.times(), b.times());
        // Saved without the keys at their defaults.
        QVERIFY(!QString::fromStdString(saveScenarioText(n)).contains("aggregator_codec"));
    }

    void refusals_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("message");
        std::string star = trainingTree(", aggregator_codec_up: fp16");
        const std::string agg = ", aggregate: {sync: fedavg, rounds: 1}";
        star.replace(star.find(agg), agg.size(), "");
        QTest::newRow("not tiered") << QString::fromStdString(star)
                                    << "training.aggregator_codec_up applies to the links between the aggregators of a tiered tree";
        QTest::newRow("topk down") << QString::fromStdString(trainingTree(", aggregator_codec_down: topk"))
                                   << "training.aggregator_codec_down must be one of none, fp16, quantize, got 'topk'";
        QTest::newRow("unknown codec") << QString::fromStdString(trainingTree(", aggregator_codec_up: zip"))
                                       << "training.aggregator_codec_up must be one of none, fp16, quantize, topk";
        QTest::newRow("bits") << QString::fromStdString(
                                     trainingTree(", aggregator_codec_up: quantize, aggregator_codec_up_bits: 17"))
                              << "training.aggregator_codec_up_bits";
    }
    void refusals() {
        QFETCH(QString, yaml);
        QFETCH(QString, message);
        const QString problems = fogtest::problemsOf(yaml.toStdString(), "links.yaml");
        QVERIFY2(problems.contains(message), qPrintable(problems));
        QVERIFY2(problems.contains("links.yaml"), qPrintable(problems));
    }

    // ---- the fast codecs equal the reference ----------------------------------------------
    void fastFp16EqualsTheReference() {
        // Every float of exponent fields around the half's limits (subnormal halves, the
        // smallest normals, 65504 and the overflow to infinity), both signs, every fraction;
        // then every 65,537th bit pattern of the rest. (`fogstudio-cli bench codecs
        // --exhaustive` checks all 2^32.)
        auto check = [](std::uint32_t u) {
            float x;
            std::memcpy(&x, &u, sizeof x);
            const float a = roundToHalf(x), b = roundToHalfReference(x);
            return std::memcmp(&a, &b, sizeof a) == 0;
        };
        std::uint64_t bad = 0, checked = 0;
        for (std::uint32_t exponent : {0u, 1u, 100u, 101u, 102u, 103u, 111u, 112u, 113u, 142u, 143u, 255u})
            for (std::uint32_t sign : {0u, 1u})
                for (std::uint32_t fraction = 0; fraction < (1u << 23); fraction += 3) {
                    bad += !check((sign << 31) | (exponent << 23) | fraction);
                    ++checked;
                }
        for (std::uint64_t u = 0; u <= 0xffffffffull; u += 65537) {
            bad += !check(static_cast<std::uint32_t>(u));
            ++checked;
        }
        QVERIFY(checked > 30000000);
        QCOMPARE(bad, std::uint64_t(0));
        QCOMPARE(roundToHalf(-0.0f), -0.0f);
        QVERIFY(std::signbit(roundToHalf(-1e-9f)));
    }

    void fastQuantizeEqualsTheReference_data() {
        QTest::addColumn<int>("bits");
        QTest::addColumn<int>("size");
        for (int bits : {2, 3, 8, 12, 16})
            for (int size : {1, 7, 5000, 70000})
                QTest::newRow(qPrintable(QString("%1 bits, %2 coordinates").arg(bits).arg(size))) << bits << size;
    }
    void fastQuantizeEqualsTheReference() {
        QFETCH(int, bits);
        QFETCH(int, size);
        Rng draw(static_cast<std::uint64_t>(bits * 100003 + size));
        Params v;
        for (int i = 0; i < size; ++i) v.push_back(static_cast<float>(draw.normal() * (i % 5 == 0 ? 1e-6 : 0.1)));
        if (size > 3) {
            v[1] = -0.0f;
            v[2] = std::nanf("");
        }
        Params a = v, b = v;
        const CodecConfig c = codecConfig("quantize", bits, 0.0);
        Rng ra(99), rb(99);
        encodeDecode(c, a, ra, nullptr);
        encodeDecodeReference(c, b, rb, nullptr);
        QVERIFY(sameBits(a, b));
        QCOMPARE(ra.next(), rb.next()); // the same draws consumed
        if (size > 3) QVERIFY(!sameBits(a, v)); // it did quantise
    }
};

QTEST_GUILESS_MAIN(TestCodecLinks)
#include "test_codec_links.moc"
