#pragma once
// A planner's prediction as its "plan" event states it (key=value pairs in the detail):
// predicted_time_s, predicted_cost and predicted_accuracy. The engine copies the latest into
// the run summary; the live plots draw it beside the outcome.

#include <limits>
#include <string>

namespace fog {

struct PlanPrediction {
    double time = std::numeric_limits<double>::quiet_NaN();     ///< virtual seconds at the end
    double cost = std::numeric_limits<double>::quiet_NaN();     ///< cumulative cost at the end
    double accuracy = std::numeric_limits<double>::quiet_NaN(); ///< test accuracy at the end
    bool any() const { return time == time || cost == cost || accuracy == accuracy; }
};

/// The predicted_* values of a plan event's detail (NaN where a key is missing).
PlanPrediction parsePlanPrediction(const std::string& detail);

} // namespace fog
