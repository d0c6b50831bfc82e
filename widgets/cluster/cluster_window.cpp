#include "widgets/cluster/cluster_window.h"

#include "core/cluster/cluster_io.h"
#include "core/cluster/cluster_store.h"
#include "core/model/learner.h"
#include "core/store/run_store.h"
#include "widgets/cluster/cluster_canvas.h"
#include "widgets/cluster/cluster_editor.h"
#include "widgets/cluster/cluster_view.h"
#include "widgets/figures/qcustomplot.h"

#include <QAction>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QThread>
#include <QTimer>
#include <QToolBar>

namespace fog {

using namespace fog::cluster;

ClusterWindow::ClusterWindow(RunStore* store, QWidget* parent)
    : QMainWindow(parent), store_(store) {
    setObjectName("clusterWindow");
    editor_ = new ClusterEditor(this);
    view_ = new ClusterView(this);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(editor_);
    scroll->setWidgetResizable(true);
    canvas_ = new ClusterCanvas(editor_, this);
    auto* left = new QSplitter(Qt::Vertical, this);
    left->addWidget(canvas_);
    left->addWidget(scroll);
    left->setStretchFactor(0, 2);
    left->setStretchFactor(1, 3);
    left->setSizes({270, 430}); // room for a row of server boxes
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(view_);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 5);
    setCentralWidget(split);

    auto* bar = addToolBar(tr("Cluster"));
    bar->setObjectName("clusterToolBar");
    open_ = bar->addAction(tr("Open…"));
    save_ = bar->addAction(tr("Save"));
    saveAs_ = bar->addAction(tr("Save As…"));
    bar->addSeparator();
    run_ = bar->addAction(tr("Run"));
    run_->setToolTip(
        tr("Run one episode with the chosen scheduler and seed (live plots; stored as a run)"));
    train_ = bar->addAction(tr("Train"));
    train_->setToolTip(tr("Train the learned scheduler on generated episodes (live reward curve)"));
    episodes_ = new QSpinBox(this);
    episodes_->setRange(1, 100000);
    episodes_->setValue(120);
    episodes_->setSuffix(tr(" episodes"));
    episodes_->setToolTip(tr("Training episodes (4 rollouts of one arrival sequence per update)"));
    bar->addWidget(episodes_);
    stop_ = bar->addAction(tr("Stop"));
    bar->addSeparator();
    loadPolicy_ = bar->addAction(tr("Load policy…"));
    savePolicy_ = bar->addAction(tr("Save policy…"));
    status_ = new QLabel(this);
    statusBar()->addWidget(status_, 1);

    open_->setShortcut(QKeySequence::Open);
    save_->setShortcut(QKeySequence::Save);
    run_->setShortcut(Qt::Key_F5);
    stop_->setShortcut(Qt::SHIFT | Qt::Key_F5);

    drainTimer_ = new QTimer(this);
    drainTimer_->setInterval(33);
    connect(drainTimer_, &QTimer::timeout, this, &ClusterWindow::drain);

    connect(open_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open cluster scenario"), QFileInfo(path_).absolutePath(),
            tr("Cluster scenarios (*.yaml *.yml);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !openFile(path, &error))
            QMessageBox::warning(this, tr("Open cluster scenario"), error);
    });
    auto saveTo = [this](QString path) {
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(this, tr("Save cluster scenario"), path_,
                                                tr("Cluster scenarios (*.yaml)"));
        if (path.isEmpty()) return;
        QString error;
        if (!saveScenario(path, &error))
            QMessageBox::warning(this, tr("Save cluster scenario"), error);
    };
    connect(save_, &QAction::triggered, this, [this, saveTo] { saveTo(path_); });
    connect(saveAs_, &QAction::triggered, this, [saveTo] { saveTo(QString()); });
    connect(run_, &QAction::triggered, this, [this] {
        QString error;
        if (!startRun(&error)) QMessageBox::warning(this, tr("Run"), error);
    });
    connect(train_, &QAction::triggered, this, [this] {
        QString error;
        if (!startTraining(episodes_->value(), &error))
            QMessageBox::warning(this, tr("Train"), error);
    });
    connect(stop_, &QAction::triggered, this, &ClusterWindow::stop);
    connect(loadPolicy_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Load cluster policy"), QFileInfo(path_).absolutePath(),
            tr("Cluster policies (*.pt);;All files (*)"));
        QString error;
        if (!path.isEmpty() && !loadPolicy(path, &error))
            QMessageBox::warning(this, tr("Load policy"), error);
    });
    connect(savePolicy_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Save cluster policy"), QFileInfo(path_).absolutePath() + "/policy.pt",
            tr("Cluster policies (*.pt)"));
        QString error;
        if (!path.isEmpty() && !savePolicy(path, &error))
            QMessageBox::warning(this, tr("Save policy"), error);
    });
    connect(editor_, &ClusterEditor::changed, this, [this] {
        setDirty(true);
        if (!busy()) canvas_->clearUse(); // the shares were of the scenario before the edit
        view_->showSpeedCurves(editor_->scenario());
        updateActions();
    });
    updateActions();
}

