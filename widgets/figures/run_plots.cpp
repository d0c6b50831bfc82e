#include "widgets/figures/run_plots.h"

#include "widgets/figures/energy_split.h"
#include "widgets/figures/qcustomplot.h"

#include <QFontMetrics>
#include <QHash>

#include <algorithm>
#include <cmath>
#include <limits>

namespace fog {

namespace {

double xOf(const AggregationRecord& r, PlotXAxis x) {
    switch (x) {
    case PlotXAxis::VirtualTime: return r.time;
    case PlotXAxis::Round: return r.round;
    case PlotXAxis::WallTime: return r.wallSeconds;
    }
    return r.time;
}

double yOf(const AggregationRecord& r, PlotKind k) {
    switch (k) {
    case PlotKind::TrainLoss: return r.trainLoss;
    case PlotKind::TestLoss: return r.testLoss;
    case PlotKind::TestAccuracy: return r.testAccuracy * 100.0;
    case PlotKind::Cost: return r.cost;
    case PlotKind::Energy: return r.energyJ / 1000.0;
    case PlotKind::RoundTime: return kNaN; // needs the previous record: see points()
    }
    return kNaN;
}

QString yLabel(PlotKind k) {
    switch (k) {
    case PlotKind::TrainLoss: return "train loss";
    case PlotKind::TestLoss: return "test loss";
    case PlotKind::TestAccuracy: return "test accuracy (%)";
    case PlotKind::Cost: return costAxisLabel("cumulative cost");
    case PlotKind::Energy: return "cumulative energy (kJ)";
    case PlotKind::RoundTime: return "round time (s)";
    }
    return {};
}

/// The (x, y) points of one series: level-0 records with a value, smoothed.
void points(const std::vector<AggregationRecord>& metrics, PlotKind kind, const PlotOptions& o,
            QVector<double>& xs, QVector<double>& ys, double& prevTime) {
    for (const auto& r : metrics) {
        if (r.level != 0) continue;
        double y = yOf(r, kind);
        if (kind == PlotKind::RoundTime) {
            y = r.time - prevTime;
            prevTime = r.time;
        }
        if (std::isnan(y)) continue;
        xs.push_back(xOf(r, o.x));
        ys.push_back(y);
    }
}


/// Tick counts that follow the plot's size, so that small plots (a projector, a laptop)
/// do not print their tick labels on top of each other. Set before every replot.
void fitTicksToSize(QCustomPlot* plot) {
    if (plot->property("fogTicksFit").toBool()) return;
    plot->setProperty("fogTicksFit", true);
    QObject::connect(plot, &QCustomPlot::beforeReplot, plot, [plot] {
        const QRect r = plot->axisRect()->rect().isEmpty() ? plot->rect() : plot->axisRect()->rect();
        const QFontMetrics fm(plot->xAxis->tickLabelFont());
        // About one label per 7 digits' width across, one per 3 lines' height up.
        plot->xAxis->ticker()->setTickCount(std::clamp(r.width() / std::max(1, fm.horizontalAdvance("0000000")), 2, 8));
        plot->yAxis->ticker()->setTickCount(std::clamp(r.height() / std::max(1, 3 * fm.height()), 2, 6));
        if (plot->yAxis2->visible()) plot->yAxis2->ticker()->setTickCount(plot->yAxis->ticker()->tickCount());
    });
}

void resetPlot(QCustomPlot* plot) {
    fitTicksToSize(plot);
    plot->clearPlottables();
    plot->clearItems();
    // A legend moved off the data into a row of its own goes back into the axis rect first:
    // the rows below are removed (and deleted) next.
    if (legendIsBelow(plot)) {
        plot->legend->layout()->take(plot->legend);
        plot->axisRect()->insetLayout()->addElement(plot->legend, Qt::AlignTop | Qt::AlignRight);
    }
    // Extra layout elements (colour scales, a title row) from a previous drawing: all but the
    // axis rect, wherever it sits.
    for (int i = plot->plotLayout()->elementCount() - 1; i >= 0; --i) {
        QCPLayoutElement* e = plot->plotLayout()->elementAt(i);
        if (e && e != plot->axisRect()) plot->plotLayout()->removeAt(i);
    }
    plot->plotLayout()->simplify();
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setScaleType(QCPAxis::stLinear);
    styleAxes(plot);
}

} // namespace

void styleAxes(QCustomPlot* plot) {
    const QPalette pal = plot->palette();
    const QColor fg = pal.color(QPalette::WindowText);
    const QColor grid = QColor(fg.red(), fg.green(), fg.blue(), 40);
    plot->setBackground(pal.color(QPalette::Base));
    for (QCPAxis* a : {plot->xAxis, plot->yAxis}) {
        a->setBasePen(QPen(fg));
        a->setTickPen(QPen(fg));
        a->setSubTickPen(QPen(fg));
        a->setTickLabelColor(fg);
        a->setLabelColor(fg);
        a->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
    plot->legend->setBrush(pal.color(QPalette::Base));
    plot->legend->setTextColor(fg);
    plot->legend->setBorderPen(QPen(grid));
    if (!plot->property("fogFitsLabels").toBool()) {
        // Axis labels never cut at the plot's edge: a short form, elided past that, on small
        // plots (a 1280x720 window: "test accuracy (" and "lative co").
        plot->setProperty("fogFitsLabels", true);
        QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] { fitAxisLabels(plot); });
    }
}

