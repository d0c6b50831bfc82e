#pragma once
// Notable run events, typed: a node going offline or online, work lost, a plan, a stop rule
// firing. Front ends, the CLI and the store switch on the kind; the kind's name (the text
// the run store's `events.kind` column holds) is mapped in one place, run_event.cpp.

#include <cstdint>
#include <string>

namespace fog {

enum class RunEventKind : std::uint8_t {
    Offline,         ///< a node left (availability); node
    Online,          ///< a node came back; node
    WorkLost,        ///< a trainer went offline with a job; node, detail "round N"
    PartialWork,     ///< a trainer returned fewer steps than asked (flexible sync); node
    Plan,            ///< a planner's decision (ton-plan, AdaCoOpt); detail key=value pairs
    Placement,       ///< the placement selection's choice; detail
    BudgetReached,   ///< the scenario's cost budget stopped the run
    TargetReached,   ///< the scenario's target accuracy stopped the run
    NoProgress,      ///< the safety net stopped the run; detail says why
    ConditionReached,///< a front end's run-until / pause-when condition held; detail says which
    NotShown,        ///< live views only: events and intervals too many to show
    TimedEvent,      ///< a scenario's timed event was applied; node (or -1), detail says what
    Trace,           ///< a trace file's row was applied; detail says which trace and value
    Intervention,    ///< a live intervention was applied (or refused: detail "not applied: ...")
    Backend,         ///< the training path of a run whose training.backend is not libtorch; detail says which
    Privacy,         ///< DP-FedAvg's accountant after a round; detail key=value pairs (epsilon=...)
    Other,           ///< a kind this build does not know (read from a newer database)
};

/// The stored name ("offline", "work-lost", ...). Other: "other".
const char* toString(RunEventKind kind);
/// The kind named `name`; Other for a name this build does not know.
RunEventKind runEventKindFromString(const std::string& name);

struct RunEvent {
    double time = 0.0;
    RunEventKind kind = RunEventKind::Other;
    int node = -1;           ///< payload: the node concerned (-1: the run)
    std::string detail;      ///< payload: human-readable detail, stored as is
    std::string otherKind;   ///< the original name when kind is Other (kept, never lost)

    /// The name to store and print: toString(kind), or otherKind for Other.
    std::string kindName() const { return kind == RunEventKind::Other ? otherKind : toString(kind); }
    /// An event read back from its stored name.
    static RunEvent fromStored(double time, const std::string& kind, int node, std::string detail) {
        RunEvent e{time, runEventKindFromString(kind), node, std::move(detail), {}};
        if (e.kind == RunEventKind::Other) e.otherKind = kind;
        return e;
    }
};

} // namespace fog
