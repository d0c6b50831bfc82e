#include "widgets/topology/message_layer.h"

#include <QApplication>
#include <QPainter>
#include <QWidget>

namespace fog {

MessageLayer::MessageLayer() {
    setZValue(10);
    setAcceptedMouseButtons(Qt::NoButton);
}

void MessageLayer::setMessages(QVector<Dot> dots) {
    QRectF r;
    for (const Dot& d : dots)
        r = r.united(QRectF(d.from, d.to).normalized());
    prepareGeometryChange();
    dots_ = std::move(dots);
    rect_ = r.adjusted(-10, -10, 10, 10);
    update();
}

void MessageLayer::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* w) {
    const QPalette pal = w ? w->palette() : QApplication::palette();
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(QPen(pal.color(QPalette::Base), 1.5));
    for (const Dot& d : dots_) {
        const double t = std::clamp(d.progress, 0.0, 1.0);
        const QPointF at = d.from + (d.to - d.from) * t;
        if (d.modelDown) {
            // The model going down: a filled disc in the highlight colour.
            p->setBrush(pal.color(QPalette::Highlight));
            p->drawEllipse(at, 6, 6);
        } else {
            // An update going up: a diamond in the link colour.
            p->setBrush(pal.color(QPalette::Text));
            const QPolygonF diamond(
                {at + QPointF(0, -7), at + QPointF(7, 0), at + QPointF(0, 7), at + QPointF(-7, 0)});
            p->drawPolygon(diamond);
        }
    }
}

} // namespace fog
