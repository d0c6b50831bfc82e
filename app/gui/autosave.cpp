#include "app/gui/autosave.h"

#include "core/scenario/scenario_io.h"
#include "widgets/document/scenario_document.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLockFile>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QStandardPaths>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace fog {

namespace {

constexpr char kOriginalTag[] = "# original: ";

QString lockPathOf(const QString& autosavePath) {
    QString p = autosavePath;
    p.chop(5); // ".yaml"
    return p + ".lock";
}

/// The original file named in an autosave's header; empty when untitled.
QString originalOf(const QString& autosavePath) {
    QFile f(autosavePath);
    if (!f.open(QIODevice::ReadOnly)) return {};
    for (int i = 0; i < 4 && !f.atEnd(); ++i) {
        const QByteArray line = f.readLine().trimmed();
        if (line.startsWith(kOriginalTag))
            return QUrl::fromPercentEncoding(line.mid(static_cast<int>(sizeof kOriginalTag) - 1));
    }
    return {};
}

} // namespace

QString Autosave::defaultDirectory() {
    // $XDG_DATA_HOME or ~/.local/share, as the run store's; a folder of their own in Qt's
    // test mode.
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/fogstudio/autosave";
}

Autosave::Autosave(ScenarioDocument* document, const QString& directory, QObject* parent)
    : QObject(parent), document_(document), dir_(directory.isEmpty() ? defaultDirectory() : directory) {
    path_ = dir_ + QStringLiteral("/session-%1-%2.yaml")
                       .arg(QCoreApplication::applicationPid())
                       .arg(QDateTime::currentMSecsSinceEpoch());
    timer_ = new QTimer(this);
    timer_->setSingleShot(true);
    timer_->setInterval(3000);
    connect(timer_, &QTimer::timeout, this, [this] { writeNow(); });
    connect(document_, &ScenarioDocument::scenarioChanged, this, &Autosave::changed);
    connect(document_, &ScenarioDocument::modifiedChanged, this, &Autosave::saved);
    connect(document_, &ScenarioDocument::filePathChanged, this, &Autosave::changed);
}

Autosave::~Autosave() {
    if (!lock_) return; // never written, or abandoned
    removeFile();
}

void Autosave::setDelay(int ms) { timer_->setInterval(std::max(0, ms)); }
int Autosave::delay() const { return timer_->interval(); }

void Autosave::changed() {
    // Written at most `delay` after the first change of a burst, so that minutes of
    // continuous editing are not lost either.
    if (document_->isModified() && !timer_->isActive()) timer_->start();
}

void Autosave::saved(bool modified) {
    if (modified) return changed();
    timer_->stop();
    removeFile(); // saved (or undone back to the saved state): nothing to recover
}

bool Autosave::writeNow() {
    timer_->stop();
    if (!document_->isModified()) {
        removeFile();
        return true;
    }
    if (!QDir().mkpath(dir_)) return false;
    if (!lock_) {
        lock_ = std::make_unique<QLockFile>(lockPathOf(path_));
        lock_->setStaleLockTime(0);
        if (!lock_->tryLock(0)) {
            lock_.reset();
            return false;
        }
    }
    const QString original = document_->filePath();
    QByteArray text = "# FogStudio autosave: unsaved changes of " +
                      (original.isEmpty() ? QByteArray("an untitled scenario") : original.toUtf8()) + "\n";
    text += kOriginalTag + QUrl::toPercentEncoding(original, "/") + "\n";
    text += QByteArray::fromStdString(saveScenarioText(document_->scenario()));
    QSaveFile f(path_);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size() && f.commit();
}

void Autosave::removeFile() {
    QFile::remove(path_);
}

void Autosave::abandon() {
    timer_->stop();
    disconnect(document_, nullptr, this, nullptr);
    if (lock_) lock_->unlock();
    lock_.reset();
}

