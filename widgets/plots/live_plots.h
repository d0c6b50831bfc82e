#pragma once
// The live plot panel of the run view: loss, accuracy and round time against virtual time,
// rounds or wall time; cumulative cost and energy against virtual time; the closed-form
// expected round time over the measured one where a formula applies. Fed with batches of
// metrics; replots at a bounded rate.

#include "core/analysis/closed_form.h"
#include "core/system/metrics.h"
#include "core/spec/scenario.h"
#include "widgets/plots/run_plots.h"

#include <QPointF>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;
class QCustomPlot;
class QCPItemTracer;
class QCPItemText;
class QMouseEvent;

namespace fog {

class RunStore;

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
    /// Planning policies (ton-plan) report their prediction as a "plan" event with
    /// "predicted_time_s=T predicted_cost=C": the cost plot draws that point beside the
    /// measured curve, so plan and emulated outcome can be compared.
    void appendEvents(const std::vector<RunEvent>& events);
    /// The predicted (virtual seconds, cost) of the run's plan; NaN when none was reported.
    QPointF prediction() const { return {predictedTime_, predictedCost_}; }
    /// The same, from what the caller already read.
    void showRun(const QString& label, const Scenario& scenario, const std::vector<AggregationRecord>& metrics);

    void setXAxis(PlotXAxis x);
    PlotXAxis xAxis() const { return options_.x; }
    void setSmoothing(int window);
    int smoothing() const { return options_.smoothing; }
    void setLogScale(bool on);
    bool logScale() const { return options_.logY; }

    QCustomPlot* plot(Panel p) const { return panels_[static_cast<int>(p)].plot; }
    const std::vector<AggregationRecord>& records() const { return records_; }
    const ClosedFormRoundTime& closedForm() const { return closedForm_; }
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

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    struct PanelState {
        QCustomPlot* plot = nullptr;
        PlotKind kind = PlotKind::TrainLoss;
        QCPItemTracer* tracer = nullptr;
        QCPItemText* readout = nullptr;
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

    PanelState panels_[kPanels];
    std::vector<AggregationRecord> records_;
    PlotOptions options_;
    ClosedFormRoundTime closedForm_;
    bool needFullRedraw_ = true;
    int replots_ = 0;
    QString runLabel_ = "run";
    double predictedTime_ = kNaN;
    double predictedCost_ = kNaN;
    QTimer* refresh_ = nullptr;
    QComboBox* xCombo_ = nullptr;
    QSlider* smoothSlider_ = nullptr;
    QLabel* smoothLabel_ = nullptr;
    QCheckBox* logBox_ = nullptr;
    QLabel* closedFormLabel_ = nullptr;
    QLabel* figures_ = nullptr; ///< the run's latest figures, in the grid's sixth cell
    void updateFigures();
};

} // namespace fog
