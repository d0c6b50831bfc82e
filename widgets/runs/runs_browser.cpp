#include "widgets/common/tool_button.h"
#include "widgets/runs/runs_browser.h"

#include "core/store/run_store.h"
#include "widgets/runs/runs_filter.h"
#include "widgets/runs/runs_table_model.h"
#include "widgets/testbed/testbed_comparison_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

namespace fog {

namespace {

/// Sweep runs share the scenario's name and differ at its end: elide in the middle.
class MiddleElideDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
        QStyledItemDelegate::initStyleOption(option, index);
        option->textElideMode = Qt::ElideMiddle;
    }
};

} // namespace

RunsBrowser::RunsBrowser(QWidget* parent)
    : QWidget(parent), model_(new RunsTableModel(this)), proxy_(new RunsFilterProxy(this)) {
    proxy_->setRunsModel(model_);

    filter_ = new QLineEdit(this);
    filter_->setPlaceholderText("Filter: name, tag, status, config (tag:x status:failed sweep:3)");
    filter_->setClearButtonEnabled(true);
    filter_->setToolTip("Every word must match. A plain word matches the id, name, tags, status or sweep "
                        "configuration; tag:, status:, name: and sweep: match one field only; fork:N "
                        "shows run N with its forks.");
    auto* refresh = makeToolButton(this, QStyle::SP_BrowserReload, "", "Re-read the runs from the store");
    compareButton_ = makeToolButton(this, QStyle::SP_FileDialogContentsView, "Compare",
                                "Compare the selected runs (the pinned baseline is added)");
    pinButton_ = makeToolButton(this, QStyle::SP_DialogApplyButton, "Pin", "Pin the current run as the baseline");
    deleteButton_ = makeToolButton(this, QStyle::SP_TrashIcon, "", "Delete the selected runs");

    count_ = new QLabel(this);
    // Two rows, so the filter keeps its width in a narrow dock.
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(refresh);
    bar->addWidget(compareButton_);
    bar->addWidget(pinButton_);
    bar->addWidget(deleteButton_);
    bar->addStretch(1);
    bar->addWidget(count_);

    view_ = new QTableView(this);
    view_->setModel(proxy_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    view_->setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::SelectedClicked);
    view_->setSortingEnabled(true);
    view_->sortByColumn(RunsTableModel::Id, Qt::DescendingOrder);
    view_->setAlternatingRowColors(true);
    view_->setWordWrap(false);
    view_->setContextMenuPolicy(Qt::CustomContextMenu);
    // Fixed row heights: the view never measures 10,000 rows.
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    view_->verticalHeader()->hide();
    QHeaderView* h = view_->horizontalHeader();
    h->setSectionsMovable(true);
    h->setStretchLastSection(false);
    h->setHighlightSections(false);
    const int em = view_->fontMetrics().horizontalAdvance('M');
    const int widths[] = {4, 24, 7, 9, 19, 12, 5, 8, 6, 7, 7, 7};
    for (int c = 0; c < RunsTableModel::ColumnCount; ++c) h->resizeSection(c, widths[c] * em);
    view_->setItemDelegateForColumn(RunsTableModel::Name, new MiddleElideDelegate(view_));
    // The name takes the room left; the other columns keep the widths their values need.
    h->setSectionResizeMode(RunsTableModel::Name, QHeaderView::Stretch);
    h->setMinimumSectionSize(3 * em);

    details_ = new QLabel(this);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    notes_ = new QPlainTextEdit(this);
    notes_->setPlaceholderText("Notes on the current run (saved as you type)");
    notes_->setTabChangesFocus(true);
    // Runs another process stores in the same database (the CLI, another studio) appear
    // without a manual refresh: a cheap fingerprint of the run list is looked at every
    // 1.5 s, and the list re-read only when it changed.
    pollTimer_ = new QTimer(this);
    pollTimer_->setObjectName("runsPollTimer");
    pollTimer_->setInterval(1500);
    connect(pollTimer_, &QTimer::timeout, this, &RunsBrowser::pollStore);
    pollTimer_->start();

    notesTimer_ = new QTimer(this);
    notesTimer_->setSingleShot(true);
    notesTimer_->setInterval(600);

    auto* bottom = new QWidget(this);
    auto* bl = new QVBoxLayout(bottom);
    bl->setContentsMargins(0, 0, 0, 0);
    bl->addWidget(details_);
    bl->addWidget(notes_, 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(view_);
    split->addWidget(bottom);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(filter_);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    auto* del = new QAction("Delete", view_);
    del->setShortcut(QKeySequence::Delete);
    del->setShortcutContext(Qt::WidgetShortcut);
    view_->addAction(del);
    connect(del, &QAction::triggered, this, &RunsBrowser::deleteSelected);

    // Typing filters after a short pause, so 10,000 runs are not re-filtered per key.
    auto* filterTimer = new QTimer(this);
    filterTimer->setSingleShot(true);
    filterTimer->setInterval(150);
    connect(filter_, &QLineEdit::textChanged, filterTimer, qOverload<>(&QTimer::start));
    connect(filterTimer, &QTimer::timeout, this, [this] { setFilterText(filter_->text()); });
    connect(refresh, &QToolButton::clicked, this, &RunsBrowser::refresh);
    connect(compareButton_, &QToolButton::clicked, this, &RunsBrowser::compareSelected);
    connect(pinButton_, &QToolButton::clicked, this, &RunsBrowser::pinOrUnpinCurrent);
    connect(deleteButton_, &QToolButton::clicked, this, &RunsBrowser::deleteSelected);
    connect(view_, &QTableView::activated, this, [this](const QModelIndex& i) {
        Q_EMIT runActivated(i.data(RunsTableModel::IdRole).toLongLong());
    });
    connect(view_, &QTableView::customContextMenuRequested, this, &RunsBrowser::showContextMenu);
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsBrowser::updateActions);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RunsBrowser::updateDetails);
    connect(model_, &RunsTableModel::baselineChanged, this, [this](qint64 id) {
        updateActions();
        Q_EMIT baselineChanged(id);
    });
    connect(model_, &RunsTableModel::errorOccurred, this, &RunsBrowser::errorOccurred);
    connect(model_, &RunsTableModel::dataChanged, this, &RunsBrowser::updateDetails);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &RunsBrowser::updateActions);
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, &RunsBrowser::updateActions);
    connect(proxy_, &QAbstractItemModel::rowsInserted, this, &RunsBrowser::updateActions);
    connect(proxy_, &QAbstractItemModel::rowsRemoved, this, &RunsBrowser::updateActions);
    connect(notes_, &QPlainTextEdit::textChanged, this, [this] {
        if (notesRun_) notesTimer_->start();
    });
    connect(notesTimer_, &QTimer::timeout, this, &RunsBrowser::saveNotesNow);
    // Typed notes are saved when the editor loses focus or the application quits (no save
    // in the destructor: the store may already be gone then).
    notes_->installEventFilter(this);
    connect(qApp, &QCoreApplication::aboutToQuit, this, &RunsBrowser::saveNotesNow);
    updateDetails();
    updateActions();
}

