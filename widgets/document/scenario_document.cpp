#include "widgets/document/scenario_document.h"

#include "core/scenario/layout.h"
#include "core/scenario/schema.h"
#include "widgets/document/document_commands.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QUndoStack>

#include <algorithm>
#include <map>
#include <set>
#include <type_traits>

namespace fog {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
std::string ss(const QString& s) {
    return s.toStdString();
}

bool aggregatesRole(Role r) {
    return roleAggregates(r);
}

// Field-by-field equality of specs through the schema (every key of the table and its custom
// parts; source lines do not count): an edit that sets what is already there is dropped.
// Cheap, since a drag or a layout compares hundreds of them.
bool sameSpec(const NodeSpec& a, const NodeSpec& b) {
    return sameNodeSpec(a, b);
}
bool sameSpec(const LinkSpec& a, const LinkSpec& b) {
    return sameLinkSpec(a, b);
}

/// `<group>-<i>-..-<k>` split into the group id and the last `levels` indices; false when
/// `id` has no such shape.
bool splitMember(const std::string& id, int levels, std::string& group, std::vector<int>& k) {
    std::string rest = id;
    k.assign(static_cast<std::size_t>(std::max(levels, 0)), 0);
    for (int level = levels - 1; level >= 0; --level) {
        const auto dash = rest.rfind('-');
        if (dash == std::string::npos || dash == 0 || dash + 1 >= rest.size()) return false;
        const std::string digits = rest.substr(dash + 1);
        if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
            return false;
        k[static_cast<std::size_t>(level)] = std::stoi(digits);
        rest = rest.substr(0, dash);
    }
    group = rest;
    return levels > 0;
}

/// The indices as an id suffix: "-3-42".
std::string suffixOf(const std::vector<int>& k) {
    std::string out;
    for (int i : k)
        out += "-" + std::to_string(i);
    return out;
}

} // namespace

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
    QObject::connect(undo_, &QUndoStack::cleanChanged, this,
                     [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
}

ScenarioDocument::~ScenarioDocument() = default;

// --- file and state --------------------------------------------------------------------------

bool ScenarioDocument::load(const QString& path, QString* error) {
    // Through QFile, so that the presets compiled into the application (":/presets/...")
    // open like files on disk.
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error) *error = tr("%1: cannot open scenario file: %2").arg(path, file.errorString());
        return false;
    }
    try {
        // A file on disk resolves its relative paths (data, trace files) against its folder.
        Scenario s = path.startsWith(QLatin1String(":/")) ? loadScenarioText(file.readAll().toStdString(), ss(path))
                                                          : loadScenarioFile(ss(path));
        s.sourcePath = ss(path);
        setScenario(s);
        setFilePath(path);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool ScenarioDocument::open(const QString& path, QString* error) {
    try {
        // Files on disk go through the core's reader (regular files only, data paths relative
        // to the file's folder); compiled-in resources (":/...") are read through Qt.
        LenientScenario read;
        if (path.startsWith(QLatin1String(":/"))) {
            QFile file(path);
            if (!file.open(QIODevice::ReadOnly)) {
                if (error) *error = tr("%1: cannot open scenario file: %2").arg(path, file.errorString());
                return false;
            }
            read = readScenarioTextLenient(file.readAll().toStdString(), ss(path));
        } else {
            read = readScenarioFileLenient(ss(path));
        }
        read.scenario.sourcePath = ss(path);
        nextReadProblems_ = read.readProblems;
        for (auto& d : nextReadProblems_) d.message += " (a default stands in until the file is saved)";
        setScenario(read.scenario);
        setFilePath(path);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool ScenarioDocument::save(QString* error) {
    if (filePath_.isEmpty()) {
        if (error) *error = tr("the scenario has no file name yet: use Save As");
        return false;
    }
    return saveAs(filePath_, error);
}

bool ScenarioDocument::saveAs(const QString& path, QString* error) {
    try {
        saveScenarioFile(scenario_, ss(path));
    } catch (const std::exception& e) {
        if (error) *error = tr("%1: cannot save: %2").arg(path, QString::fromStdString(e.what()));
        return false;
    }
    scenario_.sourcePath = ss(path);
    setFilePath(path);
    undo_->setClean();
    if (!readProblems_.empty()) {
        // Saved: the stand-in defaults are now the file's values.
        readProblems_.clear();
        Q_EMIT scenarioChanged();
    }
    return true;
}

void ScenarioDocument::setFilePath(const QString& path) {
    if (path == filePath_) return;
    filePath_ = path;
    Q_EMIT filePathChanged(path);
}

void ScenarioDocument::setScenario(const Scenario& s) {
    const bool wasModified = isModified();
    scenario_ = s;
    readProblems_ = std::move(nextReadProblems_);
    nextReadProblems_.clear();
    undo_->clear(); // clear() also makes the stack clean
    Q_EMIT topologyReset();
    Q_EMIT scenarioChanged();
    if (wasModified) Q_EMIT modifiedChanged(false);
}

bool ScenarioDocument::isModified() const {
    return !undo_->isClean();
}

std::vector<Diagnostic> ScenarioDocument::diagnostics() const {
    std::vector<Diagnostic> all = readProblems_;
    for (auto& d : validateScenario(scenario_)) all.push_back(std::move(d));
    return all;
}

// --- look-up ---------------------------------------------------------------------------------

EntityRef ScenarioDocument::find(const QString& id) const {
    return {scenario_.topology.find(ss(id))};
}

int ScenarioDocument::memberDepth(EntityRef e) const {
    const auto& t = scenario_.topology;
    if (!e.valid() || !t.nodes[static_cast<std::size_t>(e.index)].group) return 0;
    int depth = 1;
    const int limit = static_cast<int>(t.nodes.size());
    for (int p = t.nestedParent(static_cast<std::size_t>(e.index)); p >= 0 && depth <= limit;
         p = t.nestedParent(static_cast<std::size_t>(p)))
        ++depth;
    return depth;
}

EntityRef ScenarioDocument::resolve(const QString& id) const {
    if (const EntityRef e = find(id); e.valid()) return e; // a node, or a group by its own id
    const std::string key = ss(id);
    const auto& t = scenario_.topology;
    // Strip trailing indices one at a time: "phone-3-42" may be group "phone-3" member 42 or
    // nested group "phone" member 3-42.
    std::string rest = key;
    for (int levels = 1;; ++levels) {
        const auto dash = rest.rfind('-');
        if (dash == std::string::npos || dash == 0) break;
        const std::string digits = rest.substr(dash + 1);
        if (digits.empty() || digits.size() > 9 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
            break;
        rest = rest.substr(0, dash);
        const EntityRef g = find(qs(rest));
        if (!g.valid() || !isGroup(g)) continue;
        if (memberDepth(g) != levels) continue;
        std::string group;
        std::vector<int> k;
        if (splitMember(key, levels, group, k) &&
            k.back() < t.nodes[static_cast<std::size_t>(g.index)].count)
            return g;
    }
    return {};
}

EntityRef ScenarioDocument::atKeyPath(const QString& path) const {
    static const QRegularExpression re(QStringLiteral("^topology\\.(nodes|groups)\\[(\\d+)\\]"));
    const auto m = re.match(path);
    if (!m.hasMatch()) return {};
    const bool group = m.captured(1) == QLatin1String("groups");
    int k = m.captured(2).toInt();
    const auto& t = scenario_.topology;
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
        if (t.nodes[i].group == group && k-- == 0) return {static_cast<int>(i)};
    return {};
}

bool ScenarioDocument::isGroup(EntityRef e) const {
    return e.valid() && scenario_.topology.nodes[static_cast<std::size_t>(e.index)].group;
}

QString ScenarioDocument::idOf(EntityRef e) const {
    if (!e.valid()) return {};
    return qs(scenario_.topology.nodes[static_cast<std::size_t>(e.index)].id);
}

QString ScenarioDocument::keyPath(EntityRef e) const {
    return qs(scenario_.topology.pathOf(static_cast<std::size_t>(e.index)));
}

Tier ScenarioDocument::tierOf(EntityRef e) const {
    return scenario_.topology.nodes[static_cast<std::size_t>(e.index)].tier;
}
Role ScenarioDocument::roleOf(EntityRef e) const {
    return scenario_.topology.nodes[static_cast<std::size_t>(e.index)].role;
}
QString ScenarioDocument::parentOf(EntityRef e) const {
    return qs(scenario_.topology.nodes[static_cast<std::size_t>(e.index)].parent);
}
bool ScenarioDocument::hasPositionOf(EntityRef e) const {
    return scenario_.topology.nodes[static_cast<std::size_t>(e.index)].hasPosition;
}
QPointF ScenarioDocument::positionOf(EntityRef e) const {
    const NodeSpec& n = scenario_.topology.nodes[static_cast<std::size_t>(e.index)];
    return {n.x, n.y};
}

QString ScenarioDocument::nodeIdFor(EntityRef e) const {
    QString id = idOf(e);
    for (int level = memberDepth(e); level > 0; --level)
        id += QStringLiteral("-0");
    return id;
}

QString ScenarioDocument::uniqueId(const QString& base, const QStringList& alsoTaken) const {
    auto taken = [&](const QString& id) {
        return find(id).valid() || resolve(id).valid() || alsoTaken.contains(id);
    };
    QString stem = base.isEmpty() ? QStringLiteral("node") : base;
    if (!taken(stem)) return stem;
    // "edge3" -> stem "edge", so copies count on rather than growing "edge31".
    while (!stem.isEmpty() && stem.back().isDigit())
        stem.chop(1);
    if (stem.isEmpty()) stem = QStringLiteral("node");
    for (int i = 1;; ++i) {
        const QString id = stem + QString::number(i);
        if (!taken(id)) return id;
    }
}

bool ScenarioDocument::isAncestor(EntityRef ancestor, EntityRef e) const {
    const int limit = static_cast<int>(scenario_.topology.nodes.size());
    for (int steps = 0; e.valid() && steps <= limit; ++steps) {
        if (e == ancestor) return true;
        // A nested group's parent is a group's own id; others name a node or a member.
        const int nested = scenario_.topology.nestedParent(static_cast<std::size_t>(e.index));
        e = nested >= 0 ? EntityRef{nested} : resolve(parentOf(e));
    }
    return false;
}

int ScenarioDocument::linkBetween(const QString& a, const QString& b) const {
    const auto& links = scenario_.topology.links;
    for (std::size_t i = 0; i < links.size(); ++i) {
        const QString f = qs(links[i].from), t = qs(links[i].to);
        if ((f == a && t == b) || (f == b && t == a)) return static_cast<int>(i);
    }
    return -1;
}

EntityRef ScenarioDocument::require(const QString& id) const {
    const EntityRef e = find(id);
    if (!e.valid()) qWarning("ScenarioDocument: no node or group '%s'", qPrintable(id));
    return e;
}

// --- topology edits --------------------------------------------------------------------------

QString ScenarioDocument::addNode(NodeSpec n) {
    n.id = ss(uniqueId(qs(n.id)));
    const EntityRef ref{static_cast<int>(scenario_.topology.nodes.size())};
    const QString id = qs(n.id);
    undo_->push(EntityPresenceCommand::insert(this, ref, std::move(n)));
    return id;
}

void ScenarioDocument::pushChange(NodeEdits nodes, LinkEdits links, const QString& text,
                                  int mergeId) {
    // Setting what is already there is no edit: no undo step, no dirty document.
    const auto& t = scenario_.topology;
    auto unchanged = [](const auto& current) {
        return [&current](const auto& e) {
            const auto& now = current[static_cast<std::size_t>(e.first)];
            return sameSpec(now, e.second);
        };
    };
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(), unchanged(t.nodes)), nodes.end());
    links.erase(std::remove_if(links.begin(), links.end(), unchanged(t.links)), links.end());
    if (nodes.empty() && links.empty()) return;
    auto byIndex = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::sort(nodes.begin(), nodes.end(), byIndex);
    std::sort(links.begin(), links.end(), byIndex);
    undo_->push(new ChangeItemsCommand(this, text, mergeId, std::move(nodes), std::move(links)));
}

void ScenarioDocument::collectRename(EntityRef e, const QString& newId, NodeEdits& nodes,
                                     LinkEdits& links) const {
    const std::string oldId = ss(idOf(e));
    const std::string to = ss(newId);
    const int depth = memberDepth(e);
    // A reference names the node itself, or for a group one of its members; a nested
    // group's parent names the group itself.
    auto renamed = [&](const std::string& ref, std::string& out) {
        if (depth == 0) {
            if (ref != oldId) return false;
            out = to;
            return true;
        }
        std::string g;
        std::vector<int> k;
        if (!splitMember(ref, depth, g, k) || g != oldId) return false;
        out = to + suffixOf(k);
        return true;
    };
    auto edited = [](auto& edits, int index, const auto& current) -> auto& {
        for (auto& x : edits)
            if (x.first == index) return x.second;
        edits.emplace_back(index, current);
        return edits.back().second;
    };
    const auto& t = scenario_.topology;
    std::string out;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        if (renamed(t.nodes[i].parent, out))
            edited(nodes, static_cast<int>(i), t.nodes[i]).parent = out;
        else if (depth > 0 && t.nodes[i].group && t.nodes[i].parent == oldId)
            edited(nodes, static_cast<int>(i), t.nodes[i]).parent = to;
    }
    for (std::size_t i = 0; i < t.links.size(); ++i) {
        if (renamed(t.links[i].from, out))
            edited(links, static_cast<int>(i), t.links[i]).from = out;
        if (renamed(t.links[i].to, out)) edited(links, static_cast<int>(i), t.links[i]).to = out;
    }
}

void ScenarioDocument::setNode(const QString& id, const NodeSpec& value, int mergeId) {
    const EntityRef e = require(id);
    if (!e.valid()) return;
    NodeEdits nodes{{e.index, value}};
    LinkEdits links;
    if (qs(value.id) != id) collectRename(e, qs(value.id), nodes, links);
    // collectRename may have queued this node's own parent change: keep the new value.
    for (auto& n : nodes)
        if (n.first == e.index) n.second = value;
    pushChange(std::move(nodes), std::move(links),
               qs(value.id) != id ? tr("Rename %1").arg(id) : tr("Edit %1").arg(id), mergeId);
}

void ScenarioDocument::changeEntities(const QStringList& ids,
                                      const std::function<void(NodeSpec&)>& change,
                                      const QString& text, int mergeId) {
    NodeEdits nodes;
    const auto& t = scenario_.topology;
    for (const QString& id : ids) {
        const EntityRef e = require(id);
        if (!e.valid() || !change) continue;
        NodeSpec n = t.nodes[static_cast<std::size_t>(e.index)];
        change(n);
        n.id = ss(id);
        nodes.emplace_back(e.index, std::move(n));
    }
    pushChange(std::move(nodes), {}, text, mergeId);
}

void ScenarioDocument::moveEntities(const QStringList& ids, const QList<QPointF>& positions,
                                    int mergeId) {
    Q_ASSERT(ids.size() == positions.size());
    QHash<QString, QPointF> at;
    for (int i = 0; i < ids.size() && i < positions.size(); ++i)
        at.insert(ids[i], positions[i]);
    changeEntities(
        ids,
        [&](NodeSpec& n) {
            const QPointF p = at.value(qs(n.id));
            n.x = p.x();
            n.y = p.y();
            n.hasPosition = true;
        },
        ids.size() == 1 ? tr("Move %1").arg(ids.front()) : tr("Move %n nodes", "", int(ids.size())),
        mergeId);
}

void ScenarioDocument::setParent(const QString& id, const QString& parent) {
    const std::string p = ss(parent);
    changeEntities(
        {id}, [&](NodeSpec& n) { n.parent = p; },
        parent.isEmpty() ? tr("Detach %1").arg(id) : tr("Attach %1 to %2").arg(id, parent));
}

int ScenarioDocument::addLink(const LinkSpec& l) {
    const int index = static_cast<int>(scenario_.topology.links.size());
    undo_->push(new LinkPresenceCommand(this, index, l, true));
    return index;
}

void ScenarioDocument::setLink(int index, const LinkSpec& l, int mergeId) {
    if (index < 0 || index >= static_cast<int>(scenario_.topology.links.size())) return;
    pushChange({}, {{index, l}}, tr("Edit link %1 - %2").arg(qs(l.from), qs(l.to)), mergeId);
}

void ScenarioDocument::removeLink(int index) {
    if (index < 0 || index >= static_cast<int>(scenario_.topology.links.size())) return;
    undo_->push(new LinkPresenceCommand(
        this, index, scenario_.topology.links[static_cast<std::size_t>(index)], false));
}

ScenarioDocument::Connection ScenarioDocument::connect(const QString& from, const QString& to) {
    const EntityRef a = resolve(from), b = resolve(to);
    if (!a.valid() || !b.valid() || a == b) return Connection::None;
    // A group end names the member it was given, or member 0.
    const QString aId = find(from).valid() && isGroup(a) ? nodeIdFor(a) : from;
    const QString bId = find(to).valid() && isGroup(b) ? nodeIdFor(b) : to;
    auto attach = [&](EntityRef child, EntityRef parent, const QString& parentId) {
        return parentOf(child).isEmpty() && aggregatesRole(roleOf(parent)) &&
               !isAncestor(child, parent) && (setParent(idOf(child), parentId), true);
    };
    // The end nearer the devices becomes the child when either could be (a link drawn from
    // the cloud down to an edge server attaches the edge server).
    const bool aAbove = static_cast<int>(tierOf(a)) < static_cast<int>(tierOf(b));
    if (aAbove ? (attach(b, a, aId) || attach(a, b, bId))
               : (attach(a, b, bId) || attach(b, a, aId)))
        return Connection::Parent;
    if (resolve(parentOf(a)) == b || resolve(parentOf(b)) == a) return Connection::None;
    if (linkBetween(aId, bId) >= 0) return Connection::None;
    LinkSpec l;
    l.from = ss(aId);
    l.to = ss(bId);
    if (scenario_.topology.hasDefaultLink) l.params = scenario_.topology.defaultLink;
    addLink(l);
    return Connection::Link;
}

QStringList ScenarioDocument::remove(const QStringList& ids, const std::vector<int>& linkIndices,
                                     DeleteChildren children) {
    const auto& t = scenario_.topology;
    const int count = static_cast<int>(t.nodes.size());
    std::set<int> gone;
    for (const QString& id : ids)
        if (const EntityRef e = find(id); e.valid()) gone.insert(e.index);
    auto isGone = [&](EntityRef e) { return e.valid() && gone.count(e.index) > 0; };

    if (children == DeleteChildren::Remove) {
        // Grow the set until no entity reports to a removed one.
        for (bool grew = true; grew;) {
            grew = false;
            for (int i = 0; i < count; ++i) {
                const EntityRef e{i};
                if (!isGone(e) && isGone(resolve(parentOf(e)))) {
                    gone.insert(i);
                    grew = true;
                }
            }
        }
    }
    if (gone.empty() && linkIndices.empty()) return {};

    // Children that stay report to the nearest surviving ancestor.
    NodeEdits nodes;
    for (int i = 0; i < count; ++i) {
        const EntityRef e{i};
        if (isGone(e) || !isGone(resolve(parentOf(e)))) continue;
        QString p = parentOf(e);
        for (int steps = 0; isGone(resolve(p)) && steps <= count; ++steps)
            p = parentOf(resolve(p));
        if (isGone(resolve(p))) p.clear();
        NodeSpec s = t.nodes[static_cast<std::size_t>(i)];
        // A node cannot sit under every member of a group (only a group can): a node whose
        // new parent is a group's own id goes under its first member.
        const EntityRef above = resolve(p);
        if (!s.group && !p.isEmpty() && isGroup(above) && find(p) == above) p = nodeIdFor(above);
        s.parent = ss(p);
        nodes.emplace_back(i, s);
    }
    std::set<int> links(linkIndices.begin(), linkIndices.end());
    for (std::size_t i = 0; i < t.links.size(); ++i)
        if (isGone(resolve(qs(t.links[i].from))) || isGone(resolve(qs(t.links[i].to))))
            links.insert(static_cast<int>(i));

    QStringList removed;
    for (int i : gone)
        removed << idOf({i});
    const int total = static_cast<int>(gone.size() + links.size());
    undo_->beginMacro(removed.size() == 1 && links.empty() ? tr("Delete %1").arg(removed.front())
                                                           : tr("Delete %n items", "", total));
    pushChange(std::move(nodes), {}, tr("Reattach children"), -1);
    for (auto it = links.rbegin(); it != links.rend(); ++it)
        if (*it >= 0 && *it < static_cast<int>(t.links.size())) removeLink(*it);
    for (auto it = gone.rbegin(); it != gone.rend(); ++it) // high to low: indices stay valid
        undo_->push(EntityPresenceCommand::remove(this, {*it}));
    undo_->endMacro();
    return removed;
}

QString ScenarioDocument::copy(const QStringList& ids) const {
    const auto& t = scenario_.topology;
    const TopologyLayout layout = layoutByTier(t);
    Scenario frag;
    frag.name = "clipboard";
    QSet<QString> inside;
    for (const QString& id : ids) {
        const EntityRef e = find(id);
        if (!e.valid()) continue;
        inside.insert(id);
        NodeSpec n = t.nodes[static_cast<std::size_t>(e.index)];
        if (!n.hasPosition) {
            n.x = layout.nodes[static_cast<std::size_t>(e.index)].x;
            n.y = layout.nodes[static_cast<std::size_t>(e.index)].y;
            n.hasPosition = true;
        }
        frag.topology.nodes.push_back(n);
    }
    for (const auto& l : t.links)
        if (inside.contains(idOf(resolve(qs(l.from)))) && inside.contains(idOf(resolve(qs(l.to)))))
            frag.topology.links.push_back(l);
    return qs(saveScenarioText(frag));
}

QStringList ScenarioDocument::paste(const QString& yaml, QPointF offset, QString* error) {
    Scenario frag;
    try {
        frag = readScenarioTextUnchecked(ss(yaml), "<clipboard>");
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return {};
    }
    TopologySpec& ft = frag.topology;
    if (ft.nodes.empty()) {
        if (error) *error = tr("the clipboard holds no nodes or groups");
        return {};
    }
    applyLayout(ft, false);
    // New ids first, so that references inside the fragment can follow them. Nodes first,
    // then groups, as the file lists them.
    std::map<std::string, std::string> nodeIds, groupIds;
    QStringList fresh;
    for (const bool groups : {false, true})
        for (const auto& n : ft.nodes) {
            if (n.group != groups) continue;
            fresh << uniqueId(qs(n.id), fresh);
            (n.group ? groupIds : nodeIds)[n.id] = ss(fresh.back());
        }
    auto map = [&](const std::string& ref, bool& ok) -> std::string {
        ok = true;
        if (auto it = nodeIds.find(ref); it != nodeIds.end()) return it->second;
        if (auto it = groupIds.find(ref); it != groupIds.end()) return it->second; // nested
        // A member: the longest group id that prefixes it, followed by indices only.
        for (auto dash = ref.rfind('-'); dash != std::string::npos && dash > 0;
             dash = ref.rfind('-', dash - 1)) {
            const std::string tail = ref.substr(dash);
            if (tail.find_first_not_of("-0123456789") != std::string::npos) break;
            if (auto it = groupIds.find(ref.substr(0, dash)); it != groupIds.end())
                return it->second + tail;
        }
        ok = false;
        return ref;
    };
    auto fixParent = [&](std::string& parent) {
        bool ok = false;
        const std::string mapped = map(parent, ok);
        if (ok)
            parent = mapped;
        else if (!resolve(qs(parent)).valid())
            parent.clear();
    };
    undo_->beginMacro(tr("Paste %n items", "", int(ft.nodes.size())));
    for (const bool groups : {false, true})
        for (auto n : ft.nodes) {
            if (n.group != groups) continue;
            n.id = (n.group ? groupIds : nodeIds)[n.id];
            fixParent(n.parent);
            n.x += offset.x();
            n.y += offset.y();
            n.line = 0;
            undo_->push(EntityPresenceCommand::insert(
                this, {static_cast<int>(scenario_.topology.nodes.size())}, n));
        }
    for (auto l : ft.links) {
        bool okFrom = false, okTo = false;
        l.from = map(l.from, okFrom);
        l.to = map(l.to, okTo);
        l.line = 0;
        if (okFrom && okTo) addLink(l);
    }
    undo_->endMacro();
    return fresh;
}

void ScenarioDocument::autoLayout() {
    TopologySpec laid = scenario_.topology;
    applyLayout(laid, true);
    NodeEdits nodes;
    const auto& t = scenario_.topology;
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
        if (!t.nodes[i].hasPosition || t.nodes[i].x != laid.nodes[i].x ||
            t.nodes[i].y != laid.nodes[i].y)
            nodes.emplace_back(static_cast<int>(i), laid.nodes[i]);
    if (nodes.empty()) return;
    undo_->beginMacro(tr("Auto layout"));
    pushChange(std::move(nodes), {}, tr("Auto layout"), -1);
    undo_->endMacro();
}

void ScenarioDocument::edit(const QString& text, const std::function<void(Scenario&)>& change,
                            int mergeId) {
    Scenario after = scenario_;
    change(after);
    // Field by field through the schema (what the file would hold), not by writing both out.
    if (sameScenario(after, scenario_)) return; // nothing to undo
    const bool topologyChanged = !sameTopology(after.topology, scenario_.topology);
    undo_->push(new EditScenarioCommand(this, text, mergeId, std::move(after), topologyChanged));
}

} // namespace fog
