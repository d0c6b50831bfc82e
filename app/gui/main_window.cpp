#include "app/gui/main_window.h"

#include "widgets/compare/comparison_export.h"
#include "app/export/report.h"
#include "app/gui/autosave.h"
#include "app/gui/docs_viewer.h"
#include "app/gui/presentation.h"
#include "app/gui/presets.h"
#include "app/gui/testbed_launcher.h"
#include "app/gui/race_launcher.h"
#include "core/analysis/run_labels.h"
#include "core/cluster/cluster_io.h"
#include "widgets/cluster/cluster_window.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "widgets/compare/comparison_view.h"
#include "widgets/intervene/fork_launcher.h"
#include "widgets/intervene/intervene_menu.h"
#include "widgets/document/scenario_document.h"
#include "widgets/lessons/lessons_panel.h"
#include "widgets/plots/live_plots.h"
#include "widgets/plots/link_plot.h"
#include "widgets/plots/linked_cursor.h"
#include "widgets/plots/node_timeline.h"
#include "widgets/policy/policy_panel.h"
#include "widgets/policy/settings_panel.h"
#include "widgets/run/event_log.h"
#include "widgets/run/node_live_state.h"
#include "widgets/run/race_view.h"
#include "widgets/run/run_controller.h"
#include "widgets/run/run_status_line.h"
#include "widgets/runs/runs_browser.h"
#include "widgets/seek/seek_dialog.h"
#include "widgets/sweep/sweep_dialog.h"
#include "widgets/topology/node_item.h"
#include "widgets/topology/node_palette.h"
#include "widgets/topology/property_inspector.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QInputDialog>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QUrl>

#include <algorithm>
#include <cmath>

// Resources live in the static GUI library: register them explicitly (outside any namespace).
static void initStudioResources() { Q_INIT_RESOURCE(fogstudio); }

