#include "widgets/intervene/fork_launcher.h"

#include "core/fork/fork.h"
#include "core/store/run_store.h"
#include "widgets/run/run_controller.h"

#include "core/scenario/scenario_io.h"
#include "widgets/intervene/fork_dialog.h"

#include <QMessageBox>
#include <QPushButton>
#include <QTimer>

#include <cmath>
#include <optional>

namespace fog {

ForkLauncher::ForkLauncher(RunController* controller, RunStore* store, const QString& dbPath, QObject* parent)
    : QObject(parent), controller_(controller), store_(store), dbPath_(dbPath) {
    connect(controller, &RunController::finished, this, [this](const RunSummary&, qint64 id) { runEnded(id); });
}

bool ForkLauncher::start(qint64 parentId, double atSeconds, const std::vector<std::string>& actions, QString* error) {
    auto fail = [error](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!controller_ || !store_) return fail(tr("Runs cannot be stored, so there is nothing to fork"));
    if (controller_->isActive() || pending_) return fail(tr("A run is going: stop it (or let it end) before forking"));
    ForkPlan plan;
    try {
        ForkChanges changes;
        changes.events = actions;
        plan = planFork(*store_, parentId, atSeconds, changes);
    } catch (const std::exception& e) {
        return fail(QString::fromUtf8(e.what()));
    }
    const QString label = QString::fromStdString(plan.label);
    const Scenario shown = plan.scenario;
    auto job = [plan = std::move(plan)](RunStore& store, const EngineOptions& options, RunSummary& summary,
                                        const std::function<void(Engine*, std::int64_t)>& onEngine) {
        return runFork(store, plan, options, summary, onEngine);
    };
    if (!controller_->startJob(shown, dbPath_, threads_, std::move(job)))
        return fail(tr("A run is going: stop it (or let it end) before forking"));
    parentOfRunning_ = parentId;
    Q_EMIT forkStarted(parentId, label);
    return true;
}

bool ForkLauncher::startAfterRunGoing(double atSeconds, const std::vector<std::string>& actions, Parent parent,
                                      QString* error) {
    if (!controller_ || !controller_->isActive() || controller_->runId() <= 0) {
        if (error) *error = tr("No run is going to fork from");
        return false;
    }
    if (pending_) {
        if (error) *error = tr("A fork of this run is waiting for it to end already");
        return false;
    }
    pending_ = Pending{controller_->runId(), atSeconds, actions};
    if (parent == Parent::StopHere) {
        controller_->stop();
    } else {
        controller_->resume(); // at the playback speed set

    }
    return true;
}

void ForkLauncher::runEnded(qint64 runId) {
    if (parentOfRunning_) {
        const qint64 parent = parentOfRunning_;
        parentOfRunning_ = 0;
        Q_EMIT forkFinished(parent, runId);
    }
    if (!pending_ || pending_->parent != runId) return;
    const Pending p = *pending_;
    pending_.reset();
    // After the controller is done with the run's end (it emits finished before its state
    // settles): start from the event loop.
    QTimer::singleShot(0, this, [this, p] {
        QString why;
        if (!start(p.parent, p.at, p.actions, &why)) Q_EMIT failed(why);
    });
}

namespace {
/// Asks what the run going does while its fork waits; nothing when cancelled.
std::optional<ForkLauncher::Parent> askParent(QWidget* window, qint64 parent, double at) {
    QMessageBox box(QMessageBox::Question, QObject::tr("Fork run %1").arg(parent),
                    QObject::tr("The fork replays run %1 up to %2 s. What should run %1 do now?")
                        .arg(parent)
                        .arg(at, 0, 'g', 8),
                    QMessageBox::NoButton, window);
    QPushButton* toEnd = box.addButton(QObject::tr("Run on to its end, then fork"), QMessageBox::AcceptRole);
    QPushButton* stop = box.addButton(QObject::tr("Stop it here and fork"), QMessageBox::DestructiveRole);
    box.addButton(QMessageBox::Cancel);
    box.setDefaultButton(toEnd);
    box.exec();
    if (box.clickedButton() == toEnd) return ForkLauncher::Parent::RunToEnd;
    if (box.clickedButton() == stop) return ForkLauncher::Parent::StopHere;
    return std::nullopt;
}
} // namespace

void askForkOfRunGoingWith(QWidget* window, RunController* controller, ForkLauncher* launcher,
                           const std::string& action) {
    if (!launcher || !controller->isActive() || controller->runId() <= 0) return;
    const double now = controller->runClock();
    const auto how = askParent(window, controller->runId(), now);
    if (!how) return;
    QString why;
    if (!launcher->startAfterRunGoing(now, {action}, *how, &why)) QMessageBox::warning(window, QObject::tr("Fork"), why);
}

void askForkOfRunGoing(QWidget* window, RunController* controller, ForkLauncher* launcher) {
    if (!controller->isActive() || controller->runId() <= 0) return;
    const qint64 parent = controller->runId();
    const double now = controller->runClock();
    // The values in effect now: the scenario with the run's interventions so far.
    Scenario s = controller->scenario();
    for (const TimedEvent& e : controller->interventions()) s.events.list.push_back(e);
    ForkDialog d(s, now, now, QObject::tr("run %1").arg(parent), window);
    if (d.exec() != QDialog::Accepted) return;
    const auto how = askParent(window, parent, d.at());
    if (!how) return;
    QString why;
    if (!launcher->startAfterRunGoing(d.at(), d.actionTexts(), *how, &why))
        QMessageBox::warning(window, QObject::tr("Fork"), why);
}

void askForkOfStoredRun(QWidget* window, const RunStore& store, ForkLauncher* launcher, qint64 id, double suggestedAt) {
    std::optional<StoredRun> run;
    Scenario s;
    try {
        run = store.run(id);
        if (!run) throw std::runtime_error("no run " + std::to_string(id) + " in the store");
        s = loadScenarioText(run->scenarioYaml, "run " + std::to_string(id));
    } catch (const std::exception& e) {
        QMessageBox::warning(window, QObject::tr("Fork run %1").arg(id),
                             QObject::tr("Run %1 cannot be forked: %2").arg(id).arg(QString::fromUtf8(e.what())));
        return;
    }
    const double reached = run->summary.virtualTime;
    const double at = std::isfinite(suggestedAt) && suggestedAt >= 0 && suggestedAt <= reached ? suggestedAt : reached / 2;
    ForkDialog d(s, at, reached, QObject::tr("run %1").arg(id), window);
    if (d.exec() != QDialog::Accepted) return;
    QString why;
    if (!launcher->start(id, d.at(), d.actionTexts(), &why)) QMessageBox::warning(window, QObject::tr("Fork"), why);
}

} // namespace fog
