#include "widgets/topology/node_palette.h"

#include "widgets/topology/node_glyphs.h"

#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QSpinBox>
#include <QVBoxLayout>

#include <iterator>

namespace fog {

namespace {

/// A list whose drags carry the template name and the group size.
class TemplateList : public QListWidget {
  public:
    TemplateList(QSpinBox* count, QWidget* parent) : QListWidget(parent), count_(count) {}

  protected:
    QStringList mimeTypes() const override { return {kNodeTemplateMime}; }
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override {
        if (items.isEmpty()) return nullptr;
        auto* mime = new QMimeData;
        mime->setData(kNodeTemplateMime, (items.front()->data(Qt::UserRole).toString() + " " +
                                          QString::number(count_->value()))
                                             .toUtf8());
        return mime;
    }

  private:
    QSpinBox* count_;
};

constexpr NodeTemplate kTemplates[] = {NodeTemplate::CloudRegion, NodeTemplate::EdgeServer,
                                       NodeTemplate::Device, NodeTemplate::DeviceGroup,
                                       NodeTemplate::Relay};

} // namespace

NodePalette::NodePalette(QWidget* parent) : QWidget(parent) {
    count_ = new QSpinBox(this);
    count_->setRange(1, 1000000);
    count_->setValue(20);
    count_->setToolTip(tr("Members of a new group of devices"));
    list_ = new TemplateList(count_, this);
    list_->setDragEnabled(true);
    list_->setDragDropMode(QAbstractItemView::DragOnly);
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    list_->setIconSize(QSize(26, 26)); // five entries and the group size fit a 1280x720 window

    list_->setSpacing(1);
    for (NodeTemplate t : kTemplates) {
        auto* item = new QListWidgetItem(templateLabel(t), list_);
        item->setData(Qt::UserRole, templateName(t));
        item->setToolTip(t == NodeTemplate::Relay
                             ? tr("Forwards its children's traffic to its parent. Drop it on an "
                                  "aggregator to hang it below, or on the line between a node or "
                                  "group and its parent to put it in between")
                             : tr("Drag onto the canvas, or double-click to add"));
    }
    refreshIcons();
    auto emitAdd = [this](QListWidgetItem* item) {
        NodeTemplate t;
        if (item && templateFromName(item->data(Qt::UserRole).toString(), t))
            Q_EMIT addRequested(t, count_->value());
    };
    connect(list_, &QListWidget::itemDoubleClicked, this, emitAdd);
    connect(list_, &QListWidget::itemActivated, this, emitAdd);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(list_);
    auto* form = new QFormLayout;
    form->addRow(tr("Devices per &group:"), count_);
    layout->addLayout(form);
    list_->setMaximumHeight(int(std::size(kTemplates)) * 44 + 12);
    // Every entry in view without scrolling (the relay, last, was hidden below the fold on a
    // 1280x720 screen).
    list_->setMinimumHeight(list_->count() * (list_->sizeHintForRow(0) + 2 * list_->spacing()) +
                            2 * list_->frameWidth());
    layout->addStretch();
}

int NodePalette::groupCount() const {
    return count_->value();
}

void NodePalette::setGroupCount(int n) {
    count_->setValue(n);
}

void NodePalette::refreshIcons() {
    for (int i = 0; i < list_->count(); ++i)
        list_->item(i)->setIcon(templateIcon(kTemplates[i], palette(), devicePixelRatioF()));
}

void NodePalette::changeEvent(QEvent* e) {
    if (e->type() == QEvent::PaletteChange) refreshIcons(); // light <-> dark
    QWidget::changeEvent(e);
}

} // namespace fog
