// The studio for a lecture and for a paper (issue 31), the rest of items 9, 10, 12 and 16:
//  9  a lesson of 15 runs (5 configurations x 3 repeats, all stopped at one time limit) is
//     one mean curve per configuration in its 95% band, in distinct colours, with the legend
//     below the axes and the trade-off at the target, in the studio's comparison and in
//     `fogstudio-cli export plots` alike (--tradeoff end|target, --repeats mean|each);
// 10  runs the studio starts are named "title #n", never "untitled"; labels show a sweep's
//     values short and rounded, never raw YAML paths;
// 12  presentation mode (F11) under 1600 px: the docks step aside, the canvas keeps the window;
// 16  exported figures are light, vector (SVG), with bands, normal-size text and axis labels
//     that name their units, whatever the screen's theme and presentation mode.
// The lesson's runs are written into the store directly (metrics of known shape), so the test
// knows what each figure must show; the studio's own runs are timing-only (milliseconds).
// FOG_SHOT_DIR=/some/dir saves the windows the tests look at as PNG files there.

#include "app/export/run_plot_files.h"
#include "app/gui/main_window.h"
#include "app/gui/presentation.h"
#include "app/gui/theme.h"
#include "core/analysis/run_labels.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "widgets/compare/comparison_export.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/document/scenario_document.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"
#include "widgets/plots/live_plots.h"
#include "widgets/run/run_controller.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/runs/runs_table_model.h"
#include "widgets/topology/topology_canvas.h"

#include "engine_fixtures.h"
#include "studio_fixtures.h"

#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <map>
#include <set>

using namespace fog;
using namespace fogtest;

namespace {

void shoot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("FOG_SHOT_DIR");
    if (dir.isEmpty()) return;
    QApplication::processEvents();
    w->grab().save(dir + "/" + name + ".png");
}

bool waitForEnd(RunController* c, int ms = 20000) {
    return QTest::qWaitFor([c] { return !c->isActive() && c->state() != RunController::State::Idle; }, ms);
}

double colourDistance(const QColor& a, const QColor& b) {
    const double dr = a.red() - b.red(), dg = a.green() - b.green(), db = a.blue() - b.blue();
    return std::sqrt(dr * dr + dg * dg + db * db);
}

/// The five configurations of the lesson: a sweep's varied values, as core/sweep writes them
/// (one with a long decimal, as a --vary over a computed value gives).
struct Config {
    const char* text;
    const char* policy;
    double speed; ///< how fast the accuracy rises (per virtual second)
    double price; ///< cost per virtual second
};
const Config kConfigs[] = {
    {"sync.policy=fully-sync", "fully-sync", 0.030, 0.010},
    {"sync.policy=n-sync sync.n=2", "n-sync", 0.036, 0.020},
    {"sync.policy=n-sync sync.n=3", "n-sync", 0.043, 0.030},
    {"sync.policy=n-batch-sync sync.m=4", "n-batch-sync", 0.052, 0.040},
    {"sync.policy=n-batch-sync sync.m=8 training.learning_rate=0.0100000000000002", "n-batch-sync", 0.062, 0.050},
};
constexpr int kRepeats = 3;
constexpr double kLimit = 100.0; // every run stops at this virtual time

