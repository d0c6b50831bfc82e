// Analysis over runs: time to target, Pareto fronts, confidence intervals, tidy CSV that
// parses back, and sweeps whose configurations share their random numbers.

#include "engine_fixtures.h"

#include "core/analysis/analysis.h"
#include "core/analysis/tidy_export.h"
#include "core/scenario/scenario_io.h"
#include "core/sweep/sweep.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace fog;
using namespace fogtest;

namespace {

AggregationRecord eval(int round, double time, double cost, double acc) {
    AggregationRecord r;
    r.round = round;
    r.time = time;
    r.cost = cost;
    r.energyJ = 10 * time;
    r.testAccuracy = acc;
    return r;
}

/// Splits one CSV line (RFC 4180 quoting).
std::vector<std::string> splitCsv(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cur += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cur += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

} // namespace

class TestAnalysis : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void timeToTargetInterpolates() {
        std::vector<AggregationRecord> m = {eval(1, 10, 1, 0.5), eval(2, 20, 2, 0.7), eval(3, 30, 3, 0.9)};
        const auto r = reachTarget(m, 0.8);
        QVERIFY(r);
        QCOMPARE(r->time, 25.0);
        QCOMPARE(r->cost, 2.5);
        QCOMPARE(r->energyJ, 250.0);
        QCOMPARE(r->round, 2.5);
        QVERIFY(!reachTarget(m, 0.95)); // not reached
        QCOMPARE(reachTarget(m, 0.4)->time, 10.0); // reached at the first evaluation
        QCOMPARE(bestAccuracy(m), 0.9);
        QCOMPARE(finalAccuracy(m), 0.9);
    }

    void paretoFrontOfKnownPoints() {
        // (time, cost, accuracy)
        const std::vector<TradeOffPoint> pts = {
            {10, 5, 0.80}, // 0: on the front
            {20, 2, 0.80}, // 1: on the front (cheaper)
            {25, 6, 0.79}, // 2: dominated by 0
            {30, 9, 0.90}, // 3: on the front (most accurate)
            {10, 5, 0.70}, // 4: dominated by 0 (same time and cost, less accurate)
            {40, 1, 0.60}, // 5: on the front (cheapest)
        };
        QCOMPARE(paretoFront(pts), (std::vector<std::size_t>{0, 1, 3, 5}));
        // Over time and cost alone, 3 is dominated by 0, and 4 ties 0 (neither dominates).
        QCOMPARE(paretoFront2d(pts), (std::vector<std::size_t>{0, 1, 4, 5}));
    }

    void confidenceInterval() {
        const MeanCi m = meanWithCi({1, 2, 3, 4, 5});
        QCOMPARE(m.mean, 3.0);
        QCOMPARE(m.n, std::size_t(5));
        // sd = sqrt(2.5), t(4) = 2.776
        QVERIFY(std::abs(m.halfWidth - 2.776 * std::sqrt(2.5) / std::sqrt(5.0)) < 1e-9);
        QVERIFY(std::isnan(meanWithCi({7}).halfWidth));
        QVERIFY(std::isnan(meanWithCi({}).mean));
    }

    void exportedCsvParsesBack() {
        RunWithMetrics a;
        a.run.id = 4;
        a.run.name = "name, with \"quotes\"";
        a.run.seed = 9;
        a.metrics = {eval(1, 1.5, 0.25, kNaN), eval(2, 3.0, 0.5, 0.625)};
        a.metrics[1].aggregator = "cloud";
        std::ostringstream out;
        writeMetricsCsv({a}, out);
        std::istringstream in(out.str());
        std::string line;
        std::getline(in, line);
        const auto header = splitCsv(line);
        QCOMPARE(header, metricsColumns());
        std::vector<std::vector<std::string>> rows;
        while (std::getline(in, line)) rows.push_back(splitCsv(line));
        QCOMPARE(rows.size(), std::size_t(2));
        auto col = [&](const char* name) {
            return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
        };
        QCOMPARE(rows[0].size(), header.size());
        QCOMPARE(rows[0][col("run_name")], a.run.name);
        QCOMPARE(rows[0][col("test_accuracy")], std::string()); // NaN is an empty cell
        QCOMPARE(std::stod(rows[1][col("test_accuracy")]), 0.625);
        QCOMPARE(std::stod(rows[1][col("virtual_time_s")]), 3.0);
        QCOMPARE(rows[1][col("aggregator")], std::string("cloud"));
        QCOMPARE(std::stoi(rows[1][col("round")]), 2);
    }

    void sweepConfigurationsAreTheProduct() {
        const auto axes = std::vector<SweepAxis>{parseSweepAxis("sync.policy=fully-sync,n-sync"),
                                                 parseSweepAxis("model.hidden=[100,50],[200]")};
        QCOMPARE(axes[1].values, (std::vector<std::string>{"[100,50]", "[200]"}));
        const auto configs = sweepConfigurations(axes);
        QCOMPARE(configs.size(), std::size_t(4));
        QCOMPARE(configs[1][0].value, std::string("fully-sync"));
        QCOMPARE(configs[1][1].value, std::string("[200]"));
        QVERIFY_THROWS_EXCEPTION(ScenarioError, parseSweepAxis("sync.n=1,,3"));
    }

    void sweepUsesCommonRandomNumbers() {
        // Volatile stragglers; the policies differ, the luck must not.
        Scenario s = timingStar(6, 1.0, NoiseSpec::Kind::Exponential);
        s.topology.group(0).availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.group(0).availability.meanUpS = 5;
        s.topology.group(0).availability.meanDownS = 2;
        s.sync.name = "fully-sync";
        s.stop.rounds = 0;
        s.stop.virtualTimeS = 60;
        QTemporaryDir dir;
        const std::string file = (dir.path() + "/s.yaml").toStdString();
        saveScenarioFile(s, file);
        RunStore store((dir.path() + "/runs.db").toStdString());
        SweepSpec spec;
        spec.file = file;
        spec.axes = {parseSweepAxis("sync.policy=fully-sync,async,fedavg")};
        spec.repeats = 2;
        spec.parallel = 2;
        SweepResult r;
        try {
            r = runSweep(spec, store);
        } catch (const ScenarioError& e) {
            QFAIL(e.what());
        }
        QCOMPARE(r.runIds.size(), std::size_t(6));
        QCOMPARE(r.failed, 0);

        // Same repeat: identical availability events in every configuration; different
        // repeats: different draws.
        std::map<int, std::vector<std::string>> traceOfRepeat;
        std::map<int, std::set<double>> timesOfRepeat;
        for (const auto& run : store.listRuns({"", "", r.sweepId, 0})) {
            std::vector<std::string> trace;
            for (const auto& e : store.events(run.id))
                if (e.kind == RunEventKind::Offline || e.kind == RunEventKind::Online)
                    trace.push_back(e.kindName() + "@" + std::to_string(e.node) + ":" + std::to_string(e.time));
            QVERIFY(!trace.empty());
            if (traceOfRepeat.count(run.repeat))
                QCOMPARE(trace, traceOfRepeat[run.repeat]);
            else
                traceOfRepeat[run.repeat] = trace;
            timesOfRepeat[run.repeat].insert(run.summary.virtualTime);
        }
        QCOMPARE(traceOfRepeat.size(), std::size_t(2));
        QVERIFY(traceOfRepeat[0] != traceOfRepeat[1]);
    }
};

QTEST_GUILESS_MAIN(TestAnalysis)
#include "test_analysis.moc"
