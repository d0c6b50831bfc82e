// The topology editor: the document model with undo (every edit kind undone and redone),
// the canvas (drags, drops, drawn links, copy/paste, delete, layout), the inspector's
// validation, positions in scenario files, the run view (messages aggregated per edge, group
// counts per state, link utilisation, the live network feed), and a 1,000-node benchmark
// (printed only).

#include "core/scenario/layout.h"
#include "core/scenario/scenario_io.h"
#include "widgets/document/scenario_document.h"
#include "widgets/policy/settings_panel.h"
#include "widgets/run/live_network.h"
#include "widgets/run/run_controller.h"
#include "widgets/topology/message_layer.h"
#include "widgets/topology/run_legend.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/node_palette.h"
#include "widgets/topology/property_inspector.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "event_loop_probe.h"
#include "wall_bounds.h"

#include <functional>
#include <map>
#include <set>

using namespace fog;

namespace {

QString text(const Scenario& s) {
    return QString::fromStdString(saveScenarioText(s));
}

/// cloud <- edge-a, edge-b (aggregators); device d1, d2 under edge-a; group phones under
/// edge-b; an explicit link edge-a -- edge-b.
Scenario baseScenario() {
    Scenario s;
    s.name = "editor test";
    s.data.kind = DataSpec::Kind::None;
    s.model.kind = ModelSpec::Kind::None;
    NodeSpec cloud;
    cloud.id = "cloud";
    cloud.tier = Tier::Cloud;
    cloud.role = Role::Aggregator;
    cloud.pricePerHour = 3;
    NodeSpec ea = cloud;
    ea.id = "edge-a";
    ea.tier = Tier::Edge;
    ea.parent = "cloud";
    NodeSpec eb = ea;
    eb.id = "edge-b";
    NodeSpec d1;
    d1.id = "d1";
    d1.parent = "edge-a";
    d1.compute.throughput = Range::exactly(200);
    NodeSpec d2 = d1;
    d2.id = "d2";
    NodeSpec phones;
    phones.group = true;
    phones.id = "phones";
    phones.count = 5;
    phones.parent = "edge-b";
    phones.compute.throughput = {100, 300};
    s.topology.nodes = {cloud, ea, eb, d1, d2, phones};
    LinkSpec l;
    l.from = "edge-a";
    l.to = "edge-b";
    l.params.latencyMs = 5;
    s.topology.links = {l};
    s.sync.name = "hierarchical";
    return s;
}

int nodeIndex(const Scenario& s, const std::string& id) {
    for (std::size_t i = 0; i < s.topology.nodes.size(); ++i)
        if (s.topology.nodes[i].id == id) return static_cast<int>(i);
    return -1;
}

const NodeSpec& node(const ScenarioDocument& d, const std::string& id) {
    const int i = nodeIndex(d.scenario(), id);
    Q_ASSERT(i >= 0);
    return d.scenario().topology.nodes[static_cast<std::size_t>(i)];
}

QString errorsOf(const Scenario& s) {
    QStringList out;
    for (const auto& d : validateScenario(s))
        out << QString::fromStdString(d.format());
    return out.join('\n');
}

/// A palette drag arriving over the canvas: enter, move, drop (as a window system sends it).
void sendDrop(TopologyCanvas& view, QPointF scenePos, const QMimeData* mime) {
    const QPointF at(view.mapFromScene(scenePos));
    QDragEnterEvent enter(at.toPoint(), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &enter);
    QDragMoveEvent move(at.toPoint(), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &move);
    QDropEvent drop(at, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view.viewport(), &drop);
}

void sendMouse(QWidget* w, QEvent::Type type, QPoint at, Qt::MouseButton button,
               Qt::MouseButtons buttons, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    QMouseEvent e(type, QPointF(at), w->mapToGlobal(QPointF(at)), button, buttons, mods);
    QApplication::sendEvent(w, &e);
}

/// A left drag on the canvas from one scene point to another, in a few steps.
void drag(TopologyCanvas& view, QPointF fromScene, QPointF toScene,
          Qt::KeyboardModifiers mods = Qt::NoModifier) {
    QWidget* vp = view.viewport();
    const QPoint a = view.mapFromScene(fromScene), b = view.mapFromScene(toScene);
    sendMouse(vp, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton, mods);
    for (int i = 1; i <= 4; ++i)
        sendMouse(vp, QEvent::MouseMove, a + (b - a) * i / 4, Qt::NoButton, Qt::LeftButton, mods);
    sendMouse(vp, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton, mods);
}

using Edit = std::function<void(ScenarioDocument&)>;

const std::map<QString, Edit>& edits() {
    static const std::map<QString, Edit> table = {
        {"add node",
         [](ScenarioDocument& d) {
             NodeSpec n;
             n.id = "d1"; // taken: the document picks a free id
             n.parent = "edge-a";
             QCOMPARE(d.addNode(n), QString("d3"));
         }},
        {"add group",
         [](ScenarioDocument& d) {
             NodeSpec g;
             g.group = true;
             g.id = "sensors";
             g.count = 7;
             g.parent = "edge-b";
             d.addNode(g);
         }},
        {"set node property",
         [](ScenarioDocument& d) {
             NodeSpec n = node(d, "d1");
             n.compute.throughput = Range::exactly(999);
             n.pricePerHour = 0.5;
             d.setNode("d1", n);
         }},
        {"set group property",
         [](ScenarioDocument& d) {
             NodeSpec g = d.scenario().topology.group(0);
             g.count = 50;
             d.setNode("phones", g);
         }},
        {"rename node",
         [](ScenarioDocument& d) {
             NodeSpec n = node(d, "edge-a");
             n.id = "edge-west";
             d.setNode("edge-a", n);
             QCOMPARE(node(d, "d1").parent, std::string("edge-west"));
             QCOMPARE(d.scenario().topology.links[0].from, std::string("edge-west"));
         }},
        {"rename group",
         [](ScenarioDocument& d) {
             Scenario s = d.scenario();
             NodeSpec g = s.topology.group(0);
             g.id = "handsets";
             d.setNode("phones", g);
         }},
        {"move nodes",
         [](ScenarioDocument& d) {
             d.moveEntities({"d1", "phones"}, {{10, 20}, {30, 40}});
         }},
        {"reparent",
         [](ScenarioDocument& d) {
             d.setParent("d2", "edge-b");
             QCOMPARE(node(d, "d2").parent, std::string("edge-b"));
         }},
        {"add link",
         [](ScenarioDocument& d) {
             LinkSpec l;
             l.from = "cloud";
             l.to = "d1";
             d.addLink(l);
         }},
        {"edit link",
         [](ScenarioDocument& d) {
             LinkSpec l = d.scenario().topology.links[0];
             l.params.bandwidthUpMbps = 42;
             d.setLink(0, l);
         }},
        {"remove link", [](ScenarioDocument& d) { d.removeLink(0); }},
        {"connect sets parent",
         [](ScenarioDocument& d) {
             NodeSpec n;
             n.id = "loose";
             d.addNode(n);
             d.undoStack()->setClean(); // the row checks the connect step alone
             QCOMPARE(d.connect("loose", "edge-b"), ScenarioDocument::Connection::Parent);
         }},
        {"connect adds link",
         [](ScenarioDocument& d) {
             QCOMPARE(d.connect("d1", "d2"), ScenarioDocument::Connection::Link);
         }},
        {"delete reparents",
         [](ScenarioDocument& d) {
             d.remove({"edge-a"}, {}, DeleteChildren::Reparent);
             QCOMPARE(node(d, "d1").parent, std::string("cloud"));
             QVERIFY(d.scenario().topology.links.empty());
         }},
        {"delete subtree",
         [](ScenarioDocument& d) {
             d.remove({"edge-b"}, {}, DeleteChildren::Remove);
             QCOMPARE(d.scenario().topology.groupCount(), std::size_t(0));
         }},
        {"paste",
         [](ScenarioDocument& d) {
             const QStringList ids = d.paste(d.copy({"edge-a", "d1"}), {40, 40});
             QCOMPARE(ids.size(), 2);
         }},
        {"auto layout", [](ScenarioDocument& d) { d.autoLayout(); }},
        {"multi edit",
         [](ScenarioDocument& d) {
             d.changeEntities(
                 {"d1", "d2", "phones"}, [](NodeSpec& n) { n.energy.perSampleJ = 0.01; },
                 "energy");
         }},
        {"generic edit",
         [](ScenarioDocument& d) {
             d.edit("Sync policy", [](Scenario& s) {
                 s.sync.name = "fully-sync";
                 s.stop.rounds = 3;
             });
         }},
    };
    return table;
}

} // namespace

class TestEditor : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(errorsOf(baseScenario()).isEmpty(), qPrintable(errorsOf(baseScenario())));
    }
    void buildThroughApi();
    void undoRedoEachEdit_data();
    void undoRedoEachEdit();
    void typedValueMergesIntoOneStep();
    void dirtyFlagFollowsUndoStack();
    void saveLoadRoundTripWithPositions();
    void positionErrorsNameTheField();
    void layoutByTierPutsChildrenUnderParents();
    void copyPasteKeepsStructure();
    void deleteFromCanvas();
    void dragIsOneUndoStep();
    void dropFromPaletteAndDrawLinks();
    void inspectorValidatesLikeTheLoader();
    void inspectorMultiSelectionIsOneStep();
    void inspectorEditsLinks();
    void groupsExpandAndShowRunState();
    void liveNetworkMessagesAndEnds();
    void liveNetworkLinkUse();
    void messagesAggregatePerEdge();
    void groupCountsPerState();
    void linkUtilisationOnEdges();
    void relayRole();
    void liveRunDrawsBothWays();
    void tenThousandDevicesStayResponsive();
    void thousandNodeBenchmark();
    void inspectorEditsNetworkKeys();
    void inspectorBillingAndForwardingEnergy();
    void settingsPanelEditsNetworkKeys();
    void paletteRelayInsertsIntoParentChain();
};

