// Budget- and deadline-aware selection: the cheapest k trainers expected to finish a round
// within the deadline, trimmed to the per-round budget.

#include "core/policies/selection_estimates.h"
#include "core/policies/selection_factories.h"

#include <algorithm>
#include <tuple>

namespace fog {

namespace {
class SelectDeadlineBudget : public SelectionPolicy {
public:
    explicit SelectDeadlineBudget(const PolicySpec& spec)
        : k_(static_cast<std::size_t>(spec.get("k", 10))), deadline_(spec.get("deadline_s", 60.0)),
          budget_(spec.get("budget", 0.0)) {}

    std::vector<int> select(const Engine& e, int, int, const std::vector<int>& candidates, Rng&) override {
        std::vector<std::tuple<double, double, int>> feasible; // (cost, seconds, trainer)
        std::pair<double, int> fastest{0.0, -1};
        for (int t : candidates) {
            const double s = expectedRoundSeconds(e, t);
            if (fastest.second < 0 || s < fastest.first) fastest = {s, t};
            if (deadline_ <= 0 || s <= deadline_) feasible.emplace_back(expectedRoundCost(e, t), s, t);
        }
        if (feasible.empty()) return fastest.second < 0 ? std::vector<int>{} : std::vector<int>{fastest.second};
        // Cheapest first; equal cost: faster, then lower index. Taking the k cheapest
        // feasible trainers is the least-cost set of k that meets the deadline.
        std::sort(feasible.begin(), feasible.end());
        feasible.resize(std::min(k_, feasible.size()));
        double total = 0;
        for (const auto& f : feasible) total += std::get<0>(f);
        while (budget_ > 0 && feasible.size() > 1 && total > budget_) {
            total -= std::get<0>(feasible.back());
            feasible.pop_back();
        }
        std::vector<int> out;
        for (const auto& f : feasible) out.push_back(std::get<2>(f));
        std::sort(out.begin(), out.end());
        return out;
    }

private:
    std::size_t k_;
    double deadline_, budget_;
};
} // namespace

std::unique_ptr<SelectionPolicy> makeSelectDeadlineBudget(const PolicySpec& spec, const Engine&) {
    return std::make_unique<SelectDeadlineBudget>(spec);
}

} // namespace fog
