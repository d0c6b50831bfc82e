#pragma once
// A view whose content scrolls where the window is smaller than it needs (a projector, a
// laptop at a large scale factor), rather than widening the window past the screen.

class QScrollArea;
class QString;
class QWidget;

namespace fog {

/// Puts `content` into a frameless, resizable scroll area named `name` that fills `owner`
/// (which gets a layout holding only it).
QScrollArea* fillWithScrolling(QWidget* owner, QWidget* content, const QString& name);

} // namespace fog