namespace {

/// The columns of a legend below the curves that fit the plot's width.
int legendColumns(const QCustomPlot* plot, int maxColumns) {
    // The most columns whose widths (each its widest item, items filled row by row) fit.
    const QCPLegend* legend = plot->legend;
    std::vector<int> widths;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (legend->item(i)) widths.push_back(legend->item(i)->minimumOuterSizeHint().width());
    const QMargins m = legend->margins();
    const int room = plot->width() - m.left() - m.right() - 8;
    const int most = std::clamp(static_cast<int>(widths.size()), 1, std::max(1, maxColumns));
    for (int columns = most; columns > 1; --columns) {
        std::vector<int> column(static_cast<std::size_t>(columns), 0);
        for (std::size_t k = 0; k < widths.size(); ++k)
            column[k % static_cast<std::size_t>(columns)] = std::max(column[k % static_cast<std::size_t>(columns)], widths[k]);
        int total = legend->columnSpacing() * (columns - 1);
        for (int w : column) total += w;
        if (total <= room) return columns;
    }
    return 1;
}

void wrapLegend(QCustomPlot* plot, int columns) {
    QCPLegend* legend = plot->legend;
    if (legend->wrap() == columns && legend->fillOrder() == QCPLayoutGrid::foColumnsFirst) return;
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, false);
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true); // re-arranges the items
}

} // namespace

bool legendIsBelow(const QCustomPlot* plot) {
    return plot->legend && plot->legend->layout() && plot->legend->layout() != plot->axisRect()->insetLayout();
}

void legendBelowTheCurves(QCustomPlot* plot, int maxColumns) {
    QCPLegend* legend = plot->legend;
    if (!legend) return;
    plot->setProperty("fogLegendColumns", maxColumns);
    if (legend->layout() == plot->axisRect()->insetLayout()) {
        plot->axisRect()->insetLayout()->take(legend);
        auto* row = new QCPLayoutGrid;
        plot->plotLayout()->addElement(plot->plotLayout()->rowCount(), 0, row);
        plot->plotLayout()->setRowStretchFactor(plot->plotLayout()->rowCount() - 1, 0.001);
        row->setMargins(QMargins(0, 0, 0, 0));
        row->addElement(0, 0, legend);
    }
    wrapLegend(plot, legendColumns(plot, maxColumns));
    if (!plot->property("fogLegendFits").toBool()) {
        // A resize re-wraps it: the next frame has the columns of the new width.
        plot->setProperty("fogLegendFits", true);
        QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
            if (!legendIsBelow(plot)) return;
            const int columns = legendColumns(plot, plot->property("fogLegendColumns").toInt());
            if (columns == plot->legend->wrap()) return;
            wrapLegend(plot, columns);
            plot->replot(QCustomPlot::rpQueuedReplot);
        });
    }
}

QString shortAxisLabel(const QString& label) {
    static const QHash<QString, QString> shorter = {
        {"test accuracy (%)", "acc. (%)"},       {"cumulative cost", "cost"},
        {"cumulative cost (currency)", "cost"},  {"cost (currency)", "cost"},
        {"cumulative energy (kJ)", "energy (kJ)"}, {"train loss", "loss"},
        {"test loss", "loss"},                   {"round time (s)", "round (s)"},
        {"virtual time (s)", "time (s)"},        {"wall-clock time (s)", "wall (s)"},
        {"throughput (Mbit/s)", "Mbit/s"},       {"cost ($)", "$"},
        {"MB per round", "MB"},
    };
    if (label.startsWith(QString::fromUtf8("ε ("))) return QString::fromUtf8("ε"); // "ε (δ = 1e-05)"
    if (shorter.contains(label)) return shorter.value(label);
    // "cost to 80 % (currency)" -> "cost to 80 %", "virtual time to 80 % (s)" -> "time to 80 % (s)"
    QString s = label;
    if (s.endsWith(" (currency)")) s.chop(11);
    if (s.startsWith("virtual time ")) s = s.mid(8);
    return s;
}

