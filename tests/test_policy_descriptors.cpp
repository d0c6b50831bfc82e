// The policy descriptors (core/policies/policy_descriptor.h): complete and consistent, the
// defaults resolved once, and what each descriptor promises matches what its policy does
// (tree shapes, steps per dispatch, closed forms). Every test walks the whole list, so a
// new policy is checked without being named here.

#include "core/analysis/closed_form.h"
#include "core/engine/engine.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/sync_policy.h"
#include "core/scenario/scenario_io.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

using namespace fog;

namespace {

const char* kHead = "data: {dataset: none, samples_per_trainer: 100}\nmodel: {kind: none}\n"
                    "training: {batch_size: 1, local_steps: 3}\nstop: {rounds: 4}\n";

/// A tree that `shape` accepts, four trainers in all, exponential step times; regions are
/// joined by a WAN link (model averaging needs one) unless `wan` is false.
std::string treeFor(TreeShape shape, bool wan = true) {
    const std::string w = ", compute: {throughput: 10, noise: {kind: exponential}}}\n";
    switch (shape) {
    case TreeShape::SingleServer:
        return "topology:\n  nodes:\n    - {id: server, role: aggregator}\n"
               "    - {id: a, parent: server" +
               w + "    - {id: b, parent: server" + w + "    - {id: c, parent: server" + w +
               "    - {id: d, parent: server" + w;
    case TreeShape::EdgeGroups:
        return "topology:\n  nodes:\n    - {id: cloud, role: aggregator}\n"
               "    - {id: e1, role: aggregator, parent: cloud}\n    - {id: e2, role: aggregator, "
               "parent: cloud}\n"
               "    - {id: a, parent: e1" +
               w + "    - {id: b, parent: e1" + w + "    - {id: c, parent: e2" + w +
               "    - {id: d, parent: e2" + w;
    case TreeShape::Regions:
        return "topology:\n  nodes:\n    - {id: r1, role: aggregator}\n    - {id: r2, role: "
               "aggregator}\n"
               "    - {id: a, parent: r1" +
               w + "    - {id: b, parent: r1" + w + "    - {id: c, parent: r2" + w +
               "    - {id: d, parent: r2" + w +
               (wan ? "  links:\n    - {from: r1, to: r2, bandwidth_up_mbps: 100, bandwidth_down_mbps: 100, "
                      "latency_ms: 30}\n"
                    : "");
    }
    return {};
}

Scenario scenarioWith(const SyncPolicyDescriptor& d, const std::string& selection = "all") {
    return loadScenarioText(std::string(kHead) + treeFor(d.info.shape) + "sync: {policy: " +
                            d.info.name + "}\nselection: {policy: " + selection + "}\n");
}

struct RefSettings {
    int n = 0;
    double x = 0.0;
    int undeclared = 0;
};
const ParamTable<RefSettings>& refTable() {
    static const auto t = ParamTable<RefSettings>()
                              .integer("n", &RefSettings::n, 3, 1, "n help")
                              .real("x", &RefSettings::x, 0.5, 0.0, 1.0, "x help");
    return t;
}

/// A ParamRef of a descriptor reads its parameter as the policy does, and names the key the
/// policy's table declares for it: an integer one (or not), its value the default when the
/// scenario gives none and the scenario's otherwise.
template <typename T>
void checkRef(const SyncPolicyDescriptor& d, const ParamRef<T>& ref, bool integer, const char* what) {
    const std::string where = d.info.name + ": " + what;
    QVERIFY2(!ref.key.empty(), where.c_str());
    const auto& ps = d.info.params;
    const auto it = std::find_if(ps.begin(), ps.end(), [&](const PolicyParamInfo& p) { return p.key == ref.key; });
    QVERIFY2(it != ps.end() && it->integer == integer, where.c_str());
    PolicySpec spec;
    spec.name = d.info.name;
    QCOMPARE(double(ref.read(resolveSyncParams(spec))), it->defaultValue);
    const double other = it->defaultValue + 1 <= it->max ? it->defaultValue + 1 : it->min;
    spec.params[ref.key] = other;
    QCOMPARE(double(ref.read(resolveSyncParams(spec))), other);
}

/// Forwards to the engine's context and records what a policy asks for.
class RecordingContext final : public PolicyContext {
  public:
    explicit RecordingContext(PolicyContext& e) : e_(e) {}
    std::vector<DispatchRequest> dispatched;

