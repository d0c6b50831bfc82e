// Asynchronous SGD with gradient accumulation (Cloudless-Training's ASGD-GA): a trainer runs
// k local steps and pushes their accumulated change once, so the WAN carries one message
// per k steps instead of k.

#include "core/policies/async_policy.h"
#include "core/policies/sync_factories.h"

namespace fog {

std::unique_ptr<SyncPolicy> makeAsyncGa(const PolicySpec& spec, const Engine& e) {
    return std::make_unique<AsyncPolicy>(spec, e, static_cast<int>(spec.get("k", 4)));
}

} // namespace fog
