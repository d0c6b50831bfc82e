// The scenario schema (core/scenario/schema.h): the table is consistent, and the reader,
// writer, validator, --set, equality, the studio's panels and the key reference all pick up
// every key of it, because they are driven by it rather than by copies of it.

#include "core/policies/policy_info.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/policy_tables.h"
#include "core/scenario/schema.h"
#include "core/scenario/yaml_reader.h"
#include "widgets/document/scenario_document.h"
#include "widgets/policy/policy_panel.h"
#include "widgets/policy/settings_panel.h"
#include "widgets/topology/property_inspector.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLineEdit>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

#include "schema_fixtures.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

using namespace fog;

namespace {

/// One server, one trainer, timing only: valid, and quick to validate.
Scenario base() {
    Scenario s;
    s.name = "schema test";
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

/// The keys the generic machinery handles (custom ones have code of their own).
std::vector<const ScenarioField*> valueFields() {
    std::vector<const ScenarioField*> out;
    for (const auto& f : scenarioSchema())
        if (!f.custom && f.type != FieldType::Section) out.push_back(&f);
    return out;
}

/// Makes `f` apply to `t`: the conditions of its sections and its own hold, optional sections
/// are there.
template <class T>
void makeApply(T& t, const SchemaField<T>& f, const std::vector<SchemaField<T>>& table) {
    for (const auto& g : table) {
        const bool above = g.type == FieldType::Section && f.path.compare(0, g.path.size() + 1, g.path + ".") == 0;
        if (&g != &f && !above) continue;
        if (g.when) {
            for (const auto& c : table)
                if (c.path == g.when->path) c.set(t, FieldValue(g.when->values.front()));
        }
        if (g.optional && g.setPresent) g.setPresent(t, true);
    }
}
void makeApply(Scenario& s, const ScenarioField& f) {
    makeApply(s, f, scenarioSchema());
}

using fogtest::otherValue;
FieldValue otherValue(const ScenarioField& f, const Scenario& s) {
    return fogtest::otherValue(f, s, fieldBounds(f, s));
}

bool hasProblemAt(const std::vector<Diagnostic>& d, const std::string& path, const std::string& file = {}) {
    for (const auto& x : d)
        if (x.path == path && (file.empty() || x.file == file) && x.message.rfind("must be", 0) == 0) return true;
    return false;
}

std::string allText(const std::vector<Diagnostic>& d) {
    std::string out;
    for (const auto& x : d)
        out += x.format() + "\n";
    return out;
}

/// Values just outside each finite bound the loader enforces: below the minimum and above
/// the maximum (for integers, not the int range the reader enforces by type).
std::vector<double> outside(const FieldInfo& f, const NumericBounds& b) {
    std::vector<double> out;
    const bool integer = f.type == FieldType::Integer || f.type == FieldType::IntList;
    if (std::isfinite(b.min) && b.min > std::numeric_limits<int>::min())
        out.push_back(b.minInclusive ? b.min - (integer ? 1 : 0.5) : b.min);
    if (std::isfinite(b.max) && b.max < std::numeric_limits<int>::max())
        out.push_back(b.maxInclusive ? b.max + (integer ? 1 : 0.5) : b.max);
    return out;
}

/// A server, an edge aggregator with a group of two trainers, and a trainer: each node key
/// has an entry it applies to (the aggregation keys on the edge, a group's keys on the group).
Scenario inspectorBase() {
    Scenario s = base();
    s.model.flopsPerSample = 1000; // nodes in FLOP/s and energy per FLOP need a model cost
    NodeSpec edge = s.topology.nodes[0];
    edge.id = "edge";
    edge.tier = Tier::Edge;
    edge.parent = "server";
    NodeSpec phones = s.topology.nodes[1];
    phones.id = "phones";
    phones.parent = "edge";
    phones.group = true;
    phones.count = 2;
    s.topology.nodes.push_back(edge);
    s.topology.nodes.push_back(phones);
    return s;
}

const NodeSpec* entry(const Scenario& s, const std::string& id) {
    for (const auto& n : s.topology.nodes)
        if (n.id == id) return &n;
    return nullptr;
}

/// Puts `text` into a line edit as typing it and leaving the field does.
void typeInto(QLineEdit* e, const QString& text) {
    e->setText(text);
    e->setModified(true);
    Q_EMIT e->editingFinished();
}

/// Chooses the entry whose value (its data, or its text in an editable box) is `v`.
bool chooseIn(QComboBox* c, const QString& v) {
    if (c->isEditable()) {
        c->setEditText(v);
        Q_EMIT c->lineEdit()->editingFinished();
        return true;
    }
    const int i = c->findData(v);
    if (i < 0) return false;
    c->setCurrentIndex(i);
    Q_EMIT c->activated(i);
    return true;
}

/// A value the editor offers other than `now`: another entry of a box (the table's other
/// value when it is one of them), else the table's other valid value.
FieldValue editorValue(QWidget* editor, const NodeField& f, const NodeSpec& n) {
    const FieldValue other = otherValue(f, n, fieldBounds(f));
    auto* c = qobject_cast<QComboBox*>(editor);
    if (!c) return other;
    const QString now = QString::fromStdString(std::get<std::string>(f.get(n)));
    auto valueAt = [c](int i) { return c->isEditable() ? c->itemText(i) : c->itemData(i).toString(); };
    if (const auto* text = std::get_if<std::string>(&other); text && !c->isEditable())
        if (c->findData(QString::fromStdString(*text)) >= 0) return other;
    for (int i = 0; i < c->count(); ++i)
        if (!valueAt(i).isEmpty() && valueAt(i) != now) return valueAt(i).toStdString();
    return other;
}

/// Writes `v` through the editor: typed into a line edit, chosen in a box, ticked, spun.
bool writeThrough(QWidget* editor, const FieldValue& v) {
    if (auto* e = qobject_cast<QLineEdit*>(editor)) {
        if (const auto* r = std::get_if<Range>(&v)) typeInto(e, QString::fromStdString(formatNumber(r->min)));
        else if (const auto* t = std::get_if<std::string>(&v)) typeInto(e, QString::fromStdString(*t));
        else typeInto(e, QString::fromStdString(formatFieldValue(v)));
        return true;
    }
    if (auto* c = qobject_cast<QComboBox*>(editor)) return chooseIn(c, QString::fromStdString(std::get<std::string>(v)));
    if (auto* b = qobject_cast<QCheckBox*>(editor)) {
        if (b->isChecked() != std::get<bool>(v)) b->click();
        return true;
    }
    if (auto* sb = qobject_cast<QSpinBox*>(editor)) {
        sb->setValue(static_cast<int>(std::get<double>(v)));
        return true;
    }
    return false;
}

/// What an edit of `path` on the entry `id` changed besides that key (and the keys below it):
/// every other key of the node table on that entry, read through the table, and every other
/// entry and link as a whole. Empty when the editor wrote only the field it names.
std::string changedBesides(const Scenario& before, const Scenario& after, std::size_t index, const std::string& path) {
    std::string out;
    if (before.topology.nodes.size() != after.topology.nodes.size()) return "the number of entries changed";
    for (std::size_t i = 0; i < before.topology.nodes.size(); ++i) {
        const NodeSpec& a = before.topology.nodes[i];
        const NodeSpec& b = after.topology.nodes[i];
        if (i != index) {
            if (!sameNodeSpec(a, b)) out += " entry " + a.id + ";";
            continue;
        }
        for (const auto& f : nodeSchema()) {
            const bool below = f.path.size() > path.size() && f.path.compare(0, path.size(), path) == 0 &&
                               f.path[path.size()] == '.';
            if (f.path == path || below) continue;
            if (f.present && f.present(a) != f.present(b)) out += " " + f.path + " (added or removed);";
            if (f.get && !sameFieldValue(f.get(a), f.get(b)))
                out += " " + f.path + ": " + formatFieldValue(f.get(a)) + " -> " + formatFieldValue(f.get(b)) + ";";
        }
    }
    const auto& la = before.topology.links;
    const auto& lb = after.topology.links;
    if (la.size() != lb.size() || !std::equal(la.begin(), la.end(), lb.begin(), sameLinkSpec)) out += " the links;";
    return out;
}

double roundTo(double v, int decimals) {
    return QString::number(v, 'f', decimals).toDouble();
}

} // namespace

class TestSchema : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void tableIsConsistent();
    void everyKeyIsWrittenAndReadBack();
    void everyKeyCanBeSet();
    void everyBoundIsValidated();
    void keysOfOtherKindsAreRefused();
    void equalityFollowsTheFile();
    void policyEqualityFillsDefaults();
    void settingsPanelBoundsAreTheLoaders();
    void policyPanelBoundsAreTheLoaders();
    void keyReferenceIsUpToDate();
    void policyTablesAreUpToDate();
    void policyTreeTablesAreUpToDate();
    void handTablesAgreeWithTheSchema();
    void nodeKeysAgreeWithTheLoader();
    void nodeEqualityCoversEveryKey();
    void inspectorFollowsTheSchema();
    void inspectorEditsEveryNodeKey();
    void laterKeysAreWrittenOnlyWhenSet();
    void groupOnlyKeysAreRefusedOnNodes();
};

