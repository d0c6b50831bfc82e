#include "widgets/topology/run_legend.h"

#include "widgets/plots/run_plots.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/message_layer.h"
#include "widgets/topology/node_item.h"

#include <QPainter>

#include <algorithm>

namespace fog {

namespace {
constexpr int kPad = 8;
constexpr int kRow = 18;
} // namespace

RunLegend::RunLegend(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    QFont f = font();
    f.setPixelSize(11);
    setFont(f);
    resize(sizeHint());
}

void RunLegend::setShowsLinks(bool on) {
    if (on == links_) return;
    links_ = on;
    resize(sizeHint());
    update();
}

QSize RunLegend::sizeHint() const {
    // Rows: messages, states (two rows), links; as wide as the message row.
    const QFontMetrics fm(font());
    int w = 2 * kPad;
    for (const bool down : {true, false})
        w += fm.horizontalAdvance(MessageLayer::label(down)) + 16 + 4 + fm.horizontalAdvance(what(down)) + 8;
    return {std::max(w, 2 * kPad + 300), 2 * kPad + kRow * (links_ ? 4 : 3)};
}

QString RunLegend::what(bool down) {
    return down ? tr("going down") : tr("going up   (× n: n on one line)");
}

void RunLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    QColor bg = palette().color(QPalette::Window);
    bg.setAlphaF(0.92);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.setBrush(bg);
    p.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
    const QColor text = palette().color(QPalette::WindowText);
    const QFontMetrics fm(font());
    int y = kPad;
    // Messages: the same tags as on the canvas.
    int x = kPad;
    for (const bool down : {true, false}) {
        const QString label = MessageLayer::label(down);
        const int w = fm.horizontalAdvance(label) + 16;
        p.setPen(Qt::NoPen);
        p.setBrush(MessageLayer::color(down));
        p.drawRoundedRect(QRectF(x, y + 2, w, 14), 7, 7);
        p.setPen(Qt::white);
        p.drawText(QRect(x, y + 2, w, 14), Qt::AlignCenter, label);
        x += w + 4;
        p.setPen(text);
        const QString words = what(down);
        p.drawText(QRect(x, y, fm.horizontalAdvance(words) + 2, kRow), Qt::AlignLeft | Qt::AlignVCenter, words);
        x += fm.horizontalAdvance(words) + 8;
    }
    y += kRow;
    // States, in the order group counts are drawn.
    x = kPad;
    int k = 0;
    for (NodeState s : NodeItem::stateOrder()) {
        if (k++ == 3) {
            x = kPad;
            y += kRow;
        }
        p.setPen(QPen(text, 0.6));
        p.setBrush(stateColor(s));
        p.drawRect(QRectF(x, y + 4.5, 9, 9));
        p.setPen(text);
        const QString name = NodeItem::stateName(s);
        p.drawText(QRect(x + 13, y, 90, kRow), Qt::AlignLeft | Qt::AlignVCenter, name);
        x += 100;
    }
    y += kRow;
    if (links_) {
        p.setPen(text);
        const QString what = tr("link use:  0%");
        p.drawText(QRect(kPad, y, fm.horizontalAdvance(what) + 2, kRow), Qt::AlignLeft | Qt::AlignVCenter, what);
        const int left = kPad + fm.horizontalAdvance(what) + 6, right = width() - kPad - 34;
        for (int i = left; i < right; ++i) {
            const double u = static_cast<double>(i - left) / std::max(1, right - left - 1);
            p.setPen(QPen(EdgeItem::usageColor(u), 1));
            const double half = 2 + 6 * u;
            p.drawLine(QPointF(i + 0.5, y + kRow / 2.0 - half), QPointF(i + 0.5, y + kRow / 2.0 + half));
        }
        p.setPen(text);
        p.drawText(QRect(right + 4, y, 34, kRow), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("100%"));
    }
}

} // namespace fog
