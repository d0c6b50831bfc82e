#include "widgets/topology/topology_scene.h"

#include "core/scenario/layout.h"
#include "widgets/document/scenario_document.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/message_layer.h"
#include "widgets/topology/node_item.h"

#include <QApplication>
#include <QGraphicsLineItem>
#include <QGraphicsSceneMouseEvent>
#include <QLineF>
#include <QGraphicsView>
#include <QPainter>
#include <QSet>
#include <QSignalBlocker>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}


QString rateText(double bytesPerS) {
    const double bits = 8 * bytesPerS;
    if (bits >= 1e9) return QObject::tr("%1 Gbit/s").arg(bits / 1e9, 0, 'g', 3);
    if (bits >= 1e6) return QObject::tr("%1 Mbit/s").arg(bits / 1e6, 0, 'g', 3);
    if (bits >= 1e3) return QObject::tr("%1 kbit/s").arg(bits / 1e3, 0, 'g', 3);
    return QObject::tr("%1 bit/s").arg(bits, 0, 'g', 3);
}

bool splitMemberId(const QString& id, QString& group, int& k) {
    const int dash = id.lastIndexOf('-');
    if (dash <= 0 || dash + 1 >= id.size()) return false;
    bool ok = false;
    k = id.mid(dash + 1).toInt(&ok);
    if (!ok || k < 0) return false;
    group = id.left(dash);
    return true;
}

} // namespace

TopologyScene::TopologyScene(ScenarioDocument* doc, QObject* parent)
    : QGraphicsScene(parent), doc_(doc) {
    // The canvas grows with the topology; a generous minimum keeps panning room around it.
    setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    messages_ = new MessageLayer;
    addItem(messages_);
    connect(doc_, &ScenarioDocument::topologyReset, this, &TopologyScene::rebuild);
    connect(doc_, &ScenarioDocument::nodeAdded, this, &TopologyScene::onNodeAdded);
    connect(doc_, &ScenarioDocument::nodeRemoved, this, &TopologyScene::onNodeRemoved);
    connect(doc_, &ScenarioDocument::nodeChanged, this, &TopologyScene::onNodeChanged);
    connect(doc_, &ScenarioDocument::nodeRenamed, this, &TopologyScene::onNodeRenamed);
    connect(doc_, &ScenarioDocument::linkAdded, this, [this](int i) { rebuildLinks(i, +1); });
    connect(doc_, &ScenarioDocument::linkRemoved, this, [this](int i) { rebuildLinks(i, -1); });
    connect(doc_, &ScenarioDocument::linkChanged, this, [this] { rebuildLinks(); });
    rebuild();
}

TopologyScene::~TopologyScene() {
    // Deleting selected items would announce a selection change to views (the inspector)
    // whose document may already be gone: the scene says nothing while it is torn down.
    const QSignalBlocker quiet(this);
    // Edges unregister from their nodes on deletion; delete them before the nodes.
    for (EdgeItem* e : links_)
        delete e;
    links_.clear();
    qDeleteAll(parentEdges_);
    parentEdges_.clear();
    // The rest while still quiet: QGraphicsScene's own destructor would delete them with the
    // signals on, announcing a selection change of a scene half gone (the live-state panel
    // asks it for its selection).
    clear();
}

// --- building --------------------------------------------------------------------------------

NodeItem* TopologyScene::createItem(const QString& id, EntityRef e) {
    auto* item = new NodeItem(id);
    items_.insert(id, item);
    addItem(item);
    updateItem(item, e);
    return item;
}

void TopologyScene::updateItem(NodeItem* item, EntityRef e) {
    if (!e.valid()) e = doc_->find(item->id());
    if (!e.valid()) return;
    const TopologySpec& t = doc_->scenario().topology;
    const int nested = t.nestedParent(static_cast<std::size_t>(e.index));
    item->setSpec(t.nodes[static_cast<std::size_t>(e.index)],
                  nested >= 0 ? qs(t.nodes[static_cast<std::size_t>(nested)].id) : QString());
    if (doc_->hasPositionOf(e) && item->pos() != doc_->positionOf(e))
        item->setPos(doc_->positionOf(e));
}

void TopologyScene::deleteItem(NodeItem* item) {
    markLinksDirty();
    for (auto& r : runMap_)
        if (r.first == item) r.first = nullptr;
    const QVector<EdgeItem*> edges = item->edges();
    for (EdgeItem* e : edges) {
        if (e->isParentLink()) parentEdges_.remove(e->from());
        links_.removeAll(e);
        delete e;
    }
    items_.remove(item->id());
    delete item;
}

