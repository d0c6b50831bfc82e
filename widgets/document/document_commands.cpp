#include "widgets/document/document_commands.h"

#include <QUndoStack>

#include <utility>

namespace fog {

namespace {
QString qs(const std::string& s) {
    return QString::fromStdString(s);
}
} // namespace

// --- ChangeItemsCommand ----------------------------------------------------------------------

ChangeItemsCommand::ChangeItemsCommand(ScenarioDocument* doc, const QString& text, int mergeId,
                                       std::vector<std::pair<int, NodeSpec>> nodes,
                                       std::vector<std::pair<int, LinkSpec>> links)
    : DocumentCommand(doc, text), mergeId_(mergeId), nodes_(std::move(nodes)),
      links_(std::move(links)) {}

void ChangeItemsCommand::swap() {
    TopologySpec& t = topology();
    std::vector<std::pair<QString, QString>> renamed;
    QStringList changed;
    for (auto& [i, n] : nodes_) {
        NodeSpec& cur = t.nodes[static_cast<std::size_t>(i)];
        if (cur.id != n.id) renamed.emplace_back(qs(cur.id), qs(n.id));
        std::swap(cur, n);
        changed << qs(cur.id);
    }
    for (auto& [i, l] : links_)
        std::swap(t.links[static_cast<std::size_t>(i)], l);
    for (const auto& [from, to] : renamed)
        Q_EMIT doc_->nodeRenamed(from, to);
    for (const QString& id : changed)
        Q_EMIT doc_->nodeChanged(id);
    for (const auto& l : links_)
        Q_EMIT doc_->linkChanged(l.first);
    Q_EMIT doc_->scenarioChanged();
}

bool ChangeItemsCommand::mergeWith(const QUndoCommand* other) {
    const auto* o = static_cast<const ChangeItemsCommand*>(other);
    if (o->mergeId_ != mergeId_) return false;
    // Same items only: then keeping our stored (older) values is all a merge needs, since
    // undo swaps them with whatever the document holds now.
    auto sameIndices = [](const auto& a, const auto& b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].first != b[i].first) return false;
        return true;
    };
    return sameIndices(nodes_, o->nodes_) && sameIndices(links_, o->links_);
}

// --- EntityPresenceCommand -------------------------------------------------------------------

EntityPresenceCommand* EntityPresenceCommand::insert(ScenarioDocument* doc, EntityRef ref,
                                                     NodeSpec node) {
    auto* c = new EntityPresenceCommand(
        doc, node.group ? QObject::tr("Add group") : QObject::tr("Add node"), ref, true);
    c->node_ = std::move(node);
    return c;
}

EntityPresenceCommand* EntityPresenceCommand::remove(ScenarioDocument* doc, EntityRef ref) {
    return new EntityPresenceCommand(
        doc, doc->isGroup(ref) ? QObject::tr("Remove group") : QObject::tr("Remove node"), ref,
        false);
}

void EntityPresenceCommand::add() {
    TopologySpec& t = topology();
    const QString id = qs(node_.id);
    t.nodes.insert(t.nodes.begin() + ref_.index, std::move(node_));
    Q_EMIT doc_->nodeAdded(id);
    Q_EMIT doc_->scenarioChanged();
}

void EntityPresenceCommand::take() {
    TopologySpec& t = topology();
    node_ = std::move(t.nodes[static_cast<std::size_t>(ref_.index)]);
    t.nodes.erase(t.nodes.begin() + ref_.index);
    const QString id = qs(node_.id);
    Q_EMIT doc_->nodeRemoved(id);
    Q_EMIT doc_->scenarioChanged();
}

// --- LinkPresenceCommand ---------------------------------------------------------------------

LinkPresenceCommand::LinkPresenceCommand(ScenarioDocument* doc, int index, LinkSpec link,
                                         bool inserting)
    : DocumentCommand(doc, inserting ? QObject::tr("Add link") : QObject::tr("Remove link")),
      index_(index), link_(std::move(link)), inserting_(inserting) {}

void LinkPresenceCommand::add() {
    auto& links = topology().links;
    links.insert(links.begin() + index_, link_);
    Q_EMIT doc_->linkAdded(index_);
    Q_EMIT doc_->scenarioChanged();
}

void LinkPresenceCommand::take() {
    auto& links = topology().links;
    link_ = links[static_cast<std::size_t>(index_)];
    links.erase(links.begin() + index_);
    Q_EMIT doc_->linkRemoved(index_);
    Q_EMIT doc_->scenarioChanged();
}

// --- EditScenarioCommand ---------------------------------------------------------------------

EditScenarioCommand::EditScenarioCommand(ScenarioDocument* doc, const QString& text, int mergeId,
                                         Scenario after, bool topologyChanged)
    : DocumentCommand(doc, text), mergeId_(mergeId), other_(std::move(after)),
      topologyChanged_(topologyChanged) {}

void EditScenarioCommand::swap() {
    Scenario& s = model();
    other_.sourcePath = s.sourcePath; // where the file lives is not part of the edit
    std::swap(s, other_);
    if (topologyChanged_) Q_EMIT doc_->topologyReset();
    Q_EMIT doc_->scenarioChanged();
}

bool EditScenarioCommand::mergeWith(const QUndoCommand* other) {
    const auto* o = static_cast<const EditScenarioCommand*>(other);
    if (o->mergeId_ != mergeId_) return false;
    topologyChanged_ = topologyChanged_ || o->topologyChanged_;
    return true;
}

} // namespace fog
