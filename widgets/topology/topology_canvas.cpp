#include "widgets/topology/topology_canvas.h"

#include "widgets/document/scenario_document.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/run_legend.h"
#include "widgets/topology/topology_scene.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDragEnterEvent>
#include <QMenu>
#include <QMimeData>
#include <QScrollBar>
#include <QUndoStack>
#include <QWheelEvent>

#include <cmath>

namespace fog {

namespace {
constexpr qreal kMinZoom = 0.01;
constexpr qreal kMaxZoom = 4.0;
} // namespace

TopologyCanvas::TopologyCanvas(ScenarioDocument* doc, QWidget* parent)
    : QGraphicsView(parent), doc_(doc), scene_(new TopologyScene(doc, this)) {
    setScene(scene_);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setAcceptDrops(true);
    viewport()->setAcceptDrops(true); // drops are delivered to the viewport
    setFrameShape(QFrame::NoFrame);

    auto make = [this](const QString& text, const QKeySequence& key, auto slot) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(a, &QAction::triggered, this, slot);
        addAction(a);
        return a;
    };
    delete_ = make(tr("&Delete"), QKeySequence::Delete, &TopologyCanvas::deleteSelection);
    cut_ = make(tr("Cu&t"), QKeySequence::Cut, &TopologyCanvas::cut);
    copy_ = make(tr("&Copy"), QKeySequence::Copy, &TopologyCanvas::copy);
    paste_ = make(tr("&Paste"), QKeySequence::Paste, &TopologyCanvas::paste);
    selectAll_ = make(tr("Select &All"), QKeySequence::SelectAll, &TopologyCanvas::selectAll);
    autoLayout_ = make(tr("Auto &Layout"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L),
                       &TopologyCanvas::autoLayout);
    zoomIn_ = make(tr("Zoom &In"), QKeySequence::ZoomIn, &TopologyCanvas::zoomIn);
    zoomOut_ = make(tr("Zoom &Out"), QKeySequence::ZoomOut, &TopologyCanvas::zoomOut);
    zoomFit_ =
        make(tr("&Fit to View"), QKeySequence(Qt::CTRL | Qt::Key_0), &TopologyCanvas::zoomFit);
    snap_ = new QAction(tr("&Snap to Grid"), this);
    snap_->setCheckable(true);
    snap_->setChecked(scene_->snapToGrid());
    connect(snap_, &QAction::toggled, this, &TopologyCanvas::toggleSnap);
    addAction(snap_);
    linkMode_ = new QAction(tr("Draw &Links"), this);
    linkMode_->setCheckable(true);
    linkMode_->setToolTip(tr("Drag from one node to another to link them (Shift+drag also works)"));
    linkMode_->setShortcut(QKeySequence(Qt::Key_L));
    linkMode_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(linkMode_, &QAction::toggled, this, &TopologyCanvas::setLinkMode);
    addAction(linkMode_);

    connect(scene_, &QGraphicsScene::selectionChanged, this, &TopologyCanvas::updateActions);
    updateActions();
    legend_ = new RunLegend(this); // in a margin under the viewport, never over the drawing
    legend_->hide();
}

void TopologyCanvas::resizeEvent(QResizeEvent* e) {
    QGraphicsView::resizeEvent(e);
    placeLegend();
}

void TopologyCanvas::placeLegend() {
    const int h = legend_->isHidden() ? 0 : legend_->heightForWidth(viewport()->width());
    if (viewportMargins().bottom() != h) {
        // The drawing keeps its centre as the viewport shrinks or grows by the strip.
        const QPointF centre = mapToScene(viewport()->rect().center());
        setViewportMargins(0, 0, 0, h);
        centerOn(centre);
    }
    // The margin lies between the viewport and the horizontal scroll bar.
    const QRect v = viewport()->geometry();
    legend_->setGeometry(v.left(), v.bottom() + 1, v.width(), h);
}

void TopologyCanvas::updateActions() {
    const bool any = !scene_->selectedItems().isEmpty();
    delete_->setEnabled(any);
    cut_->setEnabled(!scene_->selectedIds().isEmpty());
    copy_->setEnabled(!scene_->selectedIds().isEmpty());
}

// --- editing ---------------------------------------------------------------------------------

void TopologyCanvas::deleteSelection() {
    const QStringList ids = scene_->selectedIds();
    const std::vector<int> links = scene_->selectedLinks();
    if (ids.isEmpty() && links.empty()) return;
    doc_->remove(ids, links, DeleteChildren::Reparent);
}

