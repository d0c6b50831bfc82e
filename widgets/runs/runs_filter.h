#pragma once
// Filtering and sorting of the runs table. The filter text is a list of words that must
// all match: a plain word matches the id, name, tags, status or sweep configuration;
// "tag:x", "status:x", "name:x" and "sweep:N" match only that field; "fork:N" matches run N
// and its forks (a fork and its parent as one group); "kind:cluster" or "kind:training"
// keeps cluster episodes or training runs, which sort apart (episodes below).

#include <QSortFilterProxyModel>
#include <QString>

#include <vector>

namespace fog {

class RunsTableModel;

class RunsFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunsFilterProxy(QObject* parent = nullptr);

    void setRunsModel(RunsTableModel* model);
    void setFilterText(const QString& text);
    QString filterText() const { return text_; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
    /// Cluster episodes sort below training runs in either order ("kind:cluster" and
    /// "kind:training" filter them).
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

private:
    struct Term {
        enum Field { Any, Tag, Status, Name, Sweep, Fork, Kind } field = Any;
        QString text;
    };
    RunsTableModel* runs_ = nullptr;
    QString text_;
    std::vector<Term> terms_;
};

} // namespace fog
