// Goal seeking (core/seek) against brute force on small grids, its parsing and scoring,
// sweep resume and the MPI wire format, and a real mpirun sweep when MPI is there.

#include "core/seek/seek.h"
#include "core/seek/trials.h"
#include "core/store/run_store.h"
#include "core/sweep/captured_run.h"
#include "core/sweep/sweep.h"
#include "widgets/seek/seek_dialog.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>
#include <unistd.h>

using namespace fog;

namespace {

// Real training, small: synthetic data, logistic regression, a server and 8 trainers of
// different speeds and prices. More trainers per round reach the target in fewer rounds
// but cost more per round; the learning rate moves the optimum: a landscape with an
// interior optimum, each run a few tens of milliseconds.
const char* kLearning = R"(schema_version: 1
name: seek-test
seed: 11
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 2.0}
  groups:
    - id: w
      count: 8
      tier: edge
      role: trainer
      parent: server
      compute: {throughput: {min: 50, max: 200}, noise: {kind: exponential}}
      price_per_hour: {min: 0.5, max: 3.0}
data:
  dataset: synthetic
  synthetic: {alpha: 0.5, beta: 0.5, iid: true, features: 20, classes: 5}
model: {kind: logreg}
training: {learning_rate: 0.05, batch_size: 10, local_steps: 5}
sync: {policy: fully-sync}
selection: {policy: random-k, k: 4}
stop: {rounds: 40}
evaluation: {every_rounds: 2}
)";

// Timing only (no data, no model): cost and time depend on the policy and the selection.
const char* kTiming = R"(schema_version: 1
name: seek-timing
seed: 3
topology:
  nodes:
    - {id: server, tier: cloud, role: aggregator, price_per_hour: 1.0}
  groups:
    - id: w
      count: 10
      tier: cloud
      role: trainer
      parent: server
      compute: {throughput: 5, noise: {kind: exponential}}
      price_per_hour: 0.5
data: {dataset: none, samples_per_trainer: 50}
model: {kind: none, wire_bytes: 1000}
training: {batch_size: 1, local_steps: 1}
sync: {policy: fully-sync}
selection: {policy: random-k, k: 2}
stop: {rounds: 27}
)";

QString writeFile(QTemporaryDir& dir, const QString& name, const char* text) {
    const QString path = dir.filePath(name);
    std::ofstream(path.toStdString()) << text;
    return path;
}

SeekSpec learningSpec(const QString& file) {
    SeekSpec s;
    s.file = file.toStdString();
    s.objective = parseObjective("min:cost");
    s.constraints.push_back(parseConstraint("accuracy>=0.6"));
    s.params.push_back(parseParam("selection.k=int:1..8"));
    s.params.push_back(parseParam("training.learning_rate=choice:0.01,0.05,0.2"));
    s.repeats = 2;
    s.parallel = 2;
    return s;
}

const SeekConfig& bestOf(const SeekResult& r) {
    Q_ASSERT(r.best >= 0);
    return r.configs[static_cast<std::size_t>(r.best)];
}

} // namespace

