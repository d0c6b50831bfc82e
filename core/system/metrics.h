#pragma once
// What a run produces, and the one interface through which it flows out: the CLI, the GUI
// and the run store all observe the same stream.

#include "core/spec/events.h"
#include "core/system/run_event.h"
#include "core/system/run_snapshot.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fog {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// One aggregation: a server update (level 0) or a regional / edge aggregation (level 1).
struct AggregationRecord {
    int round = 0;          ///< global round (level 0 aggregations so far, this one included)
    int level = 0;
    std::string aggregator; ///< node id that aggregated
    double time = 0.0;      ///< virtual seconds
    double wallSeconds = 0.0;
    double trainLoss = kNaN;  ///< sample-weighted mean over the participants' local work
    int participants = 0;
    double learningRate = 0.0;
    double cost = 0.0;        ///< cumulative: machine time billed + traffic
    double energyJ = 0.0;     ///< cumulative
    double bytes = 0.0;       ///< cumulative bytes moved over links
    double meanStaleness = 0.0;
    int maxStaleness = 0;
    double testLoss = kNaN;     ///< set on evaluation rounds
    double testAccuracy = kNaN;
};

enum class NodeState { Idle, Receiving, Computing, Sending, Offline };
const char* toString(NodeState s);

struct NodeInterval {
    int node = 0;
    NodeState state = NodeState::Idle;
    double from = 0.0;
    double to = 0.0;
};

struct NodeInfo {
    std::string id;
    std::string tier;
    std::string role;
    std::string parent;
    double throughput = 0.0;
    double pricePerHour = 0.0;
};

/// One capacity transfers share: a direction of a link, or a node's network interface.
/// `index` is its position in RunInfo::links and what LinkUsage::link refers to.
struct LinkInfo {
    int index = 0;
    std::string id;   ///< e.g. "phone-3 -> edge-1", "edge-1 <- cloud", "nic out: ps"
    std::string kind; ///< "up" (child to parent), "down", "link" (explicit link), "nic-in", "nic-out"
    int from = -1;    ///< node index the bytes leave (nic: the node itself)
    int to = -1;      ///< node index the bytes reach (nic: the node itself)
    double capacityBytesPerS = 0.0;
    int members = 1;  ///< nodes whose transfers it carries as their own link (a shared cell: all)
};

/// A link's use over a span of virtual time: constant rate while the set of flows on it
/// does not change. Emitted when the span closes (a flow starts or ends on the link).
struct LinkUsage {
    int link = 0; ///< LinkInfo::index
    double from = 0.0;
    double to = 0.0;
    double bytesPerS = 0.0; ///< sum of the rates of the flows on it
    int flows = 0;
};

struct RunInfo {
    std::string scenarioName;
    std::uint64_t seed = 0;
    int threads = 1;
    std::string model;      ///< description, e.g. "mlp (159010 parameters)"
    std::size_t trainSamples = 0;
    std::size_t testSamples = 0;
    std::vector<NodeInfo> nodes;
    /// Capacities shared by transfers (empty when the network has no contention: every
    /// transfer then gets its links' full bandwidth and no usage is reported).
    std::vector<LinkInfo> links;
};

enum class RunStatus { Running, Finished, Cancelled, Failed };
const char* toString(RunStatus s);

struct RunSummary {
    RunStatus status = RunStatus::Finished;
    std::string stopReason; ///< which rule ended the run, or the error
    int rounds = 0;
    int aggregations = 0;
    double virtualTime = 0.0;
    double wallSeconds = 0.0;
    double cost = 0.0;
    double energyJ = 0.0;
    double bytes = 0.0;
    double finalTestLoss = kNaN;
    double finalTestAccuracy = kNaN;
    double bestTestAccuracy = kNaN;
    double finalTrainLoss = kNaN;
    std::int64_t samplesComputed = 0;
    int lostJobs = 0;
};

/// A dispatch as planned when it starts (a job's whole timeline is known at once), for live
/// views of node states. It ends early only if onJobEnded says so.
struct JobPlan {
    std::uint64_t id = 0;
    int trainer = -1;
    int aggregator = -1;
    double start = 0.0, received = 0.0, computed = 0.0, arrive = 0.0;
};

