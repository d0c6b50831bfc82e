#pragma once
// The live plot panel of the run view: loss, accuracy and round time against virtual time,
// rounds or wall time; cumulative cost and energy against virtual time; the closed-form
// expected round time over the measured one where a formula applies. Fed with batches of
// metrics; replots at a bounded rate.

#include "core/analysis/closed_form.h"
#include "core/analysis/theory.h"
#include "core/system/metrics.h"
#include "core/spec/scenario.h"
#include "widgets/figures/time_markers.h"
#include "widgets/figures/run_plots.h"

#include <QPointF>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QCustomPlot;
class QCPItemStraightLine;
class QCPItemTracer;
class QCPItemText;
class QPushButton;
class QMouseEvent;

namespace fog {

class RunStore;
class TheoryEstimator;

/// The live interventions a stored run's scenario recorded (`after_event` set), as markers.
std::vector<TimeMarker> interventionMarkers(const Scenario& scenario);

class LivePlots : public QWidget {
    Q_OBJECT
public:
    /// The panel's plots, in layout order.
    enum class Panel { Loss, Accuracy, RoundTime, Cost, Energy };
    static constexpr int kPanels = 5;

    explicit LivePlots(QWidget* parent = nullptr);
    ~LivePlots() override;

    /// Clears the plots for a new run of `scenario` (the closed form comes from it).
    void reset(const RunInfo& info, const Scenario& scenario);
    /// Clears the plots: no run shown (another scenario was opened).
    void clear();
    /// Adds a batch of records (any level; plots show level 0). Replots within ~33 ms.
    void append(const std::vector<AggregationRecord>& records);
    /// Shows a finished run from the store; false (plots cleared) if there is no such run.
    bool showStoredRun(const RunStore& store, std::int64_t runId);
    /// Planning policies (ton-plan, calibrated adacoopt) report their prediction as a "plan"
    /// event with "predicted_time_s=T predicted_cost=C [predicted_accuracy=A]": the cost plot
    /// (and the accuracy plot, with A) draws that point beside the measured curve, so plan
    /// and emulated outcome can be compared.
    void appendEvents(const std::vector<RunEvent>& events);
    /// DP-FedAvg's accountant reports a "privacy" event per round ("epsilon=E delta=D ..."):
    /// the accuracy plot draws the epsilon spent on its right axis. The epsilons so far as
    /// (virtual time, epsilon), and the delta they are at (NaN: none reported).
    const std::vector<QPointF>& epsilons() const { return epsilons_; }
    /// The predicted (virtual seconds, cost) of the run's plan; NaN when none was reported.
    QPointF prediction() const { return {predictedTime_, predictedCost_}; }
    /// The same, from what the caller already read.
    void showRun(const QString& label, const Scenario& scenario, const std::vector<AggregationRecord>& metrics);

    /// Aggregation levels present in the records, ascending (0: global rounds; 1, 2, ...: the
    /// aggregators below, as a tiered tree reports them). The loss plot's level selector
    /// offers each of them.
    const std::vector<int>& levels() const { return levels_; }
    /// Also draws the training loss of the level-`level` aggregations on the loss plot
    /// (0: the global rounds only).
    void setShownLevel(int level);
    /// Instants drawn on every panel's time axis with a label (live interventions); reset()
    /// forgets them. A stored run shows the interventions its scenario recorded.
    void addMarkers(const std::vector<TimeMarker>& markers);
    const std::vector<TimeMarker>& markers() const { return markers_; }

    void setXAxis(PlotXAxis x);
    PlotXAxis xAxis() const { return options_.x; }
    void setSmoothing(int window);
    int smoothing() const { return options_.smoothing; }
    void setLogScale(bool on);

    QCustomPlot* plot(Panel p) const { return panels_[static_cast<int>(p)].plot; }
    const std::vector<AggregationRecord>& records() const { return records_; }
    const ClosedFormRoundTime& closedForm() const { return closedForm_; }
    /// The expected round time drawn on the round-time plot: the closed form, a Monte Carlo
    /// estimate once its background run is done (source None meanwhile), or none.
    const ExpectedRoundTime& expected() const { return expected_; }
    /// Whether a Monte Carlo estimate is being computed.
    bool estimating() const;
    /// Rounds of the Monte Carlo estimate where no closed form holds (0: none is made).
    void setMonteCarloRounds(int rounds) { monteCarloRounds_ = rounds; }
    int monteCarloRounds() const { return monteCarloRounds_; }
    /// The line the round-time plot says about the expectation ("Expected round time: ...").
    QString expectedText() const;
    /// A hint above the plots (empty: none), e.g. NodeTimeline::boundHint's.
    void setHint(const QString& text);
    QString hint() const;
    /// The scenario as edited now (no run going): the expectation line then speaks of it,
    /// not of the scenario the plots were last reset with ("no closed form for the fedavg
    /// policy" stayed after switching to fully-sync). When a run is shown whose sync policy
    /// differs, the line names both.
    void setEditedScenario(const Scenario& scenario);