void fitAxisLabels(QCustomPlot* plot) {
    bool changed = false;
    for (QCPAxis* a : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
        if (!a || !a->visible()) continue;
        // The label the code set last: a label that is neither it nor its short form is new.
        QString full = a->property("fogFullLabel").toString();
        if (a->label() != full && a->label() != shortAxisLabel(full) && a->label() != a->property("fogShownLabel").toString())
            full = a->label();
        a->setProperty("fogFullLabel", full);
        if (full.isEmpty()) continue;
        const bool vertical = a->orientation() == Qt::Vertical;
        const int room = (vertical ? a->axisRect()->height() : a->axisRect()->width()) - 4;
        const QFontMetrics fm(a->labelFont());
        QString shown = full;
        // A plot not on screen (not laid out yet, or offscreen for an export) keeps its label.
        const bool onScreen = plot->isVisible() && room >= 24;
        if (onScreen && fm.horizontalAdvance(shown) > room) shown = shortAxisLabel(full);
        // Shorter still, the unit alone ("round (s)" -> "s", "acc. (%)" -> "%"): large text on
        // a small plot (presentation mode at 1280x720) then reads whole.
        if (onScreen && fm.horizontalAdvance(shown) > room && shown.endsWith(')') && shown.contains(" ("))
            shown = shown.mid(shown.lastIndexOf(" (") + 2).chopped(1);
        if (onScreen && fm.horizontalAdvance(shown) > room) shown = fm.elidedText(shown, Qt::ElideRight, std::max(0, room));
        a->setProperty("fogShownLabel", shown);
        if (a->label() != shown) {
            a->setLabel(shown);
            changed = true;
        }
    }
    if (changed) plot->replot(QCustomPlot::rpQueuedReplot);
}

void markSparsePoints(QCPGraph* g) {
    // A line needs two points: after the first round a plot of lines alone looks empty.
    const bool sparse = g->dataCount() <= kSparsePoints;
    const bool marked = g->scatterStyle().shape() != QCPScatterStyle::ssNone;
    if (sparse && !marked) g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 5));
    else if (!sparse && marked && g->property("fogSparseMarks").toBool()) g->setScatterStyle(QCPScatterStyle());
    if (sparse) g->setProperty("fogSparseMarks", true);
}

QColor seriesColor(int i) {
    // Okabe-Ito first (distinguishable for colour-blind readers, on light and dark
    // backgrounds), then eight of Paul Tol's muted and dark colours, chosen apart from the
    // first eight: a 15-run lesson gets 15 colours of its own.
    static const QColor colors[kSeriesColors] = {
        QColor(0, 114, 178),   QColor(230, 159, 0),   QColor(0, 158, 115),   QColor(204, 121, 167),
        QColor(86, 180, 233),  QColor(213, 94, 0),    QColor(240, 228, 66),  QColor(128, 128, 128),
        QColor(51, 34, 136),   QColor(136, 34, 85),   QColor(17, 119, 51),   QColor(68, 170, 153),
        QColor(153, 153, 51),  QColor(170, 68, 153),  QColor(102, 17, 0),    QColor(204, 102, 119)};
    return colors[((i % kSeriesColors) + kSeriesColors) % kSeriesColors];
}

Qt::PenStyle seriesPenStyle(int i) {
    // Past the sixteen colours, the same colours again dashed, then dotted.
    switch ((std::max(0, i) / kSeriesColors) % 3) {
    case 1: return Qt::DashLine;
    case 2: return Qt::DotLine;
    default: return Qt::SolidLine;
    }
}

QString costAxisLabel(const QString& what) { return what + " (currency)"; }

QString plotTitle(PlotKind kind) {
    switch (kind) {
    case PlotKind::TrainLoss: return "Training loss";
    case PlotKind::TestLoss: return "Test loss";
    case PlotKind::TestAccuracy: return "Test accuracy";
    case PlotKind::Cost: return "Cost";
    case PlotKind::Energy: return "Energy";
    case PlotKind::RoundTime: return "Round duration";
    }
    return {};
}

QString axisLabel(PlotXAxis x) {
    switch (x) {
    case PlotXAxis::VirtualTime: return "virtual time (s)";
    case PlotXAxis::Round: return "round";
    case PlotXAxis::WallTime: return "wall-clock time (s)";
    }
    return {};
}

QColor stateColor(NodeState s) {
    switch (s) {
    case NodeState::Idle: return QColor(200, 200, 200);
    case NodeState::Receiving: return QColor(86, 180, 233);
    case NodeState::Computing: return QColor(0, 158, 115);
    case NodeState::Sending: return QColor(230, 159, 0);
    case NodeState::Offline: return QColor(213, 94, 0);
    }
    return Qt::gray;
}

