#pragma once
// The CLI's figures (export plots|report, cluster plots|report) are drawn by a module loaded
// on demand, fogstudio-figures (app/figures/): it draws with Qt Widgets and QCustomPlot,
// which fogstudio-cli itself does not link, so headless runs, sweeps and mpirun ranks load
// neither (tests/test_cli_links.cpp). The CLI selects and reads the runs; the module draws.

#include "core/analysis/tidy_export.h"
#include "core/cluster/cluster_compare.h"

#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class QCoreApplication;

namespace fog::cli {

/// What to draw: every field the kind needs, read by the CLI.
struct FigureRequest {
    enum class Kind {
        RunPlots,     ///< export plots: accuracy, loss, cost, energy, trade-off or timeline
        Report,       ///< export report, cluster report: HTML or PDF
        ClusterPlots, ///< cluster plots: completion CDFs and the per-scheduler means
    };
    Kind kind = Kind::RunPlots;
    std::string prefix = "fogstudio-cli"; ///< messages start with "<prefix>: "
    std::string db;                       ///< the store's file (nodes, intervals, forks, labels)
    QString dbOption;                     ///< --db as given (the report names it)
    std::vector<RunWithMetrics> runs;                     ///< RunPlots
    std::vector<cluster::ComparedClusterRun> clusterRuns; ///< ClusterPlots
    std::vector<std::int64_t> ids;                        ///< Report
    QString out;                          ///< the folder (plots) or the file (report)
    QString format;                       ///< png, svg or pdf (plots)
    double target = 0.8;                  ///< the target accuracy (report; plots: the trade-off at the target)
    /// export plots: the trade-off scatter of each run's totals ("end"), of what it took to
    /// reach `target` ("target"), or "" for the studio's choice (the target when every run
    /// stopped at one time limit, else the end).
    QString tradeOff;
    /// export plots: repeats of one sweep configuration as one mean curve in its 95% band
    /// (true), or one curve per run.
    bool meanOfRepeats = true;
};

/// The module's entry points, looked up by these names (extern "C").
using FigureApplicationFn = QCoreApplication* (*)(int& argc, char** argv);
using FigureRunFn = int (*)(const FigureRequest& request);
inline constexpr const char* kFigureApplicationSymbol = "fogFiguresApplication";
inline constexpr const char* kFigureRunSymbol = "fogFiguresRun";

/// The application object for a command that draws: a QApplication made by the module
/// (offscreen without a display); nullptr when the module cannot be loaded (the command then
/// fails with the reason through runFigures).
std::unique_ptr<QCoreApplication> makeFigureApplication(int& argc, char** argv);
/// Draws what the request says: the exit code of the command.
int runFigures(const FigureRequest& request);

} // namespace fog::cli
