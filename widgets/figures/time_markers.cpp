#include "widgets/figures/time_markers.h"

#include "core/store/run_store.h"
#include "widgets/figures/qcustomplot.h"

#include <algorithm>

#include <QCoreApplication>
#include <QStringList>

#include <cmath>

namespace fog {

QColor markerColor() { return QColor(204, 85, 0); }

void addTimeMarker(QCustomPlot* plot, double key, const QString& label, const QColor& color) {
    if (!plot || !std::isfinite(key)) return;
    auto* line = new QCPItemStraightLine(plot);
    line->point1->setCoords(key, 0);
    line->point2->setCoords(key, 1);
    line->setPen(QPen(color, 1.5, Qt::DashLine));
    line->setSelectable(false);
    line->setProperty("fogMarker", true);
    if (label.isEmpty()) return;
    // Labels of markers close in time would be written over each other: each label goes one
    // line lower than the previous one, cycling over three lines.
    int labels = 0;
    for (int i = 0; i < plot->itemCount(); ++i)
        labels += plot->item(i)->property("fogMarker").toBool() && qobject_cast<QCPItemText*>(plot->item(i));
    auto* text = new QCPItemText(plot);
    text->position->setTypeX(QCPItemPosition::ptPlotCoords);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(key, 0.1 * (labels % 3));
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    text->setPadding(QMargins(3, 1, 3, 1));
    text->setText(label);
    text->setColor(color);
    QFont f = plot->font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    text->setFont(f);
    text->setSelectable(false);
    text->setProperty("fogMarker", true);
    text->setProperty("fogMarkerLabel", label);
}

std::vector<TimeMarker> forkMarkers(const RunStore& store, const std::vector<std::int64_t>& ids) {
    std::vector<TimeMarker> out;
    for (std::int64_t id : ids) {
        try {
            const std::optional<ForkRecord> f = store.fork(id);
            if (!f || std::find(ids.begin(), ids.end(), f->parentId) == ids.end()) continue;
            out.push_back({f->atSeconds,
                           QCoreApplication::translate("fog::TimeMarkers", "fork #%1 of #%2 at %3 s")
                               .arg(id)
                               .arg(f->parentId)
                               .arg(QString::number(f->atSeconds, 'g', 6)),
                           id});
        } catch (const std::exception&) {
            // A store without the fork table or a damaged one: no marker, the curves still show.
        }
    }
    return out;
}

QStringList timeMarkerLabels(const QCustomPlot* plot) {
    QStringList out;
    if (!plot) return out;
    for (int i = 0; i < plot->itemCount(); ++i) {
        const QCPAbstractItem* it = plot->item(i);
        if (it->property("fogMarker").toBool() && qobject_cast<const QCPItemText*>(it))
            out << it->property("fogMarkerLabel").toString();
    }
    return out;
}

} // namespace fog
