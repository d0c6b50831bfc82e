// The research policies: each one's contract (exact schedules, DP == brute force, who is
// preferred) and one small emulated run per policy showing the effect it is meant to have.

#include "core/planning/adacoopt.h"
#include "core/planning/placement.h"
#include "core/planning/recruitment.h"
#include "core/planning/ton_planner.h"
#include "core/policies/external_selection.h"
#include "core/policies/aggregation.h"
#include "core/policies/exp_growth.h"
#include "core/policies/policy_info.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/selection_policy.h"
#include "core/scenario/scenario_io.h"
#include "engine_fixtures.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

using namespace fog;
using namespace fogtest;

namespace {

/// A timing-only star whose trainers have the given speeds (samples/s), one step of batch 1.
Scenario starWithSpeeds(const std::vector<double>& speeds) {
    Scenario s;
    s.name = "speeds";
    s.seed = 11;
    s.topology.nodes.push_back(makeNode("server", Role::Aggregator, ""));
    for (std::size_t i = 0; i < speeds.size(); ++i)
        s.topology.nodes.push_back(makeNode("t" + std::to_string(i), Role::Trainer, "server", speeds[i]));
    s.data.kind = DataSpec::Kind::None;
    s.data.samplesPerTrainer = 100;
    s.model.kind = ModelSpec::Kind::None;
    s.training.batchSize = 1;
    s.training.localSteps = 1;
    s.sync.name = "fully-sync";
    s.stop.rounds = 20;
    return s;
}

PolicySpec policy(const std::string& name, std::map<std::string, double> params = {}) {
    PolicySpec p;
    p.name = name;
    p.params = std::move(params);
    return p;
}

double timeOf(const Recorder& rec) { return rec.records.empty() ? 0.0 : rec.records.back().time; }

/// Features are the one-hot label times 2 plus noise: linearly separable classes.
void addSamples(Dataset& d, int label, int count, Rng& rng) {
    for (int i = 0; i < count; ++i) {
        for (int f = 0; f < d.width; ++f)
            d.features.push_back(static_cast<float>((f == label ? 2.0 : 0.0) + 0.5 * rng.normal()));
        d.labels.push_back(label);
    }
}

/// Four large trainers holding only classes 0 and 1, four small ones holding all four
/// classes: a skewed population where the largest data are the least representative.
std::shared_ptr<DataBundle> skewedBundle() {
    auto b = std::make_shared<DataBundle>();
    Rng rng(5);
    for (Dataset* d : {&b->train, &b->test}) {
        d->width = 4;
        d->classes = 4;
    }
    for (int t = 0; t < 8; ++t) {
        std::vector<std::int64_t> part;
        const auto begin = static_cast<std::int64_t>(b->train.size());
        if (t < 4) {
            addSamples(b->train, t % 2, 100, rng);
            addSamples(b->train, 1 - t % 2, 100, rng);
        } else {
            for (int c = 0; c < 4; ++c) addSamples(b->train, c, 15, rng);
        }
        for (auto i = begin; i < static_cast<std::int64_t>(b->train.size()); ++i) part.push_back(i);
        b->parts.push_back(part);
    }
    for (int c = 0; c < 4; ++c) addSamples(b->test, c, 100, rng);
    return b;
}

Scenario skewedTraining(const std::string& selection, std::map<std::string, double> params) {
    Scenario s = starWithSpeeds(std::vector<double>(8, 100.0));
    s.model.kind = ModelSpec::Kind::LogReg;
    s.training.batchSize = 10;
    s.training.localSteps = 5;
    s.training.learningRate = 0.1;
    s.sync.name = "fedavg";
    s.selection = policy(selection, std::move(params));
    s.stop.rounds = 15;
    s.evaluation.everyRounds = 15;
    return s;
}

RunSummary runWithData(const Scenario& s, std::shared_ptr<const DataBundle> data, Recorder& rec) {
    EngineOptions o;
    o.observer = &rec;
    o.data = std::move(data);
    Engine engine(s, o);
    return engine.run();
}

} // namespace

