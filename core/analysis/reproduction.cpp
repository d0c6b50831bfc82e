#include "core/analysis/reproduction.h"

#include "core/util/numerics.h"
#include "core/util/text.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace fog {

namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool sameValue(double a, double b) { return (std::isnan(a) && std::isnan(b)) || sameBits(a, b); }

std::string cpuOf(const std::string& record) {
    const auto at = record.find("; cpu=");
    if (at == std::string::npos) return "";
    const auto end = record.find("; mode=", at);
    return record.substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
}

} // namespace

KernelMatch kernelMatch(const std::string& storedNumerics, bool fastPath) {
    const std::string key = kernelKeyOf(storedNumerics);
    if (key.empty() || (fastPath && fastKernelsOf(storedNumerics).empty())) return KernelMatch::Unknown;
    if (key != kernelSet().key()) return KernelMatch::Other;
    return !fastPath || fastKernelsOf(storedNumerics) == fastKernels() ? KernelMatch::Same : KernelMatch::Other;
}

std::string kernelMatchNote(const std::string& storedNumerics, const std::string& what, bool fastPath) {
    const std::string tolerance = "training values (losses, accuracies, the model) compared within " +
                                  shortNumber(kTrainingRelTolerance) + " relative (accuracy within " +
                                  shortNumber(kAccuracyAbsTolerance) + "), everything the virtual clock computes exactly";
    switch (kernelMatch(storedNumerics, fastPath)) {
    case KernelMatch::Same:
        return "";
    case KernelMatch::Unknown:
        return what + " was stored before FogStudio recorded its kernels, so they are unknown: " + tolerance;
    case KernelMatch::Other:
        break;
    }
    const std::string fast = fastPath ? "; fast path " + fastKernelsOf(storedNumerics) : std::string();
    const std::string fastHere = fastPath ? "; fast path " + fastKernels() : std::string();
    return what + " was computed with other kernels (" + kernelKeyOf(storedNumerics) + fast + " on " +
           cpuOf(storedNumerics) + "; this machine: " + kernelSet().key() + fastHere + " on " + cpuModel() +
           "): " + tolerance;
}

std::string rowDifference(const AggregationRecord& p, const AggregationRecord& r, bool exactTraining) {
    if (p.round != r.round || p.level != r.level || p.aggregator != r.aggregator || p.participants != r.participants ||
        p.maxStaleness != r.maxStaleness)
        return "round/level/aggregator/participants " + std::to_string(p.round) + "/" + std::to_string(p.level) + "/" +
               p.aggregator + "/" + std::to_string(p.participants) + " stored, " + std::to_string(r.round) + "/" +
               std::to_string(r.level) + "/" + r.aggregator + "/" + std::to_string(r.participants) + " now";
    const struct {
        const char* name;
        double stored, now;
        int training; // 0 clock, 1 loss, 2 accuracy
    } fields[] = {
        {"time", p.time, r.time, 0},
        {"train loss", p.trainLoss, r.trainLoss, 1},
        {"learning rate", p.learningRate, r.learningRate, 0},
        {"cost", p.cost, r.cost, 0},
        {"energy", p.energyJ, r.energyJ, 0},
        {"bytes", p.bytes, r.bytes, 0},
        {"mean staleness", p.meanStaleness, r.meanStaleness, 0},
        {"test loss", p.testLoss, r.testLoss, 1},
        {"test accuracy", p.testAccuracy, r.testAccuracy, 2},
    };
    for (const auto& f : fields) {
        if (sameValue(f.stored, f.now)) continue;
        if (f.training != 0 && !exactTraining && trainingValuesAgree(f.stored, f.now, f.training == 2)) continue;
        return std::string(f.name) + " " + exactNumber(f.stored) + " stored, " + exactNumber(f.now) + " now" +
               (f.training != 0 && !exactTraining ? " (beyond the cross-kernel tolerance)" : "");
    }
    return "";
}

RowsComparison compareRows(const std::vector<AggregationRecord>& stored, const std::vector<AggregationRecord>& now,
                           bool exactTraining, bool prefixOnly) {
    RowsComparison c;
    const std::size_t n = std::min(stored.size(), now.size());
    for (std::size_t i = 0; i < n; ++i) {
        const AggregationRecord& p = stored[i];
        const AggregationRecord& r = now[i];
        ++c.rowsCompared;
        for (const auto& [a, b] : {std::pair{p.trainLoss, r.trainLoss}, std::pair{p.testLoss, r.testLoss}})
            if (!std::isnan(a) && !std::isnan(b) && a != b)
                c.maxTrainingRelative =
                    std::max(c.maxTrainingRelative, std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b)));
        if (!std::isnan(p.testAccuracy) && !std::isnan(r.testAccuracy))
            c.maxAccuracyAbsolute = std::max(c.maxAccuracyAbsolute, std::fabs(p.testAccuracy - r.testAccuracy));
        if (!rowDifference(p, r, true).empty()) c.identical = false;
        if (c.firstDifference.empty())
            if (std::string d = rowDifference(p, r, exactTraining); !d.empty())
                c.firstDifference = "metric row " + std::to_string(i + 1) + " (round " + std::to_string(r.round) + "): " + d;
    }
    if (stored.size() != now.size()) {
        c.identical = false;
        if (!prefixOnly && c.firstDifference.empty())
            c.firstDifference = std::to_string(stored.size()) + " metric rows stored, " + std::to_string(now.size()) + " now";
    }
    return c;
}

bool modelsAgree(const std::vector<float>& a, const std::vector<float>& b, bool exact, std::string& what) {
    if (a.size() != b.size()) {
        what = "the model has " + std::to_string(a.size()) + " parameters stored, " + std::to_string(b.size()) + " now";
        return false;
    }
    std::size_t differ = 0, first = 0;
    double diff2 = 0, norm2 = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        norm2 += static_cast<double>(a[i]) * a[i];
        if (std::memcmp(&a[i], &b[i], sizeof(float)) == 0) continue;
        if (differ++ == 0) first = i;
        const double d = static_cast<double>(a[i]) - b[i];
        diff2 += d * d;
    }
    if (differ == 0) return true;
    const double relative = std::sqrt(diff2) / std::max(std::sqrt(norm2), 1e-300);
    if (!exact && std::isfinite(relative) && relative <= kTrainingRelTolerance) return true;
    what = "the model differs in " + std::to_string(differ) + " of " + std::to_string(a.size()) +
           " parameters (first: index " + std::to_string(first) + ", stored " + exactNumber(a[first]) + ", now " +
           exactNumber(b[first]) + "; relative norm of the difference " + shortNumber(relative) + ")";
    return false;
}

} // namespace fog
