#pragma once
// Light, dark or the system's palette. Every view takes its colours from QPalette, so a
// switch repaints the canvas, the plots and the tables consistently.

#include <QString>

namespace fog {

enum class Theme { System, Light, Dark };

Theme themeFromString(const QString& name); ///< "system", "light", "dark"; else System
QString toString(Theme t);
/// Applies the theme to the running application (Fusion style with an explicit palette for
/// Light and Dark; the platform's own style and palette for System).
void applyTheme(Theme t);

} // namespace fog
