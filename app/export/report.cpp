#include "app/export/report.h"

#include "app/export/topology_figure.h"
#include "core/analysis/analysis.h"
#include "core/scenario/scenario_io.h"
#include "widgets/plots/run_plots.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QPdfWriter>
#include <QTextDocument>
#include "widgets/plots/qcustomplot.h"

#include <cmath>
#include <map>

namespace fog {

namespace {

/// A short name for legends and tables: the swept values, else the (shortened) run name.
QString runLabel(const StoredRun& r) {
    QString name = QString::fromStdString(r.sweepConfig.empty() ? r.name : r.sweepConfig);
    if (name.size() > 44) name = name.left(42) + "...";
    return QString("#%1 %2").arg(r.id).arg(name);
}

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
    for (const auto& n : s.topology.nodes) {
        ++tiers[toString(n.tier)];
        trainers += n.role != Role::Aggregator;
    }
    for (const auto& g : s.topology.groups) {
        tiers[toString(g.tier)] += g.count;
        trainers += g.role != Role::Aggregator ? g.count : 0;
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

QString summaryTable(const std::vector<ReportRun>& runs, double target, const std::vector<std::size_t>& front) {
    QString h = "<table class=\"grid\" width=\"100%\" cellspacing=\"0\"><tr><th>run</th><th>name</th><th>status</th><th>accuracy</th><th>best</th>"
                "<th>rounds</th><th>virtual time (s)</th><th>cost</th><th>energy (J)</th>"
                "<th>time to " + pct(target) + " (s)</th><th>cost to " + pct(target) + "</th><th>Pareto</th></tr>";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& r = runs[i].run;
        const auto reach = reachTarget(runs[i].metrics, target);
        const bool onFront = std::find(front.begin(), front.end(), i) != front.end();
        h += QString("<tr><td>%1</td><td>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td><td>%7</td><td>%8</td>"
                     "<td>%9</td><td>%10</td><td>%11</td><td>%12</td></tr>")
                 .arg(r.id)
                 .arg(runLabel(r).toHtmlEscaped())
                 .arg(esc(r.status))
                 .arg(pct(r.summary.finalTestAccuracy))
                 .arg(pct(r.summary.bestTestAccuracy))
                 .arg(r.summary.rounds)
                 .arg(num(r.summary.virtualTime, 1))
                 .arg(num(r.summary.cost, 4))
                 .arg(num(r.summary.energyJ, 1))
                 .arg(reach ? num(reach->time, 1) : QString("not reached"))
                 .arg(reach ? num(reach->cost, 4) : QString("not reached"))
                 .arg(onFront ? "yes" : "");
    }
    return h + "</table>";
}

QString buildHtml(const std::vector<ReportRun>& runs, const ReportOptions& o, Figures& figs) {
    const bool single = runs.size() == 1;
    QString h = "<html><head><meta charset=\"utf-8\"><title>FogStudio report</title><style>"
                "body{font-family:'DejaVu Sans',sans-serif;font-size:10pt;color:#222;max-width:900px;margin:auto}"
                "h1{font-size:18pt}h2{font-size:13pt;border-bottom:1px solid #ccc;margin-top:18pt}"
                "table.grid{border-collapse:collapse}table.grid td,table.grid th{border:1px solid #bbb;padding:3px 6px;"
                "font-size:9pt}table.kv th{text-align:left;padding-right:12px;vertical-align:top}"
                "pre{background:#f4f4f4;padding:6px;font-size:8pt;white-space:pre-wrap}"
                "</style></head><body>";
    h += single ? "<h1>FogStudio run " + QString::number(runs[0].run.id) + ": " + esc(runs[0].run.name) + "</h1>"
                : QString("<h1>FogStudio comparison of %1 runs</h1>").arg(runs.size());
    h += "<p>Produced by FogStudio " FOGSTUDIO_VERSION " on " +
         QDateTime::currentDateTimeUtc().toString(Qt::ISODate) +
         ". Virtual time, cost and energy are computed by the emulator from the scenario; "
         "loss and accuracy come from real training.</p>";

    std::vector<PlotSeries> series;
    std::vector<TradeOffRun> trade;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const QString label = runLabel(runs[i].run);
        series.push_back({label, seriesColor(static_cast<int>(i)), runs[i].metrics});
        trade.push_back({label, {runs[i].run.summary.virtualTime, runs[i].run.summary.cost,
                                 runs[i].run.summary.finalTestAccuracy}});
    }
    std::vector<TradeOffPoint> pts;
    for (const auto& t : trade) pts.push_back(t.point);
    const auto front = paretoFront(pts);

