// Scenario files: loading, validation messages, --set overrides and saving.

#include "core/scenario/scenario_io.h"
#include "core/scenario/schema.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace fog;

namespace {

std::string scenarioPath(const std::string& name) {
    return std::string(FOG_TEST_DATA) + "/scenarios/" + name;
}

/// The formatted diagnostics of loading `file`, or "" when it loads.
QString loadErrors(const std::string& file, const std::vector<Override>& overrides = {}) {
    try {
        loadScenarioFile(file, overrides);
    } catch (const ScenarioError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void writeText(const std::string& path, const std::string& text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
}

/// `<prefix>-images-idx3-ubyte` with `n` 2x2 images and the matching label file.
void writeTinyIdx(const std::string& prefix, int n) {
    auto be32 = [](std::uint32_t v) {
        return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    };
    std::string images = be32(0x803) + be32(n) + be32(2) + be32(2);
    std::string labels = be32(0x801) + be32(n);
    for (int i = 0; i < n; ++i) {
        images += std::string(4, char(i * 40));
        labels += char(i % 2);
    }
    writeText(prefix + "-images-idx3-ubyte", images);
    writeText(prefix + "-labels-idx1-ubyte", labels);
}

/// A small valid scenario built in code (as an editor would).
Scenario smallScenario() {
    Scenario s;
    s.name = "in memory";
    NodeSpec server;
    server.id = "server";
    server.tier = Tier::Cloud;
    server.role = Role::Aggregator;
    NodeSpec worker;
    worker.id = "worker";
    worker.parent = "server";
    s.topology.nodes = {server, worker};
    s.data.kind = DataSpec::Kind::None;
    s.model.kind = ModelSpec::Kind::None;
    return s;
}

} // namespace

class TestScenario : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void fullScenarioLoads();
    void minimalScenarioUsesDefaults();
    void roundTrip();
    void roundTripVariants();
    void badInput_data();
    void badInput();
    void multipleErrorsReportedTogether();
    void overrides();
    void parseOverrideSyntax();
    void validateInMemory();
    void saveFileIsAtomic();
    void enumSpellings();
    void docExampleLoads();
    void presetsSaveStably();
    void networkKeys();
    void relaysForward_data();
    void relaysForward();
};

void TestScenario::fullScenarioLoads() {
    const std::string path = scenarioPath("full.yaml");
    const Scenario s = loadScenarioFile(path);
    QCOMPARE(s.sourcePath, path);
    QCOMPARE(s.name, std::string("Full example"));
    QVERIFY(s.description.find("Three tiers") == 0);
    QCOMPARE(s.seed, std::uint64_t(42));

    const TopologySpec& t = s.topology;
    QVERIFY(t.hasDefaultLink);
    QCOMPARE(t.defaultLink.bandwidthDownMbps, 200.0);
    QCOMPARE(t.defaultLink.pricePerGb, 0.01);
    QCOMPARE(t.nodes.size() - t.groupCount(), std::size_t(2));
    const NodeSpec& cloud = t.nodes[0];
    QCOMPARE(cloud.id, std::string("cloud"));
    QCOMPARE(cloud.line, 10);
    QVERIFY(cloud.tier == Tier::Cloud && cloud.role == Role::Aggregator);
    QCOMPARE(cloud.region, std::string("eu"));
    QCOMPARE(cloud.compute.throughput.min, 2000.0);
    QVERIFY(cloud.compute.noise.kind == NoiseSpec::Kind::Exponential);
    QCOMPARE(cloud.pricePerHour.min, 0.5);
    QCOMPARE(cloud.energy.perByteJ, 1e-7);
    QVERIFY(!cloud.link);

    const NodeSpec& laptop = t.nodes[1];
    QVERIFY(laptop.compute.noise.kind == NoiseSpec::Kind::ShiftedExponential);
    QCOMPARE(laptop.compute.noise.shift, 0.2);
    QVERIFY(laptop.availability.kind == AvailabilitySpec::Kind::Trace);
    QCOMPARE(laptop.availability.offline.size(), std::size_t(2));
    QCOMPARE(laptop.availability.offline[1].fromS, 30.5);
    QCOMPARE(laptop.availability.offline[1].toS, 40.0);
    QCOMPARE(laptop.dataShare.min, 2.0);
    QVERIFY(laptop.link.has_value());
    QCOMPARE(laptop.link->latencyMs, 30.0);

    QCOMPARE(t.groupCount(), std::size_t(2));
    const NodeSpec& phones = t.group(1);
    QCOMPARE(phones.count, 20);
    QCOMPARE(phones.parent, std::string("edge-2"));
    QCOMPARE(phones.compute.throughput.min, 50.0);
    QCOMPARE(phones.compute.throughput.max, 200.0);
    QCOMPARE(phones.compute.noise.sigma, 0.25);
    QVERIFY(phones.availability.kind == AvailabilitySpec::Kind::Markov);
    QCOMPARE(phones.availability.meanDownS, 120.0);
    QVERIFY(phones.availability.startStationary);
    QCOMPARE(phones.pricePerHour.max, 0.1);
    QVERIFY(phones.dataShare.isExact());

    QCOMPARE(t.links.size(), std::size_t(1));
    QCOMPARE(t.links[0].from, std::string("edge-0"));
    QCOMPARE(t.links[0].params.bandwidthDownMbps, 150.0);

    QVERIFY(s.data.kind == DataSpec::Kind::FashionMnist);
    QCOMPARE(s.data.maxTestSamples, 1000);
    QVERIFY(s.data.partition.kind == PartitionSpec::Kind::Dirichlet);
    QCOMPARE(s.data.partition.alpha, 0.3);
    QCOMPARE(s.data.partition.minPerClient, 5);
    QCOMPARE(s.model.hidden, (std::vector<int>{200, 100}));
    QCOMPARE(s.training.learningRate, 0.05);
    QVERIFY(s.training.schedule.kind == ScheduleSpec::Kind::Step);
    QCOMPARE(s.training.schedule.stepRounds, 20);
    QCOMPARE(s.training.batchSize, 32);
    QCOMPARE(s.sync.name, std::string("hierarchical"));
    QCOMPARE(s.sync.get("tau1", 0), 4.0);
    QCOMPARE(s.sync.paramLines.at("tau2"), 61);
    QCOMPARE(s.selection.get("k", 0), 10.0);
    QCOMPARE(s.stop.targetAccuracy, 0.85);
    QCOMPARE(s.evaluation.everyRounds, 2);
}

void TestScenario::minimalScenarioUsesDefaults() {
    const Scenario s = loadScenarioFile(scenarioPath("minimal.yaml"));
    QCOMPARE(s.schemaVersion, 1);
    QVERIFY(!s.topology.hasDefaultLink);
    QCOMPARE(s.sync.name, std::string("fedavg"));
    QVERIFY(s.sync.params.empty()); // defaults are the engine's business
    QCOMPARE(s.selection.name, std::string("all"));
    QCOMPARE(s.stop.rounds, 3);
    QCOMPARE(s.data.samplesPerTrainer, 100);
    QVERIFY(s.topology.nodes[1].role == Role::Trainer);
}

void TestScenario::roundTrip() {
    const Scenario s = loadScenarioFile(scenarioPath("full.yaml"));
    const std::string text = saveScenarioText(s);
    const Scenario again = loadScenarioText(text, "saved");
    QCOMPARE(saveScenarioText(again), text);

    // Equivalent, not just stable: spot-check values through the text.
    QCOMPARE(again.description, s.description);
    QCOMPARE(again.topology.group(1).compute.throughput.max, 200.0);
    QCOMPARE(again.topology.nodes[1].availability.offline[0].toS, 20.0);
    QCOMPARE(again.topology.nodes[1].link->bandwidthUpMbps, 20.0);
    QCOMPARE(again.data.partition.alpha, 0.3);
    QCOMPARE(again.training.weightDecay, 0.0001);
    QCOMPARE(again.sync.get("tau2", 0), 3.0);
    // Flow style for the small maps keeps a node readable.
    QVERIFY(text.find("availability: {kind: trace, offline: [[10, 20], [30.5, 40]]}") !=
            std::string::npos);
}

void TestScenario::roundTripVariants() {
    // Every enum value and awkward strings, built in code. Validation reads the data files a
    // scenario names (their sizes decide whether the partition can work), so the CSV and IDX
    // variants name small real files.
    QTemporaryDir dataDir;
    const std::string dataPath = dataDir.path().toStdString();
    writeText(dataPath + "/a b.csv", "label,x,y\n0,0.5,1\n1,1.5,2\n1,2.5,3\n");
    writeText(dataPath + "/test.csv", "0,0.5,1\n1,1.5,2\n");
    QVERIFY(QDir().mkpath(QString::fromStdString(dataPath + "/idx")));
    writeTinyIdx(dataPath + "/idx/train", 4);
    writeTinyIdx(dataPath + "/idx/t10k", 2);
    std::vector<Scenario> variants;
    {
        Scenario s = smallScenario();
        s.name = "null";
        s.description = "line one\nline two: \"quoted\" # not a comment";
        s.seed = 18446744073709551615ULL;
        s.topology.nodes[1].compute.noise.kind = NoiseSpec::Kind::LogNormal;
        s.topology.nodes[1].compute.noise.sigma = 0.1;
        s.topology.nodes[1].availability.kind = AvailabilitySpec::Kind::Markov;
        s.topology.nodes[1].availability.startOnline = false;
        s.topology.nodes[1].energy.perSampleJ = 1.0 / 3.0;
        s.topology.nodes[1].link = LinkParams{1e-3, 1e300, 0.1, 0.3};
        s.data.samplesPerTrainer = 7;
        s.stop = {0, 99.5, 0, 0};
        s.sync = {"n-sync", {{"n", 1}}, {}, 0};
        variants.push_back(s);
    }
    {
        Scenario s = smallScenario();
        s.data.kind = DataSpec::Kind::Synthetic;
        s.data.partition.kind = PartitionSpec::Kind::Natural;
        s.data.syntheticIid = true;
        s.model.kind = ModelSpec::Kind::LogReg;
        s.training.schedule.kind = ScheduleSpec::Kind::InverseTime;
        s.training.schedule.gamma = 0.01;
        NodeSpec g;
        g.group = true;
        g.id = "g";
        g.count = 3;
        g.parent = "server";
        g.role = Role::Both;
        g.tier = Tier::Edge;
        g.pricePerHour = {0.1, 0.2};
        g.dataShare = {0.5, 2.0};
        g.compute.noise.kind = NoiseSpec::Kind::ShiftedExponential;
        s.topology.nodes.push_back(g);
        s.topology.links.push_back({"g-0", "worker", {}, 0});
        s.selection = {"random-k", {{"k", 2}}, {}, 0};
        variants.push_back(s);
    }
    {
        Scenario s = smallScenario();
        s.data.kind = DataSpec::Kind::Csv;
        s.data.trainPath = dataPath + "/a b.csv";
        s.data.testPath = dataPath + "/test.csv";
        s.data.partition.kind = PartitionSpec::Kind::QuantitySkew;
        s.model.kind = ModelSpec::Kind::Cnn;
        s.model.hidden = {};
        s.topology.hasDefaultLink = true;
        variants.push_back(s);
    }
    {
        Scenario s = smallScenario();
        s.data.kind = DataSpec::Kind::Idx;
        s.data.dir = dataPath + "/idx";
        s.data.partition.kind = PartitionSpec::Kind::Shards;
        s.model.kind = ModelSpec::Kind::Mlp;
        s.topology.nodes[1].availability.kind = AvailabilitySpec::Kind::Trace;
        variants.push_back(s);
    }
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const Scenario& s = variants[i];
        const auto problems = validateScenario(s);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems[0].format().c_str());
        const std::string text = saveScenarioText(s);
        Scenario again;
        try {
            again = loadScenarioText(text, "variant");
        } catch (const ScenarioError& e) {
            QFAIL((std::string(e.what()) + "\n" + text).c_str());
        }
        QCOMPARE(saveScenarioText(again), text);
        QCOMPARE(again.name, s.name);
        QCOMPARE(again.description, s.description);
        QCOMPARE(again.seed, s.seed);
        QVERIFY(again.data.kind == s.data.kind);
        QVERIFY(again.data.partition.kind == s.data.partition.kind);
    }
    const Scenario a = loadScenarioText(saveScenarioText(variants[0]));
    QCOMPARE(a.topology.nodes[1].energy.perSampleJ, 1.0 / 3.0);
    QCOMPARE(a.topology.nodes[1].link->bandwidthDownMbps, 1e300);
    QVERIFY(!a.topology.nodes[1].availability.startOnline);
    QVERIFY(!a.topology.nodes[1].availability.startStationary);
}