void TestEditor::buildThroughApi() {
    ScenarioDocument doc;
    Scenario empty;
    empty.data.kind = DataSpec::Kind::None;
    empty.model.kind = ModelSpec::Kind::None;
    doc.setScenario(empty);
    NodeSpec cloud;
    cloud.id = "cloud";
    cloud.tier = Tier::Cloud;
    cloud.role = Role::Aggregator;
    QCOMPARE(doc.addNode(cloud), QString("cloud"));
    NodeSpec edge;
    edge.id = "edge";
    edge.tier = Tier::Edge;
    edge.role = Role::Aggregator;
    const QString e1 = doc.addNode(edge);
    const QString e2 = doc.addNode(edge);
    QCOMPARE(e2, QString("edge1"));
    QCOMPARE(doc.connect(e1, "cloud"), ScenarioDocument::Connection::Parent);
    QCOMPARE(doc.connect("cloud", e2), ScenarioDocument::Connection::Parent); // either direction
    NodeSpec g;
    g.group = true;
    g.id = "phones";
    g.count = 30;
    g.parent = e1.toStdString();
    doc.addNode(g);
    NodeSpec d;
    d.id = "tablet";
    d.parent = e2.toStdString();
    doc.addNode(d);
    QCOMPARE(doc.connect(e1, e2), ScenarioDocument::Connection::Link);
    QCOMPARE(doc.connect(e2, e1), ScenarioDocument::Connection::None); // already linked
    QCOMPARE(doc.connect("phones", "tablet"), ScenarioDocument::Connection::Link);

    const Scenario& s = doc.scenario();
    QVERIFY2(errorsOf(s).isEmpty(), qPrintable(errorsOf(s)));
    QCOMPARE(int(s.topology.nodes.size() - s.topology.groupCount()), 4);
    QCOMPARE(s.topology.nodes[1].parent, std::string("cloud"));
    QCOMPARE(s.topology.nodes[2].parent, std::string("cloud"));
    QCOMPARE(int(s.topology.links.size()), 2);
    QCOMPARE(s.topology.links[1].from, std::string("phones-0")); // a group end names member 0
    // It loads back as a scenario file would.
    const Scenario back = loadScenarioText(saveScenarioText(s));
    QCOMPARE(text(back), text(s));
    QCOMPARE(doc.undoStack()->count(), 9);
}

void TestEditor::undoRedoEachEdit_data() {
    QTest::addColumn<QString>("edit");
    for (const auto& [name, fn] : edits())
        QTest::newRow(qPrintable(name)) << name;
}

void TestEditor::undoRedoEachEdit() {
    QFETCH(QString, edit);
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    TopologyCanvas canvas(&doc); // the view follows every change and every undo
    edits().at(edit)(doc);
    if (QTest::currentTestFailed()) return;
    // Rows that prepare something first mark the stack clean before the step under test.
    const int steps = doc.undoStack()->count() - std::max(doc.undoStack()->cleanIndex(), 0);
    QCOMPARE(steps, 1);
    const QString after = text(doc.scenario());
    doc.undoStack()->undo();
    const QString before = text(doc.scenario());
    QVERIFY(before != after);
    doc.undoStack()->redo();
    QCOMPARE(text(doc.scenario()), after);
    doc.undoStack()->undo();
    QCOMPARE(text(doc.scenario()), before);
    // The canvas shows exactly the document's nodes and links after all that.
    const auto& t = doc.scenario().topology;
    QCOMPARE(canvas.topologyScene()->itemCount(), int(t.nodes.size()));
    QCOMPARE(int(canvas.topologyScene()->linkItems().size()), int(t.links.size()));
    for (const auto& n : t.nodes)
        QVERIFY(canvas.topologyScene()->item(QString::fromStdString(n.id)));
}

void TestEditor::typedValueMergesIntoOneStep() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    const int merge = doc.newMergeId();
    for (double v : {1.0, 12.0, 123.0}) {
        NodeSpec n = node(doc, "d1");
        n.pricePerHour = v;
        doc.setNode("d1", n, merge);
    }
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(node(doc, "d1").pricePerHour.min, 123.0);
    // Setting what is already there is no step (a combo box re-selecting its value).
    doc.setNode("d1", node(doc, "d1"));
    doc.edit("nothing", [](Scenario&) {});
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QCOMPARE(node(doc, "d1").pricePerHour.min, 0.0);
    // Generic edits merge the same way (a spin box in the policy panel).
    const int m2 = doc.newMergeId();
    for (int r : {5, 6, 7})
        doc.edit(
            "rounds", [r](Scenario& s) { s.stop.rounds = r; }, m2);
    QCOMPARE(doc.undoStack()->count(), 1); // the undone step was replaced
    QCOMPARE(doc.scenario().stop.rounds, 7);
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().stop.rounds, baseScenario().stop.rounds);
}

void TestEditor::dirtyFlagFollowsUndoStack() {
    QTemporaryDir dir;
    ScenarioDocument doc;
    QSignalSpy modified(&doc, &ScenarioDocument::modifiedChanged);
    doc.setScenario(baseScenario());
    QVERIFY(!doc.isModified());
    doc.setParent("d2", "edge-b");
    QVERIFY(doc.isModified());
    QCOMPARE(modified.count(), 1);
    QCOMPARE(modified.last().at(0).toBool(), true);
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    QCOMPARE(modified.last().at(0).toBool(), false);
    doc.undoStack()->redo();
    QString error;
    QVERIFY2(doc.saveAs(dir.filePath("s.yaml"), &error), qPrintable(error));
    QVERIFY(!doc.isModified());
    doc.undoStack()->undo(); // back before the save: modified again
    QVERIFY(doc.isModified());
    doc.undoStack()->redo();
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.filePath(), dir.filePath("s.yaml"));
}

void TestEditor::saveLoadRoundTripWithPositions() {
    QTemporaryDir dir;
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    doc.moveEntities({"cloud", "phones"}, {{100.5, -20}, {-40, 300}});
    QString error;
    QVERIFY2(doc.saveAs(dir.filePath("pos.yaml"), &error), qPrintable(error));
    ScenarioDocument other;
    QVERIFY2(other.load(dir.filePath("pos.yaml"), &error), qPrintable(error));
    QCOMPARE(text(other.scenario()), text(doc.scenario()));
    QVERIFY(node(other, "cloud").hasPosition);
    QCOMPARE(node(other, "cloud").x, 100.5);
    QCOMPARE(node(other, "cloud").y, -20.0);
    QVERIFY(other.scenario().topology.group(0).hasPosition);
    QCOMPARE(other.scenario().topology.group(0).y, 300.0);
    QVERIFY(!node(other, "d1").hasPosition); // absent stays absent (auto layout)
    QVERIFY(!other.isModified());
    // A bad file: the loader's message, the document unchanged.
    QFile bad(dir.filePath("bad.yaml"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("topology:\n  nodes:\n    - {id: a, role: aggregator}\n    - {id: b, parent: a, "
              "compute: {throughput: -1}}\n");
    bad.close();
    QVERIFY(!other.load(dir.filePath("bad.yaml"), &error));
    QVERIFY2(error.contains("bad.yaml:4") &&
                 error.contains("topology.nodes[1].compute.throughput must be > 0, got -1"),
             qPrintable(error));
    QCOMPARE(other.filePath(), dir.filePath("pos.yaml"));
    QVERIFY(!other.load(dir.filePath("missing.yaml"), &error));
    QVERIFY2(error.contains("missing.yaml: cannot open scenario file"), qPrintable(error));
}

void TestEditor::positionErrorsNameTheField() {
    auto errors = [](const std::string& yaml) {
        try {
            loadScenarioText(yaml, "p.yaml");
        } catch (const ScenarioError& e) {
            return QString::fromStdString(e.what());
        }
        return QString();
    };
    const std::string head = "topology:\n  nodes:\n    - {id: a, role: aggregator, position: ";
    const std::string tail = "}\n    - {id: b, parent: a}\n";
    QCOMPARE(errors(head + "[1, 2]" + tail), QString());
    const QString one = errors(head + "[1]" + tail);
    QVERIFY2(one.contains("p.yaml:3:") &&
                 one.contains("topology.nodes[0].position must be a list of two numbers [x, y]"),
             qPrintable(one));
    const QString letter = errors(head + "[1, x]" + tail);
    QVERIFY2(letter.contains("topology.nodes[0].position[1] must be a number, got 'x'"),
             qPrintable(letter));
    const QString nan = errors(head + "[1, .nan]" + tail);
    QVERIFY2(
        nan.contains("topology.nodes[0].position must be two finite numbers [x, y], got [1, .nan]"),
        qPrintable(nan));
}

void TestEditor::layoutByTierPutsChildrenUnderParents() {
    const Scenario s = baseScenario();
    const TopologyLayout l = layoutByTier(s.topology);
    const auto& n = l.nodes;
    QVERIFY(n[0].y < n[1].y);        // cloud above edge
    QCOMPARE(n[1].y, n[2].y);        // edges on one row
    QVERIFY(n[1].y < n[3].y);        // edge above devices
    QCOMPARE(n[3].y, n[5].y); // devices and groups on one row
    QVERIFY(std::min(n[3].x, n[4].x) <= n[1].x && n[1].x <= std::max(n[3].x, n[4].x));
    QCOMPARE(n[5].x, n[2].x);                      // the only child sits right under
    QVERIFY(n[1].x <= n[0].x && n[0].x <= n[2].x); // cloud centred over its edges
    // Many devices under one edge server wrap into a block of lines below the device row.
    Scenario w = s;
    for (int i = 0; i < 20; ++i) {
        NodeSpec d = w.topology.nodes[3];
        d.id = "w" + std::to_string(i);
        d.parent = "edge-b";
        w.topology.nodes.push_back(d);
    }
    const TopologyLayout lw = layoutByTier(w.topology);
    const LayoutOptions o;
    QCOMPARE(lw.nodes[6].y, n[3].y);                               // first line: the device row
    QCOMPARE(lw.nodes[6 + o.wrapLeaves].y, n[3].y + o.lineHeight); // then the next line
    QCOMPARE(lw.nodes[6 + o.wrapLeaves].x, lw.nodes[6].x);
    // No two items share a spot.
    std::set<std::pair<double, double>> spots;
    for (const auto& p : lw.nodes)
        QVERIFY(spots.insert({p.x, p.y}).second);
    // A parent cycle (an editor may hold one for a moment) does not hang or crash.
    Scenario c = s;
    c.topology.nodes[0].parent = "d1";
    const TopologyLayout lc = layoutByTier(c.topology);
    QCOMPARE(int(lc.nodes.size()), 6);
}

void TestEditor::copyPasteKeepsStructure() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    TopologyCanvas canvas(&doc);
    canvas.topologyScene()->selectIds({"edge-b", "phones", "d1"});
    canvas.copy();
    QVERIFY(QApplication::clipboard()->mimeData()->hasFormat(kTopologyMime));
    const int before = doc.undoStack()->count();
    canvas.paste();
    QCOMPARE(doc.undoStack()->count(), before + 1);
    const Scenario& s = doc.scenario();
    QCOMPARE(int(s.topology.nodes.size() - s.topology.groupCount()), 7);
    QCOMPARE(int(s.topology.groupCount()), 2);
    // Copies get free ids; references inside the copy follow them, others stay.
    // (Index 5 is the group phones: nodes and groups share one list.)
    QCOMPARE(s.topology.nodes[6].id, std::string("edge-b1"));
    QCOMPARE(s.topology.nodes[6].parent, std::string("cloud"));
    QCOMPARE(s.topology.nodes[7].id, std::string("d3"));
    QCOMPARE(s.topology.nodes[7].parent, std::string("edge-a"));
    QCOMPARE(s.topology.group(1).id, std::string("phones1"));
    QCOMPARE(s.topology.group(1).parent, std::string("edge-b1"));
    QCOMPARE(s.topology.group(1).count, 5);
    QVERIFY(s.topology.nodes[6].hasPosition);
    QCOMPARE(canvas.topologyScene()->selectedIds(), (QStringList{"edge-b1", "d3", "phones1"}));
    QVERIFY2(errorsOf(s).isEmpty(), qPrintable(errorsOf(s)));
    // Pasting again lands further along, not on top of the first copy.
    canvas.paste();
    QCOMPARE(doc.scenario().topology.nodes[9].id, std::string("edge-b2"));
    QVERIFY(doc.scenario().topology.nodes[9].x > doc.scenario().topology.nodes[6].x);
    // A copy of a device whose parent is gone when pasted: pasted as a root.
    const QString clip = doc.copy({"d2"});
    doc.remove({"edge-a"}, {}, DeleteChildren::Remove);
    const QStringList ids = doc.paste(clip, {});
    QCOMPARE(ids, QStringList{"d2"});
    QVERIFY(node(doc, "d2").parent.empty());
    QString error;
    QVERIFY(doc.paste("topology: {nodes: [{id: x, tier: moon}]}", {}, &error).isEmpty());
    QVERIFY2(error.contains("tier must be one of cloud, edge, device, got 'moon'"),
             qPrintable(error));
}

void TestEditor::deleteFromCanvas() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    TopologyCanvas canvas(&doc);
    TopologyScene* scene = canvas.topologyScene();
    scene->selectIds({"edge-a"});
    scene->linkItems().front()->setSelected(true);
    canvas.deleteAction()->trigger();
    QCOMPARE(int(doc.scenario().topology.nodes.size() - doc.scenario().topology.groupCount()), 4);
    QCOMPARE(node(doc, "d1").parent, std::string("cloud")); // children report further up
    QVERIFY(doc.scenario().topology.links.empty());
    QVERIFY(!scene->item("edge-a"));
    QCOMPARE(scene->itemCount(), 5);
    QVERIFY2(errorsOf(doc.scenario()).isEmpty(), qPrintable(errorsOf(doc.scenario())));
    doc.undoStack()->undo();
    QCOMPARE(text(doc.scenario()), text(baseScenario()));
    QVERIFY(scene->item("edge-a"));
    QCOMPARE(int(scene->linkItems().size()), 1);
}

