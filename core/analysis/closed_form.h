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
    /// Deterministic communication per round included in `seconds`: the model down and the
    /// update up, latency + bytes / bandwidth per hop (0 without links).
    double communicationSeconds = 0.0;
    /// True when only the model's size on the wire was missing (links exist, the model has
    /// no `wire_bytes` and `wireBytes` was not given): known once the model is built.
    bool needsWireBytes = false;
};

/// Applies to the sync policies with a round barrier (SyncPolicyDescriptor::barrier:
/// fully-sync, n-sync, n-batch-sync) and a uniform selection (all, random-k) over one
/// aggregator whose trainers all have the same exact throughput and exponential or
/// shifted-exponential noise, one local step per dispatch, always online.
///
/// Communication: with links, every trainer must be alone on its link (private: a plain
/// node, a group whose members each have their own link, or `topology.contention` off) and
/// no network interface cap may apply; then each round adds the same deterministic time,
/// latency + bytes / bandwidth down and up (Topology::transfer), provided every trainer's
/// is the same. n-batch-sync has no closed form with communication (a trainer's next
/// gradient waits for a download). `wireBytes`: bytes of one model on the wire; NaN: from
/// the scenario (`model.wire_bytes`, 0 for a timing-only model), needsWireBytes otherwise.
ClosedFormRoundTime closedFormRoundTime(const Scenario& scenario, double wireBytes = kNaN);

/// Bytes of one model on the wire as the engine counts them, from a run's model
/// description ("mlp (159010 parameters)": 4 bytes each) or the scenario's `wire_bytes`;
/// NaN when neither says.
double wireBytesOf(const Scenario& scenario, const std::string& modelDescription);

} // namespace fog
