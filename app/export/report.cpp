#include "app/export/report.h"

#include "app/export/topology_figure.h"
#include "core/analysis/analysis.h"
#include "core/analysis/run_labels.h"
#include "core/cluster/cluster_compare.h"
#include "core/scenario/scenario_io.h"
#include "widgets/figures/learning_plots.h"
#include "widgets/figures/run_plots.h"

#include <QBuffer>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QPdfWriter>
#include <QAbstractTextDocumentLayout>
#include <QTextBlock>
#include <QTextDocument>
#include "widgets/figures/cluster_plots.h"
#include "widgets/figures/qcustomplot.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace fog {

namespace {

QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

QString num(double v, int digits) { return std::isnan(v) ? QString("-") : QString::number(v, 'f', digits); }

QString pct(double v) { return std::isnan(v) ? QString("-") : QString::number(100 * v, 'f', 2) + "%"; }

/// Figures are collected by name and referenced as img://name, then embedded (HTML) or
/// registered as document resources (PDF).
struct Figures {
    std::vector<std::pair<QString, QImage>> images;
    QString add(const QString& name, const QImage& img) {
        images.emplace_back(name, img);
        // A4 with 15 mm margins is 680 px wide at 96 dpi: keep figures inside it.
        const int width = std::min(img.width() / 2, 660);
        return "<p><img src=\"img://" + name + "\" width=\"" + QString::number(width) + "\"></p>";
    }
};

/// A figure under its own heading, with the commands that draw it again set apart below it.
QString figureSection(const QString& title, const QString& figure, const QString& caption, const QStringList& commands) {
    QString h = "<h3>" + title.toHtmlEscaped() + "</h3>" + figure;
    if (!caption.isEmpty()) h += "<p class=\"note\">" + caption + "</p>";
    if (!commands.isEmpty())
        h += "<p class=\"cmdhead\">Drawn again by:</p><pre class=\"cmd\">" + commands.join("\n").toHtmlEscaped() + "</pre>";
    return h;
}

QImage renderPlot(const std::function<void(QCustomPlot*)>& draw, int w = 820, int h = 360) {
    QCustomPlot plot;
    plot.setPalette(QPalette(Qt::white)); // reports are printed: light whatever the desktop theme
    plot.resize(w, h);
    draw(&plot);
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return plot.toPixmap(w, h, 2.0).toImage();
}

QString scenarioSummary(const Scenario& s) {
    std::map<std::string, int> tiers;
    int trainers = 0;
    const std::vector<long long> members = memberCounts(s.topology);
    for (std::size_t i = 0; i < s.topology.nodes.size(); ++i) {
        const NodeSpec& n = s.topology.nodes[i];
        tiers[toString(n.tier)] += static_cast<int>(members[i]);
        trainers += roleTrains(n.role) ? static_cast<int>(members[i]) : 0;
    }
    QString nodes;
    for (const auto& [t, c] : tiers) nodes += QString("%1 %2, ").arg(c).arg(QString::fromStdString(t));
    nodes.chop(2);
    auto params = [](const PolicySpec& p) {
        QString out = QString::fromStdString(p.name);
        QStringList kv;
        for (const auto& [k, v] : p.params) kv << QString("%1=%2").arg(QString::fromStdString(k)).arg(v);
        if (!kv.isEmpty()) out += " (" + kv.join(", ") + ")";
        return out;
    };
    QString local = s.training.localEpochs > 0 ? QString("%1 local epochs").arg(s.training.localEpochs)
                                               : QString("%1 local steps").arg(s.training.localSteps);
    QString h = "<table class=\"kv\" width=\"100%\">";
    auto row = [&h](const QString& k, const QString& v) { h += "<tr><th>" + k + "</th><td>" + v + "</td></tr>"; };
    if (!s.description.empty()) row("Description", esc(s.description));
    row("Nodes", nodes + QString(" (%1 trainers)").arg(trainers));
    row("Data", QString("%1, partition %2").arg(toString(s.data.kind), toString(s.data.partition.kind)));
    row("Model", toString(s.model.kind));
    row("Training", QString("SGD lr %1 (%2), momentum %3, batch %4, %5")
                        .arg(s.training.learningRate)
                        .arg(toString(s.training.schedule.kind))
                        .arg(s.training.momentum)
                        .arg(s.training.batchSize)
                        .arg(local));
    row("Sync policy", params(s.sync));
    row("Selection", params(s.selection));
    row("Seed", QString::number(s.seed));
    return h + "</table>";
}

/// The summary in two tables, so that no column is squeezed until its words break: what
/// each run is, then its figures (core/analysis/run_figures, the studio's numbers).
QString summaryTables(const std::vector<ReportRun>& runs, const std::vector<QString>& labels,
                      const std::vector<RunFigures>& figs, const ReportOptions& o,
                      const std::vector<std::size_t>& front) {
    QString h = "<table class=\"grid\" cellspacing=\"0\"><tr><th>run</th><th>status</th><th>stopped by</th>"
                "<th>rounds</th></tr>";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i].run;
        h += QString("<tr><td>%1</td><td class=\"n\">%2</td><td>%3</td><td class=\"n\">%4</td></tr>")
                 .arg(labels[i].toHtmlEscaped(), esc(r.status), esc(r.summary.stopReason), num(figs[i].rounds, 0));
    }
    h += "</table><p></p>";
    const QString t = QString::number(100 * o.target, 'g', 4) + "%";
    h += "<table class=\"grid\" cellspacing=\"0\" width=\"100%\"><tr><th>run</th><th>final<br>accuracy</th><th>best<br>accuracy</th>"
         "<th>virtual<br>time (s)</th><th>cost</th><th>energy<br>(J)</th><th>time to<br>" + t + " (s)</th><th>cost to<br>" +
         t + "</th><th>Pareto</th></tr>";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunFigures& f = figs[i];
        const bool onFront = std::find(front.begin(), front.end(), i) != front.end();
        auto reached = [](double v, int d) { return std::isnan(v) ? QString("not reached") : num(v, d); };
        h += QString("<tr><td class=\"n\">#%1</td><td class=\"n\">%2</td><td class=\"n\">%3</td>"
                     "<td class=\"n\">%4</td><td class=\"n\">%5</td><td class=\"n\">%6</td><td class=\"n\">%7</td>"
                     "<td class=\"n\">%8</td><td class=\"n\">%9</td></tr>")
                 .arg(runs[i].run.id)
                 .arg(pct(f.finalAccuracy), pct(f.bestAccuracy), num(f.virtualTime, 1), num(f.cost, 4),
                      num(f.energyJ, 1), reached(f.timeToTarget, 1), reached(f.costToTarget, 4))
                 .arg(onFront ? "yes" : "");
    }
    h += "</table><p class=\"note\">Final accuracy is that of the model each run ended with. " +
         QString::fromStdString(paretoDefinition(o.tradeOff, o.target)).toHtmlEscaped() + "</p>";
    return h;
}

