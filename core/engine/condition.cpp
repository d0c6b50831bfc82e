#include "core/engine/condition.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fog {

namespace {

std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

/// Shortest text that reads back as `v` to 6 significant digits.
std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string percent(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * v);
    std::string s = buf;
    if (s.size() > 3 && s.compare(s.size() - 3, 3, ".0%") == 0) s.erase(s.size() - 3, 2);
    return s;
}

std::string valueText(ConditionMetric m, double v) {
    switch (m) {
    case ConditionMetric::Round: return number(v);
    case ConditionMetric::Accuracy: return percent(v);
    case ConditionMetric::Time: return number(v) + " s";
    case ConditionMetric::Cost: return number(v);
    }
    return number(v);
}

} // namespace

const char* toString(ConditionMetric m) {
    switch (m) {
    case ConditionMetric::Round: return "round";
    case ConditionMetric::Accuracy: return "accuracy";
    case ConditionMetric::Time: return "time";
    case ConditionMetric::Cost: return "cost";
    }
    return "?";
}

double Condition::valueIn(const RunProgress& p) const {
    switch (metric) {
    case ConditionMetric::Round: return p.round;
    case ConditionMetric::Accuracy: return p.accuracy;
    case ConditionMetric::Time: return p.time;
    case ConditionMetric::Cost: return p.cost;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

bool Condition::holds(const RunProgress& p) const {
    const double v = valueIn(p);
    return !std::isnan(v) && v >= threshold;
}

std::string Condition::describe() const {
    return std::string(toString(metric)) + " >= " + valueText(metric, threshold);
}

std::string Condition::reachedText(const RunProgress& p) const {
    std::string s = std::string(toString(metric)) + " " + valueText(metric, valueIn(p)) + " >= " +
                    valueText(metric, threshold);
    if (metric == ConditionMetric::Round)
        s += " at " + valueText(ConditionMetric::Time, p.time);
    else
        s += " at round " + std::to_string(p.round);
    return s;
}

Condition parseCondition(const std::string& text, const std::string& argument) {
    const std::string accepted = "write METRIC>=VALUE or METRIC=VALUE with METRIC one of round, accuracy, time, "
                                 "cost (e.g. accuracy=0.8, accuracy>=80%, round>=20, time>=600, cost>=2.5)";
    auto fail = [&](const std::string& why) -> ConditionError {
        return ConditionError(argument + " '" + text + "': " + why);
    };
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos) throw fail("no '=' or '>=': " + accepted);
    std::string name = text.substr(0, eq);
    if (!name.empty() && name.back() == '>') name.pop_back();
    else if (!name.empty() && (name.back() == '<' || name.back() == '!'))
        throw fail("only '>=' (or '=', meaning '>=') is supported: the metrics only grow during a run");
    name = trim(name);
    std::string value = trim(text.substr(eq + 1));
    Condition c;
    if (name == "round" || name == "rounds")
        c.metric = ConditionMetric::Round;
    else if (name == "accuracy" || name == "test_accuracy")
        c.metric = ConditionMetric::Accuracy;
    else if (name == "time" || name == "virtual_time" || name == "virtual_time_s")
        c.metric = ConditionMetric::Time;
    else if (name == "cost" || name == "budget")
        c.metric = ConditionMetric::Cost;
    else
        throw fail(name.empty() ? "no metric before '=': " + accepted
                                : "unknown metric '" + name + "': " + accepted);
    // Time may carry its unit ("600 s", as describe() writes it).
    if (c.metric == ConditionMetric::Time && !value.empty() && value.back() == 's') value = trim(value.substr(0, value.size() - 1));
    const bool percentSign = !value.empty() && value.back() == '%';
    if (percentSign) value = trim(value.substr(0, value.size() - 1));
    if (value.empty()) throw fail("no value after '='");
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || *end != '\0' || !std::isfinite(v))
        throw fail("'" + value + "' is not a number");
    if (percentSign && c.metric != ConditionMetric::Accuracy) throw fail("only accuracy takes a percentage");
    switch (c.metric) {
    case ConditionMetric::Round:
        if (v < 1 || v != std::floor(v) || v > 1e9) throw fail("round must be a whole number from 1 to 10^9");
        c.threshold = v;
        break;
    case ConditionMetric::Accuracy:
        c.threshold = percentSign ? v / 100.0 : v;
        if (!(c.threshold > 0.0) || c.threshold > 1.0)
            throw fail("accuracy must be in (0, 1] (or a percentage such as 80%)");
        break;
    case ConditionMetric::Time:
    case ConditionMetric::Cost:
        if (v < 0) throw fail(std::string(toString(c.metric)) + " must be >= 0");
        c.threshold = v;
        break;
    }
    return c;
}

} // namespace fog