namespace fog {

namespace {

constexpr int kMaxRecent = 8;

QString fmtNumber(double v, int decimals) { return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', decimals); }

/// `w` in a frameless scroll area: where the window is smaller than what `w` needs (a
/// projector, a laptop, a large scale factor), it scrolls instead of making the window wider
/// or taller than the screen.
QScrollArea* scrollable(QWidget* w, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setObjectName(w->objectName().isEmpty() ? QString("scroll") : w->objectName() + "Scroll");
    area->setFrameShape(QFrame::NoFrame);
    area->setWidgetResizable(true);
    area->setWidget(w);
    return area;
}

/// Shows the tab holding `w` (directly or inside a scroll area).
void showPage(QTabWidget* tabs, QWidget* w) {
    for (int i = 0; i < tabs->count(); ++i)
        if (tabs->widget(i) == w || tabs->widget(i)->isAncestorOf(w)) tabs->setCurrentIndex(i);
}

/// Playback speeds offered for teaching: virtual seconds per wall second (0: as fast as
/// possible).
const QVector<QPair<QString, double>>& speeds() {
    static const QVector<QPair<QString, double>> list = {
        {QObject::tr("As fast as possible"), 0.0}, {QObject::tr("1 s per second"), 1.0},
        {QObject::tr("5 s per second"), 5.0},      {QObject::tr("20 s per second"), 20.0},
        {QObject::tr("100 s per second"), 100.0},  {QObject::tr("500 s per second"), 500.0},
    };
    return list;
}

} // namespace

MainWindow::MainWindow(const StudioOptions& options, QWidget* parent) : QMainWindow(parent) {
    initStudioResources();
    setObjectName("MainWindow");
    setWindowIcon(QIcon(":/icons/fogstudio.svg"));
    QSettings settings;

    document_ = new ScenarioDocument(this);
    controller_ = new RunController(this);

    dbPath_ = options.dbPath.isEmpty() ? QString::fromStdString(RunStore::defaultPath()) : options.dbPath;
    try {
        QDir().mkpath(QFileInfo(dbPath_).absolutePath());
        store_ = std::make_unique<RunStore>(dbPath_.toStdString());
    } catch (const std::exception& e) {
        // A damaged or foreign database must not stop the studio: runs are then not stored
        // and the runs dock says why. Nothing in the file is touched.
        storeError_ = QString::fromUtf8(e.what());
    }

    centre_ = new QTabWidget(this);
    centre_->setDocumentMode(true);
    canvas_ = new TopologyCanvas(document_, centre_);
    canvas_->snapAction()->setChecked(settings.value("canvas/snap", true).toBool());
    compare_ = new ComparisonView(centre_);
    compare_->setStore(store_.get());
    // The Topology tab: the canvas with the live run panels below it. The Comparison tab gets
    // the whole window: the editing docks step aside while it shows.
    topologySplit_ = new QSplitter(Qt::Vertical, centre_);
    topologySplit_->setObjectName("topologySplit");
    topologySplit_->addWidget(canvas_);
    centre_->addTab(topologySplit_, tr("Topology"));
    centre_->addTab(compare_, tr("Comparison"));
    setCentralWidget(centre_);

    buildActions();
    buildDocks();
    buildMenus();
    buildToolBar();
    connectController();

    runStatus_ = new QLabel(this);
    runStatus_->setObjectName("runFigures"); // the run going's figures, or the stored run's shown
    statusBar()->addPermanentWidget(new RunStatusLine(controller_, this)); // why it paused or ended
    statusBar()->addPermanentWidget(runStatus_);
    if (!storeError_.isEmpty()) {
        // Runs that cannot be stored are refused (nothing is lost silently): said where the
        // user looks, for as long as the window is open.
        auto* banner = new QLabel(tr("Runs cannot be stored, so Run is off: %1. Start the studio with --db pointing "
                                     "to a FogStudio run database (or a new file).")
                                      .arg(storeError_),
                                  this);
        banner->setObjectName("storeErrorBanner");
        banner->setWordWrap(true);
        banner->setStyleSheet("QLabel { color: white; background: #b5401c; padding: 3px 8px; }");
        statusBar()->addWidget(banner, 1);
    }

    connect(document_, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(document_, &ScenarioDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(document_, &ScenarioDocument::scenarioChanged, this, &MainWindow::updateProblems);
    // Another scenario: the plots and timeline of the previous one's run go (a run still
    // going keeps its own).
    connect(document_, &ScenarioDocument::topologyReset, this, [this] {
        if (controller_->isActive()) return;
        live_->clear();
        timeline_->reset(RunInfo{});
        linkPlot_->reset(RunInfo{});
        liveState_->clear();
        liveRunId_ = 0;
        shownRunId_ = 0;
        showingLive_ = true;
        runStatus_->clear();
    });
    // The expectation line above the plots speaks of the scenario as edited (or names both
    // when it shows a run of another policy).
    connect(document_, &ScenarioDocument::scenarioChanged, this,
            [this] { live_->setEditedScenario(document_->scenario()); });
    connect(document_, &ScenarioDocument::scenarioChanged, this, &MainWindow::updateTitle);

    if (options.threads > 0) threads_->setValue(options.threads);
    if (store_) {
        const qint64 baseline = settings.value("baseline/" + QString(dbPath_.toUtf8().toHex()), 0).toLongLong();
        if (baseline > 0 && store_->run(baseline)) runs_->setBaseline(baseline);
    }
    setTheme(themeFromString(settings.value("theme", "system").toString()));

    // Inside the available screen, whatever its size and scale factor: a projector at
    // 1280x720, a laptop at scale 2, or a geometry saved on a larger screen.
    const QRect avail = (screen() ? screen() : QGuiApplication::primaryScreen())->availableGeometry();
    resize(QSize(1400, 900).boundedTo(avail.size() * 0.96));
    restoreGeometry(settings.value("window/geometry").toByteArray());
    fitInside(avail);
    restoredState_ = restoreLayout(avail.size());

    const QString start = options.scenarioPath.isEmpty() ? defaultScenarioPath() : options.scenarioPath;
    const bool isDefault = options.scenarioPath.isEmpty();
    if (!(isDefault ? openPreset(start) : openScenario(start, false))) {
        // Even the default could not be read (e.g. a broken FOGSTUDIO_PRESETS): start from the
        // compiled-in quickstart, which always loads.
        QString error;
        document_->load(":/presets/quickstart.yaml", &error);
    } else if (!isDefault && cluster::isClusterScenarioFile(start.toStdString())) {
        openPreset(defaultScenarioPath()); // the cluster file has its own window; this one shows the default
    }
    updateTitle();
    updateRunActions();
    updateProblems();
    new Autosave(document_, {}, this); // unsaved edits survive a crash (app/gui/autosave.h)
}

MainWindow::~MainWindow() {
    // A run still going is cancelled first, with nothing forwarded to views being destroyed;
    // then the views (canvas, comparison, inspector) go before the document they show.
    controller_->disconnect(this);
    delete controller_;
    controller_ = nullptr;
    delete centre_;
    delete docks_.side;
    docks_.side = nullptr;
}

QAction* MainWindow::action(const QString& name) const { return findChild<QAction*>(name); }

void MainWindow::buildActions() {
    auto make = [this](const QString& name, const QString& text, const QKeySequence& key, auto slot,
                       const QIcon& icon = {}) {
        auto* a = new QAction(icon, text, this);
        a->setObjectName(name);
        if (!key.isEmpty()) a->setShortcut(key);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    const QStyle* st = style();
    actions_.newScenario = make("actionNew", tr("&New"), QKeySequence::New,
                                &MainWindow::newScenario, QIcon::fromTheme("document-new"));
    actions_.open =
        make("actionOpen", tr("&Open…"), QKeySequence::Open, &MainWindow::openDialog,
             QIcon::fromTheme("document-open", st->standardIcon(QStyle::SP_DialogOpenButton)));
    actions_.save = make(
        "actionSave", tr("&Save"), QKeySequence::Save, [this] { save(); },
        QIcon::fromTheme("document-save", st->standardIcon(QStyle::SP_DialogSaveButton)));
    actions_.saveAs =
        make("actionSaveAs", tr("Save &As…"), QKeySequence::SaveAs, [this] { saveAs(); });
    actions_.exportPlots = make("actionExportPlots", tr("Export &Plots…"), QKeySequence(),
                                [this] { exportPlots(runsForExport()); });
    actions_.exportReport = make("actionExportReport", tr("Export &Report…"), QKeySequence(),
                                 [this] { exportReport(runsForExport()); });
    actions_.quit = make("actionQuit", tr("&Quit"), QKeySequence::Quit, &QWidget::close);

    QAction* undo = actions_.undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName("actionUndo");
    undo->setShortcut(QKeySequence::Undo);
    undo->setIcon(QIcon::fromTheme("edit-undo"));
    QAction* redo = actions_.redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName("actionRedo");
    redo->setShortcut(QKeySequence::Redo);
    redo->setIcon(QIcon::fromTheme("edit-redo"));

    actions_.run = make("actionRun", tr("&Run"), QKeySequence(Qt::Key_F5), &MainWindow::startRun,
                        transportIcon("run"));
    actions_.pause = make("actionPause", tr("&Pause"), QKeySequence(Qt::Key_F6),
                          &MainWindow::pauseRun, transportIcon("pause"));
    actions_.step = make("actionStep", tr("S&tep One Round"), QKeySequence(Qt::Key_F10),
                         &MainWindow::stepRun, transportIcon("step"));
    actions_.stepEvent =
        make("actionStepEvent", tr("Step One &Event"), QKeySequence(Qt::SHIFT | Qt::Key_F10),
             &MainWindow::stepEventRun, transportIcon("event"));
    actions_.runUntil =
        make("actionRunUntil", tr("Run &Until…"), QKeySequence(Qt::SHIFT | Qt::Key_F5),
             &MainWindow::runUntilDialog, transportIcon("until"));
    actions_.stop = make("actionStop", tr("St&op"), QKeySequence(Qt::SHIFT | Qt::Key_F6),
                         &MainWindow::stopRun, transportIcon("stop"));
    // Fork (widgets/intervene/fork_launcher.h): the paused run going, replayed to its instant.
    actions_.fork = make("actionFork", tr("&Fork from Here…"), QKeySequence(),
                         [this] { askForkOfRunGoing(this, controller_, forks_); });
    actions_.compare =
        make("actionCompare", tr("&Compare Selected Runs"), QKeySequence(Qt::CTRL | Qt::Key_K),
             [this] { compareRuns(runs_->selectedRunIds()); });

    // Presentation mode (app/gui/presentation.h): one key for a projector.
    QAction* present = actions_.presentation =
        make("actionPresentation", tr("&Presentation Mode"), QKeySequence(Qt::Key_F11),
             [this](bool on) { setPresentationMode(on); });
    present->setCheckable(true);
    present->setShortcutContext(Qt::ApplicationShortcut);
    present->setToolTip(tr("Large fonts and thick lines for a projector (F11 toggles)"));
    actions_.docs =
        make("actionDocs", tr("&Documentation"), QKeySequence::HelpContents, &MainWindow::showDocs);
    actions_.lessons = make("actionLessons", tr("&Lessons"), QKeySequence(), [this] {
        docks_.lessons->show();
        docks_.lessons->raise();
    });
    actions_.about =
        make("actionAbout", tr("&About FogStudio"), QKeySequence(), &MainWindow::showAbout);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(actions_.newScenario);
    file->addAction(actions_.open);
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(actions_.save);
    file->addAction(actions_.saveAs);
    file->addSeparator();
    file->addAction(actions_.exportPlots);
    file->addAction(actions_.exportReport);
    file->addSeparator();
    file->addAction(actions_.quit);
    rebuildRecentMenu();

    // The canvas owns its editing actions (their shortcuts act where the canvas has focus, so
    // Delete in a text field never deletes nodes); the menus show the same actions.
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(actions_.undo);
    edit->addAction(actions_.redo);
    edit->addSeparator();
    edit->addAction(canvas_->cutAction());
    edit->addAction(canvas_->copyAction());
    edit->addAction(canvas_->pasteAction());
    edit->addAction(canvas_->deleteAction());
    edit->addSeparator();
    edit->addAction(canvas_->selectAllAction());
    edit->addAction(canvas_->linkModeAction());

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(canvas_->zoomInAction());
    view->addAction(canvas_->zoomOutAction());
    view->addAction(canvas_->zoomFitAction());
    view->addSeparator();
    view->addAction(canvas_->autoLayoutAction());
    view->addAction(canvas_->snapAction());
    view->addSeparator();
    QMenu* panels = view->addMenu(tr("&Panels"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) panels->addAction(dock->toggleViewAction());
    view->addAction(actions_.presentation);
    QMenu* theme = view->addMenu(tr("&Theme"));
    themeGroup_ = new QActionGroup(this);
    for (Theme t : {Theme::System, Theme::Light, Theme::Dark}) {
        const QString label = t == Theme::System ? tr("Follow the &System") : t == Theme::Light ? tr("&Light") : tr("&Dark");
        QAction* a = theme->addAction(label);
        a->setObjectName("actionTheme_" + toString(t));
        a->setCheckable(true);
        a->setData(toString(t));
        themeGroup_->addAction(a);
        connect(a, &QAction::triggered, this, [this, t] { setTheme(t); });
    }

    presetsMenu_ = menuBar()->addMenu(tr("&Presets"));
    rebuildPresetsMenu();

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    for (QAction* a : {actions_.run, actions_.pause, actions_.step, actions_.stepEvent,
                       actions_.runUntil, actions_.stop, actions_.fork})
        run->addAction(a);
    run->addSeparator();
    run->addAction(actions_.compare);
    // Goal seeking (widgets/seek): a search over the current scenario, stored as a sweep.
    run->addAction(tr("&Seek a Configuration..."), this, [this] {
        auto* d = new SeekDialog(document_->scenario(), store_.get(), [this] { runs_->refresh(); }, this);
        d->setAttribute(Qt::WA_DeleteOnClose);
        d->show();
    })->setObjectName("actionSeek");
    run->addAction(tr("S&weep..."), this, &MainWindow::openSweepDialog)->setObjectName("actionSweep");
    // The scenario on real shaped links (fogstudio-cli testbed, docs/testbed.md).
    run->addAction(tr("Run on &Testbed..."), this, [this] {
        fog::runOnTestbed(this, document_->scenario(), store_ ? QString::fromStdString(store_->path()) : dbPath_,
                               [this] { runs_->refresh(); });
    })->setObjectName("actionTestbed");
    // Race mode (widgets/run/race_view.h): variants side by side on one virtual clock.
    run->addAction(tr("R&ace Variants..."), this, [this] {
        QString why;
        const auto candidates = raceCandidates(document_->scenario(), &why);
        if (candidates.size() < 2) {
            QMessageBox::information(this, tr("Race Variants"), why);
            return;
        }
        const QStringList chosen = askRacers(this, candidates);
        if (!chosen.isEmpty() && !startRace(chosen, true, &why)) QMessageBox::warning(this, tr("Race Variants"), why);
    })->setObjectName("actionRace");

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(actions_.lessons);
    help->addAction(actions_.docs);
    help->addAction(actions_.about);
}

void MainWindow::buildToolBar() {
    QToolBar* bar = toolBar_ = addToolBar(tr("Main"));
    bar->setObjectName("mainToolBar");
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(actions_.open);
    bar->addAction(actions_.save);
    bar->addSeparator();
    bar->addAction(actions_.run);
    bar->addAction(actions_.pause);
    bar->addAction(actions_.step);
    bar->addAction(actions_.stepEvent);
    bar->addAction(actions_.runUntil);
    bar->addAction(actions_.stop);
    bar->addSeparator();
    bar->addWidget(new QLabel(tr(" Speed: "), bar));
    speed_ = new QComboBox(bar);
    speed_->setObjectName("speedCombo");
    speed_->setToolTip(tr("Playback speed: virtual seconds per wall second. Slow speeds show messages moving "
                          "along the links."));
    for (const auto& [label, value] : speeds()) speed_->addItem(label, value);
    bar->addWidget(speed_);
    connect(speed_, &QComboBox::currentIndexChanged, this,
            [this] { controller_->setPlaybackSpeed(speed_->currentData().toDouble()); });
    bar->addWidget(new QLabel(tr("  Threads: "), bar));
    threads_ = new QSpinBox(bar);
    threads_->setObjectName("threadsSpin");
    threads_->setRange(1, std::max(1, QThread::idealThreadCount() * 2));
    threads_->setValue(QSettings().value("run/threads", std::max(1, QThread::idealThreadCount())).toInt());
    threads_->setToolTip(tr("Worker threads for the real training; results are identical for any number."));
    bar->addWidget(threads_);
}

void MainWindow::buildDocks() {
    auto dock = [this](const QString& name, const QString& title, QWidget* w, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };

    palette_ = new NodePalette(this);
    connect(palette_, &NodePalette::addRequested, canvas_,
            [this](NodeTemplate t, int count) { canvas_->addAtCentre(t, count); });
    QDockWidget* paletteDock = docks_.palette =
        dock("paletteDock", tr("Palette"), scrollable(palette_, this), Qt::LeftDockWidgetArea);

    runs_ = new RunsBrowser(this);
    runs_->setStore(store_.get());
    QDockWidget* runsDock = docks_.runs =
        dock("runsDock", tr("Runs"), runs_, Qt::LeftDockWidgetArea);
    splitDockWidget(paletteDock, runsDock, Qt::Vertical);
    if (!storeError_.isEmpty()) {
        runs_->setEnabled(false);
        runsDock->setWindowTitle(tr("Runs (not stored)"));
        runsDock->setToolTip(storeError_);
    }

    auto* side = sideTabs_ = new QTabWidget(this);
    side->setObjectName("sideTabs");
    inspector_ = new PropertyInspector(document_, side);
    inspector_->attach(canvas_->topologyScene());
    policies_ = new PolicyPanel(side);
    policies_->setDocument(document_);
    settings_ = new SettingsPanel(side);
    settings_->setDocument(document_);
    // Each page scrolls on its own: long policy texts or a thousand-device group never make
    // the dock (and so the window) wider or taller than the screen.
    // Below the node's configuration, its live state during a run (widgets/run/node_live_state.h).
    liveState_ = new NodeLiveState(side);
    liveState_->attach(canvas_->topologyScene());
    auto* inspectorPage = new QSplitter(Qt::Vertical, side);
    inspectorPage->setObjectName("inspectorPage");
    inspectorPage->addWidget(inspector_);
    inspectorPage->addWidget(liveState_);
    inspectorPage->setStretchFactor(0, 3);
    inspectorPage->setStretchFactor(1, 1);
    inspectorPage->setChildrenCollapsible(false);
    side->addTab(inspectorPage, tr("Inspector")); // the inspector scrolls its fields itself
    side->addTab(scrollable(policies_, side), tr("Policies"));
    side->addTab(scrollable(settings_, side), tr("Training"));
    docks_.side = dock("sideDock", tr("Properties"), side, Qt::RightDockWidgetArea);

    bottomTabs_ = new QTabWidget(this);
    live_ = new LivePlots(bottomTabs_);
    timeline_ = new NodeTimeline(bottomTabs_);
    eventLog_ = new EventLog(bottomTabs_); // widgets/run/event_log.h: bounded, linked to the canvas
    eventLog_->setCanvas(canvas_);
    linkPlot_ = new LinkThroughputPlot(bottomTabs_);
    linkCursors(live_, timeline_, linkPlot_);
    connect(timeline_, &NodeTimeline::boundHintChanged, live_, &LivePlots::setHint);
    problems_ = new QListWidget(bottomTabs_);
    problems_->setObjectName("problemsList");
    bottomTabs_->addTab(scrollable(live_, bottomTabs_), tr("Live Plots"));
    bottomTabs_->addTab(timeline_, tr("Node Timeline"));
    bottomTabs_->addTab(linkPlot_, tr("Link Throughput"));
    bottomTabs_->addTab(eventLog_, tr("Events"));
    bottomTabs_->addTab(problems_, tr("Problems"));
    topologySplit_->addWidget(bottomTabs_);
    topologySplit_->setStretchFactor(0, 3);
    topologySplit_->setStretchFactor(1, 2);
    topologySplit_->setSizes({520, 360});
    connect(centre_, &QTabWidget::currentChanged, this, [this](int) {
        const bool comparing =
            centre_->currentWidget() == compare_ || (race_ && centre_->currentWidget() == race_);
        if (comparing) {
            hiddenForComparison_.clear();
            // On a screen narrower than 1600 the Lessons dock steps aside too: the comparison
            // of a lesson's 15 runs needs the width (it comes back with the Topology tab).
            QList<QDockWidget*> aside{docks_.palette, docks_.side};
            if (width() < 1600) aside << docks_.lessons;
            for (QDockWidget* d : aside)
                if (d && d->isVisible()) {
                    hiddenForComparison_ << d;
                    d->hide();
                }
        } else {
            for (QDockWidget* d : hiddenForComparison_)
                d->show();
            hiddenForComparison_.clear();
        }
        if (presentationOn())
            arrangeForPresentation(); // presenting on a narrow screen: they stay aside
    });

    connect(problems_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        // Jump to the problem: select the node it names on the canvas, or the field in the
        // training panel.
        const QString path = item->data(Qt::UserRole).toString();
        if (QWidget* editor = settings_->editorFor(path.section('.', 0, 1))) {
            showPage(sideTabs_, settings_);
            editor->setFocus();
        } else if (path.startsWith("sync") || path.startsWith("selection")) {
            showPage(sideTabs_, policies_);
        } else {
            selectKeyPath(path);
            showPage(sideTabs_, inspector_);
        }
    });

    // Lessons (widgets/lessons): a preset's question and steps; its variants run as one group.
    auto* lessons = lessons_ = new LessonsPanel(this);
    lessons->setDirectories(presetsDirectory(), docsDirectory());
    lessons->setStore(storeError_.isEmpty() ? store_.get() : nullptr);
    lessons->setThreadsProvider([this] { return threads_->value(); });
    docks_.lessons = dock("lessonsDock", tr("Lessons"), lessons, Qt::RightDockWidgetArea);
    tabifyDockWidget(docks_.side, docks_.lessons);
    docks_.side->raise();
    connect(lessons, &LessonsPanel::openPresetRequested, this, [this](const QString& path) { openPreset(path); });
    connect(lessons, &LessonsPanel::openVariantRequested, this, [this](const QString& path, const QString& v) {
        QString error;
        if (!maybeSave()) return;
        if (!openVariantInDocument(document_, path, v, &error)) QMessageBox::warning(this, tr("Open variant"), error);
        else fitAfterLayout();
    });
    connect(lessons, &LessonsPanel::runsChanged, runs_, &RunsBrowser::refresh);
    connect(lessons, &LessonsPanel::lessonFinished, this, [this](const QList<qint64>& ids) { compareRuns(ids); });
    connect(lessons, &LessonsPanel::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });

    connect(runs_, &RunsBrowser::compareRequested, this, &MainWindow::compareRuns);
    connect(runs_, &RunsBrowser::runActivated, this, &MainWindow::showStoredRun);
    connect(runs_, &RunsBrowser::rerunRequested, this, &MainWindow::rerun);
    connect(runs_, &RunsBrowser::baselineChanged, compare_, &ComparisonView::setBaseline);
    // The pinned baseline belongs to a database: keep it per database across sessions.
    connect(runs_, &RunsBrowser::baselineChanged, this,
            [this](qint64 id) { QSettings().setValue("baseline/" + QString(dbPath_.toUtf8().toHex()), id); });
    connect(runs_, &RunsBrowser::runsDeleted, compare_, &ComparisonView::runsDeleted);
    connect(runs_, &RunsBrowser::errorOccurred, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
    connect(compare_, &ComparisonView::exportPlotsRequested, this, &MainWindow::exportPlots);
    connect(compare_, &ComparisonView::exportReportRequested, this, &MainWindow::exportReport);
    connect(compare_, &ComparisonView::runActivated, this, &MainWindow::showStoredRun);
}

void MainWindow::connectController() {
    connect(controller_, &RunController::stateChanged, this, [this] { updateRunActions(); });
    // Live intervention (widgets/intervene): right click on the canvas during a run.
    auto* intervene = new InterveneMenu(controller_, this);
    intervene->setForkAction([this](const std::string& action) { // Add devices…: a fork
        askForkOfRunGoingWith(this, controller_, forks_, action);
    });
    canvas_->setContextMenuHook([intervene](QMenu& m, QGraphicsItem* item) { intervene->populate(m, item); });
    connect(intervene, &InterveneMenu::refused, this, [this](const QString& m) {
        QMessageBox::warning(this, tr("Intervene"), m);
    });
    // Forks: Run ▸ Fork from Here… and the runs dock's Fork at time…; a fork that ended is
    // listed with its parent (filter fork:N) and compared with it.
    auto* forks = forks_ = new ForkLauncher(controller_, store_.get(), dbPath_, this);
    forks->setObjectName("forkLauncher");
    auto picked = std::make_shared<double>(std::nan("")); // the instant last pointed at on a curve
    connect(live_, &LivePlots::cursorMoved, this, [picked](double t) {
        if (std::isfinite(t)) *picked = t;
    });
    connect(runs_, &RunsBrowser::forkRequested, this, [this, forks, picked](qint64 id) {
        forks->setThreads(threads_->value());
        if (store_) askForkOfStoredRun(this, *store_, forks, id, showingLive_ ? std::nan("") : *picked);
    });
    connect(forks, &ForkLauncher::forkStarted, this, [this](qint64, const QString& label) { logEvent(label); });
    connect(forks, &ForkLauncher::failed, this, [this](const QString& m) { QMessageBox::warning(this, tr("Fork"), m); });
    connect(forks, &ForkLauncher::forkFinished, this, [this](qint64 parent, qint64 fork) {
        runs_->refresh();
        runs_->setFilterText(QString("fork:%1").arg(parent));
        runs_->selectRuns({parent, fork});
        compareRuns({parent, fork});
    });
    connect(controller_, &RunController::intervened, this, [this](const std::vector<TimedEvent>& applied) {
        std::vector<TimeMarker> markers;
        for (const TimedEvent& e : applied) markers.push_back({e.trigger.value, eventLabel(e)});
        if (showingLive_) live_->addMarkers(markers);
    });
    connect(controller_, &RunController::error, this, [this](const QString& message) {
        logEvent(tr("error: %1").arg(message));
        QMessageBox::warning(this, tr("Run"), message);
    });
    connect(controller_, &RunController::started, this, [this](const RunInfo& info, qint64 runId) {
        lastLiveAccuracy_ = std::numeric_limits<double>::quiet_NaN();
        liveRunId_ = runId;
        shownRunId_ = 0;
        showingLive_ = true;
        live_->reset(info, controller_->scenario()); // the scenario that runs (a fork's too), not the one edited
        timeline_->reset(info);
        linkPlot_->reset(info);
        canvas_->setRunNodes(info.nodes);
        canvas_->setRunLinks(info.links);
        liveState_->reset(info);
        eventLog_->reset(info.nodes);
        logEvent(tr("run %1 started: %2, %3 nodes, %4, %5 threads")
                     .arg(runId)
                     .arg(QString::fromStdString(info.scenarioName))
                     .arg(info.nodes.size())
                     .arg(QString::fromStdString(info.model))
                     .arg(info.threads));
        if (runs_->store()) runs_->runFinished(runId); // lists it as running
        showPage(bottomTabs_, live_);
        centre_->setCurrentWidget(topologySplit_);
    });
    connect(controller_, &RunController::metrics, this, [this](const std::vector<AggregationRecord>& records) {
        if (showingLive_) {
            live_->append(records);
            timeline_->appendMetrics(records);
        }
        liveState_->appendMetrics(records);
        for (const auto& r : records)
            if (r.level == 0 && !std::isnan(r.testAccuracy)) lastLiveAccuracy_ = r.testAccuracy;
        for (auto it = records.rbegin(); it != records.rend(); ++it) {
            if (it->level != 0) continue;
            runStatus_->setText(tr("round %1   t = %2 s   loss %3   acc %4   cost $%5   %6 J")
                                    .arg(it->round)
                                    .arg(fmtNumber(it->time, 1))
                                    .arg(fmtNumber(it->trainLoss, 3))
                                    .arg(std::isnan(lastLiveAccuracy_) ? QStringLiteral("–")
                                                                       : fmtNumber(100 * lastLiveAccuracy_, 1) + "%")
                                    .arg(fmtNumber(it->cost, 3))
                                    .arg(fmtNumber(it->energyJ, 0)));
            break;
        }
    });
    // While a stored run is shown, the live run's stream does not go into its plots.
    connect(controller_, &RunController::intervals, this, [this](const std::vector<NodeInterval>& v) {
        if (showingLive_) timeline_->appendIntervals(v);
        liveState_->appendIntervals(v);
    });
    connect(controller_, &RunController::activity, canvas_, &TopologyCanvas::showFrame);
    connect(controller_, &RunController::activity, liveState_, &NodeLiveState::showFrame);
    connect(controller_, &RunController::linkUsage, this, [this](const std::vector<LinkUsage>& spans) {
        if (showingLive_) linkPlot_->appendUsage(spans);
    });
    connect(controller_, &RunController::events, this, [this](const std::vector<RunEvent>& events) {
        if (showingLive_) live_->appendEvents(events);
    });
    connect(controller_, &RunController::log, eventLog_, &EventLog::append);
    connect(controller_, &RunController::finished, this, [this](const RunSummary& s, qint64 runId) {
        logEvent(tr("run %1 %2 (%3): %4 rounds, %5 s virtual, $%6, accuracy %7")
                     .arg(runId)
                     .arg(toString(s.status))
                     .arg(QString::fromStdString(s.stopReason))
                     .arg(s.rounds)
                     .arg(fmtNumber(s.virtualTime, 1))
                     .arg(fmtNumber(s.cost, 3))
                     .arg(std::isnan(s.finalTestAccuracy) ? QStringLiteral("–")
                                                          : fmtNumber(100 * s.finalTestAccuracy, 2) + "%"));
        statusBar()->showMessage(tr("Run %1 %2 after %3").arg(runId).arg(toString(s.status)).arg(RunStatusLine::roundsText(s.rounds)), 10000);
        if (runs_->store()) runs_->runFinished(runId);
        compare_->reload();
        canvas_->clearRunState();
        liveState_->finish();
        updateRunActions();
    });
}

// ---- documents ----------------------------------------------------------------------

bool MainWindow::openScenario(const QString& path, bool askToSave) {
    QString error;
    if (cluster::isClusterScenarioFile(path.toStdString())) { // cluster experiments: a window of their own
        ClusterWindow* w = openClusterWindow(path, this, &error, store());
        if (!w) {
            QMessageBox::warning(this, tr("Open cluster scenario"), error);
            return false;
        }
        connect(w, &ClusterWindow::runStored, this, [this](qint64 id) { // its episodes join the run list
            if (runs_->store()) runs_->runFinished(id);
            compare_->reload();
        });
        addRecentFile(QFileInfo(path).absoluteFilePath());
        return true;
    }
    if (askToSave && !maybeSave()) return false;
    // A file with bad values opens, so that it can be fixed here: every problem is listed in
    // the Problems tab and marked on the canvas, and only running is refused.
    if (!document_->open(path, &error)) {
        QMessageBox::warning(this, tr("Open scenario"),
                             tr("%1 could not be opened:\n\n%2").arg(QDir::toNativeSeparators(path), error));
        return false;
    }
    addRecentFile(QFileInfo(path).absoluteFilePath());
    rememberFolder("scenarios", path);
    fitAfterLayout();
    if (problemCount_ > 0) {
        showPage(bottomTabs_, problems_);
        statusBar()->showMessage(tr("Opened %1 with %n problem(s): fix them (Problems tab) to run it", nullptr, problemCount_)
                                     .arg(QDir::toNativeSeparators(path)));
    } else {
        statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 5000);
    }
    return true;
}

bool MainWindow::openPreset(const QString& path) {
    if (cluster::isClusterScenarioFile(path.toStdString())) return openScenario(path, false);
    if (!maybeSave()) return false;
    QString error;
    if (!document_->load(path, &error)) {
        QMessageBox::warning(this, tr("Open preset"), tr("The preset %1 could not be opened:\n\n%2").arg(path, error));
        return false;
    }
    document_->setFilePath(QString()); // untitled copy: Save asks where
    fitAfterLayout();
    // The Lessons panel follows: a preset with a lesson shows its lesson there.
    if (LessonsPanel* lessons = lessons_) {
        const QString wanted = QFileInfo(path).canonicalFilePath();
        for (std::size_t i = 0; i < lessons->lessons().size(); ++i)
            if (QFileInfo(QString::fromStdString(lessons->lessons()[i].path)).canonicalFilePath() == wanted) {
                if (lessons->currentIndex() != static_cast<int>(i)) lessons->setCurrentIndex(static_cast<int>(i));
                break;
            }
    }
    return true;
}

bool MainWindow::startRace(const QStringList& labels, bool start, QString* why) {
    const auto entries = pickRacers(raceCandidates(document_->scenario(), why), labels, why);
    if (entries.size() < 2) {
        if (why && why->isEmpty()) *why = tr("Nothing to race: choose two or three variants.");
        return false;
    }
    if (race_ && race_->isRunning()) {
        if (why) *why = tr("A race is going: stop it first.");
        return false;
    }
    if (!race_) {
        race_ = new RaceView(centre_);
        race_->setDatabase(dbPath_);
        connect(race_, &RaceView::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
        connect(race_, &RaceView::finished, this, [this](const QList<qint64>&) {
            if (runs_->store()) runs_->refresh();
            compare_->reload();
        });
        centre_->addTab(race_, tr("Race"));
    }
    race_->setThreads(threads_->value());
    race_->setRunNamer([this, title = runTitle()](const QString& label) {
        return nextRunName(title + " [" + label + "]");
    });
    race_->setPlaybackSpeed(speed_->currentData().toDouble() > 0 ? speed_->currentData().toDouble() : 5.0);
    if (!race_->setRacers(entries, why)) return false;
    centre_->setCurrentWidget(race_);
    if (start) QTimer::singleShot(0, race_, &RaceView::start);
    return true;
}

void MainWindow::newScenario() {
    if (!maybeSave()) return;
    // A new scenario is the smallest one that runs: one server and four trainers, which the
    // user then edits on the canvas.
    Scenario s;
    s.name = "untitled";
    NodeSpec server;
    server.id = "server";
    server.tier = Tier::Cloud;
    server.role = Role::Aggregator;
    s.topology.nodes.push_back(server);
    NodeSpec devices;
    devices.id = "device";
    devices.group = true;
    devices.count = 4;
    devices.parent = "server";
    devices.compute.throughput = Range::exactly(200.0);
    // Devices whose speed varies (exponential, as the palette's) and enough local work per
    // round (10 steps of 32 samples: 1.6 s on average against about 0.4 s of network for the
    // model's round trip on the palette's 20/50 Mbit/s links): computing dominates, so the
    // straggler lessons (fully-sync waits for the slowest, n-sync does not) show on what a
    // teacher draws. One step of 10 samples made every run network-bound (computing 4%).
    devices.compute.noise.kind = NoiseSpec::Kind::Exponential;
    s.training.batchSize = 32;
    s.training.localSteps = 10;
    s.topology.nodes.push_back(devices);
    s.data.maxTrainSamples = 6000;
    s.data.maxTestSamples = 2000;
    s.stop.rounds = 10;
    document_->setScenario(s);
    document_->setFilePath(QString());
    document_->autoLayout();
    document_->undoStack()->clear();
    canvas_->zoomFit();
}

void MainWindow::openDialog() {
    // The folder last opened from, else the current file's, else the presets.
    QString dir = folderFor("scenarios");
    if (dir.isEmpty() && !document_->filePath().isEmpty()) dir = QFileInfo(document_->filePath()).absolutePath();
    if (dir.isEmpty()) dir = presetsDirectory();
    if (dir.isEmpty()) dir = QDir::homePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), dir, tr("Scenarios (*.yaml *.yml);;All files (*)"));
    if (!path.isEmpty()) openScenario(path);
}

bool MainWindow::save() {
    if (document_->filePath().isEmpty()) return saveAs();
    QString error;
    if (!document_->save(&error)) {
        QMessageBox::warning(this, tr("Save scenario"), error);
        return false;
    }
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(document_->filePath())), 5000);
    return true;
}

bool MainWindow::saveAs() {
    QString suggested = document_->filePath();
    if (suggested.isEmpty()) {
        QString stem = QString::fromStdString(document_->scenario().name).toLower();
        stem.replace(QRegularExpression("[^a-z0-9]+"), "-");
        QString dir = folderFor("scenarios");
        // Not into the shipped presets: they are copies to start from.
        if (dir.isEmpty() || QDir(dir) == QDir(presetsDirectory())) dir = QDir::homePath();
        suggested = QDir(dir).filePath(stem.left(40) + ".yaml");
    }
    QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), suggested, tr("Scenarios (*.yaml *.yml)"));
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix().isEmpty()) path += ".yaml";
    QString error;
    if (!document_->saveAs(path, &error)) {
        QMessageBox::warning(this, tr("Save scenario"), error);
        return false;
    }
    addRecentFile(QFileInfo(path).absoluteFilePath());
    rememberFolder("scenarios", path);
    return true;
}

