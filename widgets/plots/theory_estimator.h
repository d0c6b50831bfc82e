#pragma once
// Computes a scenario's expected round time (core/analysis/theory.h) on a thread of its own:
// the closed form at once where it holds, else a Monte Carlo estimate from a timing-only run
// of a few hundred rounds. A new request cancels the one under way (the scenario changed);
// results of cancelled requests are dropped. The last result per scenario is kept, so a
// re-run of the same scenario costs nothing.

#include "core/analysis/theory.h"

#include <QObject>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

class QThread;

namespace fog {

class TheoryEstimator : public QObject {
    Q_OBJECT
public:
    explicit TheoryEstimator(QObject* parent = nullptr);
    /// Cancels what runs and waits for its thread.
    ~TheoryEstimator() override;

    /// Starts estimating for `scenario` (cancelling any earlier request). Returns the
    /// request's number; `estimated` reports it unless a later request came first.
    int request(const Scenario& scenario, const TheoryOptions& options);
    /// Cancels the request under way (nothing will be reported for it).
    void cancel();
    bool busy() const { return !running_.empty(); }
    int current() const { return generation_; }

Q_SIGNALS:
    void estimated(int request, const fog::ExpectedRoundTime& result);

private:
    struct Job;
    void reap();
    std::vector<std::pair<QThread*, std::shared_ptr<Job>>> running_;
    int generation_ = 0;
    std::string cachedKey_;
    ExpectedRoundTime cached_;
};

} // namespace fog

Q_DECLARE_METATYPE(fog::ExpectedRoundTime)