void TestEditor::dragIsOneUndoStep() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    doc.autoLayout();
    doc.undoStack()->setClean();
    TopologyCanvas canvas(&doc);
    canvas.resize(900, 600);
    canvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&canvas));
    canvas.zoomFit();
    TopologyScene* scene = canvas.topologyScene();
    scene->selectIds({"d1", "d2"});
    const QPointF p1 = scene->item("d1")->pos(), p2 = scene->item("d2")->pos();
    const int count = doc.undoStack()->count();
    drag(canvas, p1, p1 + QPointF(100, 60));
    QCOMPARE(doc.undoStack()->count(), count + 1); // the whole drag: one step
    const QPointF moved = QPointF(node(doc, "d1").x, node(doc, "d1").y) - p1;
    QVERIFY2(moved.manhattanLength() > 50, qPrintable(QString::number(moved.manhattanLength())));
    QCOMPARE(QPointF(node(doc, "d2").x, node(doc, "d2").y), p2 + moved); // both moved together
    // The grabbed node lands on the grid; the others keep their offsets to it.
    QCOMPARE(std::fmod(node(doc, "d1").x, TopologyScene::kGrid), 0.0);
    QCOMPARE(std::fmod(node(doc, "d1").y, TopologyScene::kGrid), 0.0);
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QCOMPARE(scene->item("d1")->pos(), p1);
    QCOMPARE(scene->item("d2")->pos(), p2);
    QVERIFY(!doc.isModified());

    // Rubber band from empty canvas around the two devices selects just them.
    scene->clearSelection();
    const QRectF around =
        scene->item("d1")->sceneBoundingRect().united(scene->item("d2")->sceneBoundingRect());
    // (Intersecting is enough: the band ends inside d2, well clear of its neighbours.)
    drag(canvas, around.topLeft() - QPointF(15, 15),
         QPointF(scene->item("d2")->pos().x(), around.bottom() + 15));
    QCOMPARE(scene->selectedIds(), (QStringList{"d1", "d2"}));
    QCOMPARE(doc.undoStack()->count(), count + 1); // selecting is no edit
    // The wheel zooms, under the mouse.
    const qreal z = canvas.zoom();
    QWheelEvent wheel(QPointF(200, 200), canvas.viewport()->mapToGlobal(QPointF(200, 200)),
                      QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                      false);
    QApplication::sendEvent(canvas.viewport(), &wheel);
    QVERIFY(canvas.zoom() > z * 1.2);
    canvas.zoomOutAction()->trigger();
    QVERIFY(canvas.zoom() < z * 1.5);
}

void TestEditor::dropFromPaletteAndDrawLinks() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    doc.autoLayout();
    TopologyCanvas canvas(&doc);
    canvas.resize(900, 600);
    canvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&canvas));
    canvas.zoomFit();
    TopologyScene* scene = canvas.topologyScene();

    // The palette's drag payload, dropped onto edge-b: a device under edge-b.
    NodePalette palette;
    palette.setGroupCount(12);
    QListWidget* list = palette.list();
    QCOMPARE(list->count(), 5); // cloud, edge, device, group, relay
    std::unique_ptr<QMimeData> mime(list->model()->mimeData({list->model()->index(2, 0)}));
    QVERIFY(mime && mime->hasFormat(kNodeTemplateMime));
    sendDrop(canvas, scene->item("edge-b")->pos(), mime.get());
    QCOMPARE(int(doc.scenario().topology.nodes.size() - doc.scenario().topology.groupCount()), 6);
    const NodeSpec& added = doc.scenario().topology.nodes.back();
    QCOMPARE(added.id, std::string("device"));
    QCOMPARE(added.parent, std::string("edge-b"));
    QVERIFY(added.hasPosition && added.y > node(doc, "edge-b").y);
    // A group of N from the palette, dropped on empty canvas, at the drop point (snapped).
    std::unique_ptr<QMimeData> gm(list->model()->mimeData({list->model()->index(3, 0)}));
    const QPointF empty(-600, 900);
    sendDrop(canvas, empty, gm.get());
    QCOMPARE(int(doc.scenario().topology.groupCount()), 2);
    QCOMPARE(doc.scenario().topology.group(doc.scenario().topology.groupCount() - 1).count, 12);
    QVERIFY(doc.scenario().topology.group(doc.scenario().topology.groupCount() - 1).parent.empty());

    // Shift+drag from the new group to edge-a: it has no parent, so edge-a becomes it.
    const QString gid = QString::fromStdString(doc.scenario().topology.group(doc.scenario().topology.groupCount() - 1).id);
    drag(canvas, scene->item(gid)->pos(), scene->item("edge-a")->pos(), Qt::ShiftModifier);
    QCOMPARE(doc.scenario().topology.group(doc.scenario().topology.groupCount() - 1).parent, std::string("edge-a"));
    // Link mode: from d1 (has a parent) to d2: an explicit link.
    canvas.linkModeAction()->trigger();
    drag(canvas, scene->item("d1")->pos(), scene->item("d2")->pos());
    QCOMPARE(int(doc.scenario().topology.links.size()), 2);
    QCOMPARE(doc.scenario().topology.links.back().from, std::string("d1"));
    QCOMPARE(int(scene->linkItems().size()), 2);
    canvas.linkModeAction()->trigger();
    QVERIFY2(errorsOf(doc.scenario()).isEmpty(), qPrintable(errorsOf(doc.scenario())));

    // Double-click in the palette adds at the centre of the view.
    QSignalSpy add(&palette, &NodePalette::addRequested);
    Q_EMIT list->itemDoubleClicked(list->item(0));
    QCOMPARE(add.count(), 1);
    const QString cloud = canvas.addAtCentre(add.at(0).at(0).value<NodeTemplate>(), 1);
    QCOMPARE(cloud, QString("cloud1"));
    QCOMPARE(doc.tierOf(doc.find(cloud)), Tier::Cloud);

    canvas.zoomFit();
    canvas.grab().save(QDir::temp().filePath("editor.png"));
    canvas.selectAllAction()->trigger();
    QCOMPARE(scene->selectedIds().size(), 9);
    QCOMPARE(int(scene->selectedLinks().size()), 2);
}

void TestEditor::inspectorValidatesLikeTheLoader() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    PropertyInspector inspector(&doc);
    inspector.setSelection({"d1"}, {});
    auto* tp = qobject_cast<QLineEdit*>(inspector.editor("compute.throughput"));
    QVERIFY(tp);
    QCOMPARE(tp->text(), QString("200"));
    QVERIFY(!inspector.isFieldVisible("compute.throughput.max")); // a node: one value
    QVERIFY(!inspector.isFieldVisible("count"));
    const int count = doc.undoStack()->count();
    tp->setText("-5");
    tp->setModified(true);
    Q_EMIT tp->editingFinished();
    QCOMPARE(doc.undoStack()->count(), count); // not applied
    QCOMPARE(node(doc, "d1").compute.throughput.min, 200.0);
    QVERIFY2(inspector.message("compute.throughput").contains("must be > 0, got -5"),
             qPrintable(inspector.message("compute.throughput")));
    QCOMPARE(tp->text(), QString("-5")); // the invalid value stays visible
    inspector.resize(380, 900);
    inspector.grab().save(QDir::temp().filePath("editor-inspector.png"));
    tp->setText("abc");
    tp->setModified(true);
    Q_EMIT tp->editingFinished();
    QVERIFY(inspector.message("compute.throughput").contains("must be a number, got 'abc'"));
    tp->setText("250");
    tp->setModified(true);
    Q_EMIT tp->editingFinished();
    QCOMPARE(doc.undoStack()->count(), count + 1);
    QCOMPARE(node(doc, "d1").compute.throughput.min, 250.0);
    QVERIFY(inspector.message("compute.throughput").isEmpty());

    // A parent that does not exist: the loader's message, with its suggestion.
    auto* parent = qobject_cast<QComboBox*>(inspector.editor("parent"));
    parent->setEditText("edge-c");
    Q_EMIT parent->lineEdit()->editingFinished();
    QVERIFY2(inspector.message("parent").contains(
                 "names node 'edge-c', which does not exist (did you mean 'edge-a'?)"),
             qPrintable(inspector.message("parent")));
    QCOMPARE(node(doc, "d1").parent, std::string("edge-a"));
    // Renaming to a taken id is refused; a free one renames everywhere.
    inspector.setSelection({"edge-a"}, {});
    auto* id = qobject_cast<QLineEdit*>(inspector.editor("id"));
    id->setText("d2");
    id->setModified(true);
    Q_EMIT id->editingFinished();
    QVERIFY2(inspector.message("id").contains("duplicate id 'd2'"),
             qPrintable(inspector.message("id")));
    id->setText("west");
    id->setModified(true);
    Q_EMIT id->editingFinished();
    QCOMPARE(node(doc, "d1").parent, std::string("west"));
    QCOMPARE(inspector.selectedIds(), QStringList{"west"});

    // Problems already in the scenario show next to their field: a Markov aggregator.
    doc.changeEntities(
        {"west"}, [](NodeSpec& n) { n.availability.kind = AvailabilitySpec::Kind::Markov; },
        "markov");
    QVERIFY(inspector.isFieldVisible("availability.mean_up_s"));
    QVERIFY2(inspector.message("availability.kind").contains("must be always for an aggregator"),
             qPrintable(inspector.message("availability.kind")));

    // Groups: ranges and count.
    inspector.setSelection({"phones"}, {});
    QVERIFY(inspector.isFieldVisible("compute.throughput.max"));
    auto* mx = qobject_cast<QLineEdit*>(inspector.editor("compute.throughput.max"));
    QCOMPARE(mx->text(), QString("300"));
    mx->setText("50"); // below min: the loader's range message
    mx->setModified(true);
    Q_EMIT mx->editingFinished();
    QVERIFY2(inspector.message("compute.throughput.max").contains("range needs min <= max"),
             qPrintable(inspector.message("compute.throughput.max")));
    QCOMPARE(doc.scenario().topology.group(0).compute.throughput.max, 300.0);
    auto* count2 = qobject_cast<QSpinBox*>(inspector.editor("count"));
    count2->setValue(0);
    QVERIFY(inspector.message("count").contains("must be in [1, 1000000], got 0"));
    QCOMPARE(doc.scenario().topology.group(0).count, 5);
    count2->setValue(80);
    QCOMPARE(doc.scenario().topology.group(0).count, 80);
}