void TestScenario::badInput_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("overrides");
    QTest::addColumn<QString>("expected"); // file:line:col-prefixed, "@" stands for the file

    auto row = [](const char* name, const char* file, QStringList overrides, const char* expected) {
        QTest::newRow(name) << QString::fromStdString(scenarioPath(file)) << overrides << expected;
    };
    row("negative bandwidth", "bad/negative_bandwidth.yaml", {},
        "@:7:53: topology.links[0].bandwidth_up_mbps must be > 0, got -5");
    row("unknown key", "bad/unknown_key.yaml", {},
        "@:9:9: topology.nodes[1].link.bandwith_up_mbps unknown key 'bandwith_up_mbps' (did you "
        "mean 'bandwidth_up_mbps'?)");
    row("unknown policy", "bad/unknown_policy.yaml", {},
        "@:9:11: sync.policy unknown sync policy 'fedavgg' (did you mean 'fedavg'?); known: "
        "fully-sync, n-sync, n-batch-sync, async, fedbuff, async-ga, fedavg, fedprox, scaffold, dp-fedavg, secagg, "
        "hierarchical, model-averaging");
    row("bad enum", "bad/bad_enum.yaml", {},
        "@:5:13: topology.nodes[0].tier must be one of cloud, edge, device, got 'clod' (did you "
        "mean 'cloud'?)");
    row("wrong type", "bad/wrong_type.yaml", {},
        "@:9:11: stop.rounds must be an integer, got 'ten'");
    row("missing parent", "bad/missing_parent.yaml", {},
        "@:5:28: topology.nodes[1].parent names node 'sever', which does not exist (did you mean "
        "'server'?)");
    row("cycle", "bad/cycle.yaml", {},
        "@:5:41: topology.nodes[1].parent makes the parent chain a cycle: a -> b -> a");
    row("duplicate id", "bad/duplicate_id.yaml", {},
        "@:7:12: topology.groups[0].id gives member id 'phones-3', already used by "
        "topology.nodes[1]");
    row("syntax error", "bad/syntax_error.yaml", {},
        "@:4:1: YAML syntax error: end of sequence flow not found");
    row("schema too new", "bad/schema_too_new.yaml", {},
        "@:1:17: schema_version is 2, but this FogStudio reads at most 1");
    row("bad trace", "bad/bad_trace.yaml", {},
        "@:7:55: topology.nodes[1].availability.offline[1] intervals must be sorted and must not "
        "overlap: [50, 200] starts before the previous one ends (at 100)");
    row("set through a scalar", "minimal.yaml", {"name.first=x"},
        "--set: name.first cannot be set: 'name' is 'minimal', not a map");
    row("set index out of range", "minimal.yaml", {"topology.nodes[5].id=x"},
        "--set: topology.nodes[5].id cannot be set: 'topology.nodes' has 2 entries; index 5 is "
        "out of range");
    row("set bad value", "minimal.yaml", {"training.batch_size=0"},
        "--set: training.batch_size must be >= 1, got 0");
    row("policy param out of bounds", "bad/policy_param.yaml", {},
        "@:8:34: selection.k must be >= 1, got 0");
    row("policy param not integer", "bad/policy_param.yaml", {"selection.k=2.5"},
        "--set: selection.k must be an integer, got 2.5");
    row("unknown policy param", "minimal.yaml", {"sync.deadline=3"},
        "--set: sync.deadline unknown key 'deadline' for sync policy fedavg (did you mean "
        "'deadline_s'?)");
    row("aggregator volatile", "bad/aggregator_volatile.yaml", {},
        "@:6:28: topology.nodes[0].availability.kind must be always for an aggregator, got "
        "markov: only trainers may go offline");
    row("no stop rule", "bad/no_stop.yaml", {},
        "@:8:7: stop needs at least one limit: set rounds, virtual_time_s, target_accuracy or "
        "budget");
    row("missing file", "no/such/file.yaml", {},
        "@: cannot open scenario file: No such file or directory");
}

