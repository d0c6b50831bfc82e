#pragma once
// Light, dark or the system's palette. Every view takes its colours from QPalette, so a
// switch repaints the canvas, the plots and the tables consistently.

#include <QIcon>
#include <QString>

namespace fog {

enum class Theme { System, Light, Dark };

Theme themeFromString(const QString& name); ///< "system", "light", "dark"; else System
QString toString(Theme t);
/// Applies the theme to the running application (Fusion style with an explicit palette for
/// Light and Dark; the platform's own style and palette for System).
void applyTheme(Theme t);

/// The run controls' icons: "run", "pause", "step", "until", "stop". Coloured glyphs with a
/// dark outline and a light halo, legible on light and dark tool bars alike (the style's
/// own media icons are near-black and vanish on a dark theme).
QIcon transportIcon(const QString& kind);

} // namespace fog
