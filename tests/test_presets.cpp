// The presets in presets/: every file loads and validates, and each preset's qualitative
// claim (the one its description and docs/lessons.md make) holds on the emulator. The runs
// use the real preset files, with overrides for smaller variants where a full run is slow.

#include "engine_fixtures.h"

#include "core/analysis/analysis.h"
#include "core/policies/rdp_accountant.h"
#include "core/cluster/cluster_io.h"
#include "core/data/dataset.h"
#include "core/system/topology.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/variants.h"
#include "core/sweep/sweep.h"

#include <QtTest>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

using namespace fog;
using namespace fogtest;

namespace {

const std::string kPresets = std::string(FOG_SOURCE_DIR) + "/presets/";

bool haveFashionMnist() {
    return std::filesystem::exists(defaultFashionMnistDir() + "/train-images-idx3-ubyte.gz");
}

/// What the checks compare: the records and where the run reached a target.
struct Outcome {
    Recorder rec;
    RunSummary summary;
    std::optional<TargetReach> reach;
};

/// Loads presets/<file> (its `variant`, if named) with `overrides` and seed of sweep repeat
/// `repeat`, runs it on two threads and finds where the test accuracy first reached `target`.
Outcome runPreset(const std::string& file, std::vector<Override> overrides, int repeat, double target,
                  const std::string& variant = {}) {
    const std::string path = kPresets + file;
    const Scenario base = variant.empty() ? loadScenarioFile(path) : loadVariantFile(path, variant);
    overrides.push_back({"seed", std::to_string(repeatSeed(base.seed, repeat))});
    Scenario s = variant.empty() ? loadScenarioFile(path, overrides) : loadVariantFile(path, variant, overrides);
    Outcome o;
    o.summary = runScenario(s, o.rec, 2);
    o.reach = reachTarget(o.rec.records, target);
    return o;
}

QString describe(const std::string& label, const Outcome& o) {
    return QString("%1: %2 rounds, %3 s, cost %4, acc %5%, to target %6 s / cost %7")
        .arg(QString::fromStdString(label))
        .arg(o.summary.rounds)
        .arg(o.summary.virtualTime, 0, 'f', 1)
        .arg(o.summary.cost, 0, 'f', 4)
        .arg(100 * o.summary.finalTestAccuracy, 0, 'f', 1)
        .arg(o.reach ? o.reach->time : kNaN, 0, 'f', 1)
        .arg(o.reach ? o.reach->cost : kNaN, 0, 'f', 4);
}

/// Mean virtual duration of a global round.
double meanRound(const Outcome& o) {
    return o.summary.rounds > 0 ? o.summary.virtualTime / o.summary.rounds : kNaN;
}

} // namespace

