#include "widgets/cluster/cluster_canvas.h"

#include "core/scenario/yaml_reader.h"
#include "widgets/cluster/cluster_editor.h"
#include "widgets/figures/run_plots.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QEvent>
#include <QFontMetricsF>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsView>
#include <QLabel>
#include <QMenu>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace fog {

using namespace fog::cluster;

namespace {

constexpr double kBoxW = 186, kBoxH = 94, kGap = 12, kTitle = 28, kMargin = 10, kFrameGap = 14;
constexpr int kColours[ClusterCanvas::Resources] = {2, 3, 1, 4}; // as the utilisation plot

QString num(double v) {
    return QString::fromStdString(formatNumber(v));
}

const QPalette& paletteOf(const QGraphicsItem* item, const QPalette& fallback) {
    if (item->scene() && !item->scene()->views().isEmpty())
        return item->scene()->views().first()->palette();
    return fallback;
}

class FrameItem : public QGraphicsRectItem {
  public:
    enum { Type = UserType + 171 };
    FrameItem(ClusterCanvas* canvas, QString cluster, QString title)
        : canvas_(canvas), cluster_(std::move(cluster)), title_(std::move(title)) {
        setFlags(ItemIsMovable | ItemIsSelectable);
        setToolTip(QObject::tr("Cluster %1: one agent of the learned scheduler. Drag to move; "
                               "right-click to add a server, duplicate or remove it.")
                       .arg(cluster_));
    }
    int type() const override { return Type; }
    const QString& cluster() const { return cluster_; }

    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override {
        const QPalette& pal = paletteOf(this, QPalette());
        QColor fill = pal.color(QPalette::WindowText);
        fill.setAlpha(14);
        QColor edge = pal.color(QPalette::WindowText);
        edge.setAlpha(90);
        p->setRenderHint(QPainter::Antialiasing);
        p->setBrush(fill);
        p->setPen(isSelected() ? QPen(pal.color(QPalette::Highlight), 2.5)
                               : QPen(edge, 1.2, Qt::DashLine));
        p->drawRoundedRect(rect().adjusted(1, 1, -1, -1), 8, 8);
        QFont f = p->font();
        f.setBold(true);
        p->setFont(f);
        p->setPen(pal.color(QPalette::WindowText));
        const QRectF line(kMargin, 4, rect().width() - 2 * kMargin, kTitle - 6);
        p->drawText(line, Qt::AlignLeft | Qt::AlignVCenter, cluster_);
        const double used = QFontMetricsF(f).horizontalAdvance(cluster_ + "  ");
        f.setBold(false);
        p->setFont(f);
        p->drawText(line.adjusted(used, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                    QFontMetricsF(f).elidedText(title_, Qt::ElideRight, line.width() - used));
    }

  protected:
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* e) override {
        QGraphicsRectItem::mouseReleaseEvent(e);
        if (e->buttonDownScenePos(Qt::LeftButton) != e->scenePos())
            canvas_->frameMoved(cluster_, pos());
    }