/// Stores one run of configuration `c`, repeat `r`: accuracy 0.9 (1 - e^(-speed t)) evaluated
/// every 5 s (the repeats a few percent apart), cost price * t, stopped at kLimit.
qint64 storeLessonRun(RunStore& store, std::int64_t sweep, const Config& c, int repeat) {
    Scenario s = timingStar(4, 10.0, NoiseSpec::Kind::Exponential);
    s.name = "Stragglers";
    s.sync.name = c.policy;
    s.stop.rounds = 0;
    s.stop.virtualTimeS = kLimit;
    s.seed = 11 + static_cast<std::uint64_t>(repeat);
    NewRun meta;
    meta.name = s.name + " [" + c.text + "] #" + std::to_string(repeat);
    meta.scenarioYaml = saveScenarioText(s);
    meta.seed = s.seed;
    meta.sweepId = sweep;
    meta.repeat = repeat;
    meta.sweepConfig = c.text;
    const std::int64_t id = store.beginRun(meta);
    const double speed = c.speed * (1.0 + 0.04 * (repeat - 1));
    std::vector<AggregationRecord> rows;
    int round = 0;
    for (double t = 5; t <= kLimit + 1e-9; t += 5) {
        AggregationRecord a;
        a.round = ++round;
        a.time = t;
        a.trainLoss = std::exp(-speed * t);
        a.testLoss = a.trainLoss;
        a.testAccuracy = 0.9 * (1 - std::exp(-speed * t));
        a.cost = c.price * t;
        rows.push_back(a);
    }
    store.appendMetrics(id, rows);
    RunSummary summary;
    summary.stopReason = "virtual time limit";
    summary.rounds = round;
    summary.aggregations = round;
    summary.virtualTime = kLimit;
    summary.cost = c.price * kLimit;
    summary.finalTestAccuracy = rows.back().testAccuracy;
    summary.bestTestAccuracy = rows.back().testAccuracy;
    summary.finalTrainLoss = rows.back().trainLoss;
    store.finishRun(id, summary);
    return id;
}

QList<qint64> storeLesson(RunStore& store, std::int64_t* sweepOut = nullptr) {
    const std::int64_t sweep = store.createSweep("Lesson 1: stragglers", "");
    if (sweepOut) *sweepOut = sweep;
    QList<qint64> ids;
    for (const Config& c : kConfigs)
        for (int r = 0; r < kRepeats; ++r) ids << storeLessonRun(store, sweep, c, r);
    return ids;
}

std::vector<RunWithMetrics> readRuns(RunStore& store, const QList<qint64>& ids) {
    std::vector<RunWithMetrics> out;
    for (qint64 id : ids) out.push_back({*store.run(id), store.metrics(id)});
    return out;
}

/// What one figure shows: its mean curves (name, colour) and bands.
struct Curves {
    QStringList names;
    std::vector<QColor> colours;
    int bands = 0;       ///< filled band graphs
    int plainRuns = 0;   ///< curves that are neither a mean nor a band
};

Curves curvesOf(const QCustomPlot* p) {
    Curves c;
    for (int g = 0; g < p->graphCount(); ++g) {
        const QCPGraph* graph = p->graph(g);
        if (graph->dataCount() == 0) continue;
        if (graph->property("fogBand").toBool()) {
            c.bands += graph->brush().style() != Qt::NoBrush;
            continue;
        }
        if (isRawGraph(graph) || graph->pen().style() == Qt::NoPen) continue;
        if (graph->property("fogGroup").isValid()) {
            c.names << graph->name();
            c.colours.push_back(graph->pen().color());
        } else {
            ++c.plainRuns;
            c.colours.push_back(graph->pen().color());
        }
    }
    return c;
}

void verifyDistinct(const std::vector<QColor>& colours) {
    for (std::size_t a = 0; a < colours.size(); ++a)
        for (std::size_t b = a + 1; b < colours.size(); ++b)
            QVERIFY2(colourDistance(colours[a], colours[b]) > 40,
                     qPrintable(QString("curves %1 and %2 share a colour (%3, %4)")
                                    .arg(a + 1).arg(b + 1).arg(colours[a].name(), colours[b].name())));
}

/// The trade-off's points (graphs with a run index and a point) and its visible labels.
std::vector<QPointF> tradeOffPoints(const QCustomPlot* p) {
    std::vector<QPointF> out;
    for (int g = 0; g < p->graphCount(); ++g)
        if (p->graph(g)->property("runIndex").isValid() && !p->graph(g)->data()->isEmpty())
            out.emplace_back(p->graph(g)->data()->constBegin()->key, p->graph(g)->data()->constBegin()->value);
    return out;
}

