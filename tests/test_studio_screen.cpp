// What a user sees of the studio at 1280x720, in light and dark (issue 31's remaining items
// and issue 25's figures): every control of the Training tab reachable and readable, plot
// legends that cover neither each other nor the curves, canvas text enlarged in presentation
// mode, one trade-off point per configuration, a report whose figures each have a heading and
// the command that draws them again, and the privacy and bytes-per-round figures in the
// comparison and the exports. Offscreen: geometry, text widths and pixels, not timing.
// FOG_SHOT_DIR=/some/dir saves the windows the tests look at as PNG files there.

#include "app/export/report.h"
#include "app/gui/main_window.h"
#include "app/gui/presets.h"
#include "app/gui/theme.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "widgets/compare/comparison_export.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/document/scenario_document.h"
#include "widgets/figures/learning_plots.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"
#include "widgets/plots/live_plots.h"
#include "widgets/policy/settings_panel.h"
#include "widgets/run/run_controller.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include "engine_fixtures.h"
#include "studio_fixtures.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QRegularExpression>
#include <QTabWidget>
#include <QToolButton>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace fog;
using namespace fogtest;

namespace {

/// Saves `w` as FOG_SHOT_DIR/name.png when that variable is set (for looking at it).
void shoot(QWidget* w, const QString& name) {
    const QString dir = qEnvironmentVariable("FOG_SHOT_DIR");
    if (dir.isEmpty()) return;
    QApplication::processEvents();
    w->grab().save(dir + "/" + name + ".png");
}

/// Scrolls `area` so that the whole of `w` shows, as a user scrolling to it sees it
/// (ensureWidgetVisible shows only a spin box's cursor).
void scrollTo(QScrollArea* area, QWidget* w) {
    QApplication::processEvents();
    const QPoint at = w->mapTo(area->widget(), QPoint(0, 0));
    QScrollBar* v = area->verticalScrollBar();
    const int view = area->viewport()->height();
    if (at.y() < v->value()) v->setValue(at.y());
    else if (at.y() + w->height() > v->value() + view) v->setValue(at.y() + w->height() - view);
    QApplication::processEvents();
}

bool waitForEnd(RunController* c, int ms = 20000) {
    return QTest::qWaitFor([c] { return !c->isActive() && c->state() != RunController::State::Idle; }, ms);
}

/// The page of `tabs` named `title` (made current).
QWidget* showTab(QTabWidget* tabs, const QString& title) {
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i) == title) {
            tabs->setCurrentIndex(i);
            return tabs->widget(i);
        }
    return nullptr;
}

} // namespace