void plotMetric(QCustomPlot* plot, const std::vector<PlotSeries>& series, PlotKind kind, const PlotOptions& o) {
    resetPlot(plot);
    for (std::size_t i = 0; i < series.size(); ++i) {
        QVector<double> xs, ys;
        double prev = 0.0;
        points(series[i].metrics, kind, o, xs, ys, prev);
        QCPGraph* g = plot->addGraph();
        g->setName(series[i].label);
        g->setPen(QPen(series[i].color.isValid() ? series[i].color : seriesColor(static_cast<int>(i)), 2,
                       seriesPenStyle(static_cast<int>(i))));
        g->setData(xs, smoothCurve(ys, o.smoothing), true);
        markSparsePoints(g);
        g->setProperty("lastTime", prev); // appendMetric measures the next round from here
        if (kind == PlotKind::RoundTime) g->setLineStyle(QCPGraph::lsStepLeft);
    }
    if (o.smoothing > 1 && o.rawBehind)
        for (std::size_t i = 0; i < series.size(); ++i)
            addRawGraph(plot, series[i].metrics, kind, o,
                        series[i].color.isValid() ? series[i].color : seriesColor(static_cast<int>(i)), series[i].label);
    if (kind == PlotKind::Energy) addEnergySplitGraphs(plot, series, o);
    if (kind == PlotKind::RoundTime && !std::isnan(o.expectedRoundTime)) {
        auto* line = new QCPItemStraightLine(plot);
        line->point1->setCoords(0, o.expectedRoundTime);
        line->point2->setCoords(1, o.expectedRoundTime);
        line->setPen(QPen(plot->palette().color(QPalette::WindowText), 1.5, Qt::DashLine));
        if (o.legend) {
            // Named in the legend, beside the measured curve: a label over the plot collided
            // with the legend's row on small plots.
            QCPGraph* key = plot->addGraph();
            key->setName(o.expectedLabel.isEmpty() ? "expected" : o.expectedLabel);
            key->setPen(line->pen());
            key->setProperty("fogExpected", true);
        }
    }
    if (kind == PlotKind::RoundTime && !std::isnan(o.expectedRoundTime) && !o.legend) {
        auto* text = new QCPItemText(plot);
        text->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        text->position->setTypeY(QCPItemPosition::ptPlotCoords);
        text->position->setCoords(0.98, o.expectedRoundTime);
        text->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
        text->setText(o.expectedLabel.isEmpty() ? "expected" : o.expectedLabel);
        text->setColor(plot->palette().color(QPalette::WindowText));
    }
    plot->xAxis->setLabel(axisLabel(o.x));
    plot->yAxis->setLabel(yLabel(kind));
    if (o.logY) {
        plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    }
    plot->legend->setVisible(o.legend && !series.empty());
    // Put the legend where the curves usually are not: accuracy rises to the top right,
    // cumulative cost and energy rise from the bottom left.
    Qt::Alignment corner = Qt::AlignTop | Qt::AlignRight;
    if (kind == PlotKind::TestAccuracy) corner = Qt::AlignBottom | Qt::AlignRight;
    if (kind == PlotKind::Cost || kind == PlotKind::Energy) corner = Qt::AlignTop | Qt::AlignLeft;
    plot->axisRect()->insetLayout()->setInsetAlignment(0, corner);
    plot->rescaleAxes();
    fitKeyAxis(plot, o.x);
    if (kind == PlotKind::RoundTime && !std::isnan(o.expectedRoundTime)) {
        QCPRange r = plot->yAxis->range();
        r.expand(o.expectedRoundTime);
        plot->yAxis->setRange(r);
    }
    if (kind == PlotKind::TestAccuracy && !o.logY) {
        QCPRange r = plot->yAxis->range();
        plot->yAxis->setRange(std::max(0.0, r.lower - 2), std::min(100.0, r.upper + 2));
    }
    fixFlatRange(plot);
}

void plotGroupedMetric(QCustomPlot* plot, const std::vector<PlotGroup>& groups, PlotKind kind, const PlotOptions& o) {
    plotMetric(plot, {}, kind, o); // axes, labels, style and the legend's corner; no curve
    const bool rounds = o.x == PlotXAxis::Round;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const PlotGroup& group = groups[g];
        const QColor color = group.color.isValid() ? group.color : seriesColor(static_cast<int>(g));
        const std::size_t n = group.runs.size();
        std::vector<QVector<double>> xs(n), ys(n);
        double end = std::numeric_limits<double>::infinity();
        for (std::size_t m = 0; m < n; ++m) {
            metricPoints(group.runs[m], kind, o, xs[m], ys[m]);
            ys[m] = smoothCurve(ys[m], o.smoothing);
            end = std::min(end, xs[m].isEmpty() ? 0.0 : xs[m].back());
        }
        QCPGraph* mean = plot->addGraph();
        mean->setName(group.label);
        mean->setPen(QPen(color, 2, group.style));
        mean->setProperty("fogGroup", static_cast<int>(g));
        if (kind == PlotKind::RoundTime) mean->setLineStyle(QCPGraph::lsStepLeft);
        if (n <= 1) {
            if (n == 1) mean->setData(xs[0], ys[0], true);
            markSparsePoints(mean);
            continue;
        }
        // The common grid: every round, or 150 steps of virtual (wall) time, up to the end of
        // the shortest run (past it the mean would be of fewer runs than the band says).
        QVector<double> grid;
        if (rounds) {
            for (double r = 1; r <= end; r += 1) grid.push_back(r);
        } else if (end > 0) {
            const int steps = 150;
            for (int k = 0; k <= steps; ++k) grid.push_back(end * k / steps);
        }
        QVector<double> gx, mu, lo, hi;
        std::vector<int> at(n, 0);
        std::vector<double> v;
        for (double x : grid) {
            v.clear();
            for (std::size_t m = 0; m < n; ++m) {
                while (at[m] < xs[m].size() && xs[m][at[m]] <= x + 1e-12) ++at[m];
                if (at[m] == 0) break; // this run has no point yet
                v.push_back(ys[m][at[m] - 1]);
            }
            if (v.size() != n) continue;
            double sum = 0;
            for (double y : v) sum += y;
            const double avg = sum / static_cast<double>(n);
            double ss = 0;
            for (double y : v) ss += (y - avg) * (y - avg);
            const double sd = std::sqrt(ss / static_cast<double>(n - 1));
            const double half = studentT95(n - 1) * sd / std::sqrt(static_cast<double>(n));
            gx.push_back(x);
            mu.push_back(avg);
            lo.push_back(avg - half);
            hi.push_back(avg + half);
        }
        mean->setData(gx, mu, true);
        markSparsePoints(mean);
        QCPGraph* lower = plot->addGraph();
        QCPGraph* upper = plot->addGraph();
        for (QCPGraph* b : {lower, upper}) {
            b->setName(group.label + " (95% CI)");
            b->setPen(Qt::NoPen);
            b->removeFromLegend();
            b->setProperty("fogRaw", true); // read-outs skip the band
            b->setProperty("fogBand", true);
            b->setLayer("grid");            // behind the curves
        }
        lower->setData(gx, lo, true);
        upper->setData(gx, hi, true);
        QColor fill = color;
        fill.setAlpha(55);
        upper->setBrush(fill);
        upper->setChannelFillGraph(lower);
    }
    plot->legend->setVisible(o.legend && !groups.empty());
    plot->rescaleAxes();
    fitKeyAxis(plot, o.x);
    if (kind == PlotKind::TestAccuracy && !o.logY) {
        const QCPRange r = plot->yAxis->range();
        plot->yAxis->setRange(std::max(0.0, r.lower - 2), std::min(100.0, r.upper + 2));
    }
    fixFlatRange(plot);
}

