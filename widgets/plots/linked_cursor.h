#pragma once
// One cursor over every run plot: a mouse over the live plots, the node timeline or the
// link throughput plot shows the same virtual time on all of them. PlotCursor is the same
// cursor for any set of QCustomPlots sharing one x axis (the comparison view's curves).

#include <QList>
#include <QObject>
#include <QPointer>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

class QCPItemStraightLine;
class QCPItemText;
class QCustomPlot;

namespace fog {

class LinkThroughputPlot;
class LivePlots;
class NodeTimeline;

/// Connects the three views' cursors (any may be null).
void linkCursors(LivePlots* plots, NodeTimeline* timeline, LinkThroughputPlot* links);

/// "name: value" of every named curve of `plot` at `key` (its last point at or before it),
/// raw copies behind smoothed curves skipped: the cursor's read-out lines.
QStringList cursorValueLines(const QCustomPlot* plot, double key);

/// A dotted vertical line at one key on each of `plots`, labelled with the heading and
/// the value of each curve there. Hovering any plot moves it on all (near a point it snaps
/// to the point); leaving hides it.
class PlotCursor : public QObject {
    Q_OBJECT
  public:
    PlotCursor(const QList<QCustomPlot*>& plots, QObject* parent);
    /// The first line of the read-out for a key, e.g. "t = 12.50 s" (default: the number).
    void setHeading(std::function<QString(double)> heading) { heading_ = std::move(heading); }
    /// Draws the cursor again after the plots were cleared (plotMetric removes all items).
    void restore();
    /// Shows the cursor at `key` on every plot (NaN hides it). Does not emit.
    void setKey(double key);
    double key() const { return key_; }
    /// The read-out shown on plot `i` (empty while hidden).
    QString text(int i) const;
    /// Where that read-out is drawn, in widget pixels of plot `i` (empty while hidden).
    QRectF labelRect(int i) const;
    /// The key a mouse at pixel x of plot `i` points to (snapped to a point within 8 px).
    double keyAtPixel(int i, double x) const;

  Q_SIGNALS:
    void moved(double key);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    struct Items {
        QCustomPlot* plot = nullptr;
        QPointer<QCPItemStraightLine> line; ///< null once the plot cleared its items
        QPointer<QCPItemText> label;
    };
    void place(Items& it);
    std::vector<Items> items_;
    std::function<QString(double)> heading_;
    double key_;
};

} // namespace fog