  private:
    ClusterCanvas* canvas_;
    QString cluster_, title_;
};

class ServerItem : public QGraphicsItem {
  public:
    enum { Type = UserType + 172 };
    ServerItem(ClusterCanvas* canvas, int row, QString id, QString cluster,
               std::array<double, ClusterCanvas::Resources> caps,
               std::array<double, ClusterCanvas::Resources> maxCaps)
        : canvas_(canvas), row_(row), id_(std::move(id)), cluster_(std::move(cluster)), caps_(caps),
          maxCaps_(maxCaps) {
        use_.fill(-1);
        setFlags(ItemIsMovable | ItemIsSelectable);
        setZValue(1);
        updateTip();
    }
    int type() const override { return Type; }
    int row() const { return row_; }
    const QString& id() const { return id_; }
    const QString& cluster() const { return cluster_; }
    double use(int r) const { return use_[r]; }
    void setUse(const std::array<double, ClusterCanvas::Resources>& u) {
        use_ = u;
        updateTip();
        update();
    }
    QRectF boundingRect() const override { return QRectF(0, 0, kBoxW, kBoxH); }

    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget*) override {
        const QPalette& pal = paletteOf(this, QPalette());
        const QColor text = pal.color(QPalette::Text);
        QColor edge = text;
        edge.setAlpha(110);
        p->setRenderHint(QPainter::Antialiasing);
        p->setBrush(pal.color(QPalette::Base));
        p->setPen(isSelected() ? QPen(pal.color(QPalette::Highlight), 3) : QPen(edge, 1));
        p->drawRoundedRect(boundingRect().adjusted(1.5, 1.5, -1.5, -1.5), 5, 5);
        QFont f = p->font();
        f.setBold(true);
        p->setFont(f);
        p->setPen(text);
        p->drawText(QRectF(8, 4, kBoxW - 16, 18), Qt::AlignLeft | Qt::AlignVCenter, id_);
        f.setBold(false);
        p->setFont(f);
        static const char* names[] = {"CPU", "GPU", "Mem", "BW"};
        static const char* units[] = {"", "", " GB", " Gb/s"};
        const double trackX = 88, trackMax = kBoxW - trackX - 10;
        for (int r = 0; r < ClusterCanvas::Resources; ++r) {
            const double y = 26 + r * 16;
            p->setPen(text);
            p->drawText(QRectF(8, y, trackX - 12, 14), Qt::AlignLeft | Qt::AlignVCenter,
                        QString("%1 %2%3").arg(names[r], num(caps_[r]), units[r]));
            const QColor c = seriesColor(kColours[r]);
            const double share = maxCaps_[r] > 0 ? caps_[r] / maxCaps_[r] : 0.0;
            const double w = caps_[r] > 0 ? std::max(6.0, trackMax * share) : 0.0;
            QColor light = c;
            light.setAlpha(45);
            p->setPen(QPen(c, 1));
            p->setBrush(light);
            p->drawRect(QRectF(trackX, y + 2, w, 10));
            if (use_[r] >= 0 && w > 0) {
                p->setPen(Qt::NoPen);
                p->setBrush(c);
                p->drawRect(QRectF(trackX, y + 2, w * std::clamp(use_[r], 0.0, 1.0), 10));
            }
        }
    }

  protected:
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* e) override {
        QGraphicsItem::mouseReleaseEvent(e);
        if (e->button() == Qt::LeftButton && e->buttonDownScenePos(Qt::LeftButton) != e->scenePos())
            canvas_->serverDropped(row_, cluster_, e->scenePos(), pos());
    }
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent* e) override {
        QGraphicsItem::mouseDoubleClickEvent(e);
        canvas_->editRow(row_);
    }

  private:
    void updateTip() {
        QString tip = QObject::tr("<b>%1</b> in cluster %2<br>%3 CPUs, %4 GPUs, %5 GB memory, "
                                  "%6 Gb/s bandwidth")
                          .arg(id_.toHtmlEscaped(), cluster_.toHtmlEscaped(), num(caps_[0]),
                               num(caps_[1]), num(caps_[2]), num(caps_[3]));
        if (use_[0] >= 0)
            tip += QObject::tr("<br>In use: CPU %1%, GPU %2%, memory %3%, bandwidth %4%")
                       .arg(use_[0] * 100, 0, 'f', 0)
                       .arg(use_[1] * 100, 0, 'f', 0)
                       .arg(use_[2] * 100, 0, 'f', 0)
                       .arg(use_[3] * 100, 0, 'f', 0);
        tip += QObject::tr("<br>Double-click to edit it in the table; drag it onto another "
                           "cluster to move it there.");
        setToolTip(tip);
    }

    ClusterCanvas* canvas_;
    int row_;
    QString id_, cluster_;
    std::array<double, ClusterCanvas::Resources> caps_, maxCaps_, use_;
};

} // namespace