QString MainWindow::folderFor(const QString& purpose) const {
    const QString dir = QSettings().value("dialogs/" + purpose).toString();
    return !dir.isEmpty() && QFileInfo(dir).isDir() ? dir : QString();
}

void MainWindow::rememberFolder(const QString& purpose, const QString& path) {
    const QFileInfo info(path);
    QSettings().setValue("dialogs/" + purpose, info.isDir() ? info.absoluteFilePath() : info.absolutePath());
}

void MainWindow::fitAfterLayout() {
    // Fit once the scene has its items and the view its size: right after a load the scene
    // rect is still the old one, which left opened presets clipped at the top left.
    canvas_->zoomFit();
    QTimer::singleShot(0, canvas_, &TopologyCanvas::zoomFit);
}

bool MainWindow::maybeSave() {
    if (!document_->isModified()) return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                             tr("The scenario has unsaved changes. Save them?"),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::addRecentFile(const QString& path) {
    QSettings settings;
    QStringList files = settings.value("recentFiles").toStringList();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > kMaxRecent) files.removeLast();
    settings.setValue("recentFiles", files);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    recentMenu_->clear();
    const QStringList files = QSettings().value("recentFiles").toStringList();
    for (const QString& f : files) {
        QAction* a = recentMenu_->addAction(QFileInfo(f).fileName());
        a->setToolTip(f);
        a->setStatusTip(f);
        connect(a, &QAction::triggered, this, [this, f] { openScenario(f); });
    }
    recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::rebuildPresetsMenu() {
    presetsMenu_->clear();
    QStringList problems;
    const QString dir = presetsDirectory();
    const auto presets = listPresets(dir, &problems);
    for (const auto& p : presets) {
        QAction* a = presetsMenu_->addAction(p.title);
        a->setToolTip(p.description);
        a->setStatusTip(p.description.left(200));
        a->setData(p.path);
        connect(a, &QAction::triggered, this, [this, path = p.path] { openPreset(path); });
    }
    presetsMenu_->setToolTipsVisible(true);
    if (presets.isEmpty()) presetsMenu_->addAction(tr("(no presets found)"))->setEnabled(false);
    for (const QString& p : problems) presetsMenu_->addAction(tr("Broken: %1").arg(p))->setEnabled(false);
}

void MainWindow::updateTitle() {
    const QString path = document_->filePath();
    const QString name = path.isEmpty() ? QString::fromStdString(document_->scenario().name) + tr(" (unsaved)")
                                        : QFileInfo(path).fileName();
    setWindowTitle(name + "[*] — FogStudio");
    setWindowModified(document_->isModified());
    actions_.save->setEnabled(document_->isModified() || path.isEmpty());
}

void MainWindow::updateProblems() {
    problems_->clear();
    const auto diagnostics = document_->diagnostics();
    for (const auto& d : diagnostics) {
        auto* item = new QListWidgetItem(QString::fromStdString(d.path + " " + d.message), problems_);
        item->setData(Qt::UserRole, QString::fromStdString(d.path));
        item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
    }
    // The nodes and groups the problems name get a badge on the canvas.
    static const QRegularExpression entity("^topology\\.(nodes|groups|links)\\[(\\d+)\\]");
    QMap<QString, QStringList> marks;
    const TopologySpec& topo = document_->scenario().topology;
    for (const auto& d : diagnostics) {
        const auto m = entity.match(QString::fromStdString(d.path));
        if (!m.hasMatch()) continue;
        const std::size_t i = m.captured(2).toULongLong();
        const QString text = QString::fromStdString(d.path + " " + d.message);
        if (m.captured(1) == "links") {
            if (i < topo.links.size())
                for (const auto& end : {topo.links[i].from, topo.links[i].to})
                    marks[document_->idOf(document_->resolve(QString::fromStdString(end)))] << text;
            continue;
        }
        const QString id = document_->idOf(document_->atKeyPath(m.captured(0)));
        if (!id.isEmpty()) marks[id] << text;
    }
    marks.remove(QString());
    canvas_->topologyScene()->markProblems(marks);
    const int count = static_cast<int>(diagnostics.size());
    problemCount_ = count;
    bottomTabs_->setTabText(bottomTabs_->indexOf(problems_), count ? tr("Problems (%1)").arg(count) : tr("Problems"));
    updateRunActions();
}

// ---- running ------------------------------------------------------------------------

bool MainWindow::ensureStarted() {
    if (controller_->isActive()) return true;
    if (!storeError_.isEmpty()) {
        QMessageBox::warning(this, tr("Run"),
                             tr("Runs cannot be stored in %1:\n\n%2\n\nA run that cannot be stored is not started. Start "
                                "the studio with --db pointing to a FogStudio run database or to a new file.")
                                 .arg(QDir::toNativeSeparators(dbPath_), storeError_));
        return false;
    }
    const auto diagnostics = document_->diagnostics();
    if (!diagnostics.empty()) {
        bottomTabs_->setCurrentWidget(problems_);
        QMessageBox::warning(this, tr("Run"),
                             tr("The scenario has %n problem(s); fix them before running:\n\n%1", nullptr,
                                static_cast<int>(diagnostics.size()))
                                 .arg(QString::fromStdString(diagnostics.front().path + " " + diagnostics.front().message)));
        return false;
    }
    QSettings().setValue("run/threads", threads_->value());
    controller_->setPlaybackSpeed(speed_->currentData().toDouble());
    runScenario_ = document_->scenario();
    // Named "title #n" (never "untitled"): the runs dock and the comparison tell them apart.
    return controller_->start(runScenario_, dbPath_, threads_->value(), nextRunName(runTitle()));
}

QString MainWindow::runTitle() const {
    const QString path = document_->filePath();
    const QString stem = path.isEmpty() ? QString() : QFileInfo(path).completeBaseName();
    return QString::fromStdString(fog::runTitle(document_->scenario().name, stem.toStdString()));
}

QString MainWindow::nextRunName(const QString& title) const {
    std::vector<std::string> names;
    if (store_ && storeError_.isEmpty()) {
        try {
            RunFilter f;
            f.nameContains = title.toStdString();
            for (const auto& r : store_->listRuns(f)) names.push_back(r.name);
        } catch (const std::exception&) {
            // An unreadable list: the first number (the run is stored all the same).
        }
    }
    return QString::fromStdString(studioRunName(title.toStdString(), std::string(), names));
}

void MainWindow::startRun() {
    if (controller_->state() == RunController::State::Paused) {
        controller_->resume();
        return;
    }
    ensureStarted();
}

void MainWindow::pauseRun() { controller_->pause(); }

void MainWindow::stepRun() {
    if (!controller_->isActive() && !ensureStarted()) return;
    controller_->stepRound();
}

void MainWindow::stepEventRun() {
    if (!controller_->isActive()) {
        controller_->pause(); // applies when the run starts: it then steps from the first event
        if (!ensureStarted()) {
            controller_->resume();
            return;
        }
    }
    controller_->stepEvent();
}

void MainWindow::openSweepDialog() {
    auto* d = new SweepDialog(document_->scenario(), store_.get(), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &SweepDialog::runStored, runs_, &RunsBrowser::refresh);
    connect(d, &SweepDialog::sweepFinished, this, [this](qint64 sweep, const QList<qint64>& ids) {
        runs_->setFilterText(QString("sweep:%1").arg(sweep)); // the sweep's runs as one group
        runs_->selectRuns(ids);
        compare_->reload();
    });
    connect(d, &SweepDialog::compareRequested, this, &MainWindow::compareRuns);
    d->show();
}

void MainWindow::stopRun() { controller_->stop(); }

void MainWindow::runUntilDialog() {
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Run until"));
    auto* form = new QFormLayout(&dialog);
    // The same conditions as the scenario's stop rules and the CLI's --until
    // (core/engine/condition.h); the accuracy is typed in percent.
    auto* kind = new QComboBox(&dialog);
    kind->addItem(tr("Global round"), static_cast<int>(ConditionMetric::Round));
    kind->addItem(tr("Test accuracy (%)"), static_cast<int>(ConditionMetric::Accuracy));
    kind->addItem(tr("Virtual time (s)"), static_cast<int>(ConditionMetric::Time));
    kind->addItem(tr("Cumulative cost ($)"), static_cast<int>(ConditionMetric::Cost));
    auto* value = new QDoubleSpinBox(&dialog);
    value->setRange(0, 1e9);
    value->setDecimals(2);
    value->setValue(5);
    auto metricOf = [kind] { return static_cast<ConditionMetric>(kind->currentData().toInt()); };
    auto limits = [value](ConditionMetric m) {
        switch (m) {
        case ConditionMetric::Round: value->setRange(1, 1e9), value->setDecimals(0), value->setValue(5); break;
        case ConditionMetric::Accuracy: value->setRange(0.01, 100), value->setDecimals(2), value->setValue(80); break;
        case ConditionMetric::Time: value->setRange(0, 1e12), value->setDecimals(1), value->setValue(600); break;
        case ConditionMetric::Cost: value->setRange(0, 1e12), value->setDecimals(4), value->setValue(1.0); break;
        }
    };
    limits(ConditionMetric::Round);
    connect(kind, &QComboBox::currentIndexChanged, &dialog, [metricOf, limits] { limits(metricOf()); });
    form->addRow(tr("Pause when"), kind);
    form->addRow(tr("reaches"), value);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;
    const ConditionMetric m = metricOf();
    const Condition condition{m, m == ConditionMetric::Accuracy ? value->value() / 100.0 : value->value()};
    // Set the condition first: a fast run could otherwise pass it before it arrives.
    controller_->runUntil(condition);
    statusBar()->showMessage(tr("Running until %1").arg(QString::fromStdString(condition.describe())), 4000);
    if (!controller_->isActive()) ensureStarted();
}

void MainWindow::updateRunActions() {
    const auto state = controller_->state();
    const bool active = controller_->isActive();
    // Problems are counted by updateProblems on every change; a run that cannot be stored is
    // refused (the banner in the status bar says why).
    const bool runnable = problemCount_ == 0 && storeError_.isEmpty();
    actions_.run->setEnabled((!active && runnable) || state == RunController::State::Paused);
    actions_.run->setText(state == RunController::State::Paused ? tr("&Resume") : tr("&Run"));
    actions_.pause->setEnabled(state == RunController::State::Running);
    actions_.step->setEnabled(active || runnable);
    actions_.stepEvent->setEnabled(active || runnable);
    actions_.runUntil->setEnabled(active || runnable);
    actions_.stop->setEnabled(active);
    actions_.fork->setEnabled(state == RunController::State::Paused && store_);
    actions_.fork->setToolTip(
        state == RunController::State::Paused
            ? tr("Fork the paused run: replay it to this instant, change a setting, run on")
            : tr("Pause a run to fork it here (stored runs: right click in the Runs dock)"));
    const QString why = !storeError_.isEmpty() ? tr("Runs cannot be stored: %1").arg(storeError_)
                        : problemCount_ ? tr("The scenario has %n problem(s): see the Problems tab", nullptr, problemCount_)
                                        : QString();
    for (const char* name : {"actionRun", "actionStep", "actionStepEvent", "actionRunUntil"})
        action(name)->setToolTip(why.isEmpty() ? action(name)->text().remove('&') : why);
}

void MainWindow::logEvent(const QString& line) { eventLog_->addNote(line); }

// ---- runs and comparison ------------------------------------------------------------

void MainWindow::compareRuns(const QList<qint64>& ids) {
    if (ids.isEmpty()) return;
    compare_->setRuns(ids);
    showComparison();
}

void MainWindow::setPlaybackSpeed(double speed) {
    int best = 0;
    for (int i = 1; i < speed_->count(); ++i)
        if (std::abs(speed_->itemData(i).toDouble() - speed) < std::abs(speed_->itemData(best).toDouble() - speed))
            best = i;
    if (speed > 0 && speed_->itemData(best).toDouble() != speed) {
        speed_->addItem(tr("%1 s per second").arg(speed), speed);
        best = speed_->count() - 1;
    }
    speed_->setCurrentIndex(best);
    controller_->setPlaybackSpeed(speed);
}

void MainWindow::showComparison() { centre_->setCurrentWidget(compare_); }

namespace {

/// The same drawn topology: the same nodes and groups (id, parent, tier, role, group size)
/// and the same explicit links. Positions, figures and policies may differ.
bool sameDrawnTopology(const TopologySpec& a, const TopologySpec& b) {
    if (a.nodes.size() != b.nodes.size() || a.links.size() != b.links.size()) return false;
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        const NodeSpec &x = a.nodes[i], &y = b.nodes[i];
        if (x.id != y.id || x.parent != y.parent || x.group != y.group || x.count != y.count || x.tier != y.tier ||
            x.role != y.role)
            return false;
    }
    for (std::size_t i = 0; i < a.links.size(); ++i)
        if (a.links[i].from != b.links[i].from || a.links[i].to != b.links[i].to) return false;
    return true;
}

bool isClusterRun(const StoredRun& run) {
    return std::find(run.tags.begin(), run.tags.end(), "cluster") != run.tags.end();
}

} // namespace

