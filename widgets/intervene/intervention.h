#pragma once
// What the studio can change in a run, as data: one change (a link's bandwidth or latency,
// a node's price or throughput, nodes or a share of a group going offline or online, a policy
// parameter) turns into the `--event` action text the CLI reads ("link edge-1.up=2") and
// into a TimedEvent checked against the run's scenario by the same reader
// (core/scenario/events_io.h), so a live intervention, a fork's change and a line of a
// scenario's `events:` are one thing. Also the values in effect (the scenario's, with the
// interventions applied so far) that the dialogs show, and the short labels the event log
// and the plots' markers use.
//
// Threads: plain functions, any thread.

#include "core/spec/events.h"
#include "core/spec/scenario.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <string>
#include <vector>

namespace fog {

/// The kinds of change, in the order the menus and the fork dialog list them.
enum class ChangeKind {
    LinkUp,         ///< bandwidth child -> parent (or from -> to), Mbit/s
    LinkDown,       ///< bandwidth parent -> child (or to -> from), Mbit/s
    LinkLatency,    ///< ms
    NodePrice,      ///< currency per hour
    NodeThroughput, ///< samples per second
    Offline,        ///< a node, or a share (0..1] of a group
    Online,
    PolicyParam,    ///< a sync or selection parameter ("sync.n")
};

/// One change to a run. `target`: the node, group or member id (a link: the child of the
/// parent link, or `from` of an explicit link, with `linkTo` its `to`); PolicyParam: the
/// key "sync.n" / "selection.k". `value`: the new value (Offline, Online on a group: the
/// share of its members, 1 = all; on a node it is ignored).
struct Change {
    ChangeKind kind = ChangeKind::LinkUp;
    std::string target;
    std::string linkTo;
    double value = 0.0;
};

/// "Bandwidth up", "Price", ... and the unit ("Mbit/s", "$/h", "" for none).
QString changeKindName(ChangeKind k);
QString changeKindUnit(ChangeKind k);

/// The `--event` action text without the trigger: "link edge-1.up=2",
/// "link cloud.latency=40 to=edge-1", "node spot price=0.9", "offline phones fraction=0.5",
/// "policy sync.n=4".
std::string actionText(const Change& c);
/// Several changes of one link (bandwidth up, down, latency) as one action:
/// "link edge-1.up=2 down=2 latency=40"; other kinds: the first change's text.
std::string actionText(const std::vector<Change>& changes);

/// The change as a TimedEvent resolved and checked against `s` (trigger `at 0`; the engine
/// puts a live intervention at its own instant). False, with the reader's message (what is
/// wrong and what is accepted) in `error`, for an unknown target, a value out of bounds, a
/// parameter the policy does not have.
bool makeEvent(const Scenario& s, const Change& c, TimedEvent& out, QString* error);
/// The same for several changes of one link at once (actionText of the list).
bool makeEvent(const Scenario& s, const std::vector<Change>& changes, TimedEvent& out, QString* error);

/// An action text as `--event` takes it after the trigger ("link edge-1.up=2") as a
/// TimedEvent checked against `s`; false with the reader's message otherwise.
bool makeEventFromAction(const Scenario& s, const std::string& action, TimedEvent& out, QString* error);

/// A short label for an applied event: "edge-1 up 2 Mbit/s", "phones offline 50%",
/// "spot $0.9/h", "sync.n = 4". Markers on the plots and the event log use it.
QString eventLabel(const TimedEvent& e);

/// The value of a change's quantity in effect: the scenario's (a range's lower end for a
/// group with per-member values) with the events in `applied` (in order) on top; nothing
/// when the scenario has no such value (an undeclared link with no default: instantaneous).
std::optional<double> currentValue(const Scenario& s, const std::vector<TimedEvent>& applied, const Change& c);

/// Every link of the scenario a change can name, as (target, linkTo, label): each non-root
/// node's or group's link to its parent, then the explicit links.
struct LinkRef {
    std::string target;
    std::string linkTo;
    QString label; ///< "edge-1 → cloud"
};
std::vector<LinkRef> scenarioLinks(const Scenario& s);
/// The policy parameters a change can set: "sync.n", "selection.k", ... (those the scenario
/// gives, plus the policy's declared ones when the descriptor is known).
QStringList policyParameters(const Scenario& s);

} // namespace fog
