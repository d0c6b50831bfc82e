#pragma once
// The studio's goal-seeking dialog: objective, constraints and parameters for the current
// scenario, a search by successive halving (core/seek) on a thread of its own with a
// progress bar, and the ranked result with the best configuration's confidence interval.
// Every trial is stored as a run of one sweep, so the runs dock and comparisons show them.

#include "core/spec/scenario.h"
#include "core/seek/seek.h"

#include <QDialog>

#include <atomic>
#include <functional>
#include <memory>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QTimer;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTemporaryDir;
class QThread;

namespace fog {

class RunStore;

class SeekDialog : public QDialog {
    Q_OBJECT
public:
    /// `onRunsStored` is called (on the GUI thread) after each stored trial and at the end.
    SeekDialog(const Scenario& scenario, RunStore* store, std::function<void()> onRunsStored,
               QWidget* parent = nullptr);
    ~SeekDialog() override;

    /// The spec the form describes; throws ScenarioError naming the bad field.
    SeekSpec spec() const;
    bool running() const { return thread_ != nullptr; }
    /// Parameters the form may start with, in order of preference: selection.k only where
    /// the selection policy has one, the sync policy against another of the same tree shape,
    /// a whole-number parameter of the sync policy, the learning rate. The form starts with
    /// the first two the search accepts for the scenario.
    static QStringList paramCandidates(const Scenario& scenario);
    /// Why the search cannot start as the form is ("" when it can).
    QString problem() const { return problem_; }

public Q_SLOTS:
    void start();
    void cancel();

Q_SIGNALS:
    void finished(bool ok);

protected:
    void reject() override;

private:
    void onProgress(const SeekProgress& p);
    void onDone(const SeekResult& r, const QString& error);
    void setBusy(bool busy);
    void checkForm();
    QString chooseDefaultParams();
    QString problem_;
    QString intro_;
    QTimer* checkTimer_ = nullptr;

    Scenario scenario_;
    RunStore* store_;
    std::function<void()> onRunsStored_;
    std::unique_ptr<QTemporaryDir> tmp_;
    QString file_;

    QComboBox* objective_;
    QCheckBox* useAccuracy_;
    QDoubleSpinBox* accuracy_;
    QDoubleSpinBox* deadline_;
    QCheckBox* useBudget_;
    QDoubleSpinBox* budget_;
    QPlainTextEdit* params_;
    QComboBox* halving_;
    QSpinBox* repeats_;
    QSpinBox* eta_;
    QSpinBox* trials_;
    QSpinBox* parallel_;
    QProgressBar* progress_;
    QLabel* status_;
    QLabel* best_;
    QTableWidget* table_;
    QPushButton* startButton_;
    QPushButton* cancelButton_;

    QThread* thread_ = nullptr;
    std::atomic<bool> cancel_{false};
    bool closeWhenDone_ = false;
};

} // namespace fog
