#pragma once
// Fills QCustomPlot widgets from run metrics: the live plots, the comparison view and the
// exported figures all draw through these functions, so they look the same everywhere.

#include "core/analysis/analysis.h"
#include "core/analysis/run_figures.h"
#include "core/system/metrics.h"

#include <QColor>
#include <QString>
#include <QVector>

#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPGraph;
class QCPItemText;

namespace fog {

struct PlotSeries {
    QString label;
    QColor color;
    std::vector<AggregationRecord> metrics;
};

enum class PlotKind { TrainLoss, TestLoss, TestAccuracy, Cost, Energy, RoundTime };
enum class PlotXAxis { VirtualTime, Round, WallTime };

struct PlotOptions {
    PlotXAxis x = PlotXAxis::VirtualTime;
    int smoothing = 1;  ///< moving-average window over points (1 = raw)
    bool logY = false;
    bool legend = true;
    /// RoundTime: draw this expected round time as a dashed line (NaN: none), e.g. a closed
    /// form such as H_n / lambda.
    double expectedRoundTime = kNaN;
    QString expectedLabel;
    /// With smoothing: also draw each series unsmoothed, faint, behind the smoothed curve.
    /// The raw graphs come after all series' graphs (graph i stays series i) and carry the
    /// property "fogRaw" = true.
    bool rawBehind = true;
};

/// Adds the faint unsmoothed copy of `metrics` that plotMetric draws behind a smoothed curve.
QCPGraph* addRawGraph(QCustomPlot* plot, const std::vector<AggregationRecord>& metrics, PlotKind kind,
                      const PlotOptions& options, const QColor& color, const QString& name);
/// Whether `g` is such a raw copy (read-outs skip it).
bool isRawGraph(const QCPGraph* g);
/// The value of `g` in effect at `key`: its last point at or before `key` (NaN before the first).
double valueAt(const QCPGraph* g, double key);

/// Colours in the series palette before they repeat.
inline constexpr int kSeriesColors = 16;
/// The i-th colour of a palette that stays distinguishable on light and dark backgrounds.
QColor seriesColor(int i);
/// The i-th series' line: solid for the first sixteen colours, then dashed, then dotted, so
/// that series i and i + 16 (the same colour) are told apart.
Qt::PenStyle seriesPenStyle(int i);
QString plotTitle(PlotKind kind);
QString axisLabel(PlotXAxis x);
/// The label of a cost axis: "cost (currency)", "cost to 80 % (currency)".
QString costAxisLabel(const QString& what = QStringLiteral("cost"));

/// Clears `plot` and draws one curve per series (level-0 records only; test metrics only
/// where evaluated). Axes rescale to the data.
void plotMetric(QCustomPlot* plot, const std::vector<PlotSeries>& series, PlotKind kind,
                const PlotOptions& options = {});

/// One configuration of a comparison: the metrics of its repeats (one run: its curve).
struct PlotGroup {
    QString label;
    QColor color;
    std::vector<std::vector<AggregationRecord>> runs;
    Qt::PenStyle style = Qt::SolidLine;
};

/// Clears `plot` and draws one curve per group: a group of one run is that run's curve; a
/// group of repeats is the mean of its runs over a common grid (a run's value at a grid
/// point is its last point at or before it; the grid ends where the shortest run ends)
/// inside a band of the 95% Student-t confidence interval, in the group's colour. Mean
/// curves carry the graph property "fogGroup" (the group's index); the band's two edges are
/// raw graphs (isRawGraph: read-outs skip them) with "fogBand" = true, the upper one filled.
/// Axes, labels and the legend's corner as plotMetric.
void plotGroupedMetric(QCustomPlot* plot, const std::vector<PlotGroup>& groups, PlotKind kind,
                       const PlotOptions& options = {});

/// The (x, y) points plotMetric draws for one series (level-0 records with a value; not
/// smoothed).
void metricPoints(const std::vector<AggregationRecord>& metrics, PlotKind kind, const PlotOptions& options,
                  QVector<double>& xs, QVector<double>& ys);

/// Curves with at most this many points also mark each point (one point draws no line).
inline constexpr int kSparsePoints = 40;
/// Marks the points of a sparse curve (a disc each), and unmarks it once it is dense.
void markSparsePoints(QCPGraph* g);

/// Moves the legend of `plot` off the curves into a row of its own below the axis rect (its
/// tick and axis labels included), in as many columns as the plot's width holds, at most
/// `maxColumns`; the columns follow every later resize. resetPlot puts it back.
void legendBelowTheCurves(QCustomPlot* plot, int maxColumns = 4);
/// Whether the legend of `plot` is in that row.
bool legendIsBelow(const QCustomPlot* plot);

/// Axes, grid and legend in the widget palette's colours (light and dark themes); from the
/// first call on, the plot fits its axis labels after every layout (fitAxisLabels).
void styleAxes(QCustomPlot* plot);
/// Shows each axis label whole when it fits along its axis, else its short form
/// (shortAxisLabel), else the unit in its brackets alone ("s", "%"), elided if even that is
/// longer: labels are never cut at the edge.
void fitAxisLabels(QCustomPlot* plot);
/// "test accuracy (%)" -> "acc. (%)", "cumulative cost" -> "cost", "MB per round" -> "MB",
/// "ε (δ = 1e-05)" -> "ε", "cost to 80 % (currency)" -> "cost to 80 %", "virtual time to 80 %
/// (s)" -> "time to 80 % (s)"; other labels as they are.
QString shortAxisLabel(const QString& label);
/// Flat data (all values equal, e.g. no prices) gets a range from zero or +-10% around it
/// rather than QCustomPlot's symmetric default.
void fixFlatRange(QCustomPlot* plot);
/// The x axis over the curves' keys: virtual or wall time from 0 (never negative, also around
/// a single point, which QCustomPlot centres on the previous range's width: -25..50 s);
/// rounds over their range, at least one round wide and never below 0.
void fitKeyAxis(QCustomPlot* plot, PlotXAxis x);

/// Appends new records to the curves plotMetric drew (live plots: no full redraw).
void appendMetric(QCustomPlot* plot, int seriesIndex, const std::vector<AggregationRecord>& records,
                  PlotKind kind, const PlotOptions& options = {});

struct TradeOffRun {
    QString label;
    TradeOffPoint point;
    /// A configuration's point is the mean of its repeats: these 95% confidence intervals of
    /// its time and cost are drawn as bars (none where the half width is NaN).
    MeanCi timeCi, costCi;
};

/// Time vs cost scatter, points coloured by accuracy (colour scale), the time-cost Pareto
/// front as a step line, 95% bars where a point has them; graph property "runIndex" of a
/// point's graph is its index in `runs`, error bars carry "fogConfigBars".
void plotTradeOff(QCustomPlot* plot, const std::vector<TradeOffRun>& runs);
/// One trade-off point per group of runs (`groups` of indices into `figures`) in `mode`: a
/// group of one run is its point, named labels[g]; a group of repeats is the mean of its
/// runs' points (of those that have one), with 95% intervals of time and cost, named
/// labels[g] and the number of points in brackets.
std::vector<TradeOffRun> groupedTradeOff(const std::vector<RunFigures>& figures,
                                         const std::vector<std::vector<std::size_t>>& groups, TradeOffMode mode,
                                         const std::vector<QString>& labels);
/// Puts each point label of a scatter beside its point where it stays inside the plot and
/// covers no other label or point (right or left, above or below); plotTradeOff calls it.
void placeTradeOffLabels(QCustomPlot* plot, const std::vector<QCPItemText*>& labels);

/// Per-node timeline: one row per node, coloured by state (computing, sending, receiving,
/// idle, offline) over virtual time.
void plotTimeline(QCustomPlot* plot, const std::vector<NodeInterval>& intervals,
                  const std::vector<QString>& nodeNames, double until);

/// Colour of a node state in timelines and on the canvas.
QColor stateColor(NodeState s);

/// Colours a timeline colour map whose cells hold a NodeState as a number: one flat colour
/// per state, no interpolation.
void applyStateColors(QCPColorMap* map);
/// Adds one legend entry per node state (empty graphs in the states' colours).
void addStateLegend(QCustomPlot* plot);
/// Trailing moving average over `window` points (the plots' smoothing); `ys` when
/// window <= 1.
QVector<double> smoothCurve(const QVector<double>& ys, int window);

} // namespace fog
