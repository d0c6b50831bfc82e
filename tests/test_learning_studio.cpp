// The learning side in the studio (issue 25): the policy panel offers the local optimiser,
// the server optimiser and the codecs with their formulas (client algorithms, DP-FedAvg and
// SecAgg are sync policies of its Synchronisation chooser), each choice one undoable edit;
// the live and stored-run plots show the epsilon of DP-FedAvg's privacy events and the bytes
// each round moved. Offscreen: the test reads what the widgets show.

#include "core/policies/policy_info.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "widgets/document/scenario_document.h"
#include "widgets/plots/live_plots.h"
#include "widgets/figures/qcustomplot.h"
#include "widgets/policy/policy_panel.h"

#include <QComboBox>
#include <QLabel>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

using namespace fog;

namespace {

QString plainText(const QString& html) {
    QTextDocument d;
    d.setHtml(html);
    return d.toPlainText();
}

/// The graph of `plot` on its right axis (nullptr: none).
QCPGraph* rightAxisGraph(QCustomPlot* plot) {
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->valueAxis() == plot->yAxis2) return plot->graph(i);
    return nullptr;
}

AggregationRecord round(int r, double time, double bytes, double accuracy) {
    AggregationRecord a;
    a.round = r;
    a.time = time;
    a.bytes = bytes;
    a.participants = 2;
    a.trainLoss = 1.0 / r;
    a.testAccuracy = accuracy;
    a.testLoss = 1.0 / r;
    return a;
}

RunEvent privacy(double time, const std::string& detail) {
    RunEvent e;
    e.time = time;
    e.kind = RunEventKind::Privacy;
    e.detail = detail;
    return e;
}

} // namespace

class TestLearningStudio : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void policyPanelOffersTheAlgorithmsWithTheirFormulas() {
        ScenarioDocument doc;
        PolicyPanel panel;
        panel.resize(420, 1600);
        panel.setDocument(&doc);
        panel.show();
        // The client algorithms, DP and SecAgg are sync policies, each with its formula.
        QComboBox* sync = panel.syncChooser()->nameBox();
        for (const char* name : {"fedprox", "scaffold", "fednova", "fedbuff", "dp-fedavg", "secagg"})
            QVERIFY2(sync->findText(name) >= 0, name);
        sync->setCurrentIndex(sync->findText("scaffold"));
        QLabel* syncText = nullptr;
        for (QLabel* l : panel.syncChooser()->findChildren<QLabel*>())
            if (l->text().contains("Karimireddy")) syncText = l;
        QVERIFY2(syncText, "the SCAFFOLD explanation names its source");
        QVERIFY(plainText(syncText->text()).contains("c_i+ = c_i - c + (x - y_i) / (K eta)"));