void TestScenario::badInput() {
    QFETCH(QString, file);
    QFETCH(QStringList, overrides);
    QFETCH(QString, expected);
    std::vector<Override> sets;
    for (const QString& o : overrides)
        sets.push_back(parseOverride(o.toStdString()));
    const QString errors = loadErrors(file.toStdString(), sets);
    QVERIFY2(!errors.isEmpty(), "expected the scenario to be rejected");
    expected.replace("@", file);
    QVERIFY2(errors.contains(expected), qPrintable("expected:\n" + expected + "\ngot:\n" + errors));
}

void TestScenario::multipleErrorsReportedTogether() {
    const std::string file = scenarioPath("bad/many_errors.yaml");
    std::vector<Diagnostic> d;
    try {
        loadScenarioFile(file);
        QFAIL("expected the scenario to be rejected");
    } catch (const ScenarioError& e) {
        d = e.diagnostics;
    }
    QStringList shown;
    for (const auto& x : d)
        shown << QString::fromStdString(x.format());
    const QString all = shown.join("\n");
    QVERIFY2(d.size() == 6, qPrintable(all));
    // In file order, each with its own place.
    const std::vector<std::pair<int, std::string>> expected = {
        {4, "topology.nodes[0].tier"}, {5, "topology.nodes[1].price_per_hr"},
        {7, "topology.links[0].to"},   {7, "topology.links[0].latency_ms"},
        {10, "training.batch_size"},   {10, "training.momentum"},
    };
    for (std::size_t i = 0; i < d.size(); ++i) {
        QCOMPARE(d[i].file, file);
        QCOMPARE(d[i].line, expected[i].first);
        QVERIFY2(d[i].path == expected[i].second, qPrintable(all));
    }
    QVERIFY(all.contains("unknown key 'price_per_hr' (did you mean 'price_per_hour'?)"));
}