void verifyLabelsApart(QCustomPlot* p) {
    p->replot();
    const QRect area = p->axisRect()->rect();
    std::vector<QRectF> boxes;
    for (int i = 0; i < p->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->visible()) {
            const QRectF box(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
            QVERIFY2(QRectF(area).adjusted(-1, -1, 1, 1).contains(box), qPrintable(t->text() + " is cut at the edge"));
            boxes.push_back(box);
        }
    for (std::size_t a = 0; a < boxes.size(); ++a)
        for (std::size_t b = a + 1; b < boxes.size(); ++b) {
            const QRectF x = boxes[a].intersected(boxes[b]);
            QVERIFY2(x.isEmpty() || x.height() <= 3 || x.width() <= 3,
                     qPrintable(QString("trade-off labels %1 and %2 overlap").arg(a + 1).arg(b + 1)));
        }
}

/// Every visible axis of `p` is labelled, and a cost axis names its unit.
void verifyAxisLabels(QCustomPlot* p, const QString& figure) {
    for (QCPAxis* a : {p->xAxis, p->yAxis}) {
        const QString label = a->property("fogFullLabel").toString().isEmpty() ? a->label()
                                                                                 : a->property("fogFullLabel").toString();
        QVERIFY2(!label.trimmed().isEmpty(), qPrintable(figure + ": an axis without a label"));
        if (label.contains("cost")) QVERIFY2(label.contains("(currency)"), qPrintable(figure + ": '" + label + "'"));
    }
}

/// Workers of 10 samples/s doing 20 samples a round over fast links: a timing-only run of
/// six rounds, milliseconds long.
Scenario computeBoundStar() {
    Scenario s = timingStar(4, 10.0, NoiseSpec::Kind::Exponential);
    s.sync.name = "fully-sync";
    s.sync.params.clear();
    s.training.localSteps = 20;
    s.model.wireBytes = 1e4;
    s.stop.rounds = 6;
    return s;
}

} // namespace

