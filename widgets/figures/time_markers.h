#pragma once
// Markers on a plot's time axis: a vertical line at an instant with a short label at the
// top (an intervention "edge-1 2 Mbit/s", a fork "fork at 600 s"). The live plots draw the
// run's applied interventions with them; the comparison view draws a fork's branching point.

#include <QColor>
#include <QString>

#include <cstdint>
#include <vector>

class QCustomPlot;

namespace fog {

class RunStore;

struct TimeMarker {
    double time = 0.0; ///< virtual seconds
    QString label;
    std::int64_t run = 0; ///< the run it belongs to (a fork's marker: the fork), 0: none
};

/// The colour markers are drawn in (an orange-red readable on light and dark backgrounds).
QColor markerColor();

/// Adds a dashed vertical line at x = `key` with `label` at the top of the axis rect (the
/// second and third labels of a plot one and two lines lower, so that close ones stay legible).
/// The items carry the property "fogMarker" = true (tests and exporters find them by it).
void addTimeMarker(QCustomPlot* plot, double key, const QString& label, const QColor& color = markerColor());

/// The branching points among the runs `ids`: one marker per fork whose parent is also
/// among them ("fork of #12 at 600 s"), its run the fork. Store errors give none.
std::vector<TimeMarker> forkMarkers(const RunStore& store, const std::vector<std::int64_t>& ids);

/// Markers of `plot` (the labels, in the order they were added).
QStringList timeMarkerLabels(const QCustomPlot* plot);

} // namespace fog