bool RunsBrowser::eventFilter(QObject* watched, QEvent* event) {
    if (watched == notes_ && event->type() == QEvent::FocusOut) saveNotesNow();
    return QWidget::eventFilter(watched, event);
}

void RunsBrowser::setStore(RunStore* store) {
    saveNotesNow();
    model_->setStore(store);
    updateDetails();
    updateActions();
}

RunStore* RunsBrowser::store() const { return model_->store(); }

QList<qint64> RunsBrowser::selectedRunIds() const {
    QList<qint64> ids;
    QModelIndexList rows = view_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    for (const QModelIndex& i : rows) ids.push_back(i.data(RunsTableModel::IdRole).toLongLong());
    return ids;
}

void RunsBrowser::selectRuns(const QList<qint64>& ids) {
    QItemSelection sel;
    QModelIndex first;
    for (qint64 id : ids) {
        const int row = model_->rowOf(id);
        if (row < 0) continue;
        const QModelIndex p = proxy_->mapFromSource(model_->index(row, 0));
        if (!p.isValid()) continue;
        if (!first.isValid()) first = p;
        sel.select(p, p.siblingAtColumn(RunsTableModel::ColumnCount - 1));
    }
    QItemSelectionModel* sm = view_->selectionModel();
    if (first.isValid()) sm->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
    sm->select(sel, QItemSelectionModel::ClearAndSelect);
    updateDetails();
}

