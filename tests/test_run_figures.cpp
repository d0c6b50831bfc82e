// One definition of a run's summary figures (core/analysis/run_figures): the studio's
// comparison table, the HTML report and `fogstudio-cli runs show` print the same final and
// best accuracy, time, cost and energy for stored runs; one Pareto definition; automatic
// run labels by what differs; report headings never end a page.

#include "engine_fixtures.h"

#include "app/export/report.h"
#include "core/analysis/run_figures.h"
#include "core/analysis/run_labels.h"
#include "core/scenario/scenario_io.h"
#include "core/sweep/sweep.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/runs/runs_table_model.h"

#include <QAbstractTextDocumentLayout>
#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextDocument>
#include <QtTest>

using namespace fog;
using namespace fogtest;

namespace {

/// Real (tiny) training whose last round is not an evaluation round: the engine evaluates
/// the final model at the end, so the final accuracy differs from the last evaluated row.
Scenario smallTraining(const std::string& policy) {
    Scenario s = timingStar(3, 50.0, NoiseSpec::Kind::Exponential);
    s.name = "figures";
    s.data.kind = DataSpec::Kind::Synthetic;
    s.data.syntheticIid = true;
    s.data.samplesPerTrainer = 200;
    s.data.maxTestSamples = 300;
    s.model.kind = ModelSpec::Kind::LogReg;
    s.training.batchSize = 16;
    s.training.learningRate = 0.05;
    s.topology.nodes[0].pricePerHour = 3.6;
    s.sync.name = policy;
    if (policy == "n-sync") s.sync.params["n"] = 2;
    // Stopped by virtual time, mid-way between evaluations (volatile-spot-sync stops at 300 s).
    s.stop.rounds = 0;
    s.stop.virtualTimeS = 5.0;
    s.evaluation.everyRounds = 4;
    return s;
}

QString pct(double v) { return QString::number(100 * v, 'f', 2) + "%"; }

} // namespace

class TestRunFigures : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<RunStore> store_;
    std::vector<std::int64_t> ids_;

