// One spec type for nodes and groups, and nested groups: a group placed under every member
// of another group. Expansion (ids, order, drawn values, parents), validation messages,
// round trips, and the studio's document and canvas on a nested file.

#include "core/scenario/scenario_io.h"
#include "core/system/topology.h"
#include "widgets/document/scenario_document.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/property_inspector.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

using namespace fog;

namespace {

const std::string kHead = "schema_version: 1\nname: nested\nseed: 7\n"
                          "data: {dataset: none, samples_per_trainer: 10}\nmodel: {kind: none}\n"
                          "sync: {policy: hierarchical, tau1: 1, tau2: 1}\nstop: {rounds: 1}\n";

/// The same with a policy that takes any depth (aggregators below relay to the one root).
std::string deepHead() {
    std::string h = kHead;
    const std::string from = "sync: {policy: hierarchical, tau1: 1, tau2: 1}";
    h.replace(h.find(from), from.size(), "sync: {policy: fedavg}");
    return h;
}

/// The loader's messages for `text`, or "" when it loads.
QString errorsOf(const std::string& text) {
    try {
        loadScenarioText(text, "t.yaml");
    } catch (const ScenarioError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

/// Every node's id, parent id, drawn values and aggregator id, one line each.
QStringList describe(const Topology& t) {
    QStringList out;
    for (int i = 0; i < t.size(); ++i) {
        const Node n = t.node(i);
        out << QString("%1 parent=%2 agg=%3 tp=%4 price=%5 share=%6")
                   .arg(QString::fromStdString(n.spec.id), QString::fromStdString(n.spec.parent),
                        n.aggregator >= 0 ? QString::fromStdString(t.id(n.aggregator)) : "-")
                   .arg(n.throughput, 0, 'g', 17)
                   .arg(n.spec.pricePerHour, 0, 'g', 17)
                   .arg(n.spec.dataShare, 0, 'g', 17);
    }
    return out;
}

const char* kPhone = "      compute: {throughput: {min: 50, max: 250}}\n"
                     "      price_per_hour: {min: 0.01, max: 0.02}\n"
                     "      data_share: {min: 0.5, max: 2}\n";

} // namespace

class TestNestedGroups : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void nestedEqualsCopiedBlocks();
    void presetExpandsToTodaysIds();
    void threeLevels();
    void memberOfNestedGroupAsParentAndLinkEnd();
    void validation_data();
    void validation();
    void roundTripKeepsSections();
    void oneListOrderIsTheFileOrder();
    void studioShowsAndEditsNestedFile();
};

void TestNestedGroups::nestedEqualsCopiedBlocks() {
    // Three sites of four phones: the nested form and three copied blocks draw alike.
    std::string nested =
        kHead +
        "topology:\n  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
        "  groups:\n    - {id: site, count: 3, tier: edge, role: aggregator, parent: cloud}\n"
        "    - id: phone\n      count: 4\n      parent: site\n" +
        kPhone;
    std::string copied =
        kHead +
        "topology:\n  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
        "  groups:\n    - {id: site, count: 3, tier: edge, role: aggregator, parent: cloud}\n";
    for (int s = 0; s < 3; ++s)
        copied += "    - id: phone-" + std::to_string(s) + "\n      count: 4\n      parent: site-" +
                  std::to_string(s) + "\n" + kPhone;
    Scenario a, b;
    QVERIFY_THROWS_NO_EXCEPTION(a = loadScenarioText(nested, "nested.yaml"));
    QVERIFY_THROWS_NO_EXCEPTION(b = loadScenarioText(copied, "copied.yaml"));
    const Topology ta(a.topology, a.seed), tb(b.topology, b.seed);
    QCOMPARE(ta.size(), 1 + 3 + 12);
    QCOMPARE(describe(ta), describe(tb));
    QCOMPARE(QString::fromStdString(ta.id(4)), QString("phone-0-0"));
    QCOMPARE(QString::fromStdString(ta.id(15)), QString("phone-2-3"));
    QCOMPARE(ta.parent(15), ta.indexOf("site-2"));
    QCOMPARE(ta.aggregator(15), ta.indexOf("site-2"));
    // The draws are real draws (not the range's lower end), and differ between members.
    QVERIFY(ta.throughput(4) != ta.throughput(5));
    QVERIFY(ta.throughput(4) >= 50 && ta.throughput(4) <= 250);
    QCOMPARE(ta.trainersOf(ta.indexOf("site-1")), (std::vector<int>{8, 9, 10, 11}));
    QCOMPARE(ta.childAggregatorsOf(0), (std::vector<int>{1, 2, 3}));
}

void TestNestedGroups::presetExpandsToTodaysIds() {
    const std::string path = std::string(FOG_SOURCE_DIR) + "/presets/edge-1000-devices.yaml";
    const Scenario s = loadScenarioFile(path);
    QCOMPARE(s.topology.groupCount(), std::size_t(2)); // site, and phone nested under it
    const Topology t(s.topology, s.seed);
    QCOMPARE(t.size(), 1011);
    QCOMPARE(QString::fromStdString(t.id(0)), QString("cloud"));
    QCOMPARE(QString::fromStdString(t.id(10)), QString("site-9"));
    int i = 11;
    for (int site = 0; site < 10; ++site)
        for (int k = 0; k < 100; ++k, ++i) {
            const std::string want = "phone-" + std::to_string(site) + "-" + std::to_string(k);
            if (t.id(i) != want)
                QFAIL(qPrintable(
                    QString("node %1 is %2, expected %3")
                        .arg(i)
                        .arg(QString::fromStdString(t.id(i)), QString::fromStdString(want))));
            QCOMPARE(t.parent(i), 1 + site);
        }
    QCOMPARE(t.trainers().size(), std::size_t(1000));
}

void TestNestedGroups::threeLevels() {
    const std::string text =
        deepHead() + "topology:\n  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
                     "  groups:\n"
                     "    - {id: phone, count: 4, parent: site}\n" // listed before its parent group
                     "    - {id: region, count: 2, tier: cloud, role: both, parent: cloud}\n"
                     "    - {id: site, count: 3, tier: edge, role: aggregator, parent: region}\n";
    Scenario s;
    QVERIFY_THROWS_NO_EXCEPTION(s = loadScenarioText(text, "three.yaml"));
    const Topology t(s.topology, s.seed);
    QCOMPARE(t.size(), 1 + 24 + 2 + 6);
    // File order: the phone group first, all of its 24 members.
    QCOMPARE(QString::fromStdString(t.id(1)), QString("phone-0-0-0"));
    QCOMPARE(QString::fromStdString(t.id(24)), QString("phone-1-2-3"));
    QCOMPARE(QString::fromStdString(t.id(25)), QString("region-0"));
    QCOMPARE(QString::fromStdString(t.id(32)), QString("site-1-2"));
    QCOMPARE(t.parent(24), t.indexOf("site-1-2"));
    QCOMPARE(t.parent(t.indexOf("site-1-2")), t.indexOf("region-1"));
    QCOMPARE(t.aggregator(t.indexOf("site-1-2")), t.indexOf("region-1"));
    QCOMPARE(t.trainersOf(t.indexOf("site-0-1")).size(), std::size_t(4));
    QCOMPARE(t.trainers().size(), std::size_t(24 + 2)); // phones, and regions train too (both)
    QCOMPARE(t.rootAggregators(), std::vector<int>{0});
}

void TestNestedGroups::memberOfNestedGroupAsParentAndLinkEnd() {
    const std::string text =
        deepHead() + "topology:\n  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
                     "    - {id: gateway, tier: edge, role: aggregator, parent: site-1}\n"
                     "    - {id: sensor, parent: gateway}\n"
                     "  groups:\n"
                     "    - {id: site, count: 2, tier: edge, role: aggregator, parent: cloud}\n"
                     "    - {id: phone, count: 2, parent: site}\n"
                     "  links:\n    - {from: phone-1-0, to: phone-0-1, latency_ms: 7}\n";
    Scenario s;
    QVERIFY_THROWS_NO_EXCEPTION(s = loadScenarioText(text, "mixed.yaml"));
    const Topology t(s.topology, s.seed);
    QCOMPARE(t.parent(t.indexOf("gateway")), t.indexOf("site-1"));
    const Transfer tr = t.transfer(t.indexOf("phone-1-0"), t.indexOf("phone-0-1"), 0);
    QCOMPARE(tr.seconds, 0.007);
}

void TestNestedGroups::validation_data() {
    QTest::addColumn<QString>("topology");
    QTest::addColumn<int>("line"); // of the entry the message names (kHead is 7 lines)
    QTest::addColumn<QString>("expected");
    const QString cloud = "  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n  groups:\n";
    QTest::newRow("unknown parent group")
        << cloud + "    - {id: site, count: 2, role: aggregator, parent: cloud}\n"
                   "    - {id: phone, count: 2, parent: sitez}\n"
        << 13
        << "topology.groups[1].parent names node 'sitez', which does not exist (did "
           "you mean 'site'?)";
    QTest::newRow("cycle")
        << cloud + "    - {id: a, count: 2, role: aggregator, parent: b}\n"
                   "    - {id: b, count: 2, role: aggregator, parent: a}\n"
                   "    - {id: p, count: 2, parent: cloud}\n"
        << 12 << "topology.groups[0].parent makes the parent chain a cycle: a -> b -> a";
    QTest::newRow("parent group trains only")
        << cloud + "    - {id: site, count: 2, role: trainer, parent: cloud}\n"
                   "    - {id: phone, count: 2, parent: site}\n"
        << 13
        << "topology.groups[1].parent names group 'site', whose members are trainers "
           "only";
    QTest::newRow("multiplies beyond the limit")
        << cloud + "    - {id: a, count: 1000, role: aggregator, parent: cloud}\n"
                   "    - {id: b, count: 1000, role: aggregator, parent: a}\n"
                   "    - {id: c, count: 1000, parent: b}\n"
        << 14
        << "topology.groups[2].count times the members of group 'b' it is placed "
           "under makes more than 10000000 members";
    QTest::newRow("overflow is not a wrap-around")
        << cloud + "    - {id: a, count: 1000000, role: aggregator, parent: cloud}\n"
                   "    - {id: b, count: 1000000, role: aggregator, parent: a}\n"
                   "    - {id: c, count: 1000000, role: aggregator, parent: b}\n"
                   "    - {id: d, count: 1000000, parent: c}\n"
        << 13
        << "topology.groups[1].count times the members of group 'a' it is placed under makes more "
           "than 10000000 members";
    QTest::newRow("nested total over the node limit")
        << cloud + "    - {id: a, count: 1000, role: aggregator, parent: cloud}\n"
                   "    - {id: b, count: 2000, parent: a}\n"
        << 0 << "topology.groups declare 2001001 nodes in all";
    QTest::newRow("group id is also a node id")
        << "  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n    - {id: site, role: "
           "aggregator, parent: cloud}\n"
           "  groups:\n    - {id: site, count: 2, role: aggregator, parent: cloud}\n"
           "    - {id: phone, count: 2, parent: site-0}\n"
        << 13
        << "topology.groups[0].id 'site' is also the id of topology.nodes[1], so a parent naming "
           "it would be ambiguous";
    QTest::newRow("a node under a whole group")
        << "  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n    - {id: d, parent: "
           "site}\n"
           "  groups:\n    - {id: site, count: 2, role: aggregator, parent: cloud}\n"
        << 11
        << "topology.nodes[1].parent names node 'site', which does not exist (that is a group: a "
           "node cannot be placed under every member of a group";
    QTest::newRow("member index beyond the count")
        << cloud + "    - {id: site, count: 2, role: aggregator, parent: cloud}\n"
                   "    - {id: phone, count: 2, parent: site}\n"
                   "    - {id: extra, count: 1, parent: phone-2-0}\n"
        << 14 << "topology.groups[2].parent names node 'phone-2-0', which does not exist";
}

void TestNestedGroups::validation() {
    QFETCH(QString, topology);
    QFETCH(int, line);
    QFETCH(QString, expected);
    const QString errors = errorsOf(kHead + "topology:\n" + topology.toStdString());
    QString found;
    for (const QString& l : errors.split('\n'))
        if (l.contains(expected)) found = l;
    QVERIFY2(!found.isEmpty(), qPrintable("expected:\n" + expected + "\ngot:\n" + errors));
    if (line > 0) QVERIFY2(found.startsWith(QString("t.yaml:%1:").arg(line)), qPrintable(found));
}

void TestNestedGroups::roundTripKeepsSections() {
    // Written back where it came from: a group of one stays a group (member id <id>-0), the
    // nested parent stays a group id, the preset's text survives a load and save unchanged.
    const std::string text =
        kHead +
        "topology:\n  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
        "  groups:\n    - {id: solo, count: 1, tier: edge, role: aggregator, parent: cloud}\n"
        "    - {id: phone, count: 3, parent: solo}\n";
    const Scenario s = loadScenarioText(text, "rt.yaml");
    const std::string saved = saveScenarioText(s);
    const Scenario again = loadScenarioText(saved, "rt2.yaml");
    QCOMPARE(saveScenarioText(again), saved);
    QCOMPARE(again.topology.groupCount(), std::size_t(2));
    QVERIFY(again.topology.group(0).group && again.topology.group(0).count == 1);
    QCOMPARE(again.topology.group(1).parent, std::string("solo"));
    const Topology t(again.topology, again.seed);
    QCOMPARE(QString::fromStdString(t.id(1)), QString("solo-0"));
    QCOMPARE(QString::fromStdString(t.id(4)), QString("phone-0-2"));

    const std::string preset = std::string(FOG_SOURCE_DIR) + "/presets/edge-1000-devices.yaml";
    const Scenario p = loadScenarioFile(preset);
    const std::string once = saveScenarioText(p);
    QCOMPARE(saveScenarioText(loadScenarioText(once, "p.yaml")), once);
    QVERIFY(once.find("parent: site\n") != std::string::npos);
}

void TestNestedGroups::oneListOrderIsTheFileOrder() {
    // A node added after the groups (as the editor appends) is written under nodes: and
    // expands before the groups, as the file will say when it is read again.
    Scenario s = loadScenarioText(
        deepHead() + "topology:\n  nodes:\n    - {id: cloud, tier: cloud, role: aggregator}\n"
                     "  groups:\n    - {id: p, count: 2, parent: cloud}\n",
        "o.yaml");
    NodeSpec late;
    late.id = "late";
    late.parent = "cloud";
    s.topology.nodes.push_back(late);
    QCOMPARE(s.topology.pathOf(2), std::string("topology.nodes[1]"));
    QCOMPARE(s.topology.pathOf(1), std::string("topology.groups[0]"));
    const Topology t(s.topology, s.seed);
    QCOMPARE(QString::fromStdString(t.id(1)), QString("late"));
    QCOMPARE(QString::fromStdString(t.id(2)), QString("p-0"));
    const Scenario again = loadScenarioText(saveScenarioText(s), "o2.yaml");
    QCOMPARE(describe(Topology(again.topology, again.seed)), describe(t));
}

void TestNestedGroups::studioShowsAndEditsNestedFile() {
    ScenarioDocument doc;
    QString error;
    QVERIFY2(doc.load(QString::fromStdString(std::string(FOG_SOURCE_DIR) +
                                             "/presets/edge-1000-devices.yaml"),
                      &error),
             qPrintable(error));
    TopologyCanvas canvas(&doc);
    TopologyScene* scene = canvas.topologyScene();
    QCOMPARE(scene->itemCount(), 3); // cloud, site, phone
    NodeItem* phone = scene->item("phone");
    NodeItem* site = scene->item("site");
    QVERIFY(phone && site);
    QVERIFY(phone->isGroup());
    QVERIFY(phone->pos().y() > site->pos().y()); // drawn under its parent group
    bool edge = false;
    for (EdgeItem* e : phone->edges())
        edge = edge || e->to() == site;
    QVERIFY(edge);
    QVERIFY(phone->toolTip().contains("under each member of group site"));

    // The inspector shows the nested group's parent and offers the aggregating groups.
    PropertyInspector inspector(&doc);
    inspector.attach(scene);
    inspector.setSelection({"phone"}, {});
    auto* parentBox = qobject_cast<QComboBox*>(inspector.editor("parent"));
    QVERIFY(parentBox);
    QCOMPARE(parentBox->currentText(), QString("site"));
    QVERIFY(parentBox->findText("site") >= 0);
    QVERIFY(parentBox->findText("site-0") >= 0);
    auto* count = qobject_cast<QSpinBox*>(inspector.editor("count"));
    count->setValue(20); // 20 under each of the 10 sites
    QCOMPARE(doc.scenario().topology.group(1).count, 20);
    QVERIFY(doc.diagnostics().empty());
    count->setValue(250000); // 10 x 250,000: the total is counted with the multiplication
    bool total = false;
    for (const Diagnostic& d : doc.diagnostics())
        total = total || d.message.find("declare 2500011 nodes in all") != std::string::npos;
    QVERIFY(total);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().topology.group(1).count, 100);

