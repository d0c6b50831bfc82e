#include "core/seek/seek_spec.h"

#include "core/sweep/sweep.h"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <sstream>

namespace fog {

namespace {

[[noreturn]] void fail(const char* option, const std::string& text, const std::string& what) {
    throw ScenarioError({{option, 0, 0, "'" + text + "'", what}});
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool parseNumber(const std::string& s, double& out) {
    const std::string t = trim(s);
    if (t.empty()) return false;
    char* end = nullptr;
    out = std::strtod(t.c_str(), &end);
    return end && *end == '\0' && std::isfinite(out);
}

/// Seconds from "600", "600s", "10min", "2h".
bool parseDuration(const std::string& s, double& out) {
    std::string t = trim(s);
    double scale = 1.0;
    auto ends = [&t](const std::string& suffix) {
        return t.size() > suffix.size() && t.compare(t.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends("min")) scale = 60.0, t.resize(t.size() - 3);
    else if (ends("h")) scale = 3600.0, t.resize(t.size() - 1);
    else if (ends("s")) t.resize(t.size() - 1);
    if (!parseNumber(t, out)) return false;
    out *= scale;
    return true;
}

bool metricByName(const std::string& name, SeekMetric& m) {
    if (name == "accuracy") m = SeekMetric::Accuracy;
    else if (name == "cost") m = SeekMetric::Cost;
    else if (name == "time") m = SeekMetric::Time;
    else if (name == "energy") m = SeekMetric::Energy;
    else if (name == "bytes") m = SeekMetric::Bytes;
    else return false;
    return true;
}

std::string number(double v) {
    std::ostringstream s;
    s << std::setprecision(10) << v;
    return s.str();
}

} // namespace

const char* toString(SeekMetric m) {
    switch (m) {
    case SeekMetric::Accuracy: return "accuracy";
    case SeekMetric::Cost: return "cost";
    case SeekMetric::Time: return "time";
    case SeekMetric::Energy: return "energy";
    case SeekMetric::Bytes: return "bytes";
    }
    return "?";
}

SeekObjective parseObjective(const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos)
        fail("--objective", text, "is not DIRECTION:METRIC, e.g. min:cost or max:accuracy");
    const std::string dir = trim(text.substr(0, colon));
    SeekObjective o;
    if (dir == "min") o.maximise = false;
    else if (dir == "max") o.maximise = true;
    else fail("--objective", text, "direction must be min or max, not '" + dir + "'");
    if (!metricByName(trim(text.substr(colon + 1)), o.metric))
        fail("--objective", text, "metric must be accuracy, cost, time, energy or bytes");
    if (o.maximise != (o.metric == SeekMetric::Accuracy))
        fail("--objective", text,
             o.maximise ? "only accuracy can be maximised (cost, time, energy and bytes are minimised)"
                        : "accuracy is maximised: write max:accuracy");
    return o;
}

SeekConstraint parseConstraint(const std::string& text) {
    SeekConstraint c;
    std::size_t op = text.find(">=");
    c.atLeast = op != std::string::npos;
    if (!c.atLeast) op = text.find("<=");
    if (op == std::string::npos)
        fail("--constraint", text, "is not METRIC>=VALUE or METRIC<=VALUE, e.g. accuracy>=0.8@600 or cost<=5");
    if (!metricByName(trim(text.substr(0, op)), c.metric))
        fail("--constraint", text, "metric must be accuracy, cost, time, energy or bytes");
    std::string rhs = text.substr(op + 2);
    const auto at = rhs.find('@');
    if (at != std::string::npos) {
        if (c.metric != SeekMetric::Accuracy)
            fail("--constraint", text, "only an accuracy constraint takes a deadline (@TIME)");
        if (!parseDuration(rhs.substr(at + 1), c.deadline) || c.deadline <= 0)
            fail("--constraint", text, "deadline after @ must be a positive virtual time, e.g. 600, 600s, 10min, 2h");
        rhs = rhs.substr(0, at);
    }
    const bool ok = c.metric == SeekMetric::Time ? parseDuration(rhs, c.value) : parseNumber(rhs, c.value);
    if (!ok) fail("--constraint", text, "value '" + trim(rhs) + "' is not a number");
    if (c.metric == SeekMetric::Accuracy) {
        if (!c.atLeast) fail("--constraint", text, "accuracy is bounded from below: accuracy>=A");
        if (c.value <= 0 || c.value > 1) fail("--constraint", text, "accuracy must be in (0, 1], e.g. 0.8");
    } else {
        if (c.atLeast) fail("--constraint", text, std::string(toString(c.metric)) + " is bounded from above: " +
                                                      toString(c.metric) + "<=VALUE");
        if (c.value <= 0) fail("--constraint", text, "the limit must be positive");
    }
    return c;
}

SeekParam parseParam(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        fail("--param", text, "is not KEY=KIND:RANGE, e.g. selection.k=int:2..20 or sync.policy=choice:fedavg,fully-sync");
    SeekParam p;
    p.path = trim(text.substr(0, eq));
    const std::string spec = text.substr(eq + 1);
    const auto colon = spec.find(':');
    if (colon == std::string::npos) fail("--param", text, "needs a kind: int:, real:, log: or choice:");
    const std::string kind = trim(spec.substr(0, colon));
    const std::string body = spec.substr(colon + 1);
    if (kind == "choice") {
        p.kind = SeekParam::Kind::Choice;
        p.choices = parseSweepAxis(p.path + "=" + body).values; // bracket-aware split
        if (p.choices.size() < 2) fail("--param", text, "a choice needs at least two values");
        return p;
    }
    if (kind == "int") p.kind = SeekParam::Kind::Int;
    else if (kind == "real") p.kind = SeekParam::Kind::Real;
    else if (kind == "log") p.kind = SeekParam::Kind::LogReal;
    else fail("--param", text, "kind must be int, real, log or choice, not '" + kind + "'");
    const auto dots = body.find("..");
    if (dots == std::string::npos) fail("--param", text, "range must be LO..HI, e.g. 2..20");
    std::string hiText = body.substr(dots + 2);
    const auto stepColon = hiText.find(':');
    if (stepColon != std::string::npos) {
        if (p.kind != SeekParam::Kind::Int) fail("--param", text, "only int ranges take a step (int:LO..HI:STEP)");
        if (!parseNumber(hiText.substr(stepColon + 1), p.step) || p.step < 1 || p.step != std::floor(p.step))
            fail("--param", text, "step must be a whole number >= 1");
        hiText = hiText.substr(0, stepColon);
    }
    if (!parseNumber(body.substr(0, dots), p.lo) || !parseNumber(hiText, p.hi))
        fail("--param", text, "bounds of LO..HI must be numbers");
    if (p.hi <= p.lo) fail("--param", text, "HI must be greater than LO");
    if (p.kind == SeekParam::Kind::Int && (p.lo != std::floor(p.lo) || p.hi != std::floor(p.hi)))
        fail("--param", text, "int bounds must be whole numbers");
    if (p.kind == SeekParam::Kind::LogReal && p.lo <= 0) fail("--param", text, "log range needs LO > 0");
    return p;
}

std::size_t SeekParam::levels() const {
    switch (kind) {
    case Kind::Int: return static_cast<std::size_t>(std::floor((hi - lo) / step)) + 1;
    case Kind::Choice: return choices.size();
    default: return 0;
    }
}

std::string SeekParam::level(std::size_t i) const {
    if (kind == Kind::Choice) return choices.at(i);
    return number(lo + step * static_cast<double>(i));
}

std::string describe(const SeekObjective& o) {
    return std::string(o.maximise ? "max:" : "min:") + toString(o.metric);
}

std::string describe(const SeekConstraint& c) {
    std::string s = std::string(toString(c.metric)) + (c.atLeast ? ">=" : "<=") + number(c.value);
    if (c.deadline > 0) s += "@" + number(c.deadline);
    return s;
}

std::string describe(const SeekParam& p) {
    switch (p.kind) {
    case SeekParam::Kind::Int:
        return p.path + "=int:" + number(p.lo) + ".." + number(p.hi) + (p.step != 1 ? ":" + number(p.step) : "");
    case SeekParam::Kind::Real: return p.path + "=real:" + number(p.lo) + ".." + number(p.hi);
    case SeekParam::Kind::LogReal: return p.path + "=log:" + number(p.lo) + ".." + number(p.hi);
    case SeekParam::Kind::Choice: {
        std::string s = p.path + "=choice:";
        for (std::size_t i = 0; i < p.choices.size(); ++i) s += (i ? "," : "") + p.choices[i];
        return s;
    }
    }
    return p.path;
}

double metricValue(const AggregationRecord& r, SeekMetric m) {
    switch (m) {
    case SeekMetric::Accuracy: return r.testAccuracy;
    case SeekMetric::Cost: return r.cost;
    case SeekMetric::Time: return r.time;
    case SeekMetric::Energy: return r.energyJ;
    case SeekMetric::Bytes: return r.bytes;
    }
    return kNaN;
}

TrialScore scoreTrial(const std::vector<AggregationRecord>& records, const RunSummary& summary,
                      const SeekObjective& objective, const std::vector<SeekConstraint>& constraints) {
    TrialScore t;
    const SeekConstraint* accuracy = nullptr;
    std::vector<const SeekConstraint*> limits;
    for (const auto& c : constraints) {
        if (c.metric == SeekMetric::Accuracy) {
            if (!accuracy || c.value > accuracy->value) accuracy = &c; // the strictest one
        } else {
            limits.push_back(&c);
        }
    }
    auto withinLimits = [&](const AggregationRecord& r) {
        for (const auto* c : limits)
            if (metricValue(r, c->metric) > c->value) return false;
        return true;
    };

    // The evaluation point.
    std::ptrdiff_t at = -1;
    double bestBefore = kNaN; // best accuracy up to the evaluation point (or by the deadline)
    bool reached = false;
    if (accuracy) {
        for (std::size_t i = 0; i < records.size(); ++i) {
            const auto& r = records[i];
            if (accuracy->deadline > 0 && r.time > accuracy->deadline) break;
            if (!std::isnan(r.testAccuracy) && (std::isnan(bestBefore) || r.testAccuracy > bestBefore))
                bestBefore = r.testAccuracy;
            at = static_cast<std::ptrdiff_t>(i);
            if (!std::isnan(r.testAccuracy) && r.testAccuracy >= accuracy->value) {
                reached = true;
                break;
            }
        }
    } else {
        for (std::size_t i = 0; i < records.size(); ++i) {
            if (!withinLimits(records[i])) break;
            const double a = records[i].testAccuracy;
            if (!std::isnan(a) && (std::isnan(bestBefore) || a > bestBefore)) bestBefore = a;
            at = static_cast<std::ptrdiff_t>(i);
        }
    }

    t.accuracy = bestBefore;
    if (at >= 0) {
        const auto& r = records[static_cast<std::size_t>(at)];
        t.time = r.time;
        t.cost = r.cost;
        t.energyJ = r.energyJ;
        t.bytes = r.bytes;
    } else if (!accuracy && !records.empty()) {
        // Even the first aggregation is over a limit: read it there (infeasible).
        const auto& r = records.front();
        t.time = r.time, t.cost = r.cost, t.energyJ = r.energyJ, t.bytes = r.bytes;
    }
    switch (objective.metric) {
    case SeekMetric::Accuracy: t.objective = t.accuracy; break;
    case SeekMetric::Cost: t.objective = t.cost; break;
    case SeekMetric::Time: t.objective = t.time; break;
    case SeekMetric::Energy: t.objective = t.energyJ; break;
    case SeekMetric::Bytes: t.objective = t.bytes; break;
    }

    // Violations: relative shortfalls, so that the least bad infeasible trials rank first.
    double violation = 0.0;
    if (summary.status == RunStatus::Failed) violation += 10.0; // a configuration that cannot run
    if (records.empty()) violation += 1.0;
    if (accuracy && !reached) {
        const double a = std::isnan(bestBefore) ? 0.0 : bestBefore;
        violation += std::max(1e-9, (accuracy->value - a) / accuracy->value);
    }
    for (const auto* c : limits) {
        double v = kNaN;
        if (at >= 0) v = metricValue(records[static_cast<std::size_t>(at)], c->metric);
        else if (!records.empty()) v = metricValue(records.front(), c->metric);
        if (!std::isnan(v) && v > c->value) violation += (v - c->value) / c->value;
    }
    if (objective.metric == SeekMetric::Accuracy && std::isnan(t.objective) && violation == 0.0)
        violation = 1.0; // nothing evaluated: accuracy cannot be maximised
    t.violation = violation;
    t.feasible = violation == 0.0;
    return t;
}

} // namespace fog