void TopologyScene::schedulePlacement() {
    // Undoing a layout changes every node: place them once, after the whole undo step.
    if (placementPending_) return;
    placementPending_ = true;
    QTimer::singleShot(0, this, [this] {
        placementPending_ = false;
        placeUnpositioned();
    });
}

void TopologyScene::placeUnpositioned() {
    const TopologySpec& t = doc_->scenario().topology;
    bool any = false;
    for (const auto& n : t.nodes)
        any = any || !n.hasPosition;
    if (!any) return;
    const TopologyLayout l = layoutByTier(t);
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
        if (!t.nodes[i].hasPosition)
            if (NodeItem* it = items_.value(qs(t.nodes[i].id)))
                it->setPos(l.nodes[i].x, l.nodes[i].y);
}

void TopologyScene::rebuild() {
    markLinksDirty();
    for (EdgeItem* e : links_)
        delete e;
    links_.clear();
    qDeleteAll(parentEdges_);
    parentEdges_.clear();
    qDeleteAll(items_);
    items_.clear();
    const TopologySpec& t = doc_->scenario().topology;
    items_.reserve(static_cast<int>(t.nodes.size()));
    // Nodes first, then groups (the file's order).
    for (const bool groups : {false, true})
        for (std::size_t i = 0; i < t.nodes.size(); ++i)
            if (t.nodes[i].group == groups) createItem(qs(t.nodes[i].id), {static_cast<int>(i)});
    placeUnpositioned();
    // A group whose members are themselves parents (four edge servers, each with its own
    // devices) opens showing its members, so that the tree below them is visible. (A group
    // nested under a group is drawn as one item under the group's item.)
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
        if (!t.nodes[i].group) continue;
        const QString gid = qs(t.nodes[i].id);
        auto memberIsParent = [&](const std::string& parent) {
            int member = -1;
            return itemForNodeId(qs(parent), &member) == items_.value(gid) && member >= 0;
        };
        bool parentOfOthers = false;
        for (const auto& n : t.nodes)
            parentOfOthers = parentOfOthers || (!n.parent.empty() && memberIsParent(n.parent));
        if (parentOfOthers)
            if (NodeItem* it = items_.value(gid)) it->setExpanded(true);
    }
    rebuildParentEdges();
    rebuildLinks();
    mapRunNodes();
    markProblems(problems_);
}

void TopologyScene::markProblems(const QMap<QString, QStringList>& byId) {
    problems_ = byId;
    for (NodeItem* it : std::as_const(items_)) it->setProblems(byId.value(it->id()));
}

NodeItem* TopologyScene::itemForNodeId(const QString& id, int* member) const {
    if (member) *member = -1;
    if (NodeItem* it = items_.value(id); it && !it->isGroup()) return it;
    QString group;
    int k = 0;
    if (!splitMemberId(id, group, k)) return nullptr;
    NodeItem* it = items_.value(group);
    if (it && it->isGroup()) {
        if (k >= it->count()) return nullptr;
        if (member) *member = k;
        return it;
    }
    // A member of a nested group (`<group>-<i>-<k>`): the group's item as a whole.
    for (QString rest = group; splitMemberId(rest, group, k); rest = group)
        if (NodeItem* g = items_.value(group); g && g->isGroup()) return g;
    return nullptr;
}

void TopologyScene::updateParentEdge(NodeItem* child, const QString& parentId) {
    int member = -1;
    NodeItem* parent = itemForNodeId(parentId, &member);
    // A group nested under a group: an edge between the two group items.
    if (NodeItem* g = items_.value(parentId); !parent && child->isGroup() && g && g->isGroup())
        parent = g;
    EdgeItem* old = parentEdges_.value(child);
    if (old && old->to() == parent && old->toMember() == member) {
        old->adjust();
        return;
    }
    markLinksDirty();
    delete old;
    parentEdges_.remove(child);
    if (parent && parent != child) {
        auto* edge = new EdgeItem(child, -1, parent, member, -1);
        addItem(edge);
        parentEdges_.insert(child, edge);
    }
}

void TopologyScene::rebuildParentEdges() {
    const TopologySpec& t = doc_->scenario().topology;
    for (const auto& n : t.nodes)
        if (NodeItem* it = items_.value(qs(n.id))) updateParentEdge(it, qs(n.parent));
}

