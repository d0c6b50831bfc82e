#pragma once
// Starts forks from the studio on its run controller, so that a fork runs like any run
// (progress, pause, Stop): plans it on the GUI thread (core/fork: the parent's stored
// scenario, the changes as `at` events, the rows the replay must reproduce), which refuses
// at once with the reason a fork cannot be made, then runs it (runFork) on the controller's
// worker thread. A fork of the run going waits for that run to end: the parent either runs
// on to its own end first (both curves complete, to compare them) or is stopped there.
// Says when a fork ended, with its parent, so the window groups and compares them.
//
// Threads: GUI thread.

#include <QObject>
#include <QPointer>
#include <QString>

#include <optional>
#include <string>
#include <vector>

class QWidget;

namespace fog {

class RunController;
class RunStore;
struct RunSummary;

class ForkLauncher : public QObject {
    Q_OBJECT
public:
    /// `store` (not owned) is read to plan forks; runs are stored in `dbPath` (empty: the
    /// default store), the database `store` has open.
    ForkLauncher(RunController* controller, RunStore* store, const QString& dbPath, QObject* parent = nullptr);

    void setThreads(int threads) { threads_ = threads; }

    /// Forks stored run `parentId` at `atSeconds` with `actions` ("link edge-1.up=2") and
    /// starts it. False with the reason (no such run, a cluster run, a parent that did not
    /// reach the instant, a bad change, a run going) in `error`.
    bool start(qint64 parentId, double atSeconds, const std::vector<std::string>& actions, QString* error = nullptr);

    /// How a fork of the run going treats that run.
    enum class Parent { RunToEnd, StopHere };
    /// Forks the run going (the controller's) once it has ended: `RunToEnd` resumes it (at the
    /// playback speed set) to its own end first; `StopHere` stops it now (it is stored as cancelled at
    /// the instant reached). False with the reason when no run is going.
    bool startAfterRunGoing(double atSeconds, const std::vector<std::string>& actions, Parent parent,
                            QString* error = nullptr);
    /// A fork waiting for its parent to end.
    bool pending() const { return pending_.has_value(); }
    /// The parent of the fork going (0: none).
    qint64 forkParent() const { return parentOfRunning_; }

Q_SIGNALS:
    /// A fork started: its parent and label ("fork of run 12 at 600 s: ...").
    void forkStarted(qint64 parentId, const QString& label);
    /// A fork ended (finished, stopped or failed) and is stored.
    void forkFinished(qint64 parentId, qint64 forkId);
    /// A fork could not be started (a waiting fork whose parent then failed, ...).
    void failed(const QString& message);

private:
    void runEnded(qint64 runId);

    QPointer<RunController> controller_;
    RunStore* store_;
    QString dbPath_;
    int threads_ = 1;
    struct Pending {
        qint64 parent = 0;
        double at = 0.0;
        std::vector<std::string> actions;
    };
    std::optional<Pending> pending_;
    qint64 parentOfRunning_ = 0;
};

/// Run ▸ Fork from here…: the fork dialog on the paused run going (its scenario, the values in
/// effect now, the instant reached), then whether the parent runs on to its end or stops
/// here, then the fork once the parent ended. Messages go to a box over `window`.
void askForkOfRunGoing(QWidget* window, RunController* controller, ForkLauncher* launcher);
/// The canvas's "Add devices…" (and any change that only a fork can make): forks the run going
/// at the instant reached with `action` ("add phones 4"), asking whether the parent runs on
/// to its end or stops here.
void askForkOfRunGoingWith(QWidget* window, RunController* controller, ForkLauncher* launcher,
                           const std::string& action);
/// The runs dock's Fork at time…: the fork dialog on stored run `id`, the instant proposed
/// `suggestedAt` (NaN: half-way through the run), then the fork.
void askForkOfStoredRun(QWidget* window, const RunStore& store, ForkLauncher* launcher, qint64 id, double suggestedAt);

} // namespace fog