ClusterCanvas::ClusterCanvas(ClusterEditor* editor, QWidget* parent)
    : QWidget(parent), editor_(editor) {
    setObjectName("clusterCanvas");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(2);
    auto* bar = new QToolBar(this);
    bar->setObjectName("clusterCanvasBar");
    bar->setIconSize(QSize(16, 16));
    addCluster_ = bar->addAction(tr("Add cluster"));
    addServer_ = bar->addAction(tr("Add server"));
    duplicate_ = bar->addAction(tr("Duplicate"));
    remove_ = bar->addAction(tr("Remove"));
    addCluster_->setToolTip(tr("A new edge cluster with one server"));
    addServer_->setToolTip(tr("A server in the selected cluster (or the last one)"));
    duplicate_->setToolTip(tr("Copies of the selected servers, or of the selected cluster"));
    remove_->setToolTip(tr("Removes the selected servers or clusters (Delete)"));
    mode_ = new QLabel(this);
    mode_->setWordWrap(true);
    bar->addWidget(mode_);
    layout->addWidget(bar);

    scene_ = new QGraphicsScene(this);
    view_ = new QGraphicsView(scene_, this);
    view_->setObjectName("clusterCanvasView");
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setDragMode(QGraphicsView::RubberBandDrag);
    view_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    view_->viewport()->installEventFilter(this);
    layout->addWidget(view_, 1);

    remove_->setShortcut(QKeySequence::Delete);
    remove_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    view_->addAction(remove_);

    connect(addCluster_, &QAction::triggered, editor_, &ClusterEditor::addCluster);
    connect(addServer_, &QAction::triggered, this, &ClusterCanvas::addServerHere);
    connect(duplicate_, &QAction::triggered, this, &ClusterCanvas::duplicateSelected);
    connect(remove_, &QAction::triggered, this, &ClusterCanvas::removeSelected);
    connect(scene_, &QGraphicsScene::selectionChanged, this, &ClusterCanvas::sceneSelectionChanged);
    connect(editor_->serverTable(), &QTableWidget::itemSelectionChanged, this,
            &ClusterCanvas::tableSelectionChanged);
    connect(editor_, &ClusterEditor::changed, this, &ClusterCanvas::rebuild);
    connect(editor_, &ClusterEditor::filled, this, [this] {
        clusterPos_.clear();
        serverPos_.clear();
        clearUse();
        rebuild();
    });
    clearUse();
    rebuild();
}

ClusterCanvas::~ClusterCanvas() {
    // The scene's items deselect as it goes: nothing to mirror into the table any more.
    syncing_ = true;
    scene_->disconnect(this); // (the editor may be gone already: its connections went with it)
}

void ClusterCanvas::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        view_->setBackgroundBrush(palette().color(QPalette::Window));
        scene_->update();
    }
}

