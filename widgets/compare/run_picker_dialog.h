#pragma once
// A dialog that picks runs from the store for the comparison: the runs table with its
// filter, multi-selection, OK / Cancel.

#include <QDialog>
#include <QList>

class QLineEdit;
class QTableView;

namespace fog {

class RunStore;
class RunsFilterProxy;
class RunsTableModel;

class RunPickerDialog : public QDialog {
    Q_OBJECT
public:
    RunPickerDialog(RunStore* store, QWidget* parent = nullptr);
    QList<qint64> selectedRunIds() const;
    RunsFilterProxy* proxy() const { return proxy_; }
    QTableView* view() const { return view_; }

    /// Runs the dialog; empty when cancelled.
    static QList<qint64> pick(RunStore* store, QWidget* parent);

private:
    RunsTableModel* model_;
    RunsFilterProxy* proxy_;
    QLineEdit* filter_;
    QTableView* view_;
};

} // namespace fog
