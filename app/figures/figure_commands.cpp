// fogstudio-figures: the CLI's figure commands (export plots|report, cluster plots|report) as
// a module fogstudio-cli loads on demand (app/cli/figure_module.h). It links the figures
// (widgets/figures) and the exporters (app/export), and with them Qt Widgets and QCustomPlot.

#include "app/cli/figure_module.h"
#include "app/export/report.h"
#include "app/export/run_plot_files.h"
#include "core/analysis/run_labels.h"
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
#include <cmath>
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
    PlotFiles files(r, r.out, r.format);
    RunPlotOptions o;
    o.tradeOff = r.tradeOff == "target" ? RunPlotOptions::TradeOff::Target
                 : r.tradeOff == "end"  ? RunPlotOptions::TradeOff::End
                                        : RunPlotOptions::TradeOff::Auto;
    o.meanOfRepeats = r.meanOfRepeats;
    o.target = r.target;
    const bool ok = drawRunPlots(files.plot, r.runs, store, o,
                                 [&files](const QString& name, int w, int h) { return files.save(name, w, h); });
    return ok && files.written ? 0 : 1;
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
