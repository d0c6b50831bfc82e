#pragma once
// Run ▸ Fork from here… and the runs dock's Fork at time…: the instant to fork at and the
// changes the fork makes there, each a row (what: bandwidth up / down or latency of a link,
// price or throughput of a node, a policy parameter; which one; the value in effect then;
// the new value). Values are checked by the scenario reader (through makeEvent) and a bad
// one is refused with its message, the dialog staying open. The result is the fork's
// instant and the changes as `--event` action texts (what core's forkRun takes).
//
// Threads: GUI thread.

#include "widgets/intervene/intervention.h"

#include <QDialog>

#include <vector>

class QLabel;
class QLineEdit;
class QTableWidget;

namespace fog {

class ForkDialog : public QDialog {
    Q_OBJECT
public:
    /// `scenario`: the parent run's (with the events it recorded); `at`: the proposed instant;
    /// `reached`: how far the parent ran (the fork must be within it; NaN: not checked).
    ForkDialog(const Scenario& scenario, double at, double reached, const QString& parentLabel,
               QWidget* parent = nullptr);
    /// How the dialog writes an instant (10 significant digits): the instant typed as the
    /// parent's end, written so, is the parent's end.
    static QString instantText(double seconds);

    /// Adds a change row (the "Add change" button adds one for the first link or node).
    /// Returns its row.
    int addChange(ChangeKind kind, const std::string& target = {}, const std::string& linkTo = {},
                  const QString& value = {});
    void removeChange(int row);
    QLineEdit* atEdit() const { return at_; }
    QTableWidget* table() const { return table_; }

    /// After accept: the instant and the changes.
    double at() const { return atValue_; }
    const std::vector<Change>& changes() const { return changes_; }
    /// The changes as `--event` action texts ("link edge-1.up=2").
    std::vector<std::string> actionTexts() const;
    /// The message shown for the values last refused ("" when none).
    QString message() const;

    void accept() override;

private:
    void fillTargets(int row);
    void updateCurrent(int row);
    /// The row's change with its value parsed; false with a message when the value is bad.
    bool rowChange(int row, Change& out, QString* error) const;

    Scenario scenario_;
    std::vector<TimedEvent> recorded_;
    double reached_;
    QLineEdit* at_;
    QTableWidget* table_;
    QLabel* message_;
    double atValue_ = 0.0;
    std::vector<Change> changes_;
};

} // namespace fog