qint64 RunsBrowser::currentRunId() const {
    const QModelIndex i = view_->selectionModel()->currentIndex();
    return i.isValid() ? i.data(RunsTableModel::IdRole).toLongLong() : 0;
}

qint64 RunsBrowser::baseline() const { return model_->baseline(); }

QString RunsBrowser::filterText() const { return proxy_->filterText(); }

void RunsBrowser::refresh() {
    saveNotesNow();
    const QList<qint64> selected = selectedRunIds();
    const qint64 current = currentRunId();
    const int scroll = view_->verticalScrollBar()->value();
    model_->refresh();
    if (RunStore* s = store()) {
        try {
            stamp_ = s->listStamp();
        } catch (const std::exception&) {
        }
    }
    QList<qint64> keep = selected;
    if (current) {
        keep.removeAll(current);
        keep.prepend(current);
    }
    selectRuns(keep);
    view_->verticalScrollBar()->setValue(scroll);
    updateActions();
}

void RunsBrowser::runFinished(qint64) { refresh(); }

void RunsBrowser::setPollInterval(int ms) {
    if (ms <= 0) {
        pollTimer_->stop();
        return;
    }
    pollTimer_->setInterval(ms);
    pollTimer_->start();
}

void RunsBrowser::pollStore() {
    RunStore* s = store();
    if (!s || !isEnabled()) return;
    std::string stamp;
    try {
        stamp = s->listStamp();
    } catch (const std::exception&) {
        return; // busy or gone: the next poll tries again
    }
    if (stamp == stamp_) return;
    stamp_ = stamp;
    refresh();
}

void RunsBrowser::setFilterText(const QString& text) {
    if (filter_->text() != text) {
        const QSignalBlocker block(filter_);
        filter_->setText(text);
    }
    proxy_->setFilterText(text);
    updateActions();
}

void RunsBrowser::setBaseline(qint64 id) { model_->setBaseline(id); }

int RunsBrowser::deleteRuns(const QList<qint64>& ids) {
    RunStore* store = model_->store();
    if (!store || ids.isEmpty()) return 0;
    saveNotesNow();
    QList<qint64> done;
    QGuiApplication::setOverrideCursor(Qt::WaitCursor);
    for (qint64 id : ids) {
        // A run still being written (by the studio or a fogstudio-cli elsewhere) stays.
        const int row = model_->rowOf(id);
        if (row >= 0 && model_->runAt(row).status == "running") {
            Q_EMIT errorOccurred(QString("Run %1 is still running: stop it before deleting it").arg(id));
            continue;
        }
        try {
            if (store->deleteRun(id)) done.push_back(id);
        } catch (const std::exception& e) {
            Q_EMIT errorOccurred(QString("Cannot delete run %1: %2").arg(id).arg(e.what()));
        }
    }
    QGuiApplication::restoreOverrideCursor();
    refresh();
    if (!done.isEmpty()) Q_EMIT runsDeleted(done);
    return static_cast<int>(done.size());
}

void RunsBrowser::deleteSelected() {
    const QList<qint64> ids = selectedRunIds();
    if (ids.isEmpty()) return;
    QString question;
    if (ids.size() == 1) {
        const int row = model_->rowOf(ids.first());
        question = QString("Delete run %1 \"%2\" with its metrics and timelines?")
                       .arg(ids.first())
                       .arg(row >= 0 ? QString::fromStdString(model_->runAt(row).name) : QString());
    } else {
        question = QString("Delete these %1 runs with their metrics and timelines?").arg(ids.size());
    }
    if (ids.contains(model_->baseline())) question += "\nOne of them is the pinned baseline.";
    question += "\nThis cannot be undone.";
    const auto answer = QMessageBox::question(this, "Delete runs", question, QMessageBox::Yes | QMessageBox::Cancel,
                                              QMessageBox::Cancel);
    if (answer == QMessageBox::Yes) deleteRuns(ids);
}

