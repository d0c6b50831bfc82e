#include "widgets/compare/cluster_comparison.h"

#include "widgets/plots/qcustomplot.h"
#include "widgets/plots/run_plots.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

using namespace fog::cluster;

namespace {

} // namespace

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

ClusterComparison::ClusterComparison(QWidget* parent) : QWidget(parent) {
    setObjectName("clusterComparison");
    cdf_ = new QCustomPlot(this);
    bars_ = new QCustomPlot(this);
    for (QCustomPlot* p : {cdf_, bars_}) {
        p->setMinimumSize(240, 180);
        p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    }
    table_ = new QTableWidget(0, ColumnCount, this);
    table_->setHorizontalHeaderLabels({"scenario", "scheduler", "runs", "mean completion",
                                       "p95 completion", "makespan", "GPU use %"});
    table_->horizontalHeaderItem(MeanCol)->setToolTip(
        "Mean task completion time (steps), mean ± 95% CI over the runs (seeds)");
    table_->horizontalHeaderItem(P95Col)->setToolTip(
        "95th percentile of completion time (steps), mean ± 95% CI over the runs");
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    auto* plots = new QSplitter(Qt::Horizontal, this);
    auto titled = [this](const QString& t, QWidget* w) {
        auto* box = new QWidget(this);
        auto* l = new QVBoxLayout(box);
        l->setContentsMargins(0, 0, 0, 0);
        l->setSpacing(2);
        auto* label = new QLabel("<b>" + t + "</b>", box);
        label->setAlignment(Qt::AlignHCenter);
        l->addWidget(label);
        l->addWidget(w, 1);
        return box;
    };
    plots->addWidget(titled("Completion time CDF (cluster runs)", cdf_));
    plots->addWidget(titled("Completion time per scheduler", bars_));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(plots);
    split->addWidget(table_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    layout->addWidget(split);
}

void ClusterComparison::setRuns(std::vector<ComparedClusterRun> runs,
                                const std::vector<QString>& labels,
                                const std::vector<QColor>& colors) {
    runs_ = std::move(runs);
    labels_ = labels;
    colors_ = colors;
    groups_ = groupClusterRuns(runs_);
    redraw();
}

void ClusterComparison::redraw() {
    plotClusterCdfs(cdf_, runs_, labels_, colors_);
    plotClusterGroups(bars_, groups_);
    cdf_->replot(QCustomPlot::rpQueuedReplot);
    bars_->replot(QCustomPlot::rpQueuedReplot);
    table_->setRowCount(static_cast<int>(groups_.size()));
    for (std::size_t g = 0; g < groups_.size(); ++g) {
        const ClusterGroup& x = groups_[g];
        const QStringList cells = {
            QString::fromStdString(x.scenario),
            QString::fromStdString(x.scheduler),
            QString::number(x.runIds.size()) +
                (x.incomplete ? QString(" (%1 incomplete)").arg(x.incomplete) : QString()),
            formatClusterCi(x.meanCompletion),
            formatClusterCi(x.p95Completion),
            formatClusterCi(x.makespan, 2),
            formatClusterCi(
                {100 * x.gpuUtilisation.mean, 100 * x.gpuUtilisation.halfWidth, x.gpuUtilisation.n},
                1)};
        for (int c = 0; c < ColumnCount; ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c >= RunsCol) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            table_->setItem(static_cast<int>(g), c, item);
        }
    }
}

void ClusterComparison::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) QTimer::singleShot(0, this, [this] { redraw(); });
}

} // namespace fog
