#pragma once
// The figures of `fogstudio-cli export plots` for training runs, drawn one after the other
// into one plot (the CLI's figures module saves each; the tests look at each): accuracy,
// loss, cost and energy over virtual time, bytes per round and privacy where runs have them,
// then the trade-off scatter (several runs) or the node timeline (one run). Labels, colours,
// repeats and the trade-off follow the studio's comparison (widgets/compare): repeats of a
// sweep configuration are one mean curve in its 95% band, one colour per configuration, the
// legend below the axes, and the trade-off at the target when every run stopped at one limit.

#include "core/analysis/tidy_export.h"

#include <QString>

#include <functional>
#include <vector>

class QCustomPlot;

namespace fog {

class RunStore;

struct RunPlotOptions {
    /// The trade-off: each run's totals (End), what it took to reach `target` (Target), or
    /// Target when every run ended at one virtual time, else End (Auto, the studio's choice).
    enum class TradeOff { Auto, End, Target };
    TradeOff tradeOff = TradeOff::Auto;
    bool meanOfRepeats = true; ///< false: one curve and one point per run
    double target = 0.8;
};

/// Draws each figure into `plot` (light colours) and calls save(name, width, height) after
/// it; false as soon as a save fails. The figure names are the files' stems: accuracy, loss,
/// cost, energy, bytes_per_round, privacy, tradeoff, timeline.
bool drawRunPlots(QCustomPlot& plot, const std::vector<RunWithMetrics>& runs, RunStore& store, const RunPlotOptions& options,
                  const std::function<bool(const QString& name, int width, int height)>& save);

} // namespace fog
