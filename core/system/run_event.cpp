#include "core/system/run_event.h"

#include <array>
#include <utility>

namespace fog {

namespace {

// The one mapping between kinds and the names in run stores, transcripts and logs. The
// names are a file format (the events table): never rename one.
constexpr std::array<std::pair<RunEventKind, const char*>, 16> kNames{{
    {RunEventKind::Offline, "offline"},
    {RunEventKind::Online, "online"},
    {RunEventKind::WorkLost, "work-lost"},
    {RunEventKind::PartialWork, "partial-work"},
    {RunEventKind::Plan, "plan"},
    {RunEventKind::Placement, "placement"},
    {RunEventKind::BudgetReached, "budget-reached"},
    {RunEventKind::TargetReached, "target-reached"},
    {RunEventKind::NoProgress, "no-progress"},
    {RunEventKind::ConditionReached, "condition-reached"},
    {RunEventKind::NotShown, "not-shown"},
    {RunEventKind::TimedEvent, "timed-event"},
    {RunEventKind::Trace, "trace"},
    {RunEventKind::Intervention, "intervention"},
    {RunEventKind::Backend, "training-backend"},
    {RunEventKind::Privacy, "privacy"},
}};

} // namespace

const char* toString(RunEventKind kind) {
    for (const auto& [k, name] : kNames)
        if (k == kind) return name;
    return "other";
}

RunEventKind runEventKindFromString(const std::string& name) {
    for (const auto& [k, n] : kNames)
        if (name == n) return k;
    return RunEventKind::Other;
}

} // namespace fog
