#pragma once

#include <limits>
// The studio's main window: the topology canvas in the middle, the palette, inspector,
// policy and settings panels beside it, live plots below, the runs dock, and a comparison
// tab. It wires the reusable widgets to one document, one run controller and one run store;
// it holds no emulator logic of its own.

#include "app/gui/theme.h"
#include "core/system/metrics.h"
#include "core/spec/scenario.h"

#include <QMainWindow>
#include <QPointer>

#include <memory>

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QSplitter;
class QLabel;
class QListWidget;
class QMenu;
class QPlainTextEdit;
class QSpinBox;
class QTabWidget;
class QToolBar;

namespace fog {

class ComparisonView;
class ComparisonPlotExport;
class DocsViewer;
class EventLog;
class ForkLauncher;
class LessonsPanel;
class LivePlots;
class NodePalette;
class NodeLiveState;
class NodeTimeline;
class LinkThroughputPlot;
class PolicyPanel;
class RaceView;
class PropertyInspector;
class RunController;
class RunStore;
class RunsBrowser;
class ScenarioDocument;
class SettingsPanel;
struct StoredRun;
class TopologyCanvas;

struct StudioOptions {
    QString dbPath;       ///< empty: the default store
    QString scenarioPath; ///< empty: the default scenario (quickstart)
    int threads = 0;      ///< 0: the saved setting (default: all cores)
};

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const StudioOptions& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Opens a scenario file into the document (asks to save unsaved changes first when
    /// `askToSave`). Shows the loader's messages and keeps the current document on failure.
    bool openScenario(const QString& path, bool askToSave = true);
    /// Opens a preset as a new, untitled scenario (saving never overwrites a shipped preset).
    bool openPreset(const QString& path);

    ScenarioDocument* document() const { return document_; }
    RunController* controller() const { return controller_; }
    RunStore* store() const { return store_.get(); }
    TopologyCanvas* canvas() const { return canvas_; }
    PropertyInspector* inspector() const { return inspector_; }
    PolicyPanel* policyPanel() const { return policies_; }
    SettingsPanel* settingsPanel() const { return settings_; }
    LivePlots* livePlots() const { return live_; }
    NodeTimeline* timeline() const { return timeline_; }
    NodeLiveState* liveState() const { return liveState_; }
    RunsBrowser* runsBrowser() const { return runs_; }
    ComparisonView* comparison() const { return compare_; }
    QTabWidget* centralTabs() const { return centre_; }
    LessonsPanel* lessonsPanel() const { return lessons_; }
    ForkLauncher* forkLauncher() const { return forks_; } ///< forks of runs (Run > Fork from Here…)
    /// An action by objectName ("actionRun", "actionTheme_dark"), for tests and scripts; the
    /// window itself holds its actions as members (actions_).
    QAction* action(const QString& name) const;

  public Q_SLOTS:
    void startRun();
    void pauseRun();
    void stepRun();
    /// Steps one event of the run (starting it, paused, when none is going).
    void stepEventRun();
    /// Opens the sweep dialog on the scenario as it is now (widgets/sweep).
    void openSweepDialog();
    void stopRun();
    /// Asks what to run until (round, accuracy, budget) and runs.
    void runUntilDialog();
    void compareRuns(const QList<qint64>& ids);
    /// Shows a stored run: its topology on the canvas (opening its scenario when it is another
    /// one), its plots, timeline and figures; a cluster episode opens the comparison.
    void showStoredRun(qint64 id);
    void showComparison();
    /// Presentation mode: large fonts, thick lines (View ▸ Presentation Mode, F11).
    void setPresentationMode(bool on);
    bool presentationMode() const; ///< whether F11's presentation mode is on
    /// Virtual seconds per wall second (0: as fast as possible); the nearest offered speed.
    void setPlaybackSpeed(double speed);
    /// Race mode: the variants `labels` of the scenario edited (all: the first three; a
    /// scenario without variants races fully-sync against n-sync) in the Race tab, started
    /// when `start`. False, with `why`, when there is nothing to race or a race is going.
    bool startRace(const QStringList& labels, bool start = true, QString* why = nullptr);
    RaceView* raceView() const { return race_; }

Q_SIGNALS:
    /// Export Plots wrote these files (after its last figure).
    void plotsExported(const QStringList& paths);

public:
    /// The window's dock layout is kept per screen size: saved for `screen` (the available
    /// geometry's size; closing saves it), restored only on a screen of that size (the
    /// constructor restores the current screen's; false: none saved, the default layout).
    void saveLayout(const QSize& screen);
    bool restoreLayout(const QSize& screen);
    static QString layoutKey(const QSize& screen);
    /// Writes the figures of `ids` into `dir` as `format` (png, svg, pdf) without asking (the
    /// menu's Export Plots asks for the folder and format, then does this).
    void exportPlotsTo(const QList<qint64>& ids, const QString& dir, const QString& format);

protected:
    void closeEvent(QCloseEvent* event) override;
    /// Shrinks and moves the window into `available` (never past the screen).
    void fitInside(const QRect& available);
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void buildActions();
    void buildMenus();
    void buildToolBar();
    void buildDocks();
    void connectController();
    void newScenario();
    void openDialog();
    bool save();
    bool saveAs();
    /// Asks to save unsaved changes; false when the user cancels.
    bool maybeSave();
    void addRecentFile(const QString& path);
    void rebuildRecentMenu();
    void rebuildPresetsMenu();
    void updateTitle();
    void updateRunActions();
    void updateProblems();
    void exportPlots(const QList<qint64>& ids);
    void exportReport(const QList<qint64>& ids);
    QList<qint64> runsForExport() const;
    void rerun(qint64 id);
    static QString storedRunFigures(const StoredRun& run);
    /// Starts a run when none is active (false when the scenario has problems).
    bool ensureStarted();
    void setTheme(Theme t);
    void logEvent(const QString& line);
    void showAbout();
    void showDocs();
    /// The folder a file dialog for `purpose` ("scenarios", "exports") last used ("" if none).
    QString folderFor(const QString& purpose) const;
    void rememberFolder(const QString& purpose, const QString& path);
    /// Fits the canvas to the topology now and again once the layout has settled.
    void fitAfterLayout();
    /// Selects on the canvas the node or group a diagnostic's key path names.
    void selectKeyPath(const QString& path);
public:
    /// The name the next run of `title` is stored under: "title #n", n one more than the
    /// highest a stored run of that title has (core/analysis/run_labels.h, studioRunName).
    QString nextRunName(const QString& title) const;
    /// The title of the edited scenario's runs: its name, or for an untitled one the stem of
    /// its file, else "scenario" (never "untitled").
    QString runTitle() const;
private:

    ScenarioDocument* document_ = nullptr;
    RunController* controller_ = nullptr;
    std::unique_ptr<RunStore> store_;
    QString dbPath_;
    QString storeError_;

    QTabWidget* centre_ = nullptr;
    TopologyCanvas* canvas_ = nullptr;
    ComparisonView* compare_ = nullptr;
    NodePalette* palette_ = nullptr;
    PropertyInspector* inspector_ = nullptr;
    PolicyPanel* policies_ = nullptr;
    SettingsPanel* settings_ = nullptr;
    LivePlots* live_ = nullptr;
    NodeTimeline* timeline_ = nullptr;
    NodeLiveState* liveState_ = nullptr;
    RaceView* race_ = nullptr;
    LinkThroughputPlot* linkPlot_ = nullptr;
    RunsBrowser* runs_ = nullptr;
    QListWidget* problems_ = nullptr;
    EventLog* eventLog_ = nullptr;
    QTabWidget* bottomTabs_ = nullptr;
    QTabWidget* sideTabs_ = nullptr; ///< Inspector, Policies, Training (in docks_.side)
    LessonsPanel* lessons_ = nullptr;
    ForkLauncher* forks_ = nullptr;
    QPointer<DocsViewer> docsViewer_; ///< made when Help > Documentation is first asked for

    /// The actions the window makes (buildActions) and puts in its menus and tool bar; each
    /// also has an objectName ("actionNew", ...) that action() finds.
    struct Actions {
        QAction* newScenario = nullptr;
        QAction* open = nullptr;
        QAction* save = nullptr;
        QAction* saveAs = nullptr;
        QAction* exportPlots = nullptr;
        QAction* exportReport = nullptr;
        QAction* quit = nullptr;
        QAction* undo = nullptr;
        QAction* redo = nullptr;
        QAction* run = nullptr;
        QAction* pause = nullptr;
        QAction* step = nullptr;
        QAction* stepEvent = nullptr;
        QAction* runUntil = nullptr;
        QAction* stop = nullptr;
        QAction* fork = nullptr;
        QAction* compare = nullptr;
        QAction* presentation = nullptr;
        QAction* docs = nullptr;
        QAction* lessons = nullptr;
        QAction* about = nullptr;
    } actions_;
    /// The docks (objectNames paletteDock, runsDock, sideDock, lessonsDock: saved layouts
    /// find them by these).
    struct Docks {
        QDockWidget* palette = nullptr;
        QDockWidget* runs = nullptr;
        QDockWidget* side = nullptr;
        QDockWidget* lessons = nullptr;
    } docks_;
    QToolBar* toolBar_ = nullptr;

    QMenu* recentMenu_ = nullptr;
    QMenu* presetsMenu_ = nullptr;
    QComboBox* speed_ = nullptr;
    QSpinBox* threads_ = nullptr;
    QLabel* runStatus_ = nullptr;
    /// The live run's latest test accuracy (rounds between evaluations have none): the
    /// status bar shows it as the CLI's progress line does.
    double lastLiveAccuracy_ = std::numeric_limits<double>::quiet_NaN();
    QActionGroup* themeGroup_ = nullptr;

    bool fittedOnce_ = false;
    int problemCount_ = 0;
    bool restoredState_ = false;
    QSplitter* topologySplit_ = nullptr;
    QList<QDockWidget*> hiddenForComparison_;
    /// Presentation mode on a screen narrower than 1600 px: the editing docks step aside so
    /// that the canvas and the plots keep the width (back when it ends).
    QList<QDockWidget*> hiddenForPresentation_;
    void arrangeForPresentation();
    qint64 liveRunId_ = 0;
    bool showingLive_ = true;  ///< false while the plots show a stored run
    qint64 shownRunId_ = 0;    ///< the stored run the plots show (0: none)
    Scenario runScenario_;
    std::shared_ptr<ComparisonPlotExport> exportJob_; ///< the Export Plots under way
    QString exportDir_;
    void exportStep(const std::shared_ptr<ComparisonPlotExport>& job);     ///< what the current or last run was started with
};

} // namespace fog
