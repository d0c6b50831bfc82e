#include "widgets/run/event_log.h"

#include "widgets/topology/node_item.h"
#include "widgets/topology/topology_canvas.h"
#include "widgets/topology/topology_scene.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

QString secondsText(double t) { return std::isnan(t) ? QString() : QString::number(t, 'f', 3); }

QString bytesText(double b) {
    if (std::isnan(b) || b <= 0) return QObject::tr("a message");
    if (b >= 1e9) return QString::number(b / 1e9, 'g', 3) + " GB";
    if (b >= 1e6) return QString::number(b / 1e6, 'g', 3) + " MB";
    if (b >= 1e3) return QString::number(b / 1e3, 'g', 3) + " kB";
    return QString::number(b, 'g', 3) + " B";
}

} // namespace

EventLogModel::EventLogModel(QObject* parent) : QAbstractTableModel(parent) {}

void EventLogModel::reset(const std::vector<NodeInfo>& nodes) {
    beginResetModel();
    nodes_.clear();
    nodes_.reserve(nodes.size());
    for (const auto& n : nodes) nodes_.push_back(QString::fromStdString(n.id));
    entries_.clear();
    visible_.clear();
    first_ = 0;
    endResetModel();
}

unsigned EventLogModel::categoryOf(const LogEntry& e) {
    switch (e.kind) {
    case LogKind::Dispatch:
    case LogKind::Send:
    case LogKind::Arrival:
    case LogKind::Received:
    case LogKind::CutOff:
    case LogKind::Discarded: return Messages;
    case LogKind::Aggregation: return Rounds;
    case LogKind::Event:
        if (e.event == RunEventKind::Offline || e.event == RunEventKind::Online || e.event == RunEventKind::WorkLost)
            return Availability;
        return Other;
    case LogKind::Note: return Other;
    }
    return Other;
}

void EventLogModel::append(const std::vector<LogEntry>& entries) {
    if (entries.empty()) return;
    const std::uint64_t seq0 = first_ + entries_.size();
    std::vector<std::uint64_t> shown;
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (categoryOf(entries[i]) & filter_) shown.push_back(seq0 + i);
    entries_.insert(entries_.end(), entries.begin(), entries.end());
    if (!shown.empty()) {
        const int row = static_cast<int>(visible_.size());
        beginInsertRows({}, row, row + static_cast<int>(shown.size()) - 1);
        visible_.insert(visible_.end(), shown.begin(), shown.end());
        endInsertRows();
    }
    trim();
}

void EventLogModel::addNote(const QString& text) {
    LogEntry e;
    e.time = std::nan("");
    e.kind = LogKind::Note;
    e.text = text.toStdString();
    append({e});
}

void EventLogModel::setCapacity(std::size_t rows) {
    capacity_ = std::max<std::size_t>(1, rows);
    trim();
}

void EventLogModel::trim() {
    if (entries_.size() <= capacity_) return;
    // Drop a twentieth more than needed: the next batches then append without a removal.
    const std::size_t drop = std::min(entries_.size(), entries_.size() - capacity_ + capacity_ / 20);
    entries_.erase(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(drop));
    first_ += drop;
    std::size_t gone = 0;
    while (gone < visible_.size() && visible_[gone] < first_) ++gone;
    if (gone == 0) return;
    beginRemoveRows({}, 0, static_cast<int>(gone) - 1);
    visible_.erase(visible_.begin(), visible_.begin() + static_cast<std::ptrdiff_t>(gone));
    endRemoveRows();
}

void EventLogModel::setFilter(unsigned filter) {
    filter = filter & All;
    if (filter == filter_) return;
    filter_ = filter;
    rebuildVisible();
}

void EventLogModel::rebuildVisible() {
    beginResetModel();
    visible_.clear();
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (categoryOf(entries_[i]) & filter_) visible_.push_back(first_ + i);
    endResetModel();
}

const LogEntry* EventLogModel::entryAt(int row) const {
    if (row < 0 || row >= static_cast<int>(visible_.size())) return nullptr;
    return &entries_[static_cast<std::size_t>(visible_[static_cast<std::size_t>(row)] - first_)];
}

QString EventLogModel::nodeName(int index) const {
    if (index < 0 || index >= static_cast<int>(nodes_.size())) return {};
    return nodes_[static_cast<std::size_t>(index)];
}

QString EventLogModel::kindName(const LogEntry& e) {
    switch (e.kind) {
    case LogKind::Dispatch: return tr("dispatch");
    case LogKind::Send: return tr("send");
    case LogKind::Arrival: return tr("arrival");
    case LogKind::Received: return tr("received");
    case LogKind::CutOff: return tr("cut off");
    case LogKind::Discarded: return tr("job ended");
    case LogKind::Aggregation: return e.level == 0 ? tr("round") : tr("aggregation");
    case LogKind::Event: return QString::fromLatin1(toString(e.event));
    case LogKind::Note: return tr("note");
    }
    return {};
}

