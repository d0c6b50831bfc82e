#pragma once
// Constructors of the sync policies, one per file; the registry maps names to them.

#include "core/policies/sync_policy.h"

namespace fog {

std::unique_ptr<SyncPolicy> makeFullySync(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeNSync(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeNBatchSync(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeAsync(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeAsyncGa(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeFedAvg(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeHierarchical(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeModelAveraging(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeFlexible(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeAdaCoOpt(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeNoStraggler(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SyncPolicy> makeDynamicT(const PolicySpec& spec, const Engine& e);

} // namespace fog