    QCOMPARE(doc.idOf(doc.resolve("phone-3-42")), QString("phone"));
    QVERIFY(!doc.resolve("phone-3-100").valid());
    QCOMPARE(doc.idOf(doc.resolve("site-3")), QString("site"));
    QCOMPARE(doc.nodeIdFor(doc.find("phone")), QString("phone-0-0"));

    // Renaming the parent group carries into the nested group's parent; undo restores it.
    NodeSpec s = doc.scenario().topology.group(0);
    s.id = "depot";
    doc.setNode("site", s);
    QCOMPARE(doc.scenario().topology.group(1).parent, std::string("depot"));
    QVERIFY(doc.diagnostics().empty());
    // Renaming the nested group renames references to its members.
    LinkSpec l;
    l.from = "phone-1-2";
    l.to = "phone-2-3";
    doc.addLink(l);
    NodeSpec p = doc.scenario().topology.group(1);
    p.id = "handset";
    doc.setNode("phone", p);
    QCOMPARE(doc.scenario().topology.links.back().from, std::string("handset-1-2"));
    QCOMPARE(doc.scenario().topology.links.back().to, std::string("handset-2-3"));
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().topology.group(1).parent, std::string("site"));
    QCOMPARE(scene->itemCount(), 3);

    // Deleting the parent group with its children leaves the cloud only; undo brings back
    // both items.
    doc.remove({"site"}, {}, DeleteChildren::Remove);
    QCOMPARE(scene->itemCount(), 1);
    doc.undoStack()->undo();
    QCOMPARE(scene->itemCount(), 3);
    // Auto layout and copy/paste of the pair keep the nesting.
    doc.autoLayout();
    const QStringList pasted = doc.paste(doc.copy({"site", "phone"}), {0, 400});
    QCOMPARE(pasted, (QStringList{"site1", "phone1"}));
    QCOMPARE(doc.scenario().topology.group(3).parent, std::string("site1"));
}

QTEST_MAIN(TestNestedGroups)
#include "test_nested_groups.moc"