void TestSchema::tableIsConsistent() {
    std::set<std::string> paths;
    for (const auto& f : scenarioSchema()) {
        QVERIFY2(paths.insert(f.path).second, f.path.c_str()); // unique
        QVERIFY2(!f.help.empty(), f.path.c_str());
        if (!f.parent().empty()) {
            const ScenarioField* parent = findScenarioField(f.parent());
            QVERIFY2(parent && parent->type == FieldType::Section, f.path.c_str());
        }
        if (f.type != FieldType::Section) QVERIFY2(f.get && f.set, f.path.c_str());
        if (f.optional) QVERIFY2(f.present && f.setPresent, f.path.c_str());
        std::vector<FieldCondition> conditions;
        if (f.when) conditions.push_back(*f.when);
        for (const auto& c : f.minWhen)
            conditions.push_back(c.when);
        for (const auto& c : conditions) {
            // A condition names an enum of the same table, read before the key, with real values.
            const ScenarioField* control = findScenarioField(c.path);
            QVERIFY2(control && control->type == FieldType::Enum, (f.path + " -> " + c.path).c_str());
            QVERIFY2(control < &f, (f.path + " is read before " + c.path).c_str());
            for (const auto& v : c.values)
                QVERIFY2(std::count(control->enumValues.begin(), control->enumValues.end(), v) == 1,
                         (f.path + ": " + v).c_str());
        }
        // The defaults are within the bounds and among the enum values.
        if (!f.get) continue;
        const Scenario defaults;
        const FieldValue v = f.get(defaults);
        if (f.isNumber())
            QVERIFY2(boundsProblem(fieldBounds(f), std::get<double>(v)).empty(), f.path.c_str());
        if (f.type == FieldType::Enum && !f.custom)
            QVERIFY2(std::count(f.enumValues.begin(), f.enumValues.end(), std::get<std::string>(v)) == 1,
                     f.path.c_str());
    }
    // Every key of a default scenario file is in the table: the writer writes nothing else.
    const std::string text = saveScenarioText(Scenario{});
    for (const char* key : {"name:", "seed:", "learning_rate:", "every_rounds:", "partition:", "wire_bytes:"})
        QVERIFY(text.find(key) != std::string::npos);
    QCOMPARE(linkSchema().size(), std::size_t(4));
}

void TestSchema::everyKeyIsWrittenAndReadBack() {
    for (const ScenarioField* f : valueFields()) {
        Scenario s = base();
        makeApply(s, *f);
        const FieldValue v = otherValue(*f, s);
        QVERIFY2(!sameFieldValue(v, f->get(s)), f->path.c_str());
        f->set(s, v);
        QVERIFY2(sameFieldValue(f->get(s), v), f->path.c_str());
        const std::string text = saveScenarioText(s);
        Scenario back;
        try {
            back = readScenarioTextUnchecked(text, "round-trip");
        } catch (const ScenarioError& e) {
            QFAIL((f->path + ": " + e.what() + "\n" + text).c_str());
        }
        QVERIFY2(sameFieldValue(f->get(back), v), (f->path + " read back as " + formatFieldValue(f->get(back)) +
                                                   "\n" + text).c_str());
        QVERIFY2(sameScenario(s, back), f->path.c_str());
        QCOMPARE(saveScenarioText(back), text);
    }
}

void TestSchema::everyKeyCanBeSet() {
    // From a file with the topology only: --set makes the key apply (its kinds) and sets it,
    // creating the maps on the way.
    const std::string minimal = "topology:\n  nodes:\n    - {id: server, tier: cloud, role: aggregator}\n"
                                "    - {id: worker, parent: server}\n";
    for (const ScenarioField* f : valueFields()) {
        std::vector<Override> overrides;
        for (const auto& g : scenarioSchema()) {
            const bool above = g.type == FieldType::Section && f->path.compare(0, g.path.size() + 1, g.path + ".") == 0;
            if ((&g == f || above) && g.when)
                overrides.push_back(parseOverride(g.when->path + "=" + g.when->values.front()));
        }
        Scenario before, set;
        try {
            before = readScenarioTextUnchecked(minimal, "set", overrides);
            const FieldValue v = otherValue(*f, before);
            overrides.push_back(parseOverride(f->path + "=" + formatFieldValue(v)));
            set = readScenarioTextUnchecked(minimal, "set", overrides);
            QVERIFY2(sameFieldValue(f->get(set), v), f->path.c_str());
            QVERIFY2(!sameFieldValue(f->get(before), v), f->path.c_str());
        } catch (const ScenarioError& e) {
            QFAIL((f->path + ": " + e.what()).c_str());
        }
    }
    // Numbers through the whole loader, validation included: the values are kept.
    const std::string text = saveScenarioText(base());
    const Scenario s = loadScenarioText(text, "set", {parseOverride("training.learning_rate=1e3")});
    QCOMPARE(s.training.learningRate, 1000.0); // the loader allows any positive rate (no cap at 100)
}

