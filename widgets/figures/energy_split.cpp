#include "widgets/figures/energy_split.h"
#include "widgets/figures/run_plots.h"

#include "widgets/figures/qcustomplot.h"

#include <cmath>

namespace fog {

namespace {

constexpr EnergyPart kParts[] = {EnergyPart::Compute, EnergyPart::Network, EnergyPart::Idle};

Qt::PenStyle partStyle(EnergyPart p) {
    switch (p) {
    case EnergyPart::Compute: return Qt::DashLine;
    case EnergyPart::Network: return Qt::DotLine;
    case EnergyPart::Idle: return Qt::DashDotLine;
    }
    return Qt::DashLine;
}

double xOf(const AggregationRecord& r, PlotXAxis x) {
    switch (x) {
    case PlotXAxis::VirtualTime: return r.time;
    case PlotXAxis::Round: return r.round;
    case PlotXAxis::WallTime: return r.wallSeconds;
    }
    return r.time;
}

void partPoints(const std::vector<AggregationRecord>& metrics, EnergyPart part, const PlotOptions& o,
                QVector<double>& xs, QVector<double>& ys) {
    for (const auto& r : metrics) {
        if (r.level != 0) continue; // as plotMetric's curves
        const double y = energyPartKJ(r, part);
        if (std::isnan(y)) continue;
        xs.push_back(xOf(r, o.x));
        ys.push_back(y);
    }
}

bool nonZero(const QCPGraph* g) {
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
        if (it->value != 0.0) return true;
    return false;
}

/// Shows a series' part curves when at least two parts are not zero (else the total is the
/// one part), each only when it is not zero; hidden curves leave the legend.
void updateVisibility(QCustomPlot* plot, int seriesIndex) {
    int parts = 0;
    bool on[3] = {false, false, false};
    for (int k = 0; k < 3; ++k)
        if (const QCPGraph* g = energySplitGraph(plot, seriesIndex, kParts[k])) parts += on[k] = nonZero(g);
    for (int k = 0; k < 3; ++k) {
        QCPGraph* g = energySplitGraph(plot, seriesIndex, kParts[k]);
        if (!g) continue;
        const bool show = parts >= 2 && on[k];
        g->setVisible(show);
        if (show) g->addToLegend();
        else g->removeFromLegend();
    }
}

} // namespace

QString energyPartName(EnergyPart part) {
    switch (part) {
    case EnergyPart::Compute: return "compute";
    case EnergyPart::Network: return "network";
    case EnergyPart::Idle: return "idle";
    }
    return {};
}

double energyPartKJ(const AggregationRecord& r, EnergyPart part) {
    switch (part) {
    case EnergyPart::Compute: return r.energyComputeJ / 1000.0;
    case EnergyPart::Network: return r.energyNetworkJ / 1000.0;
    case EnergyPart::Idle: return r.energyIdleJ / 1000.0;
    }
    return kNaN;
}

QCPGraph* energySplitGraph(const QCustomPlot* plot, int seriesIndex, EnergyPart part) {
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph* g = plot->graph(i);
        if (g->property("fogEnergySeries").isValid() && g->property("fogEnergySeries").toInt() == seriesIndex &&
            g->property("fogEnergyPart").toInt() == static_cast<int>(part))
            return g;
    }
    return nullptr;
}

void addEnergySplitGraphs(QCustomPlot* plot, const std::vector<PlotSeries>& series, const PlotOptions& o) {
    for (std::size_t i = 0; i < series.size(); ++i) {
        const QColor color = series[i].color.isValid() ? series[i].color : seriesColor(static_cast<int>(i));
        for (EnergyPart part : kParts) {
            QVector<double> xs, ys;
            partPoints(series[i].metrics, part, o, xs, ys);
            QCPGraph* g = plot->addGraph();
            // One series: the parts' names alone; several: each with its run's label.
            g->setName(series.size() == 1 ? energyPartName(part) : series[i].label + ": " + energyPartName(part));
            g->setPen(QPen(color, 1.5, partStyle(part)));
            g->setData(xs, smoothCurve(ys, o.smoothing), true);
            g->setProperty("fogEnergySeries", static_cast<int>(i));
            g->setProperty("fogEnergyPart", static_cast<int>(part));
        }
        updateVisibility(plot, static_cast<int>(i));
    }
}

void appendEnergySplit(QCustomPlot* plot, int seriesIndex, const std::vector<AggregationRecord>& records,
                       const PlotOptions& o) {
    bool any = false;
    for (EnergyPart part : kParts) {
        QCPGraph* g = energySplitGraph(plot, seriesIndex, part);
        if (!g) continue;
        QVector<double> xs, ys;
        partPoints(records, part, o, xs, ys);
        g->addData(xs, ys, true);
        any = true;
    }
    if (any) updateVisibility(plot, seriesIndex);
}

} // namespace fog
