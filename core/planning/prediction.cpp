#include "core/planning/prediction.h"

#include <cstdlib>

namespace fog {

namespace {

double valueOf(const std::string& detail, const std::string& key) {
    std::size_t at = 0;
    while ((at = detail.find(key + "=", at)) != std::string::npos) {
        if (at == 0 || detail[at - 1] == ' ') {
            const char* begin = detail.c_str() + at + key.size() + 1;
            char* end = nullptr;
            const double v = std::strtod(begin, &end);
            if (end != begin) return v;
        }
        at += key.size();
    }
    return std::numeric_limits<double>::quiet_NaN();
}

} // namespace

PlanPrediction parsePlanPrediction(const std::string& detail) {
    PlanPrediction p;
    p.time = valueOf(detail, "predicted_time_s");
    p.cost = valueOf(detail, "predicted_cost");
    p.accuracy = valueOf(detail, "predicted_accuracy");
    return p;
}

} // namespace fog
