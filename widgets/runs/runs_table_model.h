#pragma once
// The runs of a store as a table: one listRuns query per refresh (no per-row queries, so
// 10,000 runs stay snappy), the pinned baseline, and in-place rename and tag edits.

#include "core/store/run_store.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace fog {

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Name, Status, Tags, Sweep, Started, Rounds, VirtualTime, Cost, Energy, FinalAccuracy,
                  BestAccuracy, ColumnCount };
    /// Raw values for sorting (numbers as numbers, NaN sorted first), and the run id of a row.
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int IdRole = Qt::UserRole + 2;
    static constexpr int BaselineRole = Qt::UserRole + 3;
    /// "cluster" for a cluster episode (tag cluster), else "training".
    static constexpr int KindRole = Qt::UserRole + 4;
    static bool isClusterRun(const StoredRun& r);

    explicit RunsTableModel(QObject* parent = nullptr);

    /// Not owned; nullptr empties the table.
    void setStore(RunStore* store);
    RunStore* store() const { return store_; }
    /// Re-reads the list of runs. Keeps the baseline if that run still exists.
    void refresh();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    /// Name and Tags (comma-separated) are editable and written to the store at once.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    /// The run of a row (scenario YAML is not kept: ask the store for it).
    const StoredRun& runAt(int row) const { return runs_[static_cast<std::size_t>(row)]; }
    /// Lower-case text of a row's fields, prepared once per refresh for the filter.
    struct SearchText {
        QString id, name, status, config;
        QStringList tags;
        qint64 forkParent = 0; ///< the run this one is a fork of (0: not a fork)
    };
    const SearchText& searchText(int row) const { return search_[static_cast<std::size_t>(row)]; }
    /// -1 when the run is not listed.
    int rowOf(qint64 id) const { return rowById_.value(id, -1); }

    qint64 baseline() const { return baseline_; }
    /// 0 clears it. Emits baselineChanged when it changes.
    void setBaseline(qint64 id);

    /// Store edits that also update the row.
    bool rename(qint64 id, const QString& name);
    bool setTags(qint64 id, const QStringList& tags);
    bool setNotes(qint64 id, const QString& notes);

Q_SIGNALS:
    void baselineChanged(qint64 id);
    /// A store operation failed; the message says which run and why.
    void errorOccurred(const QString& message);

private:
    void rowChanged(int row);

    RunStore* store_ = nullptr;
    void updateSearchText(int row);

    std::vector<StoredRun> runs_;
    std::vector<SearchText> search_;
    QHash<qint64, int> rowById_;
    qint64 baseline_ = 0;
};

/// "12.34 %" or "–" for NaN; the formats the browser and the comparison share.
QString formatAccuracy(double fraction);
QString formatSeconds(double s);
QString formatCost(double c);
QString formatEnergy(double joules);

} // namespace fog
