#pragma once
// A testbed run against its prediction (docs/testbed.md), as `fogstudio-cli testbed compare`
// prints it: per round the predicted and the measured round time, the error in %, and the
// bytes of every link (predicted, moved by the processes, counted by the kernel), plotted,
// with the table of the values and, when the processes trained, the training values.

#include "core/testbed/testbed_store.h"

#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

class QCustomPlot;
class QDialog;
class QLabel;
class QTableWidget;

namespace fog {

class RunStore;

/// What the view shows: read from the store by loadTestbedComparison.
struct TestbedComparisonData {
    qint64 measuredRun = 0, predictionRun = 0;
    QString measuredName, predictionName;
    testbed::Comparison comparison;
    /// Empty when the processes did not train.
    std::vector<testbed::TrainingRound> training;
    std::vector<testbed::StoredLink> links;
    QString description; ///< how it was measured (the run's `testbed` event at t = 0)
};

/// A measured run and its prediction from `store`; none (and `why`) when `run` is not a
/// testbed run with a stored prediction.
std::optional<TestbedComparisonData> loadTestbedComparison(const RunStore& store, qint64 run, QString* why = nullptr);

class TestbedComparisonView : public QWidget {
    Q_OBJECT
public:
    explicit TestbedComparisonView(QWidget* parent = nullptr);

    void setData(const TestbedComparisonData& data);
    const TestbedComparisonData& data() const { return data_; }

    /// Predicted and measured round time per round (graphs 0 and 1, x = the round).
    QCustomPlot* timePlot() const { return time_; }
    /// The per-round error in % (one bar per round).
    QCustomPlot* errorPlot() const { return error_; }
    /// Per link and direction (ticks 1, 2, ...: "NAME up", "NAME down"): predicted, payload
    /// and wire bytes in MB (bars 0, 1, 2); hidden when the run stored no link bytes.
    QCustomPlot* bytesPlot() const { return bytes_; }
    /// Round, predicted s, measured s, error %, and the training values when trained.
    QTableWidget* table() const { return table_; }
    QLabel* summary() const { return summary_; }

private:
    TestbedComparisonData data_;
    QLabel* summary_;
    QCustomPlot* time_;
    QCustomPlot* error_;
    QCustomPlot* bytes_;
    QTableWidget* table_;
};

/// Opens a window with the comparison of testbed run `run` (objectName "testbedComparison",
/// deleted when closed); says why in a message box and returns null when it cannot.
QDialog* showTestbedComparison(QWidget* parent, const RunStore& store, qint64 run);

} // namespace fog