void TopologyCanvas::copy() {
    const QStringList ids = scene_->selectedIds();
    if (ids.isEmpty()) return;
    const QString yaml = doc_->copy(ids);
    auto* mime = new QMimeData;
    mime->setData(kTopologyMime, yaml.toUtf8());
    mime->setText(yaml);
    QApplication::clipboard()->setMimeData(mime);
    pasteCount_ = 0;
}

void TopologyCanvas::cut() {
    copy();
    const QStringList ids = scene_->selectedIds();
    if (ids.isEmpty()) return;
    doc_->undoStack()->beginMacro(tr("Cut"));
    doc_->remove(ids, scene_->selectedLinks(), DeleteChildren::Reparent);
    doc_->undoStack()->endMacro();
}

void TopologyCanvas::paste() {
    const QMimeData* mime = QApplication::clipboard()->mimeData();
    if (!mime) return;
    const QString yaml = mime->hasFormat(kTopologyMime)
                             ? QString::fromUtf8(mime->data(kTopologyMime))
                             : mime->text();
    if (yaml.trimmed().isEmpty()) return;
    ++pasteCount_;
    QString error;
    const QStringList ids =
        doc_->paste(yaml, QPointF(2, 2) * TopologyScene::kGrid * pasteCount_, &error);
    if (ids.isEmpty()) {
        qWarning("paste: %s", qPrintable(error));
        return;
    }
    scene_->selectIds(ids);
}

void TopologyCanvas::selectAll() {
    {
        const QSignalBlocker block(scene_); // one selection change for all items
        for (QGraphicsItem* g : scene_->items())
            if (g->flags() & QGraphicsItem::ItemIsSelectable) g->setSelected(true);
    }
    Q_EMIT scene_->selectionChanged();
}

void TopologyCanvas::autoLayout() {
    doc_->autoLayout();
    zoomFit();
}

void TopologyCanvas::toggleSnap(bool on) {
    scene_->setSnapToGrid(on);
    if (snap_->isChecked() != on) snap_->setChecked(on);
    scene_->update();
}

void TopologyCanvas::setLinkMode(bool on) {
    scene_->setLinkMode(on);
    if (linkMode_->isChecked() != on) linkMode_->setChecked(on);
    setDragMode(on ? QGraphicsView::NoDrag : QGraphicsView::RubberBandDrag);
    viewport()->setCursor(on ? Qt::CrossCursor : Qt::ArrowCursor);
}

QString TopologyCanvas::addAtCentre(NodeTemplate t, int count) {
    const QPointF centre = mapToScene(viewport()->rect().center());
    // Not on top of whatever sits at the centre already.
    QPointF at = centre;
    for (int i = 0;
         i < 50 && !scene_->items(QRectF(at - QPointF(70, 30), QSizeF(140, 60))).isEmpty(); ++i)
        at += QPointF(NodeItem::kWidth + 20, 0);
    const QString id = scene_->addFromTemplate(t, at, count);
    scene_->selectIds({id});
    return id;
}

// --- zoom and pan ----------------------------------------------------------------------------

void TopologyCanvas::zoomBy(qreal factor) {
    const qreal target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    factor = target / zoom();
    scale(factor, factor);
    scene_->viewScaleChanged();
}

void TopologyCanvas::zoomIn() {
    zoomBy(1.25);
}

void TopologyCanvas::zoomOut() {
    zoomBy(1 / 1.25);
}

void TopologyCanvas::zoomFit() {
    QRectF r;
    for (QGraphicsItem* g : scene_->items())
        if (g->type() == NodeItem::Type) r = r.united(g->sceneBoundingRect());
    if (r.isEmpty()) return;
    r.adjust(-40, -40, 40, 40);
    // The view must be able to scroll to the whole of r (the scene's own rect can lack the
    // margin: opened presets were clipped at the top left), with room around it to pan.
    setSceneRect(scene_->itemsBoundingRect().united(r).adjusted(-r.width(), -r.height(), r.width(), r.height()));
    if (!property("fogFollowsScene").toBool()) {
        // Items added or dragged outside later stay reachable by scrolling.
        setProperty("fogFollowsScene", true);
        connect(scene_, &QGraphicsScene::sceneRectChanged, this,
                [this](const QRectF& grown) { setSceneRect(sceneRect().united(grown)); });
    }
    // Zoom about the view's centre, not about wherever the mouse happens to be.
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(QGraphicsView::AnchorViewCenter);
    fitInView(r, Qt::KeepAspectRatio);
    if (zoom() > 1.5) zoomBy(1.5 / zoom()); // a few nodes: readable size, not huge
    if (zoom() < kMinZoom) zoomBy(kMinZoom / zoom());
    centerOn(r.center());
    setTransformationAnchor(anchor);
    scene_->viewScaleChanged();
}

