#include "core/policies/policy_info.h"

namespace fog {

namespace {

PolicyParamInfo intParam(std::string key, double def, double min, std::string help) {
    return {std::move(key), def, min, 1e9, true, std::move(help)};
}
PolicyParamInfo realParam(std::string key, double def, double min, double max, std::string help) {
    return {std::move(key), def, min, max, false, std::move(help)};
}

const PolicyInfo* findIn(const std::vector<PolicyInfo>& infos, const std::string& name) {
    for (const auto& i : infos)
        if (i.name == name) return &i;
    return nullptr;
}

} // namespace

const std::vector<PolicyInfo>& syncPolicyInfos() {
    static const std::vector<PolicyInfo> infos = {
        {"fully-sync",
         "Parameter-server SGD. Each round every selected trainer still online computes one "
         "mini-batch gradient on the current model; the server waits for all of them, averages "
         "the gradients and takes one optimiser step. Round time = slowest trainer (E = H_n / "
         "lambda for exponential step times).",
         "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022",
         {}},
        {"n-sync",
         "Parameter-server SGD that ends a round when the first n selected trainers have "
         "delivered a gradient; later gradients of that round are discarded. E[round] = (H_y - "
         "H_{y-n}) / lambda with y trainers.",
         "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022",
         {intParam("n", 1, 1, "gradients aggregated per round (trainers)")}},
        {"n-batch-sync",
         "Parameter-server SGD that ends a round after the first m mini-batch gradients, from "
         "whichever trainers deliver them; a fast trainer may give several. E[round] = m / (y "
         "lambda) with y trainers.",
         "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022",
         {intParam("m", 1, 1, "mini-batch gradients aggregated per round")}},
        {"async",
         "Asynchronous SGD: every trainer pulls the model, computes one gradient and pushes it; "
         "the server applies each on arrival, scaled by s(tau) = (1 + tau)^(-b) for staleness "
         "tau (server updates since the pull).",
         "Xie et al., Asynchronous federated optimization (FedAsync), 2019",
         {realParam("staleness_exponent", 0.0, 0.0, 10.0, "b in (1 + tau)^(-b); 0 = constant"),
          realParam("mixing", 1.0, 0.0, 1.0, "a: scale of every applied update")}},
        {"async-ga",
         "Asynchronous SGD with gradient accumulation: a trainer runs k local steps, then pushes "
         "the accumulated change once (one WAN message per k steps); the server adds it on "
         "arrival, scaled by a (1 + tau)^(-b).",
         "Tan et al., Cloudless-Training (ASGD-GA), Chinese High Technology Letters 2024",
         {intParam("k", 4, 1, "local steps accumulated per push"),
          realParam("staleness_exponent", 0.5, 0.0, 10.0, "b in (1 + tau)^(-b); 0 = constant"),
          realParam("mixing", 1.0, 0.0, 1.0, "a: scale of every applied update")}},
        {"fedavg",
         "Federated averaging / local SGD: each selected trainer runs training.local_steps steps "
         "(or training.local_epochs passes over its data) from the global model; the server "
         "waits for every selected trainer still online (or the deadline) and sets w = sum_k "
         "(n_k / n_S) w_k, weighting by sample counts.",
         "McMahan et al., Communication-efficient learning (FedAvg), AISTATS 2017",
         {realParam("deadline_s", 0.0, 0.0, 1e12,
                    "seconds after the round starts at which late trainers are dropped; 0 = none")}},
        {"hierarchical",
         "Three-tier FL: each edge aggregator runs FedAvg rounds with its devices (tau1 local "
         "steps per edge round); every tau2 edge rounds the edges send their models to the cloud, "
         "which averages them by sample count and sends the result back down.",
         "Liu et al., Client-edge-cloud hierarchical FL (HierFAVG), ICC 2020",
         {intParam("tau1", 5, 1, "local steps per edge round"),
          intParam("tau2", 2, 1, "edge rounds per cloud round")}},
        {"model-averaging",
         "Several regional parameter servers each run FedAvg rounds with their own trainers; "
         "every P regional rounds the servers exchange models over the WAN and each replaces its "
         "model by the data-weighted average of all regions.",
         "Tan et al., Cloudless-Training (MA), Chinese High Technology Letters 2024",
         {intParam("period", 4, 1, "regional rounds between averaging (P)")}},
    };
    return infos;
}

const std::vector<PolicyInfo>& selectionPolicyInfos() {
    static const std::vector<PolicyInfo> infos = {
        {"all", "Every trainer that is online takes part in every round.", "", {}},
        {"random-k",
         "Each round, k trainers drawn uniformly without replacement among those online.",
         "McMahan et al., FedAvg, AISTATS 2017",
         {intParam("k", 10, 1, "trainers per round")}},
    };
    return infos;
}

const PolicyInfo* findSyncPolicy(const std::string& name) {
    return findIn(syncPolicyInfos(), name);
}
const PolicyInfo* findSelectionPolicy(const std::string& name) {
    return findIn(selectionPolicyInfos(), name);
}

} // namespace fog