void TestSchema::everyBoundIsValidated() {
    int checked = 0;
    for (const ScenarioField* f : valueFields()) {
        if (!f->isNumber() && f->type != FieldType::IntList) continue;
        Scenario s = base();
        makeApply(s, *f);
        const NumericBounds b = fieldBounds(*f, s);
        const std::string path = f->type == FieldType::IntList ? f->path + "[0]" : f->path;
        // A value within the bounds: no problem at this key.
        Scenario good = s;
        f->set(good, otherValue(*f, s));
        QVERIFY2(!hasProblemAt(validateScenario(good), path), allText(validateScenario(good)).c_str());
        const std::string text = saveScenarioText(s);
        for (double bad : outside(*f, b)) {
            Scenario wrong = s;
            if (f->type == FieldType::IntList)
                f->set(wrong, FieldValue(std::vector<int>{static_cast<int>(bad)}));
            else
                f->set(wrong, FieldValue(bad));
            const auto problems = validateScenario(wrong);
            QVERIFY2(hasProblemAt(problems, path), (path + " = " + formatNumber(bad) + ":\n" + allText(problems)).c_str());
            // The same through the loader and --set: refused, named, and blamed on --set.
            const std::string value = f->type == FieldType::IntList ? "[" + formatNumber(bad) + "]" : formatNumber(bad);
            try {
                loadScenarioText(text, "bounds", {parseOverride(f->path + "=" + value)});
                QFAIL((path + " = " + value + " was accepted").c_str());
            } catch (const ScenarioError& e) {
                QVERIFY2(hasProblemAt(e.diagnostics, path, "--set"), e.what());
            }
            ++checked;
        }
    }
    QVERIFY(checked >= 25);
    // Conditional bounds: gamma 0 is fine with inverse-time, not with step.
    Scenario s = base();
    s.training.schedule.kind = ScheduleSpec::Kind::InverseTime;
    s.training.schedule.gamma = 0;
    QVERIFY(!hasProblemAt(validateScenario(s), "training.schedule.gamma"));
    s.training.schedule.kind = ScheduleSpec::Kind::Step;
    QVERIFY(hasProblemAt(validateScenario(s), "training.schedule.gamma"));
    // Links: every key of default_link and of a node's link.
    for (const auto& f : linkSchema()) {
        Scenario bad = base();
        bad.topology.hasDefaultLink = true;
        f.set(bad.topology.defaultLink, FieldValue(-1.0));
        QVERIFY2(hasProblemAt(validateScenario(bad), "topology.default_link." + f.key()), f.path.c_str());
        bad = base();
        bad.topology.nodes[1].link = LinkParams{};
        f.set(*bad.topology.nodes[1].link, FieldValue(-1.0));
        QVERIFY2(hasProblemAt(validateScenario(bad), "topology.nodes[1].link." + f.key()), f.path.c_str());
    }
}

void TestSchema::keysOfOtherKindsAreRefused() {
    int checked = 0;
    for (const auto& f : scenarioSchema()) {
        if (f.custom || !f.when) continue;
        Scenario s = base();
        makeApply(s, f);
        const ScenarioField* control = findScenarioField(f.when->path);
        std::string other;
        for (const auto& v : control->enumValues)
            if (std::count(f.when->values.begin(), f.when->values.end(), v) == 0) other = v;
        QVERIFY2(!other.empty(), f.path.c_str());
        control->set(s, FieldValue(other));
        const std::string text = saveScenarioText(s);
        const std::string value = f.type == FieldType::Section ? "{}" : formatFieldValue(f.get(s));
        try {
            readScenarioTextUnchecked(text, "kinds", {parseOverride(f.path + "=" + value)});
            QFAIL((f.path + " accepted with " + f.when->path + ": " + other).c_str());
        } catch (const ScenarioError& e) {
            bool found = false;
            for (const auto& d : e.diagnostics)
                found = found || (d.path == f.path && d.message.find("is only used with") == 0);
            QVERIFY2(found, e.what());
        }
        ++checked;
    }
    QVERIFY(checked >= 15);
}

void TestSchema::equalityFollowsTheFile() {
    for (const ScenarioField* f : valueFields()) {
        Scenario a = base();
        makeApply(a, *f);
        Scenario b = a;
        f->set(b, otherValue(*f, a));
        QVERIFY2(!sameScenario(a, b), f->path.c_str());
        QVERIFY(saveScenarioText(a) != saveScenarioText(b));
        if (!f->when) continue;
        // A key that does not apply is not in the file: changing it changes nothing.
        const ScenarioField* control = findScenarioField(f->when->path);
        for (const auto& v : control->enumValues)
            if (std::count(f->when->values.begin(), f->when->values.end(), v) == 0) control->set(a, FieldValue(v));
        b = a;
        f->set(b, otherValue(*f, a));
        QVERIFY2(sameScenario(a, b), f->path.c_str());
        QCOMPARE(saveScenarioText(a), saveScenarioText(b));
    }
    // Numbers as the file spells them: -0 is not 0; the topology counts.
    Scenario a = base(), b = base();
    b.stop.budget = -0.0;
    QVERIFY(!sameScenario(a, b));
    b = a;
    b.topology.nodes[1].parent = "elsewhere";
    QVERIFY(!sameScenario(a, b));
    QVERIFY(!sameTopology(a.topology, b.topology));
    b = a;
    b.topology.hasDefaultLink = true;
    QVERIFY(!sameTopology(a.topology, b.topology));
    a.topology.hasDefaultLink = true;
    QVERIFY(sameTopology(a.topology, b.topology));
    b.topology.defaultLink.latencyMs = 3;
    QVERIFY(!sameTopology(a.topology, b.topology));
}

void TestSchema::policyEqualityFillsDefaults() {
    Scenario a = base(), b = base();
    a.sync.name = b.sync.name = "n-sync";
    b.sync.params["n"] = 1; // the default, written out either way
    QVERIFY(sameScenario(a, b));
    QCOMPARE(saveScenarioText(a), saveScenarioText(b));
    b.sync.params["n"] = 2;
    QVERIFY(!sameScenario(a, b));
    b = a;
    b.selection.params["unknown"] = 1; // kept and written: a difference
    QVERIFY(!sameScenario(a, b));
    b = a;
    b.sync.name = "fully-sync";
    QVERIFY(!sameScenario(a, b));
}

