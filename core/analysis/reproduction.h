#pragma once
// Comparing a run computed again (a re-run, a fork's replay, a golden transcript) with the
// stored one, by the reproducibility rule of docs/reproducibility.md:
// - what the virtual clock computes (round, level, aggregator, participants, times, learning
//   rate, cost, energy, bytes, staleness) must be identical on every machine;
// - training values (train loss, test loss, test accuracy, model parameters) are identical
//   when both runs used the same kernel set (core/util/numerics.h), and agree within the
//   stated tolerance when they did not.

#include "core/system/metrics.h"

#include <string>
#include <vector>

namespace fog {

/// How a stored run's kernels relate to this process's.
enum class KernelMatch {
    Same,    ///< the same kernel set: training is bit-identical
    Other,   ///< another kernel set (another CPU, or other kernels chosen): compared by the rule
    Unknown, ///< stored before FogStudio recorded kernels (schema < 6): compared by the rule
};
/// `fastPath`: the run may train on the fast path (training.backend fast or auto), whose
/// library and kernels must match too.
KernelMatch kernelMatch(const std::string& storedNumerics, bool fastPath = false);

/// A sentence for the user: "" for Same; else which kernels the stored run used and which
/// this machine uses, and that training values are compared within the tolerance.
std::string kernelMatchNote(const std::string& storedNumerics, const std::string& what, bool fastPath = false);

/// The first difference between a stored metric row and the same row computed again, "" when
/// they agree: clock fields exactly, training fields exactly or by the rule.
std::string rowDifference(const AggregationRecord& stored, const AggregationRecord& now, bool exactTraining);

/// Whole runs: the rows in order.
struct RowsComparison {
    std::size_t rowsCompared = 0;
    bool identical = true;          ///< every value bit for bit (NaN = NaN)
    std::string firstDifference;    ///< "" when the rule holds
    double maxTrainingRelative = 0; ///< largest relative difference of a loss
    double maxAccuracyAbsolute = 0; ///< largest absolute difference of an accuracy
    bool agrees() const { return firstDifference.empty(); }
};
/// `now` may be shorter or longer than `stored` only when `prefixOnly` (a stored run that was
/// stopped or interrupted: the rows it has).
RowsComparison compareRows(const std::vector<AggregationRecord>& stored, const std::vector<AggregationRecord>& now,
                           bool exactTraining, bool prefixOnly = false);

/// Model parameters: bit for bit when exact; else ||a - b|| <= kTrainingRelTolerance * ||a||.
/// On a difference, `what` says where and how much.
bool modelsAgree(const std::vector<float>& stored, const std::vector<float>& now, bool exact, std::string& what);

} // namespace fog
