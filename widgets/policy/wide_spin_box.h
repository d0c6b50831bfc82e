#pragma once
// A double spin box whose range may be the whole double range (a key the schema leaves
// unbounded) without asking for a field wide enough to print 1.8e308 in full.

#include <QDoubleSpinBox>

#include <algorithm>

namespace fog {

class WideRangeSpinBox : public QDoubleSpinBox {
public:
    using QDoubleSpinBox::QDoubleSpinBox;
    QSize sizeHint() const override { return capped(QDoubleSpinBox::sizeHint()); }
    QSize minimumSizeHint() const override { return capped(QDoubleSpinBox::minimumSizeHint()); }

private:
    QSize capped(QSize s) const {
        const int wide = fontMetrics().horizontalAdvance(QString(14, '0') + suffix()) + 40;
        s.setWidth(std::min(s.width(), wide));
        return s;
    }
};

} // namespace fog
