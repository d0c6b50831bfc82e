#include "widgets/figures/cluster_plots.h"

#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <algorithm>
#include <cmath>

namespace fog {

using namespace fog::cluster;

QString formatClusterCi(const cluster::MeanCi& m, int decimals) {
    if (m.n == 0) return QString::fromUtf8("–");
    if (m.n < 2 || std::isnan(m.halfWidth)) return QString::number(m.mean, 'f', decimals);
    return QString::fromUtf8("%1 ± %2")
        .arg(m.mean, 0, 'f', decimals)
        .arg(m.halfWidth, 0, 'f', decimals);
}

void plotClusterCdfs(QCustomPlot* plot, const std::vector<ComparedClusterRun>& runs,
                     const std::vector<QString>& labels, const std::vector<QColor>& colors) {
    plot->clearPlottables();
    plot->clearItems();
    styleAxes(plot);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::vector<double> v = sortedCompletionTimes(runs[i].data.result);
        QVector<double> x, y;
        for (std::size_t k = 0; k < v.size(); ++k) {
            x << v[k];
            y << double(k + 1) / v.size();
        }
        QCPGraph* g = plot->addGraph();
        g->setData(x, y, true);
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setPen(QPen(i < colors.size() ? colors[i] : seriesColor(static_cast<int>(i)), 1.8));
        g->setName(i < labels.size() ? labels[i] : QString("#%1").arg(runs[i].runId));
    }
    plot->xAxis->setLabel("completion time (steps)");
    plot->yAxis->setLabel("fraction of tasks completed within");
    plot->legend->setVisible(!runs.empty() && runs.size() <= 12);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    plot->rescaleAxes();
    plot->xAxis->setRangeLower(0);
    plot->yAxis->setRange(0, 1.02);
}

void plotClusterGroups(QCustomPlot* plot, const std::vector<ClusterGroup>& groups) {
    plot->clearPlottables();
    plot->clearItems();
    styleAxes(plot);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    QVector<double> x, mean, err, p95;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        x << double(g + 1);
        mean << groups[g].meanCompletion.mean;
        err << (groups[g].meanCompletion.n > 1 && std::isfinite(groups[g].meanCompletion.halfWidth)
                    ? groups[g].meanCompletion.halfWidth
                    : 0.0);
        p95 << groups[g].p95Completion.mean;
        ticker->addTick(double(g + 1), QString::fromStdString(groups[g].scheduler) +
                                           QString("\n(%1 run%2)")
                                               .arg(groups[g].runIds.size())
                                               .arg(groups[g].runIds.size() == 1 ? "" : "s"));
    }
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setData(x, mean);
    bars->setWidth(0.6);
    bars->setName("mean completion (± 95% CI over seeds)");
    bars->setBrush(seriesColor(0).lighter(130));
    bars->setPen(QPen(seriesColor(0).darker(120)));
    auto* whiskers = new QCPErrorBars(plot->xAxis, plot->yAxis);
    whiskers->setDataPlottable(bars);
    whiskers->setData(err);
    whiskers->setPen(QPen(plot->palette().color(QPalette::WindowText), 1.5));
    whiskers->removeFromLegend();
    QCPGraph* tail = plot->addGraph();
    tail->setData(x, p95, true);
    tail->setLineStyle(QCPGraph::lsNone);
    tail->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(seriesColor(5), 1.5),
                                          QBrush(seriesColor(5)), 8));
    tail->setName("p95 completion (mean over seeds)");
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setRange(0.4, groups.size() + 0.6);
    plot->yAxis->setLabel("completion time (steps)");
    double top = 1;
    for (int i = 0; i < mean.size(); ++i)
        top = std::max({top, mean[i] + err[i], p95[i]});
    plot->yAxis->setRange(0, top * 1.1);
    plot->legend->setVisible(!groups.empty());
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
}

} // namespace fog
