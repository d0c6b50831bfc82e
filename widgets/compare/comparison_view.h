#pragma once
// The comparison of stored runs: their curves overlaid on shared axes side by side (test
// accuracy, training loss, cost), the time-cost trade-off scatter with its Pareto front,
// the scenario of the run clicked, and a summary table with time / cost / energy to a
// target accuracy (mean ± 95% CI over the repeats of a sweep configuration). Each run has
// one colour in every pane. The curve plots share a hover cursor (widgets/plots/linked_cursor),
// a smoothing window (raw curves faint behind the smoothed ones) and zoom/pan with a reset.
// Export is left to the window, through signals.

#include "widgets/compare/comparison_summary.h"
#include "widgets/figures/run_plots.h"

#include <QList>
#include <QPointF>
#include <QWidget>

#include <vector>

class QBoxLayout;
class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QSpinBox;
class QTableWidget;
class QTabWidget;
class QToolButton;

namespace fog {

class ClusterComparison;
class PlotCursor;
class RunStore;

class ComparisonView : public QWidget {
    Q_OBJECT
public:
    /// Columns of the summary table.
    enum Column { RunCol, StatusCol, RoundsCol, FinalAccCol, BestAccCol, TimeToTargetCol, CostToTargetCol,
                  EnergyToTargetCol, TimeCol, CostCol, EnergyCol, ParetoCol, ColumnCount };
    /// Summary cells keep their number (accuracies as fractions, energy in J; for repeat
    /// rows the mean) under this role; the CI half-width under CiRole; the run id under IdRole.
    static constexpr int ValueRole = Qt::UserRole + 1;
    static constexpr int CiRole = Qt::UserRole + 2;
    static constexpr int IdRole = Qt::UserRole + 3;

    explicit ComparisonView(QWidget* parent = nullptr);

    /// Not owned.
    void setStore(RunStore* store);
    RunStore* store() const { return store_; }

    /// The compared runs in display order (the baseline first when pinned); run i has
    /// colour seriesColor(i) everywhere.
    QList<qint64> runIds() const;
    const std::vector<ComparedRun>& runs() const { return runs_; }
    QColor colorOf(qint64 id) const;
    /// Whether repeats are drawn as one curve per configuration (mean and 95% CI band):
    /// when some configuration has repeats and "Mean of repeats" is on (the default).
    bool grouped() const;
    /// The colour index of run i: its configuration's when grouped, else its own.
    int colorIndex(std::size_t run) const;
    qint64 baseline() const { return baseline_; }
    qint64 selectedRun() const { return selected_; }
    double target() const;
    PlotXAxis xAxis() const { return x_; }
    bool legendVisible() const;
    /// What the trade-off scatter and the Pareto column compare (one definition for both).
    TradeOffMode tradeOffMode() const;
    /// Each run's figures at the current target (core/analysis/run_figures), in display order.
    std::vector<RunFigures> figures() const;
    /// The label a run has in the list, legends and table ("#id what differs"); empty if unknown.
    QString runLabel(qint64 id) const;

    QCustomPlot* curvePlot(PlotKind kind) const; ///< TestAccuracy, TrainLoss or Cost
    /// The hover cursor shared by the three curve plots (keys on the x axis shown).
    PlotCursor* cursor() const { return cursor_; }
    /// Moving-average window of the curves, in points (1 = raw).
    int smoothing() const;
    QCustomPlot* tradeOffPlot() const { return trade_; }
    /// MB per round and epsilon spent, one curve per run (or configuration colour), in tabs
    /// beside the cost plot; each tab shows only when some run has that figure.
    QCustomPlot* bytesPlot() const { return bytes_; }
    QCustomPlot* privacyPlot() const { return privacy_; }
    QTabWidget* costTabs() const { return costTabs_; }
    /// The four plots, in display order, with a file-name stem each (for exporting them).
    QList<QPair<QString, QCustomPlot*>> plots() const;
    QTableWidget* summaryTable() const { return table_; }
    /// The cluster runs' pane (completion-time CDFs, mean and p95 with CIs per scheduler);
    /// shown only while cluster runs are compared.
    ClusterComparison* clusterComparison() const { return cluster_; }
    QString scenarioText() const;
    QString selectedSummaryText() const;