ClusterWindow::~ClusterWindow() {
    if (thread_) {
        cancel_ = true;
        thread_->disconnect(this);
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
}

void ClusterWindow::closeEvent(QCloseEvent* event) {
    if (thread_) { // stop the job first: its results would arrive at a closed window
        cancel_ = true;
        thread_->wait();
        QCoreApplication::sendPostedEvents(
            this); // its finished handler runs the completion (a stopped run is stored)
    }
    if (dirty_ && !path_.isEmpty() && isVisible()) {
        const auto answer = QMessageBox::question(
            this, tr("Cluster scenario"),
            tr("Save the changes to %1?").arg(QDir::toNativeSeparators(path_)),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
        if (answer == QMessageBox::Cancel) {
            event->ignore();
            return;
        }
        QString error;
        if (answer == QMessageBox::Save && !saveScenario(path_, &error)) {
            QMessageBox::warning(this, tr("Save cluster scenario"), error);
            event->ignore();
            return;
        }
    }
    event->accept();
}

void ClusterWindow::setDirty(bool dirty) {
    dirty_ = dirty;
    setWindowModified(dirty);
}

bool ClusterWindow::openFile(const QString& path, QString* error) {
    if (busy()) {
        if (error) *error = tr("Stop the running job first.");
        return false;
    }
    try {
        ClusterScenario s = loadClusterScenarioFile(path.toStdString());
        path_ = path;
        setScenario(s);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

void ClusterWindow::setScenario(const ClusterScenario& s) {
    editor_->setScenario(s);
    if (!s.sourcePath.empty()) path_ = QString::fromStdString(s.sourcePath);
    setWindowTitle(tr("Cluster experiment — %1 [*]").arg(QString::fromStdString(s.name)));
    setDirty(false);
    view_->showSpeedCurves(s);
    view_->setSummaryText(tr("<b>%1</b>: %n cluster(s), ", nullptr, int(s.clusters.size()))
                              .arg(QString::fromStdString(s.name).toHtmlEscaped()) +
                          tr("%n task type(s). Run a scheduler (F5) or train the learned one.",
                             nullptr, int(s.taskTypes.size())));
    updateActions();
}

ClusterScenario ClusterWindow::scenario() const {
    return editor_->scenario();
}

bool ClusterWindow::saveScenario(const QString& path, QString* error) {
    const QStringList problems = editor_->problems();
    try {
        ClusterScenario s = scenario();
        saveClusterScenarioFile(s, path.toStdString());
        s.sourcePath = path.toStdString();
        s.sourceText = saveClusterScenarioText(s);
        path_ = path;
        editor_->setScenario(s);
        setDirty(false);
        status_->setText(problems.isEmpty()
                             ? tr("Saved %1").arg(QDir::toNativeSeparators(path))
                             : tr("Saved %1 with %n problem(s)", nullptr, int(problems.size()))
                                   .arg(QDir::toNativeSeparators(path)));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

void ClusterWindow::updateActions() {
    const bool b = busy();
    for (QAction* a : {open_, save_, saveAs_, run_, train_, loadPolicy_})
        a->setEnabled(!b);
    episodes_->setEnabled(!b);
    stop_->setEnabled(b);
    savePolicy_->setEnabled(!b && policy_ != nullptr);
}

void ClusterWindow::launch(std::function<void()> work) {
    cancel_ = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        samples_.clear();
        finished_.clear();
        progress_.clear();
        servers_.clear();
        serversFresh_ = false;
    }
    completion_ = nullptr;
    thread_ = QThread::create(std::move(work));
    connect(thread_, &QThread::finished, this, [this] {
        // The work left its completion (show, store, signal) for this thread: run it once
        // the window is idle again, so that what it signals sees busy() false.
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
        drainTimer_->stop();
        updateActions();
        if (auto done = std::move(completion_)) {
            completion_ = nullptr;
            done();
        }
        updateActions();
    });
    drainTimer_->start();
    thread_->start();
    updateActions();
}

void ClusterWindow::drain() {
    std::vector<ClusterSample> samples;
    std::vector<TaskRecord> finished;
    std::vector<TrainProgress> progress;
    std::vector<ServerState> servers;
    bool serversFresh = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        serversFresh = serversFresh_;
        serversFresh_ = false;
        if (serversFresh) servers = servers_;
        samples.swap(samples_);
        finished.swap(finished_);
        progress.swap(progress_);
    }
    if (!samples.empty() || !finished.empty()) view_->appendLive(samples, finished);
    if (serversFresh) canvas_->setLive(servers);
    if (!progress.empty()) {
        view_->appendTraining(progress);
        const TrainProgress& p = progress.back();
        status_->setText(tr("Training: episode %1, sampled mean completion %2 steps, %3 s")
                             .arg(p.episode)
                             .arg(p.meanCompletion, 0, 'f', 2)
                             .arg(p.wallSeconds, 0, 'f', 1));
    }
}

bool ClusterWindow::startRun(QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (busy()) return fail(tr("A job is running: stop it first."));
    const QStringList problems = editor_->problems();
    if (!problems.isEmpty())
        return fail(tr("The scenario has problems:\n%1").arg(problems.join("\n")));
    ClusterScenario s = scenario();
    if (dirty_ || s.sourceText.empty()) s.sourceText = saveClusterScenarioText(s);
    std::shared_ptr<ClusterScheduler> sched;
    std::string policyBytes;
    try {
        const SchedulerInfo* info = findScheduler(s.scheduler.name);
        if (info && info->withPolicy) {
            // The policy trained in this window, else the scenario's; stored with the run.
            std::shared_ptr<ClusterPolicy> p = policy_;
            if (!p || p->agents() != static_cast<int>(s.clusters.size())) p = loadScenarioPolicy(s);
            sched = info->withPolicy(p, s);
            policyBytes = p->serialize();
        } else {
            sched = makeScheduler(s.scheduler.name, s);
        }
    } catch (const std::exception& e) {
        return fail(QString::fromStdString(e.what()));
    }
    view_->beginLive(s, QString::fromStdString(s.scheduler.name), s.seed);
    canvas_->beginLive(s);
    view_->tabs()->setCurrentWidget(view_->queuePlot());
    status_->setText(tr("Running %1…").arg(QString::fromStdString(s.scheduler.name)));
    launch([this, s, sched, policyBytes] {
        auto result = std::make_shared<ClusterResult>();
        QString why;
        try {
            useSingleThreadedKernels();
            ClusterRunOptions o;
            o.cancel = &cancel_;
            o.onSample = [this](const ClusterSample& x) {
                std::lock_guard<std::mutex> lock(mutex_);
                samples_.push_back(x);
            };
            o.onTaskFinished = [this](const TaskRecord& t) {
                std::lock_guard<std::mutex> lock(mutex_);
                finished_.push_back(t);
            };
            o.onServers = [this](double, const std::vector<ServerState>& servers) {
                std::lock_guard<std::mutex> lock(mutex_);
                servers_ = servers; // only the latest is drawn
                serversFresh_ = true;
            };
            *result = runCluster(s, *sched, s.seed, o);
        } catch (const std::exception& e) {
            why = QString::fromStdString(e.what());
        }
        completion_ = [this, s, result, why, policyBytes] {
            runFinished(s, result, why, policyBytes);
        };
    });
    return true;
}

void ClusterWindow::runFinished(ClusterScenario s, std::shared_ptr<ClusterResult> r, QString error,
                                std::string policyBytes) {
    drain();
    if (!error.isEmpty()) {
        canvas_->clearUse();
        status_->setText(tr("The run failed: %1").arg(error));
        QMessageBox::warning(this, tr("Run"), tr("The run failed:\n\n%1").arg(error));
        Q_EMIT runEnded();
        return;
    }
    lastResult_ = *r;
    view_->showRun(s, *r);
    canvas_->showMeans(s, *r);
    QString stored;
    if (store_) {
        try {
            NewRun run;
            run.tags = {"cluster", s.scheduler.name, "studio"};
            lastRunId_ = storeClusterRun(*store_, s, *r, run, policyBytes);
            stored = tr("; stored as run %1").arg(lastRunId_);
            Q_EMIT runStored(lastRunId_);
        } catch (const std::exception& e) {
            stored = tr("; NOT stored: %1").arg(QString::fromStdString(e.what()));
        }
    }
    status_->setText(tr("%1, seed %2: %3/%4 tasks, mean completion %5 steps (%6)%7")
                         .arg(QString::fromStdString(s.scheduler.name))
                         .arg(s.seed)
                         .arg(r->summary.completed)
                         .arg(r->summary.tasks)
                         .arg(r->summary.meanCompletion, 0, 'f', 3)
                         .arg(QString::fromStdString(r->summary.stopReason), stored));
    Q_EMIT runEnded();
}

bool ClusterWindow::startTraining(int episodes, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (busy()) return fail(tr("A job is running: stop it first."));
    const QStringList problems = editor_->problems();
    if (!problems.isEmpty())
        return fail(tr("The scenario has problems:\n%1").arg(problems.join("\n")));
    const ClusterScenario s = scenario();
    view_->beginTraining(episodes);
    view_->tabs()->setCurrentWidget(view_->trainingPlot());
    status_->setText(tr("Training the learned scheduler for %n episode(s)…", nullptr, episodes));
    launch([this, s, episodes] {
        auto result = std::make_shared<TrainResult>();
        QString why;
        try {
            TrainOptions o;
            o.episodes = episodes;
            o.seed = s.seed;
            o.cancel = &cancel_;
            o.onEpisode = [this](const TrainProgress& p) {
                std::lock_guard<std::mutex> lock(mutex_);
                progress_.push_back(p);
            };
            *result = trainClusterPolicy(s, o);
        } catch (const std::exception& e) {
            why = QString::fromStdString(e.what());
        }
        completion_ = [this, result, why] { trainingFinished(result, why); };
    });
    return true;
}

void ClusterWindow::trainingFinished(std::shared_ptr<TrainResult> r, QString error) {
    drain();
    if (!error.isEmpty()) {
        status_->setText(tr("Training failed: %1").arg(error));
        QMessageBox::warning(this, tr("Train"), tr("Training failed:\n\n%1").arg(error));
        Q_EMIT trainingEnded();
        return;
    }
    lastTraining_ = *r;
    view_->fitTraining();
    if (r->policy && !r->curve.empty()) {
        policy_ = r->policy;
        const QString kept =
            r->bestValidation >= 0
                ? tr("kept the policy of episode %1 (greedy validation mean completion %2 steps)")
                      .arg(r->bestEpisode)
                      .arg(r->bestValidation, 0, 'f', 3)
                : tr("kept the last policy (stopped before its first validation)");
        status_->setText(tr("Trained %1 episodes in %2 s%3; %4. Choose the scheduler 'learned' and "
                            "Run, or Save policy.")
                             .arg(r->curve.size())
                             .arg(r->wallSeconds, 0, 'f', 1)
                             .arg(cancel_ ? tr(" (stopped)") : QString(), kept));
    } else {
        status_->setText(tr("Training stopped before its first update: no policy."));
    }
    updateActions();
    Q_EMIT trainingEnded();
}

void ClusterWindow::stop() {
    if (!busy()) return;
    cancel_ = true;
    status_->setText(tr("Stopping…"));
}

bool ClusterWindow::loadPolicy(const QString& path, QString* error) {
    try {
        auto p = std::shared_ptr<ClusterPolicy>(ClusterPolicy::load(path.toStdString()));
        const int clusters = static_cast<int>(scenario().clusters.size());
        if (p->agents() != clusters) {
            if (error)
                *error =
                    tr("%1 was trained for %2 clusters (one agent each); this scenario has %3.")
                        .arg(path)
                        .arg(p->agents())
                        .arg(clusters);
            return false;
        }
        policy_ = p;
        status_->setText(tr("Loaded the policy %1").arg(QDir::toNativeSeparators(path)));
        updateActions();
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool ClusterWindow::savePolicy(const QString& path, QString* error) {
    if (!policy_) {
        if (error) *error = tr("No policy: train one first.");
        return false;
    }
    try {
        policy_->save(path.toStdString());
        status_->setText(tr("Saved the policy to %1").arg(QDir::toNativeSeparators(path)));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

ClusterWindow* openClusterWindow(const QString& path, QWidget* parent, QString* error,
                                 RunStore* store) {
    auto* w = new ClusterWindow(store, parent);
    w->setWindowFlag(Qt::Window);
    w->setAttribute(Qt::WA_DeleteOnClose);
    if (!w->openFile(path, error)) {
        delete w;
        return nullptr;
    }
    w->resize(1280, 720);
    w->show();
    return w;
}

} // namespace fog