void RunsBrowser::compareSelected() {
    const QList<qint64> ids = selectedRunIds();
    if (!ids.isEmpty()) Q_EMIT compareRequested(ids);
}

bool RunsBrowser::renameRun(qint64 id, const QString& name) { return model_->rename(id, name); }

bool RunsBrowser::setRunTags(qint64 id, const QStringList& tags) { return model_->setTags(id, tags); }

bool RunsBrowser::setRunNotes(qint64 id, const QString& notes) {
    if (id == notesRun_) notesTimer_->stop();
    const bool ok = model_->setNotes(id, notes);
    if (ok && id == notesRun_ && notes_->toPlainText() != notes) {
        const QSignalBlocker block(notes_);
        notes_->setPlainText(notes);
    }
    return ok;
}

void RunsBrowser::saveNotesNow() {
    notesTimer_->stop();
    if (!notesRun_) return;
    const int row = model_->rowOf(notesRun_);
    if (row < 0) return;
    const QString text = notes_->toPlainText();
    if (text.toStdString() != model_->runAt(row).notes) model_->setNotes(notesRun_, text);
}

void RunsBrowser::updateDetails() {
    const qint64 id = currentRunId();
    if (id != notesRun_) saveNotesNow();
    const int row = model_->rowOf(id);
    if (row < 0) {
        notesRun_ = 0;
        details_->setText(model_->store() ? "No run selected." : "No run store open.");
        const QSignalBlocker block(notes_);
        notes_->clear();
        notes_->setEnabled(false);
        return;
    }
    const StoredRun& r = model_->runAt(row);
    QString t = QString("<b>Run %1</b> · %2").arg(r.id).arg(QString::fromStdString(r.status).toHtmlEscaped());
    if (!r.summary.stopReason.empty())
        t += " (" + QString::fromStdString(r.summary.stopReason).toHtmlEscaped() + ")";
    t += QString(" · seed %1 · %2 rounds · %3 · cost %4 · accuracy %5")
             .arg(r.seed)
             .arg(r.summary.rounds)
             .arg(formatSeconds(r.summary.virtualTime), formatCost(r.summary.cost),
                  formatAccuracy(r.summary.finalTestAccuracy));
    if (r.sweepId)
        t += QString("<br>sweep %1, %2, repeat %3")
                 .arg(r.sweepId)
                 .arg(QString::fromStdString(r.sweepConfig).toHtmlEscaped())
                 .arg(r.repeat);
    if (r.id == model_->baseline()) t += QString::fromUtf8(" · <b>\u2605 baseline</b>");
    details_->setText(t);
    notes_->setEnabled(true);
    if (id != notesRun_) {
        notesRun_ = id;
        const QSignalBlocker block(notes_);
        notes_->setPlainText(QString::fromStdString(r.notes));
    }
}

void RunsBrowser::updateActions() {
    const int total = model_->rowCount();
    const int shown = proxy_->rowCount();
    const QString noun = total == 1 ? QStringLiteral("run") : QStringLiteral("runs");
    count_->setText(shown == total ? QString("%1 %2").arg(total).arg(noun)
                                   : QString("%1 of %2 %3").arg(shown).arg(total).arg(noun));
    const QList<qint64> sel = selectedRunIds();
    compareButton_->setEnabled(!sel.isEmpty());
    deleteButton_->setEnabled(!sel.isEmpty());
    const qint64 cur = currentRunId();
    pinButton_->setEnabled(cur != 0 || model_->baseline() != 0);
    const bool unpin = cur != 0 && cur == model_->baseline();
    pinButton_->setText(unpin ? "Unpin" : "Pin");
    pinButton_->setToolTip(unpin ? "Unpin the baseline" : "Pin the current run as the baseline");
}

