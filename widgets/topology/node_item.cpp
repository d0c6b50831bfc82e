#include "widgets/topology/node_item.h"

#include "core/scenario/yaml_reader.h"
#include "widgets/plots/run_plots.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_glyphs.h"
#include "widgets/topology/topology_scene.h"

#include <QApplication>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

#include <cmath>

namespace fog {

namespace {

constexpr qreal kMemberStep = 18;
constexpr int kMemberColumns = 20;

QPalette paletteOf(QWidget* w) {
    return w ? w->palette() : QApplication::palette();
}

QString shortNumber(double v) {
    if (std::abs(v) >= 1e6) return QString::number(v / 1e6, 'g', 3) + "M";
    if (std::abs(v) >= 1e4) return QString::number(v / 1e3, 'g', 3) + "k";
    return QString::number(v, 'g', 4);
}

QString rangeText(const Range& r) {
    return r.isExact() ? shortNumber(r.min)
                       : shortNumber(r.min) + QStringLiteral("–") + shortNumber(r.max);
}

QString roleText(Role r) {
    switch (r) {
    case Role::Trainer:
        return QObject::tr("trainer");
    case Role::Aggregator:
        return QObject::tr("aggregator");
    case Role::Both:
        return QObject::tr("trains + aggregates");
    }
    return {};
}

} // namespace

// --- MemberItem ------------------------------------------------------------------------------

MemberItem::MemberItem(NodeItem* group, int index) : QGraphicsItem(group), index_(index) {
    setToolTip(group->id() + "-" + QString::number(index));
    setAcceptedMouseButtons(Qt::NoButton); // clicks select and move the group
}

NodeItem* MemberItem::group() const {
    return static_cast<NodeItem*>(parentItem());
}

QRectF MemberItem::boundingRect() const {
    return {-kSize / 2, -kSize / 2, kSize, kSize};
}

void MemberItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* w) {
    const QPalette pal = paletteOf(w);
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(QPen(pal.color(QPalette::WindowText), 1));
    p->setBrush(state_ >= 0 ? stateColor(static_cast<NodeState>(state_))
                            : tierColor(group()->tier()));
    p->drawEllipse(boundingRect().adjusted(1, 1, -1, -1));
}

// --- NodeItem --------------------------------------------------------------------------------

NodeItem::NodeItem(const QString& id) : id_(id) {
    setFlags(ItemIsMovable | ItemIsSelectable | ItemSendsGeometryChanges);
    setAcceptHoverEvents(false);
    setZValue(1);
}

void NodeItem::setId(const QString& id) {
    id_ = id;
    for (MemberItem* m : members_)
        m->setToolTip(id + "-" + QString::number(m->index()));
    update();
}

void NodeItem::setSpec(const NodeSpec& g, const QString& nestedUnder) {
    if (!g.group) {
        const bool wasGroup = group_;
        group_ = false;
        count_ = 1;
        tier_ = g.tier;
        role_ = g.role;
        figures_ = QObject::tr("%1 samples/s").arg(rangeText(g.compute.throughput));
        cost_ = QStringLiteral("$%1/h · %2").arg(shortNumber(g.pricePerHour.min), roleText(g.role));
        if (wasGroup) setExpanded(false);
        baseToolTip_ = QObject::tr("%1 (%2, %3)").arg(id_, toString(g.tier), roleText(g.role));
        setProblems(problems_);
        update();
        return;
    }
    const bool countChanged = g.count != count_;
    group_ = true;
    count_ = g.count;
    tier_ = g.tier;
    role_ = g.role;
    figures_ = QObject::tr("%1 samples/s").arg(rangeText(g.compute.throughput));
    cost_ = QStringLiteral("$%1/h · %2").arg(rangeText(g.pricePerHour), roleText(g.role));
    baseToolTip_ = nestedUnder.isEmpty()
                       ? QObject::tr("%1: %2 members %1-0 .. %1-%3 (double-click to %4)")
                             .arg(id_)
                             .arg(g.count)
                             .arg(g.count - 1)
                             .arg(expanded_ ? QObject::tr("collapse") : QObject::tr("expand"))
                       : QObject::tr("%1: %2 members under each member of group %3, named "
                                     "%1-<index of that member>-0 .. %1-…-%4")
                             .arg(id_)
                             .arg(g.count)
                             .arg(nestedUnder)
                             .arg(g.count - 1);
    setProblems(problems_);
    if (expanded_ && countChanged) {
        setExpanded(false);
        setExpanded(true);
    }
    update();
}