void TopologyScene::rebuildLinks(int at, int shift) {
    // A link edited in the inspector stays selected (and the inspector on it).
    const std::vector<int> before = selectedLinks();
    std::vector<int> keep;
    for (int i : before) {
        if (shift < 0 && i == at) continue; // that one is gone
        keep.push_back(shift != 0 && i >= at ? i + shift : i);
    }
    QSignalBlocker block(this);
    markLinksDirty();
    for (EdgeItem* e : links_)
        delete e;
    links_.clear();
    const auto& links = doc_->scenario().topology.links;
    for (std::size_t i = 0; i < links.size(); ++i) {
        int fm = -1, tm = -1;
        NodeItem* a = itemForNodeId(qs(links[i].from), &fm);
        NodeItem* b = itemForNodeId(qs(links[i].to), &tm);
        if (!a || !b || (a == b && fm == tm)) continue; // invalid: the inspector reports it
        auto* edge = new EdgeItem(a, fm, b, tm, static_cast<int>(i));
        edge->setToolTip(tr("link %1 – %2").arg(qs(links[i].from), qs(links[i].to)));
        addItem(edge);
        edge->adjust(); // in the scene now: it can see the nodes in its way
        links_.append(edge);
        if (std::find(keep.begin(), keep.end(), static_cast<int>(i)) != keep.end())
            edge->setSelected(true);
    }
    block.unblock();
    if (selectedLinks() != before) Q_EMIT selectionChanged();
}

// --- document signals ------------------------------------------------------------------------

void TopologyScene::onNodeAdded(const QString& id) {
    const EntityRef e = doc_->find(id);
    createItem(id, e);
    if (e.valid() && !doc_->hasPositionOf(e)) placeUnpositioned();
    // Others may name the new node (an undone delete): all parent edges and links again.
    rebuildParentEdges();
    rebuildLinks();
    mapRunNodes();
}

void TopologyScene::onNodeRemoved(const QString& id) {
    if (NodeItem* it = items_.value(id)) deleteItem(it);
    rebuildParentEdges();
    rebuildLinks();
}

void TopologyScene::onNodeChanged(const QString& id) {
    NodeItem* it = items_.value(id);
    if (!it) return;
    const bool wasExpanded = it->isExpanded();
    const EntityRef e = doc_->find(id);
    updateItem(it, e);
    if (e.valid() && !doc_->hasPositionOf(e)) schedulePlacement(); // e.g. a move undone
    if (e.valid()) updateParentEdge(it, doc_->parentOf(e));
    if (it->isGroup()) {
        // A group's count decides which member ids exist: edges naming members follow.
        rebuildParentEdges();
        rebuildLinks();
    } else if (wasExpanded != it->isExpanded()) {
        for (EdgeItem* e : it->edges())
            e->adjust();
    }
}

void TopologyScene::onNodeRenamed(const QString& oldId, const QString& newId) {
    NodeItem* it = items_.take(oldId);
    if (!it) return;
    it->setId(newId);
    items_.insert(newId, it);
}

// --- selection -------------------------------------------------------------------------------

QStringList TopologyScene::selectedIds() const {
    QStringList ids;
    for (QGraphicsItem* g : selectedItems())
        if (g->type() == NodeItem::Type) ids << static_cast<NodeItem*>(g)->id();
    // Document order, so that copies and multi-edits are stable.
    std::sort(ids.begin(), ids.end(), [this](const QString& a, const QString& b) {
        const EntityRef ea = doc_->find(a), eb = doc_->find(b);
        return ea.index < eb.index;
    });
    return ids;
}

std::vector<int> TopologyScene::runNodesOf(const QString& id) const {
    std::vector<int> out;
    NodeItem* item = items_.value(id);
    if (!item) return out;
    for (std::size_t i = 0; i < runMap_.size(); ++i)
        if (runMap_[i].first == item) out.push_back(static_cast<int>(i));
    return out;
}

std::vector<int> TopologyScene::selectedLinks() const {
    std::vector<int> out;
    for (QGraphicsItem* g : selectedItems())
        if (g->type() == EdgeItem::Type && !static_cast<EdgeItem*>(g)->isParentLink())
            out.push_back(static_cast<EdgeItem*>(g)->linkIndex());
    std::sort(out.begin(), out.end());
    return out;
}

void TopologyScene::selectIds(const QStringList& ids) {
    {
        // One notification for the whole new selection, not one per item.
        const QSignalBlocker block(this);
        clearSelection();
        for (const QString& id : ids)
            if (NodeItem* it = items_.value(id)) it->setSelected(true);
    }
    Q_EMIT selectionChanged();
}

QPointF TopologyScene::snap(QPointF p) const {
    if (!snap_) return p;
    return {std::round(p.x() / kGrid) * kGrid, std::round(p.y() / kGrid) * kGrid};
}

