// Budget- and deadline-aware selection: the cheapest k trainers expected to finish a round
// within the deadline, trimmed to the per-round budget.

#include "core/policies/selection_estimates.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>
#include <tuple>

namespace fog {

namespace {

struct DeadlineBudgetSettings {
    int k = 0;                    ///< trainers wanted per round
    double deadlineSeconds = 0.0; ///< D; 0: none
    double budget = 0.0;          ///< money per round; 0: none
};

const ParamTable<DeadlineBudgetSettings>& deadlineBudgetParams() {
    static const auto t =
        ParamTable<DeadlineBudgetSettings>()
            .integer("k", &DeadlineBudgetSettings::k, 10, 1, "trainers wanted per round")
            .real("deadline_s", &DeadlineBudgetSettings::deadlineSeconds, 60.0, 0.0, 1e12,
                  "round deadline D in seconds; 0 = none")
            .real("budget", &DeadlineBudgetSettings::budget, 0.0, 0.0, 1e12, "money per round; 0 = none");
    return t;
}

class SelectDeadlineBudget : public SelectionPolicy {
public:
    explicit SelectDeadlineBudget(const DeadlineBudgetSettings& s)
        : k_(static_cast<std::size_t>(s.k)), deadline_(s.deadlineSeconds), budget_(s.budget) {}

    std::vector<int> select(const SystemView& e, int, int, const std::vector<int>& candidates, Rng&) override {
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

FOG_SELECTION_POLICY(selectDeadlineBudgetPolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "deadline-budget";
        d.info.summary = "Budget- and deadline-aware: among online trainers whose expected round trip (as "
                         "in fastest-k) meets the round deadline D, the k with the least expected round "
                         "cost c_i = price_i/h x duration_i + traffic price of the model down and up; "
                         "trainers are then dropped, most expensive first, while the set costs more than "
                         "the per-round budget. When nobody can meet D, the single fastest trainer runs "
                         "(the job never stalls).";
        d.info.source = "Deadline/budget-constrained selection, cf. Nishio & Yonetani (FedCS), ICC 2019";
        d.info.params = deadlineBudgetParams().infos();
        d.order = 60;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SelectionPolicy> {
            (void)e;
            return std::make_unique<SelectDeadlineBudget>(deadlineBudgetParams().read(p));
        };
        d.perRound = [](const PolicyParams& p) { return deadlineBudgetParams().read(p).k; };
        return d;
    }();
    return d;
}

} // namespace fog
