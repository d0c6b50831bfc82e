// fogstudio: the desktop face of the emulator.

#include "app/gui/autosave.h"
#include "app/gui/main_window.h"
#include "app/gui/scripted_interventions.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/run/race_view.h"
#include "widgets/run/run_controller.h"

#include <QApplication>
#include <QCoreApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QSpinBox>
#include <QTimer>

#include <iostream>
#include <tuple>

namespace {

void nameApplication() {
    QCoreApplication::setApplicationName("fogstudio");
    QCoreApplication::setOrganizationName("FogStudio");
    QCoreApplication::setApplicationVersion(FOGSTUDIO_VERSION);
}

/// The studio's command line: its options, added to a parser.
struct CommandLine {
    QCommandLineParser parser;
    QCommandLineOption db{"db", "The run database (default: $XDG_DATA_HOME/fogstudio/runs.db).", "FILE"};
    QCommandLineOption threads{"threads", "Worker threads for the real training (results are the same for any N).", "N"};
    QCommandLineOption run{"run", "Start the scenario as soon as the window is shown."};
    QCommandLineOption screenshot{"screenshot",
                                  "Save a picture of the window to FILE and quit: when the run ends (with --run), "
                                  "else once the window is shown. For documentation and checks under xvfb-run.",
                                  "FILE"};
    QCommandLineOption tab{"tab", "With --screenshot: show this central tab first (topology, comparison).", "NAME"};
    QCommandLineOption speed{"speed", "Playback speed in virtual seconds per wall second (0: as fast as possible).",
                             "S"};
    QCommandLineOption shotDelay{"shot-delay", "With --screenshot: take it after S seconds instead of at the end.",
                                 "S"};
    QCommandLineOption compare{"compare", "Open the comparison of these stored run ids (comma-separated).", "IDS"};
    QCommandLineOption recover{"recover", "Recover the newest autosave left by a studio that did not close cleanly, "
                                          "without asking (also FOGSTUDIO_RECOVER=yes)."};
    QCommandLineOption noRecover{"no-recover", "Discard that autosave without asking (also FOGSTUDIO_RECOVER=no)."};
    // Teaching (widgets/lessons): open on a lesson; with --run, run it.
    QCommandLineOption lesson{"lesson", "Show the Lessons panel on lesson N; with --run, run its variants (a "
                                        "screenshot is taken once they are done).", "N"};
    QCommandLineOption repeats{"repeats", "With --lesson: repeats of every variant (default: the preset's).", "R"};
    // Interventions without a mouse (app/gui/scripted_interventions.h).
    QCommandLineOption intervene{"intervene", "With --run: at virtual time T pause, intervene with ACTION (as the "
                                              "canvas's right-click menu does) and run on; repeatable.", "T: ACTION"};
    QCommandLineOption shotMenu{"shot-menu", "With --screenshot: draw the canvas's context menu on node, group or "
                                             "link ID (CHILD->PARENT) into the picture.", "ID"};
    QCommandLineOption race{"race", "Race mode: these variants of the scenario (comma-separated, or 'all' for the "
                                     "first three) side by side on one virtual clock; with --run, start the race (a "
                                     "screenshot is taken once every variant ended).", "VARIANTS"};
    QCommandLineOption presentation{"presentation", "Start in presentation mode (large fonts, thick lines; F11 "
                                                    "toggles it)."};

    CommandLine() {
        parser.setApplicationDescription(
            "FogStudio: draw a cloud / edge / device topology, choose how workers synchronise and which are "
            "selected, and run an emulator that trains a real model while a virtual clock accounts time, money "
            "and energy. Headless runs, sweeps and exports: fogstudio-cli.");
        parser.addHelpOption();
        parser.addVersionOption();
        parser.addPositionalArgument("scenario", "Scenario file to open (default: the quickstart preset).", "[FILE]");
        parser.addOptions({db, threads, run, speed, screenshot, shotDelay, tab, compare, recover, noRecover, lesson,
                           repeats, intervene, shotMenu, presentation, race});
    }
};

/// --help and --version need no window: answered before a display is opened (a terminal
/// without one, a CI job).
bool onlyAsksForHelp(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        if (a == "-h" || a == "--help" || a == "--help-all" || a == "-?" || a == "-v" || a == "--version") return true;
    }
    return false;
}

} // namespace

