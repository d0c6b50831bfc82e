// Golden files: every training preset, shortened, runs at one and two threads and must give
// the metrics, events and summary stored in tests/data/golden/. Numbers are written with 17
// significant digits. The reproducibility rule (docs/reproducibility.md): with the kernel set
// the files were made with (tests/data/golden/KERNELS, core/util/numerics.h), everything is
// compared as text, bit for bit; with another kernel set (another CPU, or kernels chosen by
// ATEN_CPU_CAPABILITY / OPENBLAS_CORETYPE), what the virtual clock computes must still be
// identical and the training values (losses, accuracies) agree within the stated tolerance.
// CTest runs this file twice: as test_golden, and as test_golden_foreign_kernels under a
// kernel choice no current CPU makes by itself (FOG_GOLDEN_EXPECT_FOREIGN=1 checks that it
// really is another kernel set), so a developer's own CPU cannot hide a difference.
//
// Regenerate only on purpose (a change that is meant to alter results), with the pinned
// portable kernels (no ATEN_CPU_CAPABILITY, OPENBLAS_CORETYPE or FOG_KERNELS set):
//   FOG_GOLDEN_WRITE=1 build/tests/test_golden
// and say why in the commit.

#include "engine_fixtures.h"

#include "core/data/dataset.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/variants.h"
#include "core/util/numerics.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace fog;
using namespace fogtest;

namespace {

const std::string kPresets = std::string(FOG_SOURCE_DIR) + "/presets/";
const std::string kGolden = std::string(FOG_TEST_DATA) + "/golden/";

/// Golden files of presets that were merged into one file with variants (issue 15): each is
/// compared with the variant that is the old file ("" = the base scenario), bit for bit.
struct Merged {
    const char* golden;
    const char* file;
    const char* variant;
};
const Merged kMerged[] = {
    {"geo-single-ps", "geo-three-regions.yaml", ""},
    {"geo-regional-ma", "geo-three-regions.yaml", "regional-ma"},
    {"hierarchical-three-tier", "hierarchical-tiers.yaml", ""},
    {"hierarchical-flat", "hierarchical-tiers.yaml", "flat"},
};

/// Presets whose planner now calibrates its constants by default (issue 18: 0 = auto, a pilot
/// phase estimates them): their golden files were made with the constants given, at the old
/// defaults, so they are given here. The calibrated runs are tested in test_planners_calibrated.
struct GivenConstants {
    const char* file;
    const char* key;
    const char* value;
};
const GivenConstants kGivenConstants[] = {
    {"adacoopt-batch-interval.yaml", "sync",
     "{policy: adacoopt, round_time_s: 1, c: 0.1, beta: 1, rho: 1, delta: 1, f0: 1}"},
};

std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

/// The shortened preset: a data subset (4000 samples, or 50 per trainer where there are many),
/// at most 4 global rounds, evaluation every round.
std::vector<Override> shorten(const Scenario& full) {
    std::size_t trainers = 0;
    const std::vector<long long> members = memberCounts(full.topology);
    for (std::size_t i = 0; i < full.topology.nodes.size(); ++i)
        if (full.topology.nodes[i].role != Role::Aggregator) trainers += static_cast<std::size_t>(members[i]);
    const std::size_t train = std::max<std::size_t>(4000, 50 * trainers);
    return {{"data.max_train_samples", std::to_string(train)},
            {"data.max_test_samples", "500"},
            {"stop.rounds", "4"},
            {"evaluation.every_rounds", "1"}};
}

/// Everything a run reports that does not depend on the wall clock.
std::string transcript(const Recorder& rec) {
    std::ostringstream o;
    for (const auto& r : rec.records)
        o << "agg " << r.round << ' ' << r.level << ' ' << r.aggregator << ' ' << num(r.time) << ' '
          << num(r.trainLoss) << ' ' << r.participants << ' ' << num(r.learningRate) << ' '
          << num(r.cost) << ' ' << num(r.energyJ) << ' ' << num(r.bytes) << ' '
          << num(r.meanStaleness) << ' ' << r.maxStaleness << ' ' << num(r.testLoss) << ' '
          << num(r.testAccuracy) << '\n';
    for (const auto& e : rec.events)
        o << "event " << num(e.time) << ' ' << e.kindName() << ' ' << e.node << ' ' << e.detail << '\n';
    // Intervals arrive in batches whose split may depend on timing; compare them sorted.
    std::vector<std::string> iv;
    iv.reserve(rec.intervals.size());
    for (const auto& i : rec.intervals)
        iv.push_back("interval " + std::to_string(i.node) + ' ' + toString(i.state) + ' ' +
                     num(i.from) + ' ' + num(i.to));
    std::sort(iv.begin(), iv.end());
    for (const auto& line : iv) o << line << '\n';
    const RunSummary& s = rec.summary;
    o << "summary " << static_cast<int>(s.status) << ' ' << s.stopReason << " | " << s.rounds << ' '
      << s.aggregations << ' ' << num(s.virtualTime) << ' ' << num(s.cost) << ' '
      << num(s.energyJ) << ' ' << num(s.bytes) << ' ' << num(s.finalTestLoss) << ' '
      << num(s.finalTestAccuracy) << ' ' << num(s.bestTestAccuracy) << ' '
      << num(s.finalTrainLoss) << ' ' << s.samplesComputed << ' ' << s.lostJobs << '\n';
    return o.str();
}

/// Whitespace-separated words.
std::vector<std::string> words(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

/// How far the training values of a transcript made with other kernels are from the golden.
struct Deviation {
    double lossRelative = 0;
    double accuracyAbsolute = 0;
};

/// The rule for one line: "" when it holds. Words at `training` positions (losses; accuracy
/// where `accuracy` is set) may differ within the tolerance, every other word must be equal.
std::string ruleLine(const std::string& want, const std::string& got, const std::vector<int>& losses,
                     const std::vector<int>& accuracies, Deviation& dev) {
    const auto a = words(want), b = words(got);
    if (a.size() != b.size()) return "a different number of values";
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] == b[i]) continue;
        const bool loss = std::find(losses.begin(), losses.end(), int(i)) != losses.end();
        const bool acc = std::find(accuracies.begin(), accuracies.end(), int(i)) != accuracies.end();
        if (!loss && !acc) return "value " + std::to_string(i + 1) + " (not a training value) differs";
        const double x = std::stod(a[i]), y = std::stod(b[i]);
        if (loss) dev.lossRelative = std::max(dev.lossRelative, std::fabs(x - y) / std::max(std::fabs(x), std::fabs(y)));
        if (acc) dev.accuracyAbsolute = std::max(dev.accuracyAbsolute, std::fabs(x - y));
        if (!trainingValuesAgree(x, y, acc))
            return "training value " + std::to_string(i + 1) + " beyond the cross-kernel tolerance";
    }
    return "";
}

