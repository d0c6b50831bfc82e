#pragma once
// The learning side's figures (issue 25) for stored runs, side by side: the megabytes each
// global round moved (a codec, SCAFFOLD's doubled upload) and the privacy spent (DP-FedAvg's
// epsilon per round, from the accountant's "privacy" events). The comparison, the report and
// the exported plots draw them through these functions.

#include "core/system/run_event.h"
#include "widgets/figures/run_plots.h"

#include <QPointF>

#include <vector>

namespace fog {

struct PrivacySeries {
    QString label;
    QColor color;
    std::vector<QPointF> epsilons; ///< (virtual time, epsilon spent)
    double delta = kNaN;           ///< the delta they are at
};

/// The epsilon of each privacy event ("epsilon=E delta=D ...", infinity as "inf") in time
/// order; `delta` gets the last one's delta (NaN: none).
std::vector<QPointF> privacyCurve(const std::vector<RunEvent>& events, double* delta = nullptr);
/// The value of `key=` in an event's detail ("epsilon=1.2 delta=1e-05 ..."); NaN when absent.
double privacyValue(const std::string& detail, const std::string& key);

/// Whether some level-0 record moved bytes.
bool anyBytes(const std::vector<PlotSeries>& series);
/// Megabytes each global round moved (the difference of the cumulative bytes), one stepped
/// curve per series, against virtual time or rounds.
void plotBytesPerRound(QCustomPlot* plot, const std::vector<PlotSeries>& series, const PlotOptions& options = {});
/// Epsilon spent against virtual time, one curve per series with privacy events.
void plotPrivacy(QCustomPlot* plot, const std::vector<PrivacySeries>& series);

} // namespace fog