    double now() const override { return e_.now(); }
    const Scenario& scenario() const override { return e_.scenario(); }
    const PolicyParams& syncParams() const override { return e_.syncParams(); }
    const PolicyParams& selectionParams() const override { return e_.selectionParams(); }
    const Topology& topology() const override { return e_.topology(); }
    const DataBundle& data() const override { return e_.data(); }
    bool trainsModel() const override { return e_.trainsModel(); }
    bool isOnline(int node) const override { return e_.isOnline(node); }
    bool isBusy(int node) const override { return e_.isBusy(node); }
    std::int64_t samplesOf(int trainer) const override { return e_.samplesOf(trainer); }
    std::vector<int> trainersOf(int aggregator) const override { return e_.trainersOf(aggregator); }
    int serverOf(int trainer) const override { return e_.serverOf(trainer); }
    int localStepsOf(int trainer) const override { return e_.localStepsOf(trainer); }
    double expectedComputeSeconds(int t, int steps, int batch) const override {
        return e_.expectedComputeSeconds(t, steps, batch);
    }
    double learningRate() const override { return e_.learningRate(); }
    ParamsPtr initialModel() const override { return e_.initialModel(); }
    double modelBytes() const override { return e_.modelBytes(); }
    int globalRound() const override { return e_.globalRound(); }
    bool stopped() const override { return e_.stopped(); }
    std::vector<int> selectTrainers(int aggregator, int round) override {
        return e_.selectTrainers(aggregator, round);
    }
    std::uint64_t dispatch(const DispatchRequest& r) override {
        dispatched.push_back(r);
        return e_.dispatch(r);
    }
    void cancelJob(std::uint64_t id) override { e_.cancelJob(id); }
    void send(int from, int to, double bytes, std::function<void()> delivered) override {
        e_.send(from, to, bytes, std::move(delivered));
    }
    TimerId at(double t, std::function<void()> fn) override { return e_.at(t, std::move(fn)); }
    void cancelTimer(TimerId id) override { e_.cancelTimer(id); }
    void reportAggregation(AggregationRecord r, const ParamsPtr& model) override {
        e_.reportAggregation(r, model);
    }
    void report(PolicyEvent kind, int node, const std::string& detail) override {
        e_.report(kind, node, detail);
    }

  private:
    PolicyContext& e_;
};

template <typename D>
void checkCommon(const std::vector<const D*>& list, const std::vector<PolicyInfo>& infos) {
    QVERIFY(!list.empty());
    QCOMPARE(infos.size(), list.size());
    std::set<std::string> names;
    std::set<int> orders;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const D& d = *list[i];
        const std::string& name = d.info.name;
        QVERIFY2(!name.empty() && names.insert(name).second, name.c_str());
        QVERIFY2(orders.insert(d.order).second, (name + ": two policies share one order").c_str());
        QVERIFY2(i == 0 || list[i - 1]->order < d.order, name.c_str());
        QVERIFY2(!d.info.summary.empty(), name.c_str());
        QVERIFY2(d.make != nullptr, name.c_str());
        QCOMPARE(infos[i].name, name); // the GUI's list is the descriptors', in order
        std::set<std::string> keys;
        for (const auto& p : d.info.params) {
            const std::string what = name + "." + p.key;
            QVERIFY2(keys.insert(p.key).second, what.c_str());
            QVERIFY2(p.min <= p.defaultValue && p.defaultValue <= p.max, what.c_str());
            QVERIFY2(!p.integer || p.defaultValue == std::floor(p.defaultValue), what.c_str());
            QVERIFY2(!p.help.empty(), what.c_str());
        }
    }
}

} // namespace

