#pragma once
// The studio's window for a cluster experiment (issue 17): the drawn cluster above the editor
// on the left (cluster_canvas.h), the plots
// on the right, and a tool bar to open and save the file, run the chosen scheduler (live
// plots), train the learned scheduler (live reward curve), stop, and load or save a policy.
// Runs and training happen on a worker thread; results reach the window through queued
// calls and a buffer drained ~30 times a second. Every episode (finished or stopped) is
// stored in the run store, as `fogstudio-cli cluster run` stores it.

#include "core/cluster/learned_scheduler.h"

#include <QMainWindow>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>

class QAction;
class QLabel;
class QSpinBox;
class QThread;
class QTimer;

namespace fog {

class ClusterCanvas;
class ClusterEditor;
class ClusterView;
class RunStore;

class ClusterWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit ClusterWindow(RunStore* store, QWidget* parent = nullptr);
    ~ClusterWindow() override;

    /// Loads a cluster file into the editor; false (with every problem in `error`) when it
    /// cannot be read. A file whose values fail the checks is refused too (the message names
    /// file:line:column), as the CLI refuses it.
    bool openFile(const QString& path, QString* error);
    void setScenario(const cluster::ClusterScenario& s);
    /// The scenario as edited.
    cluster::ClusterScenario scenario() const;
    bool saveScenario(const QString& path, QString* error);

    /// Starts an episode with the editor's scheduler and seed; false (with `error`) when the
    /// scenario has problems, a job is running, or the learned scheduler has no policy.
    bool startRun(QString* error = nullptr);
    /// Starts training the learned scheduler for `episodes` episodes.
    bool startTraining(int episodes, QString* error = nullptr);
    /// Asks the running job to stop (a run is stored as cancelled; training keeps its best).
    void stop();
    bool busy() const { return thread_ != nullptr; }

    /// The policy trained here (or loaded with loadPolicy); null when none.
    std::shared_ptr<cluster::ClusterPolicy> policy() const { return policy_; }
    bool loadPolicy(const QString& path, QString* error);
    bool savePolicy(const QString& path, QString* error);

    ClusterEditor* editor() const { return editor_; }
    ClusterView* view() const { return view_; }
    ClusterCanvas* canvas() const { return canvas_; }
    const cluster::ClusterResult& lastResult() const { return lastResult_; }
    const cluster::TrainResult& lastTraining() const { return lastTraining_; }

  Q_SIGNALS:
    /// An episode was stored in the run store (the studio refreshes its run list).
    void runStored(qint64 runId);
    /// A run ended (finished, stopped or failed) and was shown.
    void runEnded();
    /// Training ended (finished or stopped); policy() is the result.
    void trainingEnded();

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void updateActions();
    void drain();
    void runFinished(cluster::ClusterScenario s, std::shared_ptr<cluster::ClusterResult> r,
                     QString error, std::string policyBytes);
    void trainingFinished(std::shared_ptr<cluster::TrainResult> r, QString error);
    void launch(std::function<void()> work);
    void setDirty(bool dirty);

    RunStore* store_;
    ClusterEditor* editor_;
    ClusterView* view_;
    ClusterCanvas* canvas_;
    QLabel* status_;
    QSpinBox* episodes_;
    QAction *open_, *save_, *saveAs_, *run_, *train_, *stop_, *loadPolicy_, *savePolicy_;
    QTimer* drainTimer_;
    QString path_;
    bool dirty_ = false;

    QThread* thread_ = nullptr;
    std::function<void()> completion_; ///< set by the worker as it ends, run on this thread
    std::atomic<bool> cancel_{false};
    std::mutex mutex_;
    std::vector<cluster::ClusterSample> samples_;
    std::vector<cluster::TaskRecord> finished_;
    std::vector<cluster::TrainProgress> progress_;
    std::vector<cluster::ServerState> servers_; ///< the latest per-server state of a run
    bool serversFresh_ = false;

    std::shared_ptr<cluster::ClusterPolicy> policy_;
    qint64 lastRunId_ = 0;
    cluster::ClusterResult lastResult_;
    cluster::TrainResult lastTraining_;
};

/// Opens a `kind: cluster` file in a cluster window of its own (editor, live runs, training;
/// runs go to `store` when given). Null (with `error`) when the file cannot be read.
ClusterWindow* openClusterWindow(const QString& path, QWidget* parent, QString* error,
                                 RunStore* store = nullptr);

} // namespace fog