void RunsBrowser::pinOrUnpinCurrent() {
    const qint64 cur = currentRunId();
    setBaseline(cur == model_->baseline() ? 0 : cur);
}

void RunsBrowser::promptRename(qint64 id) {
    const int row = model_->rowOf(id);
    if (row < 0) return;
    bool ok = false;
    const QString name = QInputDialog::getText(this, "Rename run", QString("New name of run %1:").arg(id),
                                               QLineEdit::Normal, QString::fromStdString(model_->runAt(row).name), &ok);
    if (ok) renameRun(id, name);
}

void RunsBrowser::promptTags(qint64 id) {
    const int row = model_->rowOf(id);
    if (row < 0) return;
    bool ok = false;
    const QString tags = QInputDialog::getText(this, "Edit tags", QString("Tags of run %1, separated by commas:").arg(id),
                                               QLineEdit::Normal, QString::fromStdString(joinTags(model_->runAt(row).tags)), &ok);
    if (ok) setRunTags(id, tags.split(',', Qt::SkipEmptyParts));
}

void RunsBrowser::showContextMenu(const QPoint& pos) {
    const QModelIndex at = view_->indexAt(pos);
    if (at.isValid() && !view_->selectionModel()->isRowSelected(at.row(), {}))
        selectRuns({at.data(RunsTableModel::IdRole).toLongLong()});
    const QList<qint64> sel = selectedRunIds();
    const qint64 cur = at.isValid() ? at.data(RunsTableModel::IdRole).toLongLong() : currentRunId();
    QMenu menu(this);
    if (cur) {
        menu.addAction("Open run", this, [this, cur] { Q_EMIT runActivated(cur); });
        menu.addAction(sel.size() > 1 ? QString("Compare %1 runs").arg(sel.size()) : QString("Compare"), this,
                       &RunsBrowser::compareSelected);
        // A run measured on the testbed: its prediction and measurement, round by round.
        if (RunStore* st = store()) {
            const auto r = st->run(cur);
            if (r && std::find(r->tags.begin(), r->tags.end(), "testbed") != r->tags.end())
                menu.addAction("Compare with Prediction", this, [this, cur] {
                    if (RunStore* s = store()) showTestbedComparison(this, *s, cur);
                })->setObjectName("runsTestbedCompare");
        }
        menu.addSeparator();
        if (cur == model_->baseline())
            menu.addAction("Unpin baseline", this, [this] { setBaseline(0); });
        else
            menu.addAction("Pin as baseline", this, [this, cur] { setBaseline(cur); });
        menu.addAction("Rename...", this, [this, cur] { promptRename(cur); });
        menu.addAction("Edit tags...", this, [this, cur] { promptTags(cur); });
        menu.addAction("Edit notes", this, [this] { notes_->setFocus(); });
        menu.addAction("Re-run", this, [this, cur] { Q_EMIT rerunRequested(cur); });
        menu.addAction("Fork at time...", this, [this, cur] { Q_EMIT forkRequested(cur); })->setObjectName("runsFork");
        menu.addAction(sel.size() > 1 ? "Copy ids" : "Copy id", this, [sel] {
            QStringList s;
            for (qint64 id : sel) s << QString::number(id);
            QGuiApplication::clipboard()->setText(s.join(' '));
        });
        menu.addSeparator();
        menu.addAction(style()->standardIcon(QStyle::SP_TrashIcon),
                       sel.size() > 1 ? QString("Delete %1 runs...").arg(sel.size()) : QString("Delete..."), this,
                       &RunsBrowser::deleteSelected);
        menu.addSeparator();
    }
    if (model_->baseline() && cur != model_->baseline())
        menu.addAction("Unpin baseline", this, [this] { setBaseline(0); });
    menu.addAction(style()->standardIcon(QStyle::SP_BrowserReload), "Refresh", this, &RunsBrowser::refresh);
    menu.exec(view_->viewport()->mapToGlobal(pos));
}

} // namespace fog
