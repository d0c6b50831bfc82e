// Trees of any depth with a policy per aggregator (core/policies/tiered.h): hand-computed
// round times for a three- and a four-level tree (timing only, noise none), with contention
// off and on, determinism across thread counts, the validator's reasons for trees a policy
// cannot use, and the levels in the records.

#include "engine_fixtures.h"
#include "scenario_problems.h"
#include "tier_trees.h"

#include "core/policies/policy_descriptor.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/schema.h"
#include "widgets/document/scenario_document.h"
#include "widgets/plots/live_plots.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/topology/property_inspector.h"

#include <QComboBox>
#include <QLineEdit>

#include <QtTest>

#include <cmath>
#include <string>

using namespace fog;
using namespace fogtest;

namespace {

// The tree of tier_trees.h, with the three levels' aggregate: maps.
std::string tree(const std::string& cloudAggregate, const std::string& regionAggregate,
                 const std::string& edgeAggregate, bool contention, int rounds = 4) {
    TierTree t;
    t.cloudAggregate = cloudAggregate;
    t.regionAggregate = regionAggregate;
    t.edgeAggregate = edgeAggregate;
    t.contention = contention;
    t.rounds = rounds;
    return tierTree(t);
}

} // namespace

class TestTiers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void threeLevelFedAvgHandComputed() {
        // Edges: FedAvg, 2 local steps, 2 rounds per cloud round; cloud: FedAvg of the edges.
        // edge-0 round: down 0.25 + 2 x 0.5 + up 0.25 = 1.5 s; edge-1: 0.25 + 2 + 0.25 = 2.5 s.
        // Cloud round k starts at s: edges hold the model at s + 0.11, edge-0 is back at
        // s + 0.11 + 3 + 0.11, edge-1 at s + 0.11 + 5 + 0.11 = s + 5.22: rounds of 5.22 s.
        const Scenario s =
            loadScenarioText(tree("", "", "{sync: fedavg, local_steps: 2, rounds: 2}", false), "tiers.yaml");
        Recorder rec;
        runScenario(s, rec);
        compareTimes(rec.level(0), {5.22, 10.44, 15.66, 20.88});
        // Level 1: edge-0 at 1.61, 3.11; edge-1 at 2.61, 5.11 (then again from 5.33).
        const auto edges = rec.level(1);
        QVERIFY(edges.size() >= 4);
        compareTimes({edges.begin(), edges.begin() + 4}, {1.61, 2.61, 3.11, 5.11});
        QCOMPARE(QString::fromStdString(edges[0].aggregator), QString("edge-0"));
        QCOMPARE(QString::fromStdString(edges[1].aggregator), QString("edge-1"));
        QCOMPARE(rec.level(0).front().participants, 2);
        QCOMPARE(QString::fromStdString(rec.level(0).front().aggregator), QString("cloud"));
        QCOMPARE(rec.level(2).size(), std::size_t(0));
    }

    void threeLevelFirstOfTwoAtTheCloud() {
        // n-sync n = 1 at the cloud: the first edge back closes the round, the other edge's
        // session is abandoned (its trainers' jobs cancelled) and both start again.
        // Round 1: edge-0 back at 0.11 + 3 + 0.11 = 3.22; then every 3.22 s.
        const Scenario s = loadScenarioText(
            tree("{sync: n-sync, n: 1}", "", "{sync: fedavg, local_steps: 2, rounds: 2}", false), "tiers.yaml");
        Recorder rec;
        runScenario(s, rec);
        compareTimes(rec.level(0), {3.22, 6.44, 9.66, 12.88});
        for (const auto& r : rec.level(0)) QCOMPARE(r.participants, 1);
        // edge-1 finishes its first round (2.61) in every session but never a second one.
        int edge1 = 0;
        for (const auto& r : rec.level(1)) edge1 += r.aggregator == "edge-1";
        QCOMPARE(edge1, 4);
    }

    void fourLevelHandComputed() {
        // cloud (FedAvg) -> region (n-sync n = 1, 2 rounds per cloud round) -> 2 edges
        // (FedAvg, 2 local steps, 2 rounds) -> 2 phones each. Region round: edges hold the
        // model 0.11 s after it starts, edge-0 is back after 0.11 + 3 + 0.11 = 3.22 s.
        // Cloud round: 0.11 down, 2 region rounds, 0.11 up = 6.66 s.
        const Scenario s = loadScenarioText(tree("{sync: fedavg}", "{sync: n-sync, n: 1, rounds: 2}",
                                                 "{sync: fedavg, local_steps: 2, rounds: 2}", false),
                                            "tiers.yaml");
        Recorder rec;
        runScenario(s, rec);
        compareTimes(rec.level(0), {6.66, 13.32, 19.98, 26.64});
        const auto regions = rec.level(1);
        QVERIFY(regions.size() >= 2);
        compareTimes({regions.begin(), regions.begin() + 2}, {3.33, 6.55});
        // Level 2: the edges, 0.22 + 1.5 k for edge-0 and 0.22 + 2.5 for edge-1 in the
        // first region round; from 3.44 in the second.
        const auto edges = rec.level(2);
        QVERIFY(edges.size() >= 6);
        compareTimes({edges.begin(), edges.begin() + 6}, {1.72, 2.72, 3.22, 4.94, 5.94, 6.44});
        QCOMPARE(QString::fromStdString(edges[1].aggregator), QString("edge-1"));
        QCOMPARE(rec.level(3).size(), std::size_t(0));
    }

    void threeLevelWithContention() {
        // Contention on: the two phones of a group share their group's link (one per parent
        // member), and so do the two edges. Both phones of a group download and upload at
        // once: 8 Mbit at 20 Mbit/s each = 0.4 s, + 50 ms. The edges download together (0.1 +
        // 0.01 at 40 Mbit/s each = 0.21 s) and upload apart (0.11 s).
        // edge-0 round: 0.45 + 1 + 0.45 = 1.9 s; edge-1: 0.45 + 2 + 0.45 = 2.9 s.
        // Cloud round: 0.21 + 2 x 2.9 + 0.11 = 6.12 s.
        const Scenario s =
            loadScenarioText(tree("", "", "{sync: fedavg, local_steps: 2, rounds: 2}", true), "tiers.yaml");
        Recorder rec;
        runScenario(s, rec);
        compareTimes(rec.level(0), {6.12, 12.24, 18.36, 24.48});
        const auto edges = rec.level(1);
        QVERIFY(edges.size() >= 4);
        compareTimes({edges.begin(), edges.begin() + 4}, {2.11, 3.11, 4.01, 6.01});
    }

    void sameRecordsAtOneAndTwoThreads_data() {
        QTest::addColumn<bool>("contention");
        QTest::newRow("ideal network") << false;
        QTest::newRow("contention") << true;
    }
    void sameRecordsAtOneAndTwoThreads() {
        QFETCH(bool, contention);
        // Random selection per aggregator and log-normal noise: still the same timeline.
        std::string y = tree("{sync: n-sync, n: 1}", "{sync: fedavg, selection: random-k, k: 1, rounds: 2}",
                             "{sync: fedavg, local_steps: 2, rounds: 2, selection: random-k, k: 1}", contention, 12);
        const std::string from = "compute: {throughput: 20}";
        y.replace(y.find(from), from.size(), "compute: {throughput: 20, noise: {kind: lognormal, sigma: 0.5}}");
        const Scenario s = loadScenarioText(y, "tiers.yaml");
        Recorder one, two;
        runScenario(s, one, 1);
        runScenario(s, two, 2);
        QCOMPARE(one.records.size(), two.records.size());
        QVERIFY(one.level(0).size() == 12);
        for (std::size_t i = 0; i < one.records.size(); ++i) {
            QCOMPARE(one.records[i].time, two.records[i].time);
            QCOMPARE(one.records[i].level, two.records[i].level);
            QCOMPARE(one.records[i].aggregator, two.records[i].aggregator);
            QCOMPARE(one.records[i].participants, two.records[i].participants);
        }
    }

    void levelTwoRecordsCarryLevelTwo() {
        // A level-2 aggregation carries level 2 and its aggregator's id.
        const Scenario s = loadScenarioText(
            tree("{sync: fedavg}", "{sync: fedavg}", "{sync: fully-sync}", false, 2), "tiers.yaml");
        Recorder rec;
        runScenario(s, rec);
        const auto two = rec.level(2);
        QVERIFY(!two.empty());
        QVERIFY(two.front().aggregator == "edge-0" || two.front().aggregator == "edge-1");
        for (const auto& r : rec.level(1)) QCOMPARE(QString::fromStdString(r.aggregator), QString("region"));
        QCOMPARE(rec.level(0).size(), std::size_t(2));
    }

    void refusesTreesItCannotUse_data() {
        QTest::addColumn<QString>("yaml");
        QTest::addColumn<QString>("expected");
        const std::string ok = "{sync: fedavg, local_steps: 2, rounds: 2}";
        QTest::newRow("per-level hierarchical")
            << QString::fromStdString(tree("", "", "{sync: hierarchical}", false))
            << "tiers.yaml:9:91: topology.groups[0].aggregate.sync sync policy hierarchical cannot run as one "
               "aggregator's policy (per-level policies: fully-sync, n-sync, fedavg)";
        QTest::newRow("default not per level")
            << QString::fromStdString(
                   [&] {
                       auto y = tree("", "", ok, false);
                       y.replace(y.find("sync: {policy: fedavg}"), 22, "sync: {policy: model-averaging}");
                       return y;
                   }())
            << "topology.nodes[0] aggregator 'cloud' runs the scenario's sync policy model-averaging, which cannot run "
               "as one aggregator's policy";
        QTest::newRow("gradient over mixed children")
            << QString::fromStdString([&] {
                   auto y = tree("{sync: fully-sync}", "", ok, false);
                   y.replace(y.find("parent: edge-1"), 14, "parent: cloud");
                   return y;
               }())
            << "aggregator 'cloud' runs its sync policy fully-sync, which steps with its trainers' gradients, but it "
               "has aggregator children too ('edge-0')";
        QTest::newRow("unknown parameter")
            << QString::fromStdString(tree("", "", "{sync: fedavg, tau1: 3}", false))
            << "tiers.yaml:9:105: topology.groups[0].aggregate.tau1 is not a parameter of sync policy fedavg nor of "
               "selection policy all (known: deadline_s)";
        QTest::newRow("parameter out of bounds")
            << QString::fromStdString(tree("", "", "{sync: n-sync, n: 0}", false))
            << "topology.groups[0].aggregate.n must be >= 1";
        QTest::newRow("ranking selection over aggregators")
            << QString::fromStdString(tree("{selection: fastest-k, k: 1}", "", ok, false))
            << "aggregator 'cloud' chooses among aggregators ('edge-0', ...) with selection policy fastest-k";
        QTest::newRow("aggregate on a trainer")
            << QString::fromStdString([&] {
                   auto y = tree("", "", ok, false);
                   y.replace(y.find("compute: {throughput: 10}"), 25, "compute: {throughput: 10}, aggregate: {}");
                   return y;
               }())
            << "topology.groups[2].aggregate is only for aggregators, but 'pb' has role trainer";
        QTest::newRow("two roots")
            << QString::fromStdString([&] {
                   auto y = tree("", "", ok, false);
                   y.replace(y.find("role: aggregator, parent: cloud"), 31, "role: aggregator");
                   return y;
               }())
            << "topology a tiered tree (some node declares aggregate:) needs exactly one root aggregator, found";
        QTest::newRow("rounds below 1")
            << QString::fromStdString(tree("", "", "{sync: fedavg, rounds: 0}", false))
            << "topology.groups[0].aggregate.rounds must be >= 1, got 0";
    }
    void refusesTreesItCannotUse() {
        QFETCH(QString, yaml);
        QFETCH(QString, expected);
        const QString problems = fogtest::problemsOf(yaml.toStdString(), "tiers.yaml");
        if (!problems.contains(expected))
            QFAIL(qPrintable("expected\n  " + expected + "\ngot\n" + problems));
    }

    void roundTripKeepsTheMaps() {
        const std::string y =
            tree("{sync: n-sync, n: 1, selection: random-k, k: 2}", "", "{sync: fedavg, deadline_s: 9, rounds: 3}", false);
        const Scenario a = loadScenarioText(y, "tiers.yaml");
        const Scenario b = loadScenarioText(saveScenarioText(a), "again.yaml");
        QVERIFY(sameScenario(a, b));
        QVERIFY(b.topology.nodes[0].aggregate.has_value());
        QCOMPARE(b.topology.nodes[0].aggregate->selection, std::string("random-k"));
        QCOMPARE(b.topology.nodes[0].aggregate->params.at("k"), 2.0);
        QCOMPARE(b.topology.nodes[1].aggregate->rounds, 3);
        QCOMPARE(b.topology.nodes[1].aggregate->params.at("deadline_s"), 9.0);
        Scenario c = b;
        c.topology.nodes[1].aggregate->params["deadline_s"] = 8;
        QVERIFY(!sameScenario(b, c));
    }

    void hierarchicalIsTheTwoLevelCase_data() {
        QTest::addColumn<bool>("contention");
        QTest::newRow("ideal network") << false;
        QTest::newRow("contention") << true;
    }
    void hierarchicalIsTheTwoLevelCase() {
        // hierarchical (tau1 = 2, tau2 = 2) and the tiered tree edges {fedavg, 2 local steps,
        // 2 rounds} under a FedAvg cloud aggregate at the same instants, but for the start:
        // hierarchical's edges hold the initial model at time 0, the tiered cloud sends it
        // down first (0.11 s alone; 0.21 s with contention, both edges on one shared link).
        QFETCH(bool, contention);
        const double shift = contention ? 0.21 : 0.11;
        std::string flat = tree("", "", "", contention, 6);
        flat.replace(flat.find("sync: {policy: fedavg}"), 22, "sync: {policy: hierarchical, tau1: 2, tau2: 2}");
        Recorder a, b;
        runScenario(loadScenarioText(flat, "hierarchical.yaml"), a);
        runScenario(loadScenarioText(tree("", "", "{sync: fedavg, local_steps: 2, rounds: 2}", contention, 6),
                                     "tiers.yaml"),
                    b);
        QCOMPARE(a.records.size(), b.records.size());
        for (std::size_t i = 0; i < a.records.size(); ++i) {
            QCOMPARE(a.records[i].level, b.records[i].level);
            QCOMPARE(a.records[i].aggregator, b.records[i].aggregator);
            QVERIFY(std::abs(a.records[i].time + shift - b.records[i].time) < 1e-9);
            QCOMPARE(a.records[i].bytes + 2e6, b.records[i].bytes); // the two initial models
        }
    }

    void inspectorEditsTheAggregation() {
        // The inspector shows an aggregator's own policy and writes what is edited into its
        // aggregate: map (one undo step each); a trainer has no such fields.
        ScenarioDocument doc;
        doc.setScenario(loadScenarioText(tree("", "", "{sync: fedavg, local_steps: 2, rounds: 2}", false), "tiers.yaml"));
        PropertyInspector inspector(&doc);
        inspector.setSelection({"edge"}, {});
        QVERIFY(inspector.isFieldVisible("aggregate"));
        QVERIFY(inspector.isFieldVisible("aggregate.sync"));
        auto* sync = qobject_cast<QComboBox*>(inspector.editor("aggregate.sync"));
        QVERIFY(sync);
        QCOMPARE(sync->currentText(), QString("fedavg"));
        QVERIFY(!sync->toolTip().isEmpty()); // the schema's help
        sync->setCurrentIndex(sync->findText("n-sync"));
        Q_EMIT sync->activated(sync->currentIndex());
        auto* params = qobject_cast<QLineEdit*>(inspector.editor("aggregate.params"));
        QVERIFY(params);
        params->setText("n=1");
        params->setModified(true);
        Q_EMIT params->editingFinished();
        const NodeSpec& edge = doc.scenario().topology.nodes[1];
        QVERIFY(edge.aggregate.has_value());
        QCOMPARE(edge.aggregate->sync, std::string("n-sync"));
        QCOMPARE(edge.aggregate->params.at("n"), 1.0);
        QCOMPARE(edge.aggregate->rounds, 2);
        inspector.setSelection({"pa"}, {});
        QVERIFY(!inspector.isFieldVisible("aggregate"));
        QVERIFY(!inspector.isFieldVisible("aggregate.sync"));
    }

    void plotsOfferEveryLevel() {
        // A four-level run: the level selector offers 0, 1 and 2, and level 2 adds the edges'
        // training losses to the loss plot.
        const Scenario s = loadScenarioText(tree("{sync: fedavg}", "{sync: fedavg}",
                                                 "{sync: fedavg, local_steps: 2, rounds: 2}", false, 2),
                                            "tiers.yaml");
        Recorder rec;
        runScenario(s, rec);
        LivePlots plots;
        plots.showRun("tiers", s, rec.records);
        QCOMPARE(plots.levels(), (std::vector<int>{0, 1, 2}));
        QComboBox* levels = nullptr;
        for (auto* c : plots.findChildren<QComboBox*>())
            if (c->toolTip().startsWith("Training loss of which aggregation level")) levels = c;
        QVERIFY(levels);
        QCOMPARE(levels->count(), 3);
        QCOMPARE(levels->itemData(2).toInt(), 2);
        int finite = 0;
        for (const auto& r : rec.level(2)) finite += std::isfinite(r.trainLoss);
        QVERIFY(finite > 0);
        plots.setShownLevel(2);
        QTRY_VERIFY([&] {
            QCustomPlot* loss = plots.plot(LivePlots::Panel::Loss);
            for (int i = 0; i < loss->graphCount(); ++i)
                if (loss->graph(i)->name() == "train, level 2")
                    return loss->graph(i)->dataCount() == finite;
            return false;
        }());
    }

    void untieredTreesUnchanged() {
        // Without aggregate: the scenario's policy runs alone, as before (test_golden checks
        // the presets bit for bit); the three-level tree relays to the cloud under fedavg.
        const Scenario s = loadScenarioText(tree("", "", "", false, 2), "tiers.yaml");
        Recorder rec;
        runScenario(s, rec);
        QCOMPARE(rec.level(1).size(), std::size_t(0));
        QCOMPARE(rec.level(0).size(), std::size_t(2));
        QCOMPARE(rec.level(0).front().participants, 4);
    }
};

QTEST_MAIN(TestTiers)
#include "test_tiers.moc"
