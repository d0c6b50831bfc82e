#include "widgets/cluster/cluster_view.h"

#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <QEvent>
#include <QLabel>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace fog {

using namespace fog::cluster;

namespace {

QCPGraph* addStep(QCustomPlot* p, const QString& name, QColor c, double width = 1.5) {
    QCPGraph* g = p->addGraph();
    g->setLineStyle(QCPGraph::lsStepLeft);
    g->setName(name);
    g->setPen(QPen(c, width));
    return g;
}

/// The colour of "everything" (all tasks): the text colour, legible on either theme.
QColor foreground(const QWidget* w) { return w->palette().color(QPalette::WindowText); }

} // namespace

ClusterView::ClusterView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    tabs_ = new QTabWidget(this);
    auto make = [&](const QString& title) {
        auto* p = new QCustomPlot(tabs_);
        p->setMinimumSize(360, 220);
        tabs_->addTab(p, title);
        return p;
    };
    queue_ = make(tr("Queue"));
    utilisation_ = make(tr("Utilisation"));
    cdf_ = make(tr("Completion time CDF"));
    gantt_ = make(tr("Servers (Gantt)"));
    speed_ = make(tr("Speed curves"));
    training_ = make(tr("Training"));
    layout->addWidget(summary_);
    layout->addWidget(tabs_, 1);
    styleAll();
}

QString ClusterView::summaryText() const { return summary_->text(); }
void ClusterView::setSummaryText(const QString& html) { summary_->setText(html); }

void ClusterView::styleAll() {
    for (QCustomPlot* p : {queue_, utilisation_, cdf_, gantt_, speed_, training_}) styleAxes(p);
}

void ClusterView::restyle() {
    styleAll();
    // Curves drawn in the text colour follow it.
    if (cdf_->graphCount() > 0) cdf_->graph(0)->setPen(QPen(foreground(this), 2.5));
    for (QCustomPlot* p : {queue_, utilisation_, cdf_, gantt_, speed_, training_}) p->replot(QCustomPlot::rpQueuedReplot);
}

void ClusterView::changeEvent(QEvent* event) {
    QWidget::changeEvent(event);
    // Children get the new palette after this widget: restyle once they have it.
    if (event->type() == QEvent::PaletteChange) QTimer::singleShot(0, this, [this] { restyle(); });
}

void ClusterView::scheduleReplot() {
    if (replotPending_) return;
    replotPending_ = true;
    QTimer::singleShot(33, this, [this] {
        replotPending_ = false;
        for (QCustomPlot* p : {queue_, utilisation_, cdf_, gantt_, training_}) p->replot(QCustomPlot::rpQueuedReplot);
    });
}

void ClusterView::beginLive(const ClusterScenario& s, const QString& scheduler, std::uint64_t seed) {
    styleAll();
    scenario_ = s;
    finished_.clear();
    totalCpus_ = totalGpus_ = 0;
    totalMemory_ = totalBandwidth_ = 0;
    for (const auto& ref : flattenServers(scenario_)) {
        totalCpus_ += ref.spec->cpus;
        totalGpus_ += ref.spec->gpus;
        totalMemory_ += ref.spec->memoryGb;
        totalBandwidth_ += ref.spec->bandwidthGbps;
    }
    summary_->setText(tr("<b>%1</b> — scheduler <b>%2</b>, seed %3: running…")
                          .arg(QString::fromStdString(s.name).toHtmlEscaped(), scheduler)
                          .arg(seed));
    queue_->clearGraphs();
    addStep(queue_, tr("pending (queue + backlog)"), seriesColor(5));
    addStep(queue_, tr("running"), seriesColor(0));
    queue_->xAxis->setLabel(tr("virtual time (steps)"));
    queue_->yAxis->setLabel(tr("tasks"));
    queue_->legend->setVisible(true);
    utilisation_->clearGraphs();
    addStep(utilisation_, tr("CPUs"), seriesColor(2));
    addStep(utilisation_, tr("GPUs"), seriesColor(3));
    addStep(utilisation_, tr("memory"), seriesColor(1), 1.0);
    addStep(utilisation_, tr("bandwidth"), seriesColor(4), 1.0);
    utilisation_->xAxis->setLabel(tr("virtual time (steps)"));
    utilisation_->yAxis->setLabel(tr("% of the cluster in use"));
    utilisation_->legend->setVisible(true);
    utilisation_->yAxis->setRange(0, 105);
    cdf_->clearGraphs();
    gantt_->clearItems();
    gantt_->clearGraphs();
    const auto servers = flattenServers(scenario_);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (std::size_t i = 0; i < servers.size(); ++i) ticker->addTick(i, QString::fromStdString(servers[i].spec->id));
    gantt_->yAxis->setTicker(ticker);
    gantt_->yAxis->setRange(-0.6, double(servers.size()) - 0.4);
    gantt_->xAxis->setLabel(tr("virtual time (steps); bar height = share of the server's GPUs"));
    for (QCustomPlot* p : {queue_, utilisation_, cdf_, gantt_}) p->replot(QCustomPlot::rpQueuedReplot);
}