void TestEditor::inspectorMultiSelectionIsOneStep() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    TopologyCanvas canvas(&doc);
    PropertyInspector inspector(&doc);
    inspector.attach(canvas.topologyScene());
    canvas.topologyScene()->selectIds({"d1", "d2", "phones"});
    QCOMPARE(inspector.selectedIds().size(), 3);
    auto* price = qobject_cast<QLineEdit*>(inspector.editor("price_per_hour"));
    auto* tp = qobject_cast<QLineEdit*>(inspector.editor("compute.throughput"));
    QCOMPARE(price->text(), QString("0")); // all the same
    QCOMPARE(tp->text(), QString());       // 200, 200 and 100..300: mixed
    QCOMPARE(tp->placeholderText(), QString("(mixed)"));
    const int count = doc.undoStack()->count();
    price->setText("0.25");
    price->setModified(true);
    Q_EMIT price->editingFinished();
    QCOMPARE(doc.undoStack()->count(), count + 1);
    QCOMPARE(node(doc, "d1").pricePerHour.min, 0.25);
    QCOMPARE(node(doc, "d2").pricePerHour.min, 0.25);
    QCOMPARE(doc.scenario().topology.group(0).pricePerHour.max, 0.25);
    auto* role = qobject_cast<QComboBox*>(inspector.editor("role"));
    role->setCurrentIndex(role->findText("both"));
    Q_EMIT role->activated(role->currentIndex());
    QCOMPARE(node(doc, "d2").role, Role::Both);
    QCOMPARE(doc.scenario().topology.group(0).role, Role::Both);
    QCOMPARE(doc.undoStack()->count(), count + 2);
    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QCOMPARE(text(doc.scenario()), text(baseScenario()));
}

void TestEditor::inspectorEditsLinks() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    TopologyCanvas canvas(&doc);
    PropertyInspector inspector(&doc);
    inspector.attach(canvas.topologyScene());
    canvas.topologyScene()->linkItems().front()->setSelected(true); // click on the link
    QCOMPARE(canvas.topologyScene()->selectedLinks(), std::vector<int>{0});
    QVERIFY(inspector.isFieldVisible("latency_ms"));
    QVERIFY(!inspector.isFieldVisible("role"));
    auto* up = qobject_cast<QLineEdit*>(inspector.editor("bandwidth_up_mbps"));
    up->setText("0");
    up->setModified(true);
    Q_EMIT up->editingFinished();
    QVERIFY(inspector.message("bandwidth_up_mbps").contains("must be > 0, got 0"));
    up->setText("75");
    up->setModified(true);
    Q_EMIT up->editingFinished();
    QCOMPARE(doc.scenario().topology.links[0].params.bandwidthUpMbps, 75.0);
    // The canvas redrew the link; it is still selected and the inspector still on it.
    QCOMPARE(canvas.topologyScene()->selectedLinks(), std::vector<int>{0});
    QVERIFY(inspector.isFieldVisible("latency_ms"));
    // Removing a link before a selected one renumbers it; the selection follows it.
    LinkSpec extra;
    extra.from = "d1";
    extra.to = "d2";
    QCOMPARE(doc.addLink(extra), 1);
    canvas.topologyScene()->selectIds({});
    canvas.topologyScene()->linkItems().back()->setSelected(true);
    doc.removeLink(0);
    QCOMPARE(canvas.topologyScene()->selectedLinks(), std::vector<int>{0});
    QCOMPARE(doc.scenario().topology.links[0].from, std::string("d1"));
    doc.undoStack()->undo(); // the removed link comes back at index 0: ours is 1 again
    QCOMPARE(canvas.topologyScene()->selectedLinks(), std::vector<int>{1});
    doc.undoStack()->undo();
    canvas.topologyScene()->selectIds({});
    inspector.setSelection({}, {0});
    auto* to = qobject_cast<QComboBox*>(inspector.editor("to"));
    to->setEditText("edge-a");
    Q_EMIT to->lineEdit()->editingFinished();
    QVERIFY(inspector.message("to").contains("must differ from 'from'"));
    // A node's own link to its parent.
    inspector.setSelection({"d1"}, {});
    QVERIFY(!inspector.isFieldVisible("link.latency_ms"));
    auto* own = qobject_cast<QCheckBox*>(inspector.editor("link"));
    own->click();
    QVERIFY(node(doc, "d1").link.has_value());
    QVERIFY(inspector.isFieldVisible("link.latency_ms"));
    auto* lat = qobject_cast<QLineEdit*>(inspector.editor("link.latency_ms"));
    lat->setText("-1");
    lat->setModified(true);
    Q_EMIT lat->editingFinished();
    QVERIFY(inspector.message("link.latency_ms").contains("must be in [0, 3600000], got -1"));
    QCOMPARE(node(doc, "d1").link->latencyMs, 0.0);
}

void TestEditor::groupsExpandAndShowRunState() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    TopologyCanvas canvas(&doc);
    TopologyScene* scene = canvas.topologyScene();
    NodeItem* phones = scene->item("phones");
    QVERIFY(phones && phones->isGroup());
    QCOMPARE(phones->count(), 5);
    phones->setExpanded(true);
    QVERIFY(phones->member(4));
    QVERIFY(!phones->member(5));
    // A child naming a member attaches to that member while expanded.
    NodeSpec probe;
    probe.id = "probe";
    probe.tier = Tier::Device;
    probe.role = Role::Aggregator;
    probe.parent = "phones-3";
    doc.addNode(probe);
    EdgeItem* edge = nullptr;
    for (EdgeItem* e : scene->item("probe")->edges())
        if (e->isParentLink()) edge = e;
    QVERIFY(edge);
    QCOMPARE(edge->to(), phones);
    QCOMPARE(edge->toMember(), 3);

    // A run: the expanded topology's nodes in order, then a frame.
    std::vector<NodeInfo> nodes;
    for (const char* id : {"cloud", "edge-a", "edge-b", "d1", "d2", "probe", "phones-0", "phones-1",
                           "phones-2", "phones-3", "phones-4"}) {
        NodeInfo n;
        n.id = id;
        nodes.push_back(n);
    }
    canvas.setRunNodes(nodes);
    ActivityFrame f;
    f.states = {NodeState::Idle,    NodeState::Idle,    NodeState::Receiving, NodeState::Computing,
                NodeState::Offline, NodeState::Idle,    NodeState::Computing, NodeState::Computing,
                NodeState::Sending, NodeState::Offline, NodeState::Computing};
    f.messages = {{0, 1, true, 0.5}, {7, 2, false, 0.25}, {99, 0, true, 0.1}};
    canvas.showFrame(f);
    QCOMPARE(scene->messagesShown(), 2); // the out-of-range index is skipped
    canvas.resize(1000, 640);
    canvas.zoomFit();
    // Paints group counts, member states and messages; also in a dark palette.
    canvas.grab().save(QDir::temp().filePath("editor-run.png"));
    QPalette dark;
    dark.setColor(QPalette::Base, QColor(30, 32, 36));
    dark.setColor(QPalette::AlternateBase, QColor(45, 48, 54));
    dark.setColor(QPalette::Text, QColor(225, 228, 232));
    dark.setColor(QPalette::WindowText, QColor(225, 228, 232));
    dark.setColor(QPalette::Highlight, QColor(80, 150, 255));
    canvas.setPalette(dark);
    canvas.grab().save(QDir::temp().filePath("editor-run-dark.png"));
    canvas.clearRunState();
    QCOMPARE(scene->messagesShown(), 0);
    phones->setExpanded(false);
    QCOMPARE(edge->toMember(), 3);
    QCOMPARE(edge->line().p2().y() <= phones->pos().y() + NodeItem::kHeight, true);
}

void TestEditor::thousandNodeBenchmark() {
    Scenario s = baseScenario();
    s.topology.links.clear();
    s.topology.nodes.resize(3);
    for (int e = 0; e < 10; ++e) {
        NodeSpec edge = s.topology.nodes[1];
        edge.id = "e" + std::to_string(e);
        s.topology.nodes.push_back(edge);
    }
    for (int d = 0; s.topology.nodes.size() < 1000; ++d) {
        NodeSpec dev;
        dev.id = "dev" + std::to_string(d);
        dev.parent = "e" + std::to_string(d % 10);
        s.topology.nodes.push_back(dev);
    }
    QVERIFY2(errorsOf(s).isEmpty(), qPrintable(errorsOf(s)));
    ScenarioDocument doc;
    TopologyCanvas canvas(&doc);
    PropertyInspector inspector(&doc);
    inspector.attach(canvas.topologyScene());
    canvas.resize(1000, 700);
    QElapsedTimer t;
    t.start();
    doc.setScenario(s);
    const qint64 build = t.elapsed();
    QCOMPARE(canvas.topologyScene()->itemCount(), 1000);
    t.restart();
    canvas.zoomFit();
    canvas.grab();
    const qint64 paint = t.elapsed();
    QStringList ids;
    QList<QPointF> to;
    for (int i = 0; i < 100; ++i) {
        ids << QString("dev%1").arg(i);
        to << QPointF(i * 10, 900);
    }
    t.restart();
    canvas.topologyScene()->selectIds(ids);
    const qint64 select = t.elapsed();
    QCOMPARE(inspector.selectedIds().size(), 100);
    t.restart();
    doc.moveEntities(ids, to, doc.newMergeId());
    const qint64 move = t.elapsed();
    QCOMPARE(canvas.topologyScene()->item("dev42")->pos(), QPointF(420, 900));
    t.restart();
    doc.autoLayout();
    const qint64 layout = t.elapsed();
    qInfo("benchmark, 1000 nodes: scene build %lld ms, fit + paint %lld ms, select 100 "
          "(inspector following) %lld ms, move 100 %lld ms, auto layout %lld ms",
          build, paint, select, move, layout);
}

