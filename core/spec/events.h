#pragma once
// Timed events and trace files of a scenario: plain data, read and checked by
// core/scenario/events_io.h. Every reference is resolved when the scenario is loaded (an
// event names its topology entry by index, a trace reference has its series loaded), so the
// engine only looks things up. Events are kept sorted: `at` events by time (stable), then the
// `when` events in file order.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fog {

/// When an event fires: at a virtual time, or the first time a run metric reaches a value.
struct EventTrigger {
    enum class Kind { At, Round, Accuracy, Cost };
    Kind kind = Kind::At;
    double value = 0.0; ///< At: virtual seconds; Round: rounds; Accuracy: 0..1; Cost: currency
};

/// One change during a run.
struct TimedEvent {
    enum class Action { Link, Node, Offline, Online, Add, Remove, Policy };
    EventTrigger trigger;
    Action action = Action::Link;

    /// Link, Node, Offline, Online: the node, group member or group id as written (Link:
    /// the node whose uplink changes, or the `from` of an explicit link). Add, Remove: the group.
    std::string target;
    std::string linkTo;   ///< Link: `to` of an explicit topology.links entry; empty: the uplink
    int entry = -1;       ///< index in topology.nodes of the node or group `target` names
    /// Index of the member within its group's expansion order when `target` names one
    /// member of a group; -1 when it names the entry itself (a node, or a whole group).
    long long member = -1;
    int link = -1;        ///< Link with `linkTo`: index in topology.links

    // Link: only the given values change.
    std::optional<double> bandwidthUpMbps;
    std::optional<double> bandwidthDownMbps;
    std::optional<double> latencyMs;
    // Node: only the given values change.
    std::optional<double> pricePerHour;
    std::optional<double> throughput;
    /// Offline, Online on a group: the share of its members affected, chosen with the seed.
    std::optional<double> fraction;
    int count = 0; ///< Add, Remove: devices joining / leaving the group

    /// Policy: `sync` or `selection`, the parameter and its new value.
    std::string policyOf;
    std::string policyKey;   ///< as written: "n" or "sync.n"
    std::string policyParam; ///< the parameter itself: "n"
    double policyValue = 0.0;

    /// Ordering key of a live intervention (`after_event: k`): the event applies right
    /// after the engine has handled its k-th queue event (1-based; 0: before the first), at
    /// trigger.value, so a re-run applies it at the same place in the event order. -1: an
    /// ordinary event (an `at` event fires as a queue event of its own).
    long long afterEvent = -1;

    int line = 0;   ///< where it was written (0: built in code or from --event)
    int column = 0;
};

/// One column of a trace: a step function of virtual time (a value holds from its time
/// until the next one; before the first time the scenario's own value applies).
struct TraceColumn {
    std::string name; ///< "value", or a member id
    std::vector<double> timeS;
    std::vector<double> value;
    std::vector<int> line; ///< source line of each value (for messages)
    std::vector<int> column; ///< source column (character) of each value (for messages)
};

/// A loaded trace file (or, for a `{member}` pattern, the files of every member).
struct TraceTable {
    std::vector<std::string> files; ///< the files read, resolved (for messages)
    std::vector<TraceColumn> columns;
    /// The column for `name`, or the single `value` column, or nullptr.
    const TraceColumn* column(const std::string& name) const {
        const TraceColumn* value = nullptr;
        for (const auto& c : columns) {
            if (c.name == name) return &c;
            if (c.name == "value") value = &c;
        }
        return value;
    }
};

struct EventsSpec {
    std::vector<TimedEvent> list;
    /// Every trace reference of the scenario, as written (availability.file, price_trace,
    /// link.trace), with its loaded series. Not saved: the references are.
    std::map<std::string, std::shared_ptr<const TraceTable>> traces;
};

const char* toString(EventTrigger::Kind k);
const char* toString(TimedEvent::Action a);

} // namespace fog
