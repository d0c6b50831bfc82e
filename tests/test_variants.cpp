// Variants in one scenario file (issue 15): `variants:`, `vary:` and `repeats:` are read,
// checked with file:line messages, saved byte-stable, and run as one stored sweep with
// common random numbers (repeat r of every variant uses the same seed); the CLI's `run`
// prints the comparison table.

#include "core/scenario/lessons.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/variants.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <map>
#include <sstream>

using namespace fog;

namespace {

const std::string kPresets = std::string(FOG_SOURCE_DIR) + "/presets/";

/// A timing-only scenario (no data, no model): runs in milliseconds. Line 1 is `name:`.
const std::string kBase = "name: crn\n"                                                   // 1
                          "seed: 7\n"                                                     // 2
                          "data: {dataset: none, samples_per_trainer: 64}\n"              // 3
                          "model: {kind: none, wire_bytes: 10000}\n"                      // 4
                          "training: {batch_size: 8}\n"                                   // 5
                          "topology:\n"                                                   // 6
                          "  nodes:\n"                                                    // 7
                          "    - {id: ps, tier: cloud, role: aggregator}\n"              // 8
                          "  groups:\n"                                                   // 9
                          "    - {id: w, count: 6, parent: ps, compute: {throughput: 100, noise: {kind: exponential}},\n"
                          "       availability: {kind: markov, mean_up_s: 20, mean_down_s: 5, start: stationary}}\n"
                          "sync: {policy: fully-sync}\n"                                  // 12
                          "stop: {rounds: 30}\n";                                         // 13

const std::string kVariants = "variants:\n"                                                          // 14
                              "  - {name: fully-sync, set: {}}\n"                                    // 15
                              "  - {name: n-sync, set: {sync: {policy: n-sync, n: 3}}}\n"            // 16
                              "  - {name: n-batch-sync, set: {sync: {policy: n-batch-sync, m: 3}}}\n" // 17
                              "  - {name: same-as-base, set: {}}\n"                                  // 18
                              "repeats: 3\n";                                                        // 19

std::string writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& text) {
    const std::string path = dir.filePath(QString::fromStdString(name)).toStdString();
    QFile f(QString::fromStdString(path));
    f.open(QIODevice::WriteOnly);
    f.write(text.data(), static_cast<qint64>(text.size()));
    return path;
}

