#pragma once
// Help > Documentation: the Markdown pages of docs/ (installed under share/doc/fogstudio, or
// in the source tree) in a browser window of the studio's own, so it works without a
// desktop's file associations; links between pages and figures work, web links open in the
// system's browser.

#include <QDialog>

class QTextBrowser;

namespace fog {

/// The folder holding the documentation's Markdown pages (empty when none is found):
/// $FOGSTUDIO_DOCS, <prefix>/share/doc/fogstudio/docs next to the program, else the
/// source tree's docs/.
QString docsDirectory();

class DocsViewer : public QDialog {
    Q_OBJECT
public:
    /// Opens `page` (a file name in docsDirectory(), e.g. "studio.md").
    explicit DocsViewer(const QString& directory, const QString& page, QWidget* parent = nullptr);
    QTextBrowser* browser() const { return browser_; }

private:
    QTextBrowser* browser_;
};

} // namespace fog