void NodeItem::setProblems(const QStringList& messages) {
    const bool changed = messages != problems_;
    problems_ = messages;
    setToolTip(problems_.isEmpty() ? baseToolTip_
                                   : baseToolTip_ + "\n\n" + QObject::tr("Problems:") + "\n• " + problems_.join("\n• "));
    if (changed) update();
}

QRectF NodeItem::membersRect() const {
    const int shown = std::min(count_, kMaxShownMembers);
    const int cols = std::min(shown, kMemberColumns);
    const int rows = (shown + cols - 1) / std::max(cols, 1);
    const qreal w = cols * kMemberStep, h = rows * kMemberStep;
    return {-w / 2, kHeight / 2 + 10, w, h + (count_ > shown ? 16 : 0)};
}

QRectF NodeItem::boundingRect() const {
    QRectF r = boxRect().adjusted(-4, -12, 10, 4); // room for the problem badge
    if (expanded_) r = r.united(membersRect().adjusted(-2, -2, 2, 2));
    return r;
}

QPainterPath NodeItem::shape() const {
    QPainterPath path;
    path.addRoundedRect(boxRect(), 8, 8);
    if (expanded_) path.addRect(membersRect());
    return path;
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) {
    const QPalette pal = paletteOf(w);
    const qreal lod = o->levelOfDetailFromTransform(p->worldTransform());
    const QRectF box = boxRect();
    p->setRenderHint(QPainter::Antialiasing);

    QColor fill = pal.color(QPalette::Base);
    if (runState_ >= 0) {
        QColor s = stateColor(static_cast<NodeState>(runState_));
        fill = QColor::fromRgbF(0.55 * s.redF() + 0.45 * fill.redF(),
                                0.55 * s.greenF() + 0.45 * fill.greenF(),
                                0.55 * s.blueF() + 0.45 * fill.blueF());
    }
    const QColor accent = tierColor(tier_);
    if (group_) { // a second outline behind: "several"
        p->setPen(QPen(accent, 1.5));
        p->setBrush(pal.color(QPalette::AlternateBase));
        p->drawRoundedRect(box.translated(4, -4), 8, 8);
    }
    p->setPen(isSelected() ? QPen(pal.color(QPalette::Highlight), 3) : QPen(accent, 2));
    p->setBrush(fill);
    p->drawRoundedRect(box, 8, 8);

    if (!problems_.isEmpty()) {
        // A problem: red outline and a "!" badge at the top right, seen at any zoom.
        const QColor warn(213, 60, 30);
        p->setPen(QPen(warn, 2.5, Qt::DashLine));
        p->setBrush(Qt::NoBrush);
        p->drawRoundedRect(box.adjusted(-3, -3, 3, 3), 9, 9);
        const QRectF badge(box.right() - 12, box.top() - 10, 20, 20);
        p->setPen(QPen(Qt::white, 1.5));
        p->setBrush(warn);
        p->drawEllipse(badge);
        QFont bf = QApplication::font();
        bf.setPixelSize(14);
        bf.setBold(true);
        p->setFont(bf);
        p->drawText(badge, Qt::AlignCenter, QStringLiteral("!"));
    }

    if (lod < 0.35) return; // far out: boxes only, text would be unreadable anyway

    const QRectF glyph(box.left() + 6, box.top() + 9, 38, 38);
    paintTierGlyph(p, glyph, tier_, group_, pal.color(QPalette::Text));

    const QRectF text(glyph.right() + 6, box.top() + 5, box.right() - glyph.right() - 10,
                      box.height() - 10);
    QFont f = QApplication::font();
    f.setPixelSize(13);
    f.setBold(true);
    p->setFont(f);
    p->setPen(pal.color(QPalette::Text));
    const QString title = group_ ? QStringLiteral("%1 × %2").arg(id_).arg(count_) : id_;
    // A long id shrinks before it is cut ("phone-0 × 1..." told nothing).
    while (f.pixelSize() > 9 && QFontMetrics(f).horizontalAdvance(title) > text.width()) f.setPixelSize(f.pixelSize() - 1);
    p->setFont(f);
    p->drawText(QRectF(text.left(), text.top(), text.width(), 17), Qt::AlignLeft | Qt::AlignVCenter,
                QFontMetrics(f).elidedText(title, Qt::ElideMiddle, int(text.width())));
    f.setPixelSize(10);
    f.setBold(false);
    p->setFont(f);
    QColor dim = pal.color(QPalette::Text);
    dim.setAlphaF(0.75);
    p->setPen(dim);
    const QFontMetrics fm(f);
    p->drawText(QRectF(text.left(), text.top() + 18, text.width(), 14),
                Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(figures_, Qt::ElideRight, int(text.width())));
    p->drawText(QRectF(text.left(), text.top() + 32, text.width(), 14),
                Qt::AlignLeft | Qt::AlignVCenter,
                fm.elidedText(cost_, Qt::ElideRight, int(text.width())));

    if (group_ && hasRunCounts_) { // stacked bar: members per state
        const QRectF bar(box.left() + 8, box.bottom() - 7, box.width() - 16, 4);
        int total = 0;
        for (int c : runCounts_)
            total += c;
        qreal x = bar.left();
        p->setPen(Qt::NoPen);
        for (int s = 0; s < 5 && total > 0; ++s) {
            const qreal wS = bar.width() * runCounts_[static_cast<std::size_t>(s)] / total;
            p->setBrush(stateColor(static_cast<NodeState>(s)));
            p->drawRect(QRectF(x, bar.top(), wS, bar.height()));
            x += wS;
        }
    }
    if (expanded_ && count_ > kMaxShownMembers) {
        p->setPen(dim);
        const QRectF m = membersRect();
        p->drawText(QRectF(m.left(), m.bottom() - 14, m.width(), 14), Qt::AlignCenter,
                    QObject::tr("+ %1 more").arg(count_ - kMaxShownMembers));
    }
}