void TestSchema::settingsPanelBoundsAreTheLoaders() {
    ScenarioDocument doc;
    SettingsPanel panel;
    panel.setDocument(&doc);
    int spins = 0, enums = 0;
    // Each kind in turn, so that keys of every kind (and conditional bounds) are seen applying.
    for (const ScenarioField* f : valueFields()) {
        QWidget* editor = panel.editorFor(QString::fromStdString(f->path));
        if (!editor) continue;
        Scenario s = base();
        makeApply(s, *f);
        doc.setScenario(s);
        const NumericBounds b = fieldBounds(*f, s);
        if (auto* sb = qobject_cast<QSpinBox*>(editor)) {
            const SpinRange r = spinRange(b, 0);
            QCOMPARE(sb->minimum(), static_cast<int>(r.min));
            QCOMPARE(sb->maximum(), static_cast<int>(r.max));
            // The loader takes the ends and refuses one past them.
            for (int edge : {sb->minimum(), sb->maximum()}) {
                Scenario at = s;
                f->set(at, FieldValue(double(edge)));
                QVERIFY2(!hasProblemAt(validateScenario(at), f->path), f->path.c_str());
            }
            for (double bad : outside(*f, b))
                QVERIFY2(bad < sb->minimum() || bad > sb->maximum(), f->path.c_str());
            ++spins;
        } else if (auto* db = qobject_cast<QDoubleSpinBox*>(editor)) {
            const SpinRange r = spinRange(b, db->decimals());
            QCOMPARE(db->minimum(), roundTo(r.min, db->decimals()));
            QCOMPARE(db->maximum(), roundTo(r.max, db->decimals()));
            for (double edge : {db->minimum(), db->maximum()}) {
                Scenario at = s;
                f->set(at, FieldValue(edge));
                QVERIFY2(!hasProblemAt(validateScenario(at), f->path), (f->path + " " + formatNumber(edge)).c_str());
            }
            const double step = 1.0 / std::pow(10.0, db->decimals());
            if (std::isfinite(b.min)) {
                Scenario at = s;
                f->set(at, FieldValue(roundTo(db->minimum() - step, db->decimals())));
                QVERIFY2(hasProblemAt(validateScenario(at), f->path), f->path.c_str());
            }
            if (std::isfinite(b.max)) {
                Scenario at = s;
                f->set(at, FieldValue(roundTo(db->maximum() + step, db->decimals())));
                QVERIFY2(hasProblemAt(validateScenario(at), f->path), f->path.c_str());
            }
            ++spins;
        } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
            QStringList items, values;
            for (int i = 0; i < combo->count(); ++i)
                items << combo->itemText(i);
            for (const auto& v : f->enumValues)
                values << QString::fromStdString(v);
            QCOMPARE(items, values);
            ++enums;
        }
    }
    QVERIFY(spins >= 20);
    QVERIFY(enums >= 4);
    // The old copies capped these below what the loader accepts.
    doc.setScenario(base());
    QVERIFY(qobject_cast<QDoubleSpinBox*>(panel.editorFor("training.learning_rate"))->maximum() > 1e300);
    QCOMPARE(qobject_cast<QSpinBox*>(panel.editorFor("data.partition.per_client"))->maximum(),
             std::numeric_limits<int>::max());
}

void TestSchema::policyPanelBoundsAreTheLoaders() {
    for (const auto* catalogue : {&syncPolicyInfos(), &selectionPolicyInfos()}) {
        PolicyChooser chooser("policy", *catalogue);
        for (const auto& info : *catalogue) {
            PolicySpec spec;
            spec.name = info.name;
            chooser.setSpec(spec);
            for (const auto& p : info.params) {
                QWidget* editor = chooser.paramEditor(QString::fromStdString(p.key));
                QVERIFY2(editor, (info.name + "." + p.key).c_str());
                const NumericBounds b = policyParamBounds(p);
                if (auto* sb = qobject_cast<QSpinBox*>(editor)) {
                    QCOMPARE(sb->minimum(), static_cast<int>(b.min));
                    QCOMPARE(sb->maximum(), static_cast<int>(b.max));
                } else {
                    auto* db = qobject_cast<QDoubleSpinBox*>(editor);
                    QVERIFY(db);
                    const SpinRange r = spinRange(b, db->decimals());
                    QCOMPARE(db->minimum(), roundTo(r.min, db->decimals()));
                    QCOMPARE(db->maximum(), roundTo(r.max, db->decimals()));
                }
                // The loader agrees at both ends and one past them.
                Scenario s = base();
                PolicySpec& target = catalogue == &syncPolicyInfos() ? s.sync : s.selection;
                target.name = info.name;
                const std::string path = (catalogue == &syncPolicyInfos() ? "sync." : "selection.") + p.key;
                for (double v : {b.min, b.max}) {
                    if (!std::isfinite(v)) continue;
                    target.params[p.key] = v;
                    QVERIFY2(!hasProblemAt(validateScenario(s), path), path.c_str());
                }
                target.params[p.key] = b.min - 1;
                QVERIFY2(hasProblemAt(validateScenario(s), path), path.c_str());
            }
        }
    }
}

/// The text of docs/`file` between `<!-- name:begin (command) -->` and `<!-- name:end -->`;
/// a null string when the markers are missing.
static QString generatedPart(const QString& name, const QString& command, const QString& file = "scenario.md") {
    QFile doc(QStringLiteral(FOG_SOURCE_DIR "/docs/") + file);
    if (!doc.open(QIODevice::ReadOnly)) return {};
    const QString text = QString::fromUtf8(doc.readAll());
    const QString begin = "<!-- " + name + ":begin (" + command + ") -->\n";
    const QString end = "<!-- " + name + ":end -->";
    const auto from = text.indexOf(begin), to = text.indexOf(end);
    if (from < 0 || to <= from) return {};
    return text.mid(from + begin.size(), to - from - begin.size());
}

void TestSchema::keyReferenceIsUpToDate() {
    const QString generated = generatedPart("schema", "fogstudio-cli schema --markdown");
    QVERIFY2(!generated.isNull(), "docs/scenario.md lacks the schema markers");
    // On a difference: fogstudio-cli schema --markdown, pasted between the markers.
    QCOMPARE(generated, QString::fromStdString(schemaMarkdown()));
}