QPointF TopologyScene::dragPosition(const NodeItem* item, QPointF proposed) const {
    const auto start = dragStart_.constFind(const_cast<NodeItem*>(item));
    const auto anchor = dragStart_.constFind(grabbed_);
    if (!snap_ || start == dragStart_.cend() || anchor == dragStart_.cend()) return proposed;
    const QPointF delta = proposed - start.value(); // the same for every selected item
    return start.value() + snap(anchor.value() + delta) - anchor.value();
}

// --- adding ----------------------------------------------------------------------------------

QString TopologyScene::addFromTemplate(NodeTemplate t, QPointF pos, int count) {
    const QPointF dropped = pos; // a line is hit where the drop was, not at a grid point
    pos = snap(pos);
    NodeItem* target = nodeItemAt(pos);
    const EntityRef targetRef = target ? doc_->find(target->id()) : EntityRef{};
    const bool onAggregator = targetRef.valid() && doc_->roleOf(targetRef) != Role::Trainer;
    if (onAggregator) { // not on top of the aggregator: below it, beside its other children
        pos = snap(target->pos() + QPointF(0, LayoutOptions().rowHeight));
        const QSizeF box(NodeItem::kWidth, NodeItem::kHeight);
        for (int i = 0; i < 200; ++i) {
            const QRectF r(pos - QPointF(box.width() / 2, box.height() / 2), box);
            const QList<QGraphicsItem*> hit = items(r);
            if (std::none_of(hit.begin(), hit.end(),
                             [](QGraphicsItem* g) { return g->type() == NodeItem::Type; }))
                break;
            pos += QPointF(NodeItem::kWidth + kGrid, 0);
        }
    }
    if (t == NodeTemplate::DeviceGroup) {
        NodeSpec g = groupFromTemplate(std::max(1, count));
        g.x = pos.x();
        g.y = pos.y();
        g.hasPosition = true;
        if (onAggregator) g.parent = doc_->nodeIdFor(targetRef).toStdString();
        return doc_->addNode(g);
    }
    NodeSpec n = nodeFromTemplate(t);
    // A relay dropped on the line from a child to its parent goes in between (one undo step).
    if (t == NodeTemplate::Relay && !target)
        if (EdgeItem* edge = edgeNear(dropped, views().isEmpty() ? nullptr : views().front()->viewport()); edge && edge->isParentLink() && edge->from())
            return insertRelay(n, edge, pos);
    n.x = pos.x();
    n.y = pos.y();
    n.hasPosition = true;
    if (onAggregator && (n.role == Role::Trainer || n.role == Role::Relay))
        n.parent = doc_->nodeIdFor(targetRef).toStdString();
    if (onAggregator && t == NodeTemplate::EdgeServer && doc_->tierOf(targetRef) == Tier::Cloud)
        n.parent = doc_->nodeIdFor(targetRef).toStdString();
    return doc_->addNode(n);
}

QString TopologyScene::insertRelay(NodeSpec relay, EdgeItem* edge, QPointF pos) {
    const QString child = edge->from()->id();
    const EntityRef childRef = doc_->find(child);
    const QString parent = childRef.valid() ? doc_->parentOf(childRef) : QString();
    const EntityRef parentRef = doc_->find(parent);
    // A node cannot hang under a whole group (a nested group's parent): no insertion then.
    if (parent.isEmpty() || (parentRef.valid() && doc_->isGroup(parentRef))) {
        relay.x = pos.x();
        relay.y = pos.y();
        relay.hasPosition = true;
        return doc_->addNode(relay);
    }
    const QLineF line = edge->line();
    const QPointF mid = snap(line.pointAt(0.5));
    relay.x = mid.x();
    relay.y = mid.y();
    relay.hasPosition = true;
    relay.parent = parent.toStdString();
    doc_->undoStack()->beginMacro(tr("Insert relay"));
    const QString id = doc_->addNode(relay);
    doc_->setParent(child, id);
    doc_->undoStack()->endMacro();
    return id;
}

// --- mouse -----------------------------------------------------------------------------------

EdgeItem* TopologyScene::edgeNear(QPointF scenePos, QWidget* viewport) const {
    double scale = 1.0;
    for (QGraphicsView* v : views())
        if (v->viewport() == viewport) scale = std::max(1e-6, std::abs(v->transform().m11()));
    const double tol = 6.0 / scale; // scene units for six screen pixels
    EdgeItem* best = nullptr;
    double bestDist = tol;
    for (QGraphicsItem* it : items(QRectF(scenePos - QPointF(tol, tol), QSizeF(2 * tol, 2 * tol)))) {
        if (it->type() != EdgeItem::Type) continue;
        auto* edge = static_cast<EdgeItem*>(it);
        const double dist = edge->distanceTo(scenePos);
        // Explicit links win ties over parent links (they are drawn on top).
        if (dist < bestDist || (best && dist <= bestDist && best->isParentLink() && !edge->isParentLink())) {
            bestDist = dist;
            best = edge;
        }
    }
    return best;
}