/// True when some run consumed energy (a scenario without energy figures stays at zero).
bool anyEnergy(const std::vector<ReportRun>& runs) {
    for (const auto& r : runs)
        for (const auto& m : r.metrics)
            if (m.energyJ > 0) return true;
    return false;
}

bool isCluster(const ReportRun& r) { return r.cluster.has_value(); }

/// The cluster runs' section (issue 17): per (scenario, scheduler) the mean and p95
/// completion time with 95% CIs over the runs' seeds, the completion-time CDFs side by side,
/// the mean per scheduler with its CI, and one row per run.
QString clusterSection(const std::vector<ReportRun>& runs, const std::vector<QString>& labels, Figures& figs) {
    std::vector<cluster::ComparedClusterRun> cr;
    std::vector<QString> cl;
    std::vector<QColor> colors;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!isCluster(runs[i])) continue;
        const auto cut = runs[i].run.name.rfind(" / ");
        cr.push_back({runs[i].run.id, cut == std::string::npos ? runs[i].run.name : runs[i].run.name.substr(0, cut),
                      *runs[i].cluster});
        cl.push_back(labels[i]);
        colors.push_back(seriesColor(static_cast<int>(i)));
    }
    const auto groups = cluster::groupClusterRuns(cr);
    QString h = "<h2>Task completion times (cluster runs)</h2><p>Completion time = finish - arrival, in steps of "
                "virtual time. Runs of one scenario and scheduler are grouped; ± is the half-width of a 95% "
                "confidence interval (Student t) over their seeds.</p>";
    h += "<table class=\"grid\"><tr><th>scenario</th><th>scheduler</th><th>runs</th><th>mean completion</th>"
         "<th>p95 completion</th><th>makespan</th><th>GPU use</th></tr>";
    for (const auto& g : groups)
        h += "<tr><td>" + esc(g.scenario) + "</td><td>" + esc(g.scheduler) + "</td><td class=\"n\">" +
             QString::number(g.runIds.size()) + (g.incomplete ? QString(" (%1 incomplete)").arg(g.incomplete) : QString()) +
             "</td><td class=\"n\">" + formatClusterCi(g.meanCompletion).toHtmlEscaped() + "</td><td class=\"n\">" +
             formatClusterCi(g.p95Completion).toHtmlEscaped() + "</td><td class=\"n\">" +
             formatClusterCi(g.makespan, 2).toHtmlEscaped() + "</td><td class=\"n\">" +
             formatClusterCi({100 * g.gpuUtilisation.mean, 100 * g.gpuUtilisation.halfWidth, g.gpuUtilisation.n}, 1)
                 .toHtmlEscaped() +
             "%</td></tr>";
    h += "</table>";
    h += figs.add("completion_cdf", renderPlot([&](QCustomPlot* p) { plotClusterCdfs(p, cr, cl, colors); }, 820, 420));
    h += figs.add("completion_by_scheduler", renderPlot([&](QCustomPlot* p) { plotClusterGroups(p, groups); }, 820, 380));
    h += "<h2>Cluster runs</h2><table class=\"grid\"><tr><th>run</th><th>scheduler</th><th>seed</th><th>tasks</th>"
         "<th>mean</th><th>p50</th><th>p95</th><th>max</th><th>mean wait</th><th>makespan</th><th>preemptions</th>"
         "<th>status</th></tr>";
    for (std::size_t i = 0; i < cr.size(); ++i) {
        const cluster::ClusterSummary& s = cr[i].data.result.summary;
        h += "<tr><td>" + cl[i].toHtmlEscaped() + "</td><td>" + esc(s.scheduler) + "</td><td class=\"n\">" +
             QString::number(s.seed) + "</td><td class=\"n\">" + QString("%1/%2").arg(s.completed).arg(s.tasks) +
             "</td><td class=\"n\">" + num(s.meanCompletion, 3) + "</td><td class=\"n\">" + num(s.p50Completion, 3) +
             "</td><td class=\"n\">" + num(s.p95Completion, 3) + "</td><td class=\"n\">" + num(s.maxCompletion, 3) +
             "</td><td class=\"n\">" + num(s.meanWait, 3) + "</td><td class=\"n\">" + num(s.makespan, 2) +
             "</td><td class=\"n\">" + QString::number(s.preemptions) + "</td><td>" + esc(s.stopReason) + "</td></tr>";
    }
    h += "</table>";
    return h;
}