void TestSchema::policyTablesAreUpToDate() {
    const QString generated = generatedPart("policies", "fogstudio-cli policies --markdown");
    QVERIFY2(!generated.isNull(), "docs/scenario.md lacks the policies markers");
    const QString expected = QString::fromStdString(policiesMarkdown());
    if (generated != expected)
        qWarning("docs/scenario.md's policy tables are out of date: paste the output of "
                 "`fogstudio-cli policies --markdown` between its policies markers");
    QCOMPARE(generated, expected);
    // docs/policies.md has the same tables, from the same generator.
    const QString again = generatedPart("policies", "fogstudio-cli policies --markdown", "policies.md");
    QVERIFY2(!again.isNull(), "docs/policies.md lacks the policies markers");
    QCOMPARE(again, expected);
    // Every policy is in it, with every parameter.
    for (const auto* infos : {&syncPolicyInfos(), &selectionPolicyInfos()})
        for (const auto& info : *infos) {
            QVERIFY2(generated.contains(QString::fromStdString("| `" + info.name + "` |")), info.name.c_str());
            for (const auto& p : info.params)
                QVERIFY2(generated.contains(QString::fromStdString("`" + p.key + "` (")), (info.name + " " + p.key).c_str());
        }
}

void TestSchema::policyTreeTablesAreUpToDate() {
    // docs/emulator.md's tables of round barriers and of the trees each policy uses come from
    // the descriptors too: a new sync policy appears there with its shape and closed form.
    const QString generated = generatedPart("policy-trees", "fogstudio-cli policies --markdown trees", "emulator.md");
    QVERIFY2(!generated.isNull(), "docs/emulator.md lacks the policy-trees markers");
    const QString expected = QString::fromStdString(policyTreesMarkdown());
    if (generated != expected)
        qWarning("docs/emulator.md's policy tables are out of date: paste the output of "
                 "`fogstudio-cli policies --markdown trees` between its policy-trees markers");
    QCOMPARE(generated, expected);
    for (const auto& info : syncPolicyInfos()) {
        // Each sync policy is named twice: by its round (closed form or none) and by its tree.
        const QString name = QString::fromStdString("`" + info.name + "`");
        QVERIFY2(generated.count(name) >= 2, info.name.c_str());
    }
}

namespace {

/// The cells of a Markdown table row ("| a | b \\| c |" -> {"a", "b \\| c"}).
std::vector<std::string> tableCells(const std::string& row) {
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < row.size(); ++i) {
        if (row[i] == '|' && row[i - 1] != '\\') {
            const auto a = cell.find_first_not_of(' '), b = cell.find_last_not_of(' ');
            cells.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
            cell.clear();
        } else {
            cell += row[i];
        }
    }
    return cells;
}

/// Every `word` of a cell, in order.
std::vector<std::string> backticked(const std::string& cell) {
    std::vector<std::string> out;
    static const std::regex word("`([^`]*)`");
    for (auto it = std::sregex_iterator(cell.begin(), cell.end(), word); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

} // namespace

void TestSchema::handTablesAgreeWithTheSchema() {
    // docs/scenario.md explains the keys section by section in tables written by hand (with
    // more words than the key reference); each row must name keys of the schema, list the
    // spellings of an enum as the schema has them, and state the schema's default, so that
    // these tables cannot drift from the code either.
    QFile doc(QStringLiteral(FOG_SOURCE_DIR "/docs/scenario.md"));
    QVERIFY(doc.open(QIODevice::ReadOnly));
    std::istringstream in(doc.readAll().toStdString());
    enum class Table { Scenario, Node, Link };
    // The tables by the heading above them: which schema table, and the prefix of their keys.
    const std::map<std::string, std::pair<Table, std::string>> sections = {
        {"## Top level", {Table::Scenario, ""}},  {"### Nodes", {Table::Node, ""}},
        {"### Groups", {Table::Node, ""}},        {"### Compute", {Table::Node, "compute."}},
        {"### Energy", {Table::Node, "energy."}}, {"### Links", {Table::Link, ""}},
        {"## Data", {Table::Scenario, "data."}},  {"## Model", {Table::Scenario, "model."}},
        {"## Training", {Table::Scenario, "training."}}, {"## Stop and evaluation", {Table::Scenario, ""}},
    };
    const Scenario scenarioDefaults;
    const NodeSpec nodeDefaults;
    const LinkParams linkDefaults;
    std::string heading, line, problems;
    bool generated = false, inTable = false;
    std::optional<std::pair<Table, std::string>> table;
    int rows = 0, defaults = 0, enums = 0, n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.find(":begin (") != std::string::npos) generated = true;
        if (line.find(":end -->") != std::string::npos) generated = false;
        if (generated) continue;
        if (line.rfind("#", 0) == 0) heading = line;
        if (line.rfind("| key |", 0) == 0 && line.find("| default |") != std::string::npos) {
            const auto it = sections.find(heading);
            if (it == sections.end()) {
                problems += "\n  line " + std::to_string(n) + ": a key table under '" + heading +
                            "' this test does not know (add its section to the map above)";
                table.reset();
            } else {
                table = it->second;
            }
            inTable = true;
            continue;
        }
        if (line.rfind("|", 0) != 0) {
            inTable = false;
            continue;
        }
        if (!inTable || !table || line.rfind("|---", 0) == 0) continue;
        const auto cells = tableCells(line);
        if (cells.size() < 4) continue;
        const auto keys = backticked(cells[0]);
        const std::string where = "\n  docs/scenario.md:" + std::to_string(n) + ": ";
        for (const auto& k : keys) {
            const std::string path = table->second + k;
            const FieldInfo* f = nullptr;
            std::optional<FieldValue> byDefault;
            if (table->first == Table::Scenario) {
                if (const ScenarioField* sf = findScenarioField(path)) {
                    f = sf;
                    if (sf->get) byDefault = sf->get(scenarioDefaults);
                }
            } else if (table->first == Table::Node) {
                if (const NodeField* nf = findNodeField(path)) {
                    f = nf;
                    if (nf->get) byDefault = nf->get(nodeDefaults);
                }
            } else {
                for (const auto& lf : linkSchema())
                    if (lf.path == path) {
                        f = &lf;
                        byDefault = lf.get(linkDefaults);
                    }
            }
            // Top-level sections that are no scenario keys: read by code of their own
            // (core/scenario/variants.cpp, lessons.cpp) and explained in their sections.
            static const std::set<std::string> ownReaders = {"variants", "vary", "repeats", "lesson"};
            if (!f && table->first == Table::Scenario && ownReaders.count(path)) continue;
            if (!f) {
                problems += where + "`" + k + "` is no key of the schema (" + path + ")";
                continue;
            }
            ++rows;
            if (keys.size() != 1 || !byDefault) continue; // "`train`, `test`": a shared row
            // The enum's spellings, when the type cell lists them.
            const auto spellings = backticked(cells[1]);
            if (!f->enumValues.empty() && spellings.size() >= 2) {
                ++enums;
                if (std::set<std::string>(spellings.begin(), spellings.end()) !=
                    std::set<std::string>(f->enumValues.begin(), f->enumValues.end()))
                    problems += where + path + " lists " + cells[1] + ", the schema has " + joinNames(f->enumValues);
            }
            // The default, when the cell states a number or one spelling.
            const std::string& d = cells[2];
            static const std::regex number("^(-?[0-9][0-9.e+-]*)( .*)?$");
            std::smatch m;
            if (std::regex_match(d, m, number) && std::holds_alternative<double>(*byDefault)) {
                ++defaults;
                if (std::stod(m[1]) != std::get<double>(*byDefault))
                    problems += where + path + " default " + d + ", the schema's " + formatFieldValue(*byDefault);
            } else if (std::regex_match(d, m, number) && std::holds_alternative<Range>(*byDefault)) {
                ++defaults;
                if (std::stod(m[1]) != std::get<Range>(*byDefault).min)
                    problems += where + path + " default " + d + ", the schema's " + formatFieldValue(*byDefault);
            } else if (d.size() > 2 && d.front() == '`' && d.back() == '`' && d.find_first_of(" {[.", 1) == std::string::npos &&
                       std::holds_alternative<std::string>(*byDefault)) {
                ++defaults;
                if (d.substr(1, d.size() - 2) != std::get<std::string>(*byDefault))
                    problems += where + path + " default " + d + ", the schema's `" + std::get<std::string>(*byDefault) + "`";
            }
        }
    }
    QVERIFY2(problems.empty(), ("docs/scenario.md's key tables disagree with the schema:" + problems).c_str());
    qInfo("%d keys named, %d defaults and %d enum lists compared", rows, defaults, enums);
    QVERIFY(rows >= 60);
    QVERIFY(defaults >= 30);
    QVERIFY(enums >= 5);
}

