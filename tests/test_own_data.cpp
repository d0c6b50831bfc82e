// Data of the user's own (issue 26): CIFAR-10's binary format through the CNN, LEAF's JSON
// with one device per writer, a CSV client column as the natural partition; bad files are
// refused with file, line and column before anything large is allocated.

#include "engine_fixtures.h"

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/scenario/scenario_io.h"
#include "core/util/random.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace fog;
using namespace fogtest;

namespace {

/// `n` CIFAR-10 records whose class shows in the picture: label c brightens channel c % 3 in
/// the top half (c < 5) or the bottom half, over noise.
void writeCifar(const std::string& path, int n, std::uint64_t seed) {
    std::ofstream out(path, std::ios::binary);
    Rng rng(seed);
    for (int i = 0; i < n; ++i) {
        const int label = i % 10;
        out.put(static_cast<char>(label));
        for (int c = 0; c < 3; ++c)
            for (int y = 0; y < 32; ++y)
                for (int x = 0; x < 32; ++x) {
                    int v = static_cast<int>(rng.uniform() * 100);
                    if (c == label % 3 && (label < 5) == (y < 16)) v += 150;
                    out.put(static_cast<char>(std::min(v, 255)));
                }
    }
}

std::string errorOf(const std::function<void()>& fn) {
    try {
        fn();
    } catch (const std::exception& e) {
        return e.what();
    }
    return {};
}

/// A LEAF JSON file: users w0..w(k-1) with the given sample counts, `features` values each,
/// labels from the first feature's sign pattern (learnable).
std::string leafJson(const std::vector<int>& counts, int features, std::uint64_t seed) {
    Rng rng(seed);
    std::string users = "[", nums = "[", data = "{";
    for (std::size_t u = 0; u < counts.size(); ++u) {
        const std::string name = "w" + std::to_string(u);
        users += (u ? ", \"" : "\"") + name + "\"";
        nums += (u ? ", " : "") + std::to_string(counts[u]);
        std::string xs = "[", ys = "[";
        for (int k = 0; k < counts[u]; ++k) {
            const int label = static_cast<int>(rng.below(4));
            xs += k ? ",\n      [" : "\n      [";
            for (int f = 0; f < features; ++f) {
                const double v = rng.uniform(-1.0, 1.0) + (f == label ? 3.0 : 0.0);
                xs += (f ? ", " : "") + std::to_string(v);
            }
            xs += "]";
            ys += (k ? ", " : "") + std::to_string(label);
        }
        data += std::string(u ? ",\n" : "\n") + "  \"" + name + "\": {\"x\": " + xs + "], \"y\": " + ys + "]}";
    }
    return "{\"users\": " + users + "],\n \"num_samples\": " + nums + "],\n \"user_data\": " + data + "\n }\n}\n";
}

std::string leafScenario(const std::string& train, const std::string& test, int devices) {
    return "name: leaf\n"
           "topology:\n"
           "  nodes:\n"
           "    - {id: server, tier: cloud, role: aggregator}\n"
           "  groups:\n"
           "    - {id: writer, count: " +
           std::to_string(devices) +
           ", parent: server}\n"
           "data: {dataset: leaf, train: '" +
           train + "', test: '" + test +
           "'}\n"
           "model: {kind: mlp, hidden: [16]}\n"
           "training: {learning_rate: 0.1, batch_size: 5, local_epochs: 1}\n"
           "sync: {policy: fedavg}\n"
           "stop: {rounds: 5}\n";
}

} // namespace