NodeItem* TopologyScene::nodeItemAt(QPointF scenePos, int* member) const {
    if (member) *member = -1;
    for (QGraphicsItem* g : items(scenePos)) {
        if (g->type() == MemberItem::Type) {
            auto* m = static_cast<MemberItem*>(g);
            if (member) *member = m->index();
            return m->group();
        }
        if (g->type() == NodeItem::Type) return static_cast<NodeItem*>(g);
    }
    return nullptr;
}

void TopologyScene::mousePressEvent(QGraphicsSceneMouseEvent* e) {
    const bool wantLink =
        e->button() == Qt::LeftButton && (linkMode_ || (e->modifiers() & Qt::ShiftModifier));
    int member = -1;
    NodeItem* under = nodeItemAt(e->scenePos(), &member);
    if (wantLink && under) {
        linkFrom_ = member >= 0 ? under->id() + "-" + QString::number(member) : under->id();
        rubberLink_ = new QGraphicsLineItem(QLineF(under->anchor(member), e->scenePos()));
        QPen pen(QApplication::palette().color(QPalette::Highlight), 2, Qt::DashLine);
        rubberLink_->setPen(pen);
        rubberLink_->setZValue(20);
        addItem(rubberLink_);
        e->accept();
        return;
    }
    if (e->button() == Qt::LeftButton && !under) {
        // A click near a link's line selects it, within a few screen pixels whatever the
        // zoom (a 10-unit stroke is a hair's width zoomed out). A parent link belongs to its
        // child: the child is selected, and the inspector shows its link's fields.
        if (EdgeItem* edge = edgeNear(e->scenePos(), e->widget())) {
            const bool add = e->modifiers() & Qt::ControlModifier;
            if (!add) clearSelection();
            if (edge->isParentLink() && edge->from()) edge->from()->setSelected(true);
            else edge->setSelected(true);
            e->accept();
            return;
        }
    }
    QGraphicsScene::mousePressEvent(e);
    dragStart_.clear();
    if (e->button() == Qt::LeftButton && under && under->isSelected()) {
        draggingNodes_ = true;
        grabbed_ = under;
        for (QGraphicsItem* g : selectedItems())
            if (g->type() == NodeItem::Type) dragStart_.insert(static_cast<NodeItem*>(g), g->pos());
    }
}

void TopologyScene::mouseMoveEvent(QGraphicsSceneMouseEvent* e) {
    if (rubberLink_) {
        QLineF l = rubberLink_->line();
        l.setP2(e->scenePos());
        rubberLink_->setLine(l);
        e->accept();
        return;
    }
    QGraphicsScene::mouseMoveEvent(e);
}

void TopologyScene::mouseReleaseEvent(QGraphicsSceneMouseEvent* e) {
    if (rubberLink_) {
        delete rubberLink_;
        rubberLink_ = nullptr;
        int member = -1;
        NodeItem* target = nodeItemAt(e->scenePos(), &member);
        const QString from = linkFrom_;
        linkFrom_.clear();
        if (target) {
            const QString to =
                member >= 0 ? target->id() + "-" + QString::number(member) : target->id();
            doc_->connect(from, to);
        }
        e->accept();
        return;
    }
    QGraphicsScene::mouseReleaseEvent(e);
    draggingNodes_ = false;
    grabbed_ = nullptr;
    QStringList ids;
    QList<QPointF> positions;
    const QList<NodeItem*> live = items_.values();
    const QSet<NodeItem*> alive(live.cbegin(), live.cend()); // an undo may have run mid-drag
    for (auto it = dragStart_.cbegin(); it != dragStart_.cend(); ++it)
        if (alive.contains(it.key()) && it.key()->pos() != it.value()) {
            ids << it.key()->id();
            positions << it.key()->pos();
        }
    dragStart_.clear();
    if (!ids.isEmpty()) doc_->moveEntities(ids, positions, doc_->newMergeId());
}

