#include "app/cli/progress.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace fog::cli {

namespace {

double wallNow() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

std::string humanEnergy(double j) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    if (j >= 1e6) s << j / 1e6 << " MJ";
    else if (j >= 1e3) s << j / 1e3 << " kJ";
    else s << j << " J";
    return s.str();
}

std::string energySplitText(double computeJ, double networkJ, double idleJ) {
    if (std::isnan(computeJ) || std::isnan(networkJ) || std::isnan(idleJ)) return ""; // stored before the split
    return " (compute " + humanEnergy(computeJ) + ", network " + humanEnergy(networkJ) + ", idle " +
           humanEnergy(idleJ) + ")";
}

std::string humanBytes(double b) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    if (b >= 1e9) s << b / 1e9 << " GB";
    else if (b >= 1e6) s << b / 1e6 << " MB";
    else if (b >= 1e3) s << b / 1e3 << " kB";
    else s << b << " B";
    return s.str();
}

std::string humanTime(double secs) {
    std::ostringstream s;
    s << std::fixed << std::setprecision(1);
    if (secs >= 3600) s << secs / 3600 << " h";
    else if (secs >= 60) s << secs / 60 << " min";
    else s << secs << " s";
    return s.str();
}

std::string pct(double v) {
    if (std::isnan(v)) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(2) << 100.0 * v << "%";
    return s.str();
}

std::string fixed(double v, int digits) {
    if (std::isnan(v)) return "-";
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits) << v;
    return s.str();
}

} // namespace

ProgressPrinter::ProgressPrinter(const Scenario& s, Mode mode)
    : scenario_(s), enabled_(mode != Mode::Off), tty_(isatty(fileno(stderr)) != 0),
      lastAccuracy_(kNaN) {}

void ProgressPrinter::onStart(const RunInfo& info) {
    info_ = info;
    if (!enabled_) return;
    int trainers = 0;
    for (const auto& n : info.nodes)
        if (n.role == "trainer" || n.role == "both") ++trainers;
    std::fprintf(stderr, "%s: %zu nodes (%d trainers), model %s, %zu train / %zu test samples, %d threads\n",
                 info.scenarioName.c_str(), info.nodes.size(), trainers, info.model.c_str(),
                 info.trainSamples, info.testSamples, info.threads);
}

void ProgressPrinter::onAggregation(const AggregationRecord& r) {
    if (r.level != 0) return;
    last_ = r;
    if (!std::isnan(r.testAccuracy)) lastAccuracy_ = r.testAccuracy;
    if (!enabled_) return;
    const double now = wallNow();
    // A terminal gets a live line at up to 10 Hz; a log gets a line per evaluation, at most
    // one a second, so that long runs stay readable.
    if (tty_) {
        if (now - lastDraw_ < 0.1) return;
    } else if (std::isnan(r.testAccuracy) || now - lastDraw_ < 1.0) {
        return;
    }
    lastDraw_ = now;
    draw(r, false);
}

void ProgressPrinter::onEvent(const RunEvent& e) {
    if (e.kind != RunEventKind::Plan) return;
    const PlanPrediction p = parsePlanPrediction(e.detail);
    if (p.any()) prediction_ = p;
}

void ProgressPrinter::draw(const AggregationRecord& r, bool final) {
    std::string rounds = std::to_string(r.round);
    if (scenario_.stop.rounds > 0) rounds += "/" + std::to_string(scenario_.stop.rounds);
    std::fprintf(stderr, "%sround %s  t=%s  loss %s  acc %s  cost %s  energy %s%s",
                 tty_ ? "\r\033[K" : "", rounds.c_str(), humanTime(r.time).c_str(),
                 fixed(r.trainLoss, 4).c_str(), pct(lastAccuracy_).c_str(), fixed(r.cost, 4).c_str(),
                 humanEnergy(r.energyJ).c_str(), (tty_ && !final) ? "" : "\n");
    std::fflush(stderr);
}

void ProgressPrinter::onFinish(const RunSummary&) {
    if (enabled_ && lastDraw_ >= 0 && tty_) draw(last_, true);
}

void ProgressPrinter::printSummary(const RunSummary& s, std::ostream& out) const {
    auto row = [&out](const char* k, const std::string& v) {
        out << "  " << std::left << std::setw(22) << k << v << "\n";
    };
    out << "Run " << toString(s.status) << ": " << s.stopReason << "\n";
    row("test accuracy", pct(s.finalTestAccuracy) + " (best " + pct(s.bestTestAccuracy) + ")");
    row("test loss", fixed(s.finalTestLoss, 4));
    row("train loss", fixed(s.finalTrainLoss, 4));
    row("rounds", std::to_string(s.rounds) + " (" + std::to_string(s.aggregations) + " aggregations)");
    row("virtual time", humanTime(s.virtualTime) + " (" + fixed(s.virtualTime, 3) + " s)");
    row("cost", fixed(s.cost, 4));
    row("energy", humanEnergy(s.energyJ) + energySplitText(s.energyComputeJ, s.energyNetworkJ, s.energyIdleJ));
    row("bytes moved", humanBytes(s.bytes));
    row("samples computed", std::to_string(s.samplesComputed));
    row("work lost", std::to_string(s.lostJobs) + " dispatches");
    row("wall clock", fixed(s.wallSeconds, 2) + " s");
    // The planner's prediction beside the outcome above (a "plan" event's predicted_*).
    if (prediction_.any())
        row("plan predicted", "time " + fixed(prediction_.time, 3) + " s, cost " + fixed(prediction_.cost, 4) +
                                  ", test accuracy " + pct(prediction_.accuracy));
}

} // namespace fog::cli
