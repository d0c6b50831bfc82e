#include "widgets/topology/run_legend.h"

#include "widgets/figures/run_plots.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/message_layer.h"
#include "widgets/topology/node_item.h"

#include <QPainter>

#include <algorithm>

namespace fog {

namespace {
constexpr int kPad = 6;
constexpr int kRow = 18;
constexpr int kGap = 14;
constexpr int kRamp = 90; // the link-use ramp's length
} // namespace

RunLegend::RunLegend(QWidget* parent) : QWidget(parent) {
    QFont f = font();
    f.setPixelSize(11);
    setFont(f);
    setAutoFillBackground(true);
    setToolTip(tr("Key to the canvas during a run: message tags (× n: n messages on one line), "
                  "node states (a group counts its members in each), and how full the links are"));
}

void RunLegend::setShowsLinks(bool on) {
    if (on == links_) return;
    links_ = on;
    updateGeometry();
    update();
}

QVector<RunLegend::Entry> RunLegend::entries() const {
    const QFontMetrics fm(font());
    QVector<Entry> out;
    for (const bool down : {true, false}) {
        const QString text = down ? tr("down") : tr("up (× n: n on one line)");
        out.append({Kind::Message, down, text,
                    fm.horizontalAdvance(MessageLayer::label(down)) + 16 + 4 + fm.horizontalAdvance(text)});
    }
    for (NodeState s : NodeItem::stateOrder()) {
        const QString text = NodeItem::stateName(s);
        out.append({Kind::State, static_cast<int>(s), text, 13 + fm.horizontalAdvance(text)});
    }
    if (links_) {
        const QString text = tr("link use 0%");
        out.append({Kind::Links, 0, text, fm.horizontalAdvance(text) + 4 + kRamp + 4 + fm.horizontalAdvance("100%")});
    }
    return out;
}

QVector<QRect> RunLegend::layout(int width) const {
    QVector<QRect> rects;
    int x = kPad, y = kPad / 2;
    for (const Entry& e : entries()) {
        if (x > kPad && x + e.width > width - kPad) {
            x = kPad;
            y += kRow;
        }
        rects.append(QRect(x, y, e.width, kRow));
        x += e.width + kGap;
    }
    return rects;
}

int RunLegend::heightForWidth(int width) const {
    const QVector<QRect> r = layout(width);
    return r.isEmpty() ? 0 : r.back().bottom() + 1 + kPad / 2;
}

QSize RunLegend::sizeHint() const {
    int w = kPad;
    for (const Entry& e : entries()) w += e.width + kGap;
    return {w, kRow + kPad};
}

void RunLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QColor text = palette().color(QPalette::WindowText);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.drawLine(0, 0, width(), 0);
    const QFontMetrics fm(font());
    const QVector<Entry> es = entries();
    const QVector<QRect> rs = layout(width());
    for (int i = 0; i < es.size(); ++i) {
        const Entry& e = es[i];
        const QRect r = rs[i];
        switch (e.kind) {
        case Kind::Message: {
            const bool down = e.value != 0;
            const QString label = MessageLayer::label(down);
            const int w = fm.horizontalAdvance(label) + 16;
            p.setPen(Qt::NoPen);
            p.setBrush(MessageLayer::color(down));
            p.drawRoundedRect(QRectF(r.left(), r.top() + 2, w, 14), 7, 7);
            p.setPen(Qt::white);
            p.drawText(QRect(r.left(), r.top() + 2, w, 14), Qt::AlignCenter, label);
            p.setPen(text);
            p.drawText(QRect(r.left() + w + 4, r.top(), r.width() - w - 4, kRow), Qt::AlignLeft | Qt::AlignVCenter, e.text);
            break;
        }
        case Kind::State:
            p.setPen(QPen(text, 0.6));
            p.setBrush(stateColor(static_cast<NodeState>(e.value)));
            p.drawRect(QRectF(r.left() + 0.5, r.top() + 4.5, 9, 9));
            p.setPen(text);
            p.drawText(r.adjusted(13, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, e.text);
            break;
        case Kind::Links: {
            p.setPen(text);
            const int tw = fm.horizontalAdvance(e.text);
            p.drawText(QRect(r.left(), r.top(), tw + 2, kRow), Qt::AlignLeft | Qt::AlignVCenter, e.text);
            const int left = r.left() + tw + 4;
            for (int i2 = 0; i2 < kRamp; ++i2) {
                const double u = static_cast<double>(i2) / (kRamp - 1);
                p.setPen(QPen(EdgeItem::usageColor(u), 1));
                const double half = 1 + 5 * u;
                p.drawLine(QPointF(left + i2 + 0.5, r.top() + kRow / 2.0 - half), QPointF(left + i2 + 0.5, r.top() + kRow / 2.0 + half));
            }
            p.setPen(text);
            p.drawText(QRect(left + kRamp + 4, r.top(), r.right() - left - kRamp, kRow), Qt::AlignLeft | Qt::AlignVCenter,
                       QStringLiteral("100%"));
            break;
        }
        }
    }
}

} // namespace fog
