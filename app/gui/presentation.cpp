#include "app/gui/presentation.h"

#include "widgets/figures/qcustomplot.h"
#include "widgets/topology/node_item.h"

#include <QApplication>
#include <QFont>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QWidget>

#include <cmath>

namespace fog {

namespace {

bool on_ = false;
QFont& baseFont() {
    static QFont f;
    return f;
}

/// A font `scale` times the size it had when first seen (property `key` on `owner`
/// remembers it; a size the code changed since is taken as the new base).
QFont scaledFont(QObject* owner, const char* key, const QFont& current, double scale) {
    const QByteArray baseKey = QByteArray(key) + "Base", lastKey = QByteArray(key) + "Last";
    const double size = current.pointSizeF() > 0 ? current.pointSizeF() : current.pixelSize();
    double base = owner->property(baseKey).toDouble();
    const double last = owner->property(lastKey).toDouble();
    if (base <= 0 || std::abs(size - last) > 1e-6) base = size;
    owner->setProperty(baseKey, base);
    QFont f = current;
    const double wanted = base * scale;
    if (current.pointSizeF() > 0) f.setPointSizeF(wanted);
    else f.setPixelSize(std::max(1, static_cast<int>(std::lround(wanted))));
    owner->setProperty(lastKey, current.pointSizeF() > 0 ? wanted : static_cast<double>(f.pixelSize()));
    return f;
}

QPen scaledPen(QObject* owner, const QPen& current, double scale) {
    double base = owner->property("fogPenBase").toDouble();
    const double last = owner->property("fogPenLast").toDouble();
    const double width = current.widthF();
    if (base <= 0 || std::abs(width - last) > 1e-6) base = std::max(1.0, width);
    owner->setProperty("fogPenBase", base);
    QPen p = current;
    p.setWidthF(base * scale);
    owner->setProperty("fogPenLast", p.widthF());
    return p;
}

/// Before each replot: the plot's text and curves at the mode's scale.
void restyle(QCustomPlot* plot) {
    const double font = presentationFontScale(), line = presentationLineScale();
    for (QCPAxis* a : plot->axisRect() ? plot->axisRect()->axes() : QList<QCPAxis*>()) {
        a->setTickLabelFont(scaledFont(a, "fogTick", a->tickLabelFont(), font));
        a->setLabelFont(scaledFont(a, "fogLabel", a->labelFont(), font));
    }
    if (plot->legend) plot->legend->setFont(scaledFont(plot->legend, "fogLegend", plot->legend->font(), font));
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph* g = plot->graph(i);
        if (g->pen().style() == Qt::NoPen) continue;
        g->setPen(scaledPen(g, g->pen(), line));
    }
}

void watch(QCustomPlot* plot) {
    if (plot->property("fogPresentationWatched").toBool()) return;
    plot->setProperty("fogPresentationWatched", true);
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] { restyle(plot); });
}

} // namespace

bool presentationOn() { return on_; }
double presentationLineScale() { return on_ ? 2.0 : 1.0; }
double presentationFontScale() { return on_ ? 1.5 : 1.0; }
QFont presentationBaseFont() { return on_ ? baseFont() : QApplication::font(); }

void setPresentation(QWidget* root, bool on) {
    if (on != on_) {
        if (on) {
            baseFont() = QApplication::font();
            QFont f = baseFont();
            if (f.pointSizeF() > 0) f.setPointSizeF(f.pointSizeF() * 1.5);
            else f.setPixelSize(static_cast<int>(f.pixelSize() * 1.5));
            QApplication::setFont(f);
        } else {
            QApplication::setFont(baseFont());
        }
        on_ = on;
    }
    // The canvases' text (node boxes, message tags) grows with the rest; the run legend under
    // the canvas keeps its size (larger, it took half of the canvas's height at 1280x720).
    NodeItem::setTextBoost(presentationFontScale());
    if (!root) return;
    for (QCustomPlot* p : root->findChildren<QCustomPlot*>()) {
        watch(p);
        p->replot();
    }
    for (QGraphicsView* v : root->findChildren<QGraphicsView*>()) {
        if (v->scene()) v->scene()->update();
        v->viewport()->update();
    }
    root->update();
}

} // namespace fog
