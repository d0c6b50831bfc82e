#pragma once
// Metrics as tidy tables: one row per run x aggregation, ready for pandas or R.

#include "core/store/run_store.h"

#include <ostream>
#include <vector>

namespace fog {

struct RunWithMetrics {
    StoredRun run;
    std::vector<AggregationRecord> metrics;
};

/// CSV with a header line; text fields quoted as RFC 4180 says; empty cells for NaN.
void writeMetricsCsv(const std::vector<RunWithMetrics>& runs, std::ostream& out);
/// A JSON array of row objects with the same columns (null for NaN).
void writeMetricsJson(const std::vector<RunWithMetrics>& runs, std::ostream& out);
/// One row per run: its summary figures and the time/cost/energy to `target` accuracy.
void writeSummaryCsv(const std::vector<RunWithMetrics>& runs, double target, std::ostream& out);

/// The columns of writeMetricsCsv, in order.
const std::vector<std::string>& metricsColumns();

} // namespace fog
