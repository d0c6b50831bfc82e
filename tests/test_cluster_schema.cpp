// The tables of cluster files (core/cluster/cluster_schema.h): consistent, and the reader,
// writer, validator, --set and the key reference of docs/cluster.md all follow every key of
// them; files save byte for byte as the hand-written writer did before the tables.

#include "core/cluster/cluster_io.h"
#include "core/cluster/cluster_schema.h"
#include "core/cluster/cluster_scheduler.h"
#include "core/scenario/yaml_reader.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "schema_fixtures.h"

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <set>

using namespace fog;
using namespace fog::cluster;

namespace {

const std::string kPreset = std::string(FOG_SOURCE_DIR) + "/presets/tapfinger-edge-cluster.yaml";

std::string diagnosticsText(const ScenarioError& e) {
    std::string all;
    for (const auto& d : e.diagnostics)
        all += d.format() + "\n";
    return all;
}

/// One cluster, one roomy server, one task type with room between min, request and max:
/// every key can take another valid value without breaking a rule between keys.
ClusterScenario base() {
    ClusterScenario s;
    s.name = "schema test";
    ClusterSpec c;
    c.id = "c";
    c.servers.push_back({"s", 64, 16, 1000.0, 1000.0});
    s.clusters.push_back(c);
    TaskType t;
    t.name = "t";
    s.taskTypes.push_back(t);
    s.arrivals.traceFile = "arrivals.csv"; // written only with kind trace
    return s;
}

/// The three variants the writer's golden files hold (tests/data/cluster_saved): the preset,
/// and the preset with every optional key and the other kinds.
std::vector<ClusterScenario> goldenVariants() {
    const ClusterScenario preset = loadClusterScenarioFile(kPreset);
    ClusterScenario b = preset;
    b.description = "two\nlines";
    b.taskTypes[0].work.kind = WorkSpec::Kind::Uniform;
    b.taskTypes[0].work.min = 2.5;
    b.taskTypes[0].work.max = 30.125;
    b.taskTypes[1].work.kind = WorkSpec::Kind::Fixed;
    b.taskTypes[1].memoryGb = 0.1;
    b.clusters[1].servers.push_back({"edge-b-1", 8, 2, 32.5, 0.1});
    b.scheduler.name = "tiresias";
    b.scheduler.thresholds = {2, 8, 32};
    b.arrivals.kind = ArrivalSpec::Kind::Trace;
    b.arrivals.traceFile = "arrivals.csv";
    ClusterScenario c = preset;
    c.scheduler.name = "learned";
    c.scheduler.policyFile = "policy.pt";
    c.queueLimit = 5;
    c.seed = 18446744073709551615ull;
    c.name = "with: a colon";
    return {preset, b, c};
}

/// A valid value of `f` other than the current one (texts that must stay what their key
/// reads: a file name, a literal block).
template <class T> FieldValue otherValue(const SchemaField<T>& f, const T& t) {
    if (f.type == FieldType::Text) {
        if (f.path == "arrivals.file") return std::string("other.csv");
        // A description is written as a literal block, which ends with a line break.
        if (f.path == "description") return std::string("text\nof two lines\n");
    }
    return fogtest::otherValue(f, t, fieldBounds(f));
}

/// Makes `f` apply: the enums its condition names take the first value it needs.
template <class T> void makeApply(T& t, const SchemaField<T>& f, const std::vector<SchemaField<T>>& table) {
    for (const auto& g : table) {
        const bool above = g.type == FieldType::Section && f.path.compare(0, g.path.size() + 1, g.path + ".") == 0;
        if ((&g == &f || above) && g.when)
            for (const auto& c : table)
                if (c.path == g.when->path) c.set(t, FieldValue(g.when->values.front()));
    }
}

/// One key of one of the tables, reached from the scenario: where it lives (`prefix`), how
/// to make it apply, set it and read it.
struct Key {
    std::string path;   ///< full path in a file, e.g. "clusters[0].servers[0].cpus"
    const FieldInfo* info = nullptr;
    std::vector<const FieldInfo*> dependants; ///< keys whose `when` names this one
    std::function<void(ClusterScenario&)> apply;
    std::function<FieldValue(const ClusterScenario&)> other;
    std::function<FieldValue(const ClusterScenario&)> get;
    std::function<void(ClusterScenario&, const FieldValue&)> set;
};

template <class T, class Pick>
void addKeys(std::vector<Key>& out, const std::vector<SchemaField<T>>& table, const std::string& prefix, Pick pick) {
    for (const auto& f : table) {
        if (f.custom || f.type == FieldType::Section) continue;
        Key k;
        k.path = prefix + f.path;
        k.info = &f;
        for (const auto& g : table)
            if (g.when && g.when->path == f.path) k.dependants.push_back(&g);
        k.apply = [&f, &table, pick](ClusterScenario& s) { makeApply(pick(s), f, table); };
        k.other = [&f, pick](const ClusterScenario& s) { return otherValue(f, pick(const_cast<ClusterScenario&>(s))); };
        k.get = [&f, pick](const ClusterScenario& s) { return f.get(pick(const_cast<ClusterScenario&>(s))); };
        k.set = [&f, pick](ClusterScenario& s, const FieldValue& v) { f.set(pick(s), v); };
        out.push_back(std::move(k));
    }
}

std::vector<Key> everyKey() {
    std::vector<Key> out;
    addKeys(out, clusterSchema(), "", [](ClusterScenario& s) -> ClusterScenario& { return s; });
    addKeys(out, clusterEntrySchema(), "clusters[0].", [](ClusterScenario& s) -> ClusterSpec& { return s.clusters[0]; });
    addKeys(out, serverSchema(), "clusters[0].servers[0].",
            [](ClusterScenario& s) -> ServerSpec& { return s.clusters[0].servers[0]; });
    addKeys(out, taskTypeSchema(), "task_types[0].", [](ClusterScenario& s) -> TaskType& { return s.taskTypes[0]; });
    return out;
}

/// The text of docs/cluster.md between `<!-- name:begin (command) -->` and `<!-- name:end -->`.
QString generatedPart(const QString& name, const QString& command) {
    QFile doc(QStringLiteral(FOG_SOURCE_DIR "/docs/cluster.md"));
    if (!doc.open(QIODevice::ReadOnly)) return {};
    const QString text = QString::fromUtf8(doc.readAll());
    const QString begin = "<!-- " + name + ":begin (" + command + ") -->\n";
    const QString end = "<!-- " + name + ":end -->";
    const auto from = text.indexOf(begin), to = text.indexOf(end);
    if (from < 0 || to <= from) return {};
    return text.mid(from + begin.size(), to - from - begin.size());
}

} // namespace

