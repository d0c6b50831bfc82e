#pragma once
// The palette beside the canvas: cloud region, edge server, device, group of N devices, relay.
// Drag an entry onto the canvas, or double-click it to add one at the canvas centre.

#include "widgets/topology/node_templates.h"

#include <QWidget>

class QListWidget;
class QSpinBox;

namespace fog {

class NodePalette : public QWidget {
    Q_OBJECT
  public:
    explicit NodePalette(QWidget* parent = nullptr);
    /// N of "group of N devices".
    int groupCount() const;
    void setGroupCount(int n);
    QListWidget* list() const { return list_; }

  Q_SIGNALS:
    /// Double-click (or Enter) on an entry.
    void addRequested(fog::NodeTemplate t, int count);

  protected:
    void changeEvent(QEvent* e) override;

  private:
    void refreshIcons();
    QListWidget* list_;
    QSpinBox* count_;
};

} // namespace fog
