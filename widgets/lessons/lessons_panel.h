#pragma once
// The Lessons panel: every preset that carries a lesson (core/scenario/lessons.h) with its
// question, what to look for and the steps; "Run this lesson" runs the preset's variants
// x repeats as one stored sweep on a thread of its own (progress, Stop), and hands the run
// ids over for the comparison view. Knows nothing of the main window: it talks through
// signals.

#include "core/scenario/lessons.h"

#include <QList>
#include <QWidget>

#include <atomic>
#include <functional>

class QComboBox;
class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTextBrowser;
class QThread;

namespace fog {

class RunStore;
class ScenarioDocument;

/// Opens one variant of a scenario file in `document` as an untitled scenario (its settings
/// applied, the variant sections removed). False with `error` set when it cannot be read.
bool openVariantInDocument(ScenarioDocument* document, const QString& path, const QString& variant,
                           QString* error = nullptr);

class LessonsPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonsPanel(QWidget* parent = nullptr);
    ~LessonsPanel() override;

    /// Reads the lessons of the presets in `dir`; `docsDir` resolves the figures in the text.
    void setDirectories(const QString& presetsDir, const QString& docsDir);
    /// Not owned; null: runs cannot be stored, so none is started.
    void setStore(RunStore* store);
    /// Worker threads for the runs (called when a run starts); default: all cores.
    void setThreadsProvider(std::function<int()> threads) { threads_ = std::move(threads); }

    const std::vector<PresetLesson>& lessons() const { return lessons_; }
    /// Problems met reading the presets ("file: message").
    const std::vector<std::string>& problems() const { return problems_; }
    /// The lesson shown, or -1.
    int currentIndex() const;
    void setCurrentIndex(int row);
    /// The text shown for the current lesson (Markdown).
    QString currentText() const;
    bool running() const { return thread_ != nullptr; }
    QListWidget* list() const { return list_; }
    QSpinBox* repeatsBox() const { return repeats_; }

public Q_SLOTS:
    /// Loads the current lesson's preset (openPresetRequested) and runs its variants.
    void runLesson();
    void stop();
    /// Opens the variant chosen in the list (openVariantRequested).
    void openVariant();

Q_SIGNALS:
    void openPresetRequested(const QString& path);
    void openVariantRequested(const QString& path, const QString& variant);
    /// A run of the lesson was stored (for the runs dock).
    void runsChanged();
    /// The lesson's runs are done (or stopped): the stored ones, in plan order.
    void lessonFinished(const QList<qint64>& runIds, bool cancelled);
    /// Something to tell the user (status bar).
    void message(const QString& text);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void showLesson(int row);
    void fitImages();
    void setBusy(bool busy);
    void onProgress(int done, int total, const QString& line);
    void onDone(const QList<qint64>& ids, bool cancelled, int failed, const QString& error);

    std::vector<PresetLesson> lessons_;
    std::vector<std::string> problems_;
    QString docsDir_;
    RunStore* store_ = nullptr;
    std::function<int()> threads_;

    QListWidget* list_;
    QTextBrowser* text_;
    QComboBox* variants_;
    QPushButton* openVariant_;
    QSpinBox* repeats_;
    QPushButton* run_;
    QPushButton* stop_;
    QProgressBar* progress_;
    QLabel* status_;

    QThread* thread_ = nullptr;
    std::atomic<bool> cancel_{false};
};

} // namespace fog