namespace {

NodeInfo info(const char* id, const char* parent = "", const char* role = "trainer") {
    NodeInfo n;
    n.id = id;
    n.parent = parent;
    n.role = role;
    return n;
}

LinkInfo linkInfo(int index, const char* kind, int from, int to, double capacity) {
    LinkInfo l;
    l.index = index;
    l.id = std::string(kind) + " " + std::to_string(from) + "-" + std::to_string(to);
    l.kind = kind;
    l.from = from;
    l.to = to;
    l.capacityBytesPerS = capacity;
    return l;
}

/// baseScenario's run: cloud, edge-a, edge-b, d1, d2, then the group's `phones` members.
std::vector<NodeInfo> baseRunNodes(int phones) {
    std::vector<NodeInfo> nodes{info("cloud", "", "aggregator"), info("edge-a", "cloud", "aggregator"),
                                info("edge-b", "cloud", "aggregator"), info("d1", "edge-a"), info("d2", "edge-a")};
    for (int k = 0; k < phones; ++k) {
        NodeInfo n = info("", "edge-b");
        n.id = "phones-" + std::to_string(k);
        nodes.push_back(n);
    }
    return nodes;
}

const MessageInFlight* findMessage(const ActivityFrame& f, std::uint64_t id) {
    for (const auto& m : f.messages)
        if (m.id == id) return &m;
    return nullptr;
}

} // namespace

void TestEditor::liveNetworkMessagesAndEnds() {
    // cloud(0) <- edge(1) <- t0(2), t1(3)
    RunInfo run;
    run.nodes = {info("cloud", "", "aggregator"), info("edge", "cloud", "aggregator"), info("t0", "edge"), info("t1", "edge")};
    LiveNetwork net;
    net.start(run);
    auto frame = [&](double t, std::vector<MessageInFlight> planned = {}) {
        ActivityFrame f;
        net.fill(f, t, planned);
        return f;
    };
    // An update with an id: elapsed / projected duration, then waits at its target until its
    // real end (contention made it late).
    net.message({5, 2, 1, 0.0, 10.0, 1e6, false});
    ActivityFrame f = frame(5);
    QCOMPARE(f.messages.size(), std::size_t(1));
    QCOMPARE(f.messages[0].id, std::uint64_t(5));
    QCOMPARE(f.messages[0].modelDown, false);
    QCOMPARE(f.messages[0].progress, 0.5);
    QVERIFY(!f.messages[0].cut);
    f = frame(12);
    QVERIFY(findMessage(f, 5));
    QCOMPARE(findMessage(f, 5)->progress, 1.0);
    net.messageEnd(5, 14, true);
    QVERIFY(!findMessage(frame(14), 5));
    QCOMPARE(net.messagesKept(), std::size_t(0));

    // Cut off part-way: handed over once, marked cut, where it stopped; then gone.
    net.message({6, 1, 3, 0.0, 10.0, 1e6, true});
    net.messageEnd(6, 4, false);
    f = frame(4.5);
    const MessageInFlight* cut = findMessage(f, 6);
    QVERIFY(cut);
    QVERIFY(cut->cut);
    QVERIFY(cut->modelDown);
    QCOMPARE(cut->progress, 0.4);
    QVERIFY(!findMessage(frame(5), 6));

    // An end reported before its message (robustness): the message is never drawn alive.
    net.messageEnd(9, 1, true);
    net.message({9, 2, 1, 0.0, 3.0, 1.0, false});
    QVERIFY(!findMessage(frame(2), 9));

    // Without ids (main's engine before contention): the way is read from the tree, and the
    // message goes at its arrival.
    net.message({0, 1, 0, 20.0, 30.0, 1e6, true}); // edge -> its parent: an update going up
    net.message({0, 0, 1, 20.0, 30.0, 1e6, true}); // cloud -> edge: a model going down
    net.message({0, 0, 1, 25.0, 25.0, 1e6, true}); // zero length: nothing to draw
    f = frame(22);
    QCOMPARE(f.messages.size(), std::size_t(2));
    int up = 0, down = 0;
    for (const auto& m : f.messages) (m.modelDown ? down : up)++;
    QCOMPARE(up, 1);
    QCOMPARE(down, 1);
    QCOMPARE(f.messages[0].progress, 0.2);
    QVERIFY(frame(30).messages.empty());
    // Not yet departed: not drawn.
    net.message({0, 0, 1, 40.0, 50.0, 1e6, true});
    QVERIFY(frame(39).messages.empty());

    // Plans (an engine without ids): drawn unless the engine reports a message from or to
    // that trainer; none once the engine gives ids, for it then reports every transfer.
    LiveNetwork plain;
    plain.start(run);
    const std::vector<MessageInFlight> planned{{1, 3, true, 0.3}, {2, 1, false, 0.6}};
    ActivityFrame p1;
    plain.fill(p1, 60, planned);
    QCOMPARE(p1.messages.size(), std::size_t(2));
    plain.message({0, 1, 3, 59.0, 61.0, 1e6, true});
    ActivityFrame p2;
    plain.fill(p2, 60, planned);
    QCOMPARE(p2.messages.size(), std::size_t(2)); // t1's plan gives way to the engine's message
    int fromPlans = 0;
    for (const auto& m : p2.messages) fromPlans += m.progress == 0.6;
    QCOMPARE(fromPlans, 1);
    plain.message({7, 0, 1, 59.0, 61.0, 1e6, true});
    ActivityFrame p3;
    plain.fill(p3, 60, planned);
    QCOMPARE(p3.messages.size(), std::size_t(2)); // the engine's two, no plan
    QVERIFY(findMessage(p3, 7));
    for (const auto& m : p3.messages) QVERIFY(m.progress == 0.5);
}

void TestEditor::liveNetworkLinkUse() {
    RunInfo run;
    run.nodes = {info("cloud", "", "aggregator"), info("relay", "cloud", "relay"), info("t0", "relay"), info("t1", "relay")};
    run.links = {linkInfo(0, "up", 2, 1, 1e6),   linkInfo(1, "down", 1, 2, 1e6), linkInfo(2, "up", 3, 1, 1e6),
                 linkInfo(3, "up", 1, 0, 1e6),   linkInfo(4, "nic-in", 0, 0, 2e6), linkInfo(5, "down", 0, 1, 1e6)};
    LiveNetwork net;
    net.start(run);
    auto links = [&](double t) {
        ActivityFrame f;
        net.fill(f, t, {});
        std::map<int, LinkLoad> out;
        for (const auto& l : f.links) out[l.link] = l;
        return out;
    };
    // Spans of t0's upload (through the relay to the cloud), closed as flows come and go.
    net.usage({{0, 0.0, 1.0, 1e6, 1}, {3, 0.0, 1.0, 1e6, 1}, {4, 0.0, 1.0, 1e6, 1}, {2, 0.0, 1.0, 0.0, 0}});
    QVERIFY(links(1.5).empty()); // no message in flight: every link is idle
    net.message({1, 2, 0, 1.0, 5.0, 4e6, false});
    auto now = links(1.5);
    QCOMPARE(now.size(), std::size_t(3)); // t0's up link, the relay's up link, the cloud's interface
    QCOMPARE(now[0].bytesPerS, 1e6);
    QCOMPARE(now[0].flows, 1);
    QVERIFY(now.count(3) && now.count(4));
    QVERIFY(!now.count(2)); // its latest span had no flows
    QVERIFY(!now.count(1)); // t0 receives nothing
    // A newer span replaces the older; an older one arriving late changes nothing.
    net.usage({{0, 1.0, 2.0, 5e5, 2}});
    net.usage({{0, 0.5, 0.9, 7e5, 3}});
    now = links(2.5);
    QCOMPARE(now[0].bytesPerS, 5e5);
    QCOMPARE(now[0].flows, 2);
    QCOMPARE(now[0].since, 1.0);
    // Spans for links the run does not have are ignored.
    net.usage({{99, 0.0, 1.0, 1.0, 1}, {-1, 0.0, 1.0, 1.0, 1}});
    net.messageEnd(1, 6.0, true);
    QVERIFY(links(6.5).empty()); // the upload arrived: idle again
    // A model going down through the relay: the cloud's down link (its far end is the relay)
    // and nothing of the ups.
    net.usage({{5, 6.0, 7.0, 1e6, 1}});
    net.message({2, 0, 3, 7.0, 9.0, 1e6, true});
    now = links(7.5);
    QCOMPARE(now.size(), std::size_t(1));
    QVERIFY(now.count(5));
}

