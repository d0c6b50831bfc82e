// Lessons from the preset files (issue 15): every preset with a lesson is listed in the
// studio's Lessons panel with its question, what to look for and the steps; docs/lessons.md
// is the generated text; "Run This Lesson" runs the variants as one group, Stop works; Help
// opens no folder.

#include "app/gui/docs_viewer.h"
#include "app/gui/main_window.h"
#include "core/cluster/cluster_io.h"
#include "core/scenario/events_io.h"
#include "core/scenario/lessons.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "widgets/document/scenario_document.h"
#include "widgets/lessons/lessons_panel.h"

#include <QAction>
#include <fstream>
#include <iterator>
#include <QComboBox>
#include <QDir>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFile>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include <filesystem>
#include <set>

using namespace fog;

namespace {

const std::string kPresets = std::string(FOG_SOURCE_DIR) + "/presets";
const QString kDocs = QStringLiteral(FOG_SOURCE_DIR "/docs");

QString readText(const QString& path) {
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return QString::fromUtf8(f.readAll());
}

void writeText(const QString& path, const std::string& text) {
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text.data(), static_cast<qint64>(text.size()));
}

/// A timing-only preset with a lesson and two variants; `rounds` sets how long a run is.
std::string timingPreset(int rounds) {
    return "name: tiny\n"
           "data: {dataset: none, samples_per_trainer: 64}\n"
           "model: {kind: none, wire_bytes: 1000}\n"
           "topology:\n  nodes:\n    - {id: ps, role: aggregator}\n  groups:\n"
           "    - {id: w, count: 4, parent: ps, compute: {noise: {kind: exponential}}}\n"
           "sync: {policy: fully-sync}\n"
           "stop: {rounds: " + std::to_string(rounds) + "}\n"
           "variants:\n  - {name: all, set: {}}\n  - {name: first-two, set: {sync: {policy: n-sync, n: 2}}}\n"
           "repeats: 2\n"
           "lesson:\n  number: 1\n  title: Tiny\n  question: Does waiting for fewer help?\n"
           "  look_for: Shorter rounds.\n  steps: [Press Run This Lesson.]\n  body: The rest.\n";
}

} // namespace

