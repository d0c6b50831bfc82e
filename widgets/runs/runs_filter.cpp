#include "widgets/runs/runs_filter.h"

#include "widgets/runs/runs_table_model.h"

namespace fog {


RunsFilterProxy::RunsFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(RunsTableModel::SortRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
}

void RunsFilterProxy::setRunsModel(RunsTableModel* model) {
    runs_ = model;
    setSourceModel(model);
}

void RunsFilterProxy::setFilterText(const QString& text) {
    if (text == text_) return;
    text_ = text;
    std::vector<Term> terms;
    for (const QString& word : text.split(' ', Qt::SkipEmptyParts)) {
        Term t;
        t.text = word.toLower();
        const int colon = word.indexOf(':');
        if (colon > 0) {
            const QString key = word.left(colon).toLower();
            const QString value = t.text.mid(colon + 1);
            if (key == "tag") t.field = Term::Tag;
            else if (key == "status") t.field = Term::Status;
            else if (key == "name") t.field = Term::Name;
            else if (key == "sweep") t.field = Term::Sweep;
            else if (key == "fork") t.field = Term::Fork;
            else if (key == "kind") t.field = Term::Kind;
            if (t.field != Term::Any) t.text = value;
        }
        if (!t.text.isEmpty()) terms.push_back(t);
    }
    terms_ = std::move(terms);
    invalidateFilter();
}

bool RunsFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    // Cluster episodes apart from training runs: below them, whatever the column and order.
    if (runs_ && !left.parent().isValid()) {
        const bool l = RunsTableModel::isClusterRun(runs_->runAt(left.row()));
        const bool r = RunsTableModel::isClusterRun(runs_->runAt(right.row()));
        if (l != r) return sortOrder() == Qt::AscendingOrder ? r : l;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

bool RunsFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (sourceParent.isValid() || !runs_) return true;
    const RunsTableModel::SearchText& r = runs_->searchText(sourceRow);
    for (const Term& t : terms_) {
        bool ok = false;
        switch (t.field) {
        case Term::Tag: ok = r.tags.contains(t.text); break;
        case Term::Status: ok = r.status.contains(t.text); break;
        case Term::Name: ok = r.name.contains(t.text); break;
        case Term::Sweep: ok = runs_->runAt(sourceRow).sweepId == t.text.toLongLong(); break;
        case Term::Kind:
            ok = QString(RunsTableModel::isClusterRun(runs_->runAt(sourceRow)) ? "cluster" : "training").startsWith(t.text);
            break;
        case Term::Fork: ok = r.id == t.text || (r.forkParent && QString::number(r.forkParent) == t.text); break;
        case Term::Any:
            ok = r.id == t.text || r.name.contains(t.text) || r.status.contains(t.text) || r.config.contains(t.text);
            for (const QString& tag : r.tags) ok = ok || tag.contains(t.text);
            break;
        }
        if (!ok) return false;
    }
    return true;
}

} // namespace fog