void TestEditor::messagesAggregatePerEdge() {
    Scenario sc = baseScenario();
    sc.topology.nodes[5].count = 1000;
    ScenarioDocument doc;
    doc.setScenario(sc);
    TopologyCanvas canvas(&doc);
    TopologyScene* scene = canvas.topologyScene();
    canvas.resize(1280, 720);
    canvas.setRunNodes(baseRunNodes(1000));
    ActivityFrame f;
    f.states.assign(1005, NodeState::Sending);
    for (int k = 0; k < 1000; ++k) f.messages.push_back({5 + k, 2, false, k / 1000.0, 100u + static_cast<unsigned>(k)});
    f.messages.push_back({1, 3, true, 0.25});
    f.messages.push_back({1, 3, true, 0.75});
    f.messages.push_back({5, 6, true, 0.5}); // between two members of a collapsed group: not drawn
    canvas.showFrame(f);
    QCOMPARE(scene->messagesShown(), 1002);
    MessageLayer* layer = scene->messageLayer();
    QCOMPARE(scene->messageMarksShown(), 3); // 1,000 updates as one tag, two models one by one
    const MessageLayer::Mark* many = nullptr;
    for (const auto& m : layer->marks())
        if (m.count > 1) many = &m;
    QVERIFY(many);
    QCOMPARE(many->count, 1000);
    QCOMPARE(many->modelDown, false);
    QCOMPARE(many->minProgress, 0.0);
    QCOMPARE(many->maxProgress, 0.999);
    QCOMPARE(many->progress, 0.5);
    // The tag runs between the two boxes' borders, not their centres.
    NodeItem* phones = scene->item("phones");
    NodeItem* edgeB = scene->item("edge-b");
    QVERIFY(!phones->boxRect().translated(phones->pos()).adjusted(1, 1, -1, -1).contains(many->from));
    QVERIFY(!edgeB->boxRect().translated(edgeB->pos()).adjusted(1, 1, -1, -1).contains(many->to));
    QVERIFY(canvas.runLegend()->isVisibleTo(&canvas));
    canvas.grab().save(QDir::temp().filePath("editor-messages.png"));

    // Unfolded, the members' updates still go along the group's line (drawn from its box):
    // one tag. The message between two members now has points to go between.
    phones->setExpanded(true);
    canvas.showFrame(f);
    QCOMPARE(scene->messagesShown(), 1003);
    QCOMPARE(scene->messageMarksShown(), 1 + 2 + 1);
    for (const auto& m : layer->marks())
        if (m.count == 1000) QVERIFY(!phones->boxRect().translated(phones->pos()).adjusted(1, 1, -1, -1).contains(m.from));
    // A node whose parent is a member: its messages go to that member's point.
    NodeSpec probe;
    probe.id = "probe";
    probe.tier = Tier::Device;
    probe.parent = "phones-3";
    doc.addNode(probe);
    std::vector<NodeInfo> nodes = baseRunNodes(1000);
    nodes.push_back(info("probe", "phones-3"));
    canvas.setRunNodes(nodes);
    ActivityFrame h;
    h.states.assign(1006, NodeState::Idle);
    h.messages = {{1005, 8, false, 0.0}};
    canvas.showFrame(h);
    QCOMPARE(scene->messageMarksShown(), 1);
    QVERIFY(phones->member(3));
    QVERIFY(phones->member(3)->sceneBoundingRect().adjusted(-1, -1, 1, 1).contains(layer->marks()[0].to));

    // Cut messages fade out: not counted as shown, fading meanwhile, gone when the run ends.
    ActivityFrame g;
    g.states.assign(1005, NodeState::Idle);
    for (int k = 0; k < 500; ++k) g.messages.push_back({5 + 600 + k % 400, 2, false, 0.4, 5000u + k, true});
    phones->setExpanded(false);
    canvas.showFrame(g);
    QCOMPARE(scene->messagesShown(), 0);
    QCOMPARE(layer->fading().size(), 1);
    QCOMPARE(layer->fading()[0].count, 500);
    QVERIFY(layer->fading()[0].cut);
    QVERIFY(layer->fading()[0].opacity > 0);
    canvas.grab(); // paints the fading tag
    QTRY_VERIFY_WITH_TIMEOUT(layer->fading().isEmpty(), 3000);
    canvas.showFrame(g);
    canvas.clearRunState();
    QVERIFY(layer->fading().isEmpty());
    QCOMPARE(scene->messagesShown(), 0);
    QVERIFY(!canvas.runLegend()->isVisibleTo(&canvas));
}

void TestEditor::groupCountsPerState() {
    Scenario sc = baseScenario();
    sc.topology.nodes[5].count = 1000;
    ScenarioDocument doc;
    doc.setScenario(sc);
    TopologyCanvas canvas(&doc);
    TopologyScene* scene = canvas.topologyScene();
    canvas.resize(1280, 720);
    canvas.setRunNodes(baseRunNodes(1000));
    ActivityFrame f;
    f.states.assign(1005, NodeState::Idle);
    f.states[3] = NodeState::Computing; // d1
    for (int k = 0; k < 1000; ++k)
        f.states[static_cast<std::size_t>(5 + k)] =
            k < 600 ? NodeState::Computing : k < 850 ? NodeState::Sending : k < 870 ? NodeState::Receiving
                                                     : k < 900 ? NodeState::Idle : NodeState::Offline;
    canvas.showFrame(f);
    NodeItem* phones = scene->item("phones");
    QVERIFY(phones->hasRunCounts());
    const auto& c = phones->runCounts();
    QCOMPARE(c[static_cast<std::size_t>(NodeState::Computing)], 600);
    QCOMPARE(c[static_cast<std::size_t>(NodeState::Sending)], 250);
    QCOMPARE(c[static_cast<std::size_t>(NodeState::Receiving)], 20);
    QCOMPARE(c[static_cast<std::size_t>(NodeState::Idle)], 30);
    QCOMPARE(c[static_cast<std::size_t>(NodeState::Offline)], 100);
    QVERIFY2(phones->toolTip().contains("computing 600 · sending 250 · receiving 20 · idle 30 · offline 100"),
             qPrintable(phones->toolTip()));
    QCOMPARE(scene->item("d1")->runState(), static_cast<int>(NodeState::Computing));
    QVERIFY(scene->item("d1")->toolTip().contains("computing"));
    canvas.zoomFit();
    canvas.grab().save(QDir::temp().filePath("editor-counts.png"));
    canvas.scale(0.2, 0.2); // far out: the counts become a bar
    canvas.grab();
    // Members move between states: the counts follow, and the run's end clears them.
    std::fill(f.states.begin() + 5, f.states.end(), NodeState::Idle);
    canvas.showFrame(f);
    QCOMPARE(phones->runCounts()[static_cast<std::size_t>(NodeState::Idle)], 1000);
    canvas.clearRunState();
    QVERIFY(!phones->hasRunCounts());
    QVERIFY(!phones->toolTip().contains("idle 1000"));
    QCOMPARE(scene->item("d1")->runState(), -1);
}

void TestEditor::linkUtilisationOnEdges() {
    Scenario sc = baseScenario();
    sc.topology.nodes[5].count = 1000;
    ScenarioDocument doc;
    doc.setScenario(sc);
    TopologyCanvas canvas(&doc);
    TopologyScene* scene = canvas.topologyScene();
    canvas.resize(1280, 720);
    canvas.setRunNodes(baseRunNodes(1000));
    // d1's up and down links, the explicit link edge-a -> edge-b, one up link per phone and
    // edge-b's interface.
    std::vector<LinkInfo> links{linkInfo(0, "up", 3, 1, 1e6), linkInfo(1, "down", 1, 3, 1e6),
                                linkInfo(2, "link", 1, 2, 4e6), linkInfo(3, "nic-in", 2, 2, 8e6)};
    for (int k = 0; k < 1000; ++k) links.push_back(linkInfo(4 + k, "up", 5 + k, 2, 1.25e5));
    canvas.setRunLinks(links);
    QVERIFY(canvas.runLegend()->showsLinks());
    NodeItem* d1 = scene->item("d1");
    EdgeItem* d1Edge = nullptr;
    for (EdgeItem* e : d1->edges())
        if (e->isParentLink() && e->from() == d1) d1Edge = e;
    QVERIFY(d1Edge);
    QCOMPARE(scene->edgeForRunLink(0), d1Edge);
    QCOMPARE(scene->edgeForRunLink(1), d1Edge);
    QCOMPARE(scene->edgeForRunLink(2), scene->linkItems().value(0));
    QVERIFY(!scene->edgeForRunLink(3));
    EdgeItem* phonesEdge = scene->edgeForRunLink(4);
    QVERIFY(phonesEdge && phonesEdge->from() == scene->item("phones"));
    QCOMPARE(scene->edgeForRunLink(1003), phonesEdge);

    ActivityFrame f;
    f.states.assign(1005, NodeState::Idle);
    f.links = {{0, 5e5, 1, 0.0}, {2, 4e6, 2, 0.0}, {3, 2e6, 10, 0.0}};
    for (int k = 0; k < 10; ++k) f.links.push_back({4 + k, 6.25e4, 1, 0.0});
    canvas.showFrame(f);
    QCOMPARE(scene->edgesInUse(), 3);
    QCOMPARE(d1Edge->usage(), 0.5);
    QVERIFY2(d1Edge->toolTip().contains("up d1 → edge-a: 4 Mbit/s of 8 Mbit/s (50%), 1 flows"), qPrintable(d1Edge->toolTip()));
    QVERIFY(d1Edge->toolTip().contains("down edge-a → d1: idle"));
    EdgeItem* explicitEdge = scene->linkItems().value(0);
    QCOMPARE(explicitEdge->usage(), 1.0);
    QVERIFY(explicitEdge->toolTip().startsWith("link edge-a – edge-b")); // its own tip kept
    QCOMPARE(phonesEdge->usage(), 0.5);
    QVERIFY2(phonesEdge->toolTip().contains("10 links of 1000 busy, 5 Mbit/s in all, 10 flows; busiest 50% of 1 Mbit/s"),
             qPrintable(phonesEdge->toolTip()));
    QVERIFY2(scene->item("edge-b")->toolTip().contains("(25%), 10 flows"), qPrintable(scene->item("edge-b")->toolTip()));
    QVERIFY(EdgeItem::usageColor(1.0) != EdgeItem::usageColor(0.0));
    QVERIFY(EdgeItem::usageColor(2.0) == EdgeItem::usageColor(1.0));
    canvas.zoomFit();
    canvas.grab().save(QDir::temp().filePath("editor-links.png"));

    // The next frame: only the explicit link is busy; the others go back to plain lines.
    f.links = {{2, 1e6, 1, 1.0}};
    canvas.showFrame(f);
    QCOMPARE(scene->edgesInUse(), 1);
    QCOMPARE(d1Edge->usage(), -1.0);
    QVERIFY(!d1Edge->toolTip().contains("d1 → edge-a"));
    QCOMPARE(explicitEdge->usage(), 0.25);
    QVERIFY(!scene->item("edge-b")->toolTip().contains("flows"));
    // A rebuild makes new edges: the links find them again.
    scene->rebuild();
    f.links = {{0, 1e6, 1, 2.0}};
    canvas.showFrame(f);
    d1Edge = scene->edgeForRunLink(0);
    QVERIFY(d1Edge);
    QCOMPARE(d1Edge->usage(), 1.0);
    // Spans for links the run does not have are ignored; the run's end clears everything.
    f.links = {{0, 1e6, 1, 2.0}, {5000, 1.0, 1, 0.0}, {-2, 1.0, 1, 0.0}};
    canvas.showFrame(f);
    canvas.clearRunState();
    QCOMPARE(d1Edge->usage(), -1.0);
    QCOMPARE(scene->edgesInUse(), 0);
}