void TestScenario::overrides() {
    const std::string full = scenarioPath("full.yaml");
    const Scenario s = loadScenarioFile(
        full, {parseOverride("sync.tau1=7"), parseOverride("model.hidden=[100, 50]"),
               parseOverride("topology.groups[1].count=5"), parseOverride("name=Renamed run"),
               parseOverride("topology.nodes[1].link.latency_ms=1.5")});
    QCOMPARE(s.sync.get("tau1", 0), 7.0);
    QCOMPARE(s.model.hidden, (std::vector<int>{100, 50}));
    QCOMPARE(s.topology.group(1).count, 5);
    QCOMPARE(s.name, std::string("Renamed run"));
    QCOMPARE(s.topology.nodes[1].link->latencyMs, 1.5);
    QCOMPARE(s.topology.nodes[1].link->bandwidthUpMbps, 20.0); // siblings untouched

    // New keys, several levels deep, in a file that lacks the whole section.
    const Scenario m = loadScenarioFile(scenarioPath("minimal.yaml"),
                                        {parseOverride("topology.default_link.latency_ms=7"),
                                         parseOverride("training.schedule.kind=step")});
    QVERIFY(m.topology.hasDefaultLink);
    QCOMPARE(m.topology.defaultLink.latencyMs, 7.0);
    QCOMPARE(m.topology.defaultLink.bandwidthUpMbps, LinkParams{}.bandwidthUpMbps);
    QVERIFY(m.training.schedule.kind == ScheduleSpec::Kind::Step);

    // Overrides on an empty document build the tree from nothing.
    try {
        loadScenarioText("", "empty",
                         {parseOverride("topology.nodes=[{id: s, role: aggregator}]"),
                          parseOverride("stop.rounds=3")});
        QFAIL("expected the scenario to be rejected");
    } catch (const ScenarioError& e) {
        QVERIFY2(QString(e.what()).contains("topology has no trainer"), e.what());
    }

    // A value that is valid YAML but of the wrong type is reported against --set.
    const QString errors =
        loadErrors(scenarioPath("minimal.yaml"), {parseOverride("stop.rounds=[1]")});
    QVERIFY2(errors.contains("--set: stop.rounds must be an integer, got a list"),
             qPrintable(errors));
}

