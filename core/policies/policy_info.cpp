#include "core/policies/policy_info.h"

namespace fog {

namespace {

PolicyParamInfo intParam(std::string key, double def, double min, std::string help) {
    return {std::move(key), def, min, 1e9, true, std::move(help)};
}
PolicyParamInfo realParam(std::string key, double def, double min, double max, std::string help) {
    return {std::move(key), def, min, max, false, std::move(help)};
}

/// The bound's constants, shared by AdaCoOpt and Dynamic-T.
std::vector<PolicyParamInfo> boundParams(std::vector<PolicyParamInfo> params) {
    for (auto p : {realParam("eta", 0.0, 0.0, 1e6, "step size in the bound; 0 = training.learning_rate"),
                   realParam("c", 0.1, 1e-12, 1e6, "strong convexity (q = 1 - eta c)"),
                   realParam("beta", 1.0, 1e-12, 1e6, "smoothness"),
                   realParam("rho", 1.0, 0.0, 1e6, "Lipschitz constant of the loss"),
                   realParam("delta", 1.0, 0.0, 1e6, "gradient divergence between devices"),
                   realParam("f0", 1.0, 0.0, 1e12, "F(w0) - F*"),
                   intParam("horizon_rounds", 0, 0, "K rounds the bound looks ahead; 0 = stop.rounds or 100"),
                   realParam("round_time_s", 0.0, 0.0, 1e12,
                             "time-dominant: each trainer's tau steps and traffic fit in it; 0 = none"),
                   intParam("max_tau", 10, 1, "largest aggregation interval considered (local steps)"),
                   intParam("max_batch", 256, 1, "largest batch of one trainer"),
                   intParam("replan_every", 1, 1, "rounds between re-plans from measured speeds")})
        params.push_back(p);
    return params;
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
          intParam("tau2", 2, 1, "edge rounds per cloud round")},
         TreeShape::EdgeGroups},
        {"model-averaging",
         "Several regional parameter servers each run FedAvg rounds with their own trainers; "
         "every P regional rounds the servers exchange models over the WAN and each replaces its "
         "model by the data-weighted average of all regions.",
         "Tan et al., Cloudless-Training (MA), Chinese High Technology Letters 2024",
         {intParam("period", 4, 1, "regional rounds between averaging (P)")},
         TreeShape::Regions},
        {"flexible",
         "FedAvg with flexible participation: each round's trainers run local SGD until "
         "training.local_steps are done or compute_deadline_s has passed, whichever is first, "
         "and return what they finished (s_k of E steps); trainers that arrive later join the "
         "next round, those that leave lose their work. weighting 1 (unbiased): w += sum_k "
         "(D_k / D_S) (E / s_k) Delta_k over the trainers that delivered, D_k their data sizes; "
         "weighting 0 (plain): w += sum_k (m_k / m_S) Delta_k with m_k the samples processed, "
         "which favours fast trainers.",
         "Ruan et al., Towards flexible device participation in FL, AISTATS 2021 "
         "[reconstructed]",
         {realParam("compute_deadline_s", 0.0, 0.0, 1e12,
                    "seconds after the round starts at which local computing stops; 0 = none"),
          {"weighting", 1, 0, 1, true, "1 = unbiased (D_k / D_S) E / s_k, 0 = plain samples processed"}}},
        {"adacoopt",
         "AdaCoOpt: FedAvg-style rounds where trainer i runs tau local steps with its own batch "
         "b_i; tau and all b_i minimise the convergence bound q^(K tau) F0 + [(1 - q^(K tau)) / "
         "(1 - q^tau)] [beta eta^2 sum_i D_i^2 / (2 (1 - q) D^2 b_i) + rho h(tau)], h(tau) = "
         "(delta / beta)((eta beta + 1)^tau - 1) - eta delta tau, under a round time (b_i <= v_i "
         "(T - comm_i) / tau) and/or a batch budget sum b_i <= B (greedy +1 to the largest D_i^2 / "
         "(b_i (b_i + 1)), exact); re-planned from measured speeds; w += sum (D_i / D_S) Delta_i.",
         "Joint batch size and aggregation interval (AdaCoOpt), IEEE IWQoS 2023 [reconstructed "
         "from the authors' code]",
         boundParams({intParam("batch_budget", 0, 0, "cost-dominant: sum of batch sizes per step; 0 = none")})},
        {"no-straggler",
         "AdaCoOpt's No-straggler baseline: b_i = training.batch_size x v_i / mean(v) from the "
         "measured speeds v_i, so every trainer finishes its tau steps at the same time; tau "
         "fixed; w += sum (D_i / D_S) Delta_i.",
         "Baseline in AdaCoOpt, IEEE IWQoS 2023",
         {intParam("tau", 0, 0, "local steps per round; 0 = training.local_steps"),
          intParam("max_batch", 256, 1, "largest batch of one trainer"),
          intParam("replan_every", 1, 1, "rounds between re-plans from measured speeds")}},
        {"dynamic-t",
         "AdaCoOpt's Dynamic-T baseline: uniform batches (training.batch_size); only the "
         "aggregation interval tau minimises the AdaCoOpt bound (at most what the slowest "
         "trainer fits in round_time_s); w += sum (D_i / D_S) Delta_i.",
         "Baseline in AdaCoOpt, IEEE IWQoS 2023",
         boundParams({})},
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
        {"fastest-k",
         "Each round, the k online trainers with the shortest expected round trip: model "
         "download + local_steps x batch / throughput + update upload (mean noise). Fast but "
         "biased towards the data of fast trainers.",
         "Straggler-avoiding baseline (e.g. Lai et al., Oort, OSDI 2021, section 2)",
         {intParam("k", 10, 1, "trainers per round")}},
        {"exp-growth",
         "Exponential growth of the number of workers: round t (from 1) uses n_t = min(n0 * "
         "growth^floor((t - 1) / period), cap) trainers drawn uniformly among those online. Few "
         "noisy-but-cheap rounds first, more workers (less gradient noise) later; combine with "
         "any sync policy.",
         "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022 [reconstructed]",
         {intParam("n0", 1, 1, "trainers in the first period"),
          intParam("period", 5, 1, "rounds between growth steps"),
          realParam("growth", 2.0, 1.0, 100.0, "factor per period (2 = doubling)"),
          intParam("cap", 0, 0, "most trainers per round; 0 = all trainers")}},
        {"oort",
         "Oort guided participant selection: utility U_i = n_i * loss_i * (T / t_i)^(alpha * "
         "1[t_i > T]) from each trainer's last reported mean loss and round duration t_i "
         "(expected duration until it has taken part); a fraction epsilon of the k slots explores "
         "trainers never seen (fastest first), the rest exploit the top utilities; epsilon "
         "decays by epsilon_decay per round down to epsilon_min.",
         "Lai et al., Oort: efficient federated learning via guided participant selection, OSDI "
         "2021",
         {intParam("k", 10, 1, "trainers per round"),
          realParam("target_s", 0.0, 0.0, 1e12,
                    "preferred round duration T in seconds; 0 = the k-th shortest expected "
                    "duration among the candidates"),
          realParam("alpha", 2.0, 0.0, 10.0, "straggler penalty exponent"),
          realParam("epsilon", 0.9, 0.0, 1.0, "initial exploration fraction"),
          realParam("epsilon_decay", 0.98, 0.0, 1.0, "exploration factor per round"),
          realParam("epsilon_min", 0.2, 0.0, 1.0, "smallest exploration fraction")}},
        {"deadline-budget",
         "Budget- and deadline-aware: among online trainers whose expected round trip (as in "
         "fastest-k) meets the round deadline D, the k with the least expected round cost c_i "
         "= price_i/h x duration_i + traffic price of the model down and up; trainers are then "
         "dropped, most expensive first, while the set costs more than the per-round budget. "
         "When nobody can meet D, the single fastest trainer runs (the job never stalls).",
         "Deadline/budget-constrained selection, cf. Nishio & Yonetani (FedCS), ICC 2019",
         {intParam("k", 10, 1, "trainers wanted per round"),
          realParam("deadline_s", 60.0, 0.0, 1e12, "round deadline D in seconds; 0 = none"),
          realParam("budget", 0.0, 0.0, 1e12, "money per round; 0 = none")}},
        {"data-value",
         "Data-value recruitment: once, at the start, recruit the set S minimising w_train * "
         "sum_S p_k^2 / pi_k + w_gen * sum_S p_k TV(h_k, h_test) + w_rep * sum_S p_k TV(h_k, "
         "h_all) subject to sum_S c_k <= budget, where p_k = n_k / n_S, pi_k the stationary "
         "availability of k's Markov on/off chain, h_k its label histogram and c_k its price per "
         "hour; solved exactly by dynamic programming over (device, discretised budget, data "
         "recruited). Every round the recruited trainers that are online take part.",
         "Device recruitment by data value, WiOpt 2021 / IEEE/ACM ToN [reconstructed]",
         {realParam("budget", 1.0, 0.0, 1e12,
                    "sum of the recruited trainers' price_per_hour; trainers that all cost 0 "
                    "are charged 1 each, so the budget counts trainers"),
          {"budget_steps", 100, 1, 10000, true, "discretisation of the budget for the DP"},
          {"data_steps", 50, 1, 1000, true, "discretisation of the recruited sample count"},
          realParam("w_train", 1.0, 0.0, 1e6, "weight of the training-loss (variance) term"),
          realParam("w_gen", 1.0, 0.0, 1e6, "weight of the generalisation term"),
          realParam("w_rep", 1.0, 0.0, 1e6, "weight of the representation term")}},
        {"largest-data",
         "Largest data first: the k online trainers holding the most samples (the baseline "
         "data-value recruitment is compared against).",
         "Baseline in device recruitment by data value, WiOpt 2021 / ToN",
         {intParam("k", 10, 1, "trainers per round")}},
        {"ton-plan",
         "Planner for parameter-server SGD on volatile workers: for each n, y ~ Bin(n, q) workers "
         "are up per iteration; the error floor A(n) = eta L M E[1/y] / (2 c mu b) must be below "
         "the target gap eps, J = ceil(log((eps - A) / (F0 - A)) / log(1 - eta c mu)) "
         "iterations, E[T] = J (E[R(y) | y > 0] + comm) / P(y > 0) with R(y) the sync policy's "
         "closed form (H_y / lambda for fully-sync), cost = n q price E[T]. Picks the least-cost "
         "n meeting the deadline, rents the n fastest trainers and reports the plan (n, J, "
         "predicted time and cost) as a 'plan' event. Needs fully-sync, n-sync or n-batch-sync.",
         "Zhang et al., ML on volatile instances, IEEE/ACM ToN 2022 [reconstructed]",
         {realParam("target_gap", 0.1, 0.0, 1e12, "eps: wanted F(w_J) - F* (loss units)"),
          realParam("deadline_s", 0.0, 0.0, 1e12, "seconds the job may take; 0 = none"),
          realParam("f0_gap", 1.0, 0.0, 1e12, "F(w0) - F* at the start (loss units)"),
          realParam("eta", 0.0, 0.0, 1e6, "step size; 0 = training.learning_rate"),
          realParam("c", 1.0, 1e-12, 1e12, "strong convexity constant"),
          realParam("mu", 1.0, 1e-12, 1e12, "gradient-direction constant mu"),
          realParam("L", 1.0, 1e-12, 1e12, "smoothness constant"),
          realParam("M", 1.0, 0.0, 1e12, "gradient-noise constant"),
          intParam("max_workers", 0, 0, "largest n considered; 0 = all trainers")}},
        {"placement",
         "Elastic placement across regions: once, choose w_r workers per region (a region = the "
         "trainers' region label, else their parameter server) minimising sum_r w_r price_r hours + "
         "egress x data_gb x sum_r max(0, d_r - w_r / W) (compute plus the data that must leave a "
         "region with less than its data share d_r of the workers), sum w_r = W, min_per_region "
         "<= w_r <= the region's trainers; greedy on marginal cost (exact, convex). Each round a "
         "region's cheapest, then fastest, online trainers fill its quota. Combine with async-ga "
         "or model-averaging.",
         "Tan et al., Cloudless-Training, Chinese High Technology Letters 2024 [reconstructed]",
         {intParam("workers", 4, 1, "W: workers in all regions together"),
          realParam("hours", 1.0, 0.0, 1e9, "expected job length in hours (weighs prices)"),
          realParam("data_gb", 0.0, 0.0, 1e12, "training data size in GB; 0 = from the data set"),
          realParam("egress_per_gb", 0.09, 0.0, 1e9, "price of moving 1 GB out of a region"),
          intParam("min_per_region", 1, 0, "workers each region keeps (its server needs one)")}},
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