/// The cross-kernel comparison of two transcripts: "" when the rule holds.
std::string ruleDifference(const std::string& want, const std::string& got, Deviation& dev) {
    std::istringstream a(want), b(got);
    std::string la, lb;
    for (int line = 1;; ++line) {
        const bool ha = static_cast<bool>(std::getline(a, la));
        const bool hb = static_cast<bool>(std::getline(b, lb));
        if (!ha && !hb) return "";
        if (!ha || !hb) return "line " + std::to_string(line) + ": one transcript ends";
        if (la == lb) continue;
        std::string why;
        if (la.rfind("agg ", 0) == 0) {
            // agg round level aggregator time TRAIN participants lr cost energy bytes stale max TEST_LOSS TEST_ACC
            why = ruleLine(la, lb, {5, 13}, {14}, dev);
        } else if (la.rfind("summary ", 0) == 0) {
            // The stop reason (before " | ") must be equal; after it: rounds aggregations time cost
            // energy bytes FINAL_LOSS FINAL_ACC BEST_ACC FINAL_TRAIN samples lost.
            const auto pa = la.find(" | "), pb = lb.find(" | ");
            if (pa == std::string::npos || pb == std::string::npos || la.substr(0, pa) != lb.substr(0, pb))
                why = "the status or stop reason differs";
            else
                why = ruleLine(la.substr(pa + 3), lb.substr(pb + 3), {6, 9}, {7, 8}, dev);
        } else {
            why = "events and intervals are the virtual clock's: they must be identical";
        }
        if (!why.empty()) return "line " + std::to_string(line) + ": " + why + "\n  golden: " + la + "\n  now:    " + lb;
    }
}

std::string readAll(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream o;
    o << in.rdbuf();
    return o.str();
}

/// The kernel set the golden files were made with (tests/data/golden/KERNELS).
std::string goldenKernels() {
    std::ifstream in(kGolden + "KERNELS");
    std::string line;
    std::getline(in, line);
    return line;
}

bool sameKernels() { return goldenKernels() == kernelSet().key(); }

/// First differing line, for the failure message.
QString firstDifference(const std::string& want, const std::string& got) {
    std::istringstream a(want), b(got);
    std::string la, lb;
    for (int line = 1;; ++line) {
        const bool ha = static_cast<bool>(std::getline(a, la));
        const bool hb = static_cast<bool>(std::getline(b, lb));
        if (!ha && !hb) return "no difference";
        if (!ha || !hb || la != lb)
            return QString("line %1:\n  golden: %2\n  now:    %3")
                .arg(line)
                .arg(ha ? QString::fromStdString(la) : "<end>")
                .arg(hb ? QString::fromStdString(lb) : "<end>");
    }
}

} // namespace

