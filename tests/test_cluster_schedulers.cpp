// Every cluster scheduler's descriptor, walked without naming one (issue 24): a new
// scheduler is its file (core/cluster/sched_<name>.cpp, FOG_CLUSTER_SCHEDULER) and its own
// test; this one checks what the rest of FogStudio relies on. Unique names and orders, a
// summary, a scheduler that runs the preset to the end and says its own name, the section
// keys it declares read and written back, and refused for every other scheduler.

#include "core/cluster/cluster_io.h"
#include "core/cluster/learned_scheduler.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/yaml_reader.h"

#include <QtTest>

#include <set>

using namespace fog;
using namespace fog::cluster;

namespace {

const std::string kPreset = std::string(FOG_SOURCE_DIR) + "/presets/tapfinger-edge-cluster.yaml";

/// The scheduler a descriptor makes for the preset: with an untrained policy when it is run
/// by a policy network (the preset names no trained one).
std::unique_ptr<ClusterScheduler> make(const SchedulerInfo& i, const ClusterScenario& s) {
    if (i.withPolicy) return i.withPolicy(std::make_shared<ClusterPolicy>(static_cast<int>(s.clusters.size()), 3), s);
    return i.make(s);
}

/// A value of each section key the reader knows, as YAML.
const std::map<std::string, std::string> kKeyValues = {{"policy", "p.pt"}, {"thresholds", "[3, 9]"}};

} // namespace

class TestClusterSchedulers : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void descriptors() {
        const auto& infos = schedulerInfos();
        QVERIFY(infos.size() >= 7);
        std::set<std::string> names;
        std::set<int> orders;
        for (const auto& i : infos) {
            QVERIFY2(!i.name.empty() && i.summary.size() > 20, i.name.c_str());
            QVERIFY2(names.insert(i.name).second, ("two schedulers named " + i.name).c_str());
            QVERIFY2(orders.insert(i.order).second, ("two schedulers at order " + std::to_string(i.order)).c_str());
            QVERIFY2(static_cast<bool>(i.make), i.name.c_str());
            QCOMPARE(findScheduler(i.name), &i);
            for (const auto& k : i.keys) QVERIFY2(kKeyValues.count(k), (i.name + " declares a key the reader does not know: " + k).c_str());
        }
        for (std::size_t k = 1; k < infos.size(); ++k) QVERIFY(infos[k - 1].order < infos[k].order);
        QCOMPARE(findScheduler("no-such-scheduler"), nullptr);
    }

    void eachRunsThePreset_data() {
        QTest::addColumn<QString>("name");
        for (const auto& i : schedulerInfos()) QTest::newRow(i.name.c_str()) << QString::fromStdString(i.name);
    }
    void eachRunsThePreset() {
        QFETCH(QString, name);
        const SchedulerInfo& i = *findScheduler(name.toStdString());
        const ClusterScenario s = loadClusterScenarioFile(kPreset);
        const auto sched = make(i, s);
        QCOMPARE(QString::fromStdString(sched->name()), name);
        const ClusterResult r = runCluster(s, *sched, 1);
        QVERIFY2(r.summary.complete, r.summary.stopReason.c_str());
        QCOMPARE(r.summary.completed, s.arrivals.tasks);
    }

    /// A key of the scheduler section: read and written back for the schedulers that declare
    /// it, refused for the others with the names of those that use it.
    void sectionKeys_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("key");
        for (const auto& i : schedulerInfos())
            for (const auto& [key, value] : kKeyValues)
                QTest::newRow((i.name + " " + key).c_str()) << QString::fromStdString(i.name) << QString::fromStdString(key);
    }
    void sectionKeys() {
        QFETCH(QString, name);
        QFETCH(QString, key);
        const SchedulerInfo& i = *findScheduler(name.toStdString());
        const std::string k = key.toStdString();
        // The whole section replaced (the preset's own has keys of its scheduler), then the key.
        const std::vector<Override> sets = {parseOverride("scheduler={name: " + i.name + "}"),
                                            parseOverride("scheduler." + k + "=" + kKeyValues.at(k))};
        if (i.uses(k)) {
            ClusterScenario s;
            try {
                s = loadClusterScenarioFile(kPreset, sets);
            } catch (const ScenarioError& e) {
                // A policy file that does not exist is the only refusal expected here.
                QVERIFY2(k == "policy" && std::string(e.what()).find("p.pt") != std::string::npos, e.what());
                return;
            }
            const std::string saved = saveClusterScenarioText(s);
            QVERIFY2(saved.find(k + ":") != std::string::npos, saved.c_str());
        } else {
            try {
                loadClusterScenarioFile(kPreset, sets);
                QFAIL("accepted a key the scheduler does not read");
            } catch (const ScenarioError& e) {
                const std::string users = joinNames(schedulersUsing(k));
                QVERIFY2(std::string(e.what()).find("scheduler." + k + " is only used with name: " + users + ", not " + i.name) !=
                             std::string::npos,
                         e.what());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestClusterSchedulers)
#include "test_cluster_schedulers.moc"