QPointF NodeItem::anchor(int member) const {
    if (MemberItem* m = this->member(member)) return m->scenePos();
    return scenePos();
}

QRectF NodeItem::anchorRect(int member) const {
    if (MemberItem* m = this->member(member)) return m->sceneBoundingRect();
    return boxRect().translated(scenePos());
}

MemberItem* NodeItem::member(int k) const {
    return expanded_ && k >= 0 && k < members_.size() ? members_[k] : nullptr;
}

void NodeItem::layoutMembers() {
    const QRectF r = membersRect();
    for (int k = 0; k < members_.size(); ++k)
        members_[k]->setPos(r.left() + (k % kMemberColumns + 0.5) * kMemberStep,
                            r.top() + (k / kMemberColumns + 0.5) * kMemberStep);
}

void NodeItem::setExpanded(bool on) {
    if (on == expanded_ || (on && !group_)) return;
    prepareGeometryChange();
    expanded_ = on;
    qDeleteAll(members_);
    members_.clear();
    if (on) {
        const int shown = std::min(count_, kMaxShownMembers);
        members_.reserve(shown);
        for (int k = 0; k < shown; ++k)
            members_.append(new MemberItem(this, k));
        layoutMembers();
    }
    for (EdgeItem* e : edges_)
        e->adjust();
    update();
}

void NodeItem::setRunState(int state) {
    if (state == runState_) return;
    runState_ = state;
    update();
}

void NodeItem::setRunCounts(const std::array<int, 5>& counts) {
    if (hasRunCounts_ && counts == runCounts_) return;
    runCounts_ = counts;
    hasRunCounts_ = true;
    update();
}

void NodeItem::setMemberState(int k, int state) {
    if (MemberItem* m = member(k)) m->setState(state);
}

void NodeItem::clearRun() {
    runState_ = -1;
    hasRunCounts_ = false;
    for (MemberItem* m : members_)
        m->setState(-1);
    update();
}

QVariant NodeItem::itemChange(GraphicsItemChange change, const QVariant& value) {
    if (change == ItemPositionChange)
        if (auto* s = qobject_cast<TopologyScene*>(scene()); s && s->isDraggingNodes())
            return s->dragPosition(this, value.toPointF());
    if (change == ItemPositionHasChanged)
        for (EdgeItem* e : edges_)
            e->adjust();
    return QGraphicsItem::itemChange(change, value);
}

void NodeItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) {
    if (group_ && e->button() == Qt::LeftButton) {
        setExpanded(!expanded_);
        e->accept();
        return;
    }
    QGraphicsItem::mouseDoubleClickEvent(e);
}

} // namespace fog
