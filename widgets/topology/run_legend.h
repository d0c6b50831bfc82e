#pragma once
// The key to the canvas during a run, in a strip under the view (never over the drawing):
// the two kinds of message, the node states (the colours of single nodes, group counts and
// members) and, when the run reports link use, the utilisation colours of the links. Its
// entries wrap onto as many rows as the width needs.

#include <QWidget>

namespace fog {

class RunLegend : public QWidget {
    Q_OBJECT
  public:
    explicit RunLegend(QWidget* parent = nullptr);
    void setShowsLinks(bool on);
    bool showsLinks() const { return links_; }
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* e) override;

  private:
    enum class Kind { Message, State, Links };
    struct Entry {
        Kind kind;
        int value; ///< modelDown, or a NodeState
        QString text;
        int width;
    };
    QVector<Entry> entries() const;
    /// Lays the entries out in rows for `width`; returns each entry's rectangle.
    QVector<QRect> layout(int width) const;
    bool links_ = false;
};

} // namespace fog
