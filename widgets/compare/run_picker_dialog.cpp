#include "widgets/compare/run_picker_dialog.h"

#include "widgets/runs/runs_filter.h"
#include "widgets/runs/runs_table_model.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace fog {

RunPickerDialog::RunPickerDialog(RunStore* store, QWidget* parent)
    : QDialog(parent), model_(new RunsTableModel(this)), proxy_(new RunsFilterProxy(this)) {
    setWindowTitle("Add runs to the comparison");
    model_->setStore(store);
    proxy_->setRunsModel(model_);
    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText("Filter: name, tag, status, config  (tag:x  status:finished  sweep:3)");
    filter_->setClearButtonEnabled(true);
    view_ = new QTableView(this);
    view_->setModel(proxy_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->setSortingEnabled(true);
    view_->sortByColumn(RunsTableModel::Id, Qt::DescendingOrder);
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view_->verticalHeader()->hide();
    view_->setAlternatingRowColors(true);
    view_->resizeColumnsToContents();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText("Add");
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(filter_);
    layout->addWidget(view_, 1);
    layout->addWidget(buttons);
    resize(900, 480);
    connect(filter_, &QLineEdit::textChanged, proxy_, &RunsFilterProxy::setFilterText);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(view_, &QTableView::activated, this, &QDialog::accept);
}

QList<qint64> RunPickerDialog::selectedRunIds() const {
    QModelIndexList rows = view_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QList<qint64> ids;
    for (const QModelIndex& i : rows) ids.push_back(i.data(RunsTableModel::IdRole).toLongLong());
    return ids;
}

QList<qint64> RunPickerDialog::pick(RunStore* store, QWidget* parent) {
    RunPickerDialog d(store, parent);
    return d.exec() == QDialog::Accepted ? d.selectedRunIds() : QList<qint64>{};
}

} // namespace fog