    /// The run whose scatter point is nearest to `pixel` (within a few pixels), else 0.
    qint64 runAtPixel(const QPointF& pixel) const;
    /// Where a run's point is drawn on the scatter, in widget pixels of tradeOffPlot().
    QPointF pointPixel(qint64 id) const;

public Q_SLOTS:
    /// Compares these runs (plus the baseline). Runs missing from the store are skipped.
    void setRuns(const QList<qint64>& ids);
    void addRuns(const QList<qint64>& ids);
    void removeRun(qint64 id);
    /// 0 unpins; the baseline is always part of the comparison while pinned.
    void setBaseline(qint64 id);
    /// Shows this run's scenario and summary and highlights it in every pane.
    void selectRun(qint64 id);
    void setTarget(double accuracy);
    void setXAxis(PlotXAxis x);
    /// The scatter shows each run's time and cost to the target accuracy (true) or in all.
    void setTradeOffAtTarget(bool atTarget);
    /// The legend of the accuracy plot (on by default; exported figures follow it).
    void setLegendVisible(bool on);
    /// Smooths the curves over `window` points (1..50), the raw ones faint behind them.
    void setSmoothing(int window);
    /// Fits every plot to its data again (after zooming or panning).
    void resetZoom();
    /// Re-reads every compared run from the store (e.g. after a run finished).
    void reload();
    /// Forgets deleted runs.
    void runsDeleted(const QList<qint64>& ids);
    /// Opens the picker over the store and adds what the user chose.
    void pickRuns();

Q_SIGNALS:
    void exportPlotsRequested(const QList<qint64>& ids);
    void exportReportRequested(const QList<qint64>& ids);
    void runSelected(qint64 id);
    /// Double-click on a run in the list or the table: open it.
    void runActivated(qint64 id);
    void runsChanged(const QList<qint64>& ids);

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void rebuild(bool reloadAll);
    void redrawCurves();
    /// The learning side's plots (issue 25): MB per round, and epsilon for DP-FedAvg runs.
    void redrawLearning();
    void drawForkMarkers();
    void redrawTradeOff();
    void fillTable();
    void styleSelection();
    void fillList();
    void showDetails();
    void updateButtons();
    int indexOf(qint64 id) const;
    QString labelOf(const ComparedRun& r) const;
    void renameRun(qint64 id);

    RunStore* store_ = nullptr;
    QList<qint64> chosen_;
    qint64 baseline_ = 0;
    qint64 selected_ = 0;
    PlotXAxis x_ = PlotXAxis::VirtualTime;
    std::vector<ComparedRun> runs_;
    std::vector<QString> labels_; ///< per run: what tells it apart (core/analysis/run_labels)

    QListWidget* list_;
    /// The tool bar's two groups (runs and axes; target and export), in one row or two.
    void arrangeTools();
    QWidget* toolsA_ = nullptr;
    QWidget* toolsB_ = nullptr;
    QBoxLayout* toolsBar_ = nullptr;
    QToolButton* addButton_;
    QToolButton* removeButton_;
    QComboBox* xCombo_;
    QToolButton* legendButton_;
    QSpinBox* smoothSpin_ = nullptr;
    QToolButton* resetZoom_;
    PlotCursor* cursor_ = nullptr;
    QDoubleSpinBox* targetSpin_;
    QComboBox* tradeMode_; ///< trade-off at the end of the runs, or at the target accuracy
    QToolButton* exportPlots_;
    QToolButton* exportReport_;
    QCustomPlot* acc_;
    QCustomPlot* loss_;
    QCustomPlot* cost_;
    QCustomPlot* trade_;
    QCustomPlot* bytes_;   ///< MB per round (a tab beside the cost)
    QCustomPlot* privacy_; ///< epsilon spent (a tab beside the cost, for DP-FedAvg runs)
    QTabWidget* costTabs_;
    bool hasBytes_ = false, hasPrivacy_ = false;
    QLabel* runInfo_;
    QPlainTextEdit* yaml_;
    QTableWidget* table_;
    QLabel* tradeTitle_;
    QLabel* paretoNote_; ///< the Pareto definition, stated under the table
    QPointF pressPos_;
    bool restyling_ = false;
    bool restylePending_ = false;
    ClusterComparison* cluster_;
    QWidget* curvesPane_;
    QWidget* tradeBox_;
    QWidget* tableBox_;
    bool anyTraining_ = true, anyCluster_ = false;
    // Repeats of one configuration drawn as one curve (mean, 95% CI band).
    QToolButton* meanButton_ = nullptr;
    std::vector<std::vector<std::size_t>> groups_; ///< configuration -> its runs' indices
    std::vector<int> groupOf_;                     ///< run index -> configuration
    bool tradeModeAuto_ = true;                    ///< the trade-off mode follows the runs until chosen
    void groupRepeats();
    void drawGroupedCurves(QCustomPlot* plot, PlotKind kind, const PlotOptions& options);
    QString groupLabel(int group) const;
    void loadClusterRuns();
};

} // namespace fog