void ClusterCanvas::rebuild() {
    syncing_ = true;
    scene_->clear();
    syncing_ = false;
    view_->setBackgroundBrush(palette().color(QPalette::Window));
    const ClusterScenario s = editor_->scenario();
    const QTableWidget* t = editor_->serverTable();
    struct Row {
        int row;
        QString id;
        std::array<double, Resources> caps;
    };
    std::vector<QString> order;
    QHash<QString, std::vector<Row>> byCluster;
    std::array<double, Resources> maxCaps{};
    for (int r = 0; r < t->rowCount(); ++r) {
        const QString cid = t->item(r, ClusterEditor::SCluster)
                                ? t->item(r, ClusterEditor::SCluster)->text().trimmed()
                                : QString();
        const QString sid = t->item(r, ClusterEditor::SId)
                                ? t->item(r, ClusterEditor::SId)->text().trimmed()
                                : QString();
        auto& rows = byCluster[cid];
        if (rows.empty()) order.push_back(cid);
        // The scenario groups rows the same way: the k-th row of a cluster is its k-th server.
        ServerSpec spec;
        for (const auto& c : s.clusters)
            if (QString::fromStdString(c.id) == cid && rows.size() < c.servers.size())
                spec = c.servers[rows.size()];
        const std::array<double, Resources> caps = {double(spec.cpus), double(spec.gpus),
                                                    spec.memoryGb, spec.bandwidthGbps};
        for (int i = 0; i < Resources; ++i)
            maxCaps[i] = std::max(maxCaps[i], caps[i]);
        rows.push_back({r, sid, caps});
    }
    if (order.empty()) {
        auto* hint = scene_->addText(
            tr("No edge servers. Right-click here or use Add cluster to draw one."));
        hint->setDefaultTextColor(palette().color(QPalette::WindowText));
    }
    const double width = std::max(400, view_->width() - 6); // (a scroll bar must not re-wrap)
    double x = 0, y = 0, lineHeight = 0;
    for (const QString& cid : order) {
        const auto& rows = byCluster[cid];
        const int cols = std::clamp(int(rows.size()), 1, 3);
        double cpus = 0, gpus = 0;
        for (const auto& r : rows) {
            cpus += r.caps[Cpu];
            gpus += r.caps[Gpu];
        }
        auto* frame =
            new FrameItem(this, cid,
                          tr("%1 CPUs · %2 GPUs · %n server(s)", nullptr, int(rows.size()))
                              .arg(num(cpus), num(gpus)));
        std::vector<ServerItem*> boxes;
        double right = kBoxW + kMargin, bottom = kTitle + kBoxH;
        for (std::size_t k = 0; k < rows.size(); ++k) {
            auto* box = new ServerItem(this, rows[k].row, rows[k].id, cid, rows[k].caps, maxCaps);
            box->setParentItem(frame);
            const QPointF automatic(kMargin + double(k % cols) * (kBoxW + kGap),
                                    kTitle + double(k / cols) * (kBoxH + kGap));
            box->setPos(serverPos_.value(rows[k].id, automatic));
            right = std::max(right, box->pos().x() + kBoxW);
            bottom = std::max(bottom, box->pos().y() + kBoxH);
            if (use_.contains(rows[k].id)) box->setUse(use_.value(rows[k].id));
            boxes.push_back(box);
        }
        const QRectF rect(0, 0, std::max(right + kMargin, kBoxW + 2 * kMargin), bottom + kMargin);
        frame->setRect(rect);
        if (x > 0 && x + rect.width() > width) {
            x = 0;
            y += lineHeight + kFrameGap;
            lineHeight = 0;
        }
        frame->setPos(clusterPos_.value(cid, QPointF(x, y)));
        x += rect.width() + kFrameGap;
        lineHeight = std::max(lineHeight, rect.height());
        scene_->addItem(frame);
    }
    scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-8, -8, 8, 8));
    tableSelectionChanged();
}

void ClusterCanvas::frameMoved(const QString& cluster, const QPointF& pos) {
    clusterPos_[cluster] = pos;
    scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-8, -8, 8, 8));
}

void ClusterCanvas::serverDropped(int row, const QString& fromCluster, const QPointF& scenePos,
                                  const QPointF& local) {
    QString target = fromCluster;
    QPointF targetLocal = local;
    for (QGraphicsItem* it : scene_->items(scenePos)) {
        if (it->type() != FrameItem::Type) continue;
        auto* frame = static_cast<FrameItem*>(it);
        if (frame->cluster() == fromCluster) break;
        target = frame->cluster();
        targetLocal = frame->mapFromScene(scenePos) - QPointF(kBoxW / 2, kBoxH / 2);
        break;
    }
    const QTableWidget* t = editor_->serverTable();
    const QString id = t->item(row, ClusterEditor::SId)
                           ? t->item(row, ClusterEditor::SId)->text().trimmed()
                           : QString();
    serverPos_[id] = QPointF(std::max(kMargin, targetLocal.x()), std::max(kTitle, targetLocal.y()));
    // The item that called is deleted by a rebuild: finish its event first.
    QTimer::singleShot(0, this, [this, row, target, fromCluster] {
        if (target != fromCluster)
            editor_->setServerCluster(row, target); // the editor's change rebuilds
        else
            rebuild();
    });
}

