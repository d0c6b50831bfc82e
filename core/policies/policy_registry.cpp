// The one list of policy descriptors (collected from the policy files by the build:
// core/policies/policy_list.cmake) and what is derived from it: lookups, the GUI's
// PolicyInfo lists, resolved parameters, factories and the default tree checks.

#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"
#include "core/policies/sync_policy.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace fog {

#define FOG_LIST_SYNC(fn) FOG_SYNC_POLICY(fn);
#define FOG_LIST_SELECTION(fn) FOG_SELECTION_POLICY(fn);
#include "core/policies/policy_list.inc"
#undef FOG_LIST_SYNC
#undef FOG_LIST_SELECTION

namespace {

template <typename D> std::vector<const D*> ordered(std::vector<const D*> v, const char* what) {
    std::stable_sort(v.begin(), v.end(),
                     [](const D* a, const D* b) { return a->order < b->order; });
    std::set<std::string> names;
    for (const D* d : v)
        if (!names.insert(d->info.name).second)
            throw std::logic_error(std::string("two ") + what + " policies are named '" +
                                   d->info.name + "'");
    return v;
}

template <typename D> const D* findIn(const std::vector<const D*>& list, const std::string& name) {
    for (const D* d : list)
        if (d->info.name == name) return d;
    return nullptr;
}

template <typename D> std::string knownNames(const std::vector<const D*>& list) {
    std::string known;
    for (const D* d : list)
        known += (known.empty() ? "" : ", ") + d->info.name;
    return known;
}

template <typename D> std::vector<PolicyInfo> infosOf(const std::vector<const D*>& list) {
    std::vector<PolicyInfo> out;
    for (const D* d : list)
        out.push_back(d->info);
    return out;
}

} // namespace

const std::vector<const SyncPolicyDescriptor*>& syncDescriptors() {
    static const std::vector<const SyncPolicyDescriptor*> list = [] {
        std::vector<const SyncPolicyDescriptor*> v;
#define FOG_LIST_SYNC(fn) v.push_back(&fn());
#define FOG_LIST_SELECTION(fn)
#include "core/policies/policy_list.inc"
#undef FOG_LIST_SYNC
#undef FOG_LIST_SELECTION
        return ordered(std::move(v), "sync");
    }();
    return list;
}

const std::vector<const SelectionPolicyDescriptor*>& selectionDescriptors() {
    static const std::vector<const SelectionPolicyDescriptor*> list = [] {
        std::vector<const SelectionPolicyDescriptor*> v;
#define FOG_LIST_SYNC(fn)
#define FOG_LIST_SELECTION(fn) v.push_back(&fn());
#include "core/policies/policy_list.inc"
#undef FOG_LIST_SYNC
#undef FOG_LIST_SELECTION
        return ordered(std::move(v), "selection");
    }();
    return list;
}

const SyncPolicyDescriptor* findSyncDescriptor(const std::string& name) {
    return findIn(syncDescriptors(), name);
}
const SelectionPolicyDescriptor* findSelectionDescriptor(const std::string& name) {
    return findIn(selectionDescriptors(), name);
}

const std::vector<PolicyInfo>& syncPolicyInfos() {
    static const std::vector<PolicyInfo> infos = infosOf(syncDescriptors());
    return infos;
}
const std::vector<PolicyInfo>& selectionPolicyInfos() {
    static const std::vector<PolicyInfo> infos = infosOf(selectionDescriptors());
    return infos;
}
const PolicyInfo* findSyncPolicy(const std::string& name) {
    const auto* d = findSyncDescriptor(name);
    return d ? &d->info : nullptr;
}
const PolicyInfo* findSelectionPolicy(const std::string& name) {
    const auto* d = findSelectionDescriptor(name);
    return d ? &d->info : nullptr;
}

PolicyParams resolveSyncParams(const PolicySpec& spec) {
    const auto* d = findSyncDescriptor(spec.name);
    if (!d)
        throw EngineError("unknown sync policy '" + spec.name +
                          "' (known: " + knownNames(syncDescriptors()) + ")");
    return PolicyParams(d->info, spec);
}

PolicyParams resolveSelectionParams(const PolicySpec& spec) {
    const auto* d = findSelectionDescriptor(spec.name);
    if (!d)
        throw EngineError("unknown selection policy '" + spec.name +
                          "' (known: " + knownNames(selectionDescriptors()) + ")");
    return PolicyParams(d->info, spec);
}

std::unique_ptr<SyncPolicy> makeSyncPolicy(const PolicySpec& spec, const SystemView& e) {
    const PolicyParams params = resolveSyncParams(spec); // throws for an unknown name
    return findSyncDescriptor(spec.name)->make(params, e);
}

std::unique_ptr<SelectionPolicy> makeSelectionPolicy(const PolicySpec& spec, const SystemView& e) {
    const PolicyParams params = resolveSelectionParams(spec);
    return findSelectionDescriptor(spec.name)->make(params, e);
}

std::string treeShapeRefusal(TreeShape shape, const std::string& name,
                             const PolicyTreeFacts& tree) {
    const int roots = static_cast<int>(tree.roots.size());
    switch (shape) {
    case TreeShape::Regions:
        if (roots < 2)
            return name +
                   " needs at least 2 root aggregators (aggregators with no aggregator above them, "
                   "one per "
                   "region), found " +
                   std::to_string(roots);
        return {};
    case TreeShape::EdgeGroups:
        if (!tree.nested)
            return name + " needs an aggregator below another aggregator (e.g. edge aggregators "
                          "whose parent is "
                          "the cloud aggregator), found none";
        return {};
    case TreeShape::SingleServer:
        if (roots != 1) {
            std::vector<std::string> shown(tree.roots.begin(),
                                           tree.roots.begin() + std::min(roots, 5));
            std::string list;
            for (const auto& r : shown)
                list += (list.empty() ? "" : ", ") + r;
            return name +
                   " needs exactly one root aggregator (an aggregator with no aggregator above "
                   "it), found " +
                   std::to_string(roots) + ": " + list + (roots > 5 ? ", ..." : "") +
                   "; use model-averaging or async-ga for several parameter servers";
        }
        return {};
    }
    return {};
}

std::string refuseTree(const SyncPolicyDescriptor& d, const PolicyTreeFacts& tree) {
    return d.refuseTree ? d.refuseTree(d.info.name, tree)
                        : treeShapeRefusal(d.info.shape, d.info.name, tree);
}

std::string barrierSyncNames() {
    std::vector<std::string> names;
    for (const auto* d : syncDescriptors())
        if (d->hasBarrier) names.push_back(d->info.name);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

} // namespace fog