int main(int argc, char** argv) {
    if (onlyAsksForHelp(argc, argv)) {
        QCoreApplication app(argc, argv);
        nameApplication();
        CommandLine line;
        line.parser.process(app); // prints and exits
        return 0;
    }
    QApplication app(argc, argv);
    nameApplication();
    QApplication::setApplicationDisplayName("FogStudio");
    QApplication::setWindowIcon(QIcon(":/icons/fogstudio.svg"));

    CommandLine line;
    QCommandLineParser& parser = line.parser;
    const auto& [db, threads, run, screenshot, tab, speed, shotDelay, compare, recover, noRecover, lesson, repeats,
                 intervene, shotMenu, presentation] =
        std::tie(line.db, line.threads, line.run, line.screenshot, line.tab, line.speed, line.shotDelay, line.compare,
                 line.recover, line.noRecover, line.lesson, line.repeats, line.intervene, line.shotMenu,
                 line.presentation);
    parser.process(app);

    fog::StudioOptions options;
    options.dbPath = parser.value(db);
    options.threads = parser.value(threads).toInt();
    if (!parser.positionalArguments().isEmpty()) {
        options.scenarioPath = parser.positionalArguments().first();
        if (!QFileInfo::exists(options.scenarioPath)) {
            std::cerr << "fogstudio: " << options.scenarioPath.toStdString() << ": no such file\n";
            return 2;
        }
    }

    fog::MainWindow window(options);
    window.show();
    if (parser.isSet(presentation)) window.setPresentationMode(true);
    if (parser.isSet(speed)) window.setPlaybackSpeed(parser.value(speed).toDouble());
    // Unattended runs (--screenshot) are never stopped by the question; the autosave waits.
    if (!parser.isSet(screenshot) || parser.isSet(recover) || parser.isSet(noRecover))
        fog::Autosave::offerRecovery(window.document(), &window,
                                     fog::Autosave::modeFrom(parser.isSet(recover), parser.isSet(noRecover)));

    if (parser.isSet(compare)) {
        QList<qint64> ids;
        for (const QString& s : parser.value(compare).split(',', Qt::SkipEmptyParts)) ids << s.toLongLong();
        window.compareRuns(ids);
    }
    if (parser.value(tab) == "comparison") window.showComparison();

    const QString shot = parser.value(screenshot);
    const QString menuOn = parser.value(shotMenu);
    auto grab = [&window, shot, menuOn] {
        const QPixmap picture = window.grab();
        (menuOn.isEmpty() ? picture : fog::withCanvasMenu(window, picture, menuOn)).save(shot);
        std::cout << "fogstudio: wrote " << shot.toStdString() << std::endl;
        // exit(), not quit(): quit() closes the window, which would ask about a run still
        // going; the controller's destructor cancels it and waits for its thread.
        QApplication::exit(0);
    };
    if (!shot.isEmpty() && parser.isSet(shotDelay)) {
        QTimer::singleShot(static_cast<int>(1000 * parser.value(shotDelay).toDouble()), &window, grab);
    }
    fog::LessonsPanel* lessons = parser.isSet(lesson) ? window.lessonsPanel() : nullptr;
    if (lessons) {
        window.action("actionLessons")->trigger();
        for (int row = 0; row < static_cast<int>(lessons->lessons().size()); ++row)
            if (lessons->lessons()[static_cast<std::size_t>(row)].lesson.number == parser.value(lesson).toInt())
                lessons->setCurrentIndex(row);
        if (parser.isSet(repeats)) lessons->repeatsBox()->setValue(parser.value(repeats).toInt());
    }
    if (parser.isSet(line.race)) {
        QString why;
        const QStringList labels = parser.value(line.race).split(',', Qt::SkipEmptyParts);
        if (!window.startRace(labels, parser.isSet(run), &why)) {
            std::cerr << "fogstudio: --race: " << why.toStdString() << std::endl;
            return 2;
        }
        if (parser.isSet(run) && !shot.isEmpty() && !parser.isSet(shotDelay))
            QObject::connect(window.raceView(), &fog::RaceView::finished, &window, [grab] { QTimer::singleShot(800, grab); });
    } else if (lessons && parser.isSet(run)) {
        QTimer::singleShot(200, lessons, &fog::LessonsPanel::runLesson);
        if (!shot.isEmpty() && !parser.isSet(shotDelay))
            QObject::connect(lessons, &fog::LessonsPanel::lessonFinished, &window, [grab] { QTimer::singleShot(1500, grab); });
    } else if (parser.isSet(run)) {
        if (parser.isSet(intervene)) {
            try {
                (new fog::ScriptedInterventions(&window, parser.values(intervene)))->arm();
            } catch (const std::exception& e) {
                std::cerr << "fogstudio: " << e.what() << std::endl;
                return 2;
            }
        }
        QTimer::singleShot(200, &window, [&window] { window.startRun(); });
        if (!shot.isEmpty() && !parser.isSet(shotDelay))
            QObject::connect(window.controller(), &fog::RunController::finished, &window,
                             [grab] { QTimer::singleShot(600, grab); });
    } else if (!shot.isEmpty() && !parser.isSet(shotDelay)) {
        QTimer::singleShot(800, &window, grab);
    }
    return app.exec();
}