        LearningChooser* learning = panel.learningChooser();
        QVERIFY(learning && learning->isVisible());
        // Every row lists its catalogue and shows the current choice's formula.
        const struct {
            const char* key;
            const char* choice;
            const char* formula; ///< part of what the explanation must show
        } rows[] = {
            {"training.optimizer", "adam", "Kingma"},
            {"training.server_optimizer", "fedyogi", "sign(v - Delta^2)"},
            {"training.codec_up", "topk", "error feedback"},
            {"training.codec_down", "quantize", "Bernoulli"},
            {"training.aggregator_codec_up", "quantize", "Bernoulli"},
            {"training.aggregator_codec_down", "fp16", "IEEE"},
        };
        for (const auto& row : rows) {
            QComboBox* box = learning->box(row.key);
            QVERIFY2(box, row.key);
            QCOMPARE(box->currentText(), QString(row.key == std::string("training.optimizer") ? "sgd" : "none"));
            box->setCurrentIndex(box->findText(row.choice));
            QCOMPARE(box->currentText(), QString(row.choice));
            const QString shown = plainText(panel.findChild<QLabel*>(QString(row.key) + ".explanation")->text());
            QVERIFY2(shown.contains(row.formula), qPrintable(QString(row.key) + ": " + shown));
            QVERIFY2(shown.contains("Source: "), qPrintable(shown));
        }
        // Each choice is one undoable edit of the document.
        QCOMPARE(doc.scenario().training.optimizer, std::string("adam"));
        QCOMPARE(doc.scenario().training.serverOptimizer, std::string("fedyogi"));
        QCOMPARE(doc.scenario().training.codecUp, std::string("topk"));
        QCOMPARE(doc.scenario().training.codecDown, std::string("quantize"));
        // The codecs between the aggregators of a tiered tree are rows of their own, each
        // writing its own key (and the devices' codecs stay as they were chosen above).
        QCOMPARE(doc.scenario().training.aggregatorCodecUp, std::string("quantize"));
        QCOMPARE(doc.scenario().training.aggregatorCodecDown, std::string("fp16"));
        QCOMPARE(learning->box("training.aggregator_codec_down")->findText("topk"), -1);
        QVERIFY(learning->box("training.aggregator_codec_up")->findText("topk") >= 0);
        doc.undoStack()->undo(); // aggregator_codec_down
        QCOMPARE(doc.scenario().training.aggregatorCodecDown, std::string("none"));
        doc.undoStack()->undo(); // aggregator_codec_up
        doc.undoStack()->undo();
        QCOMPARE(doc.scenario().training.codecDown, std::string("none"));
        QCOMPARE(learning->box("training.codec_down")->currentText(), QString("none")); // the panel follows
        // Top-k is uplink only: the downlink does not offer it.
        QCOMPARE(learning->box("training.codec_down")->findText("topk"), -1);
        // A loaded scenario's choices are shown.
        Scenario s = doc.scenario();
        s.training.optimizer = "nesterov";
        s.training.codecUp = "fp16";
        doc.setScenario(s);
        QCOMPARE(learning->box("training.optimizer")->currentText(), QString("nesterov"));
        QVERIFY(plainText(learning->explanation("training.codec_up")).contains("IEEE"));
    }

    void livePlotsShowEpsilonAndBytesPerRound() {
        LivePlots plots;
        plots.resize(1200, 800);
        plots.show();
        Scenario s;
        s.name = "dp";
        RunInfo info;
        info.scenarioName = "dp run";
        plots.reset(info, s);
        plots.append({round(1, 2.0, 3e6, 0.5)});
        plots.appendEvents({privacy(2.0, "epsilon=0.75 delta=1e-05 rounds=1 q=0.2 sigma=1 order=12")});
        QTest::qWait(100);
        plots.append({round(2, 4.0, 5e6, 0.6)});
        plots.appendEvents({privacy(4.0, "epsilon=1.25 delta=1e-05 rounds=2 q=0.2 sigma=1 order=10")});
        QTest::qWait(100);
        // Epsilon on the accuracy plot's right axis, one point per privacy event.
        QCPGraph* eps = rightAxisGraph(plots.plot(LivePlots::Panel::Accuracy));
        QVERIFY(eps);
        QVERIFY(plots.plot(LivePlots::Panel::Accuracy)->yAxis2->visible());
        QVERIFY2(eps->name().contains("δ = 1e-05"), qPrintable(eps->name()));
        QCOMPARE(eps->data()->size(), 2);
        QCOMPARE(eps->data()->at(1)->key, 4.0);
        QCOMPARE(eps->data()->at(1)->value, 1.25);
        // Megabytes per round on the round-time plot's right axis: 3 MB, then 2 MB.
        QCPGraph* bytes = rightAxisGraph(plots.plot(LivePlots::Panel::RoundTime));
        QVERIFY(bytes);
        QCOMPARE(bytes->name(), QString("MB per round"));
        QCOMPARE(bytes->data()->size(), 2);
        QCOMPARE(bytes->data()->at(0)->value, 3.0);
        QCOMPARE(bytes->data()->at(1)->value, 2.0);
        const QString figures = plainText(plots.figuresText());
        QVERIFY2(figures.contains("bytes per round") && figures.contains("2.5 MB"), qPrintable(figures));
        QVERIFY2(figures.contains("ε = 1.25 at δ = 1e-05"), qPrintable(figures));
        // The right axis scales to its own curve, not to the accuracy in percent.
        QVERIFY(plots.plot(LivePlots::Panel::Accuracy)->yAxis2->range().upper < 5);

        // A stored run: the same from the store's metrics and events.
        QTemporaryDir dir;
        RunStore store(dir.filePath("runs.db").toStdString());
        Scenario stored = loadScenarioText("name: stored\n"
                                           "data: {dataset: none, samples_per_trainer: 10}\n"
                                           "model: {kind: none, wire_bytes: 1000}\n"
                                           "topology:\n  nodes:\n    - {id: ps, role: aggregator}\n"
                                           "    - {id: w, role: trainer, parent: ps}\n"
                                           "sync: {policy: dp-fedavg}\nstop: {rounds: 2}\n",
                                           "stored");
        NewRun run;
        run.name = "stored";
        run.scenarioYaml = saveScenarioText(stored);
        const std::int64_t id = store.beginRun(run);
        store.appendMetrics(id, {round(1, 1.0, 2e6, 0.4), round(2, 2.0, 4e6, 0.5)});
        store.appendEvents(id, {privacy(1.0, "epsilon=2 delta=1e-06 rounds=1"), privacy(2.0, "epsilon=3 delta=1e-06 rounds=2")});
        RunSummary done;
        done.status = RunStatus::Finished;
        store.finishRun(id, done);
        QVERIFY(plots.showStoredRun(store, id));
        QTest::qWait(100);
        eps = rightAxisGraph(plots.plot(LivePlots::Panel::Accuracy));
        QVERIFY(eps);
        QCOMPARE(eps->data()->size(), 2);
        QCOMPARE(eps->data()->at(1)->value, 3.0);
        bytes = rightAxisGraph(plots.plot(LivePlots::Panel::RoundTime));
        QVERIFY(bytes);
        QCOMPARE(bytes->data()->at(1)->value, 2.0);
        QVERIFY(plainText(plots.figuresText()).contains("ε = 3 at δ = 1e-06"));

        // A run without privacy events or bytes draws no right axis.
        plots.showRun("plain", Scenario{}, {round(1, 1.0, 0.0, 0.3)});
        QTest::qWait(100);
        QVERIFY(!rightAxisGraph(plots.plot(LivePlots::Panel::Accuracy)));
        QVERIFY(!rightAxisGraph(plots.plot(LivePlots::Panel::RoundTime)));
        QVERIFY(!plots.plot(LivePlots::Panel::Accuracy)->yAxis2->visible());
    }
};

QTEST_MAIN(TestLearningStudio)
#include "test_learning_studio.moc"
