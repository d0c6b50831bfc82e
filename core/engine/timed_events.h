#pragma once
// Timed events, trace files and live interventions as the engine applies them (issue 13;
// docs/emulator.md "Timed events and traces"). The scenario's events and traces were read
// and checked by core/scenario/events_io.h; this part turns them into changes of the
// running system at exact virtual instants:
//   - an `at` event is a queue event at its time (queued when the run starts, so at equal
//     times it comes before what was queued later; events at one time in file order);
//   - a `when` event fires at the first aggregation where its condition holds, as a queue
//     event at that instant (after the aggregation's own event);
//   - a trace is a step function of time: only its next change is queued (one queue event
//     per trace, whatever its number of members);
//   - an intervention (RunControl::intervene) applies between two queue events at the
//     current instant; it is recorded with `after_event: k` (queue events handled before it),
//     and a recorded one applies on a re-run after exactly k events: the same place.
// Nodes held offline by events and traces: NodeRuntime::forced bits (Force below); the
// node's own availability process runs on underneath and the node is online only when that
// process says so and no bit holds it.
// Devices joining a group (`add`, docs/emulator.md "Devices that join"): the topology holds,
// from the start, every member the scenario's add events will bring (Topology::joining,
// appended after every other node), each one `Absent` until its event: not started (no
// availability process, no queue event, no interval), not billed, not a candidate of any
// selection (not in Engine::trainersOf until it joins), with a data sample of its own
// (addJoiningParts) so that the other members' shards are those of the run without it.
// A run's results before an add fires are therefore those of the same scenario without
// the event, bit for bit (what lets a fork add devices by replay). A live intervention
// cannot add devices (the engine's tables are sized when the run starts): it is refused
// with a message naming the fork that does it.
//
// What the events change, they change through narrow doors: each resource applies its own
// change (core/engine/resources.h: links, nodes, prices), and the rest of the run is the
// Host below (clock, queue, event stream, the policies' parameters). The events never see
// the engine's members.
// Trace files: a scenario read for editing (the studio's) names its traces without their
// series; loadTraces reads and checks them before the engine builds anything, so a broken
// trace file is reported before any other error of the run (data, model, policies).
//
// Threads: engine thread only (interventions reach it through the RunControl).

#include "core/data/dataset.h"
#include "core/engine/resources.h"
#include "core/spec/events.h"
#include "core/spec/scenario.h"
#include "core/system/run_event.h"
#include "core/system/topology.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace fog {

struct AggregationRecord;

class TimedEvents {
public:
    /// Why a node is held offline (NodeRuntime::forced).
    enum Force : std::uint8_t {
        ByEvent = 1, ///< an `offline` event (until an `online` event)
        ByBid = 2,   ///< its price trace is above its bid (reclaimed)
        ByTrace = 4, ///< its availability trace file says 0
        Removed = 8, ///< a `remove` event (for good)
        Absent = 16, ///< a member an `add` event brings, before it joins
    };

    /// Per entry of scenario.topology.nodes: the members its `add` events bring (the
    /// Topology's `joining`); empty when the scenario has no add event.
    static std::vector<int> joiningPerEntry(const Scenario& scenario);
    /// Appends to `data` (parts of the first `present` trainers, in topology order) one part
    /// per trainer that joins later: a sample of the training set drawn with the member's own
    /// stream, without replacement, as large as its group's parts are on average (weighted
    /// by its data_share). The other parts are untouched.
    static void addJoiningParts(DataBundle& data, const Topology& topo, std::size_t present,
                                std::uint64_t seed);

    /// What the run offers the events besides the resources (the engine implements it).
    class Host {
    public:
        virtual ~Host() = default;
        virtual double now() const = 0;
        /// Calls `fn` at virtual time `t` (a queue event).
        virtual void schedule(double t, std::function<void()> fn) = 0;
        virtual void emit(RunEventKind kind, int node, const std::string& detail) = 0;
        /// A stop rule fired: members that join are not announced.
        virtual bool stopped() const = 0;
        /// Member n joined online after the policies started: the sync policy hears of it as
        /// of a device coming back.
        virtual void announceOnline(int n) = 0;
        /// A timed `policy` event: `policyOf` is "sync" or "selection".
        virtual void setPolicyParam(const std::string& policyOf, const std::string& key, double value) = 0;
        /// Live interventions waiting in the run control.
        virtual std::vector<TimedEvent> takeInterventions() = 0;
        /// An intervention was applied now (the safety net and the observer hear of it).
        virtual void intervened(const TimedEvent& e) = 0;
    };
    /// The resources the events change.
    struct Resources {
        LinkResources& links;
        NodeResources& nodes;
        PriceResources& prices;
    };

    /// Reads the trace files `s` names but does not hold (a scenario read for editing):
    /// EngineError "trace files: FILE:LINE: PATH: why" for the first problem. The engine calls
    /// it before it builds anything.
    static void loadTraces(Scenario& s);

    /// `scenario` with its traces loaded (loadTraces); `topo` the run's topology. Every
    /// member an `add` event brings is held Absent from here.
    TimedEvents(const Scenario& scenario, const Topology& topo, Host& host, Resources resources);
    ~TimedEvents();

    /// Nothing to apply: no event, no trace (the engine then never calls in).
    bool empty() const;
    /// Run start (after the nodes started, t = 0): queues the `at` events and each trace's
    /// first change.
    void start();
    /// After an aggregation was reported: the `when` events that now hold are queued at this
    /// instant (each fires once).
    void afterAggregation(const AggregationRecord& r);
    /// Between queue events, `handled` of them handled so far: applies the recorded
    /// interventions due here (after_event == handled) and the live ones waiting in the run
    /// control. True when something was applied.
    bool between(std::uint64_t handled);
    /// The latest virtual time at which a scheduled event or trace changes something (the
    /// safety net does not declare a stall before it).
    double lastChange() const { return lastChange_; }

private:
    struct Cursor;
    void apply(const TimedEvent& e, bool intervention);
    void applyTrace(Cursor& c);
    void scheduleTrace(std::size_t cursor);
    /// Members of the entry the event names (all of them), or the one member it names.
    std::vector<int> targets(const TimedEvent& e) const;
    std::vector<int> membersOf(int entry) const;
    /// The members of `entry` that have joined (every member but those still Absent).
    std::vector<int> presentOf(int entry) const;
    /// `k` of `candidates` (index order), chosen with the run's seed: the event's own stream.
    std::vector<int> choose(std::vector<int> candidates, std::size_t k);
    std::string describe(const TimedEvent& e) const;

    const Scenario& scenario_;
    const Topology& topo_;
    Host& host_;
    Resources res_;
    std::vector<TimedEvent> when_;                 ///< `when` events not fired yet
    std::vector<TimedEvent> recorded_;             ///< after_event events, by after_event
    std::size_t nextRecorded_ = 0;
    std::vector<std::unique_ptr<Cursor>> cursors_; ///< one per trace use
    std::map<int, std::deque<int>> waiting_;       ///< per entry: members not joined yet, in order
    std::uint64_t choices_ = 0; ///< seeded choices made so far (their streams)
    bool policiesStarted_ = false; ///< after start(): joining members are announced to the policy
    double lastChange_ = 0.0;
};

} // namespace fog