QString buildHtml(const std::vector<ReportRun>& runs, const ReportOptions& o, Figures& figs);

/// A report of cluster runs only: no training sections (they have no loss or accuracy).
QString buildClusterHtml(const std::vector<ReportRun>& runs, const ReportOptions&, Figures& figs) {
    const bool single = runs.size() == 1;
    QString h = "<html><head><meta charset=\"utf-8\"><title>FogStudio report</title><style>"
                "body{font-family:'DejaVu Sans',sans-serif;font-size:10pt;color:#222;max-width:900px;margin:auto}"
                "h1{font-size:18pt}h2{font-size:13pt;border-bottom:1px solid #ccc;margin-top:18pt}"
                "table.grid{border-collapse:collapse}table.grid td,table.grid th{border:1px solid #bbb;padding:3px 6px;"
                "font-size:9pt}pre{background:#f4f4f4;padding:6px;font-size:8pt;white-space:pre-wrap}"
                "td.n{white-space:nowrap;text-align:right}table.grid th{white-space:nowrap}"
                "</style></head><body>";
    h += single ? "<h1>FogStudio cluster run " + QString::number(runs[0].run.id) + ": " + esc(runs[0].run.name) + "</h1>"
                : QString("<h1>FogStudio comparison of %1 cluster runs</h1>").arg(runs.size());
    h += "<p>Produced by FogStudio " FOGSTUDIO_VERSION " on " + QDateTime::currentDateTimeUtc().toString(Qt::ISODate) +
         ". Scheduling ML tasks on edge clusters (docs/cluster.md): virtual time in steps, computed by the cluster "
         "emulator from the scenario and seed.</p>";
    std::vector<StoredRun> stored;
    for (const auto& r : runs) stored.push_back(r.run);
    h += clusterSection(runs, reportLabels(stored), figs);
    h += "<h2>Reproduce</h2><p>Every run is stored with its scenario file's text and seed; saved to a file, it "
         "re-runs exactly (a learned scheduler's policy is stored with its runs too):</p><pre>";
    for (const auto& r : runs)
        h += QString("# run %1\nfogstudio-cli cluster run SCENARIO.yaml --scheduler %2 --seed %3\n")
                 .arg(r.run.id)
                 .arg(QString::fromStdString(r.cluster->result.summary.scheduler))
                 .arg(r.run.seed);
    h += "</pre>";
    h += "<p>The scenario file of run " + QString::number(runs[0].run.id) + ":</p><pre>" + esc(runs[0].run.scenarioYaml) + "</pre>";
    return h + "</body></html>";
}