QString EventLogModel::detail(const LogEntry& e) const {
    const QString peer = nodeName(e.peer);
    switch (e.kind) {
    case LogKind::Dispatch:
        return tr("model from %1 in at %2 s, computed at %3 s, update due at %4 s (job %5)")
            .arg(peer, secondsText(e.a), secondsText(e.b), secondsText(e.c))
            .arg(e.job);
    case LogKind::Send: return tr("%1 to %2, arrives at %3 s").arg(bytesText(e.b), peer, secondsText(e.a));
    case LogKind::Arrival: return tr("update reached %1 (job %2)").arg(peer).arg(e.job);
    case LogKind::Received: return tr("%1 from %2 arrived").arg(bytesText(e.b), peer);
    case LogKind::CutOff: return tr("%1 from %2 cut off").arg(bytesText(e.b), peer);
    case LogKind::Discarded: return tr("job %1 ended before its update arrived (discarded or lost)").arg(e.job);
    case LogKind::Aggregation: {
        QString s = e.level == 0 ? tr("round %1: %2 update(s)").arg(e.round).arg(e.c)
                                 : tr("level-%1 aggregation: %2 update(s)").arg(e.level).arg(e.c);
        if (!std::isnan(e.a)) s += tr(", train loss %1").arg(e.a, 0, 'f', 4);
        if (!std::isnan(e.b)) s += tr(", test accuracy %1%").arg(100 * e.b, 0, 'f', 2);
        return s;
    }
    case LogKind::Event:
    case LogKind::Note: return QString::fromStdString(e.text);
    }
    return {};
}

int EventLogModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(visible_.size());
}

int EventLogModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant EventLogModel::data(const QModelIndex& index, int role) const {
    const LogEntry* e = entryAt(index.row());
    if (!e) return {};
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case TimeColumn: return secondsText(e->time);
        case KindColumn: return kindName(*e);
        case NodeColumn: return nodeName(e->node);
        case DetailColumn: return detail(*e);
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() == TimeColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant EventLogModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case TimeColumn: return tr("Time (s)");
    case KindColumn: return tr("Event");
    case NodeColumn: return tr("Node");
    case DetailColumn: return tr("Detail");
    }
    return {};
}

// ---- the widget ----------------------------------------------------------------------

EventLog::EventLog(QWidget* parent) : QWidget(parent), model_(new EventLogModel(this)) {
    setObjectName("eventLog");
    filter_ = new QComboBox(this);
    filter_->setObjectName("eventLogFilter");
    filter_->addItem(tr("All events"), unsigned(EventLogModel::All));
    filter_->addItem(tr("Messages (dispatch, send, arrival)"), unsigned(EventLogModel::Messages));
    filter_->addItem(tr("Rounds"), unsigned(EventLogModel::Rounds));
    filter_->addItem(tr("Availability (offline, online, lost work)"), unsigned(EventLogModel::Availability));
    filter_->addItem(tr("Plans, interventions, stop rules, notes"), unsigned(EventLogModel::Other));
    filter_->setToolTip(tr("Which events the log lists"));
    follow_ = new QCheckBox(tr("Follow"), this);
    follow_->setObjectName("eventLogFollow");
    follow_->setChecked(true);
    follow_->setToolTip(tr("Keep the newest event in view"));
    count_ = new QLabel(this);
    count_->setObjectName("eventLogCount");

    view_ = new QTableView(this);
    view_->setObjectName("eventLogView");
    view_->setModel(model_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->setWordWrap(false);
    view_->setAlternatingRowColors(true);
    view_->verticalHeader()->hide();
    // Fixed row heights and column widths: nothing is measured per row, so 100,000 rows
    // cost what the visible ones cost.
    view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    view_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
    QHeaderView* h = view_->horizontalHeader();
    h->setSectionResizeMode(QHeaderView::Interactive);
    h->setStretchLastSection(true);
    const int digit = fontMetrics().horizontalAdvance('0');
    view_->setColumnWidth(EventLogModel::TimeColumn, digit * 12);
    view_->setColumnWidth(EventLogModel::KindColumn, digit * 13);
    view_->setColumnWidth(EventLogModel::NodeColumn, digit * 14);
    view_->setToolTip(tr("Click an event to select its node on the canvas"));

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(filter_);
    bar->addWidget(follow_);
    bar->addStretch();
    bar->addWidget(count_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(view_, 1);

    connect(filter_, &QComboBox::currentIndexChanged, this, [this] {
        model_->setFilter(filter_->currentData().toUInt());
        updateCount();
        if (following()) view_->scrollToBottom();
    });
    connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
        if (on) view_->scrollToBottom();
    });
    connect(view_, &QTableView::clicked, this, [this](const QModelIndex& i) { activateRow(i.row()); });
    connect(view_, &QTableView::activated, this, [this](const QModelIndex& i) { activateRow(i.row()); });
    updateCount();
}

bool EventLog::following() const { return follow_->isChecked(); }
void EventLog::reset(const std::vector<NodeInfo>& nodes) {
    model_->reset(nodes);
    updateCount();
}

void EventLog::append(const std::vector<LogEntry>& entries) {
    model_->append(entries);
    updateCount();
    if (following()) view_->scrollToBottom();
}

void EventLog::addNote(const QString& text) {
    model_->addNote(text);
    updateCount();
    if (following()) view_->scrollToBottom();
}

void EventLog::activateRow(int row) {
    const LogEntry* e = model_->entryAt(row);
    if (!e) return;
    const QString id = model_->nodeName(e->node);
    if (id.isEmpty()) return;
    if (canvas_) showRunNodeOnCanvas(canvas_, id);
    Q_EMIT nodeActivated(id);
}

void EventLog::updateCount() {
    const QLocale l;
    QString text = tr("%1 shown").arg(l.toString(model_->rowCount()));
    if (model_->dropped() > 0)
        text += tr(", %1 oldest dropped (the log keeps %2)")
                    .arg(l.toString(static_cast<qulonglong>(model_->dropped())))
                    .arg(l.toString(static_cast<qulonglong>(model_->capacity())));
    count_->setText(text);
}

bool showRunNodeOnCanvas(TopologyCanvas* canvas, const QString& id) {
    if (!canvas) return false;
    TopologyScene* scene = canvas->topologyScene();
    NodeItem* item = scene->itemForNodeId(id);
    if (!item) return false;
    scene->selectIds({item->id()});
    canvas->centerOn(item);
    return true;
}

} // namespace fog
