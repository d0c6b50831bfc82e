#include "app/gui/theme.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace fog {

namespace {

QString& systemStyleName() {
    static QString name;
    return name;
}

QPalette darkPalette() {
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1f, 0x21, 0x24), text(0xe6, 0xe6, 0xe6);
    const QColor disabled(0x80, 0x80, 0x80), highlight(0x3d, 0x7e, 0xd6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, window);
    p.setColor(QPalette::ToolTipBase, base);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, disabled);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, Qt::red);
    p.setColor(QPalette::Link, highlight.lighter(130));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Light, window.lighter(150));
    p.setColor(QPalette::Midlight, window.lighter(125));
    p.setColor(QPalette::Mid, window.darker(120));
    p.setColor(QPalette::Dark, window.darker(150));
    p.setColor(QPalette::Shadow, Qt::black);
    for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

} // namespace

QIcon transportIcon(const QString& kind) {
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.scale(size / 24.0, size / 24.0);
        QPainterPath path;
        QColor fill(86, 180, 233); // sky blue: pause, step, run until
        if (kind == "run") {
            fill = QColor(30, 185, 110);
            path.moveTo(6, 4);
            path.lineTo(20, 12);
            path.lineTo(6, 20);
            path.closeSubpath();
        } else if (kind == "pause") {
            fill = QColor(240, 170, 30);
            path.addRoundedRect(QRectF(5, 4, 5, 16), 1, 1);
            path.addRoundedRect(QRectF(14, 4, 5, 16), 1, 1);
        } else if (kind == "step") {
            path.moveTo(4, 4);
            path.lineTo(15, 12);
            path.lineTo(4, 20);
            path.closeSubpath();
            path.addRoundedRect(QRectF(16, 4, 4, 16), 1, 1);
        } else if (kind == "event") { // step one event: a short step to a dot
            path.moveTo(3, 6);
            path.lineTo(11, 12);
            path.lineTo(3, 18);
            path.closeSubpath();
            path.addEllipse(QPointF(16.5, 12), 4, 4);
        } else if (kind == "until") {
            path.moveTo(2, 5);
            path.lineTo(11, 12);
            path.lineTo(2, 19);
            path.closeSubpath();
            path.moveTo(11, 5);
            path.lineTo(20, 12);
            path.lineTo(11, 19);
            path.closeSubpath();
            path.addRect(QRectF(20, 5, 2.5, 14));
        } else if (kind == "stop") {
            fill = QColor(225, 90, 40);
            path.addRoundedRect(QRectF(5, 5, 14, 14), 2, 2);
        }
        // A light halo under a dark outline: the glyph stands out on any background.
        p.setPen(QPen(QColor(255, 255, 255, 170), 3.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.drawPath(path);
        p.setPen(QPen(QColor(20, 20, 20), 1.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.setBrush(fill);
        p.drawPath(path);
        p.end();
        icon.addPixmap(pm);
        // Disabled: the same glyph, greyed, still visible on a dark tool bar.
        QImage grey = pm.toImage().convertToFormat(QImage::Format_ARGB32);
        for (int y = 0; y < grey.height(); ++y)
            for (int x = 0; x < grey.width(); ++x) {
                const QColor c = grey.pixelColor(x, y);
                const int g = qGray(c.rgb());
                grey.setPixelColor(x, y, QColor(g, g, g, c.alpha() / 2));
            }
        icon.addPixmap(QPixmap::fromImage(grey), QIcon::Disabled);
    }
    return icon;
}

Theme themeFromString(const QString& name) {
    if (name == "light") return Theme::Light;
    if (name == "dark") return Theme::Dark;
    return Theme::System;
}

QString toString(Theme t) {
    switch (t) {
    case Theme::Light:
        return "light";
    case Theme::Dark:
        return "dark";
    case Theme::System:
        break;
    }
    return "system";
}

void applyTheme(Theme t) {
    if (systemStyleName().isEmpty()) systemStyleName() = QApplication::style()->name();
    switch (t) {
    case Theme::System:
        QApplication::setStyle(QStyleFactory::create(systemStyleName()));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case Theme::Light:
        QApplication::setStyle(QStyleFactory::create("Fusion"));
        QApplication::setPalette(QApplication::style()->standardPalette());
        break;
    case Theme::Dark:
        QApplication::setStyle(QStyleFactory::create("Fusion"));
        QApplication::setPalette(darkPalette());
        break;
    }
}

} // namespace fog