QString buildHtml(const std::vector<ReportRun>& runs, const ReportOptions& o, Figures& figs) {
    if (std::all_of(runs.begin(), runs.end(), isCluster)) return buildClusterHtml(runs, o, figs);
    const bool single = runs.size() == 1;
    QString h = "<html><head><meta charset=\"utf-8\"><title>FogStudio report</title><style>"
                "body{font-family:'DejaVu Sans',sans-serif;font-size:10pt;color:#222;max-width:900px;margin:auto}"
                "h1{font-size:18pt}h2{font-size:13pt;border-bottom:1px solid #ccc;margin-top:18pt}"
                "table.grid{border-collapse:collapse}table.grid td,table.grid th{border:1px solid #bbb;padding:3px 6px;"
                "font-size:9pt}table.kv th{text-align:left;padding-right:12px;vertical-align:top}"
                "pre{background:#f4f4f4;padding:6px;font-size:8pt;white-space:pre-wrap}"
                "td.n{white-space:nowrap;text-align:right}table.grid th{white-space:nowrap}"
                "p.note{font-size:8.5pt;color:#444}h3{font-size:11pt;margin-top:12pt;margin-bottom:4pt}"
                "p.cmdhead{font-size:8.5pt;color:#444;margin-bottom:0}"
                "pre.cmd{background:#eef2f7;border-left:3px solid #7a9cc6;padding:4px 6px;font-size:8pt}"
                "</style></head><body>";
    h += single ? "<h1>FogStudio run " + QString::number(runs[0].run.id) + ": " + esc(runs[0].run.name) + "</h1>"
                : QString("<h1>FogStudio comparison of %1 runs</h1>").arg(runs.size());
    h += "<p>Produced by FogStudio " FOGSTUDIO_VERSION " on " +
         QDateTime::currentDateTimeUtc().toString(Qt::ISODate) +
         ". Virtual time, cost and energy are computed by the emulator from the scenario; "
         "loss and accuracy come from real training.</p>";

    std::vector<StoredRun> stored;
    for (const auto& r : runs) stored.push_back(r.run);
    const std::vector<QString> labels = reportLabels(stored);
    std::vector<RunFigures> figures;
    for (const auto& r : runs) figures.push_back(runFigures(r.run.summary, r.run.status, r.metrics, o.target));
    // Repeats of one sweep configuration (a lesson's variant) are one curve, their mean in its
    // 95% band, and one trade-off point with bars, as in the studio and `export plots`.
    std::vector<RunLabelInput> input;
    for (const auto& r : runs) input.push_back({r.run.name, r.run.scenarioYaml, r.run.sweepConfig, r.run.repeat, r.run.sweepId});
    const std::vector<std::vector<std::size_t>> groups = configurationGroups(input);
    const bool grouped = groups.size() < runs.size();
    std::vector<int> colourOf(runs.size(), 0);
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::size_t i : groups[g]) colourOf[i] = grouped ? static_cast<int>(g) : static_cast<int>(i);
    std::vector<PlotSeries> series;
    std::vector<TradeOffRun> trade;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        series.push_back({labels[i], seriesColor(colourOf[i]), runs[i].metrics});
        trade.push_back({QString("#%1").arg(runs[i].run.id), tradeOffPoint(figures[i], o.tradeOff), MeanCi{}, MeanCi{}});
    }
    std::vector<PlotGroup> plotGroups;
    if (grouped) {
        std::vector<QString> pointLabels;
        for (std::size_t g = 0; g < groups.size(); ++g) {
            const StoredRun& first = runs[groups[g].front()].run;
            PlotGroup pg{series[groups[g].front()].label, seriesColor(static_cast<int>(g)), {}, seriesPenStyle(static_cast<int>(g))};
            QString point = QString("#%1").arg(first.id);
            if (groups[g].size() >= 2) {
                point = QString::fromStdString(shortConfigLabel(first.sweepConfig));
                pg.label = QString("%1 (%2)").arg(point).arg(groups[g].size());
            }
            for (std::size_t i : groups[g]) pg.runs.push_back(runs[i].metrics);
            plotGroups.push_back(std::move(pg));
            pointLabels.push_back(point);
        }
        trade = groupedTradeOff(figures, groups, o.tradeOff, pointLabels);
    }
    auto curves = [&](QCustomPlot* p, PlotKind kind) {
        if (grouped) plotGroupedMetric(p, plotGroups, kind);
        else plotMetric(p, series, kind);
    };
    const auto front = tradeOffFront(figures, o.tradeOff);

    // The commands that draw each figure again (fogstudio-cli export plots writes them all,
    // named as below), after the runs are in the database (runs rerun, in Reproduce).
    QString idList;
    for (const auto& r : runs) idList += " " + QString::number(r.run.id);
    const QString dbArg = o.dbPath.isEmpty() ? QString() : " --db " + o.dbPath;
    const QString plotsCommand = "fogstudio-cli export plots" + idList + dbArg + " --out figures";
    auto drawnBy = [&](const QString& file) { return QStringList{plotsCommand + "   # figures/" + file + ".png"}; };

    h += "<h2>Summary</h2>" + summaryTables(runs, labels, figures, o, front);
    h += "<p class=\"cmdhead\">The same figures as CSV:</p><pre class=\"cmd\">" +
         ("fogstudio-cli export summary" + idList + dbArg + " --target " + QString::number(o.target)).toHtmlEscaped() +
         "</pre>";

    // Scenario of a single run (or of the first, for a comparison of one scenario's variants).
    try {
        const Scenario s = loadScenarioText(runs[0].run.scenarioYaml, "run " + std::to_string(runs[0].run.id));
        h += QString("<h2>Scenario%1</h2>").arg(single ? "" : " (of run " + QString::number(runs[0].run.id) + ")");
        h += "<p><b>" + esc(s.name) + "</b></p>" + scenarioSummary(s);
        h += figureSection("Topology", figs.add("topology", topologyFigure(s, 820, 280)), {},
                           {"fogstudio-cli runs show " + QString::number(runs[0].run.id) + dbArg +
                            "   # the scenario file, as stored"});
    } catch (const std::exception& e) {
        h += "<p>The stored scenario could not be read: " + esc(e.what()) + "</p>";
    }

    h += "<h2>Accuracy and loss</h2>";
    h += figureSection("Test accuracy",
                       figs.add("accuracy", renderPlot([&](QCustomPlot* p) { curves(p, PlotKind::TestAccuracy); })),
                       grouped ? QString("Each configuration: the mean of its repeats (their number in brackets) inside "
                                         "its 95% confidence band; so are the loss, cost and energy below.")
                               : QString(),
                       drawnBy("accuracy"));
    h += figureSection("Training loss",
                       figs.add("loss", renderPlot([&](QCustomPlot* p) { curves(p, PlotKind::TrainLoss); })),
                       {}, drawnBy("loss"));
    const bool energy = anyEnergy(runs);
    h += energy ? "<h2>Cost and energy</h2>" : "<h2>Cost</h2>";
    h += figureSection("Cumulative cost",
                       figs.add("cost", renderPlot([&](QCustomPlot* p) { curves(p, PlotKind::Cost); })), {},
                       drawnBy("cost"));
    if (energy)
        h += figureSection("Cumulative energy",
                           figs.add("energy", renderPlot([&](QCustomPlot* p) { curves(p, PlotKind::Energy); })),
                           {}, drawnBy("energy"));
    else
        h += "<p class=\"note\">No energy is modelled in " + QString(single ? "this scenario" : "these scenarios") +
             " (every energy key is zero: per sample, per byte, idle power, per update aggregated), so there "
             "is no energy plot.</p>";
    // The learning side (issue 25): the bytes each round moved, the privacy spent.
    std::vector<PrivacySeries> privacy;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        PrivacySeries p{labels[i], seriesColor(static_cast<int>(i)), privacyCurve(runs[i].events, nullptr), kNaN};
        privacyCurve(runs[i].events, &p.delta);
        if (!p.epsilons.empty()) privacy.push_back(p);
    }
    const bool bytes = anyBytes(series);
    if (bytes || !privacy.empty()) {
        h += !privacy.empty() ? (bytes ? "<h2>Network and privacy</h2>" : "<h2>Privacy</h2>") : "<h2>Network</h2>";
        if (bytes)
            h += figureSection("Megabytes per round",
                               figs.add("bytes_per_round", renderPlot([&](QCustomPlot* p) { plotBytesPerRound(p, series); })),
                               "What each global round moved over the network (model down, updates up, every hop).",
                               drawnBy("bytes_per_round"));
        if (!privacy.empty())
            h += figureSection("Privacy spent",
                               figs.add("privacy", renderPlot([&](QCustomPlot* p) { plotPrivacy(p, privacy); })),
                               "DP-FedAvg's accountant: the epsilon spent so far at the stated delta, per round.",
                               drawnBy("privacy"));
    }
    if (single) {
        std::vector<QString> names;
        for (const auto& n : runs[0].nodes) names.push_back(QString::fromStdString(n.id));
        if (!runs[0].intervals.empty()) {
            h += "<h2>Node timeline</h2><p>What each node did over virtual time: who computed, who sent, who "
                 "was offline, and so who held each barrier.</p>";
            h += figureSection("Node states over virtual time",
                               figs.add("timeline", renderPlot([&](QCustomPlot* p) {
                                            plotTimeline(p, runs[0].intervals, names, runs[0].run.summary.virtualTime);
                                        }, 820, std::clamp(static_cast<int>(names.size()) * 14 + 90, 240, 620))),
                               {}, drawnBy("timeline"));
        }
    } else {
        const bool atTarget = o.tradeOff == TradeOffMode::AtTarget;
        const QString t = pct(o.target);
        h += "<h2>Trade-off</h2><p>" +
             (atTarget ? "Virtual time against cost to reach " + t +
                             " test accuracy (runs that never reach it have no point)"
                       : QString("Total virtual time against total cost")) +
             ", coloured by final accuracy; ringed points and the dashed line are the Pareto front. " +
             QString::fromStdString(paretoDefinition(o.tradeOff, o.target)).toHtmlEscaped() + "</p>";
        h += figureSection(atTarget ? "Time and cost to " + t : QString("Total time and cost"),
                           figs.add("tradeoff", renderPlot([&](QCustomPlot* p) {
                                        plotTradeOff(p, trade);
                                        if (atTarget) {
                                            p->xAxis->setLabel("virtual time to " + t + " (s)");
                                            p->yAxis->setLabel(costAxisLabel("cost to " + t));
                                        }
                                    }, 820, 460)),
                           grouped ? QString("One point per configuration: the mean of its repeats (their number in "
                                             "brackets); bars: 95% confidence intervals.")
                                   : QString(),
                           QStringList{plotsCommand + (atTarget ? " --tradeoff target --target " + QString::number(o.target)
                                                                : QString(" --tradeoff end")) +
                                       "   # figures/tradeoff.png"});
    }

    if (std::any_of(runs.begin(), runs.end(), isCluster)) h += clusterSection(runs, labels, figs);
    h += "<h2>Reproduce</h2><p>Every run is stored with its scenario and seed. A re-run gives the same virtual "
         "times, costs, bytes and energy on any machine, and the same training values bit for bit with the "
         "same kernels (otherwise within the tolerance of docs/reproducibility.md):</p><pre>";
    const QString db = o.dbPath.isEmpty() ? QString() : " --db " + o.dbPath;
    for (const auto& r : runs) h += QString("fogstudio-cli runs rerun %1%2\n").arg(r.run.id).arg(db);
    h += "</pre><p>Computed with:</p><ul>";
    for (const auto& r : runs)
        h += "<li>run " + QString::number(r.run.id) + ": " +
             esc(r.run.numerics.empty() ? "kernels not recorded (stored before FogStudio recorded them)"
                                        : r.run.numerics) +
             "</li>";
    h += "</ul>";
    if (single) h += "<p>The scenario file of this run:</p><pre>" + esc(runs[0].run.scenarioYaml) + "</pre>";
    return h + "</body></html>";
}

} // namespace