class TestOwnData : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void cifarBinaryFormat() {
        QTemporaryDir dir;
        const std::string train = dir.path().toStdString() + "/data_batch_1.bin";
        const std::string test = dir.path().toStdString() + "/test_batch.bin";
        writeCifar(train, 30, 1);
        writeCifar(test, 10, 2);
        const Dataset d = readCifar10({train});
        QCOMPARE(d.size(), std::size_t(30));
        QCOMPARE(d.channels, 3);
        QCOMPARE(d.height, 32);
        QCOMPARE(d.width, 32);
        QCOMPARE(d.classes, 10);
        QCOMPARE(d.labels[7], std::int64_t(7));
        // The first pixel of record 0, green plane: byte 1 + 1024, standardised with green's mean/std.
        std::ifstream in(train, std::ios::binary);
        in.seekg(1 + 1024);
        const int byte = static_cast<unsigned char>(in.get());
        QCOMPARE(d.features[1024], (static_cast<float>(byte) / 255.0f - 0.4822f) / 0.2435f);

        // A folder with the standard names, through the scenario reader (sizes checked).
        const Scenario s = loadScenarioText("topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n"
                                            "  groups:\n    - {id: d, count: 2, parent: s}\n"
                                            "data: {dataset: cifar10, dir: '" +
                                                dir.path().toStdString() +
                                                "'}\nmodel: {kind: cnn, hidden: [32]}\nsync: {policy: fedavg}\n",
                                            "cifar.yaml");
        const DataBundle b = loadData(s.data, 2, 1);
        QCOMPARE(b.train.size(), std::size_t(30));
        QCOMPARE(b.test.size(), std::size_t(10));
    }

    // 3-channel images through the built-in CNN and a TorchScript CNN, in the emulator.
    void cifarTrainsThroughCnns() {
        QTemporaryDir dir;
        const std::string train = dir.path().toStdString() + "/train.bin";
        const std::string test = dir.path().toStdString() + "/test.bin";
        writeCifar(train, 400, 3);
        writeCifar(test, 100, 4);
        for (const bool script : {false, true}) {
            Scenario s = timingStar(2, 1000.0, NoiseSpec::Kind::None);
            s.data.kind = DataSpec::Kind::Cifar10;
            s.data.trainPath = train;
            s.data.testPath = test;
            s.model.kind = script ? ModelSpec::Kind::TorchScript : ModelSpec::Kind::Cnn;
            s.model.path = std::string(FOG_TEST_DATA) + "/models/cnn-3x32x32.pt";
            s.model.hidden = {32};
            s.training.learningRate = 0.05;
            s.training.batchSize = 10;
            s.training.localEpochs = 1;
            s.sync.name = "fedavg";
            s.stop.rounds = 4;
            Recorder rec;
            const RunSummary r = runScenario(s, rec, 2);
            QCOMPARE(r.status, RunStatus::Finished);
            qInfo("CIFAR-format file, %s: test accuracy %.2f after 4 rounds", script ? "torchscript cnn" : "built-in cnn",
                  r.finalTestAccuracy);
            QVERIFY2(r.finalTestAccuracy > 0.3, "the CNN should learn the planted pattern (chance is 0.1)");
            QVERIFY(rec.records.back().trainLoss < rec.records.front().trainLoss);
        }
    }

    void cifarBadFilesRefused() {
        QTemporaryDir dir;
        const std::string bad = dir.path().toStdString() + "/bad.bin";
        std::ofstream(bad, std::ios::binary) << std::string(3073 * 2 + 5, '\0');
        QVERIFY(errorOf([&] { readCifar10({bad}); }).find(bad + ": 6151 bytes is not a whole number of CIFAR-10 records") == 0);
        const std::string label = dir.path().toStdString() + "/label.bin";
        std::string rec(3073 * 3, '\0');
        rec[3073 * 2] = 12;
        std::ofstream(label, std::ios::binary) << rec;
        const std::string e = errorOf([&] { readCifar10({label}); });
        QVERIFY2(e.find("record 3 (byte offset 6146): label 12 is not a CIFAR-10 class") != std::string::npos, e.c_str());
        QVERIFY(errorOf([&] { cifarTrainFiles(dir.path().toStdString() + "/none"); }).find("no data_batch_1.bin") !=
                std::string::npos);
        // A directory named as the file, through the validator: the key and the file.
        const std::string v = errorOf([&] {
            loadScenarioText("topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n    - {id: d, parent: s}\n"
                             "data: {dataset: cifar10, train: '" +
                                 dir.path().toStdString() + "', test: '" + bad + "'}\nsync: {policy: fedavg}\n",
                             "cifar.yaml");
        });
        QVERIFY2(v.find("data.train") != std::string::npos && v.find("is a directory") != std::string::npos, v.c_str());
        QVERIFY2(v.find("data.test") != std::string::npos && v.find("not a whole number of CIFAR-10 records") != std::string::npos,
                 v.c_str());
    }

    // LEAF: 5 writers give 5 devices, each with its own samples.
    void leafFiveWritersFiveDevices() {
        QTemporaryDir dir;
        const std::string train = dir.path().toStdString() + "/train.json";
        const std::string test = dir.path().toStdString() + "/test.json";
        const std::vector<int> counts{12, 30, 7, 21, 16};
        std::ofstream(train) << leafJson(counts, 8, 1);
        std::ofstream(test) << leafJson({10, 10, 10, 10, 10}, 8, 2);
        const Scenario s = loadScenarioText(leafScenario(train, test, 5), "leaf.yaml");
        QCOMPARE(s.data.partition.kind, PartitionSpec::Kind::Natural);
        const DataBundle b = loadData(s.data, 5, s.seed);
        QVERIFY(b.natural);
        QCOMPARE(b.parts.size(), std::size_t(5));
        QCOMPARE(b.writers, (std::vector<std::string>{"w0", "w1", "w2", "w3", "w4"}));
        std::int64_t next = 0;
        for (std::size_t u = 0; u < counts.size(); ++u) {
            QCOMPARE(b.parts[u].size(), std::size_t(counts[u]));
            for (auto i : b.parts[u]) QCOMPARE(i, next++); // the writer's own samples, in order
        }
        QCOMPARE(b.train.size(), std::size_t(86));
        QCOMPARE(b.test.size(), std::size_t(50));
        QCOMPARE(b.train.featureCount(), 8);
        QCOMPARE(b.train.classes, 4);

        // The run: 5 devices, each trains on its writer's samples (steps per epoch follow).
        Recorder rec;
        const RunSummary r = runScenario(s, rec, 2);
        QCOMPARE(r.status, RunStatus::Finished);
        QVERIFY2(r.finalTestAccuracy > 0.5, "the writers' data are learnable (chance 0.25)");

        // Another number of devices is refused with both counts.
        const std::string e = errorOf([&] {
            Recorder rec3;
            runScenario(loadScenarioText(leafScenario(train, test, 3), "leaf.yaml"), rec3);
        });
        QVERIFY2(e.find("has 5 writers but the topology has 3 trainers") != std::string::npos, e.c_str());
    }

    void leafBadFilesRefused_data() {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << "{\"users\": [\"a\"], \"num_samples\": [1],\n \"user_data\": {\"a\": {\"x\": [[1, 2]], \"y\": [0}}}"
                                << ":2:44: expected ',' or ']'";
        QTest::newRow("count") << "{\"users\": [\"a\"], \"num_samples\": [1],\n \"user_data\": {\"a\": {\"x\": [[1, 2]], \"y\": [0, 1]}}}"
                               << ":2:46: user 'a' has more labels than its num_samples (1)";
        QTest::newRow("x count") << "{\"users\": [\"a\"], \"num_samples\": [2],\n \"user_data\": {\"a\": {\"x\": [[1, 2]], \"y\": [0, 1]}}}"
                                 << "user 'a' has 1 samples in x, its num_samples says 2";
        QTest::newRow("huge count") << "{\"users\": [\"a\"], \"num_samples\": [1000000000],\n \"user_data\": {}}"
                                    << ":1:18: num_samples add up to 1000000000 samples, more than a file of";
        QTest::newRow("shape") << "{\"users\": [\"a\"], \"num_samples\": [2],\n \"user_data\": {\"a\": {\"x\": [[1, 2], [1, 2, 3]], \"y\": [0, 1]}}}"
                               << ":2:43: a sample larger than the first one";
        QTest::newRow("text label") << "{\"users\": [\"a\"], \"num_samples\": [1],\n \"user_data\": {\"a\": {\"x\": [[1]], \"y\": [\"q\"]}}}"
                                    << ":2:40: expected a finite number";
        QTest::newRow("unknown user") << "{\"users\": [\"a\"], \"num_samples\": [1],\n \"user_data\": {\"b\": {\"x\": [[1]], \"y\": [0]}}}"
                                      << ":2:16: user 'b' has data but is not in \"users\"";
        QTest::newRow("no users") << "{\"num_samples\": [1], \"user_data\": {}}" << ":1:1: no \"users\" list";
    }
    void leafBadFilesRefused() {
        QFETCH(QString, json);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/bad.json";
        std::ofstream(path) << json.toStdString();
        const std::string e = errorOf([&] { readLeaf(path); });
        if (expected.startsWith(':'))
            QVERIFY2(e.find(path + expected.toStdString()) == 0, e.c_str());
        else
            QVERIFY2(e.find(path) == 0 && e.find(expected.toStdString()) != std::string::npos, e.c_str());
    }

    // The writer count and the first pass of a LEAF file are checked when the scenario is
    // validated (fogstudio-cli validate, the studio's Problems list), not when it runs.
    void leafCheckedAtValidation() {
        QTemporaryDir dir;
        const std::string train = dir.path().toStdString() + "/train.json";
        const std::string test = dir.path().toStdString() + "/test.json";
        std::ofstream(train) << leafJson({12, 30, 7, 21, 16}, 8, 1);
        std::ofstream(test) << leafJson({10, 10, 10, 10, 10}, 8, 2);
        const std::string yaml3 = leafScenario(train, test, 3);
        // The studio reads what it can, then lists the problems.
        const Scenario read = readScenarioTextUnchecked(yaml3, "leaf.yaml");
        const auto problems = validateScenario(read);
        QCOMPARE(problems.size(), std::size_t(1));
        QCOMPARE(problems[0].path, std::string("data.train"));
        QVERIFY2(problems[0].message.find("the LEAF file " + train + " has 5 writers but the topology has 3 trainers") == 0 &&
                     problems[0].message.find("group count to 5") != std::string::npos,
                 problems[0].message.c_str());
        const std::string e = errorOf([&] { loadScenarioText(yaml3, "leaf.yaml"); });
        QVERIFY2(e.find("leaf.yaml") != std::string::npos && e.find("has 5 writers but the topology has 3 trainers") != std::string::npos,
                 e.c_str());
        QVERIFY(validateScenario(loadScenarioText(leafScenario(train, test, 5), "leaf.yaml")).empty());
        // A count the file cannot hold is refused from the first pass, before any sample.
        std::ofstream(train, std::ios::trunc) << "{\"users\": [\"a\"], \"num_samples\": [1000000000],\n \"user_data\": {}}";
        const std::string huge = errorOf([&] { loadScenarioText(leafScenario(train, test, 1), "leaf.yaml"); });
        QVERIFY2(huge.find(train + ":1:18: num_samples add up to 1000000000 samples") != std::string::npos, huge.c_str());
        // The probe follows the file: fixed, it validates.
        std::ofstream(train, std::ios::trunc) << leafJson({4}, 8, 3);
        QVERIFY(validateScenario(loadScenarioText(leafScenario(train, test, 1), "leaf.yaml")).empty());
        // The first sample's shape is known at validation (8 features).
        const DataFacts f = probeData(loadScenarioText(leafScenario(train, test, 1), "leaf.yaml").data);
        QVERIFY(f.known);
        QCOMPARE(f.writers, std::uint64_t(1));
        QCOMPARE(f.train, std::uint64_t(4));
        QCOMPARE(f.test, std::uint64_t(50));
        QCOMPARE(f.width, 8);
    }

    // A CSV client column: each client is one trainer with its own rows.
    void csvClientColumn() {
        QTemporaryDir dir;
        const std::string train = dir.path().toStdString() + "/train.csv";
        const std::string test = dir.path().toStdString() + "/test.csv";
        {
            std::ofstream out(train);
            out << "label,writer,a,b\n";
            const char* writers[] = {"alice", "bob", "carol"};
            Rng rng(1);
            for (int i = 0; i < 60; ++i) {
                const int w = i % 7 < 3 ? 0 : i % 7 < 5 ? 1 : 2;
                const int y = static_cast<int>(rng.below(2));
                out << y << "," << writers[w] << "," << (y ? 2.0 : -2.0) + rng.uniform() << "," << rng.uniform() << "\n";
            }
            std::ofstream t(test);
            t << "label,writer,a,b\n1,x,2.5,0\n0,y,-2.5,0\n";
        }
        const std::string yaml = "topology:\n  nodes:\n    - {id: s, tier: cloud, role: aggregator}\n"
                                 "  groups:\n    - {id: d, count: 3, parent: s}\n"
                                 "data: {dataset: csv, train: '" +
                                 train + "', test: '" + test +
                                 "', client_column: 2, partition: {kind: natural}}\n"
                                 "model: {kind: logreg}\nsync: {policy: fedavg}\nstop: {rounds: 2}\n";
        const Scenario s = loadScenarioText(yaml, "csv.yaml");
        const DataBundle b = loadData(s.data, 3, s.seed);
        QCOMPARE(b.writers, (std::vector<std::string>{"alice", "bob", "carol"}));
        QCOMPARE(b.train.featureCount(), 2);
        std::size_t sum = 0;
        for (const auto& p : b.parts) sum += p.size();
        QCOMPARE(sum, std::size_t(60));
        QCOMPARE(b.parts[0].size(), std::size_t(27)); // i % 7 in {0, 1, 2}
        QCOMPARE(b.parts[1].size(), std::size_t(17));
        QCOMPARE(b.parts[2].size(), std::size_t(16));
        Recorder rec;
        QCOMPARE(runScenario(s, rec).status, RunStatus::Finished);
        // Natural without a client column is refused, and says what would do.
        const std::string e = errorOf([&] {
            std::string y = yaml;
            y.replace(y.find("client_column: 2, "), 18, "");
            loadScenarioText(y, "csv.yaml");
        });
        QVERIFY2(e.find("natural needs data that name their writers") != std::string::npos, e.c_str());
        // Another number of devices is refused at validation, with both counts.
        std::string four = yaml;
        four.replace(four.find("count: 3"), 8, "count: 4");
        const auto problems = validateScenario(readScenarioTextUnchecked(four, "csv.yaml"));
        QCOMPARE(problems.size(), std::size_t(1));
        QCOMPARE(problems[0].path, std::string("data.client_column"));
        QVERIFY2(problems[0].message.find("the client column of " + train + " names 3 writers but the topology has 4 trainers") == 0,
                 problems[0].message.c_str());
        QCOMPARE(probeCsv(train, 2).rows, std::uint64_t(60));
        QCOMPARE(probeCsv(train, 2).clients, std::uint64_t(3));
        // Without a header, the first row's writer name does not make it one.
        const std::string headless = dir.path().toStdString() + "/headless.csv";
        std::ofstream(headless) << "1,alice,0.5,0.2\n0,bob,0.1,0.3\n1,alice,0.7,0.1\n";
        QCOMPARE(probeCsv(headless, 2).rows, std::uint64_t(3));
        QCOMPARE(probeCsv(headless, 2).clients, std::uint64_t(2));
        QCOMPARE(readCsv(headless, 2, nullptr).size(), std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestOwnData)
#include "test_own_data.moc"