void TopologyScene::drawBackground(QPainter* p, const QRectF& rect) {
    QGraphicsScene::drawBackground(p, rect);
    QWidget* w = views().isEmpty() ? nullptr : views().front()->viewport();
    const QPalette pal = w ? w->palette() : QApplication::palette();
    p->fillRect(rect, pal.color(QPalette::Base));
    const qreal scale = p->worldTransform().m11();
    if (!snap_ || scale * kGrid < 6) return; // grid dots would be a grey haze
    QColor dot = pal.color(QPalette::Text);
    dot.setAlphaF(0.18);
    QPen pen(dot, 0); // cosmetic: one device pixel whatever the zoom
    pen.setCosmetic(true);
    pen.setWidthF(1.5);
    p->setPen(pen);
    const qreal step = scale * kGrid < 12 ? kGrid * 5 : kGrid;
    QVector<QPointF> dots;
    for (qreal x = std::floor(rect.left() / step) * step; x < rect.right(); x += step)
        for (qreal y = std::floor(rect.top() / step) * step; y < rect.bottom(); y += step)
            dots.append(QPointF(x, y));
    p->drawPoints(dots.constData(), static_cast<int>(dots.size()));
}

// --- run view --------------------------------------------------------------------------------

void TopologyScene::setRunNodes(const std::vector<NodeInfo>& nodes) {
    runIds_.clear();
    for (const auto& n : nodes)
        runIds_ << qs(n.id);
    mapRunNodes();
}

void TopologyScene::mapRunNodes() {
    markLinksDirty();
    runMap_.clear();
    for (const QString& id : std::as_const(runIds_)) {
        int member = -1;
        NodeItem* it = itemForNodeId(id, &member);
        QString group;
        int k = 0;
        if (!it && splitMemberId(id, group, k)) // a member an add event brings (beyond the count): its group
            if (NodeItem* g = items_.value(group); g && g->isGroup()) it = g;
        runMap_.emplace_back(it, it && it->isGroup() ? member : -1);
    }
}

void TopologyScene::showFrame(const ActivityFrame& frame) {
    QHash<NodeItem*, std::array<int, 5>> counts;
    QHash<NodeItem*, int> notJoined; // members add events bring, not there yet
    for (std::size_t i = 0; i < frame.states.size() && i < runMap_.size(); ++i) {
        auto [item, member] = runMap_[i];
        if (!item) continue;
        if (i < frame.notJoined.size() && frame.notJoined[i]) {
            notJoined[item]++;
            counts[item]; // counted, even when no member has joined yet
            continue;
        }
        const int s = static_cast<int>(frame.states[i]);
        if (item->isGroup()) {
            counts[item][static_cast<std::size_t>(s)]++;
            item->setMemberState(member, s);
        } else {
            item->setRunState(s);
        }
    }
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        it.key()->setRunCounts(it.value());
        it.key()->setNotJoined(notJoined.value(it.key(), 0));
    }
    QVector<MessageLayer::Dot> dots;
    dots.reserve(static_cast<int>(frame.messages.size()));
    auto at = [&](int index) -> std::pair<NodeItem*, int> {
        if (index < 0 || index >= static_cast<int>(runMap_.size())) return {nullptr, -1};
        return runMap_[static_cast<std::size_t>(index)];
    };
    for (const auto& m : frame.messages) {
        auto [a, am] = at(m.from);
        auto [b, bm] = at(m.to);
        if (!a || !b) continue;
        // Along a drawn parent line, the message leaves and reaches where the line does (an
        // unfolded group's line starts at its box, not at each member).
        if (EdgeItem* e = parentEdges_.value(a); e && e->to() == b) {
            am = e->fromMember();
            bm = e->toMember();
        } else if (EdgeItem* e2 = parentEdges_.value(b); e2 && e2->to() == a) {
            bm = e2->fromMember();
            am = e2->toMember();
        }
        else if (dotAlongDrawnLines(a, b, m, dots)) {
            // A flat policy's message between a trainer and the cloud goes along the lines
            // the teacher drew (device -> edge -> cloud), not straight past the edges.
            continue;
        }
        const QPointF pa = a->anchor(am), pb = b->anchor(bm);
        if (a == b && pa == pb) continue; // within one folded group: nowhere to go
        MessageLayer::Dot d;
        // From border to border: a tag at 0 or 1 sits at the edge of its node, not under it.
        d.from = exitPoint(a->anchorRect(am), pa, pb);
        d.to = exitPoint(b->anchorRect(bm), pb, pa);
        d.progress = m.progress;
        d.modelDown = m.modelDown;
        d.cut = m.cut;
        dots.append(d);
    }
    messages_->setMessages(dots);
    showLinkLoads(frame.links);
}

