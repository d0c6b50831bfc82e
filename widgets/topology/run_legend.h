#pragma once
// The key to the canvas during a run, in a corner of the view: the two kinds of message,
// the node states (the colours of single nodes, group counts and members) and, when the run
// reports link use, the utilisation colours of the links.

#include <QWidget>

namespace fog {

class RunLegend : public QWidget {
    Q_OBJECT
  public:
    explicit RunLegend(QWidget* parent = nullptr);
    void setShowsLinks(bool on);
    bool showsLinks() const { return links_; }
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* e) override;

  private:
    static QString what(bool modelDown);
    bool links_ = false;
};

} // namespace fog