void ClusterCanvas::editRow(int row) {
    QTableWidget* t = editor_->serverTable();
    if (row < 0 || row >= t->rowCount()) return;
    t->setCurrentCell(row, ClusterEditor::SCpus);
    t->scrollToItem(t->item(row, ClusterEditor::SCpus));
    t->setFocus();
    t->editItem(t->item(row, ClusterEditor::SCpus));
}

QList<int> ClusterCanvas::selectedRows() const {
    std::set<int> rows;
    for (QGraphicsItem* it : scene_->selectedItems()) {
        if (it->type() == ServerItem::Type) rows.insert(static_cast<ServerItem*>(it)->row());
        if (it->type() == FrameItem::Type)
            for (QGraphicsItem* child : it->childItems())
                if (child->type() == ServerItem::Type)
                    rows.insert(static_cast<ServerItem*>(child)->row());
    }
    return QList<int>(rows.begin(), rows.end());
}

void ClusterCanvas::sceneSelectionChanged() {
    if (syncing_) return;
    const QList<int> rows = selectedRows();
    QTableWidget* t = editor_->serverTable();
    syncing_ = true;
    t->clearSelection();
    if (!rows.isEmpty()) {
        t->setCurrentCell(rows.first(), ClusterEditor::SId, QItemSelectionModel::NoUpdate);
        for (int r : rows)
            t->setRangeSelected(QTableWidgetSelectionRange(r, 0, r, ClusterEditor::SColumns - 1),
                                true);
        t->scrollToItem(t->item(rows.first(), ClusterEditor::SId));
    }
    syncing_ = false;
    updateActions();
}

void ClusterCanvas::tableSelectionChanged() {
    if (syncing_) return;
    std::set<int> rows;
    for (const auto& range : editor_->serverTable()->selectedRanges())
        for (int r = range.topRow(); r <= range.bottomRow(); ++r)
            rows.insert(r);
    syncing_ = true;
    for (QGraphicsItem* it : scene_->items()) {
        if (it->type() == ServerItem::Type) {
            it->setSelected(rows.count(static_cast<ServerItem*>(it)->row()) > 0);
            if (it->isSelected()) view_->ensureVisible(it, 8, 8);
        } else if (it->type() == FrameItem::Type) {
            it->setSelected(false);
        }
    }
    syncing_ = false;
    updateActions();
}

void ClusterCanvas::updateActions() {
    const bool any = !scene_->selectedItems().isEmpty();
    duplicate_->setEnabled(any);
    remove_->setEnabled(any);
}

void ClusterCanvas::addServerHere() {
    for (QGraphicsItem* it : scene_->selectedItems()) {
        if (it->type() == ServerItem::Type)
            return editor_->addServerIn(static_cast<ServerItem*>(it)->cluster());
        if (it->type() == FrameItem::Type)
            return editor_->addServerIn(static_cast<FrameItem*>(it)->cluster());
    }
    editor_->addServer();
}

void ClusterCanvas::duplicateSelected() {
    QStringList frames;
    QList<int> rows;
    for (QGraphicsItem* it : scene_->selectedItems()) {
        if (it->type() == FrameItem::Type) frames << static_cast<FrameItem*>(it)->cluster();
        if (it->type() == ServerItem::Type) rows << static_cast<ServerItem*>(it)->row();
    }
    for (const QString& c : frames)
        editor_->duplicateCluster(c);
    if (frames.isEmpty()) {
        std::sort(rows.begin(), rows.end(), std::greater<int>());
        for (int r : rows) // from the bottom up: an insertion does not move the rows above
            editor_->duplicateServer(r);
    }
}

