#include "widgets/common/tool_button.h"

#include <QToolButton>

namespace fog {

QToolButton* makeToolButton(QWidget* parent, QStyle::StandardPixmap icon, const QString& text, const QString& tip) {
    auto* b = new QToolButton(parent);
    b->setIcon(parent->style()->standardIcon(icon));
    b->setText(text);
    b->setToolTip(tip);
    b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    b->setAutoRaise(true);
    return b;
}

} // namespace fog