void TestSchema::nodeKeysAgreeWithTheLoader() {
    // The node table against the topology's reader, writer, --set and validator.
    int bounded = 0;
    for (const auto& f : nodeSchema()) {
        QVERIFY2(!f.help.empty(), f.path.c_str());
        if (f.custom || f.type == FieldType::Section) continue;
        Scenario s = base();
        NodeSpec& worker = s.topology.nodes[1];
        makeApply(worker, f, nodeSchema());
        QVERIFY2(fieldApplies(f, worker), f.path.c_str());
        const std::string path = "topology.nodes[1]." + f.path;
        const FieldValue v = otherValue(f, worker, fieldBounds(f));
        f.set(worker, v);
        const std::string text = saveScenarioText(s);
        const Scenario back = readScenarioTextUnchecked(text, "nodes");
        QVERIFY2(sameFieldValue(f.get(back.topology.nodes[1]), v), (path + "\n" + text).c_str());
        Scenario before = s;
        f.set(before.topology.nodes[1], f.get(base().topology.nodes[1]));
        if (!sameFieldValue(f.get(before.topology.nodes[1]), v)) {
            const Scenario set = readScenarioTextUnchecked(saveScenarioText(before), "nodes",
                                                           {parseOverride(path + "=" + formatFieldValue(v))});
            QVERIFY2(sameFieldValue(f.get(set.topology.nodes[1]), v), path.c_str());
            QVERIFY2(!sameScenario(before, s), path.c_str());
        }
        if (!f.isBounded()) continue;
        for (double bad : outside(f, fieldBounds(f))) {
            if (isUnset(f, FieldValue(bad))) {
                // The value that means "not given" (nic_mbps 0) cannot be given: the reader
                // refuses it, through --set too.
                try {
                    loadScenarioText(saveScenarioText(s), "nodes", {parseOverride(path + "=" + formatNumber(bad))});
                    QFAIL((path + " = " + formatNumber(bad) + " was accepted").c_str());
                } catch (const ScenarioError& e) {
                    QVERIFY2(hasProblemAt(e.diagnostics, path, "--set"), e.what());
                }
                ++bounded;
                continue;
            }
            Scenario wrong = s;
            f.set(wrong.topology.nodes[1],
                  f.type == FieldType::Range ? FieldValue(Range::exactly(bad)) : FieldValue(bad));
            QVERIFY2(hasProblemAt(validateScenario(wrong), path), (path + " = " + formatNumber(bad)).c_str());
            ++bounded;
        }
        QVERIFY2(!hasProblemAt(validateScenario(s), path), path.c_str());
    }
    QVERIFY(bounded >= 10);
    // A key given with another kind is refused, as the table's `when` says.
    Scenario s = base();
    const std::string text = saveScenarioText(s);
    try {
        readScenarioTextUnchecked(text, "nodes", {parseOverride("topology.nodes[1].availability.mean_up_s=5")});
        QFAIL("mean_up_s accepted with availability always");
    } catch (const ScenarioError& e) {
        QVERIFY2(std::string(e.what()).find("is only used with kind: markov, not always") != std::string::npos, e.what());
    }
}

void TestSchema::nodeEqualityCoversEveryKey() {
    for (const auto& f : nodeSchema()) {
        if (!f.get) continue;
        Scenario a = base();
        makeApply(a.topology.nodes[1], f, nodeSchema());
        if (f.path == "count") a.topology.nodes[1].group = true;
        Scenario b = a;
        const FieldValue v = otherValue(f, a.topology.nodes[1], fieldBounds(f));
        f.set(b.topology.nodes[1], v);
        QVERIFY2(!sameNodeSpec(a.topology.nodes[1], b.topology.nodes[1]), f.path.c_str());
        // As the file goes: a change of a key that applies is a change of the file.
        QCOMPARE(sameTopology(a.topology, b.topology), saveScenarioText(a) == saveScenarioText(b));
        QVERIFY2(!sameScenario(a, b), f.path.c_str());
    }
    // A key that does not apply changes the stored spec but not the file.
    Scenario a = base(), b = base();
    b.topology.nodes[1].compute.noise.sigma = 3; // noise kind none
    QVERIFY(!sameNodeSpec(a.topology.nodes[1], b.topology.nodes[1]));
    QVERIFY(sameTopology(a.topology, b.topology));
    QCOMPARE(saveScenarioText(a), saveScenarioText(b));
    b = a;
    b.topology.nodes[1].availability.kind = AvailabilitySpec::Kind::Trace;
    a.topology.nodes[1].availability.kind = AvailabilitySpec::Kind::Trace;
    b.topology.nodes[1].availability.offline = {{1, 2}};
    QVERIFY(!sameTopology(a.topology, b.topology));
    b = a;
    b.topology.nodes[1].hasPosition = true;
    QVERIFY(!sameTopology(a.topology, b.topology));
}