std::vector<QString> reportLabels(const std::vector<StoredRun>& runs) {
    std::vector<RunLabelInput> in;
    for (const auto& r : runs) in.push_back({r.name, r.scenarioYaml, r.sweepConfig, r.repeat});
    const auto labels = runLabels(in);
    std::vector<QString> out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        QString name = QString::fromStdString(labels[i]);
        if (name.size() > 48) name = name.left(46) + "...";
        out.push_back(QString("#%1 %2").arg(runs[i].id).arg(name));
    }
    return out;
}

void keepHeadingsWithNext(QTextDocument& doc) {
    const double page = doc.pageSize().height();
    if (page <= 0) return;
    // One pass in document order; each moved heading shifts what follows, so positions are
    // read after the previous change.
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
        if (b.blockFormat().headingLevel() == 0) continue;
        const QTextBlock next = b.next();
        QAbstractTextDocumentLayout* layout = doc.documentLayout();
        const QRectF hr = layout->blockBoundingRect(b);
        // What follows the heading: the next block, or the table/frame that starts there.
        double nextHeight = next.isValid() ? layout->blockBoundingRect(next).height() : 0.0;
        if (next.isValid())
            if (QTextFrame* frame = doc.frameAt(next.position()); frame && frame != doc.rootFrame())
                nextHeight = std::min(layout->frameBoundingRect(frame).height(), page / 3);
        const double top = hr.top();
        const double pageEnd = (std::floor(top / page) + 1) * page;
        if (top + hr.height() + std::min(nextHeight, page / 3) > pageEnd && top > std::floor(top / page) * page + 1) {
            QTextCursor c(b);
            QTextBlockFormat f = b.blockFormat();
            f.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
            c.setBlockFormat(f);
        }
    }
}