QCPGraph* addRawGraph(QCustomPlot* plot, const std::vector<AggregationRecord>& metrics, PlotKind kind,
                      const PlotOptions& o, const QColor& color, const QString& name) {
    QVector<double> xs, ys;
    double prev = 0.0;
    points(metrics, kind, o, xs, ys, prev);
    QCPGraph* g = plot->addGraph();
    g->setName(name + " (raw)");
    QColor faint = color;
    faint.setAlpha(70);
    g->setPen(QPen(faint, 1));
    g->setData(xs, ys, true);
    if (kind == PlotKind::RoundTime) g->setLineStyle(QCPGraph::lsStepLeft);
    g->setProperty("fogRaw", true);
    g->removeFromLegend();
    g->setLayer("grid"); // behind the smoothed curves
    return g;
}

bool isRawGraph(const QCPGraph* g) { return g && g->property("fogRaw").toBool(); }

double valueAt(const QCPGraph* g, double key) {
    if (!g || g->data()->isEmpty()) return kNaN;
    auto it = g->data()->findEnd(key, false); // first point with a key > key
    if (it == g->data()->constBegin()) return kNaN;
    --it;
    return it->value;
}

void metricPoints(const std::vector<AggregationRecord>& metrics, PlotKind kind, const PlotOptions& o,
                  QVector<double>& xs, QVector<double>& ys) {
    double prev = 0.0;
    points(metrics, kind, o, xs, ys, prev);
}

void fitKeyAxis(QCustomPlot* plot, PlotXAxis x) {
    bool found = false;
    QCPRange keys;
    for (int i = 0; i < plot->graphCount(); ++i) {
        bool f = false;
        const QCPRange r = plot->graph(i)->getKeyRange(f);
        if (!f) continue;
        keys = found ? QCPRange(std::min(keys.lower, r.lower), std::max(keys.upper, r.upper)) : r;
        found = true;
    }
    if (!found) return;
    double lower = keys.lower, upper = keys.upper;
    if (x == PlotXAxis::Round) {
        if (upper - lower < 1) {
            const double c = (lower + upper) / 2;
            lower = c - 0.5;
            upper = c + 0.5;
        }
        if (lower < 0) {
            upper -= lower;
            lower = 0;
        }
    } else {
        lower = std::min(0.0, lower); // time starts at 0 (a point at t < 0 never happens)
        if (upper <= lower) upper = lower + 1.0;
    }
    plot->xAxis->setRange(lower, upper);
}

void fixFlatRange(QCustomPlot* plot) {
    // QCustomPlot centres flat data on a symmetric range (a zero cost drew on -2..2): give
    // it a range that starts at zero or spans +-10% of the value instead.
    bool found = false;
    QCPRange values;
    for (int i = 0; i < plot->graphCount(); ++i) {
        bool f = false;
        const QCPRange r = plot->graph(i)->getValueRange(f);
        if (!f) continue;
        values = found ? QCPRange(std::min(values.lower, r.lower), std::max(values.upper, r.upper)) : r;
        found = true;
    }
    if (!found || values.size() > 1e-12 || plot->yAxis->scaleType() == QCPAxis::stLogarithmic) return;
    const double v = values.center();
    if (v == 0.0) plot->yAxis->setRange(0.0, 1.0);
    else plot->yAxis->setRange(std::min(v * 0.9, v * 1.1), std::max(v * 0.9, v * 1.1));
}