QString MainWindow::storedRunFigures(const StoredRun& run) {
    const RunSummary& s = run.summary;
    return tr("run %1 (%2): round %3   t = %4 s   loss %5   acc %6   cost $%7   %8 J")
        .arg(run.id)
        .arg(QString::fromStdString(run.status))
        .arg(s.rounds)
        .arg(fmtNumber(s.virtualTime, 1))
        .arg(fmtNumber(s.finalTrainLoss, 3))
        .arg(std::isnan(s.finalTestAccuracy) ? QStringLiteral("–") : fmtNumber(100 * s.finalTestAccuracy, 1) + "%")
        .arg(fmtNumber(s.cost, 3))
        .arg(fmtNumber(s.energyJ, 0));
}

void MainWindow::showStoredRun(qint64 id) {
    if (!store_) return;
    const auto run = store_->run(id);
    if (!run) return;
    // A cluster episode has no rounds nor training curves: its completion times are shown by
    // the comparison's cluster pane, not as an FL run "waiting for the first round".
    if (isClusterRun(*run)) {
        compareRuns({id});
        runStatus_->setText(tr("run %1 (%2): cluster episode, see the Comparison tab")
                                .arg(id)
                                .arg(QString::fromStdString(run->status)));
        return;
    }
    // The canvas shows the run's own topology: a run of another scenario opens its scenario
    // as an untitled copy (asking first to save unsaved edits); a run of the scenario on the
    // canvas (same nodes and links) leaves the editor as it is.
    Scenario scenario;
    bool readable = true;
    try {
        scenario = loadScenarioText(run->scenarioYaml, "run " + std::to_string(id));
    } catch (const std::exception&) {
        readable = false; // an old or damaged scenario: its curves are still shown
    }
    QString canvasNote;
    if (readable && !sameDrawnTopology(scenario.topology, document_->scenario().topology)) {
        if (controller_->isActive()) {
            canvasNote = tr(" (the canvas shows the run going: stop it to see run %1's topology)").arg(id);
        } else {
            if (!maybeSave()) return;
            document_->setScenario(scenario); // clears the previous run's plots
            document_->setFilePath(QString());
            fitAfterLayout();
        }
    }
    showingLive_ = false;
    const bool shown = live_->showStoredRun(*store_, id);
    timeline_->showStoredRun(*store_, id);
    linkPlot_->showStoredRun(*store_, id);
    if (!shown) {
        QMessageBox::warning(this, tr("Show run"), tr("Run %1 is no longer in the store.").arg(id));
        return;
    }
    shownRunId_ = id;
    runStatus_->setText(storedRunFigures(*run));
    showPage(bottomTabs_, live_);
    centre_->setCurrentWidget(topologySplit_);
    statusBar()->showMessage(
        tr("Showing stored run %1: %2").arg(id).arg(QString::fromStdString(run->name)) + canvasNote, 8000);
}

