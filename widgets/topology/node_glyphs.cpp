#include "widgets/topology/node_glyphs.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <algorithm>

namespace fog {

QColor tierColor(Tier t) {
    switch (t) {
    case Tier::Cloud:
        return QColor(74, 144, 226); // blue
    case Tier::Edge:
        return QColor(80, 170, 110); // green
    case Tier::Device:
        return QColor(232, 145, 60); // orange
    }
    return Qt::gray;
}

namespace {

void cloudShape(QPainter* p, const QRectF& r) {
    QPainterPath path;
    path.setFillRule(Qt::WindingFill); // so that simplified() unites the puffs
    const double w = r.width(), h = r.height();
    path.addEllipse(QRectF(r.left() + 0.05 * w, r.top() + 0.40 * h, 0.40 * w, 0.45 * h));
    path.addEllipse(QRectF(r.left() + 0.25 * w, r.top() + 0.15 * h, 0.45 * w, 0.60 * h));
    path.addEllipse(QRectF(r.left() + 0.55 * w, r.top() + 0.35 * h, 0.40 * w, 0.50 * h));
    path.addRect(QRectF(r.left() + 0.25 * w, r.top() + 0.55 * h, 0.50 * w, 0.30 * h));
    p->drawPath(path.simplified());
}

void serverShape(QPainter* p, const QRectF& r) {
    const double w = r.width(), h = r.height();
    for (int i = 0; i < 3; ++i) {
        const QRectF slot(r.left() + 0.12 * w, r.top() + (0.12 + i * 0.27) * h, 0.76 * w, 0.22 * h);
        p->drawRoundedRect(slot, 2, 2);
        p->drawEllipse(QPointF(slot.right() - 0.12 * w, slot.center().y()), 0.04 * w, 0.04 * w);
    }
}

void phoneShape(QPainter* p, const QRectF& r) {
    const double w = r.width(), h = r.height();
    const QRectF body(r.left() + 0.28 * w, r.top() + 0.08 * h, 0.44 * w, 0.84 * h);
    p->drawRoundedRect(body, 0.08 * w, 0.08 * w);
    p->drawLine(QPointF(body.center().x() - 0.06 * w, body.bottom() - 0.08 * h),
                QPointF(body.center().x() + 0.06 * w, body.bottom() - 0.08 * h));
}

} // namespace

void paintTierGlyph(QPainter* p, const QRectF& r, Tier t, bool group, const QColor& pen) {
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    p->setPen(QPen(pen, std::max(1.0, r.width() / 24.0)));
    p->setBrush(tierColor(t));
    auto draw = [&](const QRectF& box) {
        switch (t) {
        case Tier::Cloud:
            cloudShape(p, box);
            break;
        case Tier::Edge:
            serverShape(p, box);
            break;
        case Tier::Device:
            phoneShape(p, box);
            break;
        }
    };
    if (group) {
        // Three copies, back to front: "many of these".
        const double d = r.width() * 0.14;
        for (int i = 2; i >= 0; --i)
            draw(r.adjusted(-d + i * d, -i * d * 0.6 + d * 0.6, -d + i * d, -i * d * 0.6 + d * 0.6)
                     .adjusted(d * 0.5, d * 0.5, -d * 0.5, -d * 0.5));
    } else {
        draw(r);
    }
    p->restore();
}

void paintRelayGlyph(QPainter* p, const QRectF& r, Tier t, const QColor& pen) {
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    const double w = r.width(), h = r.height();
    const double lw = std::max(1.0, w / 24.0);
    const QPointF top(r.center().x(), r.top() + 0.30 * h);
    // The mast: a narrow triangle standing on the bottom edge, with a cross brace.
    const QPolygonF mast({top, QPointF(r.center().x() - 0.18 * w, r.bottom() - 0.04 * h),
                          QPointF(r.center().x() + 0.18 * w, r.bottom() - 0.04 * h)});
    p->setPen(QPen(pen, lw));
    p->setBrush(tierColor(t));
    p->drawPolygon(mast);
    p->drawLine(QPointF(r.center().x() - 0.10 * w, r.top() + 0.62 * h), QPointF(r.center().x() + 0.10 * w, r.top() + 0.62 * h));
    p->drawEllipse(top, 0.07 * w, 0.07 * w);
    // Waves on both sides.
    p->setBrush(Qt::NoBrush);
    p->setPen(QPen(tierColor(t).darker(115), lw * 1.6, Qt::SolidLine, Qt::RoundCap));
    for (int i = 1; i <= 2; ++i) {
        const double rad = 0.14 * w * i;
        const QRectF arc(top.x() - rad, top.y() - rad, 2 * rad, 2 * rad);
        p->drawArc(arc, -40 * 16, 80 * 16);
        p->drawArc(arc, 140 * 16, 80 * 16);
    }
    p->restore();
}

QIcon templateIcon(NodeTemplate t, const QPalette& palette, qreal dpr) {
    const int size = 40;
    QPixmap pm(QSize(size, size) * dpr);
    pm.setDevicePixelRatio(dpr);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    if (t == NodeTemplate::Relay)
        paintRelayGlyph(&p, QRectF(4, 4, size - 8, size - 8), templateTier(t),
                        palette.color(QPalette::WindowText));
    else
        paintTierGlyph(&p, QRectF(4, 4, size - 8, size - 8), templateTier(t),
                       t == NodeTemplate::DeviceGroup, palette.color(QPalette::WindowText));
    return QIcon(pm);
}

} // namespace fog
