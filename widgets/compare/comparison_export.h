#pragma once
// The studio's Export Plots: the comparison's figures written as files (widgets/figures/plot_export.h).

#include <QFont>
#include <QList>
#include <QPalette>
#include <QStringList>
#include <memory>

namespace fog {

class ComparisonView;

/// The colours of exported figures: black on white.
QPalette lightExportPalette();

/// The studio's Export Plots: the comparison's figures for some runs, drawn by a comparison
/// of its own with the settings of the one on screen (target, trade-off mode, x axis,
/// smoothing, legend, baseline) but always in light colours (exports are for print and
/// papers, whatever the screen's theme), so the plots on screen keep their size, ticks and
/// colours. One figure per step(), so that the window can keep its event loop going.
class ComparisonPlotExport {
public:
    ComparisonPlotExport(const ComparisonView& like, const QList<qint64>& ids, const QString& dir,
                         const QString& format, int width = 900, int height = 600, const QFont& font = QFont());
    ~ComparisonPlotExport();
    /// How many figures there are to write.
    int total() const;
    /// Writes the next figure; false once every figure is written.
    bool step();
    const QStringList& written() const { return written_; }
    const QStringList& failed() const { return failed_; }
    /// The comparison that draws the figures (for tests).
    const ComparisonView& view() const { return *view_; }

private:
    std::unique_ptr<ComparisonView> view_;
    QString dir_, format_;
    int width_, height_;
    int next_ = 0;
    QStringList written_, failed_;
};

} // namespace fog
