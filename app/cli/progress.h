#pragma once
// The CLI's view of a run: a live progress line on a terminal, a line per evaluation
// otherwise, and the final table.

#include "core/planning/prediction.h"
#include "core/system/metrics.h"
#include "core/spec/scenario.h"

#include <ostream>

namespace fog::cli {

class ProgressPrinter : public RunObserver {
public:
    enum class Mode { Auto, Off };
    ProgressPrinter(const Scenario& s, Mode mode);

    void onStart(const RunInfo& info) override;
    void onAggregation(const AggregationRecord& r) override;
    /// Keeps the latest plan prediction (core/planning/prediction.h) for the summary.
    void onEvent(const RunEvent& e) override;
    void onFinish(const RunSummary& s) override;
    void printSummary(const RunSummary& s, std::ostream& out) const;

private:
    void draw(const AggregationRecord& r, bool final);

    const Scenario& scenario_;
    bool enabled_;
    bool tty_;
    double lastDraw_ = -1.0;
    AggregationRecord last_;
    double lastAccuracy_;
    RunInfo info_;
    PlanPrediction prediction_;
};

} // namespace fog::cli
