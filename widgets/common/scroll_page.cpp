#include "widgets/common/scroll_page.h"

#include <QScrollArea>
#include <QString>
#include <QVBoxLayout>

namespace fog {

QScrollArea* fillWithScrolling(QWidget* owner, QWidget* content, const QString& name) {
    auto* scroll = new QScrollArea(owner);
    scroll->setObjectName(name);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidgetResizable(true);
    scroll->setWidget(content);
    auto* outer = new QVBoxLayout(owner);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    return scroll;
}

} // namespace fog
