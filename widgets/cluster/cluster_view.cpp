#include "widgets/cluster/cluster_view.h"

#include "core/cluster/cluster_io.h"
#include "widgets/plots/qcustomplot.h"

#include <QLabel>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace fog {

using namespace fog::cluster;

ClusterView::ClusterView(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    summary_ = new QLabel(this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    tabs_ = new QTabWidget(this);
    auto make = [&](const QString& title) {
        auto* p = new QCustomPlot(tabs_);
        p->setMinimumSize(480, 300);
        tabs_->addTab(p, title);
        return p;
    };
    queue_ = make(tr("Queue"));
    utilisation_ = make(tr("Utilisation"));
    cdf_ = make(tr("Completion time CDF"));
    gantt_ = make(tr("Servers (Gantt)"));
    layout->addWidget(summary_);
    layout->addWidget(tabs_, 1);
}

QString ClusterView::summaryText() const { return summary_->text(); }

void ClusterView::showRun(const ClusterScenario& s, const ClusterResult& r) {
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

    // Queue length and running tasks: step functions over the decision points.
    queue_->clearGraphs();
    QVector<double> t, pending, running, cpu, gpu;
    int totalCpus = 0, totalGpus = 0;
    for (const auto& ref : flattenServers(s)) {
        totalCpus += ref.spec->cpus;
        totalGpus += ref.spec->gpus;
    }
    for (const auto& x : r.samples) {
        t << x.time;
        pending << x.pending;
        running << x.running;
        cpu << (totalCpus ? 100.0 * x.usedCpus / totalCpus : 0.0);
        gpu << (totalGpus ? 100.0 * x.usedGpus / totalGpus : 0.0);
    }
    auto addStep = [](QCustomPlot* p, const QVector<double>& x, const QVector<double>& y, const QString& name, QColor c) {
        QCPGraph* g = p->addGraph();
        g->setData(x, y, true);
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setName(name);
        g->setPen(QPen(c, 1.5));
    };
    addStep(queue_, t, pending, tr("pending (queue + backlog)"), QColor(200, 80, 40));
    addStep(queue_, t, running, tr("running"), QColor(40, 110, 190));
    queue_->xAxis->setLabel(tr("virtual time (steps)"));
    queue_->yAxis->setLabel(tr("tasks"));
    queue_->legend->setVisible(true);
    queue_->rescaleAxes();
    queue_->replot();

    utilisation_->clearGraphs();
    addStep(utilisation_, t, cpu, tr("CPUs in use"), QColor(60, 150, 60));
    addStep(utilisation_, t, gpu, tr("GPUs in use"), QColor(150, 60, 160));
    utilisation_->xAxis->setLabel(tr("virtual time (steps)"));
    utilisation_->yAxis->setLabel(tr("% of the cluster"));
    utilisation_->legend->setVisible(true);
    utilisation_->rescaleAxes();
    utilisation_->yAxis->setRange(0, 105);
    utilisation_->replot();

    // Empirical CDF of completion times, one curve per task type and all together.
    cdf_->clearGraphs();
    auto addCdf = [&](int type, const QString& name, QColor c) {
        std::vector<double> v;
        for (const auto& k : r.tasks)
            if (k.finish >= 0 && (type < 0 || k.type == type)) v.push_back(k.completionTime());
        if (v.empty()) return;
        std::sort(v.begin(), v.end());
        QVector<double> x, y;
        for (std::size_t i = 0; i < v.size(); ++i) {
            x << v[i];
            y << double(i + 1) / v.size();
        }
        QCPGraph* g = cdf_->addGraph();
        g->setData(x, y, true);
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setName(name);
        g->setPen(QPen(c, type < 0 ? 2.5 : 1.2));
    };
    const QColor palette[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44), QColor(214, 39, 40),
                              QColor(148, 103, 189), QColor(140, 86, 75)};
    addCdf(-1, tr("all tasks"), Qt::black);
    for (std::size_t i = 0; i < s.taskTypes.size(); ++i)
        addCdf(static_cast<int>(i), QString::fromStdString(s.taskTypes[i].name), palette[i % 6]);
    cdf_->xAxis->setLabel(tr("completion time (steps)"));
    cdf_->yAxis->setLabel(tr("fraction of tasks"));
    cdf_->legend->setVisible(true);
    cdf_->rescaleAxes();
    cdf_->yAxis->setRange(0, 1.02);
    cdf_->replot();

    // Gantt: one row per server, one bar per task interval, colour by task type, height by
    // the GPUs it holds (share of the server's GPUs).
    gantt_->clearItems();
    gantt_->clearGraphs();
    const auto servers = flattenServers(s);
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (std::size_t i = 0; i < servers.size(); ++i) ticker->addTick(i, QString::fromStdString(servers[i].spec->id));
    gantt_->yAxis->setTicker(ticker);
    for (const auto& iv : r.intervals) {
        const ServerSpec& spec = *servers[iv.server].spec;
        const double share = spec.gpus > 0 ? double(iv.gpus) / spec.gpus : (spec.cpus > 0 ? double(iv.cpus) / spec.cpus : 1);
        // Stacked above the GPU shares of the intervals already running when it starts
        // (approximate: a bar keeps its height and place until it ends).
        double used = 0;
        for (const auto& other : r.intervals) {
            if (&other == &iv) break;
            if (other.server == iv.server && other.start <= iv.start && iv.start < other.end) {
                const double os = spec.gpus > 0 ? double(other.gpus) / spec.gpus : 0;
                used += os;
            }
        }
        const double offset = std::max(0.0, std::min(used, 1.0 - share));
        auto* rect = new QCPItemRect(gantt_);
        const double base = double(iv.server) - 0.4;
        rect->topLeft->setCoords(iv.start, base + 0.8 * (offset + share));
        rect->bottomRight->setCoords(std::max(iv.end, iv.start + 1e-6), base + 0.8 * offset);
        const QColor c = palette[r.tasks[iv.task].type % 6];
        rect->setBrush(QBrush(c.lighter(120)));
        rect->setPen(QPen(c.darker(130), 0.5));
    }
    gantt_->xAxis->setLabel(tr("virtual time (steps); bar height = share of the server's GPUs"));
    gantt_->xAxis->setRange(0, std::max(1.0, m.makespan));
    gantt_->yAxis->setRange(-0.6, double(servers.size()) - 0.4);
    gantt_->replot();
}

bool openClusterWindow(const QString& path, QWidget* parent, QString* error) {
    ClusterScenario s;
    ClusterResult r;
    try {
        s = loadClusterScenarioFile(path.toStdString());
        auto sched = makeScheduler(s.scheduler.name, s);
        r = runCluster(s, *sched, s.seed);
    } catch (const ScenarioError& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    auto* view = new ClusterView(parent);
    view->setWindowFlag(Qt::Window);
    view->setAttribute(Qt::WA_DeleteOnClose);
    view->setWindowTitle(QObject::tr("Cluster experiment — %1").arg(QString::fromStdString(s.name)));
    view->showRun(s, r);
    view->resize(900, 640);
    view->show();
    return true;
}

} // namespace fog
