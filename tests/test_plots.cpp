// The run plots' interaction and the link views: the cursor linked across the live plots,
// the node timeline and the link throughput plot; raw and smoothed curves together; zoom
// reset; the expected round time labelled closed form or Monte Carlo estimate; per-link
// throughput live, from the store, and the store's link tables (nothing lost in a long run).

#include "widgets/figures/plot_export.h"
#include "core/analysis/link_throughput.h"
#include "core/store/run_store.h"
#include "engine_fixtures.h"
#include "wall_bounds.h"
#include "widgets/figures/energy_split.h"
#include "widgets/plots/link_plot.h"
#include "widgets/plots/linked_cursor.h"
#include "widgets/plots/live_plots.h"
#include "widgets/plots/node_timeline.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/figures/run_plots.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace fog;
using namespace fogtest;

namespace {

RunInfo infoWithLinks(int links) {
    RunInfo info;
    info.scenarioName = "links";
    for (int i = 0; i < links; ++i) {
        LinkInfo l;
        l.index = i;
        l.id = "phone-" + std::to_string(i) + " -> edge";
        l.kind = "up";
        l.from = i + 1;
        l.to = 0;
        l.capacityBytesPerS = 1.25e6; // 10 Mbit/s
        info.links.push_back(l);
    }
    return info;
}

/// Link k carries (k + 1) x 100 kB/s over [0, 10) in spans of 0.5 s; link 3 nothing.
std::vector<LinkUsage> steadyUsage(int links) {
    std::vector<LinkUsage> out;
    for (int k = 0; k < links; ++k) {
        if (k == 3) continue;
        for (int s = 0; s < 20; ++s) out.push_back({k, s * 0.5, (s + 1) * 0.5, (k + 1) * 1e5, 1});
    }
    return out;
}

std::vector<AggregationRecord> rounds(int n, double seconds) {
    std::vector<AggregationRecord> out;
    for (int i = 1; i <= n; ++i) {
        AggregationRecord r;
        r.round = i;
        r.time = i * seconds;
        r.wallSeconds = i * 0.01;
        r.trainLoss = 2.0 / i + (i % 2 ? 0.3 : -0.3); // noisy: smoothing shows
        r.cost = i * 0.5;
        r.energyJ = i * 100.0;
        if (i % 5 == 0) {
            r.testLoss = 2.0 / i;
            r.testAccuracy = 0.5 + 0.004 * i;
        }
        out.push_back(r);
    }
    return out;
}

} // namespace