void TestEditor::relayRole() {
    Scenario sc = baseScenario();
    sc.topology.nodes[2].role = Role::Relay; // edge-b forwards for its phones
    ScenarioDocument doc;
    doc.setScenario(sc);
    TopologyCanvas canvas(&doc);
    NodeItem* relay = canvas.topologyScene()->item("edge-b");
    QCOMPARE(relay->role(), Role::Relay);
    QVERIFY2(relay->toolTip().contains("relay"), qPrintable(relay->toolTip()));
    canvas.resize(800, 500);
    canvas.zoomFit();
    canvas.grab().save(QDir::temp().filePath("editor-relay.png"));
    // The inspector offers the role, and choosing it is one undoable edit.
    PropertyInspector inspector(&doc);
    inspector.setSelection({"edge-a"}, {});
    auto* role = qobject_cast<QComboBox*>(inspector.editor("role"));
    QVERIFY(role);
    QVERIFY(role->findText("relay") >= 0);
    role->setCurrentIndex(role->findText("relay"));
    Q_EMIT role->activated(role->currentIndex());
    QCOMPARE(doc.scenario().topology.nodes[1].role, Role::Relay);
    QCOMPARE(canvas.topologyScene()->item("edge-a")->role(), Role::Relay);
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().topology.nodes[1].role, Role::Aggregator);
}

void TestEditor::liveRunDrawsBothWays() {
    // A real (timing-only) run through the run controller: 1 s transfers each way and 2.5 s
    // of computing, played at 10 s per second; the canvas sees models going down and
    // updates going up, and the group counting its members receiving, computing and sending.
    const Scenario s = loadScenarioText(R"(
schema_version: 1
name: both ways
seed: 3
topology:
  nodes:
    - {id: ps, tier: cloud, role: aggregator}
  groups:
    - id: dev
      count: 4
      tier: device
      role: trainer
      parent: ps
      compute: {throughput: 20}
      link: {bandwidth_up_mbps: 8, bandwidth_down_mbps: 8, latency_ms: 0}
data: {dataset: none, samples_per_trainer: 100}
model: {kind: none, wire_bytes: 1000000}
training: {batch_size: 10, local_steps: 5}
sync: {policy: fully-sync}
stop: {rounds: 3}
)");
    ScenarioDocument doc;
    doc.setScenario(s);
    TopologyCanvas canvas(&doc);
    canvas.resize(800, 500);
    QTemporaryDir dir;
    RunController c;
    c.setPlaybackSpeed(10);
    connect(&c, &RunController::started, &canvas, [&](const RunInfo& i) { canvas.setRunNodes(i.nodes); });
    int down = 0, up = 0;
    std::set<NodeState> groupStates;
    connect(&c, &RunController::activity, &canvas, [&](const ActivityFrame& f) {
        canvas.showFrame(f);
        for (const auto& m : canvas.topologyScene()->messageLayer()->marks()) (m.modelDown ? down : up) += m.count;
        const auto& counts = canvas.topologyScene()->item("dev")->runCounts();
        for (int k = 0; k < 5; ++k)
            if (counts[static_cast<std::size_t>(k)] > 0) groupStates.insert(static_cast<NodeState>(k));
    });
    QSignalSpy finished(&c, &RunController::finished);
    QVERIFY(c.start(s, dir.filePath("runs.db"), 1));
    QVERIFY(finished.wait(30000));
    QVERIFY2(down > 0 && up > 0, qPrintable(QString("%1 down, %2 up").arg(down).arg(up)));
    QVERIFY(groupStates.count(NodeState::Receiving));
    QVERIFY(groupStates.count(NodeState::Computing));
    QVERIFY(groupStates.count(NodeState::Sending));
}

void TestEditor::tenThousandDevicesStayResponsive() {
    // edge-1000-devices with 1,000 phones per site (10,000 devices), all selected, timing
    // only, played at a teaching speed (a frame every 33 ms) on a shown canvas for 5 s.
    Scenario s = loadScenarioFile(FOG_SOURCE_DIR "/presets/edge-1000-devices.yaml",
                                  {parseOverride("data={dataset: none, samples_per_trainer: 60}"),
                                   parseOverride("model={kind: none, wire_bytes: 636040}")});
    for (auto& n : s.topology.nodes)
        if (n.id == "phone") n.count = 1000;
    // Every online phone of a site takes part: thousands of messages in flight at once.
    s.selection.params["k"] = 1000;
    s.stop.rounds = 1000000;
    ScenarioDocument doc;
    doc.setScenario(s);
    TopologyCanvas canvas(&doc);
    canvas.resize(1280, 720);
    canvas.show();
    canvas.zoomFit();
    QTemporaryDir dir;
    RunController c;
    c.setPlaybackSpeed(20);
    connect(&c, &RunController::started, &canvas, [&](const RunInfo& i) {
        canvas.setRunNodes(i.nodes);
        canvas.setRunLinks(i.links);
    });
    int frames = 0, maxMessages = 0, maxTags = 0;
    qint64 frameNs = 0, maxFrameNs = 0;
    connect(&c, &RunController::activity, &canvas, [&](const ActivityFrame& f) {
        QCOMPARE(static_cast<int>(f.states.size()), 10011);
        QElapsedTimer t;
        t.start();
        canvas.showFrame(f);
        const qint64 ns = t.nsecsElapsed();
        frameNs += ns;
        maxFrameNs = std::max(maxFrameNs, ns);
        maxMessages = std::max(maxMessages, canvas.topologyScene()->messagesShown());
        maxTags = std::max(maxTags, canvas.topologyScene()->messageMarksShown());
        ++frames;
    });
    QSignalSpy finished(&c, &RunController::finished);
    EventLoopProbe probe;
    QVERIFY(c.start(s, dir.filePath("runs.db"), 1));
    probe.start();
    QTest::qWait(5000);
    QElapsedTimer paint;
    paint.start();
    canvas.grab();
    const qint64 paintMs = paint.elapsed();
    c.stop();
    QVERIFY(finished.wait(20000));
    probe.stop();
    qInfo("benchmark, 10,000 devices at 20 s per second for 5 s: %d frames, showFrame mean %.2f ms, max %.2f ms, "
          "up to %d messages and %d tags in a frame, one full paint %lld ms; %s",
          frames, frames ? frameNs / 1e6 / frames : 0.0, maxFrameNs / 1e6, maxMessages, maxTags,
          static_cast<long long>(paintMs), qPrintable(probe.report()));
    QVERIFY(frames > 10);
    QVERIFY(maxMessages > 0);
    // As the run view's 1,000-node test: no handler may hold the window for long.
    QVERIFY2(probe.maxBlockedMs() <= fogtest::kGuiBlockedMs, qPrintable(probe.report()));
}

QTEST_MAIN(TestEditor)
namespace {

/// Types `text` into an inspector line edit and finishes the edit (as Enter or leaving does).
void typeInto(QLineEdit* edit, const QString& text) {
    edit->setText(text);
    edit->setModified(true);
    Q_EMIT edit->editingFinished();
}

void choose(QComboBox* combo, int index) {
    combo->setCurrentIndex(index);
    Q_EMIT combo->activated(index);
}

} // namespace

/// With FOG_SHOT_DIR set (a visual check under xvfb-run, not an assertion): saves `w`, at
/// 1280x720, as <dir>/<name>-light.png, then with a dark palette as <dir>/<name>-dark.png.
void shotLightAndDark(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("FOG_SHOT_DIR");
    if (dir.isEmpty()) return;
    w->resize(1280, 720);
    w->show();
    QTest::qWait(200);
    w->grab().save(dir + "/" + name + "-light.png");
    const QPalette light = QApplication::palette();
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x30));
    dark.setColor(QPalette::WindowText, QColor(0xdf, 0xe1, 0xe5));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1f, 0x22));
    dark.setColor(QPalette::AlternateBase, QColor(0x2b, 0x2d, 0x30));
    dark.setColor(QPalette::Text, QColor(0xdf, 0xe1, 0xe5));
    dark.setColor(QPalette::Button, QColor(0x3c, 0x3f, 0x41));
    dark.setColor(QPalette::ButtonText, QColor(0xdf, 0xe1, 0xe5));
    dark.setColor(QPalette::ToolTipBase, QColor(0x3c, 0x3f, 0x41));
    dark.setColor(QPalette::ToolTipText, QColor(0xdf, 0xe1, 0xe5));
    dark.setColor(QPalette::Highlight, QColor(0x35, 0x74, 0xf0));
    dark.setColor(QPalette::HighlightedText, Qt::white);
    dark.setColor(QPalette::Mid, QColor(0x55, 0x58, 0x5c));
    dark.setColor(QPalette::PlaceholderText, QColor(0x8c, 0x8f, 0x94));
    QApplication::setPalette(dark);
    QTest::qWait(200);
    w->grab().save(dir + "/" + name + "-dark.png");
    QApplication::setPalette(light);
    QTest::qWait(50);
}

