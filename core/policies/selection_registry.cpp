#include "core/policies/policy_info.h"
#include "core/policies/selection_factories.h"

#include <map>

namespace fog {

std::unique_ptr<SelectionPolicy> makeSelectionPolicy(const PolicySpec& spec, const Engine& e) {
    using Factory = std::unique_ptr<SelectionPolicy> (*)(const PolicySpec&, const Engine&);
    static const std::map<std::string, Factory> factories = {
        {"all", makeSelectAll},
        {"random-k", makeSelectRandomK},
        {"fastest-k", makeSelectFastestK},
        {"exp-growth", makeSelectExpGrowth},
        {"oort", makeSelectOort},
        {"deadline-budget", makeSelectDeadlineBudget},
        {"data-value", makeSelectDataValue},
        {"largest-data", makeSelectLargestData},
        {"ton-plan", makeSelectTonPlan},
        {"placement", makeSelectPlacement},
    };
    auto it = factories.find(spec.name);
    if (it == factories.end()) {
        std::string known;
        for (const auto& info : selectionPolicyInfos()) known += (known.empty() ? "" : ", ") + info.name;
        throw EngineError("unknown selection policy '" + spec.name + "' (known: " + known + ")");
    }
    return it->second(spec, e);
}

} // namespace fog
