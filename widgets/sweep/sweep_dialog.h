#pragma once
// The studio's sweep dialog: the CLI's `fogstudio-cli sweep` for the scenario on screen.
// Pick parameters (the scenario schema's keys, the policies' parameters, the nodes' and
// groups' keys, or any key path typed in) with their values, and repeats; every
// configuration is validated before anything runs, then the sweep runs on a thread of its
// own through core/sweep (runSweep: common random numbers, one sweep id in the store), with
// a progress bar and a Stop that works before, between and during runs. Results land in the
// runs dock as one group (sweep:N) and Compare opens the comparison view on them.

#include "core/spec/scenario.h"
#include "core/sweep/sweep.h"

#include <QDialog>
#include <QList>

#include <atomic>
#include <memory>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTemporaryDir;
class QThread;

namespace fog {

class RunStore;

class SweepDialog : public QDialog {
    Q_OBJECT
public:
    SweepDialog(const Scenario& scenario, RunStore* store, QWidget* parent = nullptr);
    ~SweepDialog() override; ///< stops a sweep still going and waits for its thread

    /// A parameter the dialog offers: its key path, what it is, and its value now.
    struct Key {
        QString path;
        QString label; ///< path with the node's id, e.g. "topology.groups[0].count  (phones)"
        QString help;  ///< type, unit, bounds, allowed values, meaning
        QString value; ///< the scenario's value, as YAML
    };
    /// Every key offered for `scenario`: schema keys that apply, the sync and selection
    /// policies' parameters, and the keys of each node and group (in the file's order).
    static std::vector<Key> keysFor(const Scenario& scenario);

    /// Adds a row varying `path` over `values` ("0.01, 0.02"); empty `values`: the current one.
    void addAxis(const QString& path, const QString& values = {});
    void removeAxis(int row);
    int axisCount() const;
    void setRepeats(int repeats);
    /// The sweep the form describes; throws ScenarioError naming the bad row and field.
    SweepSpec spec() const;
    /// The file the sweep reads: the scenario as it was when the dialog opened.
    QString scenarioFile() const { return file_; }

    bool running() const { return thread_ != nullptr; }
    qint64 sweepId() const { return sweepId_; }
    /// The runs of the last sweep that were stored finished or failed (not those cut short).
    QList<qint64> runIds() const { return runIds_; }
    QString statusText() const;

public Q_SLOTS:
    /// Validates every configuration, then runs the sweep (false when the form is refused).
    bool start();
    /// Stops the sweep: the run under way is cancelled (stored as cancelled), no other starts.
    void stop();
    /// Asks for the comparison of the sweep's runs.
    void compare();
    /// Close / Escape: a sweep still going is stopped first; the dialog closes once it has.
    void reject() override;

Q_SIGNALS:
    /// A run of the sweep was stored (refresh the runs list).
    void runStored();
    /// The sweep ended (finished, stopped or failed); `runIds` as runIds().
    void sweepFinished(qint64 sweepId, const QList<qint64>& runIds, bool cancelled);
    void compareRequested(const QList<qint64>& runIds);

private:
    void onProgress(const SweepProgress& p);
    void onDone(const SweepResult& r, const QString& error);
    void setBusy(bool busy);
    void updateSummary();
    void fillValues(int row);
    QString rowPath(int row) const;

    Scenario scenario_;
    RunStore* store_;
    std::vector<Key> keys_;
    std::unique_ptr<QTemporaryDir> tmp_;
    QString file_;

    QTableWidget* axes_;
    QPushButton* addButton_;
    QPushButton* removeButton_;
    QSpinBox* repeats_;
    QSpinBox* parallel_;
    QSpinBox* threads_;
    QLineEdit* name_;
    QLineEdit* tags_;
    QLabel* summary_;
    QProgressBar* progress_;
    QLabel* status_;
    QTableWidget* results_;
    QPushButton* startButton_;
    QPushButton* stopButton_;
    QPushButton* compareButton_;

    QThread* thread_ = nullptr;
    std::atomic<bool> cancel_{false};
    bool closeWhenDone_ = false;
    qint64 sweepId_ = 0;
    QList<qint64> runIds_;
    std::vector<SweepItem> planned_; ///< the items of the sweep under way, in plan order
};

} // namespace fog