void appendMetric(QCustomPlot* plot, int seriesIndex, const std::vector<AggregationRecord>& records,
                  PlotKind kind, const PlotOptions& o) {
    QCPGraph* g = plot->graph(seriesIndex);
    if (!g) return;
    double prev = 0.0;
    if (kind == PlotKind::RoundTime && !g->data()->isEmpty()) {
        // The previous record's time is the last point's key only on the virtual-time axis;
        // elsewhere we keep it in the graph's property.
        prev = g->property("lastTime").toDouble();
    }
    QVector<double> xs, ys;
    points(records, kind, o, xs, ys, prev);
    g->setProperty("lastTime", prev);
    g->addData(xs, ys, true);
    markSparsePoints(g);
    if (kind == PlotKind::Energy) appendEnergySplit(plot, seriesIndex, records, o);
}

namespace {
// Cells of a timeline map hold static_cast<double>(NodeState): colours follow the enum's order.
const NodeState kStateOrder[] = {NodeState::Idle, NodeState::Receiving, NodeState::Computing, NodeState::Sending,
                                 NodeState::Offline};
} // namespace

void addStateLegend(QCustomPlot* plot) {
    for (NodeState s : kStateOrder) {
        QCPGraph* key = plot->addGraph();
        key->setName(toString(s));
        key->setLineStyle(QCPGraph::lsNone);
        key->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, stateColor(s), stateColor(s), 9));
    }
}

void applyStateColors(QCPColorMap* map) {
    QCPColorGradient g;
    g.clearColorStops();
    for (int i = 0; i < 5; ++i) g.setColorStopAt(i / 4.0, stateColor(kStateOrder[i]));
    g.setLevelCount(5);
    map->setGradient(g);
    map->setInterpolate(false);
    map->setDataRange(QCPRange(0, 4));
}

void plotTradeOff(QCustomPlot* plot, const std::vector<TradeOffRun>& runs) {
    resetPlot(plot);
    plot->xAxis->setLabel("virtual time (s)");
    plot->yAxis->setLabel(costAxisLabel());
    if (runs.empty()) {
        plot->legend->setVisible(false);
        plot->replot();
        return;
    }
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& r : runs)
        if (!std::isnan(r.point.accuracy)) {
            lo = std::min(lo, r.point.accuracy * 100);
            hi = std::max(hi, r.point.accuracy * 100);
        }
    if (lo > hi) lo = hi = 0; // no accuracy at all
    if (hi - lo < 1e-9) hi = lo + 1;
    QCPColorGradient gradient(QCPColorGradient::gpJet);

    // A run without a point (e.g. it never reached the target accuracy) keeps its graph, so
    // graph i is still run i, but draws nothing.
    auto drawable = [](const TradeOffPoint& p) { return std::isfinite(p.time) && std::isfinite(p.cost); };
    // The time-cost Pareto front, as a step line through its points sorted by time.
    std::vector<TradeOffPoint> pts;
    for (const auto& r : runs)
        if (drawable(r.point)) pts.push_back(r.point);
    auto front = paretoFront2d(pts);
    std::sort(front.begin(), front.end(), [&](std::size_t a, std::size_t b) { return pts[a].time < pts[b].time; });
    QCPGraph* frontGraph = plot->addGraph();
    frontGraph->setName("Pareto front (time, cost)");
    frontGraph->setPen(QPen(plot->palette().color(QPalette::WindowText), 1.5, Qt::DashLine));
    frontGraph->setLineStyle(QCPGraph::lsStepLeft);
    // A ring around every front point: a front of one point has no line to show it.
    frontGraph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                                QPen(plot->palette().color(QPalette::WindowText), 1.2), Qt::NoBrush, 17));
    for (auto i : front) frontGraph->addData(pts[i].time, pts[i].cost);

    std::vector<QCPItemText*> labels;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        QCPGraph* g = plot->addGraph();
        g->setName(runs[i].label);
        g->setLineStyle(QCPGraph::lsNone);
        const QColor c = std::isnan(runs[i].point.accuracy)
                             ? QColor(Qt::gray)
                             : gradient.color(runs[i].point.accuracy * 100, QCPRange(lo, hi));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1), QBrush(c), 11));
        g->setProperty("runIndex", static_cast<int>(i));
        g->removeFromLegend();
        if (!drawable(runs[i].point)) continue;
        g->addData(runs[i].point.time, runs[i].point.cost);
        // A configuration's mean: its 95% intervals of time and cost as bars.
        for (const auto& [ci, type] : {std::pair{runs[i].timeCi, QCPErrorBars::etKeyError},
                                       std::pair{runs[i].costCi, QCPErrorBars::etValueError}}) {
            if (!std::isfinite(ci.halfWidth)) continue;
            auto* e = new QCPErrorBars(plot->xAxis, plot->yAxis);
            e->removeFromLegend();
            e->setErrorType(type);
            e->setDataPlottable(g);
            e->setData(QVector<double>{ci.halfWidth});
            e->setPen(QPen(plot->palette().color(QPalette::WindowText), 1.2));
            e->setWhiskerWidth(6);
            e->setProperty("fogConfigBars", true);
        }
        auto* label = new QCPItemText(plot);
        label->position->setCoords(runs[i].point.time, runs[i].point.cost);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setPadding(QMargins(8, 0, 0, 2));
        label->setText(runs[i].label);
        label->setColor(plot->palette().color(QPalette::WindowText));
        label->setProperty("fogTradeLabel", true);
        labels.push_back(label);
    }
    auto* scale = new QCPColorScale(plot);
    plot->plotLayout()->addElement(0, 1, scale);
    scale->setGradient(gradient);
    scale->setDataRange(QCPRange(lo, hi));
    scale->axis()->setLabel("test accuracy (%)");
    scale->axis()->setLabelColor(plot->palette().color(QPalette::WindowText));
    scale->axis()->setTickLabelColor(plot->palette().color(QPalette::WindowText));
    // No legend over the points (it hid runs whose times were alike): the captions of the
    // studio and the report say what the rings and the dashed line are.
    plot->legend->setVisible(false);
    plot->rescaleAxes();
    for (QCPAxis* a : {plot->xAxis, plot->yAxis}) a->scaleRange(1.4, a->range().center()); // room for the rings
    placeTradeOffLabels(plot, labels);
    if (!plot->property("fogTradeLabelsFollow").toBool()) {
        // Placed again whenever the axes get another size (the window's layout, an export at
        // 900x560): what is free on a small plot is not what is free on a large one.
        plot->setProperty("fogTradeLabelsFollow", true);
        QObject::connect(plot, &QCustomPlot::afterLayout, plot, [plot] {
            if (plot->property("fogLabelsPlacedFor").toSize() == plot->axisRect()->rect().size()) return;
            std::vector<QCPItemText*> again;
            for (int i = 0; i < plot->itemCount(); ++i)
                if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->property("fogTradeLabel").toBool()) {
                    t->setVisible(true);
                    again.push_back(t);
                }
            if (again.empty()) return;
            placeTradeOffLabels(plot, again);
            plot->replot(QCustomPlot::rpQueuedReplot);
        });
    }
}

