#pragma once
// The expected round time beside the measured curve: the closed form where one holds
// (closed_form.h), else a Monte Carlo estimate from a timing-only run of the same scenario
// (no training, model bytes kept on the wire). The studio computes it on a thread of its
// own; the CLI and tests call it directly.

#include "core/analysis/closed_form.h"
#include "core/spec/scenario.h"

#include <atomic>
#include <string>

namespace fog {

struct ExpectedRoundTime {
    enum class Source { None, ClosedForm, MonteCarlo };
    Source source = Source::None;
    double seconds = kNaN;
    /// Monte Carlo: standard error of the mean round time (rounds taken as independent).
    double standardError = kNaN;
    int rounds = 0;            ///< Monte Carlo: global rounds the estimate averages
    std::string label;         ///< "closed form" or "Monte Carlo estimate (300 rounds)"
    std::string detail;        ///< the formula, or what the estimate ran; why there is none
    ClosedFormRoundTime closedForm;
};

struct TheoryOptions {
    int monteCarloRounds = 300;
    /// Bytes of one model on the wire (NaN: from the scenario, else the model is built on
    /// the scenario's data to count its parameters).
    double wireBytes = kNaN;
    /// Trainer samples for the timing-only run when the scenario trains on real data (they
    /// matter with local epochs): 0 = the data set's size over the trainers, as loaded.
    int samplesPerTrainer = 0;
    /// Estimate by Monte Carlo even where the closed form holds (tests compare the two).
    bool forceMonteCarlo = false;
};

/// The scenario's timing-only twin: no model, no data (each trainer holds
/// `samplesPerTrainer` samples), `wireBytes` on the wire, `rounds` global rounds, no
/// accuracy or budget stop. Everything that decides virtual time is kept: nodes given in
/// FLOP/s keep them, with the model's training FLOPs per sample as model.flops_per_sample
/// (s's own, else scenarioTrainingFlops).
Scenario timingOnlyScenario(const Scenario& s, double wireBytes, int samplesPerTrainer, int rounds);

/// Mean virtual time per global round of a timing-only run of `rounds` rounds (NaN and
/// `why` when it cannot run or is cancelled through `cancel`).
ExpectedRoundTime monteCarloRoundTime(const Scenario& timingOnly, const std::atomic<bool>* cancel = nullptr);

/// Closed form if it holds, else a Monte Carlo estimate. May take seconds (loading data
/// to size the model, running the estimate): call it off the GUI thread. `cancel` stops
/// it early (then source None and why "cancelled").
ExpectedRoundTime expectedRoundTimeOf(const Scenario& s, const TheoryOptions& options = {},
                                      const std::atomic<bool>* cancel = nullptr);

} // namespace fog