class TestPlots : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private Q_SLOTS:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void energySplitDrawn() {
        // The energy plot: the total, plus compute / network / idle curves for the parts that
        // are not zero (issue 18); a run stored before the split (NaN) or with a single part
        // shows the total alone. Live appends extend the parts too.
        auto split = rounds(6, 10.0);
        for (auto& r : split) {
            r.energyComputeJ = r.energyJ * 0.5;
            r.energyNetworkJ = 0.0;
            r.energyIdleJ = r.energyJ * 0.5;
        }
        auto old = rounds(6, 10.0);
        for (auto& r : old) r.energyComputeJ = r.energyNetworkJ = r.energyIdleJ = kNaN;
        QCustomPlot plot;
        plotMetric(&plot, {{"split", seriesColor(0), split}, {"old", seriesColor(1), old}}, PlotKind::Energy);
        QCOMPARE(plot.graph(0)->name(), QString("split")); // graph i is still series i
        QCOMPARE(plot.graph(1)->name(), QString("old"));
        QCPGraph* compute = energySplitGraph(&plot, 0, EnergyPart::Compute);
        QCPGraph* network = energySplitGraph(&plot, 0, EnergyPart::Network);
        QCPGraph* idle = energySplitGraph(&plot, 0, EnergyPart::Idle);
        QVERIFY(compute && network && idle);
        QVERIFY(compute->visible() && idle->visible() && !network->visible());
        QCOMPARE(compute->name(), QString("split: compute"));
        QCOMPARE(compute->dataCount(), 6);
        QCOMPARE(compute->data()->at(5)->value, split[5].energyJ / 2 / 1000.0);
        QVERIFY(plot.legend->hasItemWithPlottable(idle));
        QVERIFY(!plot.legend->hasItemWithPlottable(network));
        for (EnergyPart part : {EnergyPart::Compute, EnergyPart::Network, EnergyPart::Idle})
            QVERIFY(!energySplitGraph(&plot, 1, part)->visible());
        // Live: the network part becomes non-zero in a new record and shows up.
        AggregationRecord next = split.back();
        next.round = 7;
        next.time = 70;
        next.energyNetworkJ = 5.0;
        next.energyJ += 5.0;
        appendMetric(&plot, 0, {next}, PlotKind::Energy);
        QCOMPARE(compute->dataCount(), 7);
        QVERIFY(network->visible());
        QCOMPARE(network->data()->at(6)->value, 0.005);
        // The cursor read-out names the parts shown, not the hidden ones.
        const QStringList lines = cursorValueLines(&plot, 65.0);
        QVERIFY2(lines.join("|").contains("split: idle") && !lines.join("|").contains("old: idle"),
                 qPrintable(lines.join("|")));
    }

    // ---- the store's link tables

    void linkUsageStoredWithNothingLost() {
        RunStore store(dir_.filePath("links.db").toStdString());
        NewRun nr;
        nr.name = "long";
        nr.scenarioYaml = "name: long\n";
        const auto id = store.beginRun(nr);
        const RunInfo info = infoWithLinks(40);
        // A long run: 300,000 spans in batches of 1,000, interleaved with intervals and
        // metrics, through the recorder's bounded queue (small: back-pressure happens).
        std::int64_t spans = 0;
        {
            StoreRecorder rec(store, id, 0.02, 20000);
            rec.onStart(info);
            for (int b = 0; b < 300; ++b) {
                std::vector<LinkUsage> batch;
                for (int k = 0; k < 1000; ++k) {
                    const double t = b * 1000 + k;
                    batch.push_back({k % 40, t, t + 1.0, 1000.0 + k, 1 + k % 3});
                }
                spans += static_cast<std::int64_t>(batch.size());
                rec.onLinkUsage(batch);
                rec.onIntervals({{b % 7, NodeState::Computing, b * 1.0, b + 0.5}});
                AggregationRecord r;
                r.round = b + 1;
                r.time = b + 1.0;
                rec.onAggregation(r);
            }
            RunSummary s;
            s.rounds = 300;
            rec.onFinish(s);
            QCOMPARE(rec.produced().linkUsage, spans);
            QCOMPARE(rec.stored().linkUsage, spans);
            QVERIFY2(rec.error().empty(), rec.error().c_str());
        }
        const RowCounts rows = store.storedRows(id);
        QCOMPARE(rows.linkUsage, spans);
        QCOMPARE(rows.metrics, 300);
        QCOMPARE(rows.intervals, 300);
        const auto run = store.run(id);
        QVERIFY(run && run->produced);
        QCOMPARE(run->status, std::string("finished"));
        QCOMPARE(run->produced->linkUsage, spans);
        QVERIFY(*run->produced == rows); // complete, counting link spans too

        const auto back = store.linkUsage(id);
        QCOMPARE(static_cast<std::int64_t>(back.size()), spans);
        for (std::size_t i = 0; i < back.size(); i += 997) { // in the order produced
            const int k = static_cast<int>(i % 1000);
            QCOMPARE(back[i].link, k % 40);
            QCOMPARE(back[i].from, static_cast<double>(i));
            QCOMPARE(back[i].to, i + 1.0);
            QCOMPARE(back[i].bytesPerS, 1000.0 + k);
            QCOMPARE(back[i].flows, 1 + k % 3);
        }
        const auto links = store.links(id);
        QCOMPARE(links.size(), info.links.size());
        QCOMPARE(links[7].id, info.links[7].id);
        QCOMPARE(links[7].kind, std::string("up"));
        QCOMPARE(links[7].from, 8);
        QCOMPARE(links[7].capacityBytesPerS, 1.25e6);

        // `db check` compares them too, and names a run that lost spans.
        auto joined = [](const DbCheck& c) {
            std::string all;
            for (const auto& l : c.lines) all += l + "\n";
            return all;
        };
        DbCheck check = checkDatabase(store.path());
        QVERIFY2(check.ok, joined(check).c_str());
        QVERIFY2(joined(check).find("link usage: 1 of 1 runs") != std::string::npos, joined(check).c_str());
        {
            SqliteDb db(store.path(), SqliteDb::Mode::ReadWrite);
            db.exec("DELETE FROM link_usage WHERE rowid IN (SELECT rowid FROM link_usage LIMIT 5)");
        }
        check = checkDatabase(store.path());
        QVERIFY(!check.ok);
        QVERIFY2(joined(check).find(": 299995 of 300000 link usage spans stored") != std::string::npos, joined(check).c_str());

        // Deleting the run deletes its link rows.
        QVERIFY(store.deleteRun(id));
        QCOMPARE(store.linkUsage(id).size(), std::size_t(0));
        QCOMPARE(store.links(id).size(), std::size_t(0));
    }

    void olderFileWithoutLinkTables() {
        // A file written before the link tables: a writable open adds them; read-only it
        // reads as having no link rows, and nothing else changes.
        const std::string path = dir_.filePath("old.db").toStdString();
        std::int64_t id = 0;
        {
            RunStore store(path);
            NewRun nr;
            nr.name = "old";
            nr.scenarioYaml = "name: old\n";
            id = store.beginRun(nr);
            store.appendMetrics(id, rounds(3, 1.0));
            store.finishRun(id, RunSummary{}, RowCounts{3, 0, 0});
        }
        {
            SqliteDb db(path, SqliteDb::Mode::ReadWrite);
            db.exec("DROP TABLE links; DROP TABLE link_usage; DROP TABLE link_usage_produced;");
        }
        {
            RunStore readOnly(path, true);
            QCOMPARE(readOnly.linkUsage(id).size(), std::size_t(0));
            QCOMPARE(readOnly.links(id).size(), std::size_t(0));
            QCOMPARE(readOnly.storedRows(id).metrics, 3);
            QVERIFY(*readOnly.run(id)->produced == readOnly.storedRows(id));
        }
        RunStore store(path);
        store.appendLinkUsage(id, {{0, 0.0, 1.0, 5.0, 1}});
        QCOMPARE(store.linkUsage(id).size(), std::size_t(1));
    }

    // ---- link throughput

    void linkThroughputBusiestFirst() {
        LinkThroughputPlot plot;
        plot.resize(900, 400);
        plot.reset(infoWithLinks(8));
        QCOMPARE(plot.emptyText(), QString("No traffic yet"));
        plot.appendUsage(steadyUsage(8));
        QTRY_VERIFY(!plot.shownLinks().empty());
        const std::vector<int> listed = plot.listedLinks();
        QCOMPARE(listed.size(), std::size_t(8));
        QCOMPARE(listed.front(), 7); // the busiest
        QCOMPARE(listed.back(), 3);  // carried nothing
        QCOMPARE(plot.shownLinks(), (std::vector<int>{7, 6, 5, 4, 2}));
        QCOMPARE(plot.bytesPerLink()[7], 8e5 * 10);
        // Link 7 ran at 800 kB/s = 6.4 Mbit/s throughout: every bin says so.
        QCustomPlot* p = plot.plot();
        QCOMPARE(p->graphCount(), 5);
        QCOMPARE(p->graph(0)->name(), QString("phone-7 -> edge"));
        for (auto it = p->graph(0)->data()->constBegin(); it != p->graph(0)->data()->constEnd(); ++it)
            QVERIFY2(std::abs(it->value - 6.4) < 1e-9, qPrintable(QString::number(it->value)));
        QVERIFY(plot.emptyText().isEmpty());
        // The user's pick stands as more traffic comes.
        plot.setShownLinks({3, 0});
        QCOMPARE(p->graphCount(), 2);
        plot.appendUsage({{1, 10.0, 11.0, 1e7, 2}}); // 2 MB + 10 MB: more than link 7's 8 MB
        QTest::qWait(400);
        QCOMPARE(plot.shownLinks(), (std::vector<int>{3, 0}));
        QCOMPARE(plot.listedLinks().front(), 1); // busiest now
    }

    void linkThroughputWithoutContention() {
        LinkThroughputPlot plot;
        plot.reset(RunInfo{});
        QVERIFY2(plot.emptyText().contains("no contention"), qPrintable(plot.emptyText()));
        QCOMPARE(plot.plot()->graphCount(), 0);
    }

    void binnedThroughputKeepsBytes() {
        // Spans that straddle bins: every byte lands in some bin.
        const std::vector<LinkUsage> spans = {{0, 0.3, 2.7, 100.0, 1}, {0, 5.05, 5.1, 1e4, 3}, {1, 0.0, 10.0, 1.0, 1}};
        const auto bins = binnedThroughput(spans, 0, 0.0, 10.0, 7);
        double bytes = 0.0;
        for (double v : bins) bytes += v * 10.0 / 7;
        QVERIFY(std::abs(bytes - (240.0 + 500.0)) < 1e-9);
        QCOMPARE(bytesPerLink(spans)[1], 10.0);
        QCOMPARE(linksByTraffic(spans, 3), (std::vector<int>{0, 1, 2}));
    }

    void linkPlotFromTheStore() {
        RunStore store(dir_.filePath("stored-links.db").toStdString());
        NewRun nr;
        nr.name = "stored";
        nr.scenarioYaml = "name: stored\n";
        const auto id = store.beginRun(nr);
        const RunInfo info = infoWithLinks(6);
        store.setLinks(id, info.links);
        store.appendLinkUsage(id, steadyUsage(6));
        LinkThroughputPlot live, stored;
        live.reset(info);
        live.appendUsage(steadyUsage(6));
        QVERIFY(stored.showStoredRun(store, id));
        QTRY_COMPARE(stored.shownLinks(), (std::vector<int>{5, 4, 2, 1, 0}));
        QCOMPARE(stored.bytesPerLink(), live.bytesPerLink());
        QVERIFY(!stored.showStoredRun(store, 999999));
    }

    // ---- interaction

    void cursorLinkedAcrossPlots() {
        LivePlots plots;
        NodeTimeline timeline;
        LinkThroughputPlot links;
        plots.resize(1200, 600);
        timeline.resize(800, 300);
        links.resize(800, 300);
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        linkCursors(&plots, &timeline, &links);
        plots.setMonteCarloRounds(0);
        RunInfo info = infoWithLinks(8);
        info.nodes = {{"server", "cloud", "aggregator", "", 1, 0}, {"a", "device", "trainer", "server", 1, 0}};
        plots.reset(info, Scenario{});
        timeline.reset(info);
        links.reset(info);
        plots.append(rounds(40, 2.0));
        timeline.appendIntervals({{1, NodeState::Computing, 0.0, 80.0}});
        links.appendUsage(steadyUsage(8));
        QTest::qWait(300);

        // The mouse near the cost plot's point of round 4 (t = 8 s): the cursor snaps to it.
        QCustomPlot* cost = plots.plot(LivePlots::Panel::Cost);
        // Once the plot has rescaled to its 40 points (a deferred refresh: on a loaded machine
        // 300 ms were not always enough, and a pixel of the old range missed the point).
        QTRY_VERIFY_WITH_TIMEOUT(cost->xAxis->range().contains(8.0) && cost->yAxis->range().upper >= 20.0 - 1e-9, 10000);
        cost->replot(QCustomPlot::rpImmediateRefresh);
        const QPoint at(static_cast<int>(cost->xAxis->coordToPixel(8.0)) + 2, static_cast<int>(cost->yAxis->coordToPixel(2.0)));
        QSignalSpy moved(&plots, &LivePlots::cursorMoved);
        plots.hoverAt(LivePlots::Panel::Cost, at);
        QCOMPARE(moved.count(), 1);
        QCOMPARE(plots.cursorTime(), 8.0);
        // Every live panel shows it, with its curves' values there.
        QVERIFY2(plots.cursorText(LivePlots::Panel::Loss).contains("train:"), qPrintable(plots.cursorText(LivePlots::Panel::Loss)));
        QVERIFY2(plots.cursorText(LivePlots::Panel::Cost).endsWith("links: 2"), qPrintable(plots.cursorText(LivePlots::Panel::Cost)));
        QVERIFY(!plots.cursorText(LivePlots::Panel::Energy).isEmpty());
        // So do the timeline and the link plot.
        QVERIFY(timeline.cursorVisible());
        QVERIFY2(links.cursorText().contains("phone-7 -> edge: 6.4 Mbit/s"), qPrintable(links.cursorText()));

        // On a rounds axis the same virtual time is the round that ended by then.
        plots.setXAxis(PlotXAxis::Round);
        QTest::qWait(200);
        plots.setCursorTime(21.0);
        QVERIFY2(plots.cursorText(LivePlots::Panel::Loss).startsWith("t = 21.00 s"), qPrintable(plots.cursorText(LivePlots::Panel::Loss)));
        QCustomPlot* loss = plots.plot(LivePlots::Panel::Loss);
        bool atRound10 = false;
        for (int i = 0; i < loss->itemCount(); ++i)
            if (auto* l = qobject_cast<QCPItemStraightLine*>(loss->item(i)))
                atRound10 = atRound10 || (l->visible() && l->point1->coords().x() == 10.0);
        QVERIFY(atRound10);

        // The mouse leaves: the cursor goes everywhere.
        Q_EMIT plots.cursorMoved(kNaN);
        plots.setCursorTime(kNaN);
        QVERIFY(!timeline.cursorVisible());
        QVERIFY(links.cursorText().isEmpty());
        QVERIFY(plots.cursorText(LivePlots::Panel::Loss).isEmpty());
    }

    void rawAndSmoothedTogether() {
        LivePlots plots;
        plots.setMonteCarloRounds(0);
        plots.showRun("noisy", Scenario{}, rounds(60, 1.0));
        QTest::qWait(100);
        QCustomPlot* loss = plots.plot(LivePlots::Panel::Loss);
        for (int i = 0; i < loss->graphCount(); ++i) QVERIFY(!isRawGraph(loss->graph(i)));
        plots.setSmoothing(9);
        QTest::qWait(100);
        // Smoothed train and test stay graphs 0 and 1; the raw curves are drawn too, faint.
        QCOMPARE(loss->graph(0)->name(), QString("train"));
        QCOMPARE(loss->graph(1)->name(), QString("test"));
        int raw = 0;
        for (int i = 0; i < loss->graphCount(); ++i)
            if (isRawGraph(loss->graph(i))) {
                ++raw;
                QVERIFY(loss->graph(i)->pen().color().alpha() < 128);
            }
        QCOMPARE(raw, 2);
        QCOMPARE(loss->graph(2)->dataCount(), 60);
        // Raw and smoothed differ where the curve is noisy.
        QVERIFY(std::abs(loss->graph(0)->data()->at(30)->value - loss->graph(2)->data()->at(30)->value) > 0.1);
        QCustomPlot* cost = plots.plot(LivePlots::Panel::Cost);
        QVERIFY(isRawGraph(cost->graph(cost->graphCount() - 1)));
        plots.setSmoothing(1);
        QTest::qWait(100);
        for (int i = 0; i < loss->graphCount(); ++i) QVERIFY(!isRawGraph(loss->graph(i)));
    }

    void zoomAndReset() {
        LivePlots plots;
        plots.resize(1000, 500);
        plots.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plots));
        plots.setMonteCarloRounds(0);
        plots.showRun("zoom", Scenario{}, rounds(50, 1.0));
        QTest::qWait(100);
        QCustomPlot* cost = plots.plot(LivePlots::Panel::Cost);
        const QCPRange fitted = cost->xAxis->range();
        QVERIFY(fitted.upper >= 50.0);
        // A wheel turn zooms (the plot stops following the data) ...
        const QPointF centre = cost->axisRect()->center();
        QWheelEvent wheel(centre, cost->mapToGlobal(centre), QPoint(), QPoint(0, 480), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(cost, &wheel);
        QVERIFY(cost->xAxis->range().size() < fitted.size() * 0.9);
        plots.append(rounds(1, 100.0)); // a later point: the zoomed view stays
        QTest::qWait(100);
        QVERIFY(cost->xAxis->range().upper < 100.0);
        // ... and Reset zoom fits every plot to its data again.
        plots.resetZoom();
        QVERIFY(cost->xAxis->range().upper >= 100.0);
        QCOMPARE(cost->xAxis->range().lower, 0.0);
    }

    // ---- theory on the round-time plot

    void closedFormWithLinksDrawn() {
        LivePlots plots;
        Scenario s = timingStar(5, 2.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        s.topology.hasDefaultLink = true;
        s.topology.defaultLink.latencyMs = 50; // 0.05 s down, 0.05 s up, no bytes
        s.topology.contention = false;
        plots.showRun("linked", s, {});
        QCOMPARE(plots.expected().source, ExpectedRoundTime::Source::ClosedForm);
        const double expected = 0.1 + harmonicNumber(5) / 2.0;
        QVERIFY(std::abs(plots.expected().seconds - expected) < 1e-12);
        QVERIFY2(plots.expectedText().contains("closed form"), qPrintable(plots.expectedText()));
        QTest::qWait(100);
        QCustomPlot* p = plots.plot(LivePlots::Panel::RoundTime);
        bool line = false, label = false;
        for (int i = 0; i < p->itemCount(); ++i) {
            if (auto* l = qobject_cast<QCPItemStraightLine*>(p->item(i)))
                line = line || std::abs(l->point1->coords().y() - expected) < 1e-12;
        }
        for (int i = 0; i < p->graphCount(); ++i) label = label || p->graph(i)->name().startsWith("closed form 1.24");
        QVERIFY(line);
        QVERIFY(label);
    }

    void monteCarloEstimateDrawnAndLabelled() {
        LivePlots plots;
        Scenario s = timingStar(4, 2.0, NoiseSpec::Kind::LogNormal); // no closed form
        s.sync.name = "fully-sync";
        plots.showRun("lognormal", s, rounds(5, 1.0));
        QVERIFY(plots.estimating());
        QVERIFY2(plots.expectedText().contains("running"), qPrintable(plots.expectedText()));
        QTRY_COMPARE_WITH_TIMEOUT(plots.expected().source, ExpectedRoundTime::Source::MonteCarlo, 20000);
        QCOMPARE(plots.expected().rounds, 300);
        QVERIFY2(plots.expectedText().contains("Monte Carlo estimate (300 rounds)"), qPrintable(plots.expectedText()));
        // The estimate is the timing-only run's mean round time.
        Recorder rec;
        const RunSummary r = runScenario(timingOnlyScenario(s, 0, s.data.samplesPerTrainer, 300), rec);
        QVERIFY(std::abs(plots.expected().seconds - r.virtualTime / r.rounds) < 1e-9);
        QTest::qWait(100);
        QCustomPlot* p = plots.plot(LivePlots::Panel::RoundTime);
        bool label = false;
        for (int i = 0; i < p->graphCount(); ++i)
            label = label || (p->graph(i)->name().startsWith("Monte Carlo ") && p->legend->hasItemWithPlottable(p->graph(i)));
        QVERIFY(label);
        QVERIFY(plots.figuresText().contains("Monte Carlo estimate (300 rounds)"));
    }

    void scenarioChangeCancelsTheEstimate() {
        LivePlots plots;
        plots.setMonteCarloRounds(2000000); // long: it must be cancelled, not waited for
        Scenario slow = timingStar(50, 2.0, NoiseSpec::Kind::LogNormal);
        slow.sync.name = "fully-sync";
        plots.showRun("slow", slow, {});
        QVERIFY(plots.estimating());
        Scenario exact = timingStar(5, 2.0, NoiseSpec::Kind::Exponential);
        exact.sync.name = "fully-sync";
        QElapsedTimer timer;
        timer.start();
        plots.showRun("exact", exact, {});
        QCOMPARE(plots.expected().source, ExpectedRoundTime::Source::ClosedForm);
        QTest::qWait(300);
        QCOMPARE(plots.expected().source, ExpectedRoundTime::Source::ClosedForm); // not overwritten
        plots.clear();
        QVERIFY(!plots.estimating());
        qInfo("estimate cancelled and joined in %lld ms", static_cast<long long>(timer.elapsed()));
        QVERIFY(timer.elapsed() < fogtest::kPromptMs);
    } // the destructor waits for the cancelled thread: it must end promptly

    // ---- the node timeline's network time

    void timelineSeparatesNetworkFromCompute() {
        NodeTimeline timeline;
        RunInfo info;
        info.nodes = {{"server", "cloud", "aggregator", "", 1, 0}, {"a", "device", "trainer", "server", 1, 0},
                      {"b", "device", "trainer", "server", 1, 0}};
        timeline.reset(info);
        timeline.appendIntervals({{1, NodeState::Receiving, 0.0, 1.0},
                                  {1, NodeState::Computing, 1.0, 3.0},
                                  {1, NodeState::Sending, 3.0, 3.5},
                                  {2, NodeState::Receiving, 0.0, 1.0},
                                  {2, NodeState::Computing, 1.0, 2.0},
                                  {2, NodeState::Sending, 2.0, 2.5},
                                  {2, NodeState::Idle, 2.5, 3.5}});
        QCOMPARE(timeline.stateAt(1, 0.5), NodeState::Receiving);
        QCOMPARE(timeline.stateAt(1, 2.0), NodeState::Computing);
        QCOMPARE(timeline.stateAt(1, 3.2), NodeState::Sending);
        QCOMPARE(timeline.totalSeconds(1, NodeState::Computing), 2.0);
        QCOMPARE(timeline.totalSeconds(1, NodeState::Receiving), 1.0);
        QCOMPARE(timeline.totalSeconds(NodeState::Sending), 1.0);
        QVERIFY2(timeline.totalsText().contains("computing 3.0 s (50.0%), waiting for the network 3.0 s (50.0%"),
                 qPrintable(timeline.totalsText()));
    }

    // ---- themes

    void linkPlotAndTimelineInLightAndDark() {
        // A theme change redraws in the new colours; pictures go to $FOG_SCREENSHOT_DIR.
        const QString dir = qEnvironmentVariable("FOG_SCREENSHOT_DIR", dir_.path());
        for (const bool dark : {false, true}) {
            QPalette pal;
            if (dark) {
                pal.setColor(QPalette::Window, QColor(45, 45, 48));
                pal.setColor(QPalette::Base, QColor(30, 30, 32));
                pal.setColor(QPalette::WindowText, QColor(230, 230, 230));
                pal.setColor(QPalette::Text, QColor(230, 230, 230));
                pal.setColor(QPalette::ToolTipBase, QColor(60, 60, 64));
                pal.setColor(QPalette::ToolTipText, QColor(240, 240, 240));
            }
            LinkThroughputPlot plot;
            plot.resize(900, 320);
            plot.show();
            QVERIFY(QTest::qWaitForWindowExposed(&plot));
            plot.reset(infoWithLinks(8));
            plot.appendUsage(steadyUsage(8));
            plot.appendUsage({{7, 10.0, 14.0, 3e5, 2}, {6, 10.0, 14.0, 9e5, 1}});
            plot.setPalette(pal);
            QTest::qWait(400);
            plot.setCursorTime(6.0);
            QVERIFY(plot.cursorText().contains("t = 6.00 s"));
            QTest::qWait(100); // the queued replot
            const QImage image = plot.grab().toImage();
            image.save(QDir(dir).filePath(dark ? "link-throughput-dark.png" : "link-throughput-light.png"));
            const QColor corner = image.pixelColor(plot.plot()->geometry().topLeft() + QPoint(4, 4));
            QVERIFY2(dark ? corner.lightness() < 80 : corner.lightness() > 180, qPrintable(corner.name()));
            bool curve = false; // the busiest link's colour is drawn
            for (int y = 0; y < image.height() && !curve; ++y)
                for (int x = 0; x < image.width() && !curve; ++x) curve = image.pixelColor(x, y) == seriesColor(0);
            QVERIFY(curve);

            // The timeline: receiving and sending apart from computing, with the totals line.
            NodeTimeline timeline;
            timeline.resize(900, 260);
            timeline.show();
            QVERIFY(QTest::qWaitForWindowExposed(&timeline));
            RunInfo info;
            info.nodes.push_back({"server", "cloud", "aggregator", "", 1, 0});
            std::vector<NodeInterval> ivs;
            for (int n = 1; n <= 6; ++n) {
                info.nodes.push_back({"phone-" + std::to_string(n), "device", "trainer", "server", 1, 0});
                for (int r = 0; r < 5; ++r) {
                    const double t = r * 4.0, down = 0.4 + 0.1 * n, up = 0.3 * n;
                    ivs.push_back({n, NodeState::Receiving, t, t + down});
                    ivs.push_back({n, NodeState::Computing, t + down, t + down + 1.5});
                    ivs.push_back({n, NodeState::Sending, t + down + 1.5, t + down + 1.5 + up});
                }
            }
            timeline.reset(info);
            timeline.appendIntervals(ivs);
            timeline.setPalette(pal);
            timeline.setCursorTime(6.0);
            QTest::qWait(200);
            QVERIFY2(timeline.totalsText().contains("waiting for the network"), qPrintable(timeline.totalsText()));
            const QImage tl = timeline.grab().toImage();
            tl.save(QDir(dir).filePath(dark ? "timeline-dark.png" : "timeline-light.png"));
            bool sending = false;
            for (int y = 0; y < tl.height() && !sending; ++y)
                for (int x = 0; x < tl.width() && !sending; ++x) sending = tl.pixelColor(x, y) == stateColor(NodeState::Sending);
            QVERIFY(sending);
        }
    }

    // ---- export

    void linkPlotExportsToPdf() {
        LinkThroughputPlot plot;
        plot.resize(900, 400);
        plot.reset(infoWithLinks(4));
        plot.appendUsage(steadyUsage(4));
        QTRY_VERIFY(plot.plot()->graphCount() > 0);
        const QString path = QDir(qEnvironmentVariable("FOG_SCREENSHOT_DIR", dir_.path())).filePath("links.pdf");
        QString error;
        QVERIFY2(savePlot(plot.plot(), path, 800, 400, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
        QVERIFY(f.size() > 2000);

        // The round-time panel with its closed form (a dashed line, named in the legend).
        LivePlots plots;
        plots.resize(1000, 500);
        Scenario s = timingStar(5, 2.0, NoiseSpec::Kind::Exponential);
        s.sync.name = "fully-sync";
        s.topology.hasDefaultLink = true;
        s.topology.defaultLink.latencyMs = 50;
        s.topology.contention = false;
        s.stop.rounds = 200;
        Recorder rec;
        runScenario(s, rec);
        plots.showRun("exp", s, rec.records);
        plots.setSmoothing(10);
        QTest::qWait(100);
        const QString roundPdf = QDir(qEnvironmentVariable("FOG_SCREENSHOT_DIR", dir_.path())).filePath("round-time.pdf");
        QVERIFY2(savePlot(plots.plot(LivePlots::Panel::RoundTime), roundPdf, 700, 400, &error), qPrintable(error));
        QVERIFY(QFileInfo(roundPdf).size() > 2000);
    }
};

QTEST_MAIN(TestPlots)
#include "test_plots.moc"