class TestPolicies : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyPolicyIsRegisteredAndDocumented() {
        // The `python` policy asks a front end's selector (the Python module's callable).
        static int owner = 0;
        ExternalSelectorLease lease(&owner, std::make_shared<ExternalSelector>([](const SelectionQuery& q) {
            std::vector<int> all;
            for (const auto& c : q.candidates) all.push_back(c.index);
            return all;
        }));
        for (const auto& info : selectionPolicyInfos()) {
            QVERIFY2(!info.summary.empty(), info.name.c_str());
            Scenario s = starWithSpeeds({1, 2, 3});
            s.selection = policy(info.name);
            Engine e(s, {}); // throws for a name the registry does not know
            QVERIFY(!e.selectTrainers(0, 1).empty());
        }
        for (const auto& info : syncPolicyInfos()) QVERIFY2(!info.summary.empty(), info.name.c_str());
        Scenario s = starWithSpeeds({1, 2});
        s.sync = policy("flexible");
        Engine e(s, {});
        for (const std::string name : {"fastest-k", "exp-growth", "oort", "deadline-budget", "data-value",
                                       "largest-data"})
            QVERIFY2(findSelectionPolicy(name), name.c_str());
        QVERIFY(findSyncPolicy("flexible"));
    }

    // ---------------------------------------------------------------- fastest-k
    void fastestKTakesTheFastest() {
        Scenario s = starWithSpeeds({1, 8, 2, 16, 4, 0.5});
        s.selection = policy("fastest-k", {{"k", 3}});
        Engine e(s, {});
        // Node indices: server 0, t0 = 1 ... t5 = 6; fastest are t3, t1, t4.
        QCOMPARE(e.selectTrainers(0, 1), (std::vector<int>{2, 4, 5}));
    }

    void fastestKShortensRounds() {
        std::vector<double> speeds;
        for (int i = 0; i < 10; ++i) speeds.push_back(1.0 + i);
        Scenario fast = starWithSpeeds(speeds);
        fast.selection = policy("fastest-k", {{"k", 3}});
        Scenario random = fast;
        random.selection = policy("random-k", {{"k", 3}});
        Recorder a, b;
        runScenario(fast, a);
        runScenario(random, b);
        // Without noise a round takes 1 / (slowest speed): 1/8 s for the three fastest.
        QCOMPARE(timeOf(a), 20.0 / 8.0);
        QVERIFY(timeOf(a) < timeOf(b));
    }

    // ---------------------------------------------------------------- exp-growth
    void expGrowthScheduleIsExact() {
        const int expected[] = {1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8, 10, 10};
        for (int t = 1; t <= 14; ++t) QCOMPARE(expGrowthCount(t, 1, 3, 2.0, 10), expected[t - 1]);
        QCOMPARE(expGrowthCount(1, 3, 1, 3.0, 1000), 3);
        QCOMPARE(expGrowthCount(4, 3, 1, 3.0, 1000), 81);
        QCOMPARE(expGrowthCount(100000, 1, 1, 2.0, 50), 50); // no overflow
    }

    void expGrowthRunsTheSchedule() {
        Scenario s = starWithSpeeds(std::vector<double>(12, 1.0));
        s.selection = policy("exp-growth", {{"n0", 2}, {"period", 2}, {"cap", 0}});
        s.stop.rounds = 9;
        Recorder rec;
        runScenario(s, rec);
        const int expected[] = {2, 2, 4, 4, 8, 8, 12, 12, 12}; // cap 0 = all 12 trainers
        QCOMPARE(rec.records.size(), std::size_t(9));
        for (int r = 0; r < 9; ++r) QCOMPARE(rec.records[r].participants, expected[r]);
    }

    // ---------------------------------------------------------------- oort
    void oortPrefersFastHighLossClients() {
        Scenario s = starWithSpeeds({1, 1, 1, 1, 1});
        s.selection = policy("oort", {{"k", 1}, {"target_s", 10}, {"epsilon", 0}, {"epsilon_min", 0}});
        Engine e(s, {});
        auto oort = makeSelectionPolicy(s.selection, e);
        // Nodes 1..4: (loss, seconds) = fast/high, fast/low, slow/high, slow/low; 5 unseen.
        oort->observe(1, 2.0, 5.0);
        oort->observe(2, 0.5, 5.0);
        oort->observe(3, 2.5, 40.0); // higher loss but 4x too slow: 2.5 / 16 < 2
        oort->observe(4, 0.5, 40.0);
        Rng rng(1);
        QCOMPARE(oort->select(e, 0, 1, {1, 2, 3, 4, 5}, rng), (std::vector<int>{1}));
        // Ranking: 1 (2.0), 2 (0.5), 3 (2.5 / 16), 4 (0.5 / 16).
        auto top3 = makeSelectionPolicy(policy("oort", {{"k", 3}, {"target_s", 10}, {"epsilon", 0},
                                                        {"epsilon_min", 0}}), e);
        top3->observe(1, 2.0, 5.0);
        top3->observe(2, 0.5, 5.0);
        top3->observe(3, 2.5, 40.0);
        top3->observe(4, 0.5, 40.0);
        QCOMPARE(top3->select(e, 0, 1, {1, 2, 3, 4}, rng), (std::vector<int>{1, 2, 3}));
    }

    void oortExploresUnseenFastestFirst() {
        Scenario s = starWithSpeeds({1, 4, 2, 8});
        s.selection = policy("oort", {{"k", 2}, {"epsilon", 1}, {"epsilon_min", 1}});
        Engine e(s, {});
        auto oort = makeSelectionPolicy(s.selection, e);
        oort->observe(4, 5.0, 0.1); // seen: the best utility, but everything goes to exploring
        Rng rng(1);
        QCOMPARE(oort->select(e, 0, 1, {1, 2, 3, 4}, rng), (std::vector<int>{2, 3}));
    }

    void oortAvoidsStragglers() {
        // Half the trainers are 10x slower; Oort learns it and keeps rounds short.
        std::vector<double> speeds;
        for (int i = 0; i < 10; ++i) speeds.push_back(i % 2 ? 1.0 : 10.0);
        Scenario s = starWithSpeeds(speeds);
        s.stop.rounds = 40;
        s.selection = policy("oort", {{"k", 3}, {"epsilon", 0.5}, {"epsilon_decay", 0.8}, {"epsilon_min", 0}});
        Scenario r = s;
        r.selection = policy("random-k", {{"k", 3}});
        Recorder a, b;
        runScenario(s, a);
        runScenario(r, b);
        qInfo("virtual time of 40 rounds: oort %.2f s, random-k %.2f s", timeOf(a), timeOf(b));
        QVERIFY2(timeOf(a) < 0.5 * timeOf(b), qPrintable(QString("oort %1 s, random %2 s").arg(timeOf(a)).arg(timeOf(b))));
    }

    // ---------------------------------------------------------------- deadline-budget
    void deadlineBudgetIsTheCheapestSetMeetingTheDeadline() {
        // Speeds and prices: the cheap ones are slow. Deadline 0.3 s needs speed >= 10/3.
        const std::vector<double> speeds = {1, 2, 4, 5, 8, 10, 20};
        const std::vector<double> prices = {1, 2, 9, 3, 7, 5, 40};
        Scenario s = starWithSpeeds(speeds);
        for (std::size_t i = 0; i < prices.size(); ++i) s.topology.nodes[i + 1].pricePerHour = prices[i];
        s.selection = policy("deadline-budget", {{"k", 2}, {"deadline_s", 0.3}});
        Engine e(s, {});
        const auto got = e.selectTrainers(0, 1);
        // Brute force over pairs: both meet the deadline, least summed expected cost.
        double best = std::numeric_limits<double>::infinity();
        std::vector<int> bestSet;
        for (int a = 1; a <= 7; ++a)
            for (int b = a + 1; b <= 7; ++b) {
                if (expectedRoundSeconds(e, a) > 0.3 || expectedRoundSeconds(e, b) > 0.3) continue;
                const double c = expectedRoundCost(e, a) + expectedRoundCost(e, b);
                if (c < best) {
                    best = c;
                    bestSet = {a, b};
                }
            }
        QCOMPARE(got, bestSet);
        QCOMPARE(got, (std::vector<int>{4, 6})); // speeds 5 and 10, prices 3 and 5

        // Costs 0.5 and 0.6 (per 3600): a budget of 1.0 drops the dearer one.
        s.selection = policy("deadline-budget", {{"k", 2}, {"deadline_s", 0.3}, {"budget", 1.0 / 3600}});
        Engine tight(s, {});
        QCOMPARE(tight.selectTrainers(0, 1), (std::vector<int>{6}));
    }

    void deadlineBudgetMeetsDeadlineCheaply() {
        const std::vector<double> speeds = {1, 2, 4, 5, 8, 10, 20};
        Scenario s = starWithSpeeds(speeds);
        for (std::size_t i = 0; i < speeds.size(); ++i) s.topology.nodes[i + 1].pricePerHour = 36 * speeds[i];
        s.selection = policy("deadline-budget", {{"k", 3}, {"deadline_s", 0.26}});
        Scenario all = s;
        all.selection = policy("all");
        Recorder a, b;
        const RunSummary ra = runScenario(s, a);
        const RunSummary rb = runScenario(all, b);
        for (const auto& r : a.records) QCOMPARE(r.participants, 3);
        QVERIFY(timeOf(a) <= 20 * 0.26);           // every round meets the deadline
        QVERIFY(ra.cost < rb.cost);                 // and costs less than taking everyone
        QVERIFY(timeOf(a) < timeOf(b));             // who wait for the slowest
    }

    // ---------------------------------------------------------------- data-value
    void dataValueDpMatchesBruteForce() {
        Rng rng(42);
        for (int trial = 0; trial < 30; ++trial) {
            const int n = 3 + trial % 7;
            std::vector<RecruitCandidate> c(static_cast<std::size_t>(n));
            std::int64_t total = 0;
            for (auto& k : c) {
                k.cost = 1 + static_cast<double>(rng.below(5));
                k.samples = 1 + static_cast<std::int64_t>(rng.below(8));
                k.availability = 0.2 + 0.8 * rng.uniform();
                k.genDistance = rng.uniform();
                k.repDistance = rng.uniform();
                total += k.samples;
            }
            const double budget = 2 + static_cast<double>(rng.below(10));
            RecruitWeights w{rng.uniform(), rng.uniform(), rng.uniform()};
            // Integer costs and budget steps of 1, data steps of 1 sample: no rounding.
            const auto got = recruitByDataValue(c, budget, static_cast<int>(budget), static_cast<int>(total), w);
            double best = std::numeric_limits<double>::infinity();
            for (int mask = 1; mask < (1 << n); ++mask) {
                std::vector<int> set;
                double cost = 0;
                for (int k = 0; k < n; ++k)
                    if (mask & (1 << k)) {
                        set.push_back(k);
                        cost += c[k].cost;
                    }
                if (cost <= budget) best = std::min(best, recruitmentObjective(c, set, w));
            }
            double cost = 0;
            for (int k : got) cost += c[k].cost;
            QVERIFY(cost <= budget);
            QVERIFY2(std::abs(recruitmentObjective(c, got, w) - best) < 1e-12,
                     qPrintable(QString("trial %1: dp %2, brute force %3").arg(trial)
                                    .arg(recruitmentObjective(c, got, w)).arg(best)));
        }
    }

    void dataValueBeatsLargestDataOnSkewedData() {
        const auto data = skewedBundle();
        Recorder a, b;
        // No prices: each trainer costs 1, so both policies get 4 trainers.
        const RunSummary dv = runWithData(skewedTraining("data-value", {{"budget", 4}}), data, a);
        const RunSummary ld = runWithData(skewedTraining("largest-data", {{"k", 4}}), data, b);
        qInfo("test accuracy: data-value %.3f, largest-data %.3f", dv.finalTestAccuracy, ld.finalTestAccuracy);
        QCOMPARE(a.records.front().participants, 4);
        QCOMPARE(b.records.front().participants, 4);
        // Largest-data sees two classes of four: at most about half the test set.
        QVERIFY2(ld.finalTestAccuracy < 0.6, qPrintable(QString::number(ld.finalTestAccuracy)));
        QVERIFY2(dv.finalTestAccuracy > ld.finalTestAccuracy + 0.25,
                 qPrintable(QString("data-value %1, largest-data %2").arg(dv.finalTestAccuracy).arg(ld.finalTestAccuracy)));
    }

    void dataValueAccountsForAvailability() {
        // Equal data; t0 is online 10% of the time: with budget 1 the DP picks another.
        Scenario s = starWithSpeeds({1, 1, 1});
        s.topology.nodes[1].availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.nodes[1].availability.meanUpS = 10;
        s.topology.nodes[1].availability.meanDownS = 90;
        s.topology.nodes[1].pricePerHour = 1;
        s.topology.nodes[2].pricePerHour = 1;
        s.topology.nodes[3].pricePerHour = 1;
        s.selection = policy("data-value", {{"budget", 2}});
        Engine e(s, {});
        QCOMPARE(e.selectTrainers(0, 1), (std::vector<int>{2, 3}));
        s.selection = policy("data-value", {{"budget", 0.5}});
        QVERIFY_THROWS_EXCEPTION(EngineError, Engine(s, {}));
    }

    // ---------------------------------------------------------------- largest-data
    void largestDataTakesTheLargest() {
        const auto data = skewedBundle();
        Scenario s = skewedTraining("largest-data", {{"k", 3}});
        EngineOptions o;
        o.data = data;
        Engine e(s, o);
        QCOMPARE(e.selectTrainers(0, 1), (std::vector<int>{1, 2, 3}));
    }

    // ---------------------------------------------------------------- flexible
    void flexibleWeightsAreUnbiased() {
        std::vector<Contribution> c(3);
        c[0].samples = 40; c[0].steps = 4; c[0].stepsRequested = 4;
        c[1].samples = 20; c[1].steps = 2; c[1].stepsRequested = 4;
        c[2].samples = 10; c[2].steps = 1; c[2].stepsRequested = 4;
        const std::vector<double> sizes = {100, 100, 200};
        const auto u = flexibleWeights(c, sizes, true);
        QCOMPARE(u[0], 0.25);
        QCOMPARE(u[1], 0.5);  // half the work, scaled by E / s = 2
        QCOMPARE(u[2], 2.0);  // twice the data, a quarter of the work
        const auto p = flexibleWeights(c, sizes, false);
        QCOMPARE(p[0], 40.0 / 70);
        QCOMPARE(p[2], 10.0 / 70);
    }

    void flexibleBoundsRoundsByTheComputeDeadline() {
        // Ten local steps; the slow trainer needs 10 s, the deadline cuts it at 2 s.
        Scenario s = starWithSpeeds({10, 10, 1});
        s.training.localSteps = 10;
        s.sync = policy("flexible", {{"compute_deadline_s", 2}});
        s.stop.rounds = 5;
        Scenario plain = s;
        plain.sync = policy("fedavg");
        Recorder a, b;
        const RunSummary ra = runScenario(s, a);
        runScenario(plain, b);
        QCOMPARE(a.records.size(), std::size_t(5));
        for (const auto& r : a.records) QCOMPARE(r.participants, 3);
        QCOMPARE(timeOf(a), 5 * 2.0);  // the slow one stops after 2 of 10 steps
        QCOMPARE(timeOf(b), 5 * 10.0); // FedAvg waits for it
        QCOMPARE(a.count("partial-work"), 5);
        QCOMPARE(ra.samplesComputed, std::int64_t(5 * (10 + 10 + 2)));
    }

    void flexibleHandlesArrivalsAndDepartures() {
        // c arrives at 3 s and joins the round starting at 4 s; b leaves at 6.5 s, mid-round,
        // and is back at 20 s: its work of that round is lost. Rounds take 2 s.
        Scenario s = starWithSpeeds({1, 1, 1});
        s.training.localSteps = 2;
        s.topology.nodes[3].availability.kind = AvailabilitySpec::Kind::Trace;
        s.topology.nodes[3].availability.offline.push_back({0, 3});
        s.topology.nodes[2].availability.kind = AvailabilitySpec::Kind::Trace;
        s.topology.nodes[2].availability.offline.push_back({6.5, 20});
        s.sync = policy("flexible", {{"compute_deadline_s", 5}});
        s.stop.rounds = 6;
        Recorder rec;
        runScenario(s, rec);
        std::vector<int> participants;
        for (const auto& r : rec.records) participants.push_back(r.participants);
        QCOMPARE(participants, (std::vector<int>{2, 2, 3, 2, 2, 2}));
        QCOMPARE(timeOf(rec), 12.0);
        QCOMPARE(rec.count("work-lost"), 1);
    }

    void flexibleUnbiasedWeightsHelpSlowTrainersData() {
        // Only the small trainers hold classes 2 and 3; made slow, they finish one step of
        // five before the compute deadline. Plain weights (samples processed) nearly ignore
        // them; the unbiased weights give them their data's share.
        const auto data = skewedBundle();
        auto run = [&](int weighting) {
            Scenario s = skewedTraining("all", {});
            for (int t = 5; t <= 8; ++t) s.topology.nodes[static_cast<std::size_t>(t)].compute.throughput = Range::exactly(20.0);
            s.sync = policy("flexible", {{"compute_deadline_s", 0.6}, {"weighting", weighting}});
            Recorder rec;
            return runWithData(s, data, rec);
        };
        const RunSummary unbiased = run(1);
        const RunSummary plain = run(0);
        qInfo("test accuracy: unbiased %.3f, plain %.3f", unbiased.finalTestAccuracy, plain.finalTestAccuracy);
        QVERIFY2(unbiased.finalTestAccuracy > plain.finalTestAccuracy,
                 qPrintable(QString("unbiased %1, plain %2").arg(unbiased.finalTestAccuracy).arg(plain.finalTestAccuracy)));
    }

    // ---------------------------------------------------------------- ton-plan
    void plannerMinimisesItsOwnCostModelOverAGrid() {
        TonPlannerInputs in;
        in.eta = 0.05;
        in.c = in.mu = in.L = 1.0;
        in.M = 4.0;
        in.batch = 1;
        in.initialGap = 2.0;
        in.targetGap = 0.05;
        in.lambda = 10.0;
        in.commSeconds = 0.05;
        in.availability = 0.8;
        in.pricePerHour = 3.6;
        in.maxWorkers = 30;
        in.deadlineS = 60;
        const TonPlan plan = planTon(in);
        QVERIFY(plan.best >= 0);
        const TonPlanPoint& best = plan.grid[static_cast<std::size_t>(plan.best)];
        int feasible = 0;
        for (int n = 1; n <= in.maxWorkers; ++n) {
            const TonPlanPoint pt = evaluateTonPlan(in, n);
            if (!pt.feasible) continue;
            ++feasible;
            QVERIFY(best.expectedCost <= pt.expectedCost);
        }
        QVERIFY(feasible > 1);              // a real choice, not the only option
        QVERIFY(best.n > 1 && best.n < 30); // more workers lower the floor but cost more
        // J is the smallest number of iterations whose bound meets the target.
        const double q = 1 - in.eta * in.c * in.mu;
        auto bound = [&](long J) { return std::pow(q, J) * (in.initialGap - best.errorFloor) + best.errorFloor; };
        QVERIFY(bound(best.J) <= in.targetGap);
        QVERIFY(bound(best.J - 1) > in.targetGap);
        qInfo("plan: n=%d J=%ld time %.1f s cost %.3f", best.n, best.J, best.expectedSeconds, best.expectedCost);

        // Closed forms: with q = 1 an iteration takes H_n / lambda (fully-sync).
        in.availability = 1.0;
        in.commSeconds = 0.0;
        const TonPlanPoint four = evaluateTonPlan(in, 4);
        QCOMPARE(four.expectedSeconds, four.J * (1 + 0.5 + 1.0 / 3 + 0.25) / 10.0);
        QCOMPARE(binomialPositiveProbability(3, 0.5), 1 - 0.125);
        // A target below every error floor has no plan.
        in.targetGap = 1e-6;
        QVERIFY(planTon(in).best < 0);
    }

    void planPredictionMatchesTheEmulation() {
        Scenario s = starWithSpeeds(std::vector<double>(12, 10.0));
        for (std::size_t i = 1; i < s.topology.nodes.size(); ++i) {
            s.topology.nodes[i].compute.noise.kind = NoiseSpec::Kind::Exponential;
            s.topology.nodes[i].pricePerHour = 36.0;
        }
        s.selection = policy("ton-plan", {{"target_gap", 0.05}, {"f0_gap", 2}, {"eta", 0.02}, {"M", 6},
                                          {"deadline_s", 200}});
        // A one-round run reports the plan; then run the planned J iterations.
        Recorder first;
        Scenario once = s;
        once.stop.rounds = 1;
        runScenario(once, first);
        QCOMPARE(first.count("plan"), 1);
        TonPlanPoint expect;
        for (const auto& ev : first.events)
            if (ev.kind == RunEventKind::Plan) {
                const QString d = QString::fromStdString(ev.detail);
                expect.n = d.section("n=", 1).section(' ', 0, 0).toInt();
                expect.J = d.section("J=", 1).section(' ', 0, 0).toLong();
                expect.expectedSeconds = d.section("predicted_time_s=", 1).section(' ', 0, 0).toDouble();
                expect.expectedCost = d.section("predicted_cost=", 1).section(' ', 0, 0).toDouble();
            }
        QVERIFY(expect.n > 1 && expect.J > 50); // one worker's error floor (0.06) is above the target
        s.stop.rounds = static_cast<int>(expect.J);
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        qInfo("planned n=%d J=%ld: predicted %.1f s / %.3f, emulated %.1f s / %.3f", expect.n, expect.J,
              expect.expectedSeconds, expect.expectedCost, timeOf(rec), r.cost);
        QCOMPARE(rec.records.front().participants, expect.n);
        QVERIFY(std::abs(timeOf(rec) / expect.expectedSeconds - 1) < 0.1);
        QVERIFY(std::abs(r.cost / expect.expectedCost - 1) < 0.1);
    }

    // ---------------------------------------------------------------- adacoopt
    void greedyBatchesAreExact() {
        Rng rng(3);
        for (int trial = 0; trial < 40; ++trial) {
            const std::vector<double> D = {1.0 + rng.below(50), 1.0 + rng.below(50), 1.0 + rng.below(50)};
            const std::vector<int> caps = {1 + int(rng.below(6)), 1 + int(rng.below(6)), 1 + int(rng.below(6))};
            const long budget = 3 + static_cast<long>(rng.below(12));
            auto value = [&](const std::vector<int>& b) {
                double v = 0;
                for (int i = 0; i < 3; ++i) v += D[i] * D[i] / b[i];
                return v;
            };
            double best = std::numeric_limits<double>::infinity();
            for (int a = 1; a <= caps[0]; ++a)
                for (int b = 1; b <= caps[1]; ++b)
                    for (int c = 1; c <= caps[2]; ++c)
                        if (a + b + c <= budget) best = std::min(best, value({a, b, c}));
            const auto got = greedyBatches(D, caps, 1, budget);
            QVERIFY(got[0] + got[1] + got[2] <= budget);
            for (int i = 0; i < 3; ++i) QVERIFY(got[i] >= 1 && got[i] <= caps[i]);
            QVERIFY2(std::abs(value(got) - best) < 1e-9, qPrintable(QString("trial %1").arg(trial)));
        }
    }

    void adacooptMinimisesTheBound() {
        AdaCoOptConstants k;
        k.eta = 0.05;
        k.c = 0.5;
        k.rounds = 30;
        k.delta = 0.2;
        const std::vector<double> D = {100, 400, 200, 50};
        const std::vector<double> v = {10, 20, 40, 80};
        const std::vector<double> comm = {0.1, 0.1, 0.1, 0.1};
        AdaCoOptLimits lim;
        lim.roundTimeS = 2.0;
        lim.maxTau = 8;
        const AdaCoOptPlan p = planAdaCoOpt(k, D, v, comm, lim);
        // Every tau with its own best batches has a bound at least as large.
        for (int tau = 1; tau <= lim.maxTau; ++tau) {
            const auto caps = batchCaps(v, comm, tau, lim);
            QVERIFY(p.gap <= adacooptGap(k, tau, D, greedyBatches(D, caps, 1, 0)) + 1e-15);
        }
        const auto caps = batchCaps(v, comm, p.tau, lim);
        for (std::size_t i = 0; i < D.size(); ++i) QVERIFY(p.batches[i] <= caps[i]);
        // Dynamic-T's choice is feasible for AdaCoOpt, so AdaCoOpt's bound is no worse.
        const AdaCoOptPlan dyn = planDynamicTau(k, D, v, comm, 10, lim);
        QVERIFY(p.gap <= dyn.gap);
        QVERIFY(p.gap < dyn.gap); // and here strictly better: the slow trainer limits Dynamic-T
        // No-straggler: equal finishing times.
        const auto ns = noStragglerBatches(v, 15, 256);
        QCOMPARE(ns, (std::vector<int>{4, 8, 16, 32}));
        qInfo("adacoopt tau=%d batches %d %d %d %d bound %.4f; dynamic-t tau=%d bound %.4f", p.tau,
              p.batches[0], p.batches[1], p.batches[2], p.batches[3], p.gap, dyn.tau, dyn.gap);
    }

    void adacooptUsesTheRoundTimeAndReplans() {
        Scenario s = starWithSpeeds({10, 20, 40, 80});
        s.training.batchSize = 10;
        s.sync = policy("adacoopt", {{"round_time_s", 2}, {"max_tau", 8}});
        s.stop.rounds = 10;
        Scenario dyn = s;
        dyn.sync = policy("dynamic-t", {{"round_time_s", 2}, {"max_tau", 8}});
        Scenario fed = s;
        fed.sync = policy("fedavg");
        fed.training.localSteps = 2;
        Recorder a, b, f;
        const RunSummary ra = runScenario(s, a);
        const RunSummary rb = runScenario(dyn, b);
        runScenario(fed, f);
        double prev = 0;
        for (const auto& r : a.records) { // every round fits the time budget
            QVERIFY(r.time - prev <= 2.0 + 1e-9);
            prev = r.time;
        }
        // Same rounds and round budget, but per-trainer batches use the fast trainers' speed.
        const double rateA = ra.samplesComputed / timeOf(a), rateB = rb.samplesComputed / timeOf(b);
        qInfo("samples per second: adacoopt %.1f, dynamic-t %.1f", rateA, rateB);
        QVERIFY(rateA > 2 * rateB);
        QCOMPARE(a.count("plan"), 1); // no noise: the measured speeds confirm the plan

        // With noisy steps the measured speeds move and the plan follows them.
        for (std::size_t i = 1; i < s.topology.nodes.size(); ++i)
            s.topology.nodes[i].compute.noise.kind = NoiseSpec::Kind::Exponential;
        Recorder noisy;
        runScenario(s, noisy);
        QVERIFY(noisy.count("plan") > 1);
    }

    void noStragglerEqualisesFinishingTimes() {
        Scenario s = starWithSpeeds({10, 20, 40, 80});
        s.data.samplesPerTrainer = 960; // whole batches only: no short last batch of an epoch
        s.training.batchSize = 15;
        s.training.localSteps = 2;
        s.sync = policy("no-straggler");
        s.stop.rounds = 5;
        Scenario fed = s;
        fed.sync = policy("fedavg");
        Recorder a, f;
        const RunSummary ra = runScenario(s, a);
        const RunSummary rf = runScenario(fed, f);
        // Batches 4, 8, 16, 32: every trainer computes 2 x 0.4 s; uniform batches of 15 wait
        // 2 x 1.5 s for the slowest, for about the same samples per round (60 vs 60).
        QCOMPARE(timeOf(a), 5 * 0.8);
        QCOMPARE(timeOf(f), 5 * 3.0);
        QCOMPARE(ra.samplesComputed, rf.samplesComputed);
    }

    // ---------------------------------------------------------------- placement
    void placementRespectsCapacitiesAndIsOptimal() {
        Rng rng(9);
        for (int trial = 0; trial < 40; ++trial) {
            std::vector<RegionOffer> r(3);
            int capacity = 0;
            for (auto& x : r) {
                x.capacity = static_cast<int>(rng.below(5));
                x.pricePerHour = 0.5 + 3 * rng.uniform();
                capacity += x.capacity;
            }
            const double a = rng.uniform(), b = rng.uniform() * (1 - a);
            r[0].dataShare = a;
            r[1].dataShare = b;
            r[2].dataShare = 1 - a - b;
            PlacementModel m;
            m.workers = 1 + static_cast<int>(rng.below(10));
            m.hours = 2;
            m.dataGb = 50;
            m.egressPerGb = 0.1 * rng.uniform();
            m.minPerRegion = static_cast<int>(rng.below(2));
            const auto w = placeWorkers(r, m);
            int placed = 0;
            for (std::size_t i = 0; i < 3; ++i) {
                QVERIFY(w[i] >= 0 && w[i] <= r[i].capacity);
                QVERIFY(w[i] >= std::min(m.minPerRegion, r[i].capacity));
                placed += w[i];
            }
            int floorSum = 0;
            for (const auto& x : r) floorSum += std::min(m.minPerRegion, x.capacity);
            const int target = std::max(floorSum, std::min(m.workers, capacity));
            QCOMPARE(placed, target);
            double best = std::numeric_limits<double>::infinity();
            for (int x = 0; x <= r[0].capacity; ++x)
                for (int y = 0; y <= r[1].capacity; ++y) {
                    const int z = target - x - y;
                    if (z < 0 || z > r[2].capacity) continue;
                    const std::vector<int> v = {x, y, z};
                    bool ok = true;
                    for (std::size_t i = 0; i < 3; ++i) ok = ok && v[i] >= std::min(m.minPerRegion, r[i].capacity);
                    if (ok) best = std::min(best, placementCost(r, m, v));
                }
            QVERIFY2(std::abs(placementCost(r, m, w) - best) < 1e-9, qPrintable(QString("trial %1").arg(trial)));
        }
    }

    void placementPrefersDataLocalRegions() {
        std::vector<RegionOffer> r = {{"a", 4, 1.0, 0.8}, {"b", 4, 1.0, 0.2}};
        PlacementModel m;
        m.workers = 4;
        m.dataGb = 100;
        m.egressPerGb = 0.09;
        // Workers follow the data: B's first worker saves more egress than A's fourth.
        QCOMPARE(placeWorkers(r, m), (std::vector<int>{3, 1}));
        r[0].dataShare = 1.0;
        r[1].dataShare = 0.0;
        QCOMPARE(placeWorkers(r, m), (std::vector<int>{4, 0}));
        // A region that costs more than the egress it saves gets nobody.
        r[0] = {"a", 2, 1.0, 0.5};
        r[1] = {"b", 4, 10.0, 0.5};
        QCOMPARE(placeWorkers(r, m), (std::vector<int>{2, 2})); // capacity forces B to take 2
        m.workers = 2;
        QCOMPARE(placeWorkers(r, m), (std::vector<int>{2, 0}));
    }

    void placementCutsCostAcrossRegions() {
        // Two regional servers with four trainers each; B's trainers cost three times as much.
        Scenario s;
        s.name = "regions";
        s.topology.nodes.push_back(makeNode("A", Role::Aggregator, ""));
        s.topology.nodes.push_back(makeNode("B", Role::Aggregator, ""));
        for (int i = 0; i < 4; ++i) {
            s.topology.nodes.push_back(makeNode("a" + std::to_string(i), Role::Trainer, "A", 1.0));
            s.topology.nodes.back().pricePerHour = 3600;
            s.topology.nodes.push_back(makeNode("b" + std::to_string(i), Role::Trainer, "B", 1.0));
            s.topology.nodes.back().pricePerHour = 3 * 3600;
        }
        s.data.kind = DataSpec::Kind::None;
        s.model.kind = ModelSpec::Kind::None;
        s.training.batchSize = 1;
        s.training.localSteps = 2;
        s.sync = policy("model-averaging", {{"period", 2}});
        s.selection = policy("placement", {{"workers", 5}});
        s.stop.rounds = 3;
        Scenario all = s;
        all.selection = policy("all");
        Recorder p, q;
        const RunSummary rp = runScenario(s, p);
        const RunSummary rq = runScenario(all, q);
        QCOMPARE(p.count("placement"), 1);
        QVERIFY(p.events.front().detail.find("A=4 B=1") != std::string::npos);
        QCOMPARE(timeOf(p), timeOf(q)); // alike trainers: the same timeline
        // 4 x 1 + 1 x 3 per second instead of 4 x 1 + 4 x 3: 7 / 16 of the cost.
        QCOMPARE(rp.cost / rq.cost, 7.0 / 16.0);
    }

    // ---------------------------------------------------------------- scenario files
    // ---------------------------------------------------------------- edge cases (review)
    void adacooptRefusesABoundThatCannotContract() {
        Scenario s = starWithSpeeds({100, 200});
        s.sync = policy("adacoopt", {{"eta", 0.01}, {"c", 1e6}});
        try {
            Engine engine(s, {});
            QFAIL("eta c >= 1 was accepted");
        } catch (const EngineError& e) {
            QVERIFY2(QString(e.what()).contains("eta * c must lie in (0, 1)"), e.what());
        }
    }

    void placementQuotaHoldsUnderAsync() {
        // Async selection tops up after every arrival: busy workers fill the quota too.
        Scenario s = starWithSpeeds({100, 100, 100, 100, 100, 100});
        for (std::size_t i = 1; i < s.topology.nodes.size(); ++i) s.topology.nodes[i].region = i <= 3 ? "A" : "B";
        s.sync = policy("async-ga", {{"k", 2}});
        s.selection = policy("placement", {{"workers", 2}});
        s.stop.rounds = 40;
        Recorder rec;
        runScenario(s, rec);
        std::set<int> computing;
        for (const auto& iv : rec.intervals)
            if (iv.state == NodeState::Computing) computing.insert(iv.node);
        QCOMPARE(static_cast<int>(computing.size()), 2);
    }

    void tonPlanNeedsTrainersUnderTheServer() {
        Scenario s = starWithSpeeds({100, 100});
        // Put the trainers under an edge aggregator: nothing reports to the server directly.
        NodeSpec edge = makeNode("edge", Role::Aggregator, "server");
        s.topology.nodes.push_back(edge);
        for (std::size_t i = 1; i <= 2; ++i) s.topology.nodes[i].parent = "edge";
        s.selection = policy("ton-plan", {{"target_gap", 0.1}});
        try {
            Engine engine(s, {});
            QFAIL("a nested tree was planned");
        } catch (const EngineError& e) {
            QVERIFY2(QString(e.what()).contains("needs trainers directly under"), e.what());
        }
    }

    void tonPlanWithAnEndlessOutage() {
        // A trainer that leaves for good has availability ~0, not NaN: the plan stays defined.
        Scenario s = starWithSpeeds({100, 100, 100});
        s.topology.nodes[3].availability.kind = AvailabilitySpec::Kind::Trace;
        s.topology.nodes[3].availability.offline = {{10.0, std::numeric_limits<double>::infinity()}};
        s.selection = policy("ton-plan", {{"target_gap", 0.1}});
        s.stop.rounds = 2;
        Recorder rec;
        const RunSummary r = runScenario(s, rec);
        QCOMPARE(r.status, RunStatus::Finished);
        QCOMPARE(rec.count("plan"), 1);
    }

    void dataValueRefusesAnOversizedProgramme() {
        Scenario s = starWithSpeeds({100, 100, 100});
        s.selection = policy("data-value", {{"budget", 2}, {"budget_steps", 10000}, {"data_steps", 1000}});
        try {
            Engine engine(s, {});
            QFAIL("a DP of 3e10 steps was started");
        } catch (const EngineError& e) {
            QVERIFY2(QString(e.what()).contains("lower budget_steps or data_steps"), e.what());
        }
    }

    void badPolicyParametersAreReported_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("ton-plan sync") << "bad/ton_plan_sync.yaml"
                                       << QStringList{":9:21: selection.policy ton-plan plans fully-sync, n-sync or "
                                                      "n-batch-sync rounds, but sync.policy is 'fedavg'"};
        QTest::newRow("ranges") << "bad/policy_param_research.yaml"
                                << QStringList{"sync.compute_deadline_s", "sync.weighting", "selection.epsilon"};
    }
    void badPolicyParametersAreReported() {
        QFETCH(QString, file);
        QFETCH(QStringList, expected);
        const std::string path = std::string(FOG_TEST_DATA) + "/scenarios/" + file.toStdString();
        QString all;
        try {
            loadScenarioFile(path);
            QFAIL("expected the scenario to be rejected");
        } catch (const ScenarioError& e) {
            for (const auto& d : e.diagnostics) all += QString::fromStdString(d.format()) + "\n";
        }
        for (const QString& x : expected) QVERIFY2(all.contains(x), qPrintable("expected " + x + " in:\n" + all));
    }

    void everyPolicyValidatesWithItsDefaults() {
        // Every policy with its defaults passes the validator on a one-server tree.
        for (const auto* infos : {&syncPolicyInfos(), &selectionPolicyInfos()})
            for (const auto& info : *infos) {
                Scenario s = starWithSpeeds({1, 2});
                s.sync = policy(infos == &syncPolicyInfos() ? info.name : "fully-sync");
                if (infos == &selectionPolicyInfos()) s.selection = policy(info.name);
                if (s.sync.name == "hierarchical" || s.sync.name == "model-averaging") continue;
                const auto d = validateScenario(s);
                if (!d.empty()) QFAIL(qPrintable(QString::fromStdString(info.name + ": " + d.front().format())));
            }
    }

    // ---------------------------------------------------------------- all
    void sameMetricsForAnyThreadCount() {
        // Real training, policies that adapt to what they observe: still the same numbers.
        const auto data = skewedBundle();
        for (const auto& [sync, selection] : std::vector<std::pair<PolicySpec, PolicySpec>>{
                 {policy("flexible", {{"compute_deadline_s", 0.3}}), policy("oort", {{"k", 4}})},
                 {policy("adacoopt", {{"round_time_s", 1}}), policy("data-value", {{"budget", 5}})}}) {
            Scenario s = skewedTraining("all", {});
            for (int t = 1; t <= 8; ++t)
                s.topology.nodes[static_cast<std::size_t>(t)].compute.noise.kind = NoiseSpec::Kind::Exponential;
            s.sync = sync;
            s.selection = selection;
            s.evaluation.everyRounds = 5;
            Recorder one, two;
            EngineOptions o;
            o.data = data;
            o.observer = &one;
            Engine(s, o).run();
            o.threads = 2;
            o.observer = &two;
            Engine(s, o).run();
            QCOMPARE(one.records.size(), two.records.size());
            for (std::size_t i = 0; i < one.records.size(); ++i) {
                QCOMPARE(one.records[i].time, two.records[i].time);
                QCOMPARE(one.records[i].trainLoss, two.records[i].trainLoss);
                QCOMPARE(one.records[i].participants, two.records[i].participants);
                if (!std::isnan(one.records[i].testAccuracy))
                    QCOMPARE(one.records[i].testAccuracy, two.records[i].testAccuracy);
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestPolicies)
#include "test_policies.moc"
