#include "widgets/runs/runs_table_model.h"

#include "core/analysis/run_labels.h"

#include <QApplication>
#include <QDateTime>
#include <QFont>
#include <QPalette>

#include <algorithm>
#include <cmath>
#include <exception>

namespace fog {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

/// NaN sorts before every number, so "not evaluated" runs gather at one end.
QVariant sortNumber(double v) { return std::isnan(v) ? QVariant(-1e300) : QVariant(v); }

QString sweepText(const StoredRun& r) {
    if (!r.sweepId) return {};
    // The varied values first, in short (core/analysis/run_labels: "n-sync n=3", numbers
    // rounded; the tool tip has them whole): they are what tells a sweep's runs apart.
    const QString config = r.sweepConfig.empty() ? QString() : qs(shortConfigLabel(r.sweepConfig)) + " ";
    return config + QString("r%1 (sweep %2)").arg(r.repeat).arg(r.sweepId);
}

QString startedText(const std::string& iso) {
    const QDateTime t = QDateTime::fromString(qs(iso), Qt::ISODate);
    return t.isValid() ? t.toLocalTime().toString("yyyy-MM-dd hh:mm") : qs(iso);
}

} // namespace

QString formatAccuracy(double fraction) {
    return std::isnan(fraction) ? QString::fromUtf8("–") : QString::number(100.0 * fraction, 'f', 2) + " %";
}

QString formatSeconds(double s) { return std::isnan(s) ? QString::fromUtf8("–") : QString::number(s, 'f', 1) + " s"; }

QString formatCost(double c) { return std::isnan(c) ? QString::fromUtf8("–") : QString::number(c, 'f', 4); }

QString formatEnergy(double j) {
    if (std::isnan(j)) return QString::fromUtf8("–");
    if (std::abs(j) >= 1e6) return QString::number(j / 1e6, 'f', 2) + " MJ";
    if (std::abs(j) >= 1e3) return QString::number(j / 1e3, 'f', 2) + " kJ";
    return QString::number(j, 'f', 1) + " J";
}

RunsTableModel::RunsTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunsTableModel::setStore(RunStore* store) {
    store_ = store;
    refresh();
}

void RunsTableModel::refresh() {
    std::vector<StoredRun> runs;
    if (store_) {
        try {
            runs = store_->listRuns();
        } catch (const std::exception& e) {
            Q_EMIT errorOccurred(QString("Cannot list the runs of %1: %2").arg(qs(store_->path()), e.what()));
        }
    }
    // The YAML is the bulk of a row and the table never shows it.
    for (auto& r : runs) std::string().swap(r.scenarioYaml);
    beginResetModel();
    runs_ = std::move(runs);
    rowById_.clear();
    rowById_.reserve(static_cast<int>(runs_.size()));
    search_.assign(runs_.size(), {});
    for (std::size_t i = 0; i < runs_.size(); ++i) {
        rowById_.insert(runs_[i].id, static_cast<int>(i));
        updateSearchText(static_cast<int>(i));
    }
    endResetModel();
    if (baseline_ && !rowById_.contains(baseline_)) setBaseline(0);
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const StoredRun& r = runAt(index.row());
    const RunSummary& s = r.summary;
    const bool isBaseline = r.id == baseline_;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Id: return QVariant::fromValue<qint64>(r.id);
        case Name: return isBaseline ? QString::fromUtf8("\u2605 ") + qs(r.name) : qs(r.name);
        case Status: return qs(r.status);
        case Tags: return qs(joinTags(r.tags));
        case Sweep: return sweepText(r);
        case Started: return startedText(r.startedAt);
        case Rounds: return s.rounds;
        case VirtualTime: return formatSeconds(s.virtualTime);
        case Cost: return formatCost(s.cost);
        case Energy: return formatEnergy(s.energyJ);
        case FinalAccuracy: return formatAccuracy(s.finalTestAccuracy);
        case BestAccuracy: return formatAccuracy(s.bestTestAccuracy);
        }
        break;
    case Qt::EditRole:
        if (index.column() == Name) return qs(r.name);
        if (index.column() == Tags) return qs(joinTags(r.tags));
        return data(index, Qt::DisplayRole);
    case SortRole:
        switch (index.column()) {
        case Id: return QVariant::fromValue<qint64>(r.id);
        case Name: return qs(r.name);
        case Status: return qs(r.status);
        case Tags: return qs(joinTags(r.tags));
        case Sweep: return QString("%1 %2 %3").arg(r.sweepId, 10, 10, QChar('0')).arg(qs(r.sweepConfig)).arg(r.repeat, 6, 10, QChar('0'));
        case Started: return qs(r.startedAt); // ISO 8601 sorts as text
        case Rounds: return s.rounds;
        case VirtualTime: return sortNumber(s.virtualTime);
        case Cost: return sortNumber(s.cost);
        case Energy: return sortNumber(s.energyJ);
        case FinalAccuracy: return sortNumber(s.finalTestAccuracy);
        case BestAccuracy: return sortNumber(s.bestTestAccuracy);
        }
        break;
    case IdRole: return QVariant::fromValue<qint64>(r.id);
    case BaselineRole: return isBaseline;
    case Qt::TextAlignmentRole:
        if (index.column() == Id || index.column() >= Rounds) return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::FontRole:
        if (isBaseline || isClusterRun(r)) {
            QFont f;
            f.setBold(isBaseline);
            f.setItalic(isClusterRun(r)); // a scheduler episode, not a training run
            return f;
        }
        break;
    case KindRole: return isClusterRun(r) ? QStringLiteral("cluster") : QStringLiteral("training");
    case Qt::BackgroundRole:
        if (isBaseline) {
            QColor c = QApplication::palette().color(QPalette::Highlight);
            c.setAlpha(45);
            return c;
        }
        break;
    case Qt::ForegroundRole:
        if (index.column() == Status) {
            if (r.status == "failed") return QColor(213, 94, 0);
            if (r.status == "running") return QColor(0, 114, 178);
            if (r.status == "cancelled" || r.status == "interrupted") return QColor(128, 128, 128);
        }
        break;
    case Qt::ToolTipRole: {
        QString t = QString("%4 %1: %2\n%3").arg(r.id).arg(qs(r.name), qs(r.status),
                                                   isClusterRun(r) ? "Cluster episode" : "Training run");
        if (!s.stopReason.empty()) t += " (" + qs(s.stopReason) + ")";
        t += QString("\nseed %1").arg(r.seed);
        if (r.sweepId)
            t += QString("\nsweep %1: %2, repeat %3").arg(r.sweepId).arg(qs(r.sweepConfig)).arg(r.repeat);
        if (isBaseline) t += "\npinned as the baseline";
        if (!r.notes.empty()) t += "\n\n" + qs(r.notes);
        return t;
    }
    }
    return {};
}