void ClusterView::appendLive(const std::vector<ClusterSample>& samples, const std::vector<TaskRecord>& finished) {
    if (queue_->graphCount() < 2 || utilisation_->graphCount() < 4) return;
    for (const auto& x : samples) {
        queue_->graph(0)->addData(x.time, x.pending);
        queue_->graph(1)->addData(x.time, x.running);
        utilisation_->graph(0)->addData(x.time, totalCpus_ ? 100.0 * x.usedCpus / totalCpus_ : 0.0);
        utilisation_->graph(1)->addData(x.time, totalGpus_ ? 100.0 * x.usedGpus / totalGpus_ : 0.0);
        utilisation_->graph(2)->addData(x.time, totalMemory_ > 0 ? 100.0 * x.usedMemoryGb / totalMemory_ : 0.0);
        utilisation_->graph(3)->addData(x.time, totalBandwidth_ > 0 ? 100.0 * x.usedBandwidthGbps / totalBandwidth_ : 0.0);
    }
    finished_.insert(finished_.end(), finished.begin(), finished.end());
    queue_->rescaleAxes();
    utilisation_->xAxis->rescale();
    utilisation_->yAxis->setRange(0, 105);
    if (!finished.empty()) {
        drawCdf();
        drawGanttFromTasks();
    }
    if (!samples.empty()) {
        const ClusterSample& last = samples.back();
        summary_->setText(tr("<b>%1</b> — running: virtual time %2 steps, %3 tasks completed, %4 pending, %5 running")
                              .arg(QString::fromStdString(scenario_.name).toHtmlEscaped())
                              .arg(last.time, 0, 'f', 1)
                              .arg(finished_.size())
                              .arg(last.pending)
                              .arg(last.running));
    }
    scheduleReplot();
}

void ClusterView::drawCdf() {
    cdf_->clearGraphs();
    auto addCdf = [&](int type, const QString& name, QColor c) {
        std::vector<double> v;
        for (const auto& k : finished_)
            if (k.finish >= 0 && (type < 0 || k.type == type)) v.push_back(k.completionTime());
        if (v.empty()) return;
        std::sort(v.begin(), v.end());
        QVector<double> x, y;
        for (std::size_t i = 0; i < v.size(); ++i) {
            x << v[i];
            y << double(i + 1) / v.size();
        }
        QCPGraph* g = addStep(cdf_, name, c, type < 0 ? 2.5 : 1.2);
        g->setData(x, y, true);
    };
    addCdf(-1, tr("all tasks"), foreground(this));
    for (std::size_t i = 0; i < scenario_.taskTypes.size(); ++i)
        addCdf(static_cast<int>(i), QString::fromStdString(scenario_.taskTypes[i].name), seriesColor(static_cast<int>(i)));
    cdf_->xAxis->setLabel(tr("completion time (steps)"));
    cdf_->yAxis->setLabel(tr("fraction of tasks"));
    cdf_->legend->setVisible(true);
    cdf_->rescaleAxes();
    cdf_->yAxis->setRange(0, 1.02);
}

