#pragma once
// The studio's event log: the run's events as they happen (dispatches, messages, arrivals,
// aggregations, nodes going offline and online, plans, stop rules) in a table backed by a
// bounded model, so a run that produces a hundred thousand events keeps the window fluid
// (the oldest rows go past the capacity; the run store keeps every aggregation and event).
// A click on a row selects and centres its node on the topology canvas.
//
// Threads: GUI thread only. The run controller hands it batches (RunController::log).

#include "core/system/metrics.h"
#include "widgets/run/log_entry.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <deque>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableView;

namespace fog {

class TopologyCanvas;

class EventLogModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { TimeColumn, KindColumn, NodeColumn, DetailColumn, ColumnCount };
    /// Which rows show (bits; All shows every row).
    enum Filter : unsigned {
        Messages = 1,     ///< dispatches, sends, arrivals, discarded jobs
        Rounds = 2,       ///< aggregations
        Availability = 4, ///< offline, online, work lost
        Other = 8,        ///< plans, placements, stop rules, notes
        All = 15,
    };
    static constexpr std::size_t kDefaultCapacity = 100000;

    explicit EventLogModel(QObject* parent = nullptr);

    /// Forgets every row; node indices of new entries refer to `nodes` (RunInfo::nodes).
    void reset(const std::vector<NodeInfo>& nodes);
    void append(const std::vector<LogEntry>& entries);
    /// A line of the studio's own (run started, finished, an error), without a time.
    void addNote(const QString& text);
    /// Most rows kept; past it the oldest go (in chunks of a twentieth, so that appending
    /// stays cheap).
    void setCapacity(std::size_t rows);
    std::size_t capacity() const { return capacity_; }
    void setFilter(unsigned filter);
    unsigned filter() const { return filter_; }

    /// Rows kept (shown or filtered out), and rows dropped past the capacity since reset.
    std::size_t kept() const { return entries_.size(); }
    std::uint64_t dropped() const { return first_; }
    /// The entry shown at `row`, or nullptr.
    const LogEntry* entryAt(int row) const;
    /// The node's id in the run ("phone-3"), or "" for -1 and unknown indices.
    QString nodeName(int index) const;
    static QString kindName(const LogEntry& e);
    QString detail(const LogEntry& e) const;
    static unsigned categoryOf(const LogEntry& e);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void trim();
    void rebuildVisible();

    std::vector<QString> nodes_;
    std::deque<LogEntry> entries_;
    std::uint64_t first_ = 0;             ///< sequence number of entries_.front()
    std::deque<std::uint64_t> visible_;   ///< sequence numbers of the rows shown
    std::size_t capacity_ = kDefaultCapacity;
    unsigned filter_ = All;
};

class EventLog : public QWidget {
    Q_OBJECT
public:
    explicit EventLog(QWidget* parent = nullptr);

    EventLogModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    /// Where a click on a row shows its node (not owned; may be null).
    void setCanvas(TopologyCanvas* canvas) { canvas_ = canvas; }
    /// Keeps the newest row in view as rows arrive (on by default; the Follow box).
    bool following() const;

public Q_SLOTS:
    void reset(const std::vector<fog::NodeInfo>& nodes);
    void append(const std::vector<fog::LogEntry>& entries);
    void addNote(const QString& text);
    /// Selects and centres on the canvas the node of the row shown at `row`.
    void activateRow(int row);

Q_SIGNALS:
    /// A row naming a node was clicked: its id in the run ("phone-3").
    void nodeActivated(const QString& id);

private:
    void updateCount();

    EventLogModel* model_;
    QTableView* view_;
    QComboBox* filter_;
    QCheckBox* follow_;
    QLabel* count_;
    TopologyCanvas* canvas_ = nullptr;
};

/// Selects the item drawing run node `id` (a group for one of its members) on `canvas` and
/// centres the view on it; false when the canvas has no such node (edited since the run).
bool showRunNodeOnCanvas(TopologyCanvas* canvas, const QString& id);

} // namespace fog
