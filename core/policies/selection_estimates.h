#pragma once
// What selection policies expect of a trainer before it has run: its round trip, its cost
// and its availability, from the topology and the scenario (mean noise, no drift).

#include "core/policies/policy_context.h"

namespace fog {

/// Local steps one dispatch of the scenario's sync policy runs on `trainer`: what its
/// descriptor says (SyncPolicyDescriptor::stepsPerDispatch), else the training section's
/// local work (training.local_steps or local_epochs).
int stepsPerDispatch(const SystemView& e, int trainer);
/// Expected seconds of a dispatch: model down, local steps at mean speed, update up.
double expectedRoundSeconds(const SystemView& e, int trainer);
/// Expected money of a dispatch: the trainer's price while held plus traffic prices.
double expectedRoundCost(const SystemView& e, int trainer);
/// Long-run fraction of time `trainer` is online: a / (a + d) for a Markov on/off chain
/// with mean up time a and mean down time d, the online share of a trace, 1 if always on.
double stationaryAvailability(const SystemView& e, int trainer);

} // namespace fog
