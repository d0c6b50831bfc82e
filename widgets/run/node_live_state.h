#pragma once
// The live state of the node or group selected on the canvas during a run (as OMNeT++'s
// Qtenv inspects a module's state, not only its parameters): what it does now, the virtual
// time it spent in each state so far (computing, waiting for the network, idle, offline),
// the messages it has in flight, the round and time the run has reached, and after the run
// the same figures as they ended. It reads the run controller's stream (run info, activity
// frames, intervals, metrics) and the scene's selection; the Inspector above it keeps the
// node's configuration.

#include "core/system/metrics.h"
#include "widgets/topology/run_activity.h"

#include <QString>
#include <QWidget>

#include <vector>

class QLabel;
class QTimer;

namespace fog {

class TopologyScene;

class NodeLiveState : public QWidget {
    Q_OBJECT
  public:
    explicit NodeLiveState(QWidget* parent = nullptr);
    /// Follows the selection of `scene` (the canvas's).
    void attach(TopologyScene* scene);

    void reset(const RunInfo& info);
    void showFrame(const ActivityFrame& frame);
    void appendIntervals(const std::vector<NodeInterval>& intervals);
    void appendMetrics(const std::vector<AggregationRecord>& records);
    /// The run ended: the figures stay, said to be final.
    void finish();
    /// No run: hidden until the next one starts.
    void clear();

    /// The text shown now (plain), for tests and the tool tip.
    QString text() const;
    /// The run nodes the selection stands for (a group: its members).
    const std::vector<int>& selectedNodes() const { return selected_; }
    /// Virtual seconds node `node` spent in `state` in the intervals received so far.
    double seconds(int node, NodeState state) const;

  private:
    void selectionChanged();
    void refresh();
    void scheduleRefresh();

    TopologyScene* scene_ = nullptr;
    QLabel* label_ = nullptr;
    QTimer* timer_ = nullptr;
    RunInfo info_;
    std::vector<double> totals_;     ///< node * 5 + state
    std::vector<NodeState> states_;  ///< the latest frame's
    std::vector<MessageInFlight> messages_;
    std::vector<int> selected_;
    QString selectedId_;
    double clock_ = 0.0;
    int round_ = 0;
    double accuracy_ = kNaN;
    bool ended_ = false;
    bool running_ = false;
};

} // namespace fog
