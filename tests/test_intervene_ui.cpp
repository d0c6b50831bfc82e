// Live intervention and fork in the studio (issue 13): the canvas's context menu offers the
// interventions during a run (going or paused) and only disabled, saying why, outside one;
// choosing one sends it to the run and the event log and the plots show it once the engine
// applied it; the value dialogs and the fork dialog refuse bad values with a message naming
// the field; a fork started from the studio lands in the store grouped with its parent.

#include "core/engine/engine.h"
#include "core/store/run_store.h"
#include "engine_fixtures.h"
#include "widgets/document/scenario_document.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/intervene/fork_dialog.h"
#include "widgets/intervene/fork_launcher.h"
#include "widgets/intervene/intervene_menu.h"
#include "widgets/intervene/intervention.h"
#include "widgets/figures/time_markers.h"
#include "widgets/intervene/values_dialog.h"
#include "widgets/plots/live_plots.h"
#include "widgets/run/event_log.h"
#include "widgets/run/run_controller.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/runs/runs_filter.h"
#include "widgets/runs/runs_table_model.h"
#include "widgets/topology/edge_item.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QAction>
#include <QLineEdit>
#include <QMenu>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace fog;
using namespace fogtest;

namespace {

/// A server and a group of 4 workers on an uplink of 100 Mbit/s, 1 virtual second rounds,
/// for ever (a run the test pauses, intervenes in and stops).
Scenario steadyStar() {
    Scenario s = timingStar(4, 1.0, NoiseSpec::Kind::None);
    s.sync.name = "fully-sync";
    s.topology.nodes[1].link = LinkParams{100.0, 100.0, 5.0, 0.0};
    s.stop.rounds = 0;
    s.stop.virtualTimeS = 1e12;
    return s;
}

QList<QAction*> interventionActions(const QMenu& menu) {
    QList<QAction*> out;
    for (QAction* a : menu.actions())
        if (a->property("fogIntervention").toBool()) out << a;
    return out;
}

QAction* actionNamed(const QMenu& menu, const char* name) {
    for (QAction* a : menu.actions())
        if (a->objectName() == name) return a;
    return nullptr;
}

/// Answers the value dialogs: runs the dialog's own check on `values` and records what it
/// said; accepts when the check passes.
struct Answer {
    std::vector<double> values;
    QString lastMessage;
    QString lastTitle;
    std::vector<ValueField> lastFields;
    int asked = 0;
    InterveneMenu::Asker asker() {
        return [this](const QString& title, const QString&, const std::vector<ValueField>& fields,
                      const ValuesDialog::Check& check) -> std::optional<std::vector<double>> {
            ++asked;
            lastTitle = title;
            lastFields = fields;
            lastMessage = check ? check(values) : QString();
            if (!lastMessage.isEmpty()) return std::nullopt;
            return values;
        };
    }
};

} // namespace

