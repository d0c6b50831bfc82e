#include "widgets/compare/cluster_comparison.h"

#include "widgets/figures/cluster_plots.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

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