class TestLessons : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyPresetHasALesson() {
        std::vector<std::string> problems;
        const auto lessons = presetLessons(kPresets, &problems);
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        // Every preset but the quickstart teaches something; numbers are 1, 2, 3, ...
        int files = 0;
        for (const auto& e : std::filesystem::directory_iterator(kPresets))
            files += e.path().extension() == ".yaml" && e.path().filename() != "quickstart.yaml";
        QCOMPARE(static_cast<int>(lessons.size()), files);
        for (std::size_t i = 0; i < lessons.size(); ++i) {
            const auto& l = lessons[i];
            QCOMPARE(l.lesson.number, static_cast<int>(i) + 1);
            QVERIFY2(!l.lesson.title.empty() && !l.lesson.question.empty() && !l.lesson.lookFor.empty() &&
                         !l.lesson.steps.empty() && l.lesson.body.size() > 200,
                     l.fileName.c_str());
            // A lesson that compares things runs them together: its preset has variants.
            if (!l.cluster) QVERIFY2(!l.variants.empty() || l.fileName == "edge-1000-devices.yaml", l.fileName.c_str());
        }
        // The loaders keep the lesson too (the studio saves it back).
        QCOMPARE(loadScenarioFile(kPresets + "/volatile-spot-sync.yaml").lesson.number, 1);
        const auto cluster = cluster::loadClusterScenarioFile(kPresets + "/tapfinger-edge-cluster.yaml");
        QCOMPARE(cluster.lesson.number, 9);
        QCOMPARE(cluster::loadClusterScenarioText(cluster::saveClusterScenarioText(cluster), "saved").lesson.body,
                 cluster.lesson.body);
    }

    void docsMatchTheGeneratedText() {
        const QString text = readText(kDocs + "/lessons.md");
        const QString begin = kLessonsBegin, end = kLessonsEnd;
        const auto from = text.indexOf(begin), to = text.indexOf(end);
        QVERIFY2(from >= 0 && to > from, "docs/lessons.md lacks the lessons markers");
        const QString generated = text.mid(from + begin.size(), to - from - begin.size());
        // On a difference: fogstudio-cli lessons --markdown, pasted between the markers.
        QCOMPARE(generated, QString::fromStdString(lessonsMarkdown(presetLessons(kPresets))));
    }

    void panelListsEveryPresetWithItsText() {
        LessonsPanel panel;
        panel.resize(420, 700);
        panel.setDirectories(QString::fromStdString(kPresets), kDocs);
        const auto lessons = presetLessons(kPresets);
        QCOMPARE(panel.list()->count(), static_cast<int>(lessons.size()));
        auto* text = panel.findChild<QTextBrowser*>("lessonText");
        QVERIFY(text);
        for (int row = 0; row < panel.list()->count(); ++row) {
            panel.setCurrentIndex(row);
            const PresetLesson& l = lessons[static_cast<std::size_t>(row)];
            QVERIFY(panel.list()->item(row)->text().contains(QString::fromStdString(l.lesson.title)));
            const QString shown = text->toPlainText();
            for (const std::string& part : {l.lesson.question, l.lesson.lookFor, l.lesson.steps.front()}) {
                // Compare the words: Markdown emphasis and line breaks render differently.
                const QString words = QString::fromStdString(lessonPlainText(part)).left(40);
                QVERIFY2(shown.simplified().contains(words.simplified()), qPrintable(QString::fromStdString(l.fileName + ": ") + words));
            }
            QCOMPARE(panel.findChild<QSpinBox*>("lessonRepeats")->value(), std::max(1, l.repeats));
        }
    }

    void runThisLessonStoresOneGroupAndStopWorks() {
        QTemporaryDir dir;
        const QString presets = dir.filePath("presets");
        QDir().mkpath(presets);
        writeText(presets + "/tiny.yaml", timingPreset(20));
        RunStore store(dir.filePath("runs.db").toStdString());
        LessonsPanel panel;
        panel.setDirectories(presets, {});
        panel.setStore(&store);
        panel.setThreadsProvider([] { return 1; });
        QCOMPARE(panel.list()->count(), 1);
        QSignalSpy opened(&panel, &LessonsPanel::openPresetRequested);
        QSignalSpy finished(&panel, &LessonsPanel::lessonFinished);
        panel.findChild<QPushButton*>("runLessonButton")->click();
        QCOMPARE(opened.count(), 1); // the preset is loaded in the editor too
        QVERIFY(panel.running());
        QVERIFY(finished.wait(30000));
        const auto ids = finished.at(0).at(0).value<QList<qint64>>();
        QCOMPARE(ids.size(), 4); // 2 variants x 2 repeats
        QCOMPARE(finished.at(0).at(1).toBool(), false);
        std::set<std::int64_t> sweeps;
        std::set<std::string> labels;
        for (qint64 id : ids) {
            const auto run = store.run(id);
            QVERIFY(run);
            sweeps.insert(run->sweepId);
            labels.insert(run->sweepConfig);
            QCOMPARE(run->status, std::string("finished"));
        }
        QCOMPARE(sweeps.size(), std::size_t(1));
        QCOMPARE(labels, (std::set<std::string>{"all", "first-two"}));
        QCOMPARE(panel.findChild<QProgressBar*>("lessonProgress")->value(), 4);

        // A long lesson: Stop ends it, and what ran says it was cancelled.
        writeText(presets + "/tiny.yaml", timingPreset(1000000));
        panel.setDirectories(presets, {});
        panel.findChild<QPushButton*>("runLessonButton")->click();
        QVERIFY(panel.running());
        QTest::qWait(300);
        panel.findChild<QPushButton*>("stopLessonButton")->click();
        QVERIFY(finished.wait(30000));
        QCOMPARE(finished.at(1).at(1).toBool(), true);
        QVERIFY(!panel.running());
    }

    void helpShowsLessonsAndOpensNoFolder() {
        QTemporaryDir dir;
        StudioOptions options;
        options.dbPath = dir.filePath("runs.db");
        MainWindow w(options);
        w.resize(1280, 720);
        w.show();
        QAction* lessons = w.action("actionLessons");
        QVERIFY(lessons);
        lessons->trigger();
        auto* dock = w.findChild<QDockWidget*>("lessonsDock");
        QVERIFY(dock && dock->isVisible());
        auto* panel = w.findChild<LessonsPanel*>();
        QVERIFY(panel && panel->list()->count() >= 9);
        // Open Variant puts the variant's topology in the editor.
        panel->setCurrentIndex(5); // lesson 6: three regions
        auto* combo = panel->findChild<QComboBox*>("lessonVariants");
        combo->setCurrentIndex(combo->findText("regional-ma"));
        panel->findChild<QPushButton*>("openVariantButton")->click();
        QVERIFY(w.document()->scenario().topology.find("ps-sh") >= 0);
        // The documentation viewer has no button that opens a folder.
        DocsViewer viewer(docsDirectory(), "studio.md");
        for (QPushButton* b : viewer.findChildren<QPushButton*>())
            QVERIFY2(!b->text().contains("Folder", Qt::CaseInsensitive), qPrintable(b->text()));
    }
};

QTEST_MAIN(TestLessons)
#include "test_lessons.moc"