class TestClusterSchema : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::string dir() const { return dir_.path().toStdString(); }

  private Q_SLOTS:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        for (const char* name : {"arrivals.csv", "other.csv"}) {
            std::ofstream out(dir_.filePath(name).toStdString());
            out << "time,type\n0,t\n1.5,t\n";
        }
    }

    void tablesAreConsistent() {
        int keys = 0;
        auto check = [&](const auto& table, const auto& defaults) {
            std::set<std::string> paths;
            for (const auto& f : table) {
                QVERIFY2(paths.insert(f.path).second, f.path.c_str());
                QVERIFY2(!f.help.empty(), f.path.c_str());
                if (!f.parent().empty()) QVERIFY2(paths.count(f.parent()) == 1, f.path.c_str()); // section first
                if (f.when) QVERIFY2(paths.count(f.when->path) == 1, f.path.c_str());            // read before
                if (f.type != FieldType::Section && !f.custom) QVERIFY2(f.get && f.set, f.path.c_str());
                if (f.get && f.isNumber())
                    QVERIFY2(boundsProblem(fieldBounds(f), std::get<double>(f.get(defaults))).empty(), f.path.c_str());
                ++keys;
            }
        };
        check(clusterSchema(), ClusterScenario{});
        check(clusterEntrySchema(), ClusterSpec{});
        check(serverSchema(), ServerSpec{});
        check(taskTypeSchema(), TaskType{});
        QVERIFY(keys >= 40);
    }

    void everyKeyIsWrittenAndReadBack() {
        int checked = 0;
        for (const Key& k : everyKey()) {
            ClusterScenario s = base();
            k.apply(s);
            const FieldValue v = k.other(s);
            QVERIFY2(!sameFieldValue(v, k.get(s)), k.path.c_str());
            k.set(s, v);
            const std::string text = saveClusterScenarioText(s);
            ClusterScenario back;
            try {
                back = loadClusterScenarioText(text, "round-trip", dir());
            } catch (const ScenarioError& e) {
                QFAIL((k.path + ": " + diagnosticsText(e) + text).c_str());
            }
            QVERIFY2(sameFieldValue(k.get(back), v), (k.path + " read back as " + formatFieldValue(k.get(back))).c_str());
            QCOMPARE(saveClusterScenarioText(back), text);
            ++checked;
        }
        QVERIFY(checked >= 30);
    }

    void everyKeyCanBeSet() {
        // --set key=value on a file where the key applies reaches every key (the same
        // mechanism as training files). A kind whose other value changes which keys apply
        // cannot change alone (the file's keys of the old kind are refused then): its values
        // are read and written in everyKeyIsWrittenAndReadBack.
        int checked = 0;
        for (const Key& k : everyKey()) {
            ClusterScenario s = base();
            k.apply(s);
            FieldValue v = k.other(s);
            if (k.path == "description") v = std::string("one line"); // --set takes one line
            const bool changesKeys = std::any_of(k.dependants.begin(), k.dependants.end(), [&](const FieldInfo* d) {
                auto in = [d](const FieldValue& x) {
                    const auto& values = d->when->values;
                    return std::find(values.begin(), values.end(), std::get<std::string>(x)) != values.end();
                };
                return in(v) != in(k.get(s));
            });
            if (changesKeys) continue;
            const std::string file = saveClusterScenarioText(s);
            const std::vector<Override> o{parseOverride(k.path + "=" + formatFieldValue(v))};
            try {
                const ClusterScenario set = loadClusterScenarioText(file, "set", dir(), o);
                QVERIFY2(sameFieldValue(k.get(set), v), (k.path + " is " + formatFieldValue(k.get(set))).c_str());
            } catch (const ScenarioError& e) {
                QFAIL((k.path + ": " + diagnosticsText(e)).c_str());
            }
            ++checked;
        }
        QVERIFY(checked >= 30);
    }

    void everyBoundIsValidated() {
        // Just outside each finite bound: refused at the key, with the table's words.
        int checked = 0;
        for (const Key& k : everyKey()) {
            if (!k.info->isNumber()) continue;
            const NumericBounds b = fieldBounds(*k.info);
            std::vector<double> outside;
            const bool integer = k.info->type == FieldType::Integer;
            if (std::isfinite(b.min) && b.min > std::numeric_limits<int>::min())
                outside.push_back(b.minInclusive ? b.min - (integer ? 1 : 0.5) : b.min);
            if (std::isfinite(b.max) && b.max < std::numeric_limits<int>::max())
                outside.push_back(b.maxInclusive ? b.max + (integer ? 1 : 0.5) : b.max);
            for (double x : outside) {
                ClusterScenario s = base();
                k.apply(s);
                k.set(s, FieldValue(x));
                const std::string expected = boundsProblem(b, x);
                QVERIFY(!expected.empty());
                try {
                    loadClusterScenarioText(saveClusterScenarioText(s), "bounds", dir());
                    QFAIL((k.path + " accepted " + formatNumber(x)).c_str());
                } catch (const ScenarioError& e) {
                    bool found = false;
                    for (const auto& d : e.diagnostics)
                        found |= d.path == k.path && d.message == expected && d.line > 0;
                    QVERIFY2(found, (k.path + ": expected '" + expected + "', got\n" + diagnosticsText(e)).c_str());
                }
                ++checked;
            }
        }
        QVERIFY(checked >= 25);
    }

    void keyReferenceIsUpToDate() {
        const QString keys = generatedPart("cluster-schema", "fogstudio-cli cluster schema");
        QVERIFY2(!keys.isNull(), "docs/cluster.md lacks the cluster-schema markers");
        // On a difference: fogstudio-cli cluster schema, pasted between the markers.
        QCOMPARE(keys, QString::fromStdString(clusterSchemaMarkdown()));
        const QString schedulers = generatedPart("cluster-schedulers", "fogstudio-cli cluster schedulers --markdown");
        QVERIFY2(!schedulers.isNull(), "docs/cluster.md lacks the cluster-schedulers markers");
        QCOMPARE(schedulers, QString::fromStdString(clusterSchedulersMarkdown()));
        for (const auto& d : schedulerInfos())
            QVERIFY2(schedulers.contains(QString::fromStdString("| `" + d.name + "` |")), d.name.c_str());
    }

    void filesSaveAsBefore() {
        // The golden files were written by the hand-written writer that the tables replaced.
        const auto variants = goldenVariants();
        const char* names[] = {"preset", "optional-keys", "learned"};
        for (std::size_t i = 0; i < variants.size(); ++i) {
            QFile golden(QString(FOG_TEST_DATA "/cluster_saved/%1.yaml").arg(names[i]));
            QVERIFY2(golden.open(QIODevice::ReadOnly), names[i]);
            QCOMPARE(QString::fromStdString(saveClusterScenarioText(variants[i])), QString::fromUtf8(golden.readAll()));
        }
    }
};

QTEST_GUILESS_MAIN(TestClusterSchema)
#include "test_cluster_schema.moc"