class TestSeek : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesObjectivesConstraintsParams_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::newRow("min cost") << "objective" << "min:cost" << true;
        QTest::newRow("max accuracy") << "objective" << "max:accuracy" << true;
        QTest::newRow("max cost") << "objective" << "max:cost" << false;
        QTest::newRow("min accuracy") << "objective" << "min:accuracy" << false;
        QTest::newRow("no direction") << "objective" << "cost" << false;
        QTest::newRow("unknown metric") << "objective" << "min:money" << false;
        QTest::newRow("accuracy deadline") << "constraint" << "accuracy>=0.8@600" << true;
        QTest::newRow("deadline minutes") << "constraint" << "accuracy>=0.8@10min" << true;
        QTest::newRow("budget") << "constraint" << "cost<=5" << true;
        QTest::newRow("time hours") << "constraint" << "time<=2h" << true;
        QTest::newRow("accuracy above 1") << "constraint" << "accuracy>=80" << false;
        QTest::newRow("cost at least") << "constraint" << "cost>=5" << false;
        QTest::newRow("deadline on cost") << "constraint" << "cost<=5@600" << false;
        QTest::newRow("no operator") << "constraint" << "cost=5" << false;
        QTest::newRow("not a number") << "constraint" << "cost<=five" << false;
        QTest::newRow("int") << "param" << "selection.k=int:2..20" << true;
        QTest::newRow("int step") << "param" << "selection.k=int:2..20:2" << true;
        QTest::newRow("real") << "param" << "training.learning_rate=real:0.001..0.1" << true;
        QTest::newRow("log") << "param" << "training.learning_rate=log:0.001..0.1" << true;
        QTest::newRow("choice braces") << "param" << "sync={policy: n-sync, n: 4},{policy: fully-sync}" << false;
        QTest::newRow("choice") << "param" << "sync={policy: fully-sync}" << false;
        QTest::newRow("choice ok") << "param" << "sync=choice:{policy: n-sync, n: 4},{policy: fully-sync}" << true;
        QTest::newRow("one choice") << "param" << "sync.policy=choice:fedavg" << false;
        QTest::newRow("reversed") << "param" << "selection.k=int:20..2" << false;
        QTest::newRow("fractional int") << "param" << "selection.k=int:1.5..4" << false;
        QTest::newRow("log from zero") << "param" << "training.learning_rate=log:0..1" << false;
        QTest::newRow("unknown kind") << "param" << "selection.k=float:1..4" << false;
        QTest::newRow("no key") << "param" << "=int:1..4" << false;
    }
    void parsesObjectivesConstraintsParams() {
        QFETCH(QString, kind);
        QFETCH(QString, text);
        QFETCH(bool, ok);
        bool parsed = true;
        QString message;
        try {
            if (kind == "objective") parseObjective(text.toStdString());
            else if (kind == "constraint") parseConstraint(text.toStdString());
            else parseParam(text.toStdString());
        } catch (const ScenarioError& e) {
            parsed = false;
            message = e.what();
        }
        QCOMPARE(parsed, ok);
        if (!ok) QVERIFY2(message.contains("--" + kind), qPrintable(message)); // names the option
    }

    void paramLevels() {
        const SeekParam p = parseParam("selection.k=int:2..9:3");
        QCOMPARE(p.levels(), std::size_t(3));
        QCOMPARE(QString::fromStdString(p.level(2)), QString("8"));
        const SeekConstraint c = parseConstraint("accuracy>=0.8@10min");
        QCOMPARE(c.deadline, 600.0);
    }

    void scoresAtTheTargetAndByTheDeadline() {
        std::vector<AggregationRecord> recs;
        auto add = [&](double t, double cost, double acc) {
            AggregationRecord r;
            r.time = t, r.cost = cost, r.testAccuracy = acc;
            recs.push_back(r);
        };
        add(10, 1, 0.5);
        add(20, 2, kNaN);
        add(30, 3, 0.81);
        add(40, 4, 0.9);
        RunSummary sum;
        const auto obj = parseObjective("min:cost");
        TrialScore s = scoreTrial(recs, sum, obj, {parseConstraint("accuracy>=0.8@35")});
        QVERIFY(s.feasible);
        QCOMPARE(s.objective, 3.0); // cost when the target is first reached
        s = scoreTrial(recs, sum, obj, {parseConstraint("accuracy>=0.8@25")});
        QVERIFY(!s.feasible); // too late
        QVERIFY(s.violation > 0);
        s = scoreTrial(recs, sum, obj, {parseConstraint("accuracy>=0.8"), parseConstraint("cost<=2.5")});
        QVERIFY(!s.feasible); // reached, but over budget there
        // Max accuracy within a budget: the best evaluated accuracy before the budget ran out.
        s = scoreTrial(recs, sum, parseObjective("max:accuracy"), {parseConstraint("cost<=3.5")});
        QVERIFY(s.feasible);
        QCOMPARE(s.objective, 0.81);
        // Less violation ranks first among infeasible trials.
        const TrialScore a = scoreTrial(recs, sum, obj, {parseConstraint("accuracy>=0.95")});
        const TrialScore b = scoreTrial(recs, sum, obj, {parseConstraint("accuracy>=0.99")});
        QVERIFY(a.violation < b.violation);
    }

    // The search's best configuration is brute force's, or inside the CI of brute force's
    // best, with fewer runs; the ratio goes to the log (docs/runs.md has the CLI figures).
    void findsTheBruteForceOptimum() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "learning.yaml", kLearning);
        RunStore store(dir.filePath("runs.db").toStdString());
        SeekSpec brute = learningSpec(file);
        brute.bruteForce = true;
        const SeekResult b = runSeek(brute, store);
        QCOMPARE(b.gridSize, 24);
        QCOMPARE(b.runs, 48);
        QVERIFY2(b.best >= 0, "the grid has feasible configurations");
        const SeekResult s = runSeek(learningSpec(file), store);
        QVERIFY(s.best >= 0);
        const SeekConfig& bb = bestOf(b);
        const SeekConfig& sb = bestOf(s);
        // The same configuration measured by brute force at the full budget.
        const SeekConfig* same = nullptr;
        for (const auto& c : b.configs)
            if (c.label == sb.label) same = &c;
        QVERIFY(same);
        QVERIFY(same->feasible);
        const double hw = std::isnan(bb.objective.halfWidth) ? 0.0 : bb.objective.halfWidth;
        QVERIFY2(sb.label == bb.label || same->objective.mean <= bb.objective.mean + hw,
                 qPrintable(QString("search %1 (%2) vs brute force %3 (%4 +- %5)")
                                .arg(QString::fromStdString(sb.label))
                                .arg(same->objective.mean)
                                .arg(QString::fromStdString(bb.label))
                                .arg(bb.objective.mean)
                                .arg(hw)));
        // Less work (rounds simulated) and fewer full-budget runs than the grid; more runs
        // in all (short ones at the low rungs), which the report says.
        QVERIFY2(s.fullRunEquivalents < b.fullRunEquivalents,
                 qPrintable(QString("%1 vs %2 full-run equivalents").arg(s.fullRunEquivalents).arg(b.fullRunEquivalents)));
        QVERIFY(s.fullBudgetRuns < b.runs);
        // Fewer runs than the grid: a promoted trial goes on from where it waited instead of
        // running again from round 0, and the first rung runs one repeat.
        QVERIFY2(s.runs < b.runs, qPrintable(QString("%1 runs vs %2").arg(s.runs).arg(b.runs)));
        qInfo("search: %d runs (%d in the last rung, %.1f full-run equivalents), brute force %d (%.1f); "
              "ratio of runs %.2f, of work %.2f; best %s (brute force: %s)",
              s.runs, s.fullBudgetRuns, s.fullRunEquivalents, b.runs, b.fullRunEquivalents,
              static_cast<double>(s.runs) / b.runs, s.fullRunEquivalents / b.fullRunEquivalents, sb.label.c_str(),
              bb.label.c_str());
        // Every trial is a stored run of the search's sweep, one per configuration and repeat.
        RunFilter f;
        f.sweepId = s.sweepId;
        const auto runs = store.listRuns(f);
        QCOMPARE(static_cast<int>(runs.size()), s.runs);
        std::set<std::pair<std::string, int>> keys;
        for (const auto& r : runs) {
            QVERIFY(keys.insert({r.sweepConfig, r.repeat}).second);
            QCOMPARE(QString::fromStdString(r.status), QString("finished"));
        }
        // A run that waited at every rung and went on is the run brute force made in one go,
        // bit for bit: waiting changes nothing.
        for (std::size_t rep = 0; rep < sb.runIds.size(); ++rep) {
            const auto grown = store.metrics(sb.runIds[rep]), whole = store.metrics(same->runIds[rep]);
            QCOMPARE(grown.size(), whole.size());
            for (std::size_t i = 0; i < grown.size(); ++i) {
                QCOMPARE(grown[i].time, whole[i].time);
                QCOMPARE(grown[i].cost, whole[i].cost);
                QCOMPARE(grown[i].trainLoss, whole[i].trainLoss);
                QCOMPARE(std::isnan(grown[i].testAccuracy), std::isnan(whole[i].testAccuracy));
                if (!std::isnan(whole[i].testAccuracy)) QCOMPARE(grown[i].testAccuracy, whole[i].testAccuracy);
            }
            QCOMPARE(store.intervals(sb.runIds[rep]).size(), store.intervals(same->runIds[rep]).size());
        }
        // A configuration dropped at the first rung ran one repeat, stopped at that rung's
        // budget (or earlier, at the target), stored with the search's reason.
        int dropped = 0;
        for (const auto& c : s.configs) {
            if (c.rung != 0) continue;
            ++dropped;
            QCOMPARE(c.runIds.size(), std::size_t(1));
            const auto run = store.run(c.runIds[0]);
            QVERIFY(run);
            QVERIFY(run->summary.rounds <= s.budgets[0]);
            if (run->summary.rounds == s.budgets[0])
                QVERIFY2(QString::fromStdString(run->summary.stopReason).contains("stopped by the search"),
                         run->summary.stopReason.c_str());
        }
        QVERIFY(dropped > 0);
    }

    void timingOnlyGridMatchesBruteForce() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        RunStore store(dir.filePath("runs.db").toStdString());
        SeekSpec spec;
        spec.file = file.toStdString();
        spec.objective = parseObjective("min:time");
        spec.constraints.push_back(parseConstraint("cost<=0.6"));
        spec.params.push_back(parseParam("selection.k=int:1..9"));
        spec.params.push_back(parseParam("sync.policy=choice:fully-sync,async"));
        spec.repeats = 3;
        SeekSpec brute = spec;
        brute.bruteForce = true;
        const SeekResult b = runSeek(brute, store);
        const SeekResult s = runSeek(spec, store);
        QVERIFY(b.best >= 0 && s.best >= 0);
        const SeekConfig& bb = bestOf(b);
        const SeekConfig* same = nullptr;
        for (const auto& c : b.configs)
            if (c.label == bestOf(s).label) same = &c;
        QVERIFY(same && same->feasible);
        const double hw = std::isnan(bb.objective.halfWidth) ? 0.0 : bb.objective.halfWidth;
        QVERIFY2(same->objective.mean <= bb.objective.mean + hw,
                 qPrintable(QString::fromStdString(bestOf(s).label + " vs " + bb.label)));
        QVERIFY(s.fullRunEquivalents < b.fullRunEquivalents);
        QVERIFY(s.fullBudgetRuns < b.runs);
        QVERIFY2(s.runs < b.runs, qPrintable(QString("%1 runs vs %2").arg(s.runs).arg(b.runs)));
        qInfo("timing grid: search %d runs (%.1f full-run equivalents), brute force %d (%.1f): ratio of runs %.2f, "
              "of work %.2f; best %s (brute force: %s)",
              s.runs, s.fullRunEquivalents, b.runs, b.fullRunEquivalents, static_cast<double>(s.runs) / b.runs,
              s.fullRunEquivalents / b.fullRunEquivalents, bestOf(s).label.c_str(), bb.label.c_str());
    }

    void respectsConstraints() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        RunStore store(dir.filePath("runs.db").toStdString());
        SeekSpec spec;
        spec.file = file.toStdString();
        spec.objective = parseObjective("min:time");
        spec.params.push_back(parseParam("selection.k=int:1..9"));
        spec.repeats = 2;
        spec.bruteForce = true;
        // Unconstrained, more trainers per round would be slowest; a tight budget on
        // cost still leaves only configurations whose every repeat stays under it.
        spec.constraints.push_back(parseConstraint("cost<=0.3"));
        const SeekResult r = runSeek(spec, store);
        for (const auto& c : r.configs)
            for (const auto& sc : c.scores)
                if (sc.feasible) QVERIFY(sc.cost <= 0.3);
        if (r.best >= 0) {
            for (const auto& sc : bestOf(r).scores) QVERIFY(sc.feasible && sc.cost <= 0.3);
        }
        // An impossible constraint: nothing is feasible, and the search says so.
        spec.constraints = {parseConstraint("cost<=0.000001")};
        const SeekResult none = runSeek(spec, store);
        QCOMPARE(none.best, -1);
        QVERIFY(none.leader >= 0);
        for (const auto& c : none.configs) QVERIFY(!c.feasible);
    }

    void reproducibleWithASeed() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        RunStore store(dir.filePath("runs.db").toStdString());
        SeekSpec spec;
        spec.file = file.toStdString();
        spec.objective = parseObjective("min:cost");
        spec.params.push_back(parseParam("selection.k=int:1..10"));
        spec.params.push_back(parseParam("training.local_steps=int:1..5"));
        spec.params.push_back(parseParam("sync.policy=choice:fully-sync,async"));
        spec.trials = 9; // fewer than the grid of 100: sampled with the seed
        spec.seed = 17;
        const SeekResult a = runSeek(spec, store);
        const SeekResult b = runSeek(spec, store);
        QCOMPARE(a.configs.size(), b.configs.size());
        for (std::size_t i = 0; i < a.configs.size(); ++i) {
            QCOMPARE(a.configs[i].label, b.configs[i].label);
            QCOMPARE(a.configs[i].objective.mean, b.configs[i].objective.mean);
        }
        QCOMPARE(a.best, b.best);
        spec.seed = 18;
        const SeekResult c = runSeek(spec, store);
        std::set<std::string> la, lc;
        for (const auto& x : a.configs) la.insert(x.label);
        for (const auto& x : c.configs) lc.insert(x.label);
        QVERIFY(la != lc); // another seed samples other configurations
    }

    // Ctrl-C in the middle of a rung: the search returns (no run left waiting forever), says
    // it was cancelled, and every run it started is stored, none left running.
    void cancelledSearchEndsEveryRun() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        RunStore store(dir.filePath("runs.db").toStdString());
        SeekSpec spec;
        spec.file = file.toStdString();
        spec.objective = parseObjective("min:time");
        spec.params.push_back(parseParam("selection.k=int:1..9"));
        spec.repeats = 2;
        spec.parallel = 2;
        std::atomic<bool> cancel{false};
        const SeekResult r = runSeek(
            spec, store, [&](const SeekProgress& p) { if (p.done == 4) cancel = true; }, &cancel);
        QVERIFY(r.cancelled);
        RunFilter f;
        f.sweepId = r.sweepId;
        const auto runs = store.listRuns(f);
        QCOMPARE(static_cast<int>(runs.size()), r.runs);
        for (const auto& run : runs) QVERIFY2(run.status != "running", run.name.c_str());
    }

    void badSpecsFailBeforeRunning() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        RunStore store(dir.filePath("runs.db").toStdString());
        SeekSpec spec;
        spec.file = file.toStdString();
        spec.objective = parseObjective("min:cost");
        spec.params.push_back(parseParam("selection.k=int:0..3")); // k = 0 is not a selection
        try {
            runSeek(spec, store);
            QFAIL("k = 0 must be refused");
        } catch (const ScenarioError& e) {
            QVERIFY2(QString(e.what()).contains("selection.k=0"), e.what()); // names the configuration
        }
        QVERIFY(store.listRuns().empty()); // nothing ran
        spec.params = {parseParam("training.learning_rate=real:0.01..0.1")};
        spec.bruteForce = true;
        QVERIFY_THROWS_EXCEPTION(ScenarioError, runSeek(spec, store));
    }

    // What an MPI rank does with a trial (core/seek/trials.h), without MPI: it waits at its
    // budget, goes on to the end, and is the run captureRun makes in one go; a trial
    // stopped while it waits ends finished, with the reason, where it waited.
    void trialHostWaitsGoesOnAndStops() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "learning.yaml", kLearning);
        const Scenario s = loadScenarioFile(file.toStdString(), {{"stop.rounds", "12"}});
        TrialHost host(1, nullptr);
        host.start(1, s, 1, {TrialBudget::Kind::Rounds, 4});
        host.start(2, s, 1, {TrialBudget::Kind::Rounds, 6});
        std::map<int, TrialHost::News> news; // each piece of news comes once
        auto waitFor = [&](int trial, bool ended) {
            for (int i = 0; i < 3000; ++i) {
                for (auto& n : host.poll()) news[n.trial] = std::move(n);
                auto it = news.find(trial);
                if (it != news.end()) {
                    if (it->second.ended != ended) QTest::qFail("the trial stood elsewhere", __FILE__, __LINE__);
                    const CapturedRun run = std::move(it->second.run);
                    news.erase(it);
                    return run;
                }
                QTest::qWait(5);
            }
            QTest::qFail("no news of the trial", __FILE__, __LINE__);
            return CapturedRun{};
        };
        const CapturedRun waiting = waitFor(1, false);
        QCOMPARE(waiting.records.size(), std::size_t(4)); // rounds 1..4, then it waits
        QCOMPARE(waiting.records.back().round, 4);
        QCOMPARE(waiting.summary.status, RunStatus::Running);
        QCOMPARE(waitFor(2, false).records.size(), std::size_t(6));
        host.goOn(1, {});
        host.stop(2, "dropped here");
        const CapturedRun whole = waitFor(1, true), stopped = waitFor(2, true);
        QCOMPARE(host.held(), std::size_t(0));
        const CapturedRun once = captureRun(s, 1);
        QCOMPARE(whole.records.size(), once.records.size());
        for (std::size_t i = 0; i < once.records.size(); ++i) {
            QCOMPARE(whole.records[i].time, once.records[i].time);
            QCOMPARE(whole.records[i].cost, once.records[i].cost);
            QCOMPARE(whole.records[i].trainLoss, once.records[i].trainLoss);
        }
        QCOMPARE(whole.intervals.size(), once.intervals.size());
        QCOMPARE(whole.summary.cost, once.summary.cost);
        QCOMPARE(whole.summary.status, RunStatus::Finished);
        QCOMPARE(stopped.summary.status, RunStatus::Finished);
        QCOMPARE(QString::fromStdString(stopped.summary.stopReason), QString("dropped here"));
        QCOMPARE(stopped.summary.rounds, 6);
        QCOMPARE(stopped.summary.cost, once.records[5].cost); // stopped where it waited
    }

    // The bytes a rank sends decode to the same run, and store as runAndStore would.
    void capturedRunsRoundTrip() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "learning.yaml", kLearning);
        Scenario s = loadScenarioFile(file.toStdString(), {{"stop.rounds", "6"}});
        const CapturedRun run = captureRun(s, 1);
        const CapturedRun back = decodeCaptured(encodeCaptured(run));
        QCOMPARE(back.records.size(), run.records.size());
        QCOMPARE(back.intervals.size(), run.intervals.size());
        QCOMPARE(back.summary.cost, run.summary.cost);
        QCOMPARE(back.summary.stopReason, run.summary.stopReason);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, decodeCaptured(encodeCaptured(run).substr(0, 40)));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, decodeCaptured("garbage"));

        RunStore store(dir.filePath("runs.db").toStdString());
        const auto a = storeCaptured(store, NewRun{}, s, 1, back);
        RunSummary sum;
        const auto b = runAndStore(s, store, NewRun{}, 1, nullptr, sum);
        const auto ma = store.metrics(a), mb = store.metrics(b);
        QCOMPARE(ma.size(), mb.size());
        for (std::size_t i = 0; i < ma.size(); ++i) {
            QCOMPARE(ma[i].cost, mb[i].cost);
            QCOMPARE(ma[i].time, mb[i].time);
            QCOMPARE(ma[i].trainLoss, mb[i].trainLoss);
        }
        QCOMPARE(store.intervals(a).size(), store.intervals(b).size());
        QCOMPARE(store.nodes(a).size(), store.nodes(b).size());
        QCOMPARE(store.run(a)->summary.finalTestAccuracy, store.run(b)->summary.finalTestAccuracy);
    }

    // A sweep cut short resumes: only the missing runs run, from the stored spec.
    void sweepResumesWhatIsMissing() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        RunStore store(dir.filePath("runs.db").toStdString());
        SweepSpec spec;
        spec.file = file.toStdString();
        spec.axes.push_back(parseSweepAxis("selection.k=1,2,3"));
        spec.repeats = 2;
        std::atomic<bool> cancel{false};
        const SweepResult first = runSweep(
            spec, store, [&](const SweepProgress& p) { if (p.done == 2) cancel = true; }, &cancel);
        QVERIFY(first.cancelled);
        RunFilter f;
        f.sweepId = first.sweepId;
        const auto partial = store.listRuns(f).size();
        QVERIFY(partial >= 2 && partial < 6);

        const auto stored = storedSweep(store, first.sweepId);
        QVERIFY(stored);
        SweepSpec again = parseSweepSpecText(stored->second);
        QCOMPARE(again.file, spec.file);
        QCOMPARE(again.repeats, 2);
        again.resume = first.sweepId;
        const SweepResult second = runSweep(again, store);
        QVERIFY(!second.cancelled);
        QCOMPARE(second.sweepId, first.sweepId);
        QCOMPARE(second.skipped, 2);
        std::set<std::pair<std::string, int>> seen;
        for (const auto& r : store.listRuns(f)) {
            QCOMPARE(QString::fromStdString(r.status), QString("finished"));
            QVERIFY(seen.insert({r.sweepConfig, r.repeat}).second); // no duplicates
        }
        QCOMPARE(seen.size(), std::size_t(6));

        // Resuming with other values is refused, not mixed in.
        SweepSpec other = spec;
        other.axes = {parseSweepAxis("selection.k=4,5")};
        other.resume = first.sweepId;
        QVERIFY_THROWS_EXCEPTION(ScenarioError, runSweep(other, store));
        // A spec with quotes and braces survives the round trip.
        SweepSpec braces = spec;
        braces.axes = {parseSweepAxis("sync={policy: n-sync, n: 2},{policy: fully-sync}")};
        const SweepPlan plan = planSweep(braces);
        const SweepSpec back = parseSweepSpecText(plan.specText);
        QCOMPARE(back.axes.size(), std::size_t(1));
        QCOMPARE(back.axes[0].values.size(), std::size_t(2));
        QCOMPARE(QString::fromStdString(back.axes[0].values[0]), QString("{policy: n-sync, n: 2}"));
    }

    // The studio's dialog runs a search on the scenario being edited and shows the ranking.
    void dialogSearchesAndShowsTheBest() {
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        RunStore store(dir.filePath("runs.db").toStdString());
        int refreshed = 0;
        SeekDialog d(loadScenarioFile(file.toStdString()), &store, [&] { ++refreshed; });
        QVERIFY(!d.findChild<QCheckBox*>("seekUseAccuracy")->isChecked()); // timing only
        d.findChild<QPlainTextEdit*>("seekParams")->setPlainText("selection.k=int:1..4\nnot a parameter");
        d.start();
        QVERIFY(!d.running()); // the bad line is reported, nothing runs
        QVERIFY(store.listRuns().empty());
        d.findChild<QPlainTextEdit*>("seekParams")->setPlainText("selection.k=int:1..4");
        d.findChild<QCheckBox*>("seekUseBudget")->setChecked(true);
        d.findChild<QDoubleSpinBox*>("seekBudget")->setValue(0.3);
        QSignalSpy done(&d, &SeekDialog::finished);
        d.start();
        QVERIFY(d.running());
        QVERIFY(done.wait(60000));
        QCOMPARE(done.first().first().toBool(), true);
        QVERIFY(d.findChild<QTableWidget*>("seekTable")->rowCount() == 4);
        QVERIFY(d.findChild<QLabel*>("seekBest")->text().contains("selection.k="));
        QVERIFY(refreshed > 0);
        QVERIFY(!store.listRuns().empty());
    }

    // mpirun -n 2 seek: the same search, the same stored runs as one process (skipped
    // without MPI).
    void mpiSeekMatchesOneProcess() {
#ifndef FOG_CLI_HAVE_MPI
        QSKIP("fogstudio-cli was built without MPI (install libopenmpi-dev and reconfigure)");
#else
        const QString mpirun = QStandardPaths::findExecutable("mpirun");
        if (mpirun.isEmpty()) QSKIP("mpirun is not on PATH (Debian: openmpi-bin)");
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        auto seek = [&](const QStringList& prefix, const QString& db) {
            QProcess p;
            p.setProcessChannelMode(QProcess::MergedChannels);
            QStringList args = prefix;
            args << FOG_CLI << "seek" << file << "--objective" << "min:time" << "--constraint" << "cost<=0.6"
                 << "--param" << "selection.k=int:1..9" << "--param" << "sync.policy=choice:fully-sync,async"
                 << "--repeat" << "2" << "--threads" << "1" << "--quiet" << "--db" << db;
            const QString program = args.takeFirst();
            p.start(program, args);
            if (!p.waitForFinished(120000)) return QString("timed out");
            const QString out = QString::fromLocal8Bit(p.readAll());
            return p.exitCode() == 0 ? out : QString("exit %1: %2").arg(p.exitCode()).arg(out);
        };
        QStringList mpi{mpirun, "-n", "2", "--oversubscribe"};
        if (geteuid() == 0) mpi << "--allow-run-as-root";
        const QString a = seek(mpi, dir.filePath("mpi.db")), b = seek({}, dir.filePath("one.db"));
        QVERIFY2(a.contains("over 2 MPI ranks"), qPrintable(a));
        QVERIFY2(a.contains(QRegularExpression("rank 1: [1-9]")), qPrintable(a)); // both ranks ran trials
        QVERIFY2(b.contains("Best: "), qPrintable(b));
        auto bestLine = [](const QString& out) {
            for (const QString& l : out.split('\n'))
                if (l.startsWith("Best: ")) return l;
            return QString();
        };
        QCOMPARE(bestLine(a), bestLine(b));
        RunStore sa(dir.filePath("mpi.db").toStdString()), sb(dir.filePath("one.db").toStdString());
        auto byKey = [](RunStore& s) {
            std::map<std::pair<std::string, int>, StoredRun> m;
            for (const auto& r : s.listRuns()) m[{r.sweepConfig, r.repeat}] = r;
            return m;
        };
        const auto ra = byKey(sa), rb = byKey(sb);
        QVERIFY(!ra.empty());
        QCOMPARE(ra.size(), rb.size());
        for (const auto& [key, run] : ra) {
            QVERIFY2(rb.count(key), key.first.c_str());
            const StoredRun& other = rb.at(key);
            QCOMPARE(run.status, other.status);
            QCOMPARE(run.summary.stopReason, other.summary.stopReason);
            QCOMPARE(run.summary.cost, other.summary.cost);
            QCOMPARE(run.summary.virtualTime, other.summary.virtualTime);
            QCOMPARE(run.summary.rounds, other.summary.rounds);
            const auto ma = sa.metrics(run.id), mb = sb.metrics(other.id);
            QCOMPARE(ma.size(), mb.size());
            for (std::size_t i = 0; i < ma.size(); ++i) QCOMPARE(ma[i].cost, mb[i].cost);
        }
#endif
    }

    // mpirun -n 2 stores the same results as one process (skipped without MPI).
    void mpiSweepMatchesOneProcess() {
#ifndef FOG_CLI_HAVE_MPI
        QSKIP("fogstudio-cli was built without MPI (install libopenmpi-dev and reconfigure)");
#else
        const QString mpirun = QStandardPaths::findExecutable("mpirun");
        if (mpirun.isEmpty()) QSKIP("mpirun is not on PATH (Debian: openmpi-bin)");
        QTemporaryDir dir;
        const QString file = writeFile(dir, "timing.yaml", kTiming);
        const QString cli = FOG_CLI;
        auto sweep = [&](const QStringList& prefix, const QString& db) {
            QProcess p;
            p.setProcessChannelMode(QProcess::MergedChannels);
            QStringList args = prefix;
            args << cli << "sweep" << file << "--vary" << "selection.k=1,2,3,4" << "--repeat" << "2" << "--threads"
                 << "1" << "--quiet" << "--db" << db;
            const QString program = args.takeFirst();
            p.start(program, args);
            QVERIFY2(p.waitForFinished(120000), "sweep timed out");
            QVERIFY2(p.exitCode() == 0, p.readAll().constData());
        };
        QStringList mpi{mpirun, "-n", "2", "--oversubscribe"};
        if (geteuid() == 0) mpi << "--allow-run-as-root";
        sweep(mpi, dir.filePath("mpi.db"));
        sweep({}, dir.filePath("one.db"));
        RunStore a(dir.filePath("mpi.db").toStdString()), b(dir.filePath("one.db").toStdString());
        auto byKey = [](RunStore& s) {
            std::map<std::pair<std::string, int>, StoredRun> m;
            for (const auto& r : s.listRuns()) m[{r.sweepConfig, r.repeat}] = r;
            return m;
        };
        const auto ra = byKey(a), rb = byKey(b);
        QCOMPARE(ra.size(), std::size_t(8));
        QCOMPARE(ra.size(), rb.size());
        for (const auto& [key, run] : ra) {
            const StoredRun& other = rb.at(key);
            QCOMPARE(run.summary.cost, other.summary.cost);
            QCOMPARE(run.summary.virtualTime, other.summary.virtualTime);
            QCOMPARE(run.summary.rounds, other.summary.rounds);
            const auto ma = a.metrics(run.id), mb = b.metrics(other.id);
            QCOMPARE(ma.size(), mb.size());
            for (std::size_t i = 0; i < ma.size(); ++i) QCOMPARE(ma[i].cost, mb[i].cost);
        }
#endif
    }
};

QTEST_MAIN(TestSeek)
#include "test_seek.moc"
