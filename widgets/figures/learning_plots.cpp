#include "widgets/figures/learning_plots.h"

#include "widgets/figures/qcustomplot.h"

#include <cmath>
#include <cstdlib>

namespace fog {

double privacyValue(const std::string& detail, const std::string& key) {
    const std::string tag = key + "=";
    std::size_t at = 0;
    while ((at = detail.find(tag, at)) != std::string::npos) {
        if (at == 0 || detail[at - 1] == ' ') return std::strtod(detail.c_str() + at + tag.size(), nullptr);
        at += tag.size();
    }
    return kNaN;
}

std::vector<QPointF> privacyCurve(const std::vector<RunEvent>& events, double* delta) {
    std::vector<QPointF> out;
    if (delta) *delta = kNaN;
    for (const RunEvent& e : events) {
        if (e.kind != RunEventKind::Privacy) continue;
        const double eps = privacyValue(e.detail, "epsilon");
        if (std::isnan(eps)) continue;
        out.emplace_back(e.time, eps);
        if (delta) *delta = privacyValue(e.detail, "delta");
    }
    return out;
}

bool anyBytes(const std::vector<PlotSeries>& series) {
    for (const auto& s : series)
        for (const auto& r : s.metrics)
            if (r.level == 0 && r.bytes > 0) return true;
    return false;
}

void plotBytesPerRound(QCustomPlot* plot, const std::vector<PlotSeries>& series, const PlotOptions& options) {
    PlotOptions o = options;
    o.rawBehind = false;
    plotMetric(plot, {}, PlotKind::Cost, o); // a clean, styled plot
    for (std::size_t i = 0; i < series.size(); ++i) {
        QCPGraph* g = plot->addGraph();
        g->setName(series[i].label);
        g->setPen(QPen(series[i].color.isValid() ? series[i].color : seriesColor(static_cast<int>(i)), 2,
                       seriesPenStyle(static_cast<int>(i))));
        g->setLineStyle(QCPGraph::lsStepLeft);
        double prev = 0.0;
        for (const auto& r : series[i].metrics) {
            if (r.level != 0) continue;
            g->addData(o.x == PlotXAxis::Round ? r.round : r.time, (r.bytes - prev) / 1e6);
            prev = r.bytes;
        }
        markSparsePoints(g);
    }
    plot->xAxis->setLabel(axisLabel(o.x));
    plot->yAxis->setLabel("MB per round");
    plot->legend->setVisible(o.legend && !series.empty());
    plot->rescaleAxes();
    fitKeyAxis(plot, o.x);
    const QCPRange r = plot->yAxis->range();
    plot->yAxis->setRange(0.0, r.upper > 0 ? r.upper * 1.1 : 1.0);
}

void plotPrivacy(QCustomPlot* plot, const std::vector<PrivacySeries>& series) {
    plotMetric(plot, {}, PlotKind::Cost);
    double delta = kNaN;
    for (std::size_t i = 0; i < series.size(); ++i) {
        QCPGraph* g = plot->addGraph();
        g->setName(series[i].label);
        g->setPen(QPen(series[i].color.isValid() ? series[i].color : seriesColor(static_cast<int>(i)), 2,
                       seriesPenStyle(static_cast<int>(i))));
        for (const QPointF& e : series[i].epsilons) g->addData(e.x(), std::isfinite(e.y()) ? e.y() : kNaN);
        markSparsePoints(g);
        if (!std::isnan(series[i].delta)) delta = series[i].delta;
    }
    plot->xAxis->setLabel(axisLabel(PlotXAxis::VirtualTime));
    plot->yAxis->setLabel(std::isnan(delta) ? QString::fromUtf8("ε spent")
                                            : QString::fromUtf8("ε spent (δ = %1)").arg(delta, 0, 'g', 3));
    plot->legend->setVisible(!series.empty());
    plot->rescaleAxes();
    fitKeyAxis(plot, PlotXAxis::VirtualTime);
    const QCPRange r = plot->yAxis->range();
    plot->yAxis->setRange(0.0, r.upper > 0 ? r.upper * 1.1 : 1.0);
}

} // namespace fog
