#pragma once
// Constructors of the selection policies, one per file; the registry maps names to them.

#include "core/policies/selection_policy.h"

namespace fog {

std::unique_ptr<SelectionPolicy> makeSelectAll(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectRandomK(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectFastestK(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectExpGrowth(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectOort(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectDeadlineBudget(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectDataValue(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectLargestData(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectTonPlan(const PolicySpec& spec, const Engine& e);
std::unique_ptr<SelectionPolicy> makeSelectPlacement(const PolicySpec& spec, const Engine& e);

} // namespace fog