void TestEditor::inspectorEditsNetworkKeys() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    PropertyInspector inspector(&doc);
    inspector.setSelection({"phones"}, {});
    for (const char* key : {"nic_mbps", "link_sharing", "billing", "energy.per_byte_forwarded_j"})
        QVERIFY2(inspector.isFieldVisible(key), key);
    QVERIFY(!inspector.isFieldVisible("invocation_fee_usd")); // only with serverless billing

    // nic_mbps: empty is unlimited (the schema's unset value), a number caps the interface.
    auto* nic = qobject_cast<QLineEdit*>(inspector.editor("nic_mbps"));
    QVERIFY(nic);
    QCOMPARE(nic->text(), QString());
    QCOMPARE(nic->placeholderText(), QString("unlimited"));
    const int steps = doc.undoStack()->count();
    typeInto(nic, "500");
    QCOMPARE(node(doc, "phones").nicMbps, 500.0);
    QCOMPARE(nic->text(), QString("500"));
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    doc.undoStack()->undo();
    QCOMPARE(node(doc, "phones").nicMbps, 0.0);
    QCOMPARE(nic->text(), QString());
    doc.undoStack()->redo();
    QCOMPARE(nic->text(), QString("500"));
    inspector.setSelection({"phones"}, {}); // the next edit is a step of its own
    typeInto(nic, "");
    QCOMPARE(node(doc, "phones").nicMbps, 0.0); // back to unlimited
    QCOMPARE(nic->text(), QString());
    QCOMPARE(doc.undoStack()->count(), steps + 2);
    // 0 written out is refused with the loader's words, as are negative values.
    typeInto(nic, "0");
    QCOMPARE(node(doc, "phones").nicMbps, 0.0);
    QVERIFY2(inspector.message("nic_mbps").contains("must be > 0, got 0 (absent: unlimited)"),
             qPrintable(inspector.message("nic_mbps")));
    typeInto(nic, "-3");
    QVERIFY2(inspector.message("nic_mbps").contains("must be > 0, got -3"), qPrintable(inspector.message("nic_mbps")));
    typeInto(nic, "fast");
    QVERIFY2(inspector.message("nic_mbps").contains("must be a number, got 'fast'"),
             qPrintable(inspector.message("nic_mbps")));
    QCOMPARE(node(doc, "phones").nicMbps, 0.0);
    doc.undoStack()->undo(); // the clearing
    QCOMPARE(node(doc, "phones").nicMbps, 500.0);
    QCOMPARE(nic->text(), QString("500"));
    doc.undoStack()->undo();
    QCOMPARE(node(doc, "phones").nicMbps, 0.0);
    QVERIFY(inspector.message("nic_mbps").isEmpty());

    // link_sharing: absent (the scenario's default, named), shared or private; groups only.
    auto* sharing = qobject_cast<QComboBox*>(inspector.editor("link_sharing"));
    QVERIFY(sharing);
    QCOMPARE(sharing->currentIndex(), 0);
    QVERIFY2(sharing->currentText().contains("shared"), qPrintable(sharing->currentText()));
    choose(sharing, sharing->findText("shared"));
    QVERIFY(node(doc, "phones").linkSharing == LinkSharing::Shared); // said explicitly
    choose(sharing, sharing->findText("private"));
    QVERIFY(node(doc, "phones").linkSharing == LinkSharing::Private);
    doc.undoStack()->undo(); // typed in a row: one step
    QVERIFY(!node(doc, "phones").linkSharing);
    QCOMPARE(sharing->currentIndex(), 0);
    doc.undoStack()->redo();
    QVERIFY(node(doc, "phones").linkSharing == LinkSharing::Private);
    QCOMPARE(sharing->currentText(), QString("private"));
    inspector.setSelection({"phones"}, {});
    choose(sharing, 0);
    QVERIFY(!node(doc, "phones").linkSharing);
    doc.undoStack()->undo();
    QVERIFY(node(doc, "phones").linkSharing == LinkSharing::Private);
    doc.undoStack()->undo();
    QVERIFY(!node(doc, "phones").linkSharing);
    // The scenario default follows topology.link_sharing.
    doc.edit("private default", [](Scenario& s) { s.topology.linkSharing = LinkSharing::Private; });
    QVERIFY2(sharing->itemText(0).contains("private"), qPrintable(sharing->itemText(0)));
    // A plain node has no link_sharing (the loader refuses it there); nic_mbps it has.
    inspector.setSelection({"edge-b"}, {});
    QVERIFY(!inspector.isFieldVisible("link_sharing"));
    QVERIFY(inspector.isFieldVisible("nic_mbps"));
    // A node and a group selected: link_sharing applies to the group only, in one step.
    inspector.setSelection({"edge-b", "phones"}, {});
    QVERIFY(inspector.isFieldVisible("link_sharing"));
    const int before = doc.undoStack()->count();
    choose(sharing, sharing->findText("private"));
    QVERIFY(node(doc, "phones").linkSharing == LinkSharing::Private);
    QVERIFY(!node(doc, "edge-b").linkSharing);
    QCOMPARE(doc.undoStack()->count(), before + 1);
    QVERIFY2(errorsOf(doc.scenario()).isEmpty(), qPrintable(errorsOf(doc.scenario())));
    // Saved and read back: the keys the inspector set are in the file.
    typeInto(nic, "250");
    const Scenario back = loadScenarioText(saveScenarioText(doc.scenario()));
    QCOMPARE(back.topology.nodes[static_cast<std::size_t>(nodeIndex(back, "phones"))].nicMbps, 250.0);
    QVERIFY(back.topology.nodes[static_cast<std::size_t>(nodeIndex(back, "phones"))].linkSharing ==
            LinkSharing::Private);
}

void TestEditor::inspectorBillingAndForwardingEnergy() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    PropertyInspector inspector(&doc);
    inspector.setSelection({"d1"}, {});
    auto* billing = qobject_cast<QComboBox*>(inspector.editor("billing"));
    QVERIFY(billing);
    QCOMPARE(billing->currentText(), QString("held"));
    QVERIFY(!inspector.isFieldVisible("invocation_fee_usd"));
    choose(billing, billing->findText("serverless"));
    QVERIFY(node(doc, "d1").billing == Billing::Serverless);
    QVERIFY(inspector.isFieldVisible("invocation_fee_usd")); // shown with serverless only
    auto* fee = qobject_cast<QLineEdit*>(inspector.editor("invocation_fee_usd"));
    QVERIFY(fee);
    typeInto(fee, "-1");
    QVERIFY2(inspector.message("invocation_fee_usd").contains("must be in [0, 1000000], got -1"),
             qPrintable(inspector.message("invocation_fee_usd")));
    QCOMPARE(node(doc, "d1").invocationFeeUsd, 0.0);
    typeInto(fee, "0.0002");
    QCOMPARE(node(doc, "d1").invocationFeeUsd, 0.0002);
    QVERIFY(inspector.message("invocation_fee_usd").isEmpty());
    doc.undoStack()->undo();
    QCOMPARE(node(doc, "d1").invocationFeeUsd, 0.0);
    doc.undoStack()->undo();
    QVERIFY(node(doc, "d1").billing == Billing::Held);
    QVERIFY(!inspector.isFieldVisible("invocation_fee_usd"));

    auto* fwd = qobject_cast<QLineEdit*>(inspector.editor("energy.per_byte_forwarded_j"));
    QVERIFY(fwd);
    QCOMPARE(fwd->text(), QString("0"));
    QVERIFY(!fwd->toolTip().isEmpty()); // the schema's help
    typeInto(fwd, "-2e-8");
    QVERIFY2(inspector.message("energy.per_byte_forwarded_j").contains("must be >= 0, got -2"),
             qPrintable(inspector.message("energy.per_byte_forwarded_j")));
    typeInto(fwd, "2e-8");
    QCOMPARE(node(doc, "d1").energy.perByteForwardedJ, 2e-8);
    doc.undoStack()->undo();
    QCOMPARE(node(doc, "d1").energy.perByteForwardedJ, 0.0);
    QCOMPARE(fwd->text(), QString("0"));
}

void TestEditor::settingsPanelEditsNetworkKeys() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    SettingsPanel panel;
    panel.setDocument(&doc);
    auto* contention = qobject_cast<QCheckBox*>(panel.editorFor("topology.contention"));
    auto* sharing = qobject_cast<QComboBox*>(panel.editorFor("topology.link_sharing"));
    QVERIFY(contention && sharing);
    QVERIFY(contention->isChecked());
    QCOMPARE(sharing->currentText(), QString("shared"));
    contention->setChecked(false);
    QVERIFY(!doc.scenario().topology.contention);
    sharing->setCurrentIndex(sharing->findText("private"));
    QVERIFY(doc.scenario().topology.linkSharing == LinkSharing::Private);
    doc.undoStack()->undo();
    QVERIFY(doc.scenario().topology.linkSharing == LinkSharing::Shared);
    QCOMPARE(sharing->currentText(), QString("shared"));
    doc.undoStack()->undo();
    QVERIFY(doc.scenario().topology.contention);
    QVERIFY(contention->isChecked());
}

void TestEditor::paletteRelayInsertsIntoParentChain() {
    ScenarioDocument doc;
    doc.setScenario(baseScenario());
    doc.autoLayout();
    TopologyCanvas canvas(&doc);
    canvas.resize(900, 600);
    canvas.show();
    QVERIFY(QTest::qWaitForWindowExposed(&canvas));
    canvas.zoomFit();
    TopologyScene* scene = canvas.topologyScene();

    NodePalette palette;
    QListWidget* list = palette.list();
    QCOMPARE(list->count(), 5);
    QCOMPARE(list->item(4)->text(), QString("Relay"));
    QVERIFY(!list->item(4)->icon().isNull());
    const NodeSpec t = nodeFromTemplate(NodeTemplate::Relay);
    QVERIFY(t.role == Role::Relay && t.tier == Tier::Edge);
    std::unique_ptr<QMimeData> mime(list->model()->mimeData({list->model()->index(4, 0)}));
    QVERIFY(mime && mime->hasFormat(kNodeTemplateMime));

    // Dropped on the line between the phones and edge-b: edge-b <- relay <- phones.
    const QPointF mid = (scene->item("phones")->pos() + scene->item("edge-b")->pos()) / 2;
    for (QGraphicsItem* g : scene->items(mid)) QVERIFY(g->type() != NodeItem::Type); // on the line only
    const int steps = doc.undoStack()->count();
    sendDrop(canvas, mid, mime.get());
    QCOMPARE(doc.undoStack()->count(), steps + 1); // one undo step
    const NodeSpec& relay = doc.scenario().topology.nodes.back();
    QCOMPARE(relay.id, std::string("relay"));
    QCOMPARE(relay.parent, std::string("edge-b"));
    QCOMPARE(node(doc, "phones").parent, std::string("relay"));
    QVERIFY2(errorsOf(doc.scenario()).isEmpty(), qPrintable(errorsOf(doc.scenario())));
    QCOMPARE(scene->item("relay")->role(), Role::Relay);
    doc.undoStack()->undo();
    QCOMPARE(node(doc, "phones").parent, std::string("edge-b"));
    QVERIFY(!doc.find("relay").valid());
    doc.undoStack()->redo();
    QCOMPARE(node(doc, "phones").parent, std::string("relay"));

    // Dropped on an aggregator, it hangs below it (then reports problems until something
    // reports to it, as the loader would).
    sendDrop(canvas, scene->item("edge-a")->pos(), mime.get());
    const NodeSpec& second = doc.scenario().topology.nodes.back();
    QCOMPARE(second.parent, std::string("edge-a"));
    QVERIFY(errorsOf(doc.scenario()).contains("nothing reports to it"));
    // Its inspector: relay role, nic and forwarding energy editable.
    PropertyInspector inspector(&doc);
    inspector.setSelection({QString::fromStdString(second.id)}, {});
    QCOMPARE(qobject_cast<QComboBox*>(inspector.editor("role"))->currentText(), QString("relay"));
    QVERIFY(inspector.isFieldVisible("energy.per_byte_forwarded_j"));
    QVERIFY(inspector.generalMessage().contains("nothing reports to it") ||
            inspector.message("role").contains("nothing reports to it"));

    // The visual check: palette, canvas with the relay, inspector on the group.
    if (!qEnvironmentVariableIsSet("FOG_SHOT_DIR")) return;
    doc.undoStack()->undo(); // the second relay
    doc.changeEntities({"phones"}, [](NodeSpec& g) {
        g.nicMbps = 100;
        g.linkSharing = LinkSharing::Private;
        g.billing = Billing::Serverless;
        g.invocationFeeUsd = 2e-7;
    }, "shot");
    QWidget window;
    auto* row = new QHBoxLayout(&window);
    auto* pal = new NodePalette;
    pal->setMaximumWidth(200);
    auto* view = new TopologyCanvas(&doc);
    auto* insp = new PropertyInspector(&doc);
    insp->setMinimumWidth(360);
    insp->setMaximumWidth(380);
    row->addWidget(pal);
    row->addWidget(view, 1);
    row->addWidget(insp);
    insp->setSelection({"phones"}, {});
    window.resize(1280, 720);
    window.show();
    QTest::qWait(100);
    view->zoomFit();
    shotLightAndDark(&window, "editor-network-keys");
}

#include "test_editor.moc"
