#pragma once
// Messages in flight during a run, drawn as one item over the whole canvas (thousands of
// small moving items would cost far more than one paint). Each message is a labelled tag
// ("model" going down, "update" going up) of a fixed size on screen whatever the zoom.
// Messages between the same two points in the same direction are aggregated: up to
// kIndividual are drawn one by one; more become one tag with a count ("update × 1000") at
// their median position, over a band from the least to the most advanced of them. A message
// cut off (an upload discarded, a trainer gone offline) fades out where it stopped.

#include <QElapsedTimer>
#include <QGraphicsObject>
#include <QPointF>
#include <QVector>

class QTimer;

namespace fog {

class MessageLayer : public QGraphicsObject {
    Q_OBJECT
  public:
    struct Dot {
        QPointF from;
        QPointF to;
        double progress = 0.0;
        bool modelDown = true;
        bool cut = false; ///< cut off at `progress`: starts a fade-out
    };
    /// What is drawn: one tag for `count` messages.
    struct Mark {
        QPointF from;
        QPointF to;
        bool modelDown = true;
        int count = 1;
        double progress = 0.0;    ///< where the tag is (the median of the messages)
        double minProgress = 0.0; ///< the band the messages span
        double maxProgress = 0.0;
        bool cut = false;
        double opacity = 1.0;
    };
    static constexpr int kIndividual = 3;
    static constexpr int kFadeMs = 900;

    MessageLayer();
    void setMessages(const QVector<Dot>& dots);
    /// Messages shown (in flight, not cut), whatever the number of tags drawing them.
    int size() const { return shown_; }
    /// Tags drawn for messages in flight (cut ones fading out are in fading()).
    const QVector<Mark>& marks() const { return marks_; }
    QVector<Mark> fading() const;
    /// Drops every mark and fade (the run ended).
    void clear();
    /// The view's zoom changed: the tags keep their size on screen, so the area they may
    /// cover in scene units changes.
    void refreshGeometry();

    static QColor color(bool modelDown);
    static QString label(bool modelDown);

    QRectF boundingRect() const override { return rect_; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* o, QWidget* w) override;

  private:
    struct Fade {
        Mark mark;
        QElapsedTimer since;
    };
    void updateRect();
    void tick();
    void paintMark(QPainter* p, const Mark& m, const QColor& outline) const;

    QVector<Mark> marks_;
    QVector<Fade> fades_;
    int shown_ = 0;
    QRectF rect_;
    QTimer* fadeTimer_ = nullptr;
};

} // namespace fog