std::vector<ReportRun> loadReportRuns(const RunStore& store, const std::vector<std::int64_t>& ids) {
    std::vector<ReportRun> out;
    for (auto id : ids) {
        auto r = store.run(id);
        if (!r) throw StoreError(store.path() + ": no run " + std::to_string(id));
        out.push_back({*r, store.metrics(id), store.intervals(id), store.nodes(id), store.events(id), std::nullopt});
    }
    // Cluster runs: their tables, read once for all.
    std::vector<std::int64_t> clusterIds;
    for (const auto& r : out)
        if (std::find(r.run.tags.begin(), r.run.tags.end(), "cluster") != r.run.tags.end()) clusterIds.push_back(r.run.id);
    if (!clusterIds.empty())
        for (auto& c : cluster::loadClusterRuns(store.path(), clusterIds))
            for (auto& r : out)
                if (r.run.id == c.runId) r.cluster = std::move(c.data);
    return out;
}

bool writeReport(const std::vector<ReportRun>& runs, const QString& path, const ReportOptions& options, QString* error) {
    if (runs.empty()) {
        if (error) *error = "no runs to report";
        return false;
    }
    Figures figs;
    QString html = buildHtml(runs, options, figs);
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == "html" || ext == "htm") {
        for (const auto& [name, img] : figs.images) {
            QByteArray png;
            QBuffer buf(&png);
            buf.open(QIODevice::WriteOnly);
            img.save(&buf, "PNG");
            html.replace("img://" + name, "data:image/png;base64," + QString::fromLatin1(png.toBase64()));
        }
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            if (error) *error = path + ": cannot be written: " + f.errorString();
            return false;
        }
        f.write(html.toUtf8());
        return true;
    }
    if (ext == "pdf") {
        QTextDocument doc;
        for (const auto& [name, img] : figs.images) doc.addResource(QTextDocument::ImageResource, QUrl("img://" + name), img);
        doc.setHtml(html);
        QPdfWriter pdf(path);
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
        pdf.setTitle("FogStudio report");
        pdf.setCreator("FogStudio " FOGSTUDIO_VERSION);
        pdf.setResolution(96); // the HTML's pixel sizes are screen pixels
        doc.setPageSize(QSizeF(pdf.width(), pdf.height()));
        keepHeadingsWithNext(doc);
        doc.print(&pdf);
        if (QFileInfo(path).size() == 0) {
            if (error) *error = path + ": the PDF could not be written";
            return false;
        }
        return true;
    }
    if (error) *error = path + ": unknown report format '" + ext + "' (use .html or .pdf)";
    return false;
}

} // namespace fog