void MainWindow::rerun(qint64 id) {
    if (!store_) return;
    const auto run = store_->run(id);
    if (!run) return;
    if (controller_->isActive()) {
        QMessageBox::information(this, tr("Re-run"), tr("Stop the current run first."));
        return;
    }
    try {
        runScenario_ = loadScenarioText(run->scenarioYaml, "run " + std::to_string(id));
        controller_->start(runScenario_, dbPath_, threads_->value());
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Re-run"), tr("Run %1 cannot be re-run:\n\n%2").arg(id).arg(e.what()));
    }
}

QList<qint64> MainWindow::runsForExport() const {
    if (centre_->currentWidget() == compare_ && !compare_->runIds().isEmpty()) return compare_->runIds();
    QList<qint64> ids = runs_->selectedRunIds();
    if (ids.isEmpty() && liveRunId_ > 0) ids << liveRunId_;
    return ids;
}

void MainWindow::exportPlots(const QList<qint64>& ids) {
    if (!store_ || ids.isEmpty()) {
        QMessageBox::information(this, tr("Export plots"), tr("Select one or more runs in the Runs dock first."));
        return;
    }
    QString start = folderFor("exports");
    if (start.isEmpty()) start = QDir::homePath();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export plots to folder"), start);
    if (dir.isEmpty()) return;
    rememberFolder("exports", dir);
    QStringList formats{"png", "svg", "pdf"};
    bool ok = false;
    const QString format = QInputDialog::getItem(this, tr("Export plots"), tr("Format:"), formats, 0, false, &ok);
    if (!ok) return;
    exportPlotsTo(ids, dir, format);
}

