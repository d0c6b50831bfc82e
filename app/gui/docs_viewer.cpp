#include "app/gui/docs_viewer.h"

#include <QCoreApplication>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace fog {

QString docsDirectory() {
    QStringList candidates;
    if (const QString env = qEnvironmentVariable("FOGSTUDIO_DOCS"); !env.isEmpty()) candidates << env;
    const QString app = QCoreApplication::applicationDirPath();
    candidates << app + "/../share/doc/fogstudio/docs" << QStringLiteral(FOG_SOURCE_DIR "/docs");
    for (const QString& c : candidates)
        if (QFileInfo::exists(c + "/studio.md")) return QDir(c).canonicalPath();
    return {};
}

DocsViewer::DocsViewer(const QString& directory, const QString& page, QWidget* parent) : QDialog(parent) {
    setObjectName("docsViewer");
    setWindowTitle(tr("FogStudio documentation"));
    browser_ = new QTextBrowser(this);
    browser_->setObjectName("docsBrowser");
    browser_->setOpenLinks(true);
    browser_->setOpenExternalLinks(true); // http(s) links go to the system's browser
    browser_->setSearchPaths({directory});
    browser_->setSource(QUrl::fromLocalFile(QDir(directory).filePath(page)), QTextDocument::MarkdownResource);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* back = buttons->addButton(tr("Back"), QDialogButtonBox::ActionRole);
    QPushButton* index = buttons->addButton(tr("The studio"), QDialogButtonBox::ActionRole);
    QPushButton* lessons = buttons->addButton(tr("Lessons"), QDialogButtonBox::ActionRole);
    connect(lessons, &QPushButton::clicked, this, [this, directory] {
        browser_->setSource(QUrl::fromLocalFile(QDir(directory).filePath("lessons.md")), QTextDocument::MarkdownResource);
    });
    connect(back, &QPushButton::clicked, browser_, &QTextBrowser::backward);
    connect(browser_, &QTextBrowser::backwardAvailable, back, &QPushButton::setEnabled);
    back->setEnabled(false);
    connect(index, &QPushButton::clicked, this, [this, directory] {
        browser_->setSource(QUrl::fromLocalFile(QDir(directory).filePath("studio.md")), QTextDocument::MarkdownResource);
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(browser_, 1);
    layout->addWidget(buttons);
    resize(860, 640);
}

} // namespace fog