void ClusterView::drawGanttFromTasks() {
    // While running, each finished task is one bar from its first start to its finish on its
    // last server (a preempted task's intervals come with the finished episode).
    std::vector<ServerInterval> ivs;
    for (const auto& k : finished_)
        if (k.server >= 0 && k.firstStart >= 0) ivs.push_back({k.server, k.id, k.firstStart, k.finish, k.cpus, k.gpus, 0, 0});
    std::stable_sort(ivs.begin(), ivs.end(), [](const ServerInterval& a, const ServerInterval& b) { return a.start < b.start; });
    gantt_->clearItems();
    const auto servers = flattenServers(scenario_);
    double end = 1;
    for (const auto& iv : ivs) {
        if (iv.server >= static_cast<int>(servers.size())) continue;
        const ServerSpec& spec = *servers[iv.server].spec;
        const double share = spec.gpus > 0 ? double(iv.gpus) / spec.gpus : (spec.cpus > 0 ? double(iv.cpus) / spec.cpus : 1);
        double used = 0;
        for (const auto& other : ivs) {
            if (&other == &iv) break;
            if (other.server == iv.server && other.start <= iv.start && iv.start < other.end)
                used += spec.gpus > 0 ? double(other.gpus) / spec.gpus : 0;
        }
        const double offset = std::max(0.0, std::min(used, 1.0 - share));
        auto* rect = new QCPItemRect(gantt_);
        const double base = double(iv.server) - 0.4;
        rect->topLeft->setCoords(iv.start, base + 0.8 * (offset + share));
        rect->bottomRight->setCoords(std::max(iv.end, iv.start + 1e-6), base + 0.8 * offset);
        int type = 0;
        for (const auto& k : finished_)
            if (k.id == iv.task) type = k.type;
        const QColor c = seriesColor(type);
        rect->setBrush(QBrush(c.lighter(120)));
        rect->setPen(QPen(c.darker(130), 0.5));
        end = std::max(end, iv.end);
    }
    gantt_->xAxis->setRange(0, end);
}

void ClusterView::showRun(const ClusterScenario& s, const ClusterResult& r) {
    beginLive(s, QString::fromStdString(r.summary.scheduler), r.summary.seed);
    appendLive(r.samples, {});
    finished_ = r.tasks;
    drawCdf();
    const ClusterSummary& m = r.summary;
    summary_->setText(tr("<b>%1</b> — scheduler <b>%2</b>, seed %3: %4/%5 tasks completed (%6).<br>"
                         "Completion time: mean %7, p50 %8, p95 %9 steps; makespan %10 steps; "
                         "CPU use %11%, GPU use %12%; %13 preemptions.")
                          .arg(QString::fromStdString(s.name).toHtmlEscaped(), QString::fromStdString(m.scheduler))
                          .arg(m.seed)
                          .arg(m.completed)
                          .arg(m.tasks)
                          .arg(QString::fromStdString(m.stopReason).toHtmlEscaped())
                          .arg(m.meanCompletion, 0, 'f', 3)
                          .arg(m.p50Completion, 0, 'f', 3)
                          .arg(m.p95Completion, 0, 'f', 3)
                          .arg(m.makespan, 0, 'f', 2)
                          .arg(100 * m.cpuUtilisation, 0, 'f', 1)
                          .arg(100 * m.gpuUtilisation, 0, 'f', 1)
                          .arg(m.preemptions));

    // Gantt from the exact intervals: one bar per task interval, colour by task type, height
    // by the GPUs it holds (share of the server's GPUs), stacked approximately.
    gantt_->clearItems();
    const auto servers = flattenServers(s);
    for (const auto& iv : r.intervals) {
        const ServerSpec& spec = *servers[iv.server].spec;
        const double share = spec.gpus > 0 ? double(iv.gpus) / spec.gpus : (spec.cpus > 0 ? double(iv.cpus) / spec.cpus : 1);
        double used = 0;
        for (const auto& other : r.intervals) {
            if (&other == &iv) break;
            if (other.server == iv.server && other.start <= iv.start && iv.start < other.end)
                used += spec.gpus > 0 ? double(other.gpus) / spec.gpus : 0;
        }
        const double offset = std::max(0.0, std::min(used, 1.0 - share));
        auto* rect = new QCPItemRect(gantt_);
        const double base = double(iv.server) - 0.4;
        rect->topLeft->setCoords(iv.start, base + 0.8 * (offset + share));
        rect->bottomRight->setCoords(std::max(iv.end, iv.start + 1e-6), base + 0.8 * offset);
        const QColor c = seriesColor(r.tasks[iv.task].type);
        rect->setBrush(QBrush(c.lighter(120)));
        rect->setPen(QPen(c.darker(130), 0.5));
    }
    gantt_->xAxis->setRange(0, std::max(1.0, m.makespan));
    for (QCustomPlot* p : {queue_, utilisation_, cdf_, gantt_}) p->replot();
}

