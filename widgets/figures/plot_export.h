#pragma once
// Saving QCustomPlot figures as PNG, SVG or PDF, offscreen (no display needed).

#include <QString>

class QCustomPlot;

namespace fog {

/// Format from the file's extension (.png, .svg, .pdf). Returns false and fills `error`.
bool savePlot(QCustomPlot* plot, const QString& path, int width, int height, QString* error = nullptr);

} // namespace fog
