#pragma once
// The exponential-growth schedule of the number of workers (ToN 2022), kept apart from
// its selection policy so tests and planners can use it.

namespace fog {

/// n_t = min(n0 * growth^floor((t - 1) / period), cap) for round t >= 1 (cap > 0).
int expGrowthCount(int round, int n0, int period, double growth, int cap);

} // namespace fog