void ClusterCanvas::removeSelected() {
    const QList<int> rows = selectedRows();
    if (!rows.isEmpty()) editor_->removeServerRows(rows);
}

QList<QAction*> ClusterCanvas::contextActions(const QPointF& scenePos, QObject* owner) {
    QList<QAction*> out;
    auto add = [&](const QString& text, std::function<void()> f) {
        auto* a = new QAction(text, owner);
        connect(a, &QAction::triggered, this, [f] { f(); });
        out << a;
    };
    ServerItem* box = nullptr;
    FrameItem* frame = nullptr;
    for (QGraphicsItem* it : scene_->items(scenePos)) {
        if (!box && it->type() == ServerItem::Type) box = static_cast<ServerItem*>(it);
        if (!frame && it->type() == FrameItem::Type) frame = static_cast<FrameItem*>(it);
    }
    if (box) {
        const int row = box->row();
        const QString cluster = box->cluster(), id = box->id();
        add(tr("Add server in %1").arg(cluster),
            [this, cluster] { editor_->addServerIn(cluster); });
        add(tr("Duplicate %1").arg(id), [this, row] { editor_->duplicateServer(row); });
        add(tr("Remove %1").arg(id), [this, row] { editor_->removeServerRows({row}); });
        add(tr("Edit %1 in the table").arg(id), [this, row] { editRow(row); });
    } else if (frame) {
        const QString cluster = frame->cluster();
        add(tr("Add server in %1").arg(cluster),
            [this, cluster] { editor_->addServerIn(cluster); });
        add(tr("Duplicate cluster %1").arg(cluster),
            [this, cluster] { editor_->duplicateCluster(cluster); });
        add(tr("Remove cluster %1").arg(cluster),
            [this, cluster] { editor_->removeCluster(cluster); });
    }
    add(tr("Add cluster"), [this] { editor_->addCluster(); });
    return out;
}

bool ClusterCanvas::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_->viewport() && event->type() == QEvent::ContextMenu) {
        auto* e = static_cast<QContextMenuEvent*>(event);
        const QPointF at = view_->mapToScene(e->pos());
        QMenu menu(this);
        const QList<QAction*> actions = contextActions(at, &menu);
        for (int i = 0; i < actions.size(); ++i) {
            if (i == actions.size() - 1 && i > 0) menu.addSeparator();
            menu.addAction(actions[i]);
        }
        menu.exec(e->globalPos());
        return true;
    }
    if (watched == view_->viewport() && event->type() == QEvent::Resize && clusterPos_.isEmpty())
        QTimer::singleShot(0, this, &ClusterCanvas::rebuild); // re-wrap the frames
    return QWidget::eventFilter(watched, event);
}

void ClusterCanvas::beginLive(const ClusterScenario& s) {
    liveIds_.clear();
    liveCaps_.clear();
    use_.clear();
    for (const auto& ref : flattenServers(s)) {
        liveIds_.push_back(QString::fromStdString(ref.spec->id));
        liveCaps_.push_back({double(ref.spec->cpus), double(ref.spec->gpus), ref.spec->memoryGb,
                             ref.spec->bandwidthGbps});
    }
    mode_->setText(tr("Live: the fill shows each server's share in use."));
    setLive({});
}