bool TopologyScene::dotAlongDrawnLines(NodeItem* a, NodeItem* b, const MessageInFlight& m,
                                       QVector<MessageLayer::Dot>& dots) const {
    // The parent lines from `low` up to `high`, if `high` is an ancestor on the canvas.
    auto chain = [this](NodeItem* low, NodeItem* high) {
        QVector<EdgeItem*> edges;
        for (NodeItem* at = low; at != high; at = edges.back()->to()) {
            EdgeItem* e = parentEdges_.value(at);
            if (!e || edges.size() > 32 || edges.contains(e)) return QVector<EdgeItem*>{};
            edges.push_back(e);
        }
        return edges;
    };
    QVector<EdgeItem*> edges = chain(a, b);
    const bool up = !edges.isEmpty();
    if (!up) edges = chain(b, a);
    if (edges.size() < 2) return false; // one line or none: drawn as it is
    struct Hop {
        QPointF from, to;
        qreal length;
    };
    QVector<Hop> hops;
    qreal total = 0;
    for (EdgeItem* e : edges) {
        const QPointF pc = e->from()->anchor(e->fromMember()), pp = e->to()->anchor(e->toMember());
        Hop h;
        h.from = exitPoint(e->from()->anchorRect(e->fromMember()), pc, pp);
        h.to = exitPoint(e->to()->anchorRect(e->toMember()), pp, pc);
        if (!up) std::swap(h.from, h.to);
        h.length = std::max<qreal>(1.0, QLineF(h.from, h.to).length());
        total += h.length;
        hops.push_back(h);
    }
    if (!up) std::reverse(hops.begin(), hops.end());
    // The tag's place along the whole path, then the line it is on and how far along it.
    qreal left = std::clamp(m.progress, 0.0, 1.0) * total;
    int k = 0;
    while (k + 1 < hops.size() && left > hops[k].length) left -= hops[k++].length;
    MessageLayer::Dot d;
    d.from = hops[k].from;
    d.to = hops[k].to;
    d.progress = std::clamp(left / hops[k].length, 0.0, 1.0);
    d.modelDown = m.modelDown;
    d.cut = m.cut;
    dots.append(d);
    return true;
}

void TopologyScene::setRunLinks(const std::vector<LinkInfo>& links) {
    runLinks_ = links;
    markLinksDirty();
}

void TopologyScene::markLinksDirty() {
    linksDirty_ = true;
    usedEdges_.clear(); // may hold deleted edges: every edge is reset once remapped
    nicItems_.clear();
}

void TopologyScene::mapRunLinks() {
    linksDirty_ = false;
    const std::size_t n = runLinks_.size();
    linkEdge_.assign(n, nullptr);
    linkDirection_.assign(n, 0);
    linkNic_.assign(n, nullptr);
    edgeLinkCount_.clear();
    auto itemOf = [this](int index) -> NodeItem* {
        return index >= 0 && index < static_cast<int>(runMap_.size()) ? runMap_[static_cast<std::size_t>(index)].first : nullptr;
    };
    for (std::size_t k = 0; k < n; ++k) {
        const LinkInfo& l = runLinks_[k];
        NodeItem* a = itemOf(l.from);
        NodeItem* b = itemOf(l.to);
        if (l.kind.rfind("nic", 0) == 0) {
            linkNic_[k] = a ? a : b;
            continue;
        }
        if (!a || !b || a == b) continue;
        // A tree link is drawn on the parent edge, an explicit one on its own line.
        const bool explicitLink = l.kind == "link";
        EdgeItem* best = nullptr;
        for (EdgeItem* e : a->edges()) {
            const bool joins = (e->from() == a && e->to() == b) || (e->from() == b && e->to() == a);
            if (!joins) continue;
            if (!best || e->isParentLink() != explicitLink) best = e;
        }
        if (!best) continue;
        linkEdge_[k] = best;
        linkDirection_[k] = best->from() == a ? 0 : 1;
        edgeLinkCount_[best][static_cast<std::size_t>(linkDirection_[k])]++;
    }
    for (EdgeItem* e : std::as_const(links_)) e->setUsage(-1, {});
    for (EdgeItem* e : std::as_const(parentEdges_)) e->setUsage(-1, {});
    for (NodeItem* it : std::as_const(items_)) it->setNicUsage(-1, -1, {});
}

EdgeItem* TopologyScene::edgeForRunLink(int link) {
    if (linksDirty_) mapRunLinks();
    return link >= 0 && link < static_cast<int>(linkEdge_.size()) ? linkEdge_[static_cast<std::size_t>(link)] : nullptr;
}

