// Plots and reports are produced offscreen, in every format, and are not empty.

#include "engine_fixtures.h"

#include "widgets/figures/plot_export.h"
#include "app/export/report.h"
#include "core/sweep/sweep.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

using namespace fog;
using namespace fogtest;

class TestExport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<RunStore> store_;
    std::vector<std::int64_t> ids_;

    QString path(const QString& name) const { return dir_.path() + "/" + name; }

private Q_SLOTS:
    void initTestCase() {
        store_ = std::make_unique<RunStore>(path("runs.db").toStdString());
        for (const char* policy : {"fully-sync", "n-sync"}) {
            Scenario s = timingStar(5, 2.0, NoiseSpec::Kind::Exponential);
            s.topology.nodes[0].pricePerHour = 3.6;
            s.topology.group(0).availability.kind = AvailabilitySpec::Kind::Markov;
            s.topology.group(0).availability.meanUpS = 20;
            s.topology.group(0).availability.meanDownS = 5;
            s.sync.name = policy;
            s.stop.rounds = 40;
            NewRun meta;
            meta.name = std::string("timing ") + policy;
            RunSummary summary;
            ids_.push_back(runAndStore(s, *store_, meta, 1, nullptr, summary));
            QCOMPARE(summary.status, RunStatus::Finished);
        }
    }

    void plotsInEveryFormat_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("png") << "cost.png";
        QTest::newRow("svg") << "cost.svg";
        QTest::newRow("pdf") << "cost.pdf";
    }
    void plotsInEveryFormat() {
        QFETCH(QString, file);
        std::vector<PlotSeries> series;
        for (auto id : ids_) series.push_back({QString::number(id), seriesColor(int(id)), store_->metrics(id)});
        QCustomPlot plot;
        plotMetric(&plot, series, PlotKind::Cost);
        QCOMPARE(plot.graphCount(), 2);
        QVERIFY(plot.graph(0)->dataCount() == 40);
        QString error;
        QVERIFY2(savePlot(&plot, path(file), 800, 450, &error), qPrintable(error));
        QVERIFY(QFileInfo(path(file)).size() > 1000);
        QFile f(path(file));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray head = f.read(8);
        if (file.endsWith("png")) QVERIFY(head.startsWith("\x89PNG"));
        if (file.endsWith("pdf")) QVERIFY(head.startsWith("%PDF"));
        if (file.endsWith("svg")) QVERIFY(f.readAll().contains("<svg"));
    }

    void unknownPlotFormatIsAnError() {
        QCustomPlot plot;
        QString error;
        QVERIFY(!savePlot(&plot, path("x.bmpx"), 100, 100, &error));
        QVERIFY(error.contains("unknown plot format"));
    }

    void tradeOffAndTimeline() {
        QCustomPlot plot;
        std::vector<TradeOffRun> runs;
        for (auto id : ids_) {
            const auto r = store_->run(id);
            TradeOffRun run;
            run.label = QString::number(id);
            run.point = {r->summary.virtualTime, r->summary.cost, 0.5};
            runs.push_back(run);
        }
        plotTradeOff(&plot, runs);
        QCOMPARE(plot.graphCount(), 3); // the front plus one graph per run
        std::vector<QString> names;
        for (const auto& n : store_->nodes(ids_[0])) names.push_back(QString::fromStdString(n.id));
        plotTimeline(&plot, store_->intervals(ids_[0]), names, store_->run(ids_[0])->summary.virtualTime);
        QCOMPARE(plot.plottableCount(), 6); // the colour map and five legend keys
    }

    void reports_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("comparison");
        QTest::newRow("one run, pdf") << "one.pdf" << false;
        QTest::newRow("one run, html") << "one.html" << false;
        QTest::newRow("comparison, pdf") << "both.pdf" << true;
        QTest::newRow("comparison, html") << "both.html" << true;
    }
    void reports() {
        QFETCH(QString, file);
        QFETCH(bool, comparison);
        std::vector<std::int64_t> ids = {ids_[0]};
        if (comparison) ids = ids_;
        QString error;
        QVERIFY2(writeReport(loadReportRuns(*store_, ids), path(file), {}, &error), qPrintable(error));
        QFile f(path(file));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray content = f.readAll();
        QVERIFY(content.size() > 20000); // figures included
        if (file.endsWith("pdf")) {
            QVERIFY(content.startsWith("%PDF"));
            QVERIFY(content.contains("/Type /Page"));
        } else {
            QVERIFY(content.contains("runs rerun " + QByteArray::number(qint64(ids_[0]))));
            QVERIFY(content.contains("data:image/png;base64,"));
            QCOMPARE(content.contains("Trade-off"), comparison);
        }
    }
};

QTEST_MAIN(TestExport)
#include "test_export.moc"
