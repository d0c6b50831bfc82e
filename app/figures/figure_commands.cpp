// fogstudio-figures: the CLI's figure commands (export plots|report, cluster plots|report) as
// a module fogstudio-cli loads on demand (app/cli/figure_module.h). It links the figures
// (widgets/figures) and the exporters (app/export), and with them Qt Widgets and QCustomPlot.

#include "app/cli/figure_module.h"
#include "app/export/report.h"
#include "core/store/run_store.h"
#include "widgets/figures/cluster_plots.h"
#include "widgets/figures/learning_plots.h"
#include "widgets/figures/plot_export.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"
#include "widgets/figures/time_markers.h"

#include <QApplication>
#include <QDir>

#include <algorithm>
#include <exception>
#include <iostream>

namespace fog::cli {

namespace {

/// Writes `plot` as `dir/name.format`, printing the path; false (with the reason) if it fails.
class PlotFiles {
  public:
    PlotFiles(const FigureRequest& r, QString dir, QString format)
        : prefix_(r.prefix), dir_(std::move(dir)), format_(std::move(format)) {
        plot.setPalette(QPalette(Qt::white));
    }
    bool save(const QString& name, int w, int h) {
        QString error;
        const QString path = dir_ + "/" + name + "." + format_;
        if (!savePlot(&plot, path, w, h, &error)) {
            std::cerr << prefix_ << ": " << error.toStdString() << "\n";
            return false;
        }
        std::cout << path.toStdString() << "\n";
        ++written;
        return true;
    }
    QCustomPlot plot;
    int written = 0;

  private:
    std::string prefix_;
    QString dir_, format_;
};

int runPlots(const FigureRequest& r, RunStore& store) {
    const auto& runs = r.runs;
    std::vector<PlotSeries> series;
    std::vector<TradeOffRun> trade;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& run = runs[i].run;
        const QString label = QString("#%1 %2").arg(run.id).arg(QString::fromStdString(run.sweepConfig.empty() ? run.name : run.sweepConfig));
        series.push_back({label, seriesColor(static_cast<int>(i)), runs[i].metrics});
        trade.push_back({label, {run.summary.virtualTime, run.summary.cost, run.summary.finalTestAccuracy}});
    }
    PlotFiles files(r, r.out, r.format);
    QCustomPlot& plot = files.plot;
    const std::pair<PlotKind, const char*> kinds[] = {{PlotKind::TestAccuracy, "accuracy"},
                                                      {PlotKind::TrainLoss, "loss"},
                                                      {PlotKind::Cost, "cost"},
                                                      {PlotKind::Energy, "energy"}};
    std::vector<std::int64_t> ids; // a fork beside its parent: where they branch (widgets/figures/time_markers.h)
    for (const auto& run : runs) ids.push_back(run.run.id);
    const std::vector<TimeMarker> forks = forkMarkers(store, ids);
    for (const auto& [kind, name] : kinds) {
        plotMetric(&plot, series, kind);
        for (const TimeMarker& m : forks)
            for (std::size_t i = 0; i < runs.size(); ++i)
                if (runs[i].run.id == m.run) addTimeMarker(&plot, m.time, m.label, seriesColor(static_cast<int>(i)));
        if (!files.save(name, 900, 500)) return 1;
    }
    // The learning side (issue 25): megabytes per round, and the privacy spent where runs
    // report it (the report names these files in its commands).
    if (anyBytes(series)) {
        plotBytesPerRound(&plot, series);
        if (!files.save("bytes_per_round", 900, 500)) return 1;
    }
    std::vector<PrivacySeries> privacy;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        PrivacySeries p{series[i].label, series[i].color, {}, kNaN};
        p.epsilons = privacyCurve(store.events(runs[i].run.id), &p.delta);
        if (!p.epsilons.empty()) privacy.push_back(p);
    }
    if (!privacy.empty()) {
        plotPrivacy(&plot, privacy);
        if (!files.save("privacy", 900, 500)) return 1;
    }
    if (runs.size() > 1) {
        plotTradeOff(&plot, trade);
        if (!files.save("tradeoff", 900, 560)) return 1;
    } else {
        std::vector<QString> names;
        for (const auto& n : store.nodes(runs[0].run.id)) names.push_back(QString::fromStdString(n.id));
        plotTimeline(&plot, store.intervals(runs[0].run.id), names, runs[0].run.summary.virtualTime);
        if (!files.save("timeline", 900, std::clamp(static_cast<int>(names.size()) * 14 + 90, 300, 900))) return 1;
    }
    return files.written ? 0 : 1;
}

int clusterPlots(const FigureRequest& r, RunStore& store) {
    std::vector<StoredRun> stored;
    for (const auto& run : r.clusterRuns)
        if (auto x = store.run(run.runId)) stored.push_back(*x);
    const std::vector<QString> labels = reportLabels(stored);
    std::vector<QColor> colors;
    for (std::size_t i = 0; i < r.clusterRuns.size(); ++i) colors.push_back(seriesColor(static_cast<int>(i)));
    PlotFiles files(r, r.out, r.format);
    plotClusterCdfs(&files.plot, r.clusterRuns, labels, colors);
    if (!files.save("completion_cdf", 900, 560)) return 1;
    plotClusterGroups(&files.plot, cluster::groupClusterRuns(r.clusterRuns));
    return files.save("completion_by_scheduler", 900, 500) ? 0 : 1;
}

int report(const FigureRequest& r, RunStore& store) {
    ReportOptions options;
    options.target = r.target;
    options.dbPath = r.dbOption;
    QString error;
    if (!writeReport(loadReportRuns(store, r.ids), r.out, options, &error)) {
        std::cerr << r.prefix << ": " << error.toStdString() << "\n";
        return 1;
    }
    std::cout << r.out.toStdString() << "\n";
    return 0;
}

} // namespace

} // namespace fog::cli

extern "C" {

/// Plots and reports draw with Qt's GUI classes; they need a QApplication, offscreen when
/// there is no display (CI, ssh).
__attribute__((visibility("default"))) QCoreApplication* fogFiguresApplication(int& argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return new QApplication(argc, argv);
}

__attribute__((visibility("default"))) int fogFiguresRun(const fog::cli::FigureRequest& r) {
    using Kind = fog::cli::FigureRequest::Kind;
    // Nothing thrown crosses back into the CLI (its own copy of the core has other types).
    try {
        if ((r.kind == Kind::RunPlots || r.kind == Kind::ClusterPlots) && !QDir().mkpath(r.out)) {
            std::cerr << r.prefix << ": cannot create " << r.out.toStdString() << "\n";
            return 1;
        }
        fog::RunStore store(r.db);
        switch (r.kind) {
        case Kind::RunPlots: return fog::cli::runPlots(r, store);
        case Kind::ClusterPlots: return fog::cli::clusterPlots(r, store);
        case Kind::Report: return fog::cli::report(r, store);
        }
    } catch (const std::exception& e) {
        std::cerr << r.prefix << ": " << e.what() << "\n";
    }
    return 1;
}

} // extern "C"