void MainWindow::exportPlotsTo(const QList<qint64>& ids, const QString& dir, const QString& format) {
    if (!store_ || ids.isEmpty()) return;
    // A comparison of its own draws the figures (light, whatever the screen's theme; the
    // plots on screen keep their ticks), one per turn of the event loop: the window stays
    // responsive while they are written.
    // The text at its normal size too: presentation mode enlarges the screen's, not a paper's.
    exportJob_ = std::make_shared<ComparisonPlotExport>(*compare_, ids, dir, format, 900, 600, presentationBaseFont());
    exportDir_ = dir;
    QTimer::singleShot(0, this, [this, job = exportJob_] { exportStep(job); });
}

void MainWindow::exportStep(const std::shared_ptr<ComparisonPlotExport>& job) {
    if (exportJob_ != job) return; // another export replaced this one
    if (job->step()) {
        statusBar()->showMessage(
            tr("Exporting plots: %1 of %2…").arg(job->written().size() + job->failed().size()).arg(job->total()));
        QTimer::singleShot(0, this, [this, job] { exportStep(job); });
        return;
    }
    exportJob_.reset();
    if (!job->failed().isEmpty()) QMessageBox::warning(this, tr("Export plots"), job->failed().join('\n'));
    statusBar()->showMessage(
        tr("Wrote %n plot(s) to %1", nullptr, static_cast<int>(job->written().size())).arg(exportDir_), 8000);
    Q_EMIT plotsExported(job->written());
}