    // ---- the cursor shared by all plots (and, through cursorMoved, the timeline and the
    // link plot): a vertical line at one virtual time with each curve's value there.
    /// Shows the cursor at virtual time `t` on every panel (NaN hides it). Does not emit.
    void setCursorTime(double t);
    double cursorTime() const { return cursorTime_; }
    /// The values the cursor shows on `p` (empty when hidden).
    QString cursorText(Panel p) const;
    /// Fits every panel to its data again (after zooming or panning).
    void resetZoom();
    /// Replots done so far (each bounded-rate refresh counts one per changed plot).
    int replotCount() const { return replots_; }
    /// The read-out the hover tracer shows on `p` (empty when hidden).
    QString hoverText(Panel p) const;
    /// The latest figures shown beside the plots (round, time, cost, accuracy, mean round
    /// time against the closed form).
    QString figuresText() const;
    /// Moves the hover tracer of `p` to the point nearest to widget position `pos` of that
    /// plot (what a mouse move does).
    void hoverAt(Panel p, const QPoint& pos);

Q_SIGNALS:
    /// The mouse moved over a plot to virtual time `t` (NaN: it left).
    void cursorMoved(double t);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct PanelState {
        QCustomPlot* plot = nullptr;
        PlotKind kind = PlotKind::TrainLoss;
        QCPItemTracer* tracer = nullptr;
        QCPItemText* readout = nullptr;
        QCPItemStraightLine* cursor = nullptr;
        QCPItemText* cursorLabel = nullptr;
        bool autoscale = true;
        bool dirty = false;
    };
    void redrawAll();
    void redraw(PanelState& p);
    void autoscale(PanelState& p);
    void flush();
    void schedule();
    PlotOptions optionsFor(const PanelState& p) const;
    void updateClosedFormLabel();
    QString shownExpectedText() const; ///< the line for the run the plots show
    void startTheory(const RunInfo& info, const Scenario& scenario);
    void placeCursor(PanelState& p);
    double keyFor(const PanelState& p, double t) const;
    double timeFor(const PanelState& p, double key) const;

    void updateLevelCombo();
    QComboBox* levelCombo_ = nullptr;
    std::vector<int> levels_{0};
    int level_ = 0;

    PanelState panels_[kPanels];
    std::vector<AggregationRecord> records_;
    PlotOptions options_;
    ClosedFormRoundTime closedForm_;
    ExpectedRoundTime expected_;
    ClosedFormRoundTime edited_;   ///< of the scenario as edited (setEditedScenario)
    std::string editedSync_;       ///< its sync policy ("" before setEditedScenario)
    std::string shownSync_;        ///< the sync policy of the run the plots show ("" none)
    TheoryEstimator* theory_ = nullptr;
    int theoryRequest_ = -1;
    int monteCarloRounds_ = 300;
    double cursorTime_ = kNaN;
    QPushButton* resetZoom_ = nullptr;
    bool needFullRedraw_ = true;
    std::vector<TimeMarker> markers_;
    int replots_ = 0;
    QString runLabel_ = "run";
    double predictedTime_ = kNaN;
    double predictedCost_ = kNaN;
    double predictedAccuracy_ = kNaN;
    QTimer* refresh_ = nullptr;
    QComboBox* xCombo_ = nullptr;
    QSlider* smoothSlider_ = nullptr;
    QLabel* smoothLabel_ = nullptr;
    QCheckBox* logBox_ = nullptr;
    QLabel* closedFormLabel_ = nullptr;
    QLabel* hintLabel_ = nullptr;
    QLabel* figures_ = nullptr; ///< the run's latest figures, in the grid's sixth cell
    void updateFigures();
    /// The right-axis curves: epsilon on the accuracy plot, the megabytes each global round
    /// moved on the round-time plot (docs/studio.md, "Live plots").
    void drawSecondary(PanelState& p);
    void appendSecondary(const std::vector<AggregationRecord>& records);
    void scaleSecondary(PanelState& p);
    std::vector<QPointF> epsilons_;
    double delta_ = kNaN;
    double lastBytes_ = 0.0; ///< cumulative bytes of the last global round appended
};

} // namespace fog