    h += "<h2>Summary</h2>" + summaryTable(runs, o.target, front);

    // Scenario of a single run (or of the first, for a comparison of one scenario's variants).
    try {
        const Scenario s = loadScenarioText(runs[0].run.scenarioYaml, "run " + std::to_string(runs[0].run.id));
        h += QString("<h2>Scenario%1</h2>").arg(single ? "" : " (of run " + QString::number(runs[0].run.id) + ")");
        h += "<p><b>" + esc(s.name) + "</b></p>" + scenarioSummary(s);
        h += figs.add("topology", topologyFigure(s, 820, 280));
    } catch (const std::exception& e) {
        h += "<p>The stored scenario could not be read: " + esc(e.what()) + "</p>";
    }

    h += "<h2>Accuracy and loss</h2>";
    h += figs.add("accuracy", renderPlot([&](QCustomPlot* p) { plotMetric(p, series, PlotKind::TestAccuracy); }));
    h += figs.add("loss", renderPlot([&](QCustomPlot* p) { plotMetric(p, series, PlotKind::TrainLoss); }));
    h += "<h2>Cost and energy</h2>";
    h += figs.add("cost", renderPlot([&](QCustomPlot* p) { plotMetric(p, series, PlotKind::Cost); }));
    h += figs.add("energy", renderPlot([&](QCustomPlot* p) { plotMetric(p, series, PlotKind::Energy); }));
    if (single) {
        std::vector<QString> names;
        for (const auto& n : runs[0].nodes) names.push_back(QString::fromStdString(n.id));
        if (!runs[0].intervals.empty()) {
            h += "<h2>Node timeline</h2><p>What each node did over virtual time: who computed, who sent, who "
                 "was offline, and so who held each barrier.</p>";
            h += figs.add("timeline", renderPlot([&](QCustomPlot* p) {
                              plotTimeline(p, runs[0].intervals, names, runs[0].run.summary.virtualTime);
                          }, 820, std::clamp(static_cast<int>(names.size()) * 14 + 90, 240, 620)));
        }
    } else {
        h += "<h2>Trade-off</h2><p>Virtual time against cost, coloured by final accuracy; the dashed line is the "
             "time-cost Pareto front. The Pareto column of the summary uses all three criteria.</p>";
        h += figs.add("tradeoff", renderPlot([&](QCustomPlot* p) { plotTradeOff(p, trade); }, 820, 460));
    }

    h += "<h2>Reproduce</h2><p>Every run is stored with its scenario and seed and re-runs exactly:</p><pre>";
    const QString db = o.dbPath.isEmpty() ? QString() : " --db " + o.dbPath;
    for (const auto& r : runs) h += QString("fogstudio-cli runs rerun %1%2\n").arg(r.run.id).arg(db);
    h += "</pre>";
    if (single) h += "<p>The scenario file of this run:</p><pre>" + esc(runs[0].run.scenarioYaml) + "</pre>";
    return h + "</body></html>";
}

} // namespace

std::vector<ReportRun> loadReportRuns(const RunStore& store, const std::vector<std::int64_t>& ids) {
    std::vector<ReportRun> out;
    for (auto id : ids) {
        auto r = store.run(id);
        if (!r) throw StoreError(store.path() + ": no run " + std::to_string(id));
        out.push_back({*r, store.metrics(id), store.intervals(id), store.nodes(id)});
    }
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
