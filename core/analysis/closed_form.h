#pragma once
// Closed-form expected round times of the synchronous policies (papers.md): n trainers whose
// step times are (shifted) exponential and no communication. The live plots draw them over
// the measured round times; users check the emulator against theory with them.

#include "core/policies/policy_descriptor.h" // BarrierKind: which policies have a barrier
#include "core/system/metrics.h"
#include "core/spec/scenario.h"

#include <string>

namespace fog {

/// H_n = 1 + 1/2 + ... + 1/n (H_0 = 0).
double harmonicNumber(int n);

/// Mean round time for n trainers with step time shift + Exp(rate lambda). `k` is the k of
/// FirstK or the m of FirstBatches. NaN for invalid parameters (n < 1, lambda <= 0, k out of
/// range).
double expectedRoundTime(BarrierKind kind, int n, int k, double lambda, double shift = 0.0);

/// Whether the scenario's round time has a closed form, its value, and the formula as text
/// (e.g. "H_8 / λ = 2.718 s"); `why` says what rules it out otherwise.
struct ClosedFormRoundTime {
    bool applies = false;
    double seconds = kNaN;
    std::string formula;
    std::string why;
};

/// Applies to the sync policies with a round barrier (SyncPolicyDescriptor::barrier:
/// fully-sync, n-sync, n-batch-sync) and a uniform selection (all, random-k) over one
/// aggregator whose trainers all
/// have the same exact throughput and exponential or shifted-exponential noise, one local
/// step per dispatch, always online, with no link declared (instantaneous communication).
ClosedFormRoundTime closedFormRoundTime(const Scenario& scenario);

} // namespace fog
