// docs/extending.md followed step by step (issue 24): its three code examples are compiled
// here as the guide gives them (tests/CMakeLists.txt writes its ```cpp blocks to
// guide_snippet_<n>.inc), with only what the guide tells the reader to write around them,
// and each is checked to do what the guide says: the sync policy's descriptor and typed
// parameters, the scenario key's entry (read, written, bounded, listed), the cluster
// scheduler's descriptor (run through an episode of the shipped cluster preset). The files
// the guide names exist, and its "What a change touches" table names files that exist.
// A change of the API the guide shows breaks this test's build, naming the guide's line.

#include "core/cluster/cluster_emulator.h"
#include "core/cluster/cluster_io.h"
#include "core/cluster/cluster_scheduler.h"
#include "core/engine/engine.h"
#include "core/policies/param_table.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/policy_params.h"
#include "core/policies/round_policy.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/schema_builder.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

// --- "Adding a sync policy", steps 1 and 2 ------------------------------------------------------

namespace fog::guide {

/// Step 1: the policy, written against core/policies/sync_policy.h: the first n gradients
/// of a round end it, their mean scaled by `scale` (the guide's parameters), saying only
/// what differs from RoundPolicy. Its constructor reads the settings of step 2.
class MySync : public RoundPolicy {
public:
    MySync(const PolicyParams& p, const SystemView& e);

protected:
    bool gradientMode() const override { return true; }
    std::size_t needed(std::size_t dispatched) const override {
        return std::min(static_cast<std::size_t>(n_), dispatched);
    }
    void aggregate(PolicyContext& e, std::vector<Contribution>& results) override {
        const auto& t = e.scenario().training;
        model_.applyGradient(meanUpdate(results), e.learningRate() * scale_, t.momentum, t.weightDecay);
    }

private:
    int n_ = 1;
    double scale_ = 1.0;
};

#include "guide_snippet_1.inc" // step 2: its parameters and descriptor, as the guide gives them

MySync::MySync(const PolicyParams& p, const SystemView& e) {
    const MySettings s = myParams().read(p);
    n_ = s.n;
    scale_ = s.scale;
    aggregator_ = singleRootAggregator(e, p.policy());
}

} // namespace fog::guide

// --- "Adding a scenario key", step 2 --------------------------------------------------------------

namespace fog::guide {

/// Step 1's value: `double clipNorm = 0.0` in TrainingSpec (a stand-in with that member, so
/// that the entry of step 2 is compiled as written, against the same builder).
struct Scenario {
    struct {
        double clipNorm = 0.0; ///< 0 = no clipping
    } training;
};

std::vector<SchemaField<Scenario>> clipNormTable() {
    using namespace fog::schema;
    Builder<Scenario> b;
#include "guide_snippet_2.inc"
    return b.fields;
}

} // namespace fog::guide

// --- "Adding a cluster scheduler", steps 1 and 2 --------------------------------------------------

namespace fog::cluster::guide {

/// Step 1: waiting tasks by remaining work, smallest first, each with its request on the
/// best-fitting server where it fits (the guide's summary).
class SmallestFirst : public ClusterScheduler {
public:
    std::string name() const override { return "smallest-first"; }
    Decision decide(const SchedulingView& v) override {
        Decision d;
        ResourcePool pool(v);
        std::vector<const TaskState*> queue = v.queue;
        std::stable_sort(queue.begin(), queue.end(),
                         [](const TaskState* a, const TaskState* b) { return a->remaining < b->remaining; });
        for (const TaskState* k : queue) {
            const TaskType& t = v.type(*k);
            const int server = pool.bestFit(t, t.request.cpus, t.request.gpus);
            if (server < 0) continue;
            pool.take(t, server, t.request.cpus, t.request.gpus);
            d.place.push_back({k->id, server, t.request.cpus, t.request.gpus});
        }
        return d;
    }
};

#include "guide_snippet_3.inc" // step 2: its descriptor

} // namespace fog::cluster::guide

namespace {

std::string readFile(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string guideText() {
    return readFile(std::filesystem::path(FOG_SOURCE_DIR) / "docs" / "extending.md");
}

} // namespace

class TestExtending : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void syncPolicyIsTheGuides() {
        using namespace fog;
        const SyncPolicyDescriptor& d = guide::mySyncPolicy();
        QCOMPARE(QString::fromStdString(d.info.name), QString("my-sync"));
        QVERIFY(!d.info.summary.empty());
        QVERIFY(d.info.shape == TreeShape::SingleServer);
        QVERIFY(d.make != nullptr);
        // Not a policy of FogStudio: the example's name is free (step 4: two with one name fail).
        QVERIFY(findSyncDescriptor(d.info.name) == nullptr);
        for (const auto* other : syncDescriptors()) QVERIFY2(other->order != d.order, other->info.name.c_str());
        // The parameters, declared once: defaults and bounds in the descriptor's list, and a
        // scenario's values read into the typed struct (a key not given keeps its default).
        QCOMPARE(int(d.info.params.size()), 2);
        QCOMPARE(QString::fromStdString(d.info.params[0].key), QString("n"));
        QVERIFY(d.info.params[0].integer);
        QCOMPARE(d.info.params[0].defaultValue, 2.0);
        QCOMPARE(d.info.params[0].min, 1.0);
        QCOMPARE(QString::fromStdString(d.info.params[1].key), QString("scale"));
        QCOMPARE(d.info.params[1].defaultValue, 1.0);
        QCOMPARE(d.info.params[1].max, 10.0);
        PolicySpec spec;
        spec.name = "my-sync";
        spec.params["n"] = 3;
        const guide::MySettings s = guide::myParams().read(PolicyParams(d.info, spec));
        QCOMPARE(s.n, 3);
        QCOMPARE(s.scale, 1.0);
        QVERIFY(d.stepsPerDispatch != nullptr);
        QCOMPARE(d.stepsPerDispatch(PolicyParams(d.info, spec)), 1);
        // Its barrier's count is n, read through the policy's own table: the key the table
        // declares, the scenario's value (and the default when none is given).
        QVERIFY(d.hasBarrier && d.barrier.kind == BarrierKind::FirstK && d.barrier.count);
        QCOMPARE(QString::fromStdString(d.barrier.count.key), QString("n"));
        QCOMPARE(d.barrier.count.read(PolicyParams(d.info, spec)), 3);
        spec.params.clear();
        QCOMPARE(d.barrier.count.read(PolicyParams(d.info, spec)), 2);
        QVERIFY(!d.level.usable && !d.level.first && !d.level.deadlineSeconds);
        // Its factory builds it from what a run shows of the system (a SystemView): here an
        // engine's, over a tree of one server and two trainers.
        const Scenario run = loadScenarioText(
            "data: {dataset: none, samples_per_trainer: 10}\nmodel: {kind: none}\nstop: {rounds: 1}\n"
            "topology:\n  nodes:\n    - {id: server, role: aggregator}\n    - {id: a, parent: server}\n"
            "    - {id: b, parent: server}\nsync: {policy: fully-sync}\n");
        Engine engine(run, {});
        const SystemView& view = engine.policyContext();
        QVERIFY(d.make(PolicyParams(d.info, spec), view) != nullptr);
    }