std::vector<TradeOffRun> groupedTradeOff(const std::vector<RunFigures>& figures,
                                         const std::vector<std::vector<std::size_t>>& groups, TradeOffMode mode,
                                         const std::vector<QString>& labels) {
    std::vector<TradeOffRun> out;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const QString label = g < labels.size() ? labels[g] : QString();
        if (groups[g].size() == 1) {
            out.push_back({label, tradeOffPoint(figures[groups[g].front()], mode), MeanCi{}, MeanCi{}});
            continue;
        }
        std::vector<double> t, c, a;
        for (std::size_t i : groups[g]) {
            const TradeOffPoint p = tradeOffPoint(figures[i], mode);
            if (!std::isfinite(p.time) || !std::isfinite(p.cost)) continue;
            t.push_back(p.time);
            c.push_back(p.cost);
            if (std::isfinite(p.accuracy)) a.push_back(p.accuracy);
        }
        TradeOffPoint mean;
        mean.time = t.empty() ? kNaN : meanWithCi(t).mean;
        mean.cost = c.empty() ? kNaN : meanWithCi(c).mean;
        mean.accuracy = a.empty() ? kNaN : meanWithCi(a).mean;
        out.push_back({label + QString(" (%1)").arg(t.size()), mean, t.size() >= 2 ? meanWithCi(t) : MeanCi{},
                       c.size() >= 2 ? meanWithCi(c) : MeanCi{}});
    }
    return out;
}

