#pragma once
// Autosave of the edited scenario and recovery after a crash or a kill (docs/studio.md,
// "Autosave and recovery"). A few seconds after each change the document's scenario is
// written, atomically, to <data dir>/fogstudio/autosave/session-<id>.yaml; a lock file
// beside it says that its studio is alive. A clean save or quit removes the autosave; a
// crash leaves it, with a stale lock, and the next studio offers to recover it.

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>

#include <memory>

class QLockFile;
class QTimer;
class QWidget;

namespace fog {

class ScenarioDocument;

class Autosave : public QObject {
    Q_OBJECT
  public:
    /// Starts watching `document`; files go to `directory` (empty: defaultDirectory()).
    explicit Autosave(ScenarioDocument* document, const QString& directory = {},
                      QObject* parent = nullptr);
    /// A clean end of the session: its autosave is removed.
    ~Autosave() override;

    /// $XDG_DATA_HOME/fogstudio/autosave (else ~/.local/share/fogstudio/autosave; Qt's
    /// test mode has its own).
    static QString defaultDirectory();

    /// Milliseconds between the last change and the write (default 3000).
    void setDelay(int ms);
    int delay() const;
    /// This session's autosave file (it exists only while there are unsaved changes).
    QString filePath() const { return path_; }
    /// Writes now if the document has unsaved changes, else removes the autosave. False
    /// when the write failed (no folder, the lock held by another studio, a full disk).
    bool writeNow();
    /// Leaves the autosave behind and lets go of the lock, as a crash would (for tests).
    void abandon();

    /// An autosave left by a studio that did not end cleanly.
    struct Orphan {
        QString path;         ///< the autosave file
        QString originalPath; ///< the scenario file it was editing; empty: untitled
        QDateTime saved;      ///< when it was written
    };
    /// Orphans in `directory` (empty: default), newest first. Autosaves older than the file
    /// they edit (saved since, by another studio) are removed, not returned.
    static QList<Orphan> findOrphans(const QString& directory = {});
    /// Removes an orphan (its file and its stale lock).
    static void removeOrphan(const Orphan& orphan);

    enum class RecoverMode { Ask, Recover, Discard };
    /// --recover / --no-recover, else FOGSTUDIO_RECOVER=ask|yes|no, else Ask.
    static RecoverMode modeFrom(bool recoverOption, bool noRecoverOption);
    /// Offers the newest orphan (a dialog on `parent` in Ask mode) and, when accepted, puts
    /// its scenario into `document` as one undoable change on top of its original file (or
    /// of the current document when untitled), unsaved. Discard removes the orphan; closing
    /// the dialog keeps it for the next start. Returns true when a scenario was recovered.
    static bool offerRecovery(ScenarioDocument* document, QWidget* parent, RecoverMode mode,
                              const QString& directory = {});

  private:
    void changed();
    void saved(bool modified);
    void removeFile();

    ScenarioDocument* document_;
    QString dir_;
    QString path_;
    QTimer* timer_ = nullptr;
    std::unique_ptr<QLockFile> lock_;
};

} // namespace fog