class TestGolden : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void presets_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("variant");
        QTest::addColumn<QString>("golden");
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(kPresets))
            if (e.path().extension() == ".yaml") files.push_back(e.path().filename().string());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            if (readAll(kPresets + f).find("\nkind: cluster") != std::string::npos) continue;
            if (f.rfind("tapfinger", 0) == 0) continue; // cluster experiment, not training
            if (std::any_of(std::begin(kMerged), std::end(kMerged), [&](const Merged& m) { return f == m.file; }))
                continue;
            // Presets with timed events or trace files (spot-price-bid) have no golden
            // transcript (none was made with them); tests/test_timed_events.cpp covers what
            // the engine does with them.
            if (const Scenario s = loadScenarioFile(kPresets + f); !s.events.list.empty() || !s.events.traces.empty())
                continue;
            QTest::newRow(f.c_str()) << QString::fromStdString(f) << QString() << QString::fromStdString(f.substr(0, f.size() - 5));
        }
        for (const Merged& m : kMerged)
            QTest::newRow(m.golden) << QString(m.file) << QString(m.variant) << QString(m.golden);
    }
    void presets() {
        QFETCH(QString, file);
        QFETCH(QString, variant);
        QFETCH(QString, golden);
        if (!std::filesystem::exists(defaultFashionMnistDir() + "/train-images-idx3-ubyte.gz"))
            QSKIP("Fashion-MNIST is not installed");
        const std::string name = file.toStdString();
        std::string got[2];
        try {
            const std::string path = kPresets + name, v = variant.toStdString();
            std::vector<Override> overrides = v.empty() ? shorten(loadScenarioFile(path)) : shorten(loadVariantFile(path, v));
            for (const GivenConstants& g : kGivenConstants)
                if (v.empty() && name == g.file) overrides.push_back({g.key, g.value});
            Scenario s = v.empty() ? loadScenarioFile(path, overrides) : loadVariantFile(path, v, overrides);
            // The golden files were made with the ideal network (every transfer alone on its
            // links): they check that contention off keeps that model bit for bit. Sharing
            // (issue 12) is tested in test_network.
            s.topology.contention = false;
            for (int threads : {1, 2}) {
                Recorder rec;
                runScenario(s, rec, threads);
                got[threads - 1] = transcript(rec);
            }
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QVERIFY2(got[0] == got[1],
                 qPrintable("1 vs 2 threads differ at " + firstDifference(got[0], got[1])));
        const std::string path = kGolden + golden.toStdString() + ".txt";
        if (std::getenv("FOG_GOLDEN_WRITE")) {
            std::filesystem::create_directories(kGolden);
            std::ofstream(kGolden + "KERNELS") << kernelSet().key() << '\n';
            std::ofstream(path) << got[0];
            qInfo("wrote %s", path.c_str());
            return;
        }
        QVERIFY2(std::filesystem::exists(path), qPrintable(QString::fromStdString("no golden file " + path)));
        const std::string want = readAll(path);
        if (sameKernels()) {
            QVERIFY2(want == got[0], qPrintable(QString::fromStdString(name + " " + variant.toStdString() +
                                                                       " differs from its golden file at ") +
                                                firstDifference(want, got[0])));
            return;
        }
        Deviation dev;
        const std::string why = ruleDifference(want, got[0], dev);
        qInfo("%s %s: made with other kernels; largest loss difference %.3g relative, accuracy %.3g (%s)",
              name.c_str(), variant.toStdString().c_str(), dev.lossRelative, dev.accuracyAbsolute,
              want == got[0] ? "identical" : "compared by the rule");
        QVERIFY2(why.empty(), qPrintable(QString::fromStdString(name + " " + variant.toStdString() +
                                                                " breaks the cross-kernel rule at " + why)));
    }

    /// The kernel set the golden files were made with, against this process's.
    void kernelSetIsKnown() {
        const std::string made = goldenKernels();
        QVERIFY2(!made.empty(), "tests/data/golden/KERNELS is missing");
        qInfo("golden files made with: %s", made.c_str());
        qInfo("this process:          %s (%s)", kernelSet().key().c_str(), kernelSet().mode.c_str());
        if (std::getenv("FOG_GOLDEN_EXPECT_FOREIGN"))
            QVERIFY2(!sameKernels(), "FOG_GOLDEN_EXPECT_FOREIGN is set but this process uses the golden files' own "
                                     "kernels: the cross-kernel rule is not exercised");
    }
    /// Every golden file is compared by a row above: none is dropped when presets change.
    void everyGoldenFileIsUsed() {
        for (const auto& e : std::filesystem::directory_iterator(kGolden)) {
            if (e.path().filename() == "KERNELS") continue;
            const std::string stem = e.path().stem().string();
            const bool merged =
                std::any_of(std::begin(kMerged), std::end(kMerged), [&](const Merged& m) { return stem == m.golden; });
            QVERIFY2(merged || std::filesystem::exists(kPresets + stem + ".yaml"),
                     qPrintable(QString::fromStdString("no preset runs for " + e.path().string())));
        }
    }
};

QTEST_GUILESS_MAIN(TestGolden)
#include "test_golden.moc"
