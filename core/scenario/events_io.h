#pragma once
// Timed events (`events:`) and trace files (CSV) of a scenario: reading with located
// problems, cross-reference checks against the topology and the policies, writing, the
// `--event` command-line form. The engine applies them: core/engine/timed_events.h.
// The data is core/spec/events.h; docs/scenario.md "Events and traces" is the user's side.

#include "core/scenario/scenario_io.h"

#include <string>
#include <vector>

namespace YAML {
class Node;
class Emitter;
} // namespace YAML

namespace fog {

class YamlContext;

/// Reads the `events:` list into s.events.list (sorted), checking every value and reference.
/// The topology, sync and selection must have been read already.
void readEventsSection(YamlContext& ctx, const YAML::Node& n, Scenario& s);
/// Writes `events:` (nothing when there are none), in the stored order.
void emitEventsSection(YAML::Emitter& out, const Scenario& s);

/// Loads every trace file the scenario names (availability.file, price_trace, link.trace)
/// into s.events.traces, resolved against `baseDir` (the scenario's folder; "" = working
/// directory), and checks the columns against the members and the values against the kind.
/// Problems go to `ctx`: in the CSV file (file:line:column) or at the reference.
void loadScenarioTraces(YamlContext& ctx, Scenario& s, const std::string& baseDir);

/// Every trace reference of the scenario (availability.file, price_trace, link.trace) made
/// absolute against `baseDir` (else the working directory), `{member}` patterns kept: for
/// storing a run's scenario or writing it elsewhere, so that it finds the same files from
/// anywhere. Loaded series move with their references.
void makeTracePathsAbsolute(Scenario& s, const std::string& baseDir);

/// Reads one trace CSV (`label` names it in messages). Throws ScenarioError with
/// file:line:column for an empty file, a bad header, a non-number, a negative value or a
/// time that does not increase.
TraceTable parseTraceText(const std::string& text, const std::string& label);
TraceTable readTraceFile(const std::string& path);

/// Stable order of events: `at` events by time, then `when` events in their given order.
void sortEvents(std::vector<TimedEvent>& events);

/// Parses `--event` text ("at 600: link edge-1.up=2", "when round>=5: offline phones
/// fraction=0.5") into an event checked against `s`, appended to its list (sorted).
/// Throws ScenarioError labelled "--event" saying what is wrong and what is accepted.
void addEventArgument(Scenario& s, const std::string& text);

/// Checks an event built in code (a live intervention: RunControl::intervene) exactly as a
/// file's entry is checked, against `s`, and resolves its references (entry, member, link
/// indices): "" and `e` completed, or what is wrong with it.
std::string checkEvent(const Scenario& s, TimedEvent& e);

} // namespace fog