void TestSchema::inspectorFollowsTheSchema() {
    ScenarioDocument doc;
    PropertyInspector inspector(&doc);
    int checked = 0;
    // Every editor of a node or group names a key of the table (a range's upper end its key
    // + ".max"; the aggregator's policy parameters are the policies' own, core/policies), so
    // no editor writes a field the table does not know.
    for (const QString& key : inspector.memberKeys()) {
        const std::string k = key.toStdString();
        const NodeField* f = findNodeField(k);
        if (!f && key.endsWith(".max")) {
            f = findNodeField(key.chopped(4).toStdString());
            QVERIFY2(f && f->type == FieldType::Range, k.c_str());
        }
        QVERIFY2(f || key == "aggregate.params", ("an editor of no key of the node table: " + k).c_str());
    }
    for (const auto& f : nodeSchema()) {
        const QString key = QString::fromStdString(f.path);
        if (f.path == "position") continue; // dragged on the canvas
        if (f.type == FieldType::Section && !f.optional && !f.custom) continue; // headings: compute, energy
        QVERIFY2(inspector.editor(key), f.path.c_str()); // every key has one (inspectorEditsEveryNodeKey writes it)
        QVERIFY2(inspector.memberKeys().contains(key), f.path.c_str());
        if (f.custom || f.type == FieldType::Section) continue; // shown by rules of their own (id, count, link, ...)
        const bool conditional = f.when || f.parent() == "link";
        if (f.groupsOnly) { // hidden on a node (the loader refuses it there), shown on a group
            Scenario s = base();
            doc.setScenario(s);
            inspector.setSelection({"worker"}, {});
            QVERIFY2(!inspector.isFieldVisible(key), f.path.c_str());
            s.topology.nodes[1].group = true;
            s.topology.nodes[1].count = 3;
            doc.setScenario(s);
            inspector.setSelection({"worker"}, {});
            QVERIFY2(inspector.isFieldVisible(key), f.path.c_str());
            QVERIFY2(!inspector.editor(key)->toolTip().isEmpty(), f.path.c_str());
            ++checked;
            continue;
        }
        for (const bool applying : {true, false}) {
            if (!applying && !conditional) continue;
            Scenario s = base();
            NodeSpec& worker = s.topology.nodes[1];
            makeApply(worker, f, nodeSchema());
            if (!applying && f.when) {
                const NodeField* control = findNodeField(f.when->path);
                for (const auto& v : control->enumValues)
                    if (std::count(f.when->values.begin(), f.when->values.end(), v) == 0) control->set(worker, FieldValue(v));
            }
            if (!applying && f.parent() == "link") worker.link.reset();
            QCOMPARE(fieldApplies(f, worker), applying);
            doc.setScenario(s);
            inspector.setSelection({"worker"}, {});
            QVERIFY2(inspector.isFieldVisible(key) == applying, f.path.c_str());
            ++checked;
        }
        QVERIFY2(!inspector.editor(key)->toolTip().isEmpty(), f.path.c_str());
    }
    QVERIFY(checked >= 15);
}

void TestSchema::inspectorEditsEveryNodeKey() {
    // Every key of the node table has an editor in the inspector (position is dragged on the
    // canvas), and it writes the field it names and no other: a value typed, chosen or ticked
    // there is read back through the table, from the document and from the saved file, while
    // every other key of the entry (read through the table), every other entry and the links
    // keep their values.
    ScenarioDocument doc;
    PropertyInspector inspector(&doc);
    int edited = 0;
    for (const auto& f : nodeSchema()) {
        if (f.path == "position") continue;
        if (f.type == FieldType::Section && !f.optional && !f.custom) continue; // compute, energy: headings
        const QString key = QString::fromStdString(f.path);
        std::string id = f.path.rfind("aggregate", 0) == 0 ? "edge"
                         : f.groupsOnly || f.path == "count" ? "phones"
                                                              : "worker";
        Scenario s = inspectorBase();
        NodeSpec& n = *const_cast<NodeSpec*>(entry(s, id));
        makeApply(n, f, nodeSchema());
        if (f.optional) f.setPresent(n, false); // the editor adds it
        if (f.path == "bid_usd_per_hour") n.priceTrace = "prices.csv"; // a bid needs a price trace
        doc.setScenario(s);
        inspector.setSelection({QString::fromStdString(id)}, {});
        QWidget* editor = inspector.editor(key);
        QVERIFY2(editor, f.path.c_str());
        QVERIFY2(inspector.isFieldVisible(key), f.path.c_str());
        // What the editor may change: its own key (and the keys below it), nothing else.
        const Scenario shown = doc.scenario();
        const auto index = static_cast<std::size_t>(shown.topology.find(id));
        const auto onlyItsField = [&](const Scenario& before, std::size_t at) {
            const std::string extra = changedBesides(before, doc.scenario(), at, f.path);
            return extra.empty() ? std::string() : f.path + "'s editor also changed" + extra;
        };

        const auto fileBack = [&] {
            return readScenarioTextUnchecked(saveScenarioText(doc.scenario()), "inspector");
        };
        if (f.optional) { // link, aggregate: a switch adding the map
            auto* on = qobject_cast<QCheckBox*>(editor);
            QVERIFY2(on && !on->isChecked(), f.path.c_str());
            on->click();
            QVERIFY2(f.present(*entry(doc.scenario(), id)), f.path.c_str());
            QVERIFY2(f.present(*entry(fileBack(), id)), f.path.c_str());
            QVERIFY2(onlyItsField(shown, index).empty(), onlyItsField(shown, index).c_str());
            ++edited;
            continue;
        }
        if (f.path == "availability.offline") { // intervals, read and written by code of their own
            typeInto(qobject_cast<QLineEdit*>(editor), "[0, 60], [300, 420]");
            for (const Scenario& where : {doc.scenario(), fileBack()}) {
                const auto& offline = entry(where, id)->availability.offline;
                QCOMPARE(int(offline.size()), 2);
                QCOMPARE(offline[1].fromS, 300.0);
                QCOMPARE(offline[1].toS, 420.0);
            }
            QVERIFY2(onlyItsField(shown, index).empty(), onlyItsField(shown, index).c_str());
            ++edited;
            continue;
        }
        const FieldValue want = editorValue(editor, f, n);
        QVERIFY2(!sameFieldValue(want, f.get(n)), f.path.c_str());
        QVERIFY2(writeThrough(editor, want), f.path.c_str());
        if (f.path == "id") id = std::get<std::string>(want); // renamed
        if (f.path == "compute.noise.kind") // the undo step is named after the key's label
            QCOMPARE(doc.undoStack()->text(doc.undoStack()->index() - 1), QString("Set step-time noise"));
        const NodeSpec* now = entry(doc.scenario(), id);
        QVERIFY2(now, f.path.c_str());
        QVERIFY2(sameFieldValue(f.get(*now), want),
                 (f.path + ": wrote " + formatFieldValue(want) + ", the table reads " + formatFieldValue(f.get(*now)) +
                  "; " + inspector.message(key).toStdString())
                     .c_str());
        QVERIFY2(onlyItsField(shown, index).empty(), onlyItsField(shown, index).c_str());
        const Scenario back = fileBack();
        QVERIFY2(entry(back, id) && sameFieldValue(f.get(*entry(back, id)), want), f.path.c_str());
        if (f.type == FieldType::Range) {
            // A group's range: its upper end has an editor of its own.
            s = doc.scenario();
            NodeSpec& g = *const_cast<NodeSpec*>(entry(s, "phones"));
            makeApply(g, f, nodeSchema());
            doc.setScenario(s);
            inspector.setSelection({"phones"}, {});
            const Range r = std::get<Range>(f.get(g));
            const Scenario group = doc.scenario();
            typeInto(qobject_cast<QLineEdit*>(inspector.editor(key + ".max")),
                     QString::fromStdString(formatNumber(r.min + 100)));
            const auto at = static_cast<std::size_t>(group.topology.find("phones"));
            QVERIFY2(onlyItsField(group, at).empty(), onlyItsField(group, at).c_str());
            QCOMPARE(std::get<Range>(f.get(*entry(doc.scenario(), "phones"))).max, r.min + 100);
            QCOMPARE(std::get<Range>(f.get(*entry(fileBack(), "phones"))).max, r.min + 100);
        }
        ++edited;
    }
    QVERIFY(edited >= 45);

    // An explicit link's keys: the link table's, edited the same way.
    Scenario s = inspectorBase();
    LinkSpec link;
    link.from = "server";
    link.to = "worker";
    s.topology.links.push_back(link);
    for (const auto& f : linkSchema()) {
        doc.setScenario(s);
        inspector.setSelection({}, {0});
        const QString key = QString::fromStdString(f.path);
        auto* editor = qobject_cast<QLineEdit*>(inspector.editor(key));
        QVERIFY2(editor && inspector.isFieldVisible(key), f.path.c_str());
        const FieldValue want = otherValue(f, link.params, fieldBounds(f));
        typeInto(editor, QString::fromStdString(formatFieldValue(want)));
        QVERIFY2(sameFieldValue(f.get(doc.scenario().topology.links[0].params), want),
                 (f.path + ": " + inspector.message(key).toStdString()).c_str());
        for (const auto& g : linkSchema()) // the link's other keys and the nodes stay
            if (&g != &f)
                QVERIFY2(sameFieldValue(g.get(doc.scenario().topology.links[0].params), g.get(link.params)),
                         (f.path + "'s editor also changed " + g.path).c_str());
        QVERIFY2(std::equal(s.topology.nodes.begin(), s.topology.nodes.end(), doc.scenario().topology.nodes.begin(),
                            doc.scenario().topology.nodes.end(), sameNodeSpec),
                 f.path.c_str());
        const Scenario back = readScenarioTextUnchecked(saveScenarioText(doc.scenario()), "inspector");
        QVERIFY2(sameFieldValue(f.get(back.topology.links[0].params), want), f.path.c_str());
    }
}

