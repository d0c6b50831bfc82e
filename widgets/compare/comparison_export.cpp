#include "widgets/compare/comparison_export.h"

#include "widgets/compare/comparison_view.h"
#include "widgets/figures/plot_export.h"
#include "widgets/figures/qcustomplot.h"

#include <QDir>

namespace fog {

ComparisonPlotExport::ComparisonPlotExport(const ComparisonView& like, const QList<qint64>& ids, const QString& dir,
                                           const QString& format, int width, int height, const QFont& font)
    : view_(std::make_unique<ComparisonView>()), dir_(dir), format_(format), width_(width), height_(height) {
    // Light whatever the application's palette: set before anything is drawn, and kept
    // (a widget's own palette is not replaced by a theme switch).
    view_->setAttribute(Qt::WA_DontShowOnScreen);
    view_->setPalette(lightExportPalette());
    // The text in `font`: a plot's axes took the application's font when they were made (in
    // presentation mode half as large again), what is made later takes the widget's.
    view_->setFont(font);
    for (QCustomPlot* p : view_->findChildren<QCustomPlot*>()) {
        for (QCPAxisRect* rect : p->axisRects())
            for (QCPAxis* a : rect->axes()) {
                a->setTickLabelFont(font);
                a->setLabelFont(font);
            }
        if (p->legend) p->legend->setFont(font);
    }
    view_->resize(width, height);
    view_->setStore(like.store());
    view_->setXAxis(like.xAxis());
    view_->setTarget(like.target());
    view_->setTradeOffAtTarget(like.tradeOffMode() == TradeOffMode::AtTarget);
    view_->setSmoothing(like.smoothing());
    view_->setLegendVisible(like.legendVisible());
    if (like.baseline() > 0 && ids.contains(like.baseline())) view_->setBaseline(like.baseline());
    view_->setRuns(ids);
}

ComparisonPlotExport::~ComparisonPlotExport() = default;

int ComparisonPlotExport::total() const { return static_cast<int>(view_->plots().size()); }

bool ComparisonPlotExport::step() {
    const auto plots = view_->plots();
    if (next_ >= plots.size()) return false;
    const auto& [stem, plot] = plots[next_++];
    const QString path = QDir(dir_).filePath(stem + "." + format_);
    QString error;
    if (savePlot(plot, path, width_, height_, &error)) written_ << path;
    else failed_ << error;
    return next_ < plots.size();
}

QPalette lightExportPalette() {
    QPalette p(Qt::white);
    p.setColor(QPalette::Window, Qt::white);
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xf4, 0xf4, 0xf4));
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText, QPalette::ToolTipText})
        p.setColor(role, Qt::black);
    p.setColor(QPalette::ToolTipBase, QColor(0xff, 0xff, 0xe1));
    p.setColor(QPalette::Mid, QColor(0xa0, 0xa0, 0xa0));
    return p;
}

} // namespace fog
