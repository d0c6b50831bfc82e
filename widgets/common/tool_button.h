#pragma once
// The flat text-beside-icon tool buttons of the studio's panels.

#include <QStyle>

class QToolButton;
class QWidget;

namespace fog {

QToolButton* makeToolButton(QWidget* parent, QStyle::StandardPixmap icon, const QString& text, const QString& tip);

} // namespace fog
