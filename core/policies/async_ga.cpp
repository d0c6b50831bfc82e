// Asynchronous SGD with gradient accumulation (Cloudless-Training's ASGD-GA): a trainer runs
// k local steps and pushes their accumulated change once, so the WAN carries one message
// per k steps instead of k. With several root aggregators, each is a regional parameter
// server running ASGD-GA with the trainers below it, and the servers average their models
// every `period` of their updates (core/policies/async_policy.h).

#include "core/policies/async_policy.h"
#include "core/policies/policy_descriptor.h"

namespace fog {

namespace {

const ParamTable<AsyncSettings>& asyncGaParams() {
    static const auto t =
        ParamTable<AsyncSettings>()
            .integer("k", &AsyncSettings::accumulate, 4, 1, "local steps accumulated per push")
            .real("staleness_exponent", &AsyncSettings::stalenessExponent, 0.5, 0.0, 10.0,
                  "b in (1 + tau)^(-b); 0 = constant (also weighs a region's model in asynchronous averaging)")
            .real("mixing", &AsyncSettings::mixing, 1.0, 0.0, 1.0, "a: scale of every applied update")
            .integer("period", &AsyncSettings::period, 16, 1,
                     "several root aggregators: updates of a regional server between two averagings with the "
                     "other regions (P)")
            .flag("async_averaging", &AsyncSettings::asyncAveraging, false,
                  "several root aggregators: 1 = a server mixes in the newest models received and goes on; 0 = "
                  "it waits for every region's model");
    return t;
}

/// One root: the classic parameter server. Several: one regional server per root (each
/// serves every trainer below it; a root with none takes no part), averaged every period.
std::string refuseAsyncGaTree(const std::string& name, const PolicyTreeFacts& tree) {
    if (tree.roots.empty())
        return name + " needs a root aggregator (an aggregator with no aggregator above it) as its parameter "
                      "server, found none";
    return {};
}

} // namespace

FOG_SYNC_POLICY(asyncGaPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "async-ga";
        d.info.summary = "Asynchronous SGD with gradient accumulation: a trainer runs k local steps, then "
                         "pushes the accumulated change once (one WAN message per k steps); the server "
                         "adds it on arrival, scaled by a (1 + tau)^(-b). With several root aggregators "
                         "each is a regional server doing this with the trainers below it, and every "
                         "`period` of its updates it averages its model with the other regions' "
                         "(synchronously, or asynchronously with async_averaging 1).";
        d.info.source = "Tan et al., Cloudless-Training (ASGD-GA), Chinese High Technology Letters 2024";
        d.info.params = asyncGaParams().infos();
        d.order = 50;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<AsyncPolicy>(asyncGaParams().read(p), p.policy(), e);
        };
        d.stepsPerDispatch = [](const PolicyParams& p) { return asyncGaParams().read(p).accumulate; };
        d.asyncAveraging = [](const PolicyParams& p) { return asyncGaParams().read(p).asyncAveraging; };
        d.refuseTree = refuseAsyncGaTree;
        d.serverPerRoot = true;
        return d;
    }();
    return d;
}

} // namespace fog