private Q_SLOTS:
    void initTestCase() {
        store_ = std::make_unique<RunStore>(dir_.filePath("runs.db").toStdString());
        for (const char* policy : {"fully-sync", "n-sync"}) {
            RunSummary summary;
            ids_.push_back(runAndStore(smallTraining(policy), *store_, NewRun{}, 1, nullptr, summary));
            QCOMPARE(summary.status, RunStatus::Finished);
        }
    }

    void finalAccuracyIsTheEndModels() {
        // Run 4 of volatile-spot-sync read 84.55% in the comparison (the last evaluated
        // row) and 84.10% in the report and the CLI (the model the run ended with).
        const auto run = store_->run(ids_[0]);
        const auto metrics = store_->metrics(ids_[0]);
        const RunFigures f = runFigures(run->summary, run->status, metrics);
        QCOMPARE(f.finalAccuracy, run->summary.finalTestAccuracy);
        qInfo("final accuracy %.4f, last evaluated %.4f at round %d of %.0f", f.finalAccuracy, f.lastEvaluatedAccuracy,
              f.lastEvaluatedRound, f.rounds);
        QVERIFY(f.lastEvaluatedRound > 0 && f.lastEvaluatedRound % 4 == 0);
        QVERIFY(f.lastEvaluatedRound < f.rounds); // the end model was evaluated after it
        QVERIFY(f.finalAccuracy != f.lastEvaluatedAccuracy);
        QVERIFY(!std::isnan(f.lastEvaluatedAccuracy));
        QVERIFY(f.bestAccuracy >= f.finalAccuracy && f.bestAccuracy >= f.lastEvaluatedAccuracy);
        QCOMPARE(f.rounds, double(run->summary.rounds));
        QCOMPARE(f.virtualTime, run->summary.virtualTime);
        QCOMPARE(f.meanRoundTime, run->summary.virtualTime / run->summary.rounds);
        // While a run is being written only its rows count.
        const RunFigures live = runFigures(RunSummary{}, "running", metrics);
        QCOMPARE(live.finalAccuracy, f.lastEvaluatedAccuracy);
        QCOMPARE(live.rounds, f.rounds);
    }

    void studioReportAndCliAgree() {
        // The studio's comparison table.
        ComparisonView view;
        view.setStore(store_.get());
        view.setRuns({ids_[0], ids_[1]});
        QTableWidget* table = view.summaryTable();
        // The HTML report.
        const QString html = dir_.filePath("report.html");
        QString error;
        QVERIFY2(writeReport(loadReportRuns(*store_, ids_), html, {}, &error), qPrintable(error));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString report = QString::fromUtf8(f.readAll());
        // The command line (next to the tests in the build tree).
        const QString cli = QCoreApplication::applicationDirPath() + "/../app/fogstudio-cli";
        const bool haveCli = QFileInfo(cli).isExecutable();
        for (int row = 0; row < 2; ++row) {
            const qint64 id = table->item(row, ComparisonView::RunCol)->data(ComparisonView::IdRole).toLongLong();
            const auto run = store_->run(id);
            const RunFigures fig = runFigures(run->summary, run->status, store_->metrics(id));
            const double studioFinal = table->item(row, ComparisonView::FinalAccCol)->data(ComparisonView::ValueRole).toDouble();
            const double studioBest = table->item(row, ComparisonView::BestAccCol)->data(ComparisonView::ValueRole).toDouble();
            QCOMPARE(studioFinal, fig.finalAccuracy);
            QCOMPARE(studioBest, fig.bestAccuracy);
            QCOMPARE(table->item(row, ComparisonView::FinalAccCol)->text(), formatAccuracy(fig.finalAccuracy));
            // The report's figures row: "#id", final, best, ...
            const QString cell = "<td class=\"n\">";
            const QString reportRow = cell + QString("#%1</td>").arg(id) + cell + pct(fig.finalAccuracy) + "</td>" + cell +
                                      pct(fig.bestAccuracy) + "</td>";
            QVERIFY2(report.contains(reportRow), qPrintable(reportRow));
            if (!haveCli) continue;
            QProcess p;
            p.start(cli, {"runs", "show", QString::number(id), "--db", dir_.filePath("runs.db")});
            QVERIFY(p.waitForFinished(30000));
            const QString out = QString::fromUtf8(p.readAllStandardOutput());
            QVERIFY2(out.contains("test accuracy       " + pct(fig.finalAccuracy) + " (best " + pct(fig.bestAccuracy) + ")"),
                     qPrintable(out));
            QVERIFY2(out.contains(QString("rounds              %1").arg(fig.rounds, 0, 'f', 0)), qPrintable(out));
        }
        if (!haveCli) QSKIP("fogstudio-cli is not built next to the tests: the studio and the report agreed");
    }

    void oneParetoDefinition() {
        // A run faster but dearer and one slower but cheaper are both on the front; one worse
        // in both is not, whatever its accuracy.
        std::vector<RunFigures> f(3);
        f[0].virtualTime = 10, f[0].cost = 5, f[0].finalAccuracy = 0.5;
        f[1].virtualTime = 20, f[1].cost = 2, f[1].finalAccuracy = 0.5;
        f[2].virtualTime = 30, f[2].cost = 6, f[2].finalAccuracy = 0.99;
        QCOMPARE(tradeOffFront(f, TradeOffMode::AtEnd), (std::vector<std::size_t>{0, 1}));
        // At the target: only runs that reach it count.
        f[0].timeToTarget = kNaN;
        f[1].timeToTarget = 15, f[1].costToTarget = 1.5;
        f[2].timeToTarget = 12, f[2].costToTarget = 3;
        QCOMPARE(tradeOffFront(f, TradeOffMode::AtTarget), (std::vector<std::size_t>{1, 2}));
        QVERIFY(QString::fromStdString(paretoDefinition(TradeOffMode::AtTarget, 0.8)).contains("80%"));
        // The comparison's Pareto column and its scatter use it, and say so under the table.
        ComparisonView view;
        view.setStore(store_.get());
        view.setRuns({ids_[0], ids_[1]});
        const auto front = tradeOffFront(view.figures(), view.tradeOffMode());
        for (int row = 0; row < 2; ++row) {
            const bool ticked = view.summaryTable()->item(row, ComparisonView::ParetoCol)->data(ComparisonView::ValueRole).toBool();
            QCOMPARE(ticked, std::find(front.begin(), front.end(), std::size_t(row)) != front.end());
        }
        auto* note = view.findChild<QLabel*>("paretoNote");
        QVERIFY(note);
        QVERIFY(note->text().contains("Pareto"));
        QVERIFY(note->text().contains("virtual time and total cost"));
        view.setTradeOffAtTarget(true);
        QVERIFY(note->text().contains("reach"));
    }

    void runsAreLabelledByWhatDiffers() {
        Scenario a = smallTraining("fully-sync"), b = smallTraining("n-sync"), c = smallTraining("n-sync");
        c.sync.params["n"] = 3;
        const auto labels = differingLabels({saveScenarioText(a), saveScenarioText(b), saveScenarioText(c)});
        QCOMPARE(labels.size(), std::size_t(3));
        QCOMPARE(labels[0], std::string("fully-sync")); // not "fully-sync n=default"
        QVERIFY2(QString::fromStdString(labels[1]).contains("n-sync") && QString::fromStdString(labels[1]).contains("n=2"),
                 labels[1].c_str());
        QVERIFY2(QString::fromStdString(labels[2]).contains("n=3"), labels[2].c_str());
        // Identical scenarios: nothing to tell them apart.
        QCOMPARE(differingLabels({saveScenarioText(a), saveScenarioText(a)})[0], std::string());
        // A name the user gave wins; an unnamed run gets what differs.
        const auto named = runLabels({{"my baseline", saveScenarioText(a), "", 0}, {b.name, saveScenarioText(b), "", 0}});
        QCOMPARE(named[0], std::string("my baseline"));
        QVERIFY(QString::fromStdString(named[1]).contains("n-sync"));
        // The studio's comparison uses them.
        ComparisonView view;
        view.setStore(store_.get());
        view.setRuns({ids_[0], ids_[1]});
        QVERIFY2(view.runLabel(ids_[1]).contains("n-sync"), qPrintable(view.runLabel(ids_[1])));
        QVERIFY2(view.runLabel(ids_[0]).contains("fully-sync"), qPrintable(view.runLabel(ids_[0])));
    }

    void reportHeadingsNeverEndAPage() {
        // Headings at every height of a page: none may be left alone at a page's foot.
        QTextDocument doc;
        QString html;
        for (int i = 0; i < 12; ++i) {
            html += QString("<h2>Section %1</h2>").arg(i);
            for (int k = 0; k < (i % 4) + 3; ++k) html += "<p>Some text of a paragraph, long enough to take a line.</p>";
        }
        doc.setHtml(html);
        doc.setPageSize(QSizeF(600, 400));
        keepHeadingsWithNext(doc);
        QAbstractTextDocumentLayout* layout = doc.documentLayout();
        int headings = 0;
        for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
            if (b.blockFormat().headingLevel() == 0 || !b.next().isValid()) continue;
            ++headings;
            const QRectF h = layout->blockBoundingRect(b), n = layout->blockBoundingRect(b.next());
            const int pageOfHeading = int(h.top() / 400), pageOfNext = int(n.bottom() / 400);
            QVERIFY2(pageOfHeading == pageOfNext, qPrintable(b.text()));
        }
        QCOMPARE(headings, 12);
    }
};

QTEST_MAIN(TestRunFigures)
#include "test_run_figures.moc"
