#include "app/export/topology_figure.h"

#include <QFont>
#include <QPainter>
#include <QPainterPath>

#include <map>

namespace fog {

namespace {

struct Box {
    QString label;
    QString sub;
    Tier tier;
    QString parent;
    QPointF pos;
};

QColor tierColor(Tier t) {
    switch (t) {
    case Tier::Cloud: return QColor(0, 114, 178);
    case Tier::Edge: return QColor(0, 158, 115);
    case Tier::Device: return QColor(230, 159, 0);
    }
    return Qt::gray;
}

} // namespace

QImage topologyFigure(const Scenario& s, int width, int height) {
    std::map<QString, Box> boxes;
    std::vector<QString> rows[3];
    auto add = [&](const QString& id, const QString& sub, Tier tier, const QString& parent) {
        boxes[id] = {id, sub, tier, parent, {}};
        rows[static_cast<int>(tier)].push_back(id);
    };
    // Nodes, then groups (one box each; a nested group's box under its parent group's).
    for (const bool groups : {false, true})
        for (const auto& n : s.topology.nodes) {
            if (n.group != groups) continue;
            if (!n.group) {
                QString sub = toString(n.role);
                if (n.pricePerHour.min > 0) sub += QString(", %1/h").arg(n.pricePerHour.min);
                if (n.availability.kind != AvailabilitySpec::Kind::Always) sub += ", volatile";
                add(QString::fromStdString(n.id), sub, n.tier, QString::fromStdString(n.parent));
                continue;
            }
            QString sub = QString("%1 x %2").arg(n.count).arg(toString(n.role));
            if (n.availability.kind != AvailabilitySpec::Kind::Always) sub += ", volatile";
            const int parent = s.topology.find(n.parent);
            const bool nested = parent >= 0 && s.topology.nodes[static_cast<std::size_t>(parent)].group;
            add(QString::fromStdString(n.id) + "-*", sub, n.tier,
                QString::fromStdString(n.parent) + (nested ? "-*" : ""));
        }

    // Drawn at twice the size, for print and high-DPI screens.
    QImage img(width * 2, height * 2, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    p.scale(2, 2);
    p.setRenderHint(QPainter::Antialiasing);
    const double rowH = height / 3.0;
    const double boxW = std::min(150.0, width / 5.5), boxH = 40;
    for (int t = 0; t < 3; ++t) {
        const auto& row = rows[t];
        for (std::size_t i = 0; i < row.size(); ++i) {
            const double x = width * (i + 0.5) / row.size();
            boxes[row[i]].pos = QPointF(x, rowH * (t + 0.5));
        }
        p.setPen(QColor(120, 120, 120));
        p.setFont(QFont("DejaVu Sans", 9));
        static const char* names[] = {"cloud", "edge", "devices"};
        p.drawText(QPointF(6, rowH * t + 14), names[t]);
    }
    // Parent links first, then explicit links (dashed), then the boxes over them.
    p.setPen(QPen(QColor(90, 90, 90), 1.5));
    for (const auto& [id, b] : boxes) {
        auto it = boxes.find(b.parent);
        if (it != boxes.end()) p.drawLine(b.pos, it->second.pos);
    }
    p.setPen(QPen(QColor(204, 121, 167), 2, Qt::DashLine));
    for (const auto& l : s.topology.links) {
        auto a = boxes.find(QString::fromStdString(l.from));
        auto b = boxes.find(QString::fromStdString(l.to));
        if (a == boxes.end() || b == boxes.end()) continue;
        QPainterPath path(a->second.pos);
        const QPointF mid = (a->second.pos + b->second.pos) / 2 - QPointF(0, 40);
        path.quadTo(mid, b->second.pos);
        p.drawPath(path);
    }
    for (const auto& [id, b] : boxes) {
        const QRectF r(b.pos.x() - boxW / 2, b.pos.y() - boxH / 2, boxW, boxH);
        p.setPen(QPen(tierColor(b.tier).darker(130), 1.5));
        p.setBrush(tierColor(b.tier).lighter(170));
        p.drawRoundedRect(r, 6, 6);
        p.setPen(Qt::black);
        p.setFont(QFont("DejaVu Sans", 9, QFont::Bold));
        p.drawText(r.adjusted(4, 3, -4, -boxH / 2), Qt::AlignCenter, b.label);
        p.setFont(QFont("DejaVu Sans", 8));
        p.drawText(r.adjusted(4, boxH / 2 - 2, -4, -3), Qt::AlignCenter, b.sub);
    }
    return img;
}

} // namespace fog
