#pragma once
// The per-node timeline of a run: one row per node, coloured by state (receiving, computing,
// sending, idle, offline) over virtual time, with each global round's end marked and the
// trainer whose update arrived last (who held the barrier) highlighted. Appends intervals
// live; scrolls through many nodes; only the visible rows are drawn.

#include "core/system/metrics.h"

#include <QString>
#include <QWidget>

#include <cstdint>
#include <vector>

class QCustomPlot;
class QCPColorMap;
class QCPGraph;
class QCPItemStraightLine;
class QLabel;
class QScrollBar;
class QTimer;

namespace fog {

class RunStore;

class NodeTimeline : public QWidget {
    Q_OBJECT
public:
    /// A global round's end and the node whose work arrived last before it (-1: unknown).
    struct Barrier {
        int round = 0;
        double time = 0.0;
        int holder = -1;
    };

    explicit NodeTimeline(QWidget* parent = nullptr);
    ~NodeTimeline() override;

    /// Clears the timeline for a run of these nodes (RunInfo::nodes order).
    void reset(const RunInfo& info);
    void appendIntervals(const std::vector<NodeInterval>& intervals);
    /// Level-0 records mark round ends; the intervals that led to them may come before, in
    /// the same batch or earlier ones.
    void appendMetrics(const std::vector<AggregationRecord>& records);
    /// Shows a stored run; false (cleared) if there is no such run.
    bool showStoredRun(const RunStore& store, std::int64_t runId);

    const std::vector<Barrier>& barriers() const { return barriers_; }
    int nodeCount() const { return static_cast<int>(names_.size()); }
    /// The state drawn for `node` at virtual time `t` (at the timeline's resolution).
    NodeState stateAt(int node, double t) const;
    int firstVisibleRow() const { return first_; }
    void scrollToRow(int row);
    QCustomPlot* plot() const { return plot_; }

    /// Virtual seconds `node` spent in `state` (exact, from the intervals; waiting for the
    /// network is Receiving + Sending, apart from Computing).
    double totalSeconds(int node, NodeState state) const;
    /// The same summed over all nodes.
    double totalSeconds(NodeState state) const;
    /// The line above the timeline: time computing vs waiting for the network, all nodes.
    QString totalsText() const;
    /// Waiting for the network from this share of the nodes' busy time on, a run is
    /// network-bound: the straggler lessons (fully-sync vs n-sync) do not show in it.
    static constexpr double kNetworkBoundShare = 0.75;
    /// What the totals say to a teacher (from the second round on): "This run is
    /// network-bound: ..." with the settings that make computing dominate; empty otherwise.
    QString boundHint() const;

    /// The cursor shared with the other plots: a vertical line at virtual time `t` (NaN
    /// hides it). Does not emit.
    void setCursorTime(double t);
    bool cursorVisible() const;

Q_SIGNALS:
    /// The mouse moved over the timeline to virtual time `t` (NaN: it left).
    void cursorMoved(double t);
    /// boundHint() changed (empty: no hint now).
    void boundHintChanged(const QString& hint);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

public:
    /// Wraps the legend below the plot into as many columns as fit its width.
    void fitLegend();

private:
    QString lastHint_;
    void paint(const NodeInterval& iv);
    void applyPalette();
    void grow(double until);
    void fillMap();
    void updateRows();
    void updateXRange();
    void schedule();
    void flush();

    QCustomPlot* plot_ = nullptr;
    QCPColorMap* map_ = nullptr;
    QCPGraph* barrierLines_ = nullptr;
    QCPGraph* holders_ = nullptr;
    QScrollBar* scroll_ = nullptr;
    QLabel* totalsLabel_ = nullptr;
    QCPItemStraightLine* cursor_ = nullptr;
    static constexpr int kStates = 5;
    std::vector<double> totals_; ///< seconds per (node, state)
    void updateTotals();
    QTimer* refresh_ = nullptr;

    std::vector<QString> names_;
    struct WorkEnd {
        double time;
        int node;
    };
    std::vector<WorkEnd> pendingEnds_; ///< ends of work not yet attributed to a round end
    std::vector<Barrier> barriers_;
    /// State + 1 per (row, bin); 0 = nothing recorded (drawn as idle).
    std::vector<std::uint8_t> cells_;
    static constexpr int kBins = 1200;
    double span_ = 0.0;  ///< virtual seconds the bins cover
    double until_ = 0.0; ///< latest time seen
    double lastBarrier_ = 0.0;
    int first_ = 0;
    int visible_ = 1;
    bool followX_ = true;
    bool mapDirty_ = true;
};

} // namespace fog
