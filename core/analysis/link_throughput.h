#pragma once
// Throughput of the links over virtual time, from the LinkUsage spans a run reports
// (closed spans of constant rate): per-link totals, the busiest links first, and averages
// over bins for plotting (a million spans draw as a few hundred points, with the bytes of
// every span counted in the bins it covers).

#include "core/system/metrics.h"

#include <vector>

namespace fog {

/// Bytes each link carried in total (index: LinkUsage::link; sized to cover every link).
std::vector<double> bytesPerLink(const std::vector<LinkUsage>& spans, int linkCount = 0);

/// Link indices by bytes carried, largest first (ties: lower index first); links that
/// carried nothing come last, in index order.
std::vector<int> linksByTraffic(const std::vector<LinkUsage>& spans, int linkCount = 0);

/// Mean throughput (bytes per second) of `link` in `bins` equal bins over [t0, t1): each
/// span adds rate x overlap to the bins it overlaps, divided by the bin's width.
std::vector<double> binnedThroughput(const std::vector<LinkUsage>& spans, int link, double t0, double t1, int bins);

/// The same for several links at once, in one pass over the spans (result[k] for links[k]).
std::vector<std::vector<double>> binnedThroughput(const std::vector<LinkUsage>& spans, const std::vector<int>& links,
                                                  double t0, double t1, int bins);


} // namespace fog