void TestScenario::parseOverrideSyntax() {
    const Override o = parseOverride(" a.list[3].key = x=y");
    QCOMPARE(o.path, std::string("a.list[3].key"));
    QCOMPARE(o.value, std::string(" x=y"));
    QCOMPARE(parseOverride("k=").value, std::string());
    for (const char* bad : {"novalue", "=3", "a..b=1", "a[x]=1", "a.=1", "a[1=2"}) {
        bool threw = false;
        try {
            parseOverride(bad);
        } catch (const ScenarioError& e) {
            threw = true;
            QCOMPARE(e.diagnostics.at(0).file, std::string("--set"));
        }
        QVERIFY2(threw, bad);
    }
}

void TestScenario::validateInMemory() {
    Scenario s = smallScenario();
    QVERIFY(validateScenario(s).empty());
    s.topology.nodes[1].link = LinkParams{};
    s.topology.nodes[1].link->bandwidthUpMbps = 0;
    s.topology.nodes[1].line = 12;
    s.topology.nodes[0].role = Role::Trainer;
    s.sync.name = "model-averaging";
    const auto d = validateScenario(s);
    QStringList shown;
    for (const auto& x : d)
        shown << QString::fromStdString(x.format());
    const QString all = shown.join("\n");
    QVERIFY2(
        all.contains("<scenario>:12: topology.nodes[1].link.bandwidth_up_mbps must be > 0, got 0"),
        qPrintable(all));
    QVERIFY2(all.contains("topology has no aggregator"), qPrintable(all));
    QVERIFY2(all.contains("topology.nodes[0].role trains but has no aggregator above it"),
             qPrintable(all));

    // Policies and the shape of the tree.
    Scenario two = smallScenario();
    two.topology.nodes.push_back(two.topology.nodes[0]);
    two.topology.nodes[2].id = "server2";
    QVERIFY(!validateScenario(two).empty()); // fedavg needs exactly one root aggregator
    two.sync = {"model-averaging", {}, {}, 0};
    QVERIFY(validateScenario(two).empty());
    two.sync = {"hierarchical", {}, {}, 0};
    QVERIFY(!validateScenario(two).empty()); // no aggregator below another
    two.topology.nodes[2].parent = "server";
    QVERIFY(validateScenario(two).empty());
}