class TestPolicyDescriptors : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    /// A parameter table declares each parameter once (core/policies/param_table.h): the
    /// descriptor's list is made from it and a run's values are read into typed members; a
    /// live one is read again after a timed `policy` event changed it.
    void typedParametersComeFromOneTable() {
        struct S {
            int n = 0;
            double x = 0.0;
            bool on = false;
        };
        const auto t = ParamTable<S>()
                           .integer("n", &S::n, 3, 1, "n help")
                           .real("x", &S::x, 0.5, 0.0, 1.0, "x help")
                           .live()
                           .flag("on", &S::on, true, "on help");
        QCOMPARE(t.infos().size(), std::size_t(3));
        QVERIFY(t.infos()[0].integer && !t.infos()[0].live && t.infos()[0].max == 1e9);
        QVERIFY(!t.infos()[1].integer && t.infos()[1].live);
        QVERIFY(t.infos()[2].integer && t.infos()[2].defaultValue == 1 && t.infos()[2].max == 1);
        QCOMPARE(QString::fromStdString(t.infos()[1].help), QString("x help"));
        PolicyInfo info;
        info.name = "p";
        info.params = t.infos();
        PolicySpec spec;
        spec.name = "p";
        spec.params["n"] = 7;
        PolicyParams p(info, spec);
        const S s = t.read(p);
        QCOMPARE(s.n, 7);
        QCOMPARE(s.x, 0.5);
        QVERIFY(s.on);
        const LiveParams<S> live(t);
        QCOMPARE(live.of(p).x, 0.5);
        p.set("x", 0.25); // what a timed `policy` event does
        QCOMPARE(live.of(p).x, 0.25);
        p.set("on", 0);
        QVERIFY(!live.of(p).on);
        QCOMPARE(live.of(p).n, 7);
        // What another file reads of one parameter: the policy's typed read and its key.
        QCOMPARE(QString::fromStdString(refTable().keyOf(&RefSettings::x)), QString("x"));
        QVERIFY_EXCEPTION_THROWN(refTable().keyOf(&RefSettings::undeclared), std::logic_error);
        const ParamRef<int> n = paramRef<refTable, &RefSettings::n>();
        const ParamRef<double> x = paramRef<refTable, &RefSettings::x>();
        QVERIFY(n && x && !ParamRef<int>());
        QCOMPARE(QString::fromStdString(n.key), QString("n"));
        PolicyInfo refInfo;
        refInfo.name = "r";
        refInfo.params = refTable().infos();
        PolicySpec refSpec;
        refSpec.name = "r";
        refSpec.params["x"] = 0.75;
        QCOMPARE(n.read(PolicyParams(refInfo, refSpec)), 3);
        QCOMPARE(x.read(PolicyParams(refInfo, refSpec)), 0.75);
    }

    /// Only the descriptor's flag says a policy averages asynchronously (no file reads the
    /// parameter's name): on for async_averaging 1 of the policies that have it.
    void asyncAveragingIsTheDescriptorsFlag() {
        int flagged = 0;
        for (const auto* d : syncDescriptors()) {
            if (!d->asyncAveraging) continue;
            ++flagged;
            PolicySpec spec;
            spec.name = d->info.name;
            QVERIFY2(!d->asyncAveraging(resolveSyncParams(spec)), d->info.name.c_str());
            spec.params["async_averaging"] = 1;
            QVERIFY2(d->asyncAveraging(resolveSyncParams(spec)), d->info.name.c_str());
        }
        QCOMPARE(flagged, 2); // model-averaging and async-ga
    }

    /// The policies whose rounds end at a deadline say so in their descriptor (the testbed
    /// plays it; no file reads the parameter's name): fedavg, fedprox and scaffold.
    void roundDeadlinesAreTheDescriptors() {
        std::vector<std::string> names;
        for (const auto* d : syncDescriptors())
            if (d->roundDeadline) names.push_back(d->info.name);
        QCOMPARE(names, (std::vector<std::string>{"fedavg", "fedprox", "scaffold"}));
    }

    void everyDescriptorIsComplete() {
        checkCommon(syncDescriptors(), syncPolicyInfos());
        checkCommon(selectionDescriptors(), selectionPolicyInfos());
        for (const auto* d : syncDescriptors()) {
            QCOMPARE(findSyncPolicy(d->info.name), &d->info);
            QCOMPARE(findSyncDescriptor(d->info.name), d);
            // A barrier that ends at a count (first k, first m) reads it from the policy's own
            // typed parameters; so do the tiers' first-n and deadline.
            const bool counted = d->hasBarrier && d->barrier.kind != BarrierKind::FullySync;
            QVERIFY2(bool(d->barrier.count) == counted, (d->info.name + ": the barrier's count").c_str());
            if (counted) checkRef(*d, d->barrier.count, true, "the barrier's count");
            QVERIFY2(d->level.usable || (!d->level.first && !d->level.deadlineSeconds), d->info.name.c_str());
            if (d->level.first) checkRef(*d, d->level.first, true, "the level's first n");
            if (d->level.deadlineSeconds) checkRef(*d, d->level.deadlineSeconds, false, "the level's deadline");
            if (d->roundDeadline) checkRef(*d, d->roundDeadline, false, "the rounds' deadline");
            // A tier's deadline is the policy's own rounds' deadline.
            if (d->level.deadlineSeconds)
                QVERIFY2(d->roundDeadline && d->roundDeadline.key == d->level.deadlineSeconds.key, d->info.name.c_str());
        }
        for (const auto* d : selectionDescriptors())
            QCOMPARE(findSelectionPolicy(d->info.name), &d->info);
        QVERIFY(!findSyncDescriptor("no-such-policy"));
        QVERIFY(!barrierSyncNames().empty());
    }

    void parametersResolveOnceWithTheDescriptorsDefaults() {
        for (const auto* d : syncDescriptors()) {
            if (d->info.params.empty()) continue;
            const PolicyParamInfo& first = d->info.params.front();
            PolicySpec spec;
            spec.name = d->info.name;
            spec.params[first.key] = first.max < 1e9 ? first.max : first.min + 1;
            spec.params["not_a_parameter"] = 5; // ignored here, refused by the validator
            const PolicyParams p = resolveSyncParams(spec);
            QCOMPARE(p.policy(), d->info.name);
            QCOMPARE(p.get(first.key), spec.params[first.key]);
            QVERIFY(p.given(first.key));
            QVERIFY(!p.declares("not_a_parameter"));
            QVERIFY_THROWS_EXCEPTION(std::logic_error, p.get("not_a_parameter"));
            for (const auto& q : d->info.params)
                if (q.key != first.key) {
                    QCOMPARE(p.get(q.key), q.defaultValue);
                    QVERIFY(!p.given(q.key));
                }
        }
        PolicySpec unknown;
        unknown.name = "fedavgg";
        try {
            resolveSyncParams(unknown);
            QFAIL("an unknown policy resolved");
        } catch (const EngineError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("unknown sync policy 'fedavgg' (known: ") == 0, what.c_str());
            QVERIFY2(what.find(syncDescriptors().front()->info.name) != std::string::npos,
                     what.c_str());
        }
    }

    void everySyncPolicyRunsOnATreeItsShapeAccepts_data() {
        QTest::addColumn<QString>("name");
        for (const auto* d : syncDescriptors())
            QTest::newRow(d->info.name.c_str()) << QString::fromStdString(d->info.name);
    }
    void everySyncPolicyRunsOnATreeItsShapeAccepts() {
        QFETCH(QString, name);
        const SyncPolicyDescriptor& d = *findSyncDescriptor(name.toStdString());
        const Scenario s = scenarioWith(d); // throws ScenarioError if the validator refuses it
        Engine e(s, {});
        const RunSummary r = e.run();
        QVERIFY2(r.status == RunStatus::Finished, r.stopReason.c_str());
        QVERIFY(r.rounds >= 1);
    }

    void treesOfOtherShapesAreRefusedWithTheShapesMessage_data() {
        QTest::addColumn<QString>("name");
        for (const auto* d : syncDescriptors())
            QTest::newRow(d->info.name.c_str()) << QString::fromStdString(d->info.name);
    }
    void treesOfOtherShapesAreRefusedWithTheShapesMessage() {
        QFETCH(QString, name);
        const SyncPolicyDescriptor& d = *findSyncDescriptor(name.toStdString());
        PolicyTreeFacts accepted, refused;
        std::string expected, validatorSays;
        switch (d.info.shape) {
        case TreeShape::SingleServer:
            accepted.roots = {"server"};
            refused.roots = {"r1", "r2"};
            expected = " needs exactly one root aggregator";
            if (d.serverPerRoot) {
                // Several roots are several regional servers (async-ga, issue 18): accepted;
                // what it refuses is no root, and the validator regions joined by no link.
                QCOMPARE(refuseTree(d, refused), std::string());
                refused.roots.clear();
                expected = " needs a root aggregator";
                validatorSays = " with several root aggregators exchanges models between the regional servers "
                                "'r1' and 'r2' over the WAN, but no link joins them";
            }
            break;
        case TreeShape::EdgeGroups:
            accepted.roots = {"cloud"};
            accepted.nested = true;
            refused.roots = {"cloud"};
            expected = " needs an aggregator below another aggregator";
            break;
        case TreeShape::Regions:
            accepted.roots = {"r1", "r2"};
            refused.roots = {"r1"};
            expected = " needs at least 2 root aggregators";
            break;
        }
        QCOMPARE(refuseTree(d, accepted), std::string());
        const std::string why = refuseTree(d, refused);
        QVERIFY2(why.rfind(d.info.name + expected, 0) == 0, why.c_str());
        // And the validator says it at sync.policy, with the file's line.
        const std::string other = d.info.shape == TreeShape::Regions
                                      ? treeFor(TreeShape::SingleServer)
                                      : treeFor(TreeShape::Regions, false);
        try {
            loadScenarioText(std::string(kHead) + other + "sync: {policy: " + d.info.name + "}\n");
            QFAIL("the validator accepted a tree the policy refuses");
        } catch (const ScenarioError& e) {
            QString all;
            for (const auto& x : e.diagnostics)
                all += QString::fromStdString(x.format()) + "\n";
            QVERIFY2(all.contains(QString::fromStdString("sync.policy " + d.info.name +
                                                         (validatorSays.empty() ? expected : validatorSays))),
                     qPrintable(all));
        }
    }

    /// What selection estimates assume a dispatch runs is what the policy dispatches.
    void stepsPerDispatchIsWhatThePolicyDispatches_data() {
        QTest::addColumn<QString>("name");
        for (const auto* d : syncDescriptors())
            if (d->stepsPerDispatch)
                QTest::newRow(d->info.name.c_str()) << QString::fromStdString(d->info.name);
    }
    void stepsPerDispatchIsWhatThePolicyDispatches() {
        QFETCH(QString, name);
        const SyncPolicyDescriptor& d = *findSyncDescriptor(name.toStdString());
        const Scenario s = scenarioWith(d);
        Engine e(s, {});
        RecordingContext rec(e.policyContext());
        auto policy = makeSyncPolicy(s.sync, rec);
        policy->start(rec);
        QVERIFY(!rec.dispatched.empty());
        for (const auto& r : rec.dispatched) {
            QCOMPARE(r.steps, d.stepsPerDispatch(e.policyContext().syncParams()));
            QCOMPARE(r.steps, stepsPerDispatch(e, r.trainer));
        }
    }

    /// A barrier policy with a uniform selection has its closed form; the others do not.
    void theClosedFormFollowsTheDescriptors() {
        for (const auto* d : syncDescriptors()) {
            if (d->info.shape != TreeShape::SingleServer) continue;
            Scenario s = scenarioWith(*d);
            s.training.localSteps = 1;
            const auto c = closedFormRoundTime(s);
            QVERIFY2(c.applies == d->hasBarrier, (d->info.name + ": " + c.why).c_str());
            if (!d->hasBarrier)
                QCOMPARE(c.why, "no closed form for the " + d->info.name + " policy");
        }
        const SyncPolicyDescriptor* barrier = nullptr;
        for (const auto* d : syncDescriptors())
            if (d->hasBarrier && !barrier) barrier = d;
        QVERIFY(barrier);
        for (const auto* sel : selectionDescriptors()) {
            Scenario s = scenarioWith(*barrier, sel->info.name);
            s.training.localSteps = 1;
            const auto c = closedFormRoundTime(s);
            QVERIFY2(c.applies == sel->uniform, (sel->info.name + ": " + c.why).c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestPolicyDescriptors)
#include "test_policy_descriptors.moc"