    void scenarioKeyIsTheGuides() {
        using namespace fog;
        const auto table = guide::clipNormTable();
        QCOMPARE(int(table.size()), 1);
        const auto& f = table.front();
        QCOMPARE(QString::fromStdString(f.path), QString("training.clip_norm"));
        QVERIFY(f.type == FieldType::Real);
        QVERIFY(f.min && f.min->value == 0.0 && f.min->inclusive); // atLeast(0)
        QVERIFY(!f.max);
        QVERIFY(!f.help.empty());
        // The entry reaches the value: what the reader, writer, --set and editors use.
        guide::Scenario s;
        QCOMPARE(std::get<double>(f.get(s)), 0.0);
        f.set(s, FieldValue(2.5));
        QCOMPARE(s.training.clipNorm, 2.5);
        QVERIFY(boundsProblem(fieldBounds(f), -1.0).find("must be >= 0") != std::string::npos);
        QVERIFY(boundsProblem(fieldBounds(f), 0.0).empty());
        QVERIFY(schema::markdownRow(f, f.get(guide::Scenario{}), "").find("`training.clip_norm`") != std::string::npos);
    }

    void clusterSchedulerIsTheGuides() {
        using namespace fog::cluster;
        const SchedulerInfo& d = guide::smallestFirstScheduler();
        QCOMPARE(QString::fromStdString(d.name), QString("smallest-first"));
        QVERIFY(!d.summary.empty());
        QVERIFY(findScheduler(d.name) == nullptr); // the example's name is free
        for (const auto& other : schedulerInfos()) QVERIFY2(other.order != d.order, other.name.c_str());
        QVERIFY(d.keys.empty() && !d.withPolicy);
        // Its scheduler runs an episode of the shipped cluster preset to the end.
        const ClusterScenario s = loadClusterScenarioFile(FOG_SOURCE_DIR "/presets/tapfinger-edge-cluster.yaml");
        auto scheduler = d.make(s);
        QVERIFY(scheduler);
        QCOMPARE(QString::fromStdString(scheduler->name()), QString::fromStdString(d.name));
        const ClusterResult r = runCluster(s, *scheduler, 1);
        QVERIFY2(r.summary.complete, r.summary.stopReason.c_str());
        QCOMPARE(r.summary.completed, r.summary.tasks);
        QVERIFY(r.summary.tasks > 0);
    }

    /// Every file the guide names exists (paths with a placeholder, `<name>`, are patterns).
    void namedFilesExist() {
        const std::string text = guideText();
        QVERIFY(!text.empty());
        static const std::regex path("`((core|widgets|app|tests|docs|presets)/[A-Za-z0-9_./]+\\.(h|cpp|cmake|md|yaml))");
        std::set<std::string> missing;
        int seen = 0;
        for (auto it = std::sregex_iterator(text.begin(), text.end(), path); it != std::sregex_iterator(); ++it) {
            ++seen;
            const std::string p = (*it)[1];
            if (!std::filesystem::exists(std::filesystem::path(FOG_SOURCE_DIR) / p)) missing.insert(p);
        }
        QVERIFY2(seen >= 20, "found too few file names in docs/extending.md");
        std::string list;
        for (const auto& m : missing) list += "\n  " + m;
        QVERIFY2(missing.empty(), ("docs/extending.md names files that do not exist:" + list).c_str());
    }

    /// Step 4 of "Adding a scenario key": the settings panel's line has the guide's form.
    void settingsPanelLineIsTheGuides() {
        const std::string guide = std::regex_replace(guideText(), std::regex("\\s+"), " "); // lines wrapped
        QVERIFY(guide.find("addKey(training, tr(\"Clip norm\"), \"training.clip_norm\", 3);") != std::string::npos);
        const std::string panel = readFile(std::filesystem::path(FOG_SOURCE_DIR) / "widgets/policy/settings_panel.cpp");
        static const std::regex line("addKey\\(training, tr\\(\"[^\"]+\"\\), \"training\\.[a-z_.]+\", [0-9]+\\);");
        QVERIFY2(std::regex_search(panel, line), "no addKey(training, tr(...), \"training.x\", n); in settings_panel.cpp");
    }
};

QTEST_GUILESS_MAIN(TestExtending)
#include "test_extending.moc"