QGraphicsItem* TopologyCanvas::menuItemAt(const QPoint& pos) const {
    for (QGraphicsItem* it : items(pos))
        if (it->type() == NodeItem::Type || it->type() == MemberItem::Type) return it;
    return scene_->edgeNear(mapToScene(pos), viewport());
}

void TopologyCanvas::contextMenuEvent(QContextMenuEvent* e) {
    QMenu menu(this);
    fillContextMenu(menu, e->pos());
    menu.exec(e->globalPos());
}

void TopologyCanvas::fillContextMenu(QMenu& menu, const QPoint& pos) {
    if (menuHook_) {
        menuHook_(menu, menuItemAt(pos));
        if (!menu.isEmpty()) menu.addSeparator();
    }
    menu.addActions({cut_, copy_, paste_, delete_});
    menu.addSeparator();
    menu.addActions({selectAll_, autoLayout_, zoomFit_});
    menu.addSeparator();
    menu.addActions({snap_, linkMode_});
    // Keep the undo stack at hand where the user is working.
    QUndoStack* undo = doc_->undoStack();
    menu.insertAction(cut_, undo->createUndoAction(&menu));
    menu.insertAction(cut_, undo->createRedoAction(&menu));
    menu.insertSeparator(cut_);
}

void TopologyCanvas::wheelEvent(QWheelEvent* e) {
    const QPoint delta = e->angleDelta();
    if (delta.y() == 0) return QGraphicsView::wheelEvent(e);
    zoomBy(std::pow(1.0015, delta.y()));
    e->accept();
}

void TopologyCanvas::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::MiddleButton) {
        panning_ = true;
        panFrom_ = e->pos();
        viewport()->setCursor(Qt::ClosedHandCursor);
        e->accept();
        return;
    }
    QGraphicsView::mousePressEvent(e);
}

void TopologyCanvas::mouseMoveEvent(QMouseEvent* e) {
    if (panning_) {
        const QPoint d = e->pos() - panFrom_;
        panFrom_ = e->pos();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - d.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        e->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(e);
}

void TopologyCanvas::mouseReleaseEvent(QMouseEvent* e) {
    if (panning_ && e->button() == Qt::MiddleButton) {
        panning_ = false;
        viewport()->setCursor(scene_->linkMode() ? Qt::CrossCursor : Qt::ArrowCursor);
        e->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(e);
}

// --- drops from the palette ------------------------------------------------------------------

void TopologyCanvas::dragEnterEvent(QDragEnterEvent* e) {
    if (e->mimeData()->hasFormat(kNodeTemplateMime))
        e->acceptProposedAction();
    else
        QGraphicsView::dragEnterEvent(e);
}

void TopologyCanvas::dragMoveEvent(QDragMoveEvent* e) {
    if (e->mimeData()->hasFormat(kNodeTemplateMime))
        e->acceptProposedAction();
    else
        QGraphicsView::dragMoveEvent(e);
}

void TopologyCanvas::dropEvent(QDropEvent* e) {
    if (!e->mimeData()->hasFormat(kNodeTemplateMime)) return QGraphicsView::dropEvent(e);
    const QStringList parts = QString::fromUtf8(e->mimeData()->data(kNodeTemplateMime)).split(' ');
    NodeTemplate t;
    if (parts.isEmpty() || !templateFromName(parts.front(), t)) return;
    const int count = parts.size() > 1 ? parts[1].toInt() : 10;
    const QString id = scene_->addFromTemplate(t, mapToScene(e->position().toPoint()), count);
    scene_->selectIds({id});
    e->acceptProposedAction();
    setFocus();
}

// --- run view --------------------------------------------------------------------------------

void TopologyCanvas::setRunNodes(const std::vector<NodeInfo>& nodes) {
    scene_->setRunNodes(nodes);
}

void TopologyCanvas::setRunLinks(const std::vector<LinkInfo>& links) {
    scene_->setRunLinks(links);
    legend_->setShowsLinks(!links.empty());
    placeLegend();
}

void TopologyCanvas::showFrame(const ActivityFrame& frame) {
    scene_->showFrame(frame);
    // A view that shows the key elsewhere (race mode: one key under all its canvases) sets
    // the property fogNoRunLegend.
    if (legend_->isHidden() && !property("fogNoRunLegend").toBool()) {
        legend_->show();
        placeLegend();
    }
}

void TopologyCanvas::clearRunState() {
    scene_->clearRunState();
    legend_->hide();
    placeLegend();
}

} // namespace fog
