#pragma once
// Messages in flight during a run, drawn as one item over the whole canvas (thousands of
// small moving items would cost far more than one paint of a few hundred dots).

#include <QGraphicsItem>
#include <QPointF>
#include <QVector>

namespace fog {

class MessageLayer : public QGraphicsItem {
  public:
    struct Dot {
        QPointF from;
        QPointF to;
        double progress = 0.0;
        bool modelDown = true;
    };
    MessageLayer();
    void setMessages(QVector<Dot> dots);
    int size() const { return dots_.size(); }
    QRectF boundingRect() const override { return rect_; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

  private:
    QVector<Dot> dots_;
    QRectF rect_;
};

} // namespace fog