class TestStudioScreen : public QObject {
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
        QSettings().remove("theme");
        applyTheme(Theme::Light);
    }

    // ---- the Training tab at 1280x720 ------------------------------------------------

    void trainingTabIsReadableAt1280x720_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void trainingTabIsReadableAt1280x720() {
        QFETCH(bool, dark);
        QSettings().setValue("theme", dark ? "dark" : "light"); // the window applies it
        MainWindow w(options());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openPreset(presetsDirectory() + "/quickstart.yaml"));
        auto* side = w.findChild<QTabWidget*>("sideTabs");
        QVERIFY(side);
        QWidget* page = showTab(side, "Training");
        QVERIFY(page);
        QTest::qWait(100);
        shoot(&w, QString("training-%1").arg(dark ? "dark" : "light"));
        SettingsPanel* panel = w.settingsPanel();
        QVERIFY(panel->isVisible());
        auto* scroll = panel->findChild<QScrollArea*>();
        QVERIFY(scroll);
        // Nothing lies off to the side: the page is as wide as the dock gives it.
        QCOMPARE(scroll->horizontalScrollBar()->maximum(), 0);
        const QRect view = scroll->viewport()->rect();
        int editors = 0;
        for (QWidget* e : panel->findChildren<QWidget*>()) {
            const bool editor = qobject_cast<QAbstractSpinBox*>(e) || qobject_cast<QComboBox*>(e) ||
                                qobject_cast<QCheckBox*>(e) ||
                                (qobject_cast<QLineEdit*>(e) && !qobject_cast<QAbstractSpinBox*>(e->parentWidget()));
            if (!editor || !e->isVisibleTo(panel)) continue;
            // Reachable: scrolled to, it is whole inside the page.
            scrollTo(scroll, e);
            const QRect r(e->mapTo(scroll->viewport(), QPoint(0, 0)), e->size());
            QVERIFY2(view.contains(r), qPrintable(QString("%1 at %2,%3 %4x%5 lies outside the page %6x%7")
                                                      .arg(e->objectName()).arg(r.x()).arg(r.y()).arg(r.width())
                                                      .arg(r.height()).arg(view.width()).arg(view.height())));
            // Readable: as wide as its content needs (a spin box's value and unit, a list's longest entry).
            QVERIFY2(e->width() >= e->minimumSizeHint().width(),
                     qPrintable(QString("%1 is %2 px wide, needs %3").arg(e->objectName()).arg(e->width())
                                    .arg(e->minimumSizeHint().width())));
            if (auto* sb = qobject_cast<QAbstractSpinBox*>(e)) {
                const QLineEdit* le = sb->findChild<QLineEdit*>();
                QVERIFY(le);
                QVERIFY2(le->fontMetrics().horizontalAdvance(le->text()) <= le->width() - 4,
                         qPrintable(QString("'%1' is cut in %2").arg(le->text(), e->objectName())));
            }
            // Its label whole and beside or above it, not under it.
            const auto* form = qobject_cast<QFormLayout*>(e->parentWidget()->parentWidget()->layout());
            if (form) {
                if (auto* label = qobject_cast<QLabel*>(form->labelForField(e->parentWidget()))) {
                    QVERIFY2(label->width() >= label->sizeHint().width(),
                             qPrintable(QString("label '%1' is cut").arg(label->text())));
                    const QRect lr(label->mapTo(scroll->viewport(), QPoint(0, 0)), label->size());
                    QVERIFY2(view.contains(lr), qPrintable(label->text() + " lies outside the page"));
                    QVERIFY2(!lr.intersects(r), qPrintable(label->text() + " lies under its field"));
                }
            }
            ++editors;
        }
        QVERIFY2(editors >= 30, qPrintable(QString("%1 editors").arg(editors)));
        for (QGroupBox* g : panel->findChildren<QGroupBox*>())
            QVERIFY2(g->width() >= g->fontMetrics().horizontalAdvance(g->title()) + 10, qPrintable(g->title()));
    }

    // ---- legends of the live plots -----------------------------------------------------

    void liveLegendsCoverNothing_data() {
        QTest::addColumn<bool>("dark");
        QTest::newRow("light") << false;
        QTest::newRow("dark") << true;
    }
    void liveLegendsCoverNothing() {
        QFETCH(bool, dark);
        QSettings().setValue("theme", dark ? "dark" : "light");
        MainWindow w(options());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Exponential steps, bytes on the wire: a measured curve, an expected round time and
        // the megabytes of each round share the round-time plot's legend.
        Scenario s = timingStar(4, 10.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        s.training.localSteps = 20;
        s.model.wireBytes = 2e5;
        s.topology.nodes[1].link = LinkParams{100.0, 100.0, 1.0, 0.0};
        s.stop.rounds = 12;
        w.document()->setScenario(s);
        w.startRun();
        QVERIFY(waitForEnd(w.controller()));
        QVERIFY(QTest::qWaitFor([&] { return !w.livePlots()->estimating(); }, 60000));
        QTest::qWait(200);
        shoot(&w, QString("live-legends-%1").arg(dark ? "dark" : "light"));
        QCustomPlot* round = w.livePlots()->plot(LivePlots::Panel::RoundTime);
        QVERIFY(round->legend->visible());
        QVERIFY2(round->legend->itemCount() >= 2, qPrintable(QString("%1 entries").arg(round->legend->itemCount())));
        // The megabytes' curve is named by its axis, drawn in its colour.
        QCPGraph* bytes = nullptr;
        for (int i = 0; i < round->graphCount(); ++i)
            if (round->graph(i)->valueAxis() == round->yAxis2) bytes = round->graph(i);
        QVERIFY(bytes && bytes->dataCount() > 0);
        QVERIFY(round->yAxis2->visible());
        QCOMPARE(round->yAxis2->property("fogFullLabel").toString(), QString("MB per round"));
        QCOMPARE(round->yAxis2->labelColor(), bytes->pen().color());
        QCOMPARE(round->yAxis2->tickLabelColor(), bytes->pen().color());
        int legends = 0;
        for (QCustomPlot* p : w.livePlots()->findChildren<QCustomPlot*>()) {
            if (!p->isVisible() || !p->legend->visible()) continue;
            p->replot();
            QApplication::processEvents();
            p->replot();
            const QRect legend = p->legend->outerRect();
            // Inside the plot, and off the curves and their axes' labels.
            QVERIFY2(p->rect().contains(legend), qPrintable(QString("legend %1,%2 %3x%4 in a plot %5x%6")
                                                               .arg(legend.x()).arg(legend.y()).arg(legend.width())
                                                               .arg(legend.height()).arg(p->width()).arg(p->height())));
            QVERIFY2(!legend.intersects(p->axisRect()->outerRect()), "the legend lies over the curves or their axes");
            // Each entry whole, none over another.
            std::vector<QRect> entries;
            for (int i = 0; i < p->legend->itemCount(); ++i) {
                QCPAbstractLegendItem* item = p->legend->item(i);
                const QRect r = item->outerRect();
                QVERIFY2(r.width() >= item->minimumOuterSizeHint().width(), "a legend entry is cut");
                QVERIFY2(legend.contains(r), "a legend entry lies outside its legend");
                for (const QRect& other : entries) QVERIFY2(!r.intersects(other), "two legend entries overlap");
                entries.push_back(r);
            }
            // Tick labels a line apart at least, on either axis.
            for (QCPAxis* a : {p->yAxis, p->yAxis2}) {
                if (!a->visible() || !a->tickLabels()) continue;
                const QVector<double> ticks = a->tickVector();
                const int line = QFontMetrics(a->tickLabelFont()).height();
                for (int i = 1; i < ticks.size(); ++i)
                    QVERIFY2(std::abs(a->coordToPixel(ticks[i]) - a->coordToPixel(ticks[i - 1])) >= line,
                             qPrintable(QString("ticks %1 and %2 of '%3' are written over each other")
                                            .arg(ticks[i - 1]).arg(ticks[i]).arg(a->label())));
            }
            // No label drawn on the plot (time markers, the cursor's) is under the legend.
            for (int i = 0; i < p->itemCount(); ++i)
                if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->visible()) {
                    const QRectF box(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
                    QVERIFY2(!box.intersects(legend), qPrintable(t->text() + " lies under the legend"));
                }
            ++legends;
        }
        QVERIFY(legends >= 2);
        // A narrower plot wraps its legend into more rows, never past its edges.
        round->resize(180, round->height());
        round->replot();
        QApplication::processEvents();
        round->replot();
        QVERIFY(round->rect().contains(round->legend->outerRect()));
    }

    // ---- canvas text in presentation mode ---------------------------------------------

    void presentationEnlargesCanvasText() {
        MainWindow w(options());
        w.resize(1280, 720);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.openPreset(presetsDirectory() + "/hierarchical-tiers.yaml"));
        QTest::qWait(100);
        w.canvas()->zoomFit();
        const qreal fitted = w.canvas()->zoom();
        struct Sizes {
            qreal title, subtitle;
        };
        std::vector<Sizes> before;
        const std::vector<qreal> zooms{1.0, 0.75, 0.6, fitted};
        for (qreal z : zooms) before.push_back({NodeItem::titlePixels(z), NodeItem::subtitlePixels(z)});
        const QImage plain = w.canvas()->viewport()->grab().toImage();
        shoot(&w, "presentation-off");
        w.action("actionPresentation")->trigger();
        QVERIFY(w.presentationMode());
        QTest::qWait(100);
        shoot(&w, "presentation-on");
        for (std::size_t i = 0; i < zooms.size(); ++i) {
            const qreal z = zooms[i];
            const qreal title = NodeItem::titlePixels(z), subtitle = NodeItem::subtitlePixels(z);
            // Larger, by half where the box has room for it (it holds twice the drawn size).
            QVERIFY2(subtitle >= std::min(1.5 * before[i].subtitle, 20.0) - 0.01,
                     qPrintable(QString("zoom %1: subtitle %2 px, was %3").arg(z).arg(subtitle).arg(before[i].subtitle)));
            QVERIFY2(title >= before[i].title * 1.2 || title >= 22 - 0.01,
                     qPrintable(QString("zoom %1: title %2 px, was %3").arg(z).arg(title).arg(before[i].title)));
            // The box still holds the title and one line of figures.
            QFont t = QApplication::font();
            t.setPixelSize(qRound(title));
            t.setBold(true);
            QFont sub = QApplication::font();
            sub.setPixelSize(qRound(subtitle));
            QVERIFY2(QFontMetrics(t).height() + QFontMetrics(sub).height() <= NodeItem::kHeight - 8,
                     qPrintable(QString("zoom %1: %2 + %3 px of text in a box %4 high").arg(z)
                                    .arg(QFontMetrics(t).height()).arg(QFontMetrics(sub).height()).arg(NodeItem::kHeight)));
        }
        // At zoom 1 it is half as large again, as the rest of the window.
        QCOMPARE(NodeItem::subtitlePixels(1.0), 15.0);
        QCOMPARE(NodeItem::titlePixels(1.0), 19.5);
        QVERIFY(w.canvas()->viewport()->grab().toImage() != plain);
        w.action("actionPresentation")->trigger(); // and back
        QCOMPARE(NodeItem::subtitlePixels(1.0), 10.0);
    }

    // ---- the trade-off: one point per configuration ------------------------------------

    void tradeOffHasOnePointPerConfiguration() {
        RunStore store(db_.toStdString());
        const std::int64_t sweep = store.createSweep("lesson", "");
        QList<qint64> ids;
        for (const char* policy : {"fully-sync", "n-sync"})
            for (int repeat = 0; repeat < 3; ++repeat) {
                Scenario s = timingStar(4, 10.0, NoiseSpec::Kind::Exponential);
                s.sync.name = policy;
                if (std::string(policy) == "n-sync") s.sync.params["n"] = 2;
                s.training.localSteps = 20;
                s.stop.rounds = 4;
                s.seed = 7 + repeat;
                s.topology.nodes[1].pricePerHour = Range::exactly(36.0); // costs that differ with the time held
                NewRun meta;
                meta.name = policy;
                meta.scenarioYaml = saveScenarioText(s);
                meta.seed = s.seed;
                meta.sweepId = sweep;
                meta.repeat = repeat;
                meta.sweepConfig = std::string("sync.policy=") + policy;
                RunSummary summary;
                ids << runAndStore(s, store, meta, 1, nullptr, summary);
            }
        ComparisonView view;
        view.setStore(&store);
        view.resize(1240, 700);
        view.setRuns(ids);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.grouped());
        QCustomPlot* trade = view.tradeOffPlot();
        trade->replot();
        shoot(&view, "tradeoff-per-configuration");
        auto points = [trade] {
            int n = 0;
            for (int g = 0; g < trade->graphCount(); ++g)
                n += trade->graph(g)->property("runIndex").isValid() && !trade->graph(g)->data()->isEmpty();
            return n;
        };
        QCOMPARE(points(), 2);
        QStringList labels;
        for (int i = 0; i < trade->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(trade->item(i)); t && t->visible()) labels << t->text();
        QCOMPARE(labels.size(), 2);
        QVERIFY2(labels.filter("n-sync (3)").size() == 1 && labels.filter("fully-sync (3)").size() == 1,
                 qPrintable(labels.join(" | ")));
        // Confidence bars on both axes of both points.
        int bars = 0;
        for (int i = 0; i < trade->plottableCount(); ++i)
            bars += trade->plottable(i)->property("fogConfigBars").toBool();
        QCOMPARE(bars, 4);
        // Every repeat is found at its configuration's point; the two points are apart.
        const QPointF a = view.pointPixel(ids[0]), b = view.pointPixel(ids[3]);
        QVERIFY(!a.isNull() && !b.isNull());
        QCOMPARE(view.pointPixel(ids[1]), a);
        QCOMPARE(view.pointPixel(ids[5]), b);
        QVERIFY(QLineF(a, b).length() > 20);
        QVERIFY(trade->axisRect()->rect().contains(a.toPoint()) && trade->axisRect()->rect().contains(b.toPoint()));
        // The mean of the repeats' times and costs.
        const auto figs = view.figures();
        double t = 0;
        for (int i = 0; i < 3; ++i) t += tradeOffPoint(figs[std::size_t(i)], view.tradeOffMode()).time;
        QCOMPARE(trade->xAxis->pixelToCoord(a.x()), t / 3);
        // Off: one point per run again.
        auto* mean = view.findChild<QToolButton*>("repeatsMean");
        QVERIFY(mean);
        mean->setChecked(false);
        QTest::qWait(50);
        QCOMPARE(points(), 6);
    }

    // ---- the report: a heading and the commands of every figure; bytes and privacy ---------

    void reportFiguresHaveHeadingsAndCommands() {
        RunStore store(db_.toStdString());
        QList<qint64> ids;
        for (const char* policy : {"fully-sync", "n-sync"}) {
            Scenario s = timingStar(3, 10.0, NoiseSpec::Kind::Exponential);
            s.sync.name = policy;
            if (std::string(policy) == "n-sync") s.sync.params["n"] = 2;
            s.model.wireBytes = 1e5;
            s.stop.rounds = 3;
            const qint64 id = storeRun(store, s, policy);
            RunEvent e;
            e.kind = RunEventKind::Privacy;
            e.time = 1.0;
            e.detail = "epsilon=0.5 delta=1e-05 rounds=1";
            RunEvent later = e;
            later.time = 2.0;
            later.detail = "epsilon=0.9 delta=1e-05 rounds=2";
            store.appendEvents(id, {e, later});
            ids << id;
        }
        const QString html = dir_.filePath("report.html");
        ReportOptions o;
        o.dbPath = "runs.db";
        QString error;
        std::vector<std::int64_t> list(ids.begin(), ids.end());
        QVERIFY2(writeReport(loadReportRuns(store, list), html, o, &error), qPrintable(error));
        QFile f(html);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        // Each figure: its own heading just before it, its commands just after it.
        const QRegularExpression img("<img [^>]*>");
        int figures = 0, plotted = 0, at = 0;
        QRegularExpressionMatch m;
        while ((m = img.match(text, at)).hasMatch()) {
            const int start = m.capturedStart();
            const QString before = text.mid(std::max(0, start - 400), std::min(400, start));
            QVERIFY2(before.lastIndexOf("<h3>") > before.lastIndexOf("</pre>") && before.contains("<h3>"),
                     qPrintable("no heading of its own before " + m.captured(0).left(60)));
            const int next = text.indexOf("<img ", m.capturedEnd());
            const QString after = text.mid(m.capturedEnd(), (next < 0 ? text.size() : next) - m.capturedEnd());
            QVERIFY2(after.contains("<pre class=\"cmd\">"), qPrintable("no command after figure " + QString::number(figures)));
            QVERIFY2(after.contains("fogstudio-cli "), qPrintable(after.left(300)));
            plotted += after.contains(QString("fogstudio-cli export plots %1 %2 --db runs.db --out figures").arg(ids[0]).arg(ids[1]));
            ++figures;
            at = m.capturedEnd();
        }
        QVERIFY2(figures >= 6, qPrintable(QString("%1 figures").arg(figures)));
        QCOMPARE(plotted, figures - 1); // all but the topology, whose command prints the scenario
        // The learning side's figures are there, with the files the CLI writes.
        QVERIFY(text.contains("<h3>Megabytes per round</h3>"));
        QVERIFY(text.contains("figures/bytes_per_round.png"));
        QVERIFY(text.contains("<h3>Privacy spent</h3>"));
        QVERIFY(text.contains("figures/privacy.png"));
        // The privacy figure draws each run's epsilons.
        QCustomPlot plot;
        std::vector<PrivacySeries> series;
        for (qint64 id : ids) {
            PrivacySeries p;
            p.label = QString::number(id);
            p.epsilons = privacyCurve(store.events(id), &p.delta);
            series.push_back(p);
        }
        plotPrivacy(&plot, series);
        QCOMPARE(plot.graphCount(), 2);
        QCOMPARE(plot.graph(1)->dataCount(), 2);
        QCOMPARE(plot.graph(1)->data()->at(1)->value, 0.9);
        QVERIFY(plot.yAxis->label().contains("1e-05"));
        const QString pdf = dir_.filePath("report.pdf");
        QVERIFY2(writeReport(loadReportRuns(store, list), pdf, o, &error), qPrintable(error));
        QVERIFY(QFileInfo(pdf).size() > 0);
    }

    void comparisonShowsBytesAndPrivacy() {
        RunStore store(db_.toStdString());
        QList<qint64> ids;
        for (double bytes : {1e5, 4e5}) {
            Scenario s = timingStar(3, 10.0, NoiseSpec::Kind::None);
            s.sync.name = "fully-sync";
            s.model.wireBytes = bytes;
            s.stop.rounds = 3;
            const qint64 id = storeRun(store, s, bytes > 2e5 ? "heavy" : "light");
            RunEvent e;
            e.kind = RunEventKind::Privacy;
            e.time = 1.0;
            e.detail = bytes > 2e5 ? "epsilon=2 delta=1e-05" : "epsilon=1 delta=1e-05";
            store.appendEvents(id, {e});
            ids << id;
        }
        ComparisonView view;
        view.setStore(&store);
        view.resize(1240, 700);
        view.setRuns(ids);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTabWidget* tabs = view.costTabs();
        QVERIFY(tabs->isTabVisible(1) && tabs->isTabVisible(2));
        tabs->setCurrentIndex(1);
        QTest::qWait(50);
        shoot(&view, "comparison-bytes");
        QCustomPlot* bytes = view.bytesPlot();
        QVERIFY(bytes->isVisible());
        QCOMPARE(bytes->graphCount(), 2);
        // The heavier model moves four times the megabytes per round.
        const double light = bytes->graph(0)->data()->at(1)->value, heavy = bytes->graph(1)->data()->at(1)->value;
        QVERIFY(light > 0);
        QCOMPARE(heavy, 4 * light);
        QCOMPARE(bytes->graph(1)->pen().color(), view.colorOf(ids[1]));
        QCustomPlot* privacy = view.privacyPlot();
        QCOMPARE(privacy->graphCount(), 2);
        QCOMPARE(privacy->graph(1)->data()->at(0)->value, 2.0);
        QStringList stems;
        for (const auto& [stem, plot] : view.plots()) stems << stem;
        QVERIFY2(stems.contains("bytes_per_round") && stems.contains("privacy"), qPrintable(stems.join(" ")));
        // Export Plots writes them too.
        QTemporaryDir out;
        ComparisonPlotExport job(view, ids, out.path(), "png");
        while (job.step()) {
        }
        QVERIFY2(QFileInfo::exists(out.filePath("bytes_per_round.png")) && QFileInfo::exists(out.filePath("privacy.png")),
                 qPrintable(job.written().join(" ")));
        // Runs without bytes or privacy events keep the tabs hidden.
        Scenario plain = timingStar(2, 10.0, NoiseSpec::Kind::None);
        plain.model.wireBytes = 0;
        plain.stop.rounds = 2;
        view.setRuns({storeRun(store, plain, "plain")});
        QTest::qWait(50);
        QVERIFY(!tabs->isTabVisible(2));
    }
};

QTEST_MAIN(TestStudioScreen)
#include "test_studio_screen.moc"
