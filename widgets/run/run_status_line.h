#pragma once
// The status bar's word on the run: what it is doing, and when it stands still, why:
// "Paused: accuracy 78.4% >= 78% at round 7", "Paused after round 7 (t = 12.5 s)",
// "Finished: target accuracy reached", "Stopped by you at round 3". It listens to a run
// controller; the main window only puts it in the status bar.

#include "core/system/metrics.h"
#include "widgets/run/run_controller.h"

#include <QLabel>

namespace fog {

class RunStatusLine : public QLabel {
    Q_OBJECT
public:
    explicit RunStatusLine(RunController* controller, QWidget* parent = nullptr);

    /// The text for a run that ended with `summary` ("Finished: <stop reason>").
    static QString endText(const RunSummary& summary);
    /// "1 round", "2 rounds".
    static QString roundsText(long long rounds);

private:
    void onState(RunController::State state);

    RunController* controller_;
    QString ended_; ///< the last run's end, shown until the next start
};

} // namespace fog
