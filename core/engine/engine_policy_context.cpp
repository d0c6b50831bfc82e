#include "core/engine/engine_policy_context.h"

#include "core/policies/policy_descriptor.h"

namespace fog {

EnginePolicyContext::EnginePolicyContext(Engine& engine) : e_(engine) {
    // Unknown names stay empty here: building the policy reports them.
    const Scenario& s = e_.scenario();
    if (findSyncDescriptor(s.sync.name)) syncParams_ = resolveSyncParams(s.sync);
    if (findSelectionDescriptor(s.selection.name)) selectionParams_ = resolveSelectionParams(s.selection);
}

std::uint64_t EnginePolicyContext::dispatch(const DispatchRequest& r) {
    return e_.dispatch(r.trainer, r.aggregator, r.model, r.version, r.steps, r.gradient, r.round, r.options);
}

void EnginePolicyContext::report(PolicyEvent kind, int node, const std::string& detail) {
    switch (kind) {
    case PolicyEvent::Plan:
        e_.emitEvent("plan", node, detail);
        return;
    case PolicyEvent::Placement:
        e_.emitEvent("placement", node, detail);
        return;
    case PolicyEvent::PartialWork:
        e_.emitEvent("partial-work", node, detail);
        return;
    }
}

} // namespace fog
