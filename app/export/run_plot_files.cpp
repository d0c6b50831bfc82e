#include "app/export/run_plot_files.h"

#include "core/analysis/run_figures.h"
#include "core/analysis/run_labels.h"
#include "core/store/run_store.h"
#include "widgets/figures/learning_plots.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"
#include "widgets/figures/time_markers.h"

#include <algorithm>
#include <cmath>

namespace fog {

bool drawRunPlots(QCustomPlot& plot, const std::vector<RunWithMetrics>& runs, RunStore& store, const RunPlotOptions& o,
                  const std::function<bool(const QString&, int, int)>& save) {
    if (runs.empty()) return true;
    plot.setPalette(QPalette(Qt::white)); // black on white, for print
    // Labels as the studio's comparison gives them (core/analysis/run_labels): what tells the
    // runs apart, a sweep run's varied values in short ("n-sync n=3 r2"), never raw YAML.
    std::vector<RunLabelInput> input;
    for (const auto& x : runs)
        input.push_back({x.run.name, x.run.scenarioYaml, x.run.sweepConfig, x.run.repeat, x.run.sweepId});
    const std::vector<std::string> names = runLabels(input);
    // Repeats of one configuration (a lesson's variant, a sweep's point) are one curve: their
    // mean in its 95% band, one colour per configuration, as in the studio.
    std::vector<std::vector<std::size_t>> groups = configurationGroups(input);
    const bool anyRepeats = std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() >= 2; });
    const bool grouped = anyRepeats && o.meanOfRepeats;
    if (!grouped) {
        groups.clear();
        for (std::size_t i = 0; i < runs.size(); ++i) groups.push_back({i});
    }
    std::vector<int> colourOf(runs.size(), 0); // run -> its configuration's colour
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::size_t i : groups[g]) colourOf[i] = static_cast<int>(g);
    std::vector<PlotSeries> series;
    for (std::size_t i = 0; i < runs.size(); ++i)
        series.push_back({QString("#%1 %2").arg(runs[i].run.id).arg(QString::fromStdString(names[i])),
                          seriesColor(colourOf[i]), runs[i].metrics});
    std::vector<PlotGroup> plotGroups;
    std::vector<QString> pointLabels;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const auto& members = groups[g];
        const StoredRun& first = runs[members.front()].run;
        PlotGroup pg;
        pg.color = seriesColor(static_cast<int>(g));
        pg.style = seriesPenStyle(static_cast<int>(g));
        if (members.size() >= 2) {
            const QString config = QString::fromStdString(shortConfigLabel(first.sweepConfig));
            pg.label = QString("%1 (%2)").arg(config).arg(members.size());
            pointLabels.push_back(config.size() > 28 ? config.left(26) + QString::fromUtf8("…") : config);
        } else {
            pg.label = series[members.front()].label;
            pointLabels.push_back(QString("#%1").arg(first.id));
        }
        for (std::size_t i : members) pg.runs.push_back(runs[i].metrics);
        plotGroups.push_back(std::move(pg));
    }

    const std::pair<PlotKind, const char*> kinds[] = {{PlotKind::TestAccuracy, "accuracy"},
                                                      {PlotKind::TrainLoss, "loss"},
                                                      {PlotKind::Cost, "cost"},
                                                      {PlotKind::Energy, "energy"}};
    std::vector<std::int64_t> ids; // a fork beside its parent: where they branch (widgets/figures/time_markers.h)
    for (const auto& run : runs) ids.push_back(run.run.id);
    const std::vector<TimeMarker> forks = forkMarkers(store, ids);
    for (const auto& [kind, name] : kinds) {
        plot.resize(900, 500); // the legend's columns follow the figure's width
        if (grouped) plotGroupedMetric(&plot, plotGroups, kind);
        else plotMetric(&plot, series, kind);
        legendBelowTheCurves(&plot); // in a row of its own under the axes: never over the curves
        if (grouped) {
            // What the curves and bands are, once above the plot (the legend names the
            // configurations and their number of repeats).
            plot.plotLayout()->insertRow(0);
            auto* note = new QCPTextElement(&plot, "Mean of each configuration's repeats (their number in brackets), "
                                                   "95% confidence band",
                                            QFont(plot.font().family(), 9));
            note->setTextColor(plot.palette().color(QPalette::WindowText));
            note->setObjectName("fogBandNote");
            plot.plotLayout()->addElement(0, 0, note);
        }
        for (const TimeMarker& m : forks)
            for (std::size_t i = 0; i < runs.size(); ++i)
                if (runs[i].run.id == m.run) addTimeMarker(&plot, m.time, m.label, seriesColor(colourOf[i]));
        if (!save(name, 900, 500)) return false;
    }
    // The learning side (issue 25): megabytes per round, and the privacy spent where runs
    // report it (the report names these files in its commands).
    if (anyBytes(series)) {
        plotBytesPerRound(&plot, series);
        if (!save("bytes_per_round", 900, 500)) return false;
    }
    std::vector<PrivacySeries> privacy;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        PrivacySeries p{series[i].label, series[i].color, {}, kNaN};
        p.epsilons = privacyCurve(store.events(runs[i].run.id), &p.delta);
        if (!p.epsilons.empty()) privacy.push_back(p);
    }
    if (!privacy.empty()) {
        plotPrivacy(&plot, privacy);
        if (!save("privacy", 900, 500)) return false;
    }
    if (runs.size() == 1) {
        std::vector<QString> nodes;
        for (const auto& n : store.nodes(runs[0].run.id)) nodes.push_back(QString::fromStdString(n.id));
        plotTimeline(&plot, store.intervals(runs[0].run.id), nodes, runs[0].run.summary.virtualTime);
        return save("timeline", 900, std::clamp(static_cast<int>(nodes.size()) * 14 + 90, 300, 900));
    }
    // Runs that all stopped at one time limit have alike totals: unless told, the scatter
    // compares what each took to reach the target (as the studio's comparison does).
    std::vector<double> ends;
    std::vector<RunFigures> figures;
    for (const auto& x : runs) {
        ends.push_back(x.run.summary.virtualTime);
        figures.push_back(runFigures(x.run.summary, x.run.status, x.metrics, o.target));
    }
    const TradeOffMode mode = o.tradeOff == RunPlotOptions::TradeOff::Target ? TradeOffMode::AtTarget
                              : o.tradeOff == RunPlotOptions::TradeOff::End  ? TradeOffMode::AtEnd
                                                                              : defaultTradeOffMode(ends);
    plot.resize(900, 560);
    plotTradeOff(&plot, groupedTradeOff(figures, groups, mode, pointLabels));
    const QString pct = QString::number(100 * o.target, 'g', 4) + " %";
    QString title = mode == TradeOffMode::AtTarget ? "Time and cost to reach " + pct : QString("Total time and cost");
    if (mode == TradeOffMode::AtTarget) {
        plot.xAxis->setLabel("virtual time to " + pct + " (s)");
        plot.yAxis->setLabel(costAxisLabel("cost to " + pct));
        int missing = 0;
        for (const auto& f : figures) missing += std::isnan(f.timeToTarget) ? 1 : 0;
        if (missing) title += QString(" (%1 of %2 runs did not reach it)").arg(missing).arg(figures.size());
    } else {
        const auto [lo, hi] = std::minmax_element(ends.begin(), ends.end());
        if (*lo > 0 && *hi > 1.5 * *lo) // different budgets: the totals cover different work
            title += QString(": the runs ended at %1 s to %2 s (--tradeoff target compares time and cost to %3)")
                         .arg(*lo, 0, 'g', 4)
                         .arg(*hi, 0, 'g', 4)
                         .arg(pct);
        else if (runs.size() >= 2 && defaultTradeOffMode(ends) == TradeOffMode::AtTarget)
            title += ": every run stopped at one time limit (--tradeoff target compares time and cost to " + pct + ")";
    }
    if (grouped) title += "; one point per configuration, bars: 95% CI";
    plot.plotLayout()->insertRow(0);
    auto* heading = new QCPTextElement(&plot, title, QFont(plot.font().family(), 10));
    heading->setTextColor(plot.palette().color(QPalette::WindowText));
    heading->setObjectName("fogTradeOffTitle");
    plot.plotLayout()->addElement(0, 0, heading);
    return save("tradeoff", 900, 560);
}

} // namespace fog
