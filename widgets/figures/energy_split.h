#pragma once
// The energy plot's split: beside each series' cumulative total, one curve per part of it
// (compute, network, idle; AggregationRecord::energyComputeJ ...) in the series' colour,
// dashed, dotted and dash-dotted, named in the legend. A part that stays zero is hidden, and
// so is the split of a series whose energy is all one part (the total says it) or was stored
// before the split existed (NaN). plotMetric and appendMetric call these for PlotKind::Energy.

#include "widgets/figures/run_plots.h"

namespace fog {

enum class EnergyPart { Compute, Network, Idle };
QString energyPartName(EnergyPart part);
/// The part's cumulative value in kJ (the energy plot's unit); NaN when not known.
double energyPartKJ(const AggregationRecord& r, EnergyPart part);

/// Adds the split graphs of every series after the graphs already on `plot` (graph i stays
/// series i). Smoothed as the totals are.
void addEnergySplitGraphs(QCustomPlot* plot, const std::vector<PlotSeries>& series, const PlotOptions& options);
/// Appends new records to series `seriesIndex`'s split graphs (live plots, no smoothing).
void appendEnergySplit(QCustomPlot* plot, int seriesIndex, const std::vector<AggregationRecord>& records,
                       const PlotOptions& options);
/// The split graph of `part` for series `seriesIndex`, or null.
QCPGraph* energySplitGraph(const QCustomPlot* plot, int seriesIndex, EnergyPart part);

} // namespace fog