void MainWindow::exportReport(const QList<qint64>& ids) {
    if (!store_ || ids.isEmpty()) {
        QMessageBox::information(this, tr("Export report"), tr("Select one or more runs in the Runs dock first."));
        return;
    }
    QString start = folderFor("exports");
    if (start.isEmpty()) start = QDir::homePath();
    QString path = QFileDialog::getSaveFileName(this, tr("Export report"), QDir(start).filePath("report.pdf"),
                                                tr("PDF (*.pdf);;HTML (*.html)"));
    if (path.isEmpty()) return;
    rememberFolder("exports", path);
    if (QFileInfo(path).suffix().isEmpty()) path += ".pdf";
    std::vector<std::int64_t> runIds(ids.begin(), ids.end());
    ReportOptions options;
    options.target = compare_->target();
    options.tradeOff = compare_->tradeOffMode(); // the report's trade-off is the one on screen
    options.dbPath = dbPath_;
    QString error;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = writeReport(loadReportRuns(*store_, runIds), path, options, &error);
    QApplication::restoreOverrideCursor();
    if (!ok) QMessageBox::warning(this, tr("Export report"), error);
    else statusBar()->showMessage(tr("Wrote %1").arg(QDir::toNativeSeparators(path)), 8000);
}

// ---- misc ---------------------------------------------------------------------------

