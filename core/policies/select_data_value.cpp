// Data-value recruitment (WiOpt 2021 / ToN, [reconstructed]): once, recruit the trainers
// whose data best serve the model under a budget (core/planning/recruitment.h); every round
// the recruited trainers that are online take part.

#include "core/planning/recruitment.h"
#include "core/policies/selection_estimates.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"

#include <algorithm>
#include <numeric>

namespace fog {

namespace {
class SelectDataValue : public SelectionPolicy {
public:
    explicit SelectDataValue(std::vector<int> recruited) : recruited_(std::move(recruited)) {}
    std::vector<int> select(const SystemView&, int, int, const std::vector<int>& candidates, Rng&) override {
        std::vector<int> out;
        std::set_intersection(candidates.begin(), candidates.end(), recruited_.begin(), recruited_.end(),
                              std::back_inserter(out));
        return out;
    }

private:
    std::vector<int> recruited_; ///< node indices, ascending
};

struct DataValueSettings {
    double budget = 0.0;  ///< sum of the recruited trainers' prices per hour
    int budgetSteps = 0;  ///< discretisation of the budget
    int dataSteps = 0;    ///< discretisation of the recruited sample count
    double wTrain = 0.0, wGen = 0.0, wRep = 0.0; ///< weights of the three terms
};

const ParamTable<DataValueSettings>& dataValueParams() {
    static const auto t =
        ParamTable<DataValueSettings>()
            .real("budget", &DataValueSettings::budget, 1.0, 0.0, 1e12,
                  "sum of the recruited trainers' price_per_hour; trainers that all cost 0 "
                  "are charged 1 each, so the budget counts trainers")
            .integer("budget_steps", &DataValueSettings::budgetSteps, 100, 1, "discretisation of the budget for the DP",
                     10000)
            .integer("data_steps", &DataValueSettings::dataSteps, 50, 1, "discretisation of the recruited sample count",
                     1000)
            .real("w_train", &DataValueSettings::wTrain, 1.0, 0.0, 1e6, "weight of the training-loss (variance) term")
            .real("w_gen", &DataValueSettings::wGen, 1.0, 0.0, 1e6, "weight of the generalisation term")
            .real("w_rep", &DataValueSettings::wRep, 1.0, 0.0, 1e6, "weight of the representation term");
    return t;
}

std::vector<std::int64_t> allIndices(std::size_t n) {
    std::vector<std::int64_t> v(n);
    std::iota(v.begin(), v.end(), std::int64_t(0));
    return v;
}
} // namespace

static std::unique_ptr<SelectionPolicy> makeSelectDataValue(const PolicyParams& p, const SystemView& e) {
    const auto trainers = e.topology().trainers();
    const auto& data = e.data();
    const auto hTest = labelHistogram(data.test, allIndices(data.test.size()));
    const auto hAll = labelHistogram(data.train, allIndices(data.train.size()));
    bool anyPrice = false;
    for (int t : trainers) anyPrice = anyPrice || e.topology().node(t).spec.pricePerHour > 0;

    std::vector<RecruitCandidate> cands;
    for (std::size_t i = 0; i < trainers.size(); ++i) {
        const int t = trainers[i];
        RecruitCandidate c;
        c.cost = anyPrice ? e.topology().node(t).spec.pricePerHour : 1.0;
        c.samples = e.samplesOf(t);
        c.availability = std::max(1e-6, stationaryAvailability(e, t));
        const auto h = labelHistogram(data.train, data.parts[i]);
        c.genDistance = totalVariation(h, hTest);
        c.repDistance = totalVariation(h, hAll);
        cands.push_back(c);
    }
    const DataValueSettings s = dataValueParams().read(p);
    RecruitWeights w;
    w.train = s.wTrain;
    w.gen = s.wGen;
    w.rep = s.wRep;
    const double budget = s.budget;
    const int budgetSteps = s.budgetSteps;
    const int dataSteps = s.dataSteps;
    // The DP takes about N x budget_steps x data_steps^2 steps: refuse what would not finish.
    const double work = static_cast<double>(cands.size()) * budgetSteps * dataSteps * dataSteps;
    if (work > 5e9) // about a minute
        throw EngineError("selection policy " + p.policy() + ": " + std::to_string(cands.size()) + " trainers x budget_steps " +
                          std::to_string(budgetSteps) + " x data_steps^2 " + std::to_string(dataSteps) +
                          "^2 is too large a programme to solve; lower budget_steps or data_steps");
    const auto chosen = recruitByDataValue(cands, budget, budgetSteps, dataSteps, w);
    if (chosen.empty()) {
        double cheapest = cands.empty() ? 0.0 : cands.front().cost;
        for (const auto& c : cands) cheapest = std::min(cheapest, c.cost);
        throw EngineError("selection policy " + p.policy() + ": budget " + std::to_string(budget) +
                          " recruits no trainer (the cheapest costs " + std::to_string(cheapest) +
                          (anyPrice ? " per hour)" : "; with no prices each trainer costs 1)"));
    }
    std::vector<int> recruited;
    for (int i : chosen) recruited.push_back(trainers[static_cast<std::size_t>(i)]);
    std::sort(recruited.begin(), recruited.end());
    return std::make_unique<SelectDataValue>(std::move(recruited));
}

FOG_SELECTION_POLICY(selectDataValuePolicy) {
    static const SelectionPolicyDescriptor d = [] {
        SelectionPolicyDescriptor d;
        d.info.name = "data-value";
        d.info.summary = "Data-value recruitment: once, at the start, recruit the set S minimising "
                         "w_train * sum_S p_k^2 / pi_k + w_gen * sum_S p_k TV(h_k, h_test) + w_rep * "
                         "sum_S p_k TV(h_k, h_all) subject to sum_S c_k <= budget, where p_k = n_k / n_S, "
                         "pi_k the stationary availability of k's Markov on/off chain, h_k its label "
                         "histogram and c_k its price per hour; solved exactly by dynamic programming "
                         "over (device, discretised budget, data recruited). Every round the recruited "
                         "trainers that are online take part.";
        d.info.source = "Device recruitment by data value, WiOpt 2021 / IEEE/ACM ToN [reconstructed]";
        d.info.params = dataValueParams().infos();
        d.order = 70;
        d.make = makeSelectDataValue;
        return d;
    }();
    return d;
}

} // namespace fog