void ClusterCanvas::setLive(const std::vector<ServerState>& servers) {
    for (std::size_t i = 0; i < liveIds_.size(); ++i) {
        std::array<double, Resources> u{};
        if (i < servers.size()) {
            const ServerState& v = servers[i];
            const std::array<double, Resources> free = {double(v.freeCpus), double(v.freeGpus),
                                                        v.freeMemoryGb, v.freeBandwidthGbps};
            for (int r = 0; r < Resources; ++r)
                u[r] = liveCaps_[i][r] > 0 ? (liveCaps_[i][r] - free[r]) / liveCaps_[i][r] : 0.0;
        }
        use_[liveIds_[i]] = u;
    }
    for (QGraphicsItem* it : scene_->items())
        if (it->type() == ServerItem::Type) {
            auto* box = static_cast<ServerItem*>(it);
            if (use_.contains(box->id())) box->setUse(use_.value(box->id()));
        }
}

void ClusterCanvas::showMeans(const ClusterScenario& s, const ClusterResult& r) {
    const double span = r.summary.makespan;
    if (span <= 0) return clearUse();
    beginLive(s);
    std::vector<std::array<double, Resources>> area(liveIds_.size(), {0, 0, 0, 0});
    for (const auto& iv : r.intervals) {
        if (iv.server < 0 || iv.server >= int(area.size())) continue;
        const double d = iv.end - iv.start;
        area[iv.server][Cpu] += d * iv.cpus;
        area[iv.server][Gpu] += d * iv.gpus;
        area[iv.server][Memory] += d * iv.memoryGb;
        area[iv.server][Bandwidth] += d * iv.bandwidthGbps;
    }
    std::vector<std::array<double, Resources>> shares(liveIds_.size());
    for (std::size_t i = 0; i < liveIds_.size(); ++i)
        for (int k = 0; k < Resources; ++k)
            shares[i][k] = liveCaps_[i][k] > 0 ? area[i][k] / (span * liveCaps_[i][k]) : 0.0;
    for (std::size_t i = 0; i < liveIds_.size(); ++i)
        use_[liveIds_[i]] = shares[i];
    for (QGraphicsItem* it : scene_->items())
        if (it->type() == ServerItem::Type) {
            auto* box = static_cast<ServerItem*>(it);
            if (use_.contains(box->id())) box->setUse(use_.value(box->id()));
        }
    mode_->setText(tr("Fill: each server's mean share in use over the last episode (%1, seed %2).")
                       .arg(QString::fromStdString(r.summary.scheduler))
                       .arg(r.summary.seed));
}

void ClusterCanvas::clearUse() {
    use_.clear();
    liveIds_.clear();
    liveCaps_.clear();
    for (QGraphicsItem* it : scene_->items())
        if (it->type() == ServerItem::Type) static_cast<ServerItem*>(it)->setUse({-1, -1, -1, -1});
    mode_->setText(tr("Track length: capacity beside the largest server. Right-click to add, "
                      "duplicate, remove; drag to arrange; double-click to edit."));
}

double ClusterCanvas::shownUse(int row, Resource resource) const {
    for (QGraphicsItem* it : scene_->items())
        if (it->type() == ServerItem::Type && static_cast<ServerItem*>(it)->row() == row)
            return static_cast<ServerItem*>(it)->use(resource);
    return -1;
}

int ClusterCanvas::boxCount() const {
    int n = 0;
    for (QGraphicsItem* it : scene_->items())
        n += it->type() == ServerItem::Type;
    return n;
}

int ClusterCanvas::frameCount() const {
    int n = 0;
    for (QGraphicsItem* it : scene_->items())
        n += it->type() == FrameItem::Type;
    return n;
}

QPointF ClusterCanvas::boxCenter(int row) const {
    for (QGraphicsItem* it : scene_->items())
        if (it->type() == ServerItem::Type && static_cast<ServerItem*>(it)->row() == row)
            return it->sceneBoundingRect().center();
    return {};
}

QPointF ClusterCanvas::frameTitlePoint(const QString& cluster) const {
    for (QGraphicsItem* it : scene_->items())
        if (it->type() == FrameItem::Type && static_cast<FrameItem*>(it)->cluster() == cluster)
            return it->mapToScene(QPointF(kMargin + 4, kTitle / 2));
    return {};
}

} // namespace fog
