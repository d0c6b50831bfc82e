#include "widgets/plots/linked_cursor.h"

#include "widgets/plots/link_plot.h"
#include "widgets/plots/live_plots.h"
#include "widgets/plots/node_timeline.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <QEvent>
#include <QFontMetrics>
#include <QMouseEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fog {

void linkCursors(LivePlots* plots, NodeTimeline* timeline, LinkThroughputPlot* links) {
    if (plots && timeline) {
        QObject::connect(plots, &LivePlots::cursorMoved, timeline, &NodeTimeline::setCursorTime);
        QObject::connect(timeline, &NodeTimeline::cursorMoved, plots, &LivePlots::setCursorTime);
    }
    if (plots && links) {
        QObject::connect(plots, &LivePlots::cursorMoved, links, &LinkThroughputPlot::setCursorTime);
        QObject::connect(links, &LinkThroughputPlot::cursorMoved, plots, &LivePlots::setCursorTime);
    }
    if (timeline && links) {
        QObject::connect(timeline, &NodeTimeline::cursorMoved, links, &LinkThroughputPlot::setCursorTime);
        QObject::connect(links, &LinkThroughputPlot::cursorMoved, timeline, &NodeTimeline::setCursorTime);
    }
}

QStringList cursorValueLines(const QCustomPlot* plot, double key) {
    QStringList lines;
    for (int i = 0; i < plot->graphCount(); ++i) {
        const QCPGraph* g = plot->graph(i);
        if (isRawGraph(g) || g->name().isEmpty() || g->data()->isEmpty() || !g->visible()) continue;
        const double v = valueAt(g, key);
        if (std::isnan(v)) continue;
        lines << QString("%1: %2").arg(g->name()).arg(v, 0, 'g', 5);
    }
    return lines;
}

PlotCursor::PlotCursor(const QList<QCustomPlot*>& plots, QObject* parent)
    : QObject(parent), key_(std::numeric_limits<double>::quiet_NaN()) {
    for (int i = 0; i < plots.size(); ++i) {
        QCustomPlot* p = plots[i];
        items_.push_back({p, nullptr, nullptr});
        p->setMouseTracking(true);
        p->installEventFilter(this);
        connect(p, &QCustomPlot::mouseMove, this, [this, i](QMouseEvent* e) {
            if (e->buttons() != Qt::NoButton) return; // panning, not pointing
            const double k = keyAtPixel(i, e->position().x());
            if (!std::isfinite(k)) return;
            setKey(k);
            Q_EMIT moved(k);
        });
    }
    restore();
}

void PlotCursor::restore() {
    for (Items& it : items_) {
        QCustomPlot* p = it.plot;
        // The items die with plot->clearItems(); make them again when they are gone.
        if (!it.line || !it.label) {
            if (it.line) p->removeItem(it.line.data());
            if (it.label) p->removeItem(it.label.data());
            it.line = new QCPItemStraightLine(p);
            it.line->setSelectable(false);
            it.label = new QCPItemText(p);
            it.label->setSelectable(false);
            it.label->position->setTypeX(QCPItemPosition::ptPlotCoords);
            it.label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
            it.label->setPadding(QMargins(5, 3, 5, 3));
            it.label->setTextAlignment(Qt::AlignLeft);
            if (p->layer("overlay")) it.label->setLayer("overlay"); // above the legend
        }
        // The widget palette's colours (light and dark themes).
        QColor fg = p->palette().color(QPalette::WindowText);
        fg.setAlpha(140);
        it.line->setPen(QPen(fg, 1, Qt::DotLine));
        it.label->setBrush(p->palette().color(QPalette::ToolTipBase));
        it.label->setColor(p->palette().color(QPalette::ToolTipText));
        it.label->setPen(QPen(p->palette().color(QPalette::Mid)));
        place(it);
    }
}

void PlotCursor::place(Items& it) {
    const bool show = std::isfinite(key_);
    it.line->setVisible(show);
    it.label->setVisible(show);
    if (!show) return;
    it.line->point1->setCoords(key_, 0);
    it.line->point2->setCoords(key_, 1);
    QStringList lines{heading_ ? heading_(key_) : QString::number(key_, 'g', 6)};
    lines += cursorValueLines(it.plot, key_);
    it.label->setText(lines.join('\n'));
    // Beside the line: on its right where the read-out fits there, else on its left where
    // it fits, else over the line, shifted to lie wholly inside the axis rect.
    const QRect rect = it.plot->axisRect()->rect();
    const double px = it.plot->xAxis->coordToPixel(key_);
    const QMargins pad = it.label->padding();
    const double width =
        QFontMetrics(it.label->font()).boundingRect(QRect(), 0, it.label->text()).width() + pad.left() + pad.right() + 2;
    double left = px;
    if (px + width > rect.right()) left = px - width >= rect.left() ? px - width : rect.right() - width;
    left = std::max(left, double(rect.left()));
    it.label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    it.label->position->setCoords(it.plot->xAxis->pixelToCoord(left), 0.0);
}

void PlotCursor::setKey(double key) {
    if (std::isnan(key) && std::isnan(key_)) return;
    key_ = key;
    for (Items& it : items_) {
        place(it);
        it.plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

QString PlotCursor::text(int i) const {
    if (i < 0 || i >= static_cast<int>(items_.size())) return {};
    const Items& it = items_[static_cast<std::size_t>(i)];
    return it.label && it.label->visible() ? it.label->text() : QString();
}

QRectF PlotCursor::labelRect(int i) const {
    if (i < 0 || i >= static_cast<int>(items_.size())) return {};
    const Items& it = items_[static_cast<std::size_t>(i)];
    if (!it.label || !it.label->visible()) return {};
    return QRectF(it.label->topLeft->pixelPosition(), it.label->bottomRight->pixelPosition());
}

double PlotCursor::keyAtPixel(int i, double x) const {
    if (i < 0 || i >= static_cast<int>(items_.size())) return std::numeric_limits<double>::quiet_NaN();
    const QCustomPlot* p = items_[static_cast<std::size_t>(i)].plot;
    const double key = p->xAxis->pixelToCoord(x);
    double best = key, bestDist = 8.0; // pixels
    for (int g = 0; g < p->graphCount(); ++g) {
        const QCPGraph* graph = p->graph(g);
        if (isRawGraph(graph) || graph->data()->isEmpty() || !graph->visible()) continue;
        auto it = graph->data()->findBegin(key, false);
        for (auto c = (it == graph->data()->constBegin() ? it : it - 1);
             c != graph->data()->constEnd() && c <= it + 1; ++c) {
            const double d = std::abs(p->xAxis->coordToPixel(c->key) - x);
            if (d < bestDist) {
                bestDist = d;
                best = c->key;
            }
        }
    }
    return best;
}

bool PlotCursor::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Leave && std::isfinite(key_)) {
        for (const Items& it : items_)
            if (it.plot == watched) {
                setKey(std::numeric_limits<double>::quiet_NaN());
                Q_EMIT moved(key_);
                break;
            }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace fog
