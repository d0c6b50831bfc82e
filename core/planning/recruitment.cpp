#include "core/planning/recruitment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace fog {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double totalVariation(const std::vector<double>& a, const std::vector<double>& b) {
    const double sa = std::accumulate(a.begin(), a.end(), 0.0);
    const double sb = std::accumulate(b.begin(), b.end(), 0.0);
    if (sa <= 0 || sb <= 0) return 0.0;
    double tv = 0;
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
        tv += std::abs((i < a.size() ? a[i] / sa : 0.0) - (i < b.size() ? b[i] / sb : 0.0));
    return 0.5 * tv;
}

double recruitmentObjective(const std::vector<RecruitCandidate>& c, const std::vector<int>& set,
                            const RecruitWeights& w) {
    double n = 0;
    for (int k : set) n += static_cast<double>(c[k].samples);
    if (n <= 0) return kInf;
    double j = 0;
    for (int k : set) {
        const double p = static_cast<double>(c[k].samples) / n;
        j += w.train * p * p / c[k].availability + p * (w.gen * c[k].genDistance + w.rep * c[k].repDistance);
    }
    return j;
}

std::vector<int> recruitByDataValue(const std::vector<RecruitCandidate>& c, double budget, int budgetSteps,
                                    int dataSteps, const RecruitWeights& w) {
    const int N = static_cast<int>(c.size());
    const int B = std::max(1, budgetSteps);
    if (N == 0) return {};
    // Cost in budget units, rounded up so every set the DP accepts is within the budget;
    // devices that cannot fit alone are left out.
    std::vector<int> cu(N), du(N);
    std::vector<int> items;
    for (int k = 0; k < N; ++k) {
        const double units = budget > 0 ? c[k].cost / budget * B : (c[k].cost > 0 ? kInf : 0.0);
        if (!(units <= B + 1e-9) || c[k].samples <= 0) continue;
        cu[k] = static_cast<int>(std::ceil(units - 1e-9));
        items.push_back(k);
    }
    if (items.empty()) return {};
    // Data units: the most data the budget could buy (the m largest devices, m = how many of
    // the cheapest fit) spread over dataSteps units, so the table stays about dataSteps wide.
    std::vector<int> costs;
    std::vector<std::int64_t> sizes;
    for (int k : items) {
        costs.push_back(cu[k]);
        sizes.push_back(c[k].samples);
    }
    std::sort(costs.begin(), costs.end());
    std::sort(sizes.rbegin(), sizes.rend());
    std::size_t m = 0;
    for (long spent = 0; m < costs.size() && spent + costs[m] <= B; ++m) spent += costs[m];
    std::int64_t reach = 0;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, m); ++i) reach += sizes[i];
    const std::int64_t unit = std::max<std::int64_t>(1, (reach + dataSteps - 1) / std::max(1, dataSteps));
    std::vector<int> units;
    for (int k : items) {
        du[k] = static_cast<int>(std::max<std::int64_t>(1, (c[k].samples + unit / 2) / unit));
        units.push_back(du[k]);
    }
    std::sort(units.rbegin(), units.rend());
    int dMax = 0;
    for (std::size_t i = 0; i < std::max<std::size_t>(1, m); ++i) dMax += units[i];

    std::vector<int> best;
    double bestJ = kInf;
    const auto idx = [&](int b, int d) { return static_cast<std::size_t>(b) * (dMax + 1) + d; };
    for (int D = 1; D <= dMax; ++D) {
        // For a fixed n_S = D * unit the objective is a sum of per-device values.
        const double nS = static_cast<double>(D * unit);
        std::vector<double> dp(static_cast<std::size_t>(B + 1) * (dMax + 1), kInf);
        std::vector<std::vector<char>> keep(items.size(), std::vector<char>(dp.size(), 0));
        dp[idx(0, 0)] = 0.0;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const int k = items[i];
            const double p = static_cast<double>(c[k].samples) / nS;
            const double v = w.train * p * p / c[k].availability + p * (w.gen * c[k].genDistance + w.rep * c[k].repDistance);
            for (int b = B; b >= cu[k]; --b)
                for (int d = D; d >= du[k]; --d) {
                    const double cand = dp[idx(b - cu[k], d - du[k])] + v;
                    if (cand < dp[idx(b, d)]) {
                        dp[idx(b, d)] = cand;
                        keep[i][idx(b, d)] = 1;
                    }
                }
        }
        int bBest = -1;
        for (int b = 0; b <= B; ++b)
            if (dp[idx(b, D)] < kInf && (bBest < 0 || dp[idx(b, D)] < dp[idx(bBest, D)])) bBest = b;
        if (bBest < 0) continue;
        std::vector<int> set;
        int b = bBest, d = D;
        for (std::size_t i = items.size(); i-- > 0;) {
            if (!keep[i][idx(b, d)]) continue;
            set.push_back(items[i]);
            b -= cu[items[i]];
            d -= du[items[i]];
        }
        std::sort(set.begin(), set.end());
        const double j = recruitmentObjective(c, set, w);
        if (j < bestJ) {
            bestJ = j;
            best = std::move(set);
        }
    }
    return best;
}

} // namespace fog
