#pragma once
// Spin boxes as wide as the value they show: a double spin box whose range may be the whole
// double range (a key the schema leaves unbounded) without asking for a field wide enough to
// print 1.8e308 in full, and an integer one alike. Each may shrink below its size hint to
// what its value and unit need, so a narrow dock (1280x720) keeps every field whole.

#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QStyle>
#include <QStyleOptionSpinBox>

#include <algorithm>

namespace fog {

template <class Base>
class FittingSpinBox : public Base {
public:
    explicit FittingSpinBox(QWidget* parent = nullptr) : Base(parent) {
        // The default policy keeps the size hint as the least width.
        this->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
        // A longer value asks for more room.
        QObject::connect(this, &Base::textChanged, this, [this] { this->updateGeometry(); });
    }
    QSize sizeHint() const override {
        QSize s = Base::sizeHint();
        s.setWidth(std::max(std::min(s.width(), fitting(14)), fitting(kMinDigits)));
        return s;
    }
    /// Room for the value shown with its unit, and for a few digits more.
    QSize minimumSizeHint() const override {
        QSize s = Base::minimumSizeHint();
        s.setWidth(fitting(kMinDigits));
        return s;
    }

private:
    static constexpr int kMinDigits = 6;
    /// The width that shows the current text, or `digits` digits and the unit, whole.
    int fitting(int digits) const {
        QStyleOptionSpinBox option;
        this->initStyleOption(&option);
        option.rect = QRect(0, 0, 300, 30);
        const QRect field = this->style()->subControlRect(QStyle::CC_SpinBox, &option, QStyle::SC_SpinBoxEditField, this);
        const QFontMetrics fm = this->fontMetrics();
        const int text = std::max(fm.horizontalAdvance(this->text()),
                                  fm.horizontalAdvance(this->prefix() + QString(digits, '0') + this->suffix()));
        return text + (option.rect.width() - field.width()) + 10; // the line edit's margins and cursor
    }
};

using WideRangeSpinBox = FittingSpinBox<QDoubleSpinBox>;
using WideIntSpinBox = FittingSpinBox<QSpinBox>;

} // namespace fog