bool RunsTableModel::isClusterRun(const StoredRun& r) {
    return std::find(r.tags.begin(), r.tags.end(), "cluster") != r.tags.end();
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    static const char* names[] = {"id",        "name", "status", "tags",   "sweep / config", "started",
                                  "rounds",    "virtual time", "cost", "energy", "final acc.", "best acc."};
    static const char* tips[] = {"Run id in the store",
                                 "Run name (double-click to rename); \u2605 marks the pinned baseline",
                                 "running, finished, cancelled, interrupted or failed",
                                 "Comma-separated tags (double-click to edit)",
                                 "The sweep the run belongs to, its varied values and repeat index",
                                 "Start time (local)",
                                 "Global rounds completed",
                                 "Virtual time at the end of the run",
                                 "Cumulative cost: machine time billed plus traffic",
                                 "Cumulative energy",
                                 "Last evaluated test accuracy",
                                 "Best evaluated test accuracy"};
    if (section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) return QString(names[section]);
    if (role == Qt::ToolTipRole) return QString::fromUtf8(tips[section]);
    return {};
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && (index.column() == Name || index.column() == Tags)) f |= Qt::ItemIsEditable;
    return f;
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || role != Qt::EditRole) return false;
    const qint64 id = runAt(index.row()).id;
    if (index.column() == Name) return rename(id, value.toString());
    if (index.column() == Tags) return setTags(id, value.toString().split(',', Qt::SkipEmptyParts));
    return false;
}

void RunsTableModel::setBaseline(qint64 id) {
    if (id && !rowById_.contains(id)) id = 0;
    if (id == baseline_) return;
    const int oldRow = rowOf(baseline_);
    baseline_ = id;
    if (oldRow >= 0) rowChanged(oldRow);
    if (id) rowChanged(rowOf(id));
    Q_EMIT baselineChanged(id);
}

bool RunsTableModel::rename(qint64 id, const QString& name) {
    const int row = rowOf(id);
    const QString trimmed = name.trimmed();
    if (!store_ || row < 0 || trimmed.isEmpty()) return false;
    try {
        store_->rename(id, trimmed.toStdString());
    } catch (const std::exception& e) {
        Q_EMIT errorOccurred(QString("Cannot rename run %1: %2").arg(id).arg(e.what()));
        return false;
    }
    runs_[static_cast<std::size_t>(row)].name = trimmed.toStdString();
    rowChanged(row);
    return true;
}

bool RunsTableModel::setTags(qint64 id, const QStringList& tags) {
    const int row = rowOf(id);
    if (!store_ || row < 0) return false;
    std::vector<std::string> clean;
    for (const QString& t : tags) {
        const std::string s = t.trimmed().toStdString();
        if (!s.empty() && std::find(clean.begin(), clean.end(), s) == clean.end()) clean.push_back(s);
    }
    try {
        store_->setTags(id, clean);
    } catch (const std::exception& e) {
        Q_EMIT errorOccurred(QString("Cannot set the tags of run %1: %2").arg(id).arg(e.what()));
        return false;
    }
    runs_[static_cast<std::size_t>(row)].tags = clean;
    rowChanged(row);
    return true;
}

bool RunsTableModel::setNotes(qint64 id, const QString& notes) {
    const int row = rowOf(id);
    if (!store_ || row < 0) return false;
    try {
        store_->setNotes(id, notes.toStdString());
    } catch (const std::exception& e) {
        Q_EMIT errorOccurred(QString("Cannot save the notes of run %1: %2").arg(id).arg(e.what()));
        return false;
    }
    runs_[static_cast<std::size_t>(row)].notes = notes.toStdString();
    rowChanged(row);
    return true;
}

void RunsTableModel::updateSearchText(int row) {
    const StoredRun& r = runs_[static_cast<std::size_t>(row)];
    SearchText& t = search_[static_cast<std::size_t>(row)];
    t.id = QString::number(r.id);
    t.name = qs(r.name).toLower();
    t.status = qs(r.status).toLower();
    t.config = qs(r.sweepConfig).toLower();
    t.tags.clear();
    for (const auto& tag : r.tags) t.tags.push_back(qs(tag).toLower());
    // Forks carry the tag "fork" (core/fork): only those are looked up.
    t.forkParent = 0;
    if (store_ && std::find(r.tags.begin(), r.tags.end(), "fork") != r.tags.end()) {
        try {
            if (const auto f = store_->fork(r.id)) t.forkParent = f->parentId;
        } catch (const std::exception&) {
        }
    }
}

void RunsTableModel::rowChanged(int row) {
    if (row < 0) return;
    updateSearchText(row);
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

} // namespace fog