void placeTradeOffLabels(QCustomPlot* plot, const std::vector<QCPItemText*>& labels) {
    // Each label goes beside its point on the side where it neither leaves the plot nor
    // covers a label placed before it or another point: right or left of the point, above
    // or below it (the first that is free; else the one that covers least). Boxes are
    // reckoned in the axes' unit square, for a plot of about 450x300 pixels at least.
    const QCPRange xr = plot->xAxis->range(), yr = plot->yAxis->range();
    if (xr.size() <= 0 || yr.size() <= 0) return;
    // The axes' size once laid out (a small plot has less room than it seems), else that of a
    // usual figure; placed again after each layout of another size (plotTradeOff).
    const QSize area = plot->axisRect()->rect().size();
    const bool laidOut = area.width() > 60 && area.height() > 60;
    const double pxW = laidOut ? area.width() : 450, pxH = laidOut ? area.height() : 300;
    plot->setProperty("fogLabelsPlacedFor", laidOut ? area : QSize());
    auto unit = [&](const QCPItemText* l) {
        return QPointF((l->position->coords().x() - xr.lower) / xr.size(), (l->position->coords().y() - yr.lower) / yr.size());
    };
    std::vector<QRectF> taken;
    const double dotW = 14 / pxW, dotH = 14 / pxH;
    for (const QCPItemText* l : labels) {
        const QPointF u = unit(l);
        taken.emplace_back(u.x() - dotW / 2, u.y() - dotH / 2, dotW, dotH);
    }
    const QRectF inside(0, 0, 1, 1);
    for (QCPItemText* l : labels) {
        const QPointF u = unit(l);
        const QFontMetrics fm(l->font());
        const double w = (fm.horizontalAdvance(l->text()) + 10) / pxW, h = (fm.height() + 2) / pxH, gap = 8 / pxW;
        struct Option {
            Qt::Alignment align;
            QRectF box;
            QMargins pad;
        };
        const Option options[] = {
            {Qt::AlignLeft | Qt::AlignBottom, QRectF(u.x() + gap, u.y(), w, h), QMargins(8, 0, 0, 2)},
            {Qt::AlignLeft | Qt::AlignTop, QRectF(u.x() + gap, u.y() - h, w, h), QMargins(8, 2, 0, 0)},
            {Qt::AlignRight | Qt::AlignBottom, QRectF(u.x() - gap - w, u.y(), w, h), QMargins(0, 0, 8, 2)},
            {Qt::AlignRight | Qt::AlignTop, QRectF(u.x() - gap - w, u.y() - h, w, h), QMargins(0, 2, 8, 0)},
        };
        const Option* best = &options[0];
        double bestCost = std::numeric_limits<double>::infinity(), bestOverLabels = 0;
        for (const Option& o : options) {
            double cost = 0, overLabels = 0;
            // Outside the plot counts most: a clipped label tells nothing; then covering
            // another label, then covering a point.
            const QRectF in = o.box.intersected(inside);
            cost += 10 * (o.box.width() * o.box.height() - in.width() * in.height());
            for (std::size_t t = 0; t < taken.size(); ++t) {
                const QRectF x = o.box.intersected(taken[t]);
                if (x.isEmpty()) continue;
                const double area = x.width() * x.height();
                if (t >= labels.size()) overLabels += area;
                cost += (t >= labels.size() ? 5 : 1) * area;
            }
            if (cost < bestCost - 1e-12) {
                bestCost = cost;
                bestOverLabels = overLabels;
                best = &o;
            }
            if (cost <= 0) break;
        }
        l->setPositionAlignment(best->align);
        l->setPadding(best->pad);
        if (bestOverLabels > 0.02 * best->box.width() * best->box.height()) {
            // No free side: the label would cover another one. The point stays (a click
            // on it shows its run, as its row in the table does).
            l->setVisible(false);
            continue;
        }
        taken.push_back(best->box);
    }
}

void plotTimeline(QCustomPlot* plot, const std::vector<NodeInterval>& intervals,
                  const std::vector<QString>& nodeNames, double until) {
    resetPlot(plot);
    const int rows = std::max<int>(1, static_cast<int>(nodeNames.size()));
    const int bins = 1500;
    if (until <= 0) until = 1;
    auto* map = new QCPColorMap(plot->xAxis, plot->yAxis);
    map->data()->setSize(bins, rows);
    map->data()->setRange(QCPRange(0, until), QCPRange(0, rows - 1));
    map->data()->fill(0); // idle
    // Later intervals paint over earlier ones; any activity in a bin outranks idle.
    for (const auto& iv : intervals) {
        if (iv.node < 0 || iv.node >= rows || iv.to <= iv.from || iv.state == NodeState::Idle) continue;
        int b0 = static_cast<int>(std::floor(iv.from / until * bins));
        int b1 = static_cast<int>(std::ceil(iv.to / until * bins));
        b0 = std::clamp(b0, 0, bins - 1);
        b1 = std::clamp(b1, b0 + 1, bins);
        for (int b = b0; b < b1; ++b) map->data()->setCell(b, iv.node, static_cast<double>(iv.state));
    }
    applyStateColors(map);
    plot->xAxis->setLabel("virtual time (s)");
    plot->yAxis->setLabel("node"); // names on the ticks (up to 40 rows), else their indices
    if (rows <= 40) {
        auto ticker = QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText);
        for (int i = 0; i < rows; ++i) ticker->addTick(i, nodeNames[i]);
        plot->yAxis->setTicker(ticker);
    }
    // A legend of the states, drawn as empty graphs with their colours.
    addStateLegend(plot);
    plot->legend->setVisible(true);
    plot->xAxis->setRange(0, until);
    plot->yAxis->setRange(-0.5, rows - 0.5);
}

QVector<double> smoothCurve(const QVector<double>& ys, int window) {
    if (window <= 1 || ys.size() < 2) return ys;
    QVector<double> out(ys.size());
    double sum = 0;
    for (int i = 0; i < ys.size(); ++i) {
        sum += ys[i];
        if (i >= window) sum -= ys[i - window];
        out[i] = sum / std::min(i + 1, window);
    }
    return out;
}

} // namespace fog
