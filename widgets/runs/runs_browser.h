#pragma once
// The runs dock: every run of the store in a sortable, filterable table, with tags, notes,
// rename, a pinned baseline, delete, re-run and "compare". Knows nothing of the main
// window: it talks through signals, and the window calls refresh()/runFinished().

#include <QList>
#include <string>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTableView;
class QTimer;
class QToolButton;

namespace fog {

class RunStore;
class RunsFilterProxy;
class RunsTableModel;

class RunsBrowser : public QWidget {
    Q_OBJECT
public:
    explicit RunsBrowser(QWidget* parent = nullptr);

    /// Not owned. Lists its runs at once.
    void setStore(RunStore* store);
    RunStore* store() const;

    /// Selected runs, in the table's current order.
    QList<qint64> selectedRunIds() const;
    /// Selects these runs (those listed and not filtered out) and makes the first current.
    void selectRuns(const QList<qint64>& ids);
    qint64 currentRunId() const;
    qint64 baseline() const;
    QString filterText() const;

    RunsTableModel* model() const { return model_; }
    RunsFilterProxy* proxy() const { return proxy_; }
    QTableView* view() const { return view_; }

public Q_SLOTS:
    /// Re-reads the store, keeping the selection, the sort order, the filter and the baseline.
    void refresh();
    /// The auto-refresh hook: call when a run started or finished; selects nothing new.
    void runFinished(qint64 id);
    /// How often the store is looked at for runs other processes stored (default 1500 ms;
    /// 0: never).
    void setPollInterval(int ms);
    void setFilterText(const QString& text);
    /// 0 unpins. Emits baselineChanged.
    void setBaseline(qint64 id);
    /// Deletes without asking (the caller asked); returns how many were deleted.
    int deleteRuns(const QList<qint64>& ids);
    /// Asks for confirmation, then deletes the selected runs.
    void deleteSelected();
    void compareSelected();
    bool renameRun(qint64 id, const QString& name);
    bool setRunTags(qint64 id, const QStringList& tags);
    bool setRunNotes(qint64 id, const QString& notes);

Q_SIGNALS:
    /// Open / show a run (double-click, Enter, context menu).
    void runActivated(qint64 id);
    void compareRequested(const QList<qint64>& ids);
    void baselineChanged(qint64 id);
    void rerunRequested(qint64 id);
    /// Fork at time… (the window asks when and what changes).
    void forkRequested(qint64 id);
    void runsDeleted(const QList<qint64>& ids);
    /// A store operation failed; the window may show it in the status bar.
    void errorOccurred(const QString& message);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showContextMenu(const QPoint& pos);
    void updateDetails();
    void updateActions();
    void saveNotesNow();
    void promptRename(qint64 id);
    void promptTags(qint64 id);
    void pinOrUnpinCurrent();

    RunsTableModel* model_;
    RunsFilterProxy* proxy_;
    QLineEdit* filter_;
    QTableView* view_;
    QLabel* count_;
    QLabel* details_;
    QPlainTextEdit* notes_;
    QTimer* notesTimer_;
    QTimer* pollTimer_ = nullptr;
    std::string stamp_; ///< the run list's fingerprint when last read (RunStore::listStamp)
    void pollStore();
    qint64 notesRun_ = 0;
    QToolButton* compareButton_;
    QToolButton* pinButton_;
    QToolButton* deleteButton_;
};

} // namespace fog