std::string problemsOf(const std::string& yaml) {
    try {
        loadScenarioText(yaml, "v.yaml");
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestVariants : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsVariantsGridAndRepeats() {
        const Scenario s = loadScenarioText(kBase + kVariants + "vary:\n  stop.rounds: [10, 20]\n", "v.yaml");
        QCOMPARE(s.variants.size(), std::size_t(4));
        QCOMPARE(s.variants[1].name, std::string("n-sync"));
        QCOMPARE(s.variants[1].set.size(), std::size_t(1));
        QCOMPARE(s.variants[1].set[0].path, std::string("sync"));
        QCOMPARE(s.variants[1].set[0].line, 16);
        QCOMPARE(s.repeats, 3);
        // Variants outermost, the grid inside; labels name both.
        const auto configs = variantConfigurations(s);
        QCOMPARE(configs.size(), std::size_t(8));
        QCOMPARE(configs[0].label, std::string("fully-sync stop.rounds=10"));
        QCOMPARE(configs[3].label, std::string("n-sync stop.rounds=20"));
        QCOMPARE(variantConfigurations(s, "n-sync").size(), std::size_t(2));
        try {
            variantConfigurations(s, "n-snyc");
            QFAIL("an unknown variant was accepted");
        } catch (const ScenarioError& e) {
            QVERIFY2(std::string(e.what()).find("did you mean 'n-sync'") != std::string::npos, e.what());
        }
        // The base scenario is what the file says without the variants: unchanged.
        const Scenario plain = loadScenarioText(kBase, "v.yaml");
        QCOMPARE(saveScenarioText(withoutVariants(s)), saveScenarioText(plain));
        QVERIFY(!hasVariants(plain));
    }

    void badVariantsGiveFileLineMessages_data() {
        QTest::addColumn<QString>("tail");
        QTest::addColumn<QString>("where");   // file:line:column the message must start with
        QTest::addColumn<QString>("message"); // and contain
        QTest::newRow("unknown key in a setting") << "variants:\n  - name: a\n    set: {stop.roundz: 4}\n"
                                                  << "v.yaml:16:11:" << "unknown key 'roundz'";
        QTest::newRow("value the key refuses") << "variants:\n  - name: a\n  - name: bad\n    set:\n      sync.policy: n-sync\n      stop.rounds: -3\n"
                                               << "v.yaml:19:7:" << "(variant 'bad')";
        QTest::newRow("unknown policy") << "variants:\n  - {name: p, set: {sync: {policy: n-snyc}}}\n"
                                        << "v.yaml:15:" << "(variant 'p')";
        QTest::newRow("duplicate names") << "variants:\n  - {name: a, set: {}}\n  - {name: a, set: {stop.rounds: 5}}\n"
                                         << "v.yaml:16:12:" << "names another variant";
        QTest::newRow("unknown key in a variant") << "variants:\n  - {name: a, sett: {stop.rounds: 5}}\n"
                                                  << "v.yaml:15:15:" << "unknown key 'sett'";
        QTest::newRow("no name") << "variants:\n  - {set: {stop.rounds: 5}}\n" << "v.yaml:15:" << "name";
        QTest::newRow("set is not a map") << "variants:\n  - {name: a, set: [1, 2]}\n" << "v.yaml:15:" << "must be a map";
        QTest::newRow("bad key path") << "variants:\n  - {name: a, set: {'stop..rounds': 5}}\n" << "v.yaml:15:"
                                      << "key path";
        QTest::newRow("a variant sets repeats") << "variants:\n  - {name: a, set: {repeats: 5}}\n" << "v.yaml:15:"
                                                << "cannot be set by a variant";
        QTest::newRow("index out of range") << "variants:\n  - name: a\n    set:\n      topology.groups[3].count: 5\n"
                                            << "v.yaml:17:7:" << "out of range";
        QTest::newRow("grid value refused") << "vary:\n  stop.rounds: [10, -1]\n" << "v.yaml:15:3:" << "(vary stop.rounds=-1)";
        QTest::newRow("grid is not a list") << "vary:\n  stop.rounds: 10\n" << "v.yaml:15:16:" << "must be a list";
        QTest::newRow("repeats 0") << "repeats: 0\n" << "v.yaml:14:10:" << "from 1 to 1000";
        QTest::newRow("repeats not a number") << "repeats: many\n" << "v.yaml:14:10:" << "integer";
    }
    void badVariantsGiveFileLineMessages() {
        QFETCH(QString, tail);
        QFETCH(QString, where);
        QFETCH(QString, message);
        const std::string problems = problemsOf(kBase + tail.toStdString());
        QVERIFY2(!problems.empty(), "accepted");
        bool found = false;
        for (const QString& line : QString::fromStdString(problems).split('\n'))
            found = found || (line.startsWith(where) && line.contains(message));
        QVERIFY2(found, qPrintable("expected " + where + " ... " + message + ", got:\n" + QString::fromStdString(problems)));
    }

    void savingIsByteStable_data() {
        QTest::addColumn<QString>("file");
        for (const auto& e : std::filesystem::directory_iterator(kPresets))
            if (e.is_regular_file() && e.path().extension() == ".yaml")
                QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().string());
        QTest::newRow("grid") << QString();
    }
    void savingIsByteStable() {
        QFETCH(QString, file);
        const std::string path = file.toStdString();
        if (path.find("tapfinger") != std::string::npos) return; // cluster: test_lessons reads its lesson
        // Trace files resolve against the preset's folder: test_scenario (presetsSaveStably)
        // round-trips such presets with that folder.
        if (!path.empty() && !loadScenarioFile(path).events.traces.empty()) return;
        const std::string grid = kBase + kVariants + "vary:\n  stop.rounds: [10, 20]\n";
        const Scenario s = path.empty() ? loadScenarioText(grid, "v") : loadScenarioFile(path);
        const std::string once = saveScenarioText(s);
        const Scenario back = loadScenarioText(once, "saved");
        const std::string twice = saveScenarioText(back);
        if (twice != once) { // the first line that differs, for the failure message
            std::istringstream a(once), b(twice);
            std::string la, lb;
            while (std::getline(a, la) && std::getline(b, lb) && la == lb) {
            }
            QFAIL(qPrintable(QString::fromStdString("saved twice differs:\n  " + la + "\n  " + lb)));
        }
        QCOMPARE(back.variants.size(), s.variants.size());
        for (std::size_t i = 0; i < s.variants.size(); ++i) {
            QCOMPARE(back.variants[i].name, s.variants[i].name);
            QCOMPARE(back.variants[i].set.size(), s.variants[i].set.size());
            for (std::size_t k = 0; k < s.variants[i].set.size(); ++k)
                QCOMPARE(back.variants[i].set[k].value, s.variants[i].set[k].value);
        }
        QCOMPARE(back.vary.size(), s.vary.size());
        QCOMPARE(back.repeats, s.repeats);
        QCOMPARE(back.lesson.body, s.lesson.body);
        QCOMPARE(back.lesson.steps, s.lesson.steps);
        QCOMPARE(back.lesson.question, s.lesson.question);
        // And every variant of the saved file is the same scenario as the original's.
        for (const auto& c : variantConfigurations(s)) {
            SuspendVariantChecks checked;
            const std::string a = saveScenarioText(withoutVariants(loadScenarioText(once, "saved", c.overrides)));
            const std::string b = saveScenarioText(
                withoutVariants(path.empty() ? loadScenarioText(grid, "v", c.overrides) : loadScenarioFile(path, c.overrides)));
            QCOMPARE(a, b);
        }
    }

    /// The lesson's figures were made by `sweep --vary`; the variants are those scenarios.
    void variantsAreTheSweepConfigurations() {
        const std::string file = kPresets + "volatile-spot-sync.yaml";
        const auto sweep = [&](const std::string& sync) {
            SuspendVariantChecks checked;
            return saveScenarioText(withoutVariants(loadScenarioFile(file, {{"sync", sync}})));
        };
        QCOMPARE(saveScenarioText(loadVariantFile(file, "n-sync")), sweep("{policy: n-sync, n: 4}"));
        QCOMPARE(saveScenarioText(loadVariantFile(file, "n-batch-sync")), sweep("{policy: n-batch-sync, m: 4}"));
        QCOMPARE(saveScenarioText(loadVariantFile(file, "fully-sync")), sweep("{policy: fully-sync}"));
        // The merged presets: the base is the old first file, a variant the old second one.
        const Scenario ma = loadVariantFile(kPresets + "geo-three-regions.yaml", "regional-ma");
        QCOMPARE(ma.topology.find("ps-sh") >= 0, true);
        QCOMPARE(ma.sync.name, std::string("model-averaging"));
        QCOMPARE(ma.topology.links.size(), std::size_t(3));
        const Scenario flat = loadVariantFile(kPresets + "hierarchical-tiers.yaml", "flat");
        QCOMPARE(flat.topology.find("edge"), -1);
        QCOMPARE(flat.sync.name, std::string("fedavg"));
    }

    void variantsRunWithCommonRandomNumbersAsOneGroup() {
        QTemporaryDir dir;
        const std::string file = writeFile(dir, "crn.yaml", kBase + kVariants);
        RunStore store(dir.filePath("runs.db").toStdString());
        SweepSpec spec;
        spec.file = file;
        spec.variants = true;
        spec.repeats = 0; // the file's: 3
        spec.tags = {"crn"};
        const SweepResult r = runSweep(spec, store);
        QCOMPARE(r.failed, 0);
        QCOMPARE(r.runIds.size(), std::size_t(12));
        const auto runs = store.listRuns({"", "", r.sweepId, 0});
        QCOMPARE(runs.size(), std::size_t(12));
        std::map<std::string, std::map<int, StoredRun>> byLabel;
        for (const auto& run : runs) {
            QCOMPARE(run.sweepId, r.sweepId);
            byLabel[run.sweepConfig][run.repeat] = run;
        }
        QCOMPARE(byLabel.size(), std::size_t(4));
        for (const char* label : {"fully-sync", "n-sync", "n-batch-sync", "same-as-base"})
            QVERIFY2(byLabel.count(label) && byLabel[label].size() == 3, label);
        for (int rep = 0; rep < 3; ++rep) {
            // Repeat r: one seed for every variant, and a different one per repeat.
            const std::uint64_t seed = repeatSeed(7, rep);
            for (auto& [label, reps] : byLabel) QCOMPARE(reps[rep].seed, seed);
            // Same seed, same settings: the same run to the last bit (the same availability
            // and straggler draws); another policy on the same draws: another result.
            const auto& a = byLabel["fully-sync"][rep].summary;
            const auto& b = byLabel["same-as-base"][rep].summary;
            QCOMPARE(a.virtualTime, b.virtualTime);
            QCOMPARE(a.cost, b.cost);
            QVERIFY(byLabel["n-sync"][rep].summary.virtualTime < a.virtualTime);
        }
        QVERIFY(byLabel["fully-sync"][0].summary.virtualTime != byLabel["fully-sync"][1].summary.virtualTime);
        // A stored run is one run: its scenario has the variant applied and no variants.
        const std::string yaml = byLabel["n-sync"][1].scenarioYaml;
        QVERIFY(yaml.find("n-sync") != std::string::npos);
        QVERIFY(yaml.find("variants:") == std::string::npos);
        QCOMPARE(loadScenarioText(yaml).sync.name, std::string("n-sync"));
        // The sweep can be resumed from what it stored.
        const auto stored = storedSweep(store, r.sweepId);
        QVERIFY(stored);
        const SweepSpec again = parseSweepSpecText(stored->second);
        QVERIFY(again.variants);
        QCOMPARE(again.repeats, 3);
        QCOMPARE(planSweep(again).items.size(), std::size_t(12));
    }

    void oneVariantAndTheGrid() {
        QTemporaryDir dir;
        const std::string file = writeFile(dir, "grid.yaml", kBase + kVariants + "vary:\n  stop.rounds: [5, 10]\n");
        SweepSpec spec;
        spec.file = file;
        spec.variants = true;
        spec.variant = "n-sync";
        spec.repeats = 1;
        const SweepPlan plan = planSweep(spec);
        QCOMPARE(plan.items.size(), std::size_t(2));
        QCOMPARE(plan.items[0].config, std::string("n-sync stop.rounds=5"));
        QCOMPARE(plan.items[1].scenario.stop.rounds, 10);
        QCOMPARE(plan.items[1].scenario.sync.name, std::string("n-sync"));
        // `sweep` keeps working on a file with variants: its axes, on the base scenario.
        SweepSpec plain;
        plain.file = file;
        plain.axes = {parseSweepAxis("sync.policy=fully-sync,fedavg")};
        const SweepPlan p2 = planSweep(plain);
        QCOMPARE(p2.items.size(), std::size_t(2));
        QCOMPARE(p2.items[0].config, std::string("sync.policy=fully-sync"));
    }

    /// `--set` may hold a value only the chosen variant accepts (sync.n exists for n-sync, not
    /// for the base's fully-sync): the overrides are checked with the variant, not the base.
    /// A value no configuration accepts still fails, naming --set.
    void setThatOnlyTheChosenVariantAccepts() {
        QTemporaryDir dir;
        const std::string file = writeFile(dir, "crn.yaml", kBase + kVariants);
        const std::vector<Override> set{parseOverride("sync.n=2")};
        QVERIFY_THROWS_EXCEPTION(ScenarioError, loadScenarioFile(file, set)); // the base has no n
        const Scenario s = loadVariantFile(file, "n-sync", set);
        QCOMPARE(s.sync.name, std::string("n-sync"));
        QCOMPARE(s.sync.get("n", 0), 2.0);
        SweepSpec spec;
        spec.file = file;
        spec.variants = true;
        spec.variant = "n-sync";
        spec.repeats = 1;
        spec.base = set;
        const SweepPlan plan = planSweep(spec);
        QCOMPARE(plan.items.size(), std::size_t(1));
        QCOMPARE(plan.items[0].scenario.sync.get("n", 0), 2.0);
        // Every variant: the ones that cannot take n are reported, each named.
        spec.variant.clear();
        try {
            planSweep(spec);
            QFAIL("fully-sync with sync.n was accepted");
        } catch (const ScenarioError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("fully-sync") != std::string::npos, what.c_str());
        }
        // A value that no variant accepts fails as before.
        QVERIFY_THROWS_EXCEPTION(ScenarioError, loadVariantFile(file, "n-sync", {parseOverride("sync.n=-3")}));
        QVERIFY_THROWS_EXCEPTION(ScenarioError, loadVariantFile(file, "n-sync", {parseOverride("no.such=1")}));
    }

    /// The CLI end to end: `run` on a variants file stores one group and prints the table;
    /// `--variant` runs one; a bad variant stops before anything runs.
    void cliRunsTheVariants() {
        const QString cli = QCoreApplication::applicationDirPath() + "/../app/fogstudio-cli";
        if (!QFile::exists(cli)) QSKIP("fogstudio-cli is not built");
        QTemporaryDir dir;
        const std::string file = writeFile(dir, "crn.yaml", kBase + kVariants);
        const QString db = dir.filePath("runs.db");
        QProcess p;
        p.start(cli, {"run", QString::fromStdString(file), "--db", db, "--quiet", "--repeat", "2", "--threads", "1"});
        QVERIFY(p.waitForFinished(60000));
        const QString out = p.readAllStandardOutput();
        QVERIFY2(p.exitCode() == 0, qPrintable(out + p.readAllStandardError()));
        QVERIFY2(out.contains("mean +/- standard deviation over repeats"), qPrintable(out));
        for (const char* v : {"fully-sync", "n-sync", "n-batch-sync", "same-as-base"})
            QVERIFY2(out.contains(QString("\n") + v + " "), qPrintable(out));
        QVERIFY2(out.contains("8 runs stored"), qPrintable(out));

        p.start(cli, {"run", QString::fromStdString(file), "--db", db, "--quiet", "--variant", "n-sync", "--repeat", "1",
                      "--threads", "1"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        RunStore store(db.toStdString(), true);
        const auto runs = store.listRuns({});
        QCOMPARE(runs.size(), std::size_t(9));
        QVERIFY2(runs.front().name.find("[n-sync]") != std::string::npos, runs.front().name.c_str());

        const std::string bad = writeFile(dir, "bad.yaml", kBase + "variants:\n  - {name: x, set: {stop.rounds: -1}}\n");
        p.start(cli, {"run", QString::fromStdString(bad), "--db", db, "--quiet"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = p.readAllStandardError();
        QVERIFY2(err.contains("bad.yaml:15:") && err.contains("variant 'x'"), qPrintable(err));
        QCOMPARE(RunStore(db.toStdString(), true).listRuns({}).size(), std::size_t(9));
    }
};

QTEST_GUILESS_MAIN(TestVariants)
#include "test_variants.moc"
