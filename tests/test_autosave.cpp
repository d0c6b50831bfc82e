// Autosave of the edited scenario and recovery after a crash (issue 10): edit, wait for the
// autosave, "crash" (the session ends without a clean shutdown), start again, recover, and
// compare; plus what must not be offered (a live session's file, a file saved since) and
// what a clean save or quit removes.

#include "app/gui/autosave.h"
#include "app/gui/main_window.h"
#include "core/scenario/scenario_io.h"
#include "widgets/document/scenario_document.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include <memory>

using namespace fog;

namespace {

const char* kScenario = R"(name: autosave test
data: {dataset: none, samples_per_trainer: 10}
model: {kind: none}
stop: {rounds: 3}
topology:
  nodes:
    - {id: cloud, tier: cloud, role: aggregator, position: [0, 0]}
    - {id: a, parent: cloud, position: [-50, 100]}
    - {id: b, parent: cloud, position: [50, 100]}
)";

/// Edits as a user makes them: a node, a moved node, a stop rule, a policy.
void editLikeAUser(ScenarioDocument& doc) {
    NodeSpec c;
    c.id = "c";
    c.parent = "cloud";
    c.compute.throughput = Range::exactly(250);
    c.hasPosition = true;
    c.x = 150;
    c.y = 100;
    doc.addNode(c);
    doc.moveEntities({"a"}, {QPointF(-120, 140)});
    doc.edit("stop", [](Scenario& s) { s.stop.rounds = 77; });
    doc.edit("sync", [](Scenario& s) { s.sync = {"n-sync", {{"n", 2}}, {}, 0}; });
}

std::string text(const Scenario& s) { return saveScenarioText(s); }

} // namespace

