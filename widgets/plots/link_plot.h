#pragma once
// Throughput over virtual time per link (a direction of a link, or a node's network
// interface: RunInfo::links), from the LinkUsage spans a run with network contention
// reports: live as they come, or a stored run's. A list picks the links shown, busiest
// first (the busiest few are shown until the user picks). Throughput is the mean over bins
// of the visible time span, so a million spans draw as a few hundred points.

#include "core/system/metrics.h"

#include <QWidget>

#include <cstdint>
#include <vector>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QTimer;

namespace fog {

class RunStore;

class LinkThroughputPlot : public QWidget {
    Q_OBJECT
public:
    /// Links shown by default: the busiest this many.
    static constexpr int kDefaultShown = 5;

    explicit LinkThroughputPlot(QWidget* parent = nullptr);
    ~LinkThroughputPlot() override;

    /// Clears the plot for a run with these links (none: the run has no contention).
    void reset(const RunInfo& info);
    void appendUsage(const std::vector<LinkUsage>& spans);
    /// Shows a stored run's links and usage; false (cleared) if there is no such run.
    bool showStoredRun(const RunStore& store, std::int64_t runId);

    /// Links in the list's order (busiest first) and those drawn, by LinkInfo::index.
    std::vector<int> listedLinks() const;
    std::vector<int> shownLinks() const;
    /// Shows exactly these links (the user's choice from then on).
    void setShownLinks(const std::vector<int>& links);
    /// Total bytes each link carried so far.
    const std::vector<double>& bytesPerLink() const { return bytes_; }
    const std::vector<LinkUsage>& spans() const { return spans_; }
    QCustomPlot* plot() const { return plot_; }
    /// The message shown when there is nothing to draw (empty otherwise).
    QString emptyText() const;

    /// The cursor shared with the other plots: a vertical line at virtual time `t` with the
    /// shown links' throughput there (NaN hides it). Does not emit.
    void setCursorTime(double t);
    QString cursorText() const;

Q_SIGNALS:
    void cursorMoved(double t);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void schedule();
    void flush();
    void rebuildList();
    void redraw();
    void placeCursor();
    QString linkName(int link) const;

    QCustomPlot* plot_ = nullptr;
    QListWidget* list_ = nullptr;
    QLabel* summary_ = nullptr;
    QTimer* refresh_ = nullptr;
    QCPItemStraightLine* cursor_ = nullptr;
    QCPItemText* cursorLabel_ = nullptr;
    QCPItemText* empty_ = nullptr;

    std::vector<LinkInfo> links_;
    std::vector<LinkUsage> spans_;
    std::vector<double> bytes_;
    std::vector<int> shown_;
    bool userPicked_ = false;
    bool followX_ = true;
    bool listDirty_ = true;
    double until_ = 0.0;
    double cursorTime_ = 0.0;
    bool cursorOn_ = false;
};

} // namespace fog