void ClusterView::showSpeedCurves(const ClusterScenario& s) {
    speed_->clearGraphs();
    int maxC = 1, maxG = 1;
    for (const auto& ref : flattenServers(s)) {
        maxC = std::max(maxC, ref.spec->cpus);
        maxG = std::max(maxG, ref.spec->gpus);
    }
    const int top = std::max(maxC, maxG);
    for (std::size_t i = 0; i < s.taskTypes.size(); ++i) {
        const TaskType& t = s.taskTypes[i];
        const QColor c = seriesColor(static_cast<int>(i));
        QVector<double> xg, yg, xc, yc;
        for (int g = std::max(0, t.min.gpus); g <= maxG; ++g) {
            xg << g;
            yg << taskSpeed(t, t.request.cpus, g);
        }
        for (int k = std::max(1, t.min.cpus); k <= maxC; ++k) {
            xc << k;
            yc << taskSpeed(t, k, t.request.gpus);
        }
        QCPGraph* g = speed_->addGraph();
        g->setData(xg, yg, true);
        g->setPen(QPen(c, 2));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 6));
        g->setName(tr("%1: vs GPUs (%2 CPUs)").arg(QString::fromStdString(t.name)).arg(t.request.cpus));
        QCPGraph* h = speed_->addGraph();
        h->setData(xc, yc, true);
        h->setPen(QPen(c, 1.5, Qt::DashLine));
        h->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
        h->setName(tr("%1: vs CPUs (%2 GPUs)").arg(QString::fromStdString(t.name)).arg(t.request.gpus));
    }
    speed_->xAxis->setLabel(tr("CPUs or GPUs given (the other at the type's request)"));
    speed_->yAxis->setLabel(tr("speed (work units / step)"));
    speed_->legend->setVisible(!s.taskTypes.empty());
    speed_->legend->setFont(QFont(font().family(), std::max(7, font().pointSize() - 1)));
    speed_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    speed_->rescaleAxes();
    QSharedPointer<QCPAxisTickerFixed> whole(new QCPAxisTickerFixed); // CPUs and GPUs are whole units
    whole->setTickStep(top > 16 ? 4 : top > 8 ? 2 : 1);
    whole->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    speed_->xAxis->setTicker(whole);
    speed_->xAxis->setRange(0, top + 0.5);
    speed_->yAxis->setRangeLower(0);
    // Head room above the curves for the legend (top left, where the curves start low).
    speed_->yAxis->setRangeUpper(speed_->yAxis->range().upper * (1.15 + 0.07 * 2 * s.taskTypes.size()) + 1e-9);
    speed_->replot(QCustomPlot::rpQueuedReplot);
}

void ClusterView::beginTraining(int episodes) {
    training_->clearGraphs();
    trainingValues_.clear();
    QCPGraph* sampled = training_->addGraph();
    sampled->setName(tr("sampled episode"));
    sampled->setPen(QPen(seriesColor(7), 1));
    QCPGraph* avg = training_->addGraph();
    avg->setName(tr("moving average (10)"));
    avg->setPen(QPen(seriesColor(0), 2.5));
    QCPGraph* val = training_->addGraph();
    val->setName(tr("greedy, validation seeds"));
    val->setPen(QPen(seriesColor(5), 2));
    val->setLineStyle(QCPGraph::lsLine);
    val->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 8));
    training_->xAxis->setLabel(tr("training episode"));
    training_->yAxis->setLabel(tr("mean completion time (steps; lower is better)"));
    training_->legend->setVisible(true);
    training_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignLeft); // curves start high
    training_->xAxis->setRange(0, std::max(1, episodes));
    training_->replot(QCustomPlot::rpQueuedReplot);
}

void ClusterView::fitTraining() {
    training_->rescaleAxes();
    training_->xAxis->setRange(0, std::max(1.0, training_->xAxis->range().upper));
    training_->yAxis->setRange(0, training_->yAxis->range().upper * 1.1);
    training_->replot(QCustomPlot::rpQueuedReplot);
}

void ClusterView::appendTraining(const std::vector<TrainProgress>& progress) {
    if (training_->graphCount() < 3) return;
    for (const auto& p : progress) {
        trainingValues_.push_back(p.meanCompletion);
        training_->graph(0)->addData(p.episode, p.meanCompletion);
        const std::size_t n = std::min<std::size_t>(10, trainingValues_.size());
        double sum = 0;
        for (std::size_t i = trainingValues_.size() - n; i < trainingValues_.size(); ++i) sum += trainingValues_[i];
        training_->graph(1)->addData(p.episode, sum / n);
        if (p.validation >= 0) training_->graph(2)->addData(p.episode, p.validation);
    }
    const double upper = training_->xAxis->range().upper;
    training_->rescaleAxes();
    training_->xAxis->setRange(0, std::max(upper, training_->xAxis->range().upper));
    training_->yAxis->setRange(0, training_->yAxis->range().upper * 1.1);
    scheduleReplot();
}

} // namespace fog