void TopologyScene::showLinkLoads(const std::vector<LinkLoad>& loads) {
    if (runLinks_.empty()) return;
    if (linksDirty_) mapRunLinks();
    struct Side {
        double rate = 0, capacity = 0, busiest = 0;
        int flows = 0, busy = 0;
        double linkCapacity = 0; ///< of the busiest
    };
    QHash<EdgeItem*, std::array<Side, 2>> edges;
    struct Nic {
        double in = -1, out = -1;
        QStringList lines;
    };
    QHash<NodeItem*, Nic> nics;
    for (const LinkLoad& l : loads) {
        if (l.link < 0 || l.link >= static_cast<int>(runLinks_.size())) continue;
        const auto k = static_cast<std::size_t>(l.link);
        const LinkInfo& info = runLinks_[k];
        const double u = info.capacityBytesPerS > 0 ? l.bytesPerS / info.capacityBytesPerS : 0.0;
        if (NodeItem* it = linkNic_[k]) {
            Nic& nic = nics[it];
            const bool in = info.kind == "nic-in";
            (in ? nic.in : nic.out) = std::max(in ? nic.in : nic.out, u);
            nic.lines << QObject::tr("%1: %2 of %3 (%4%), %5 flows")
                             .arg(QString::fromStdString(info.id), rateText(l.bytesPerS), rateText(info.capacityBytesPerS))
                             .arg(100 * u, 0, 'f', 0)
                             .arg(l.flows);
            continue;
        }
        EdgeItem* e = linkEdge_[k];
        if (!e) continue;
        Side& s = edges[e][static_cast<std::size_t>(linkDirection_[k])];
        s.rate += l.bytesPerS;
        s.capacity += info.capacityBytesPerS;
        s.flows += l.flows;
        s.busy++;
        if (u >= s.busiest) {
            s.busiest = u;
            s.linkCapacity = info.capacityBytesPerS;
        }
    }
    QSet<EdgeItem*> now;
    for (auto it = edges.cbegin(); it != edges.cend(); ++it) {
        EdgeItem* e = it.key();
        const std::array<int, 2> total = edgeLinkCount_.value(e);
        const QString a = e->from() ? e->from()->id() : QString(), b = e->to() ? e->to()->id() : QString();
        QStringList lines;
        double u = 0;
        for (int d = 0; d < 2; ++d) {
            const Side& s = it.value()[static_cast<std::size_t>(d)];
            const QString way = e->isParentLink() ? (d == 0 ? QObject::tr("up %1 → %2").arg(a, b) : QObject::tr("down %1 → %2").arg(b, a))
                                                  : (d == 0 ? QStringLiteral("%1 → %2").arg(a, b) : QStringLiteral("%1 → %2").arg(b, a));
            if (s.busy == 0) {
                lines << QObject::tr("%1: idle").arg(way);
                continue;
            }
            u = std::max(u, s.busiest);
            if (total[static_cast<std::size_t>(d)] <= 1)
                lines << QObject::tr("%1: %2 of %3 (%4%), %5 flows")
                             .arg(way, rateText(s.rate), rateText(s.capacity))
                             .arg(100 * s.busiest, 0, 'f', 0)
                             .arg(s.flows);
            else
                lines << QObject::tr("%1: %2 links of %3 busy, %4 in all, %5 flows; busiest %6% of %7")
                             .arg(way)
                             .arg(s.busy)
                             .arg(total[static_cast<std::size_t>(d)])
                             .arg(rateText(s.rate))
                             .arg(s.flows)
                             .arg(100 * s.busiest, 0, 'f', 0)
                             .arg(rateText(s.linkCapacity));
        }
        e->setUsage(u, lines.join('\n'));
        now.insert(e);
    }
    for (EdgeItem* e : std::as_const(usedEdges_))
        if (!now.contains(e)) e->setUsage(-1, {});
    usedEdges_ = now;
    QSet<NodeItem*> nicNow;
    for (auto it = nics.cbegin(); it != nics.cend(); ++it) {
        it.key()->setNicUsage(it.value().in, it.value().out, it.value().lines.join('\n'));
        nicNow.insert(it.key());
    }
    for (NodeItem* it : std::as_const(nicItems_))
        if (!nicNow.contains(it)) it->setNicUsage(-1, -1, {});
    nicItems_ = nicNow;
}

void TopologyScene::clearRunState() {
    for (NodeItem* it : std::as_const(items_))
        it->clearRun();
    messages_->clear();
    for (EdgeItem* e : std::as_const(links_)) e->setUsage(-1, {});
    for (EdgeItem* e : std::as_const(parentEdges_)) e->setUsage(-1, {});
    usedEdges_.clear();
    nicItems_.clear();
    update();
}

int TopologyScene::messagesShown() const {
    return messages_->size();
}

int TopologyScene::messageMarksShown() const {
    return messages_->marks().size();
}

int TopologyScene::edgesInUse() const {
    return usedEdges_.size();
}

void TopologyScene::viewScaleChanged() {
    messages_->refreshGeometry();
}

} // namespace fog