class TestInterveneUi : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() {
        QVERIFY(dir_.isValid());
        db_ = dir_.filePath(QStringLiteral("runs-%1.db").arg(++dbCount_));
    }

    void menuOutsideARunIsDisabledAndSaysWhy() {
        ScenarioDocument doc;
        doc.setScenario(steadyStar());
        TopologyCanvas canvas(&doc);
        RunController controller;
        InterveneMenu intervene(&controller, &canvas);
        canvas.setContextMenuHook([&](QMenu& m, QGraphicsItem* it) { intervene.populate(m, it); });

        NodeItem* group = canvas.topologyScene()->item("w");
        QVERIFY(group);
        QMenu menu;
        intervene.populate(menu, group);
        const QList<QAction*> actions = interventionActions(menu);
        QCOMPARE(actions.size(), 5); // offline, online, throughput, price, add devices
        for (QAction* a : actions) {
            QVERIFY2(!a->isEnabled(), qPrintable(a->text()));
            QVERIFY2(a->toolTip().contains("start a run"), qPrintable(a->toolTip()));
        }
        // The canvas's own entries stay (cut, copy, ...), below the intervention's.
        QMenu full;
        canvas.fillContextMenu(full, canvas.mapFromScene(group->scenePos()));
        QVERIFY(actionNamed(full, "interveneOffline"));
        QVERIFY(full.actions().contains(canvas.copyAction()));
        // The background and nothing else: no intervention entry.
        QMenu empty;
        intervene.populate(empty, nullptr);
        QVERIFY(empty.actions().isEmpty());
        // Refused outright by apply too.
        QString why;
        QVERIFY(!intervene.apply({{ChangeKind::Offline, "w", {}, 1.0}}, &why));
        QVERIFY(why.contains("start a run"));
    }

    void menuDuringARunSendsTheInterventionAndTheLogShowsIt() {
        ScenarioDocument doc;
        const Scenario s = steadyStar();
        doc.setScenario(s);
        TopologyCanvas canvas(&doc);
        RunController controller;
        EventLog log;
        connect(&controller, &RunController::started, &log,
                [&](const RunInfo& info, qint64) { log.reset(info.nodes); });
        connect(&controller, &RunController::log, &log, &EventLog::append);
        LivePlots plots;
        connect(&controller, &RunController::started, &plots, [&](const RunInfo& info, qint64) { plots.reset(info, s); });
        connect(&controller, &RunController::intervened, &plots, [&](const std::vector<TimedEvent>& applied) {
            for (const auto& e : applied) plots.addMarkers({{e.trigger.value, eventLabel(e)}});
        });
        QSignalSpy applied(&controller, &RunController::intervened);
        InterveneMenu intervene(&controller, &canvas);
        Answer answer;
        intervene.setAsker(answer.asker());
        QSignalSpy requested(&intervene, &InterveneMenu::requested);

        controller.runUntil(RunController::Until::Round, 3); // pauses after round 3
        QVERIFY(controller.start(s, db_, 1));
        QTRY_COMPARE_WITH_TIMEOUT(controller.state(), RunController::State::Paused, 20000);

        // A link: the parent link of the group, bandwidth down to 2 Mbit/s.
        EdgeItem* uplink = nullptr;
        for (QGraphicsItem* it : canvas.topologyScene()->items())
            if (it->type() == EdgeItem::Type) uplink = static_cast<EdgeItem*>(it);
        QVERIFY(uplink);
        QMenu linkMenu;
        intervene.populate(linkMenu, uplink);
        QAction* changeLink = actionNamed(linkMenu, "interveneLink");
        QVERIFY(changeLink);
        QVERIFY(changeLink->isEnabled());
        answer.values = {2.0, std::nan(""), 5.0}; // up 2, down unchanged, latency as it is
        changeLink->trigger();
        QCOMPARE(answer.asked, 1);
        QVERIFY2(answer.lastMessage.isEmpty(), qPrintable(answer.lastMessage));
        // The dialog showed the values in effect.
        QCOMPARE(answer.lastFields.size(), std::size_t(3));
        QCOMPARE(*answer.lastFields[0].current, 100.0);
        QCOMPARE(*answer.lastFields[2].current, 5.0);
        QCOMPARE(requested.count(), 1);
        QCOMPARE(requested.at(0).at(0).toString(), QString("w up 2 Mbit/s"));

        // A group: half of it offline.
        QMenu groupMenu;
        intervene.populate(groupMenu, canvas.topologyScene()->item("w"));
        answer.values = {50.0};
        actionNamed(groupMenu, "interveneOffline")->trigger();
        QCOMPARE(requested.count(), 2);

        // Applied by the engine while paused; the log lists both, the plots mark both.
        QTRY_VERIFY_WITH_TIMEOUT(controller.interventions().size() == 2, 20000);
        QCOMPARE(controller.state(), RunController::State::Paused);
        QStringList rows;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                rows.clear();
                for (int r = 0; r < log.model()->rowCount(); ++r) {
                    const LogEntry* e = log.model()->entryAt(r);
                    if (e->kind == LogKind::Event && e->event == RunEventKind::Intervention)
                        rows << EventLogModel::kindName(*e) + ": " + log.model()->detail(*e);
                }
                return rows.size() == 2;
            }(),
            5000);
        QVERIFY2(rows[0].startsWith("intervention: link w up=2 Mbit/s"), qPrintable(rows[0]));
        QVERIFY2(rows[1].startsWith("intervention: offline w fraction=0.5 (2 node(s) taken offline"), qPrintable(rows[1]));
        // Both at the instant the run paused (the end of round 3), in the event order.
        for (const TimedEvent& e : controller.interventions()) {
            QCOMPARE(e.trigger.value, controller.runClock());
            QVERIFY(e.afterEvent > 0);
        }
        QVERIFY(controller.runClock() >= 3.0 && controller.runClock() < 4.0);
        QTRY_COMPARE_WITH_TIMEOUT(timeMarkerLabels(plots.plot(LivePlots::Panel::Loss)),
                                  QStringList({"w up 2 Mbit/s", "w offline 50%"}), 5000);
        // The next dialog shows the value in effect now: 2, not the scenario's 100.
        QMenu again;
        intervene.populate(again, uplink);
        answer.values = {std::nan(""), std::nan(""), 5.0};
        actionNamed(again, "interveneLink")->trigger();
        QCOMPARE(*answer.lastFields[0].current, 2.0);
        QVERIFY(answer.lastMessage.contains("at least one")); // nothing changed: refused

        controller.stop();
        QSignalSpy finished(&controller, &RunController::finished);
        QVERIFY(finished.wait(20000));
        // Outside the run again: disabled.
        QMenu after;
        intervene.populate(after, uplink);
        QVERIFY(!actionNamed(after, "interveneLink")->isEnabled());
    }

    void valueDialogsRefuseBadValuesWithAMessage() {
        const Scenario s = steadyStar();
        RunController controller;
        controller.runUntil(RunController::Until::Round, 1);
        QVERIFY(controller.start(s, db_, 1));
        QTRY_COMPARE_WITH_TIMEOUT(controller.state(), RunController::State::Paused, 20000);
        ScenarioDocument doc;
        doc.setScenario(s);
        TopologyCanvas canvas(&doc);
        InterveneMenu intervene(&controller, &canvas);
        Answer answer;
        intervene.setAsker(answer.asker());
        QSignalSpy requested(&intervene, &InterveneMenu::requested);
        QMenu menu;
        intervene.populate(menu, canvas.topologyScene()->item("w"));

        answer.values = {-3.0};
        actionNamed(menu, "interveneThroughput")->trigger();
        QVERIFY2(answer.lastMessage.contains("throughput"), qPrintable(answer.lastMessage));
        answer.values = {-1.0};
        actionNamed(menu, "intervenePrice")->trigger();
        QVERIFY2(answer.lastMessage.contains("price_per_hour"), qPrintable(answer.lastMessage));
        answer.values = {0.0};
        actionNamed(menu, "interveneOffline")->trigger();
        QVERIFY2(answer.lastMessage.contains("percentage"), qPrintable(answer.lastMessage));
        answer.values = {150.0};
        actionNamed(menu, "interveneOffline")->trigger();
        QVERIFY(!answer.lastMessage.isEmpty());
        // The server does not train: taking it offline is refused with the reader's reason.
        QSignalSpy refused(&intervene, &InterveneMenu::refused);
        QMenu server;
        intervene.populate(server, canvas.topologyScene()->item("server"));
        actionNamed(server, "interveneOffline")->trigger();
        QCOMPARE(refused.count(), 1);
        QVERIFY2(refused.at(0).at(0).toString().contains("does not train"), qPrintable(refused.at(0).at(0).toString()));
        QCOMPARE(requested.count(), 0);

        // The dialog itself: a word where a number goes stays open with a message.
        ValuesDialog d("Throughput", {}, {{"Throughput", "samples/s", 1.0, false}},
                       [](const std::vector<double>& v) { return v[0] > 0 ? QString() : QString("must be > 0"); });
        d.field(0)->setText("fast");
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Rejected));
        QVERIFY(d.message().contains("not a number"));
        d.field(0)->setText("-2");
        d.accept();
        QCOMPARE(d.message(), QString("must be > 0"));
        d.field(0)->setText("2.5");
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QCOMPARE(d.values(), std::vector<double>{2.5});

        controller.stop();
        QSignalSpy finished(&controller, &RunController::finished);
        QVERIFY(finished.wait(20000));
    }

    void addDevicesAsksAndGoesToAFork() {
        // Devices cannot join the run going: the entry asks how many, checks it like an add
        // event, and hands "add w N" to the fork action (the main window forks the run).
        const Scenario s = steadyStar();
        RunController controller;
        controller.runUntil(RunController::Until::Round, 1);
        QVERIFY(controller.start(s, db_, 1));
        QTRY_COMPARE_WITH_TIMEOUT(controller.state(), RunController::State::Paused, 20000);
        ScenarioDocument doc;
        doc.setScenario(s);
        TopologyCanvas canvas(&doc);
        InterveneMenu intervene(&controller, &canvas);
        Answer answer;
        intervene.setAsker(answer.asker());
        QMenu noFork;
        intervene.populate(noFork, canvas.topologyScene()->item("w"));
        QVERIFY(actionNamed(noFork, "interveneAddDevices"));
        QVERIFY(!actionNamed(noFork, "interveneAddDevices")->isEnabled()); // nobody to fork
        std::vector<std::string> forked;
        intervene.setForkAction([&](const std::string& a) { forked.push_back(a); });
        QMenu menu;
        intervene.populate(menu, canvas.topologyScene()->item("w"));
        QAction* add = actionNamed(menu, "interveneAddDevices");
        QVERIFY(add && add->isEnabled());
        answer.values = {0.0};
        add->trigger();
        QVERIFY2(answer.lastMessage.contains("whole number"), qPrintable(answer.lastMessage));
        answer.values = {2.5};
        add->trigger();
        QVERIFY2(answer.lastMessage.contains("whole number"), qPrintable(answer.lastMessage));
        answer.values = {3000000.0};
        add->trigger();
        QVERIFY2(answer.lastMessage.contains("2000000"), qPrintable(answer.lastMessage));
        QVERIFY(forked.empty());
        answer.values = {3.0};
        add->trigger();
        QCOMPARE(forked, std::vector<std::string>{"add w 3"});
        // Not on a single node.
        QMenu server;
        intervene.populate(server, canvas.topologyScene()->item("server"));
        QVERIFY(!actionNamed(server, "interveneAddDevices"));
        controller.stop();
        QSignalSpy finished(&controller, &RunController::finished);
        QVERIFY(finished.wait(20000));
    }

    void groupCountsShowMembersStillToJoin() {
        // Four members and two that an add event brings (w-4, w-5): before they join they are
        // counted as "to join", not offline; after, in their state.
        const Scenario s = steadyStar();
        ScenarioDocument doc;
        doc.setScenario(s);
        TopologyCanvas canvas(&doc);
        std::vector<NodeInfo> nodes;
        for (const char* id : {"server", "w-0", "w-1", "w-2", "w-3", "w-4", "w-5"}) {
            NodeInfo n;
            n.id = id;
            nodes.push_back(n);
        }
        canvas.setRunNodes(nodes);
        ActivityFrame f;
        f.states.assign(7, NodeState::Idle);
        f.states[5] = f.states[6] = NodeState::Offline;
        f.notJoined = {0, 0, 0, 0, 0, 1, 1};
        canvas.showFrame(f);
        NodeItem* w = canvas.topologyScene()->item("w");
        QCOMPARE(w->notJoined(), 2);
        QCOMPARE(w->runCounts()[static_cast<std::size_t>(NodeState::Idle)], 4);
        QCOMPARE(w->runCounts()[static_cast<std::size_t>(NodeState::Offline)], 0);
        QVERIFY2(w->toolTip().contains("not yet joined 2"), qPrintable(w->toolTip()));
        f.notJoined.clear();
        f.states[5] = f.states[6] = NodeState::Computing;
        canvas.showFrame(f);
        QCOMPARE(w->notJoined(), 0);
        QCOMPARE(w->runCounts()[static_cast<std::size_t>(NodeState::Computing)], 2);
    }

    void forkDialogValidates() {
        Scenario s = steadyStar();
        s.sync.name = "n-sync";
        s.sync.params["n"] = 2;
        ForkDialog d(s, 600.0, 1200.0, "run 1");
        // Nothing to change is a valid fork (it reproduces the parent).
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QVERIFY(d.changes().empty());
        QCOMPARE(d.at(), 600.0);

        d.setResult(QDialog::Rejected);
        d.atEdit()->setText("soon");
        d.accept();
        QVERIFY2(d.message().contains("not a number"), qPrintable(d.message()));
        d.atEdit()->setText("-5");
        d.accept();
        QVERIFY(d.message().contains("before the run's start"));
        d.atEdit()->setText("5000");
        d.accept();
        QVERIFY2(d.message().contains("past the end"), qPrintable(d.message()));
        d.atEdit()->setText("600");

        const int link = d.addChange(ChangeKind::LinkUp, "w", {}, "-2");
        d.accept();
        QVERIFY2(d.message().contains("Change 1") && d.message().contains("bandwidth_up_mbps"), qPrintable(d.message()));
        static_cast<QLineEdit*>(d.table()->cellWidget(link, 3))->setText("");
        d.accept();
        QVERIFY(d.message().contains("give the new value"));
        static_cast<QLineEdit*>(d.table()->cellWidget(link, 3))->setText("2");
        // The value in effect is shown: the scenario's 100 Mbit/s.
        QCOMPARE(d.table()->item(link, 2)->text(), QString("100 Mbit/s"));
        d.addChange(ChangeKind::PolicyParam, "sync.n", {}, "0");
        d.accept();
        QVERIFY2(d.message().contains("Change 2"), qPrintable(d.message()));
        QCOMPARE(d.result(), int(QDialog::Rejected)); // every refusal above kept it open
        d.removeChange(1);
        d.addChange(ChangeKind::PolicyParam, "sync.n", {}, "3");
        d.addChange(ChangeKind::NodePrice, "server", {}, "0.9");
        d.setResult(QDialog::Rejected);
        d.accept();
        QCOMPARE(d.result(), int(QDialog::Accepted));
        QCOMPARE(d.at(), 600.0);
        const std::vector<std::string> texts = d.actionTexts();
        QCOMPARE(texts, (std::vector<std::string>{"link w.up=2", "policy sync.n=3", "node server price=0.9"}));
    }

    void changesReadBackAsTheEventsTheyName() {
        const Scenario s = steadyStar();
        TimedEvent e;
        QString why;
        QVERIFY(makeEvent(s, {{ChangeKind::LinkUp, "w", {}, 2.0}, {ChangeKind::LinkLatency, "w", {}, 40.0}}, e, &why));
        QCOMPARE(e.action, TimedEvent::Action::Link);
        QCOMPARE(*e.bandwidthUpMbps, 2.0);
        QCOMPARE(*e.latencyMs, 40.0);
        QVERIFY(!e.bandwidthDownMbps);
        QCOMPARE(eventLabel(e), QString("w up 2 Mbit/s, 40 ms"));
        QVERIFY(makeEvent(s, Change{ChangeKind::Offline, "w-2", {}, 1.0}, e, &why));
        QCOMPARE(e.member, 2LL);
        QVERIFY(!makeEvent(s, Change{ChangeKind::NodeThroughput, "nobody", {}, 3.0}, e, &why));
        QVERIFY2(why.contains("nobody"), qPrintable(why));
        QCOMPARE(actionText(Change{ChangeKind::Offline, "w", {}, 0.25}), std::string("offline w fraction=0.25"));
        QCOMPARE(actionText(Change{ChangeKind::NodePrice, "server", {}, 0.1}), std::string("node server price=0.1"));
    }

    void forkFromTheStudioLandsWithItsParent() {
        // A short timing-only parent (20 rounds of 1 s), stored by the studio's controller.
        Scenario s = steadyStar();
        s.stop.rounds = 20;
        s.stop.virtualTimeS = 0;
        RunController controller;
        QSignalSpy finished(&controller, &RunController::finished);
        QVERIFY(controller.start(s, db_, 1));
        QVERIFY(finished.wait(30000));
        const qint64 parent = finished.at(0).at(1).toLongLong();
        QVERIFY(parent > 0);

        RunStore store(db_.toStdString());
        ForkLauncher forks(&controller, &store, db_);
        QSignalSpy started(&forks, &ForkLauncher::forkStarted);
        QSignalSpy ended(&forks, &ForkLauncher::forkFinished);
        // Refused at once, with the reason: past the parent's end, an unknown run.
        QString why;
        QVERIFY(!forks.start(parent, 500.0, {}, &why));
        QVERIFY2(!why.isEmpty(), "no reason given");
        QVERIFY(!forks.start(parent + 99, 5.0, {}, &why));
        QVERIFY2(why.contains(QString::number(parent + 99)), qPrintable(why));
        QCOMPARE(started.count(), 0);

        QVERIFY2(forks.start(parent, 5.0, {}, &why), qPrintable(why));
        QCOMPARE(started.count(), 1);
        QVERIFY(controller.isActive()); // it runs like any run: Stop would work
        QVERIFY(ended.wait(30000));
        const qint64 fork = ended.at(0).at(1).toLongLong();
        QCOMPARE(ended.at(0).at(0).toLongLong(), parent);
        QVERIFY(fork > parent);
        QCOMPARE(QString::fromStdString(store.run(fork)->status), QString("finished"));
        // Without a change it reproduces the parent.
        const auto a = store.metrics(parent);
        const auto b = store.metrics(fork);
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) QCOMPARE(b[i].time, a[i].time);

        // The runs dock groups them: fork:N lists the parent and its fork, nothing else.
        QVERIFY(controller.start(s, db_, 1)); // an unrelated run
        QVERIFY(finished.wait(30000));
        RunsBrowser runs;
        runs.setStore(&store);
        QCOMPARE(runs.proxy()->rowCount(), 3);
        runs.setFilterText(QString("fork:%1").arg(parent));
        QCOMPARE(runs.proxy()->rowCount(), 2);
        QList<qint64> listed;
        for (int r = 0; r < 2; ++r) listed << runs.proxy()->index(r, 0).data(RunsTableModel::IdRole).toLongLong();
        std::sort(listed.begin(), listed.end());
        QCOMPARE(listed, (QList<qint64>{parent, fork}));

        // The comparison marks where they branch.
        ComparisonView compare;
        compare.setStore(&store);
        compare.setRuns({parent, fork});
        QCOMPARE(timeMarkerLabels(compare.curvePlot(PlotKind::TrainLoss)).size(), 0); // labelled once
        const QStringList labels = timeMarkerLabels(compare.curvePlot(PlotKind::TestAccuracy));
        QCOMPARE(labels, QStringList(QString("fork #%1 of #%2 at 5 s").arg(fork).arg(parent)));
        // Alone, the fork has no parent to branch from: no marker.
        compare.setRuns({fork});
        QVERIFY(timeMarkerLabels(compare.curvePlot(PlotKind::TestAccuracy)).isEmpty());
    }

private:
    QTemporaryDir dir_;
    QString db_;
    int dbCount_ = 0;
};

QTEST_MAIN(TestInterveneUi)
#include "test_intervene_ui.moc"
