#pragma once
// Device recruitment by data value (WiOpt 2021 / ToN, [reconstructed]): which devices to
// recruit under a budget so that the aggregated model is trained on data that is plentiful,
// available and representative. Pure functions, so tests can check the DP by brute force.

#include <cstdint>
#include <vector>

namespace fog {

struct RecruitCandidate {
    double cost = 1.0;          ///< price of recruiting the device (same unit as the budget)
    std::int64_t samples = 0;   ///< n_k
    double availability = 1.0; ///< pi_k, stationary probability of being online (0, 1]
    double genDistance = 0.0;   ///< TV(h_k, h_test): its labels vs the test distribution
    double repDistance = 0.0;   ///< TV(h_k, h_all): its labels vs all training data
};

struct RecruitWeights {
    double train = 1.0;
    double gen = 1.0;
    double rep = 1.0;
};

/// J(S) = w_train sum_S p_k^2 / pi_k + w_gen sum_S p_k gen_k + w_rep sum_S p_k rep_k with
/// p_k = n_k / n_S; +infinity for an empty set or one without samples.
double recruitmentObjective(const std::vector<RecruitCandidate>& candidates,
                            const std::vector<int>& set, const RecruitWeights& w);

/// The set (ascending indices) minimising J under sum_S cost <= budget. Costs are rounded up
/// to budget / budgetSteps units and sample counts to units of ceil(total / dataSteps); for
/// each recruited amount D a 0/1 knapsack DP over (device, budget units, data units) finds the
/// best set with n_S = D units exactly, and the best of those by the true J is returned.
/// Exact when costs and sample counts are multiples of their units; O(N B D^2) time with
/// D about dataSteps.
std::vector<int> recruitByDataValue(const std::vector<RecruitCandidate>& candidates, double budget,
                                    int budgetSteps, int dataSteps, const RecruitWeights& w);

/// Total-variation distance 0.5 sum |a/|a| - b/|b||; 0 when either is all zero.
double totalVariation(const std::vector<double>& a, const std::vector<double>& b);

} // namespace fog
