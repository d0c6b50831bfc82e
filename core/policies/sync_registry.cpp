#include "core/policies/policy_info.h"
#include "core/policies/sync_factories.h"

#include <map>

namespace fog {

std::unique_ptr<SyncPolicy> makeSyncPolicy(const PolicySpec& spec, const Engine& e) {
    using Factory = std::unique_ptr<SyncPolicy> (*)(const PolicySpec&, const Engine&);
    static const std::map<std::string, Factory> factories = {
        {"fully-sync", makeFullySync},     {"n-sync", makeNSync},
        {"n-batch-sync", makeNBatchSync},  {"async", makeAsync},
        {"async-ga", makeAsyncGa},         {"fedavg", makeFedAvg},
        {"hierarchical", makeHierarchical}, {"model-averaging", makeModelAveraging},
        {"flexible", makeFlexible},
        {"adacoopt", makeAdaCoOpt},         {"no-straggler", makeNoStraggler},
        {"dynamic-t", makeDynamicT},
    };
    auto it = factories.find(spec.name);
    if (it == factories.end()) {
        std::string known;
        for (const auto& info : syncPolicyInfos()) known += (known.empty() ? "" : ", ") + info.name;
        throw EngineError("unknown sync policy '" + spec.name + "' (known: " + known + ")");
    }
    return it->second(spec, e);
}

} // namespace fog