class TestStudioItems : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    int dbCount_ = 0;
    QString db_;

    StudioOptions options() const {
        StudioOptions o;
        o.dbPath = db_;
        o.threads = 1;
        return o;
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();
        QVERIFY(dir_.isValid());
    }
    void init() { db_ = dir_.filePath(QStringLiteral("runs-%1.db").arg(++dbCount_)); }
    void cleanup() {
        if (presentationOn()) setPresentation(nullptr, false);
        QSettings().remove("theme");
        applyTheme(Theme::Light);
    }

    // ---- 9: a lesson of 15 runs, in the studio and in `export plots` ----------------------

    void lessonOfFifteenRunsIsOneBandPerConfiguration() {
        RunStore store(db_.toStdString());
        std::int64_t sweep = 0;
        const QList<qint64> ids = storeLesson(store, &sweep);
        QCOMPARE(ids.size(), 15);

        // The studio's comparison.
        ComparisonView view;
        view.setStore(&store);
        view.resize(1240, 700);
        view.setRuns(ids);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.grouped());
        QVERIFY(view.tradeOffMode() == TradeOffMode::AtTarget); // all stopped at 100 s
        const Curves studio = curvesOf(view.curvePlot(PlotKind::TestAccuracy));
        QCOMPARE(studio.names.size(), 5);
        QCOMPARE(studio.plainRuns, 0);
        QCOMPARE(studio.bands, 5);
        verifyDistinct(studio.colours);
        QVERIFY(legendIsBelow(view.curvePlot(PlotKind::TestAccuracy)));
        QCOMPARE(int(tradeOffPoints(view.tradeOffPlot()).size()), 5);
        verifyLabelsApart(view.tradeOffPlot());
        shoot(&view, "lesson15-comparison");

        // In the window at 1280x720 (a projector): every plot of the comparison whole, so no
        // axis label is cut, and the trade-off's labels apart.
        {
            MainWindow w(options());
            w.resize(1280, 720);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.compareRuns(ids);
            QTest::qWait(300);
            shoot(&w, "lesson15-window");
            int whole = 0;
            for (QCustomPlot* p : w.comparison()->findChildren<QCustomPlot*>()) {
                if (!p->isVisible()) continue;
                const QRect seen = p->visibleRegion().boundingRect();
                QVERIFY2(seen == p->rect(), qPrintable(QString("a plot (%1) is cut: %2x%3 of %4x%5 shown")
                                                             .arg(p->xAxis->label())
                                                             .arg(seen.width()).arg(seen.height())
                                                             .arg(p->width()).arg(p->height())));
                ++whole;
            }
            QVERIFY(whole >= 4);
            verifyLabelsApart(w.comparison()->tradeOffPlot());
        }

        // `export plots`: the same drawing, figure by figure.
        auto draw = [&](const RunPlotOptions& o, std::map<QString, Curves>& curves, std::map<QString, QString>& xLabels,
                        std::vector<QPointF>& points, QString& title) {
            QCustomPlot plot;
            plot.resize(900, 500);
            plot.show();
            QVERIFY(QTest::qWaitForWindowExposed(&plot));
            const auto runs = readRuns(store, ids);
            const bool ok = drawRunPlots(plot, runs, store, o, [&](const QString& name, int w, int h) {
                plot.resize(w, h);
                QApplication::processEvents();
                plot.replot();
                curves[name] = curvesOf(&plot);
                xLabels[name] = plot.xAxis->property("fogFullLabel").toString().isEmpty()
                                    ? plot.xAxis->label()
                                    : plot.xAxis->property("fogFullLabel").toString();
                if (name != "tradeoff") {
                    if (!legendIsBelow(&plot)) return false;
                } else {
                    points = tradeOffPoints(&plot);
                    verifyLabelsApart(&plot);
                    for (int i = 0; i < plot.plotLayout()->elementCount(); ++i)
                        if (auto* t = qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i))) title = t->text();
                }
                verifyAxisLabels(&plot, name);
                return true;
            });
            QVERIFY2(ok, "a figure's legend lies over its curves");
        };
        std::map<QString, Curves> curves;
        std::map<QString, QString> xLabels;
        std::vector<QPointF> points;
        QString title;
        draw(RunPlotOptions{}, curves, xLabels, points, title);
        QVERIFY(curves.count("accuracy") && curves.count("tradeoff") && curves.count("cost"));
        const Curves& cli = curves["accuracy"];
        QCOMPARE(cli.names, studio.names); // the same configurations, named alike
        QCOMPARE(cli.bands, 5);
        QCOMPARE(cli.plainRuns, 0);
        for (std::size_t i = 0; i < cli.colours.size(); ++i) QCOMPARE(cli.colours[i], studio.colours[i]);
        QVERIFY2(cli.names.filter("n-sync n=2 (3)").size() == 1, qPrintable(cli.names.join(" | ")));
        QVERIFY2(cli.names.filter("n-batch-sync m=8 learning_rate=0.01 (3)").size() == 1,
                 qPrintable(cli.names.join(" | ")));
        // The trade-off at the target: the configurations apart in time (the totals are all 100 s).
        QCOMPARE(int(points.size()), 5);
        std::set<double> times;
        for (const QPointF& p : points) times.insert(std::round(p.x()));
        QCOMPARE(int(times.size()), 5);
        QVERIFY2(xLabels["tradeoff"].contains("to 80 %"), qPrintable(xLabels["tradeoff"]));
        QVERIFY2(title.contains("Time and cost to reach 80 %") && title.contains("95% CI"), qPrintable(title));

        // --tradeoff end: the totals, as asked, and the title says why they are alike.
        RunPlotOptions end;
        end.tradeOff = RunPlotOptions::TradeOff::End;
        draw(end, curves, xLabels, points, title);
        QCOMPARE(xLabels["tradeoff"], QString("virtual time (s)"));
        for (const QPointF& p : points) QCOMPARE(p.x(), kLimit);
        QVERIFY2(title.contains("one time limit"), qPrintable(title));
        // --repeats each: fifteen curves in fifteen colours.
        RunPlotOptions each;
        each.meanOfRepeats = false;
        draw(each, curves, xLabels, points, title);
        QCOMPARE(curves["accuracy"].plainRuns, 15);
        QCOMPARE(curves["accuracy"].bands, 0);
        verifyDistinct(curves["accuracy"].colours);

        // The command itself: its options, and files written.
        const QString out = dir_.filePath("plots-9");
        QProcess cli2;
        cli2.start(FOG_CLI, {"export", "plots", "--db", db_, "--sweep", QString::number(sweep), "--format", "svg",
                             "--out", out});
        QVERIFY(cli2.waitForFinished(120000));
        QVERIFY2(cli2.exitCode() == 0, cli2.readAllStandardError().constData());
        for (const char* name : {"accuracy", "loss", "cost", "energy", "tradeoff"})
            QVERIFY2(QFile::exists(out + "/" + name + ".svg"), name);
        QProcess bad;
        bad.start(FOG_CLI, {"export", "plots", "--db", db_, "--sweep", QString::number(sweep), "--tradeoff", "sideways",
                            "--out", out});
        QVERIFY(bad.waitForFinished(60000));
        QCOMPARE(bad.exitCode(), 2);
        QVERIFY(QString::fromUtf8(bad.readAllStandardError()).contains("--tradeoff takes end"));
    }

    // ---- 10: run names and labels ----------------------------------------------------

    void runsAreNamedAndLabelledReadably() {
        {
            MainWindow w(options());
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            Scenario s = timingStar(3, 10.0, NoiseSpec::Kind::None);
            s.name = "untitled"; // File > New's scenario
            s.stop.rounds = 2;
            w.document()->setScenario(s);
            for (int k = 0; k < 2; ++k) {
                w.startRun();
                QVERIFY(waitForEnd(w.controller()));
            }
            // Saved as a file of its own: its runs take the file's name.
            QString error;
            QVERIFY2(w.document()->saveAs(dir_.filePath("my-star.yaml"), &error), qPrintable(error));
            w.startRun();
            QVERIFY(waitForEnd(w.controller()));
            Scenario named = s;
            named.name = "Stragglers";
            w.document()->setScenario(named);
            w.startRun();
            QVERIFY(waitForEnd(w.controller()));
            QTest::qWait(100);
            QStringList names;
            for (const auto& r : w.store()->listRuns()) names.prepend(QString::fromStdString(r.name)); // oldest first
            QCOMPARE(names, QStringList({"scenario #1", "scenario #2", "my-star #1", "Stragglers #1"}));
        }
        // Labels: what differs, a sweep's values short and rounded; never YAML paths.
        RunStore store(db_.toStdString());
        std::vector<RunLabelInput> input;
        for (const auto& r : store.listRuns()) input.insert(input.begin(), {r.name, r.scenarioYaml, r.sweepConfig, r.repeat, r.sweepId});
        for (const auto& l : runLabels(input)) QVERIFY2(l.find("untitled") == std::string::npos, l.c_str());
        const QList<qint64> lesson = storeLesson(store);
        ComparisonView view;
        view.setStore(&store);
        view.setRuns(lesson);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QStringList labels;
        for (qint64 id : lesson) labels << view.runLabel(id);
        for (const QString& l : labels) {
            QVERIFY2(!l.contains("sync.policy=") && !l.contains("sync.n=") && !l.contains("0.0100000"), qPrintable(l));
            QVERIFY2(l.size() <= 48, qPrintable(l));
        }
        QVERIFY2(labels.filter("n-batch-sync m=8 learning_rate=0.01 r2").size() == 1, qPrintable(labels.join(" | ")));
        QVERIFY2(labels.filter(QRegularExpression("^#\\d+ fully-sync r0$")).size() == 1, qPrintable(labels.join(" | ")));
        // The configuration rows of the table and the trade-off's points read the same way.
        QStringList rows;
        for (int r = 0; r < view.summaryTable()->rowCount(); ++r) rows << view.summaryTable()->item(r, 0)->text();
        QVERIFY2(rows.filter(QString::fromUtf8("n-sync n=3 · mean ± 95% CI")).size() == 1, qPrintable(rows.join(" | ")));
        // The runs dock's sweep column too.
        RunsBrowser browser;
        browser.setStore(&store);
        browser.refresh();
        QAbstractItemModel* m = browser.view()->model();
        QStringList sweeps;
        for (int row = 0; row < m->rowCount(); ++row)
            sweeps << m->index(row, RunsTableModel::Sweep).data().toString();
        QVERIFY2(sweeps.filter("sync.").isEmpty(), qPrintable(sweeps.join(" | ")));
        QCOMPARE(sweeps.filter("n-batch-sync m=8 learning_rate=0.01 r").size(), 3);
        // Studio-named runs of one scenario are told apart by what differs, not by "#n".
        Scenario a = timingStar(3, 10.0, NoiseSpec::Kind::None);
        a.name = "untitled";
        a.sync.name = "fully-sync";
        a.sync.params.clear();
        Scenario b = a;
        b.sync.name = "n-sync";
        b.sync.params["n"] = 2;
        const auto two = runLabels({{"scenario #3", saveScenarioText(a), "", 0, 0}, {"scenario #4", saveScenarioText(b), "", 0, 0}});
        QCOMPARE(QString::fromStdString(two[0]), QString("fully-sync"));
        QVERIFY2(QString::fromStdString(two[1]).startsWith("n-sync"), two[1].c_str());
        // A name the user gave stays.
        QCOMPARE(runLabels({{"my baseline", saveScenarioText(a), "", 0, 0}})[0], std::string("my baseline"));
    }

    // ---- 12: presentation mode at 1280x720 -----------------------------------------------

    void presentationLeavesTheCanvasTheWindow() {
        MainWindow w(options());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.activateWindow();
        QTest::qWait(100);
        QWidget* centre = w.centralWidget();
        QVERIFY(centre);
        QSet<QString> shownBefore;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            if (d->isVisible()) shownBefore << d->objectName();
        QVERIFY(shownBefore.contains("sideDock") && shownBefore.contains("paletteDock"));
        const int canvasBefore = w.canvas()->width();
        // F11, the one key.
        QTest::keyClick(&w, Qt::Key_F11);
        QTest::qWait(100);
        if (!w.presentationMode()) w.action("actionPresentation")->trigger(); // no key focus offscreen
        QVERIFY(w.presentationMode());
        QCOMPARE(w.action("actionPresentation")->shortcut(), QKeySequence(Qt::Key_F11));
        QTest::qWait(200);
        shoot(&w, "presentation-1280");
        const QRect canvasRect(centre->mapTo(&w, QPoint(0, 0)), centre->size());
        for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
            if (!d->isVisible()) continue;
            const QRect r(d->mapTo(&w, QPoint(0, 0)), d->size());
            QVERIFY2(!r.intersects(canvasRect), qPrintable(d->objectName() + " covers the canvas"));
        }
        QVERIFY2(centre->width() >= 0.9 * w.width(),
                 qPrintable(QString("the canvas has %1 of %2 px").arg(centre->width()).arg(w.width())));
        QVERIFY(w.canvas()->width() > canvasBefore);
        // The live plots are tall enough for their larger text: no axis label cut short.
        w.document()->setScenario(computeBoundStar());
        w.startRun();
        QVERIFY(waitForEnd(w.controller()));
        QTest::qWait(200);
        int labelled = 0;
        for (QCustomPlot* p : w.livePlots()->findChildren<QCustomPlot*>()) {
            p->replot();
            QApplication::processEvents();
            for (QCPAxis* a : {p->xAxis, p->yAxis}) {
                if (a->label().isEmpty()) continue;
                QVERIFY2(!a->label().contains(QString::fromUtf8("…")), qPrintable("'" + a->label() + "' is cut"));
                ++labelled;
            }
        }
        QVERIFY(labelled >= 8);
        // Off again: every dock as it was.
        w.action("actionPresentation")->trigger();
        QTest::qWait(100);
        QVERIFY(!w.presentationMode());
        QSet<QString> shownAfter;
        for (QDockWidget* d : w.findChildren<QDockWidget*>())
            if (d->isVisible()) shownAfter << d->objectName();
        QStringList after(shownAfter.begin(), shownAfter.end()), before(shownBefore.begin(), shownBefore.end());
        after.sort();
        before.sort();
        QCOMPARE(after, before);
        // A wide screen keeps its docks while presenting.
        w.resize(1900, 1000);
        QTest::qWait(100);
        w.action("actionPresentation")->trigger();
        QTest::qWait(100);
        if (w.width() >= 1600) QVERIFY(w.findChild<QDockWidget*>("sideDock")->isVisible());
        w.action("actionPresentation")->trigger();
    }

    // ---- 16: publication exports ----------------------------------------------------------

    void exportsArePublicationReadyWhateverTheScreen() {
        QSettings().setValue("theme", "dark");
        MainWindow w(options());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QList<qint64> ids = storeLesson(*w.store());
        w.compareRuns(ids);
        w.action("actionPresentation")->trigger();
        QVERIFY(w.presentationMode());
        QTest::qWait(100);
        const double normal = presentationBaseFont().pointSizeF();
        QVERIFY(QApplication::font().pointSizeF() > 1.2 * normal); // the screen's text is larger
        // What Export Plots writes: SVG (vector) and PNG, light.
        for (const QString format : {"svg", "png"}) {
            const QString out = dir_.filePath("export-16-" + format);
            QVERIFY(QDir().mkpath(out));
            QSignalSpy done(&w, &MainWindow::plotsExported);
            w.exportPlotsTo(ids, out, format);
            QVERIFY(done.wait(60000));
            const QStringList files = done.first().first().toStringList();
            QVERIFY(files.size() >= 4);
            for (const QString& f : files) {
                if (format == "svg") {
                    QFile svg(f);
                    QVERIFY(svg.open(QIODevice::ReadOnly));
                    const QByteArray text = svg.readAll();
                    // Curves, bands, points and text as vectors; only the trade-off's colour scale,
                    // a gradient, is an image.
                    QVERIFY2(text.contains("<path") || text.contains("<polyline"), qPrintable(f + " is not drawn in vectors"));
                    QVERIFY2(text.count("<image") <= (f.endsWith("tradeoff.svg") ? 1 : 0), qPrintable(f + " holds images"));
                    QVERIFY(text.contains("<text"));
                } else {
                    const QImage img(f);
                    QVERIFY(!img.isNull());
                    QCOMPARE(img.pixelColor(3, 3), QColor(Qt::white));
                    QCOMPARE(img.pixelColor(img.width() - 3, 3), QColor(Qt::white));
                }
            }
        }
        // The comparison that draws them: light, the screen's normal text size, bands, units.
        ComparisonPlotExport job(*w.comparison(), ids, dir_.path(), "png", 900, 600, presentationBaseFont());
        const ComparisonView& v = job.view();
        QVERIFY(v.grouped());
        for (const auto& [stem, plot] : v.plots()) {
            QCOMPARE(plot->palette().color(QPalette::Base), QColor(Qt::white));
            QCOMPARE(plot->xAxis->tickLabelFont().pointSizeF(), normal);
            QCOMPARE(plot->yAxis->labelFont().pointSizeF(), normal);
            plot->resize(900, 600);
            plot->replot();
            verifyAxisLabels(plot, stem);
            for (QCPAxis* a : {plot->xAxis, plot->yAxis}) {
                const int room = a->orientation() == Qt::Vertical ? 600 - 80 : 900 - 120;
                QVERIFY2(QFontMetrics(a->labelFont()).horizontalAdvance(a->label()) <= room,
                         qPrintable(stem + ": '" + a->label() + "' is longer than its axis"));
            }
        }
        const Curves acc = curvesOf(v.curvePlot(PlotKind::TestAccuracy));
        QCOMPARE(acc.bands, 5);
        verifyDistinct(acc.colours);
        // The node timeline of a single run's export names its y axis too.
        QCustomPlot timeline;
        plotTimeline(&timeline, {}, {"server", "w-0"}, 10);
        QCOMPARE(timeline.yAxis->label(), QString("node"));
    }
};

QTEST_MAIN(TestStudioItems)
#include "test_studio_items.moc"