class TestAutosave : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    QString dir() const { return tmp_.filePath("autosave"); }
    QString file() const { return tmp_.filePath("scenario.yaml"); }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(tmp_.isValid());
    }
    void init() {
        QDir(dir()).removeRecursively();
        QFile::remove(file());
        QFile f(file());
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kScenario);
    }

    void recoversAfterACrash() {
        std::string edited;
        {
            auto doc = std::make_unique<ScenarioDocument>();
            QVERIFY(doc->load(file()));
            Autosave autosave(doc.get(), dir());
            autosave.setDelay(50);
            editLikeAUser(*doc);
            edited = text(doc->scenario());
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave.filePath()), 5000);
            // While this session lives, its autosave is not somebody else's to recover.
            QVERIFY(Autosave::findOrphans(dir()).isEmpty());
            autosave.abandon(); // the crash: no clean shutdown, the file stays
        }
        // The next start: the file as it was saved, and an orphan newer than it.
        ScenarioDocument doc;
        QVERIFY(doc.load(file()));
        const auto orphans = Autosave::findOrphans(dir());
        QCOMPARE(orphans.size(), 1);
        QCOMPARE(orphans.first().originalPath, file());
        QVERIFY(Autosave::offerRecovery(&doc, nullptr, Autosave::RecoverMode::Recover, dir()));
        QCOMPARE(text(doc.scenario()), edited);
        QVERIFY(doc.isModified()); // recovered, not yet saved
        QCOMPARE(doc.filePath(), file());
        QVERIFY(Autosave::findOrphans(dir()).isEmpty()); // offered once
        // One undo step shows what the recovery changed.
        doc.undoStack()->undo();
        QCOMPARE(text(doc.scenario()), text(loadScenarioText(kScenario)));
    }

    void recoversAnUntitledScenario() {
        std::string edited;
        {
            ScenarioDocument doc;
            doc.setScenario(loadScenarioText(kScenario));
            Autosave autosave(&doc, dir());
            autosave.setDelay(0);
            editLikeAUser(doc);
            edited = text(doc.scenario());
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave.filePath()), 5000);
            autosave.abandon();
        }
        ScenarioDocument doc; // a fresh studio shows its default scenario
        QVERIFY(Autosave::offerRecovery(&doc, nullptr, Autosave::RecoverMode::Recover, dir()));
        QCOMPARE(text(doc.scenario()), edited);
        QVERIFY(doc.filePath().isEmpty());
        QVERIFY(doc.isModified());
    }

    void anEditInProgressWithProblemsIsRecoveredToo() {
        // A dangling parent: the loader would refuse it, the recovery must not lose it.
        {
            ScenarioDocument doc;
            QVERIFY(doc.load(file()));
            Autosave autosave(&doc, dir());
            autosave.setDelay(0);
            doc.setParent("b", "nowhere");
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave.filePath()), 5000);
            autosave.abandon();
        }
        ScenarioDocument doc;
        QVERIFY(Autosave::offerRecovery(&doc, nullptr, Autosave::RecoverMode::Recover, dir()));
        QCOMPARE(doc.scenario().topology.nodes[2].parent, std::string("nowhere"));
        QVERIFY(!doc.diagnostics().empty());
    }

    void cleanSaveAndQuitRemoveTheAutosave() {
        ScenarioDocument doc;
        QVERIFY(doc.load(file()));
        QString path;
        {
            Autosave autosave(&doc, dir());
            autosave.setDelay(0);
            path = autosave.filePath();
            doc.edit("stop", [](Scenario& s) { s.stop.rounds = 5; });
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(path), 5000);
            QVERIFY(doc.save());
            QVERIFY(!QFile::exists(path)); // saved: nothing to recover
            doc.edit("stop", [](Scenario& s) { s.stop.rounds = 6; });
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(path), 5000);
            doc.undoStack()->undo(); // back to the saved state
            QVERIFY(!QFile::exists(path));
            doc.edit("stop", [](Scenario& s) { s.stop.rounds = 7; });
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(path), 5000);
        } // a clean quit, even one that discards the changes
        QVERIFY(!QFile::exists(path));
        QVERIFY(Autosave::findOrphans(dir()).isEmpty());
    }

    void anAutosaveOlderThanItsFileIsDropped() {
        {
            ScenarioDocument doc;
            QVERIFY(doc.load(file()));
            Autosave autosave(&doc, dir());
            autosave.setDelay(0);
            doc.edit("stop", [](Scenario& s) { s.stop.rounds = 5; });
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave.filePath()), 5000);
            autosave.abandon();
        }
        // Saved since (e.g. by another studio): the file holds the newer work.
        QFile f(file());
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(60), QFileDevice::FileModificationTime));
        f.close();
        QVERIFY(Autosave::findOrphans(dir()).isEmpty());
        QVERIFY(QDir(dir()).entryList({"*.yaml"}, QDir::Files).isEmpty());
    }

    void discardRemovesTheOrphan() {
        {
            ScenarioDocument doc;
            QVERIFY(doc.load(file()));
            Autosave autosave(&doc, dir());
            autosave.setDelay(0);
            doc.edit("stop", [](Scenario& s) { s.stop.rounds = 5; });
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(autosave.filePath()), 5000);
            autosave.abandon();
        }
        ScenarioDocument doc;
        QVERIFY(doc.load(file()));
        QVERIFY(!Autosave::offerRecovery(&doc, nullptr, Autosave::RecoverMode::Discard, dir()));
        QVERIFY(!doc.isModified());
        QVERIFY(Autosave::findOrphans(dir()).isEmpty());
    }

    void theStudioAutosavesItsDocument() {
        // The hook in the main window: an edit is autosaved to the default folder, and a clean
        // close removes it.
        QTemporaryDir data;
        StudioOptions o;
        o.dbPath = data.filePath("runs.db");
        o.scenarioPath = file();
        QString path;
        {
            MainWindow w(o);
            auto* autosave = w.findChild<Autosave*>();
            QVERIFY(autosave);
            QVERIFY(autosave->filePath().startsWith(Autosave::defaultDirectory()));
            autosave->setDelay(0);
            path = autosave->filePath();
            w.document()->edit("stop", [](Scenario& s) { s.stop.rounds = 9; });
            QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(path), 5000);
            QVERIFY(QFile(path).open(QIODevice::ReadOnly));
        }
        QVERIFY(!QFile::exists(path));
    }

    void modeFromOptionsAndEnvironment() {
        QCOMPARE(Autosave::modeFrom(true, false), Autosave::RecoverMode::Recover);
        QCOMPARE(Autosave::modeFrom(false, true), Autosave::RecoverMode::Discard);
        qputenv("FOGSTUDIO_RECOVER", "no");
        QCOMPARE(Autosave::modeFrom(false, false), Autosave::RecoverMode::Discard);
        qputenv("FOGSTUDIO_RECOVER", "yes");
        QCOMPARE(Autosave::modeFrom(false, false), Autosave::RecoverMode::Recover);
        qunsetenv("FOGSTUDIO_RECOVER");
        QCOMPARE(Autosave::modeFrom(false, false), Autosave::RecoverMode::Ask);
    }
};

QTEST_MAIN(TestAutosave)
#include "test_autosave.moc"
