#pragma once
// Presentation mode (View ▸ Presentation Mode, F11): large fonts and thick lines for a
// projector. The application font grows by half, every plot's tick labels, axis labels and
// legends with it, and curves are drawn twice as thick; the canvases' text (node boxes,
// message tags) grows by half too, as far as a box holds it
// (NodeItem::setTextBoost); toggled back, all returns as it was.

class QFont;
class QWidget;

namespace fog {

/// Turns presentation mode on or off for the application and the plots under `root`
/// (plots created later follow it at their next replot once `root` is searched again).
void setPresentation(QWidget* root, bool on);
bool presentationOn();
/// How much thicker lines are drawn (2 in presentation mode, else 1).
double presentationLineScale();
/// How much larger text is (1.5 in presentation mode, else 1).
double presentationFontScale();
/// The application's font as it is outside presentation mode (exported figures use it).
QFont presentationBaseFont();

} // namespace fog