void TestScenario::saveFileIsAtomic() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath("s.yaml").toStdString();
    Scenario s = smallScenario();
    saveScenarioFile(s, path);
    QCOMPARE(loadScenarioFile(path).name, s.name);

    // A save that cannot complete leaves nothing behind and the old file as it was.
    const std::string blocked = dir.filePath("dir.yaml").toStdString();
    QVERIFY(QDir(dir.path()).mkpath("dir.yaml"));
    bool threw = false;
    try {
        saveScenarioFile(s, blocked);
    } catch (const ScenarioError&) {
        threw = true;
    }
    QVERIFY(threw);
    QVERIFY(!QFile::exists(QString::fromStdString(blocked + ".saving")));
    s.name = "second";
    saveScenarioFile(s, path);
    QCOMPARE(loadScenarioFile(path).name, std::string("second"));
}

void TestScenario::enumSpellings() {
    QCOMPARE(std::string(toString(NoiseSpec::Kind::ShiftedExponential)),
             std::string("shifted-exponential"));
    QCOMPARE(std::string(toString(PartitionSpec::Kind::QuantitySkew)),
             std::string("quantity-skew"));
    QCOMPARE(std::string(toString(ScheduleSpec::Kind::InverseTime)), std::string("inverse-time"));
    QCOMPARE(std::string(toString(DataSpec::Kind::FashionMnist)), std::string("fashion-mnist"));
    QCOMPARE(std::string(toString(ModelSpec::Kind::LogReg)), std::string("logreg"));
    QCOMPARE((Diagnostic{"f.yaml", 3, 4, "a.b", "is wrong"}.format()),
             std::string("f.yaml:3:4: a.b is wrong"));
    QCOMPARE((Diagnostic{"--set", 0, 0, "a", "is wrong"}.format()),
             std::string("--set: a is wrong"));
}