void TestSchema::laterKeysAreWrittenOnlyWhenSet() {
    // Keys added after files existed (the network's) are written only when they differ from
    // the default, so that every older file saves byte for byte as before.
    std::vector<std::string> later;
    for (const auto& f : scenarioSchema())
        if (f.omitDefault) later.push_back(f.key() + ":");
    for (const auto& f : nodeSchema())
        if (f.omitDefault) later.push_back(f.key() + ":");
    QVERIFY(later.size() >= 7);
    Scenario s = base();
    s.topology.nodes.push_back(s.topology.nodes[1]);
    s.topology.nodes.back().id = "phones";
    s.topology.nodes.back().group = true;
    const std::string text = saveScenarioText(s);
    for (const auto& key : later)
        QVERIFY2(text.find(key) == std::string::npos, (key + "\n" + text).c_str());
    // Set, each is written, and read back.
    s.topology.contention = false;
    s.topology.linkSharing = LinkSharing::Private;
    NodeSpec& g = s.topology.nodes.back();
    g.linkSharing = LinkSharing::Shared;
    g.nicMbps = 100;
    g.billing = Billing::Serverless;
    g.invocationFeeUsd = 2e-7;
    g.energy.perByteForwardedJ = 1e-9;
    g.energy.idleW = 2.5;
    g.energy.perByteReceivedJ = 3e-9;
    g.energy.perUpdateAggregatedJ = 0.1;
    g.bidUsdPerHour = 0.5; // a spot bid (core/scenario/events_io.h)
    s.training.optimizerState = "keep"; // the learning keys (docs/learning.md)
    s.training.serverOptimizer = "fedavgm";
    s.training.codecUp = "fp16";
    s.training.codecDown = "fp16";
    s.training.aggregatorCodecUp = "topk"; // the codecs between aggregators (docs/learning.md)
    s.training.aggregatorCodecDown = "quantize";
    g.compute.flops = Range::exactly(1e9); // compute in FLOP/s (docs/own-model.md)
    g.compute.deviceClass = "nvidia-t4";   // a device class, and energy per FLOP
    g.energy.perFlopJ = 1e-11;
    s.model.flopsPerSample = 1e6;
    s.data.kind = DataSpec::Kind::Csv; // a client column is a CSV file's
    s.data.clientColumn = 2;
    s.topology.nodes[0].role = Role::Relay;
    s.training.backend = TrainingBackend::Fast; // training.backend (core/model/fast_net.h)
    const std::string set = saveScenarioText(s);
    for (const auto& key : later)
        QVERIFY2(set.find(key) != std::string::npos, (key + "\n" + set).c_str());
    const Scenario back = readScenarioTextUnchecked(set, "later");
    QVERIFY(sameScenario(s, back));
    QVERIFY(sameNodeSpec(back.topology.nodes.back(), g));
    QCOMPARE(back.topology.nodes.back().nicMbps, 100.0);
    QVERIFY(back.topology.nodes[0].role == Role::Relay);
    QCOMPARE(saveScenarioText(back), set);
    // Unset again: not written, and the node's link sharing is the topology's once more.
    g.linkSharing.reset();
    QVERIFY(saveScenarioText(s).find("    link_sharing:") == std::string::npos);
}

void TestSchema::groupOnlyKeysAreRefusedOnNodes() {
    int checked = 0;
    for (const auto& f : nodeSchema()) {
        if (!f.groupsOnly) continue;
        Scenario s = base();
        f.set(s.topology.nodes[1], otherValue(f, s.topology.nodes[1], fieldBounds(f)));
        const std::string path = "topology.nodes[1]." + f.path;
        bool found = false;
        for (const auto& d : validateScenario(s))
            found = found || (d.path == path && d.message.find("is only for groups") == 0);
        QVERIFY2(found, allText(validateScenario(s)).c_str());
        s.topology.nodes[1].group = true; // the same entry as a group of one: fine
        for (const auto& d : validateScenario(s))
            QVERIFY2(d.path != "topology.groups[0]." + f.path, d.format().c_str());
        ++checked;
    }
    QCOMPARE(checked, 1); // link_sharing
    QVERIFY(schemaMarkdown().find("| `link_sharing` | `shared` \\| `private` |") != std::string::npos);
}

QTEST_MAIN(TestSchema)
#include "test_schema.moc"
