#include "widgets/figures/plot_export.h"

#include <QDir>
#include <QFileInfo>
#include <QSvgGenerator>
#include "widgets/figures/qcustomplot.h"

namespace fog {

bool savePlot(QCustomPlot* plot, const QString& path, int width, int height, QString* error) {
    const QString ext = QFileInfo(path).suffix().toLower();
    // QCustomPlot lays the plot out at the export size only while it draws the file: the
    // widget on screen keeps its own size (resizing it left the window's plots drawn at the
    // export size). Its layout is restored by the replot below.
    bool ok = false;
    if (ext == "png") {
        ok = plot->savePng(path, width, height, 2.0); // 2x for print and high-DPI screens
    } else if (ext == "pdf") {
        ok = plot->savePdf(path, width, height);
    } else if (ext == "svg") {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle("FogStudio plot");
        QCPPainter painter;
        ok = painter.begin(&svg);
        if (ok) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
    } else {
        if (error) *error = path + ": unknown plot format '" + ext + "' (use .png, .svg or .pdf)";
        return false;
    }
    plot->replot(QCustomPlot::rpQueuedReplot);
    if (!ok && error) *error = path + ": could not be written";
    return ok;
}

} // namespace fog