void MainWindow::setPresentationMode(bool on) {
    QAction* a = actions_.presentation;
    if (a->isChecked() != on) a->setChecked(on);
    setPresentation(this, on);
    arrangeForPresentation();
    statusBar()->showMessage(on ? (hiddenForPresentation_.isEmpty()
                                       ? tr("Presentation mode: F11 to leave it")
                                       : tr("Presentation mode: F11 to leave it (the panels are back then; View > "
                                            "Panels shows one now)"))
                                : tr("Presentation mode off"),
                             6000);
}

void MainWindow::arrangeForPresentation() {
    // Text half as large again makes every dock wider: under 1600 px they left the canvas a
    // strip. While presenting there, the docks step aside (a floating one would cover the
    // canvas) and the canvas and its plots get the window; they come back as they were.
    const bool aside = presentationOn() && width() < 1600;
    if (aside) {
        const bool first = hiddenForPresentation_.isEmpty();
        for (QDockWidget* d : findChildren<QDockWidget*>())
            if (d->isVisible() && !hiddenForPresentation_.contains(d)) {
                hiddenForPresentation_ << d;
                d->hide();
            }
        // Half the height for the plots: text half as large again needs it (their axis
        // labels were cut to "acc. (…" at 1280x720), and the canvas has the whole width.
        if (first && !hiddenForPresentation_.isEmpty()) {
            topologySplit_->setProperty("fogSizesBeforePresentation", QVariant::fromValue(topologySplit_->sizes()));
            const int total = topologySplit_->height();
            if (total > 0) topologySplit_->setSizes({total * 42 / 100, total * 58 / 100});
        }
    } else if (!hiddenForPresentation_.isEmpty()) {
        const QList<int> before = topologySplit_->property("fogSizesBeforePresentation").value<QList<int>>();
        if (!before.isEmpty()) topologySplit_->setSizes(before);
        topologySplit_->setProperty("fogSizesBeforePresentation", QVariant());
        const QList<QDockWidget*> back = hiddenForPresentation_;
        hiddenForPresentation_.clear();
        // The comparison and race tabs keep the editing docks aside: those come back with
        // the Topology tab (hiddenForComparison_).
        const bool comparing = centre_->currentWidget() == compare_ || (race_ && centre_->currentWidget() == race_);
        for (QDockWidget* d : back) {
            if (comparing && d->objectName() != "runsDock") {
                if (!hiddenForComparison_.contains(d)) hiddenForComparison_ << d;
                continue;
            }
            d->show();
        }
    }
}

void MainWindow::resizeEvent(QResizeEvent* event) {
    QMainWindow::resizeEvent(event);
    if (presentationOn() && (width() < 1600) != !hiddenForPresentation_.isEmpty()) arrangeForPresentation();
}

bool MainWindow::presentationMode() const { return presentationOn(); }

void MainWindow::setTheme(Theme t) {
    applyTheme(t);
    QSettings().setValue("theme", toString(t));
    for (QAction* a : themeGroup_->actions()) a->setChecked(a->data().toString() == toString(t));
}

void MainWindow::selectKeyPath(const QString& path) {
    // "topology.nodes[3].compute.throughput" -> the node at index 3 of the nodes list.
    static const QRegularExpression re("^topology\\.(nodes|groups)\\[(\\d+)\\]");
    const auto m = re.match(path);
    if (!m.hasMatch()) return;
    const QString id = document_->idOf(document_->atKeyPath(m.captured(0)));
    if (id.isEmpty()) return;
    centre_->setCurrentWidget(topologySplit_);
    canvas_->topologyScene()->selectIds({id});
    if (NodeItem* item = canvas_->topologyScene()->item(id)) canvas_->centerOn(item);
}

void MainWindow::showDocs() {
    const QString dir = docsDirectory();
    if (dir.isEmpty()) {
        QMessageBox::information(this, tr("Documentation"),
                                 tr("The documentation was not found next to the program (%1) nor in the source "
                                    "tree. Set FOGSTUDIO_DOCS to the docs folder of a FogStudio checkout.")
                                     .arg(QDir::toNativeSeparators(QCoreApplication::applicationDirPath() +
                                                                   "/../share/doc/fogstudio/docs")));
        return;
    }
    if (!docsViewer_) docsViewer_ = new DocsViewer(dir, "studio.md", this);
    docsViewer_->show();
    docsViewer_->raise();
    docsViewer_->activateWindow();
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About FogStudio"),
                       tr("<h3>FogStudio %1</h3><p>An experiment studio for distributed machine learning across "
                          "clouds, edge servers and devices: real training (LibTorch) on worker threads, with a "
                          "virtual clock for time, money and energy.</p><p>Run store: %2</p>")
                           .arg(FOGSTUDIO_VERSION, QDir::toNativeSeparators(dbPath_).toHtmlEscaped()));
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    // Fitting needs the view's final size, known only once the window is laid out.
    if (!fittedOnce_) {
        fittedOnce_ = true;
        if (!restoredState_) {
            // Docks in proportion to the window, so that a small screen keeps a usable canvas.
            const int w = width(), h = height();
            // On a projector's 1280x720 the canvas and the plots get the room: narrower
            // side docks and half the height for the run panels.
            const bool small = w < 1500 || h < 850;
            resizeDocks({docks_.palette, docks_.side},
                        {std::clamp(w * (small ? 15 : 17) / 100, 150, 260),
                         std::clamp(w * 25 / 100, 220, 340)},
                        Qt::Horizontal);
            resizeDocks({docks_.palette}, {std::clamp(h * 30 / 100, 120, 250)}, Qt::Vertical);
            const int total = topologySplit_->height();
            if (total > 0) topologySplit_->setSizes({total * (small ? 50 : 58) / 100, total * (small ? 50 : 42) / 100});
        }
        QTimer::singleShot(0, canvas_, &TopologyCanvas::zoomFit);
    }
}

void MainWindow::fitInside(const QRect& avail) {
    if (isMaximized() || isFullScreen() || avail.isEmpty()) return;
    if (avail.width() < 1000) {
        // A small screen (a projector at scale 2 is 640x360): icons without text in the
        // tool bar, and the left docks as tabs beside Properties, so that one column of
        // docks is left beside the canvas. Each can still be shown again from its tab.
        if (toolBar_) toolBar_->setToolButtonStyle(Qt::ToolButtonIconOnly);
        QDockWidget* side = docks_.side;
        for (QDockWidget* d : {docks_.palette, docks_.runs})
            if (d && side && dockWidgetArea(d) != dockWidgetArea(side)) tabifyDockWidget(side, d);
        if (side) side->raise();
    }
    // The frame (title bar, borders) is not part of size(): leave room for it.
    const QSize frame = frameGeometry().size() - geometry().size();
    const QSize room = avail.size() - frame.expandedTo(QSize(0, 0));
    QSize size = this->size().boundedTo(room).expandedTo(minimumSizeHint().boundedTo(room));
    resize(size);
    QPoint at = pos();
    at.setX(std::clamp(at.x(), avail.left(), std::max(avail.left(), avail.right() - size.width() - frame.width())));
    at.setY(std::clamp(at.y(), avail.top(), std::max(avail.top(), avail.bottom() - size.height() - frame.height())));
    move(at);
}

QString MainWindow::layoutKey(const QSize& screen) {
    return QStringLiteral("window/layout-%1x%2").arg(screen.width()).arg(screen.height());
}

void MainWindow::saveLayout(const QSize& screen) {
    QSettings settings;
    settings.setValue(layoutKey(screen) + "/state", saveState());
    settings.setValue(layoutKey(screen) + "/split", topologySplit_->saveState());
}

bool MainWindow::restoreLayout(const QSize& screen) {
    // Docks and panels as they were on a screen of this size only: a layout saved on a
    // 1920x1080 monitor squeezed the canvas to nothing on a 1280x720 projector.
    QSettings settings;
    const QByteArray state = settings.value(layoutKey(screen) + "/state").toByteArray();
    if (state.isEmpty() || !restoreState(state)) return false;
    topologySplit_->restoreState(settings.value(layoutKey(screen) + "/split").toByteArray());
    return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (controller_->isActive()) {
        const auto answer = QMessageBox::question(this, tr("Quit"), tr("A run is going on. Stop it and quit?"));
        if (answer != QMessageBox::Yes) {
            event->ignore();
            return;
        }
    }
    // Ask about unsaved changes before stopping the run: a cancel keeps both.
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    if (controller_->isActive()) controller_->stop();
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    if (centre_->currentWidget() == compare_) centre_->setCurrentWidget(topologySplit_); // docks back
    const QScreen* on = screen() ? screen() : QGuiApplication::primaryScreen();
    saveLayout(on ? on->availableGeometry().size() : size());
    settings.setValue("canvas/snap", canvas_->snapAction()->isChecked());
    event->accept();
}

} // namespace fog