QList<Autosave::Orphan> Autosave::findOrphans(const QString& directory) {
    const QString dir = directory.isEmpty() ? defaultDirectory() : directory;
    QList<Orphan> out;
    const auto files = QDir(dir).entryInfoList({"session-*.yaml"}, QDir::Files, QDir::Time);
    for (const QFileInfo& fi : files) {
        // A lock held by a live studio means that studio is still editing it.
        QLockFile lock(lockPathOf(fi.absoluteFilePath()));
        lock.setStaleLockTime(0); // stale only when its process is gone
        if (!lock.tryLock(0)) continue;
        lock.unlock();
        Orphan o{fi.absoluteFilePath(), originalOf(fi.absoluteFilePath()), fi.lastModified()};
        if (!o.originalPath.isEmpty()) {
            const QFileInfo orig(o.originalPath);
            if (orig.exists() && orig.lastModified() > o.saved) {
                removeOrphan(o); // saved since: the file holds newer work
                continue;
            }
        }
        out.push_back(o);
    }
    std::stable_sort(out.begin(), out.end(), [](const Orphan& a, const Orphan& b) { return a.saved > b.saved; });
    return out;
}

void Autosave::removeOrphan(const Orphan& orphan) {
    QFile::remove(orphan.path);
    QFile::remove(lockPathOf(orphan.path));
}

Autosave::RecoverMode Autosave::modeFrom(bool recoverOption, bool noRecoverOption) {
    if (recoverOption) return RecoverMode::Recover;
    if (noRecoverOption) return RecoverMode::Discard;
    const QString env = qEnvironmentVariable("FOGSTUDIO_RECOVER").toLower();
    if (env == "yes" || env == "1" || env == "recover") return RecoverMode::Recover;
    if (env == "no" || env == "0" || env == "discard") return RecoverMode::Discard;
    return RecoverMode::Ask;
}

bool Autosave::offerRecovery(ScenarioDocument* document, QWidget* parent, RecoverMode mode,
                             const QString& directory) {
    const QList<Orphan> orphans = findOrphans(directory);
    if (orphans.isEmpty()) return false;
    const Orphan o = orphans.first();
    const QString what = o.originalPath.isEmpty() ? tr("an untitled scenario")
                                                  : QDir::toNativeSeparators(o.originalPath);
    if (mode == RecoverMode::Ask) {
        QMessageBox box(QMessageBox::Question, tr("Recover unsaved changes"),
                        tr("FogStudio did not close cleanly. Unsaved changes to %1 were autosaved at %2.\n\n"
                           "Recover them?")
                            .arg(what, QLocale().toString(o.saved, QLocale::ShortFormat)),
                        QMessageBox::NoButton, parent);
        QPushButton* recover = box.addButton(tr("&Recover"), QMessageBox::AcceptRole);
        QPushButton* discard = box.addButton(tr("&Discard"), QMessageBox::DestructiveRole);
        box.addButton(tr("&Later"), QMessageBox::RejectRole);
        box.setDefaultButton(recover);
        box.exec();
        if (box.clickedButton() == discard) mode = RecoverMode::Discard;
        else if (box.clickedButton() == recover) mode = RecoverMode::Recover;
        else return false; // kept for the next start
    }
    if (mode == RecoverMode::Discard) {
        removeOrphan(o);
        return false;
    }

    Scenario recovered;
    try {
        QFile f(o.path);
        if (!f.open(QIODevice::ReadOnly)) throw std::runtime_error(f.errorString().toStdString());
        // Unchecked: an edit in progress may well have problems; the studio shows them.
        recovered = readScenarioTextUnchecked(f.readAll().toStdString(), o.path.toStdString());
    } catch (const ScenarioError& e) {
        QString why;
        for (const auto& d : e.diagnostics) why += QString::fromStdString(d.format()) + "\n";
        if (parent) QMessageBox::warning(parent, tr("Recover unsaved changes"), tr("%1 cannot be read:\n\n%2").arg(o.path, why));
        return false;
    } catch (const std::exception& e) {
        if (parent)
            QMessageBox::warning(parent, tr("Recover unsaved changes"), tr("%1 cannot be read: %2").arg(o.path, e.what()));
        return false;
    }
    // On top of the file it edited, so that Undo shows what the recovery changed.
    if (!o.originalPath.isEmpty() && QFileInfo::exists(o.originalPath)) document->load(o.originalPath);
    recovered.sourcePath = o.originalPath.toStdString();
    document->edit(tr("Recover autosaved changes"), [&recovered](Scenario& s) { s = recovered; });
    document->setFilePath(o.originalPath);
    removeOrphan(o);
    return true;
}

} // namespace fog