void TestScenario::docExampleLoads() {
    // The complete example in the user documentation must stay valid.
    std::ifstream in(std::string(FOG_SOURCE_DIR) + "/docs/scenario.md");
    QVERIFY(in);
    const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto marker = doc.find("<!-- example");
    QVERIFY(marker != std::string::npos);
    const auto begin = doc.find("```yaml\n", marker);
    QVERIFY(begin != std::string::npos);
    const auto end = doc.find("\n```", begin + 8);
    QVERIFY(end != std::string::npos);
    const std::string yaml = doc.substr(begin + 8, end + 1 - (begin + 8));
    Scenario s;
    try {
        s = loadScenarioText(yaml, "docs/scenario.md example");
    } catch (const ScenarioError& e) {
        QFAIL(e.what());
    }
    QCOMPARE(s.topology.group(1).count, 200);
    QCOMPARE(s.sync.name, std::string("hierarchical"));
    const std::string text = saveScenarioText(s);
    QCOMPARE(saveScenarioText(loadScenarioText(text)), text);
}

void TestScenario::presetsSaveStably() {
    // Every preset and example file saves as it reads: the save reads back to an equal
    // scenario that saves to the same bytes (the node writer and reader follow one table).
    int checked = 0;
    for (const std::string& dir : {std::string(FOG_SOURCE_DIR) + "/presets", std::string(FOG_TEST_DATA) + "/scenarios"}) {
        const QDir d(QString::fromStdString(dir));
        for (const QString& f : d.entryList({"*.yaml"}, QDir::Files)) {
            const std::string path = dir + "/" + f.toStdString();
            Scenario s;
            try {
                s = loadScenarioFile(path);
            } catch (const ScenarioError&) {
                continue; // a cluster scenario (another format)
            }
            const std::string text = saveScenarioText(s);
            Scenario back;
            try {
                // Relative paths (trace files) resolve against the file's folder, as they did:
                // the lenient reader takes the folder and lists every problem the loader has.
                LenientScenario read = readScenarioTextLenient(text, path + " (saved)", s.data.baseDir);
                if (!read.problems.empty()) throw ScenarioError(read.problems);
                back = read.scenario;
            } catch (const ScenarioError& e) {
                QFAIL(e.what());
            }
            QVERIFY2(sameScenario(s, back), path.c_str());
            QCOMPARE(saveScenarioText(back), text);
            ++checked;
        }
    }
    QVERIFY(checked >= 12);
}

void TestScenario::networkKeys() {
    // Every network key of issue 12, read, kept, written back and read again.
    const std::string text = "name: net\n"
                             "data: {dataset: none, samples_per_trainer: 10}\n"
                             "model: {kind: none}\n"
                             "stop: {rounds: 3}\n"
                             "topology:\n"
                             "  contention: false\n"
                             "  link_sharing: private\n"
                             "  nodes:\n"
                             "    - {id: ps, tier: cloud, role: aggregator, nic_mbps: 1000}\n"
                             "    - {id: mast, tier: edge, role: relay, parent: ps, energy: {per_byte_forwarded_j: 1e-8}}\n"
                             "  groups:\n"
                             "    - {id: phone, count: 10, parent: mast, link_sharing: shared, link: {bandwidth_up_mbps: 10}}\n"
                             "    - {id: fn, count: 2, parent: ps, billing: serverless, invocation_fee_usd: 2e-7, price_per_hour: 0.2}\n"
                             "    - {id: wired, count: 2, parent: ps}\n";
    Scenario s;
    try {
        s = loadScenarioText(text, "net.yaml");
    } catch (const ScenarioError& e) {
        QFAIL(e.what());
    }
    const TopologySpec& t = s.topology;
    QVERIFY(!t.contention);
    QVERIFY(t.linkSharing == LinkSharing::Private);
    QCOMPARE(t.nodes[0].nicMbps, 1000.0);
    QCOMPARE(t.nodes[1].nicMbps, 0.0); // unlimited
    QVERIFY(t.nodes[1].role == Role::Relay);
    QCOMPARE(t.nodes[1].energy.perByteForwardedJ, 1e-8);
    QVERIFY(t.group(0).linkSharing == LinkSharing::Shared);
    QVERIFY(!t.group(2).linkSharing); // the topology's (private)
    QVERIFY(t.group(1).billing == Billing::Serverless);
    QCOMPARE(t.group(1).invocationFeeUsd, 2e-7);
    QVERIFY(t.group(2).billing == Billing::Held);
    const std::string saved = saveScenarioText(s);
    for (const char* key : {"contention: false", "link_sharing: private", "nic_mbps: 1000", "role: relay",
                            "per_byte_forwarded_j: 1e-08", "link_sharing: shared", "billing: serverless",
                            "invocation_fee_usd: 2e-07"})
        QVERIFY2(saved.find(key) != std::string::npos, (std::string(key) + "\n" + saved).c_str());
    const Scenario back = loadScenarioText(saved, "saved");
    QVERIFY(sameScenario(s, back));
    QCOMPARE(saveScenarioText(back), saved);
    // The defaults (contention on, groups sharing, held billing) are not written.
    Scenario d = loadScenarioText(saved, "saved", {parseOverride("topology.contention=true"),
                                                    parseOverride("topology.link_sharing=shared")});
    QVERIFY(d.topology.contention && d.topology.linkSharing == LinkSharing::Shared);
    const std::string plain = saveScenarioText(d);
    QVERIFY(plain.find("contention") == std::string::npos);
    QVERIFY(plain.find("\n  link_sharing:") == std::string::npos); // the topology's key
    QVERIFY(plain.find("\n      link_sharing: shared") != std::string::npos); // the group's own
    QVERIFY(plain.find("billing: held") == std::string::npos);
}