/// Bytes leaving one node for another, known when they leave (live views animate them).
/// With contention the arrival may move as other flows start and end: `arrive` is then the
/// projection at departure, and onMessageEnd reports the real end (arrived or cut off).
struct LinkMessage {
    std::uint64_t id = 0; ///< unique in a run (0: none given; no onMessageEnd follows)
    int from = -1;
    int to = -1;
    double depart = 0.0;
    double arrive = 0.0;
    double bytes = 0.0;
    bool model = true; ///< true: a model going down; false: an update going up (labels)
};

/// Receives a run's stream. Called on the engine's thread, in virtual-time order; a
/// front-end that draws on another thread queues what it gets.
class RunObserver {
public:
    virtual ~RunObserver() = default;
    virtual void onStart(const RunInfo&) {}
    virtual void onAggregation(const AggregationRecord&) {}
    virtual void onIntervals(const std::vector<NodeInterval>&) {}
    virtual void onEvent(const RunEvent&) {}
    virtual void onFinish(const RunSummary&) {}
    // Live-view details (the studio's canvas); stores and printers ignore them.
    virtual void onDispatch(const JobPlan&) {}
    /// A job cancelled or lost before its planned arrival.
    virtual void onJobEnded(std::uint64_t /*id*/, double /*time*/) {}
    virtual void onMessage(const LinkMessage&) {}
    /// The message `id` arrived (`arrived`) or was cut off at `time`.
    virtual void onMessageEnd(std::uint64_t /*id*/, double /*time*/, bool /*arrived*/) {}
    /// Closed spans of link use, batched (with contention only).
    virtual void onLinkUsage(const std::vector<LinkUsage>&) {}
    /// A live intervention (RunControl::intervene) was applied: `applied` is the event as
    /// applied, trigger At at the instant and afterEvent set (the queue events handled
    /// before it), so that appending it to the scenario's `events:` reproduces the run.
    virtual void onIntervention(const TimedEvent& /*applied*/) {}
    /// A snapshot of the run's state (core/system/run_snapshot.h), on the engine's thread.
    /// An observer that throws ends the run as failed with its message (a fork's replay check).
    virtual void onSnapshot(const RunSnapshot&) {}
};

/// Forwards to several observers (e.g. the terminal and the store).
class ObserverList : public RunObserver {
public:
    void add(RunObserver* o) { observers_.push_back(o); }
    void onStart(const RunInfo& i) override {
        for (auto* o : observers_) o->onStart(i);
    }
    void onAggregation(const AggregationRecord& r) override {
        for (auto* o : observers_) o->onAggregation(r);
    }
    void onIntervals(const std::vector<NodeInterval>& v) override {
        for (auto* o : observers_) o->onIntervals(v);
    }
    void onEvent(const RunEvent& e) override {
        for (auto* o : observers_) o->onEvent(e);
    }
    void onFinish(const RunSummary& s) override {
        for (auto* o : observers_) o->onFinish(s);
    }
    void onDispatch(const JobPlan& p) override {
        for (auto* o : observers_) o->onDispatch(p);
    }
    void onJobEnded(std::uint64_t id, double t) override {
        for (auto* o : observers_) o->onJobEnded(id, t);
    }
    void onMessage(const LinkMessage& m) override {
        for (auto* o : observers_) o->onMessage(m);
    }
    void onMessageEnd(std::uint64_t id, double t, bool arrived) override {
        for (auto* o : observers_) o->onMessageEnd(id, t, arrived);
    }
    void onLinkUsage(const std::vector<LinkUsage>& u) override {
        for (auto* o : observers_) o->onLinkUsage(u);
    }
    void onIntervention(const TimedEvent& e) override {
        for (auto* o : observers_) o->onIntervention(e);
    }
    void onSnapshot(const RunSnapshot& s) override {
        for (auto* o : observers_) o->onSnapshot(s);
    }

private:
    std::vector<RunObserver*> observers_;
};

} // namespace fog
