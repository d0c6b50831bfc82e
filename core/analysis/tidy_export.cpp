#include "core/analysis/tidy_export.h"

#include "core/analysis/analysis.h"
#include "core/util/csv_cell.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace fog {

namespace {

std::string csvText(const std::string& s) {
    return csvCell(s); // quoted, and a formula defused (core/util/csv_cell.h)
}

std::string num(double v) {
    if (std::isnan(v)) return "";
    std::ostringstream s;
    s << std::setprecision(10) << v;
    return s.str();
}

std::string jsonText(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

/// The cells of one row, as (is text, value) so both writers share the column order.
std::vector<std::pair<bool, std::string>> cells(const StoredRun& run, const AggregationRecord& r) {
    return {{false, std::to_string(run.id)},
            {true, run.name},
            {false, std::to_string(run.sweepId)},
            {true, run.sweepConfig},
            {false, std::to_string(run.repeat)},
            {false, std::to_string(run.seed)},
            {false, std::to_string(r.round)},
            {false, std::to_string(r.level)},
            {true, r.aggregator},
            {false, num(r.time)},
            {false, num(r.wallSeconds)},
            {false, num(r.trainLoss)},
            {false, num(r.testLoss)},
            {false, num(r.testAccuracy)},
            {false, std::to_string(r.participants)},
            {false, num(r.learningRate)},
            {false, num(r.cost)},
            {false, num(r.energyJ)},
            {false, num(r.energyComputeJ)},
            {false, num(r.energyNetworkJ)},
            {false, num(r.energyIdleJ)},
            {false, num(r.bytes)},
            {false, num(r.meanStaleness)},
            {false, std::to_string(r.maxStaleness)}};
}

} // namespace

const std::vector<std::string>& metricsColumns() {
    static const std::vector<std::string> cols = {
        "run_id",     "run_name",     "sweep_id",  "sweep_config",  "repeat",        "seed",     "round",
        "level",      "aggregator",   "virtual_time_s", "wall_s",   "train_loss",    "test_loss",
        "test_accuracy", "participants", "learning_rate", "cost",   "energy_j",
        "energy_compute_j", "energy_network_j", "energy_idle_j", "bytes",
        "mean_staleness", "max_staleness"};
    return cols;
}

void writeMetricsCsv(const std::vector<RunWithMetrics>& runs, std::ostream& out) {
    const auto& cols = metricsColumns();
    for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
    out << "\n";
    for (const auto& rm : runs)
        for (const auto& r : rm.metrics) {
            const auto row = cells(rm.run, r);
            for (std::size_t i = 0; i < row.size(); ++i)
                out << (i ? "," : "") << (row[i].first ? csvText(row[i].second) : row[i].second);
            out << "\n";
        }
}

void writeMetricsJson(const std::vector<RunWithMetrics>& runs, std::ostream& out) {
    const auto& cols = metricsColumns();
    out << "[";
    bool first = true;
    for (const auto& rm : runs)
        for (const auto& r : rm.metrics) {
            const auto row = cells(rm.run, r);
            out << (first ? "\n  {" : ",\n  {");
            first = false;
            for (std::size_t i = 0; i < row.size(); ++i) {
                out << (i ? ", " : "") << jsonText(cols[i]) << ": ";
                if (row[i].first)
                    out << jsonText(row[i].second);
                else
                    out << (row[i].second.empty() ? "null" : row[i].second);
            }
            out << "}";
        }
    out << "\n]\n";
}

void writeSummaryCsv(const std::vector<RunWithMetrics>& runs, double target, std::ostream& out) {
    out << "run_id,run_name,sweep_id,sweep_config,repeat,seed,status,rounds,virtual_time_s,cost,energy_j,"
           "energy_compute_j,energy_network_j,energy_idle_j,bytes,final_test_accuracy,best_test_accuracy,final_test_loss,target_accuracy,"
           "time_to_target_s,cost_to_target,energy_to_target_j\n";
    for (const auto& rm : runs) {
        const auto& s = rm.run.summary;
        const auto reach = reachTarget(rm.metrics, target);
        out << rm.run.id << "," << csvText(rm.run.name) << "," << rm.run.sweepId << "," << csvText(rm.run.sweepConfig)
            << "," << rm.run.repeat << "," << rm.run.seed << "," << csvText(rm.run.status) << "," << s.rounds << ","
            << num(s.virtualTime) << "," << num(s.cost) << "," << num(s.energyJ) << "," << num(s.energyComputeJ) << ","
            << num(s.energyNetworkJ) << "," << num(s.energyIdleJ) << "," << num(s.bytes) << ","
            << num(s.finalTestAccuracy) << "," << num(s.bestTestAccuracy) << "," << num(s.finalTestLoss) << ","
            << num(target) << "," << (reach ? num(reach->time) : "") << "," << (reach ? num(reach->cost) : "")
            << "," << (reach ? num(reach->energyJ) : "") << "\n";
    }
}

} // namespace fog