class TestPresets : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyPresetLoads_data() {
        QTest::addColumn<QString>("file");
        int n = 0;
        for (const auto& entry : std::filesystem::directory_iterator(kPresets)) {
            if (entry.path().extension() != ".yaml") continue;
            if (fog::cluster::isClusterScenarioFile(entry.path().string())) continue; // test_cluster loads those
            const std::string name = entry.path().filename().string();
            QTest::newRow(name.c_str()) << QString::fromStdString(entry.path().string());
            ++n;
        }
        QVERIFY(n >= 7);
    }
    void everyPresetLoads() {
        QFETCH(QString, file);
        Scenario s;
        try {
            s = loadScenarioFile(file.toStdString());
        } catch (const ScenarioError& e) {
            QString all;
            for (const auto& d : e.diagnostics) all += QString::fromStdString(d.format()) + "\n";
            QFAIL(qPrintable(all));
        }
        QVERIFY(validateScenario(s).empty());
        // A preset says what it is, where it comes from and what to look for.
        QVERIFY(s.name != "untitled" && !s.name.empty());
        QVERIFY2(s.description.size() > 100, "a preset describes what it shows, its source and what to look for");
        // Its topology can be built (groups expanded, parents resolved).
        const Topology topo(s.topology, s.seed);
        QVERIFY(!topo.trainers().empty());
        QVERIFY(!topo.rootAggregators().empty());
    }

    // Issue 12: whether a group's members share one link or each have their own changes a
    // lesson's figures (and, for some, its conclusion). Every lesson preset with groups says
    // which in the file (not by the default) and the lesson says which and why.
    void lessonPresetsSayTheirLinkSharing() {
        int checked = 0;
        for (const auto& entry : std::filesystem::directory_iterator(kPresets)) {
            if (entry.path().extension() != ".yaml") continue;
            if (fog::cluster::isClusterScenarioFile(entry.path().string())) continue; // no network
            const Scenario s = loadScenarioFile(entry.path().string());
            if (s.lesson.number <= 0 || s.topology.groupCount() == 0) continue;
            std::ifstream in(entry.path());
            const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            const std::string name = entry.path().filename().string();
            QVERIFY2(text.find("\n  link_sharing: ") != std::string::npos ||
                         text.find("\n      link_sharing: ") != std::string::npos,
                     qPrintable(QString::fromStdString(name + ": says no link_sharing")));
            QVERIFY2(s.lesson.body.find("`link_sharing") != std::string::npos,
                     qPrintable(QString::fromStdString(name + ": the lesson does not say its link sharing")));
            ++checked;
        }
        QVERIFY(checked >= 8);
    }

    // Preset 1 (ToN 2022): under random interruption, n-sync and n-batch-sync reach 80%
    // test accuracy in less virtual time and at lower cost than fully-sync, whose rounds
    // are longer (it waits for the slowest active worker).
    void volatileSpotWorkers() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "volatile-spot-sync.yaml";
        for (int repeat = 0; repeat < 2; ++repeat) {
            const std::vector<Override> common{{"stop", "{virtual_time_s: 300, target_accuracy: 0.8}"}};
            auto with = [&](const std::string& sync) {
                auto o = common;
                o.push_back({"sync", sync});
                return runPreset(file, o, repeat, 0.8);
            };
            const Outcome full = with("{policy: fully-sync}");
            const Outcome nsync = with("{policy: n-sync, n: 4}");
            const Outcome nbatch = with("{policy: n-batch-sync, m: 4}");
            for (const auto* o : {&full, &nsync, &nbatch}) {
                qInfo("%s", qPrintable(describe(o == &full ? "fully-sync" : o == &nsync ? "n-sync" : "n-batch-sync", *o)));
                QVERIFY2(o->reach.has_value(), "every variant reaches 80% within 300 s");
                QVERIFY(o->summary.lostJobs > 0); // the workers really are interrupted
            }
            QVERIFY(nsync.reach->time < full.reach->time);
            QVERIFY(nbatch.reach->time < full.reach->time);
            QVERIFY(nsync.reach->cost < full.reach->cost);
            QVERIFY(nbatch.reach->cost < full.reach->cost);
            // Fully-sync rounds are the longest, n-batch-sync rounds the shortest.
            QVERIFY(meanRound(full) > meanRound(nsync));
            QVERIFY(meanRound(nsync) > meanRound(nbatch));
        }
    }

    // Preset 2 (ToN 2022): growing the workers 2, 4, 8, 16 reaches 80% sooner and more
    // cheaply than 16 workers from the start (mean of two repeats), and under growth a
    // constant learning rate beats a decaying one.
    void exponentialGrowth() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "exp-growth-workers.yaml";
        double fixedTime = 0, growTime = 0, fixedCost = 0, growCost = 0;
        for (int repeat = 0; repeat < 2; ++repeat) {
            const std::vector<Override> toTarget{{"stop", "{virtual_time_s: 300, target_accuracy: 0.8}"}};
            auto fixedO = toTarget;
            fixedO.push_back({"selection", "{policy: all}"});
            const Outcome fixed = runPreset(file, fixedO, repeat, 0.8);
            const Outcome grow = runPreset(file, toTarget, repeat, 0.8);
            qInfo("%s", qPrintable(describe("16 workers", fixed)));
            qInfo("%s", qPrintable(describe("growth 2..16", grow)));
            QVERIFY(fixed.reach && grow.reach);
            fixedTime += fixed.reach->time;
            growTime += grow.reach->time;
            fixedCost += fixed.reach->cost;
            growCost += grow.reach->cost;
            // Growth starts with 2 workers: its first round has 2 participants.
            QVERIFY(grow.rec.records.front().participants <= 2);
            QVERIFY(fixed.rec.records.front().participants > 8);
        }
        QVERIFY(growTime < fixedTime);
        QVERIFY(growCost < fixedCost);

        // Constant vs decaying step under growth, over the preset's 300 s.
        const Outcome constant = runPreset(file, {}, 0, 0.8);
        const Outcome decaying = runPreset(file, {{"training.schedule", "{kind: inverse-time, gamma: 0.02}"}}, 0, 0.8);
        qInfo("%s", qPrintable(describe("constant lr", constant)));
        qInfo("%s", qPrintable(describe("inverse-time lr", decaying)));
        QVERIFY(constant.reach.has_value());
        QVERIFY(!decaying.reach || decaying.reach->time > constant.reach->time);
        QVERIFY(constant.summary.finalTestAccuracy > decaying.summary.finalTestAccuracy);
    }

    // Preset 3 (WiOpt 2021): on skewed data, recruiting 10 phones by data value reaches 60%
    // sooner, with less energy and to a higher final accuracy than the 10 largest phones.
    // (Against random-k re-drawn every round the emulator shows no consistent winner.)
    void dataValueRecruitment() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "data-value-recruitment.yaml";
        for (int repeat = 0; repeat < 2; ++repeat) {
            const std::vector<Override> shorter{{"stop", "{rounds: 24}"}};
            auto largestO = shorter;
            largestO.push_back({"selection", "{policy: largest-data, k: 10}"});
            const Outcome value = runPreset(file, shorter, repeat, 0.6);
            const Outcome largest = runPreset(file, largestO, repeat, 0.6);
            qInfo("%s", qPrintable(describe("data-value", value)));
            qInfo("%s", qPrintable(describe("largest-data", largest)));
            QVERIFY(value.reach.has_value());
            QVERIFY(!largest.reach || largest.reach->time > value.reach->time);
            QVERIFY(!largest.reach || largest.reach->energyJ > value.reach->energyJ);
            // The recruited set is fixed and small: at most 10 take part in any round.
            for (const auto& r : value.rec.records) QVERIFY(r.participants <= 10);
        }
    }

    // Preset 4 (AISTATS 2021): with phones arriving, leaving and returning partial work,
    // flexible FedAvg (incomplete work accepted) reaches 78% sooner than FedAvg that drops
    // the phones missing its deadline. (Unbiased vs plain weights: no clear difference.)
    void flexibleParticipation() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "flexible-participation.yaml";
        const std::vector<Override> shorter{{"stop", "{virtual_time_s: 100, target_accuracy: 0.78}"}};
        auto dropO = shorter;
        dropO.push_back({"sync", "{policy: fedavg, deadline_s: 3}"});
        // The paper's phones each have their own connection: the preset says
        // `link_sharing: private`, and the claim is about that setting. In one shared cell
        // per group the story changes (the lesson gives the figures).
        const Outcome flexible = runPreset(file, shorter, 0, 0.78);
        const Outcome drop = runPreset(file, dropO, 0, 0.78);
        qInfo("%s", qPrintable(describe("flexible (unbiased)", flexible)));
        qInfo("%s", qPrintable(describe("fedavg, deadline", drop)));
        QVERIFY(flexible.reach.has_value());
        QVERIFY(!drop.reach || drop.reach->time > flexible.reach->time);
        // The 8 late phones are away for the first 60 s: no round before then has more than
        // the other 22.
        for (const auto& r : flexible.rec.records)
            if (r.time < 60) QVERIFY(r.participants <= 22);
    }

    // Preset 5 (IWQoS 2023): time-dominant (1 s rounds), AdaCoOpt reaches 75% sooner than
    // Dynamic-T; cost-dominant (1,000 samples per step), No-straggler needs more energy to
    // reach 75% than AdaCoOpt. (No-straggler is fastest of all here: the emulator disagrees
    // with the paper on that point; see docs/lessons.md.) With the bound's constants given
    // (c 0.1, the others 1: lesson 5's second table), now that the default is a pilot
    // phase's estimates (issue 18; calibrated: adaCoOptCalibrated below,
    // test_planners_calibrated, docs/policies.md).
    void adaCoOpt() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "adacoopt-batch-interval.yaml";
        const Override toTarget{"stop", "{rounds: 30, target_accuracy: 0.75}"};
        const std::string given = ", c: 0.1, beta: 1, rho: 1, delta: 1, f0: 1}";
        const Outcome ada = runPreset(file, {toTarget, {"sync", "{policy: adacoopt, round_time_s: 1" + given}}, 0, 0.75);
        const Outcome dyn = runPreset(file, {toTarget, {"sync", "{policy: dynamic-t, round_time_s: 1" + given}}, 0, 0.75);
        qInfo("%s", qPrintable(describe("adacoopt, 1 s rounds", ada)));
        qInfo("%s", qPrintable(describe("dynamic-t, 1 s rounds", dyn)));
        QVERIFY(ada.reach.has_value());
        QVERIFY(!dyn.reach || dyn.reach->time > ada.reach->time);

        const Outcome adaCost = runPreset(file, {toTarget, {"sync", "{policy: adacoopt, batch_budget: 1000" + given}}, 0, 0.75);
        const Outcome noStraggler = runPreset(file, {toTarget, {"sync", "{policy: no-straggler, tau: 5}"}}, 0, 0.75);
        qInfo("%s, energy to target %.0f J", qPrintable(describe("adacoopt, budget 1000", adaCost)),
              adaCost.reach ? adaCost.reach->energyJ : kNaN);
        qInfo("%s, energy to target %.0f J", qPrintable(describe("no-straggler", noStraggler)),
              noStraggler.reach ? noStraggler.reach->energyJ : kNaN);
        QVERIFY(adaCost.reach && noStraggler.reach);
        QVERIFY(noStraggler.reach->energyJ > adaCost.reach->energyJ);
    }

    // Preset 5 as the file runs it now: the bound's constants left to the pilot phase (issue
    // 18). Time-dominant, AdaCoOpt still reaches 75% and Dynamic-T does not (or later); but
    // cost-dominant, calibrated AdaCoOpt needs more energy to reach 75% than No-straggler
    // (lesson 5: 481 J vs 397 J), the opposite of the paper and of the given constants above.
    void adaCoOptCalibrated() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "adacoopt-batch-interval.yaml";
        const Override toTarget{"stop", "{rounds: 30, target_accuracy: 0.75}"};
        const Outcome ada = runPreset(file, {toTarget, {"sync", "{policy: adacoopt, round_time_s: 1}"}}, 0, 0.75);
        const Outcome dyn = runPreset(file, {toTarget, {"sync", "{policy: dynamic-t, round_time_s: 1}"}}, 0, 0.75);
        qInfo("%s", qPrintable(describe("calibrated adacoopt, 1 s rounds", ada)));
        qInfo("%s", qPrintable(describe("calibrated dynamic-t, 1 s rounds", dyn)));
        QVERIFY(ada.reach.has_value());
        QVERIFY(!dyn.reach || dyn.reach->time > ada.reach->time);

        const Outcome adaCost = runPreset(file, {toTarget, {"sync", "{policy: adacoopt, batch_budget: 1000}"}}, 0, 0.75);
        const Outcome noStraggler = runPreset(file, {toTarget, {"sync", "{policy: no-straggler, tau: 5}"}}, 0, 0.75);
        qInfo("%s, energy to target %.0f J", qPrintable(describe("calibrated adacoopt, budget 1000", adaCost)),
              adaCost.reach ? adaCost.reach->energyJ : kNaN);
        qInfo("%s, energy to target %.0f J", qPrintable(describe("no-straggler", noStraggler)),
              noStraggler.reach ? noStraggler.reach->energyJ : kNaN);
        QVERIFY(adaCost.reach && noStraggler.reach);
        QVERIFY(adaCost.reach->energyJ > noStraggler.reach->energyJ);
    }

    // Preset 6 (Cloudless-Training): across three regions, ASGD-GA and model averaging
    // between regional servers reach 80% sooner and more cheaply than the synchronous
    // single-server baseline; MA moves fewer bytes.
    void geoDistributedCloudless() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const Outcome sync = runPreset("geo-three-regions.yaml", {}, 0, 0.8, "fully-sync");
        const Outcome ga = runPreset("geo-three-regions.yaml", {}, 0, 0.8, "asgd-ga");
        const Outcome ma = runPreset("geo-three-regions.yaml", {}, 0, 0.8, "regional-ma");
        qInfo("%s", qPrintable(describe("fully-sync", sync)));
        qInfo("%s", qPrintable(describe("async-ga", ga)));
        qInfo("%s", qPrintable(describe("model-averaging", ma)));
        QVERIFY(sync.reach && ga.reach && ma.reach);
        qInfo("speed-up to 80%%: async-ga %.2fx, MA %.2fx; cost saving: async-ga %.0f%%, MA %.0f%%",
              sync.reach->time / ga.reach->time, sync.reach->time / ma.reach->time,
              100 * (1 - ga.reach->cost / sync.reach->cost), 100 * (1 - ma.reach->cost / sync.reach->cost));
        QVERIFY(ga.reach->time < sync.reach->time);
        QVERIFY(ma.reach->time < sync.reach->time);
        QVERIFY(ga.reach->cost < sync.reach->cost);
        QVERIFY(ma.reach->cost < sync.reach->cost);
        QVERIFY(ma.summary.bytes < sync.summary.bytes);
    }

    // Preset 7 (HierFAVG): devices -> edges -> cloud reaches 75% in less virtual time and at
    // lower cost than flat FedAvg with the same phones talking to the cloud.
    void hierarchicalBeatsFlat() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        for (int repeat = 0; repeat < 2; ++repeat) {
            const Outcome tiers = runPreset("hierarchical-tiers.yaml", {}, repeat, 0.75);
            const Outcome flat = runPreset("hierarchical-tiers.yaml", {}, repeat, 0.75, "flat");
            qInfo("%s", qPrintable(describe("three-tier", tiers)));
            qInfo("%s", qPrintable(describe("flat", flat)));
            QVERIFY(tiers.reach && flat.reach);
            QVERIFY(tiers.reach->time < flat.reach->time);
            QVERIFY(tiers.reach->cost < flat.reach->cost);
            // Edge rounds happen between cloud rounds: tau2 of them per cloud round.
            QVERIFY(tiers.rec.level(1).size() >= tiers.rec.level(0).size() * 2);
        }
    }

    // Preset 10: four tiers with a policy per tier. Ending a region round at its first edge
    // (n-sync n = 1) is slower and dearer to 80% than waiting for all three, in both
    // repeats; selecting 3 of 4 phones per edge round spends less energy than all 4;
    // every tier reports its own level.
    void fourTiers() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        for (int repeat = 0; repeat < 2; ++repeat) {
            const Outcome base = runPreset("four-tier.yaml", {}, repeat, 0.80, "base");
            const Outcome first = runPreset("four-tier.yaml", {}, repeat, 0.80, "region-first-edge");
            qInfo("%s", qPrintable(describe("base", base)));
            qInfo("%s", qPrintable(describe("region-first-edge", first)));
            QVERIFY(base.reach && first.reach);
            QVERIFY(base.reach->time < first.reach->time);
            QVERIFY(base.reach->cost < first.reach->cost);
            QVERIFY(!base.rec.level(1).empty() && !base.rec.level(2).empty() && base.rec.level(3).empty());
            if (repeat > 0) continue;
            const Outcome all = runPreset("four-tier.yaml", {}, repeat, 0.80, "edge-all-phones");
            qInfo("%s", qPrintable(describe("edge-all-phones", all)));
            QVERIFY(all.reach);
            QVERIFY(base.reach->energyJ < all.reach->energyJ);
        }
    }

    // ---- the learning lessons (issue 25): shortened runs, seconds each -------------------

    // Preset 14 (SCAFFOLD, ICML 2020; FedProx, MLSys 2020): on Dirichlet 0.1 phones SCAFFOLD
    // ends above FedAvg, FedProx stays within 2 points of FedAvg, and SCAFFOLD's doubled
    // transfers move exactly twice the bytes and take longer on the 2 Mbit/s uplink.
    void clientDriftScaffold() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "client-drift-scaffold.yaml";
        const std::vector<Override> shorter{{"stop", "{rounds: 15}"}, {"evaluation.every_rounds", "5"}};
        const Outcome avg = runPreset(file, shorter, 0, 0.75, "fedavg");
        const Outcome prox = runPreset(file, shorter, 0, 0.75, "fedprox");
        const Outcome sc = runPreset(file, shorter, 0, 0.75, "scaffold");
        for (const auto* o : {&avg, &prox, &sc})
            qInfo("%s, %.1f MB", qPrintable(describe(o == &avg ? "fedavg" : o == &prox ? "fedprox" : "scaffold", *o)),
                  o->summary.bytes / 1e6);
        QCOMPARE(sc.summary.bytes, 2 * avg.summary.bytes);
        QVERIFY(sc.summary.virtualTime > avg.summary.virtualTime);
        QVERIFY(sc.summary.cost > avg.summary.cost);
        QVERIFY(sc.summary.finalTestAccuracy > avg.summary.finalTestAccuracy);
        QVERIFY(std::abs(prox.summary.finalTestAccuracy - avg.summary.finalTestAccuracy) < 0.02);
    }

    // Preset 15 (FedNova, NeurIPS 2020): with the flexible-participation deadlines cutting the
    // slow phones' steps, FedNova's normalised averaging is no better than FedAvg on the
    // partial work here: within 2 points at 60 s (the lesson: a tie over 150 s, against the
    // paper's gain), with the same rounds and bytes.
    void fedNovaDeadlines() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "fednova-deadlines.yaml";
        const std::vector<Override> shorter{{"stop", "{virtual_time_s: 60}"}, {"evaluation.every_rounds", "5"}};
        const Outcome nova = runPreset(file, shorter, 0, 0.75, "fednova");
        const Outcome partial = runPreset(file, shorter, 0, 0.75, "fedavg-partial");
        qInfo("%s", qPrintable(describe("fednova", nova)));
        qInfo("%s", qPrintable(describe("fedavg-partial", partial)));
        // The deadlines cut the slow phones' work: some rounds have unequal local steps.
        QVERIFY(nova.rec.count("partial-work") > 0);
        QCOMPARE(nova.summary.rounds, partial.summary.rounds);
        QCOMPARE(nova.summary.bytes, partial.summary.bytes);
        QVERIFY(std::abs(nova.summary.finalTestAccuracy - partial.summary.finalTestAccuracy) < 0.02);
    }

    // Preset 16 (QSGD, NeurIPS 2017; top-k with memory, NeurIPS 2018): over the Cloudless WAN
    // 8-bit quantisation both ways moves about a quarter of the bytes per round, runs more
    // rounds in the same time and does not end lower than float32; top-1% up moves about half
    // (the model comes down in floats) and ends below 8-bit (the lesson: below float32 too).
    void codecsOverTheWan() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "codecs-cloudless-wan.yaml";
        const std::vector<Override> shorter{{"stop", "{virtual_time_s: 10}"}, {"evaluation.every_rounds", "4"}};
        const Outcome plain = runPreset(file, shorter, 0, 0.75, "float32");
        const Outcome q8 = runPreset(file, shorter, 0, 0.75, "8-bit");
        const Outcome top = runPreset(file, shorter, 0, 0.75, "top-1%");
        for (const auto* o : {&plain, &q8, &top})
            qInfo("%s, %.1f MB", qPrintable(describe(o == &plain ? "float32" : o == &q8 ? "8-bit" : "top-1%", *o)),
                  o->summary.bytes / 1e6);
        // Bytes per round follow the encoded sizes: 8-bit moves about a quarter, top-1% up
        // about half (the model still comes down in floats).
        const double perRound = plain.summary.bytes / plain.summary.rounds;
        QVERIFY(q8.summary.bytes / q8.summary.rounds < 0.26 * perRound);
        QVERIFY(top.summary.bytes / top.summary.rounds < 0.52 * perRound);
        QVERIFY(q8.summary.rounds > plain.summary.rounds);
        QVERIFY(q8.summary.finalTestAccuracy > plain.summary.finalTestAccuracy - 0.01);
        QVERIFY(top.summary.finalTestAccuracy < q8.summary.finalTestAccuracy);
    }

    // Preset 17 (Reddi et al., ICLR 2021): on Dirichlet 0.3 phones FedAdam and FedYogi (server
    // learning rate 0.01) reach 78% in fewer rounds than FedAvg (repeat 0: within 24 rounds,
    // FedAvg not); the server step costs nothing on the wire.
    void serverOptimizers() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "server-optimizers.yaml";
        const std::vector<Override> shorter{{"stop", "{rounds: 24}"}};
        const Outcome avg = runPreset(file, shorter, 0, 0.78, "fedavg");
        const Outcome adam = runPreset(file, shorter, 0, 0.78, "fedadam");
        const Outcome yogi = runPreset(file, shorter, 0, 0.78, "fedyogi");
        for (const auto* o : {&avg, &adam, &yogi})
            qInfo("%s", qPrintable(describe(o == &avg ? "fedavg" : o == &adam ? "fedadam" : "fedyogi", *o)));
        // The server step costs nothing on the wire: the same bytes and virtual time.
        QCOMPARE(adam.summary.bytes, avg.summary.bytes);
        QCOMPARE(adam.summary.virtualTime, avg.summary.virtualTime);
        QVERIFY(adam.reach && yogi.reach);
        QVERIFY(!avg.reach || avg.reach->time > adam.reach->time);
        QVERIFY(!avg.reach || avg.reach->time > yogi.reach->time);
    }

    // Preset 18 (DP-FedAvg, ICLR 2018): every round's epsilon is the accountant's for
    // q = 100 / 500 and the variant's sigma; more noise spends less privacy and costs
    // accuracy: sigma 2 ends below no noise and reaches 75% later (12 rounds, 20,000 images).
    void dpEpsilonAgainstAccuracy() {
        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::string file = "dp-fedavg-epsilon.yaml";
        const std::vector<Override> shorter{{"stop", "{rounds: 12}"}, {"data.max_train_samples", "20000"}};
        struct Row {
            const char* variant;
            double sigma;
            Outcome o;
            double epsilon = 0;
        };
        std::vector<Row> rows{{"no-noise", 0.0, {}}, {"sigma-0.5", 0.5, {}}, {"sigma-2", 2.0, {}}};
        for (Row& r : rows) {
            r.o = runPreset(file, shorter, 0, 0.75, r.variant);
            int rounds = 0;
            for (const auto& e : r.o.rec.events) {
                if (e.kind != RunEventKind::Privacy) continue;
                ++rounds;
                char want[64];
                std::snprintf(want, sizeof want, "epsilon=%.6g ", rdpEpsilon(0.2, r.sigma, rounds, 1e-5));
                QVERIFY2(e.detail.rfind(want, 0) == 0, e.detail.c_str());
                r.epsilon = std::strtod(e.detail.c_str() + 8, nullptr);
            }
            QCOMPARE(rounds, 12);
            qInfo("%s, epsilon %.3g", qPrintable(describe(r.variant, r.o)), r.epsilon);
        }
        QVERIFY(std::isinf(rows[0].epsilon));
        QVERIFY(rows[2].epsilon < rows[1].epsilon);
        QVERIFY(rows[2].o.summary.finalTestAccuracy < rows[0].o.summary.finalTestAccuracy);
        QVERIFY(rows[0].o.reach && rows[2].o.reach);
        QVERIFY(rows[2].o.reach->time > rows[0].o.reach->time);
    }

    // Preset 8: 1,000 devices under 10 edge sites. The topology has that shape; every site
    // aggregates; selecting 4x more phones per site costs about 4x the energy and traffic
    // but barely changes accuracy. Since issue 12 a site's phones share one cell, so it also
    // costs time: the selected phones' models queue on the cell (3.4x the virtual time for
    // 4x the phones in the lesson's 40-round runs).
    void largeEdgeDeployment() {
        const Scenario s = loadScenarioFile(kPresets + "edge-1000-devices.yaml");
        const Topology topo(s.topology, s.seed);
        std::set<int> sites;
        int devices = 0;
        for (int t : topo.trainers()) {
            const Node& n = topo.node(t);
            if (n.spec.tier != Tier::Device) continue;
            ++devices;
            QVERIFY(n.aggregator >= 0);
            QCOMPARE(topo.node(n.aggregator).spec.tier, Tier::Edge);
            sites.insert(n.aggregator);
        }
        QVERIFY(devices >= 1000);
        QCOMPARE(sites.size(), std::size_t(10));

        if (!haveFashionMnist()) QSKIP("dataset-fashion-mnist is not installed");
        const std::vector<Override> shorter{{"stop", "{rounds: 16}"}, {"evaluation.every_rounds", "4"}};
        auto withK = [&](int k) {
            auto o = shorter;
            o.push_back({"selection.k", std::to_string(k)});
            return runPreset("edge-1000-devices.yaml", o, 0, 0.7);
        };
        const Outcome few = withK(5);
        const Outcome many = withK(20);
        qInfo("%s, energy %.0f J, %.0f MB", qPrintable(describe("k=5", few)), few.summary.energyJ,
              few.summary.bytes / 1e6);
        qInfo("%s, energy %.0f J, %.0f MB", qPrintable(describe("k=20", many)), many.summary.energyJ,
              many.summary.bytes / 1e6);
        std::set<std::string> aggregated;
        for (const auto& r : many.rec.level(1)) aggregated.insert(r.aggregator);
        QCOMPARE(aggregated.size(), std::size_t(10));
        QVERIFY(many.summary.energyJ > 3 * few.summary.energyJ);
        QVERIFY(many.summary.bytes > 3 * few.summary.bytes);
        QVERIFY(many.summary.virtualTime > 2 * few.summary.virtualTime);
        QVERIFY(few.summary.finalTestAccuracy > 0.7);
        QVERIFY(std::abs(many.summary.finalTestAccuracy - few.summary.finalTestAccuracy) < 0.03);
    }
};

QTEST_APPLESS_MAIN(TestPresets)
#include "test_presets.moc"