void TestScenario::relaysForward_data() {
    QTest::addColumn<QString>("sync");
    QTest::addColumn<QString>("topology");
    // A trainer under a relay under an aggregator reports to that aggregator.
    QTest::newRow("fedavg, relay node") << "{policy: fedavg}"
                                        << "  nodes:\n    - {id: ps, role: aggregator}\n"
                                           "    - {id: mast, role: relay, parent: ps}\n"
                                           "    - {id: phone, parent: mast}\n";
    QTest::newRow("hierarchical, relay between edge and devices")
        << "{policy: hierarchical}"
        << "  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
           "    - {id: edge, tier: edge, role: aggregator, parent: cloud}\n"
           "    - {id: mast, tier: edge, role: relay, parent: edge}\n"
           "  groups:\n    - {id: phone, count: 3, parent: mast}\n";
    QTest::newRow("hierarchical, relay between cloud and edge")
        << "{policy: hierarchical}"
        << "  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
           "    - {id: wan, tier: edge, role: relay, parent: cloud}\n"
           "    - {id: edge, tier: edge, role: aggregator, parent: wan}\n"
           "  groups:\n    - {id: phone, count: 3, parent: edge}\n";
    QTest::newRow("fully-sync with ton-plan, trainers behind a relay")
        << "{policy: fully-sync}"
        << "  nodes:\n    - {id: ps, role: aggregator}\n"
           "    - {id: mast, role: relay, parent: ps}\n"
           "  groups:\n    - {id: spot, count: 4, parent: mast}\n";
    QTest::newRow("group nested under a relay group")
        << "{policy: fedavg}"
        << "  nodes:\n    - {id: ps, role: aggregator}\n"
           "  groups:\n    - {id: cell, count: 2, role: relay, parent: ps}\n"
           "    - {id: phone, count: 5, parent: cell}\n";
}

void TestScenario::relaysForward() {
    QFETCH(QString, sync);
    QFETCH(QString, topology);
    const bool ton = QString(QTest::currentDataTag()).contains("ton-plan");
    const std::string text = "name: relay\n"
                             "data: {dataset: none, samples_per_trainer: 10}\n"
                             "model: {kind: none}\n"
                             "stop: {rounds: 3}\n"
                             "sync: " + sync.toStdString() + "\n" +
                             (ton ? "selection: {policy: ton-plan}\n" : "") +
                             "topology:\n" + topology.toStdString();
    try {
        loadScenarioText(text, "relay.yaml");
    } catch (const ScenarioError& e) {
        QFAIL((std::string(e.what()) + "\n" + text).c_str());
    }
    // Without the relay's parent, the trainers below it have no aggregator: refused.
    const std::string cut = text.substr(0, text.find(", parent:", text.find("role: relay"))) +
                            text.substr(text.find("}", text.find("role: relay")));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, loadScenarioText(cut, "cut.yaml"));
}

QTEST_APPLESS_MAIN(TestScenario)
#include "test_scenario.moc"
