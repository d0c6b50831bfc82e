#include "widgets/lessons/lessons_panel.h"

#include "core/scenario/variants.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "widgets/document/scenario_document.h"

#include <QComboBox>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QImageReader>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QThread>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace fog {

bool openVariantInDocument(ScenarioDocument* document, const QString& path, const QString& variant, QString* error) {
    try {
        Scenario s = loadVariantFile(path.toStdString(), variant.toStdString());
        s.sourcePath = path.toStdString();
        document->setScenario(s);
        document->setFilePath(QString()); // an untitled copy: Save asks where
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

LessonsPanel::LessonsPanel(QWidget* parent) : QWidget(parent) {
    setObjectName("lessonsPanel");
    list_ = new QListWidget(this);
    list_->setObjectName("lessonsList");
    list_->setWordWrap(true);
    text_ = new QTextBrowser(this);
    text_->setObjectName("lessonText");
    text_->setOpenExternalLinks(true);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setChildrenCollapsible(false);
    split->addWidget(list_);
    split->addWidget(text_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);

    variants_ = new QComboBox(this);
    variants_->setObjectName("lessonVariants");
    variants_->setToolTip(tr("The preset's variants: each is run, labelled by its name"));
    openVariant_ = new QPushButton(tr("Open Variant"), this);
    openVariant_->setObjectName("openVariantButton");
    openVariant_->setToolTip(tr("Open this variant in the editor (as an untitled copy) to see its topology"));
    repeats_ = new QSpinBox(this);
    repeats_->setObjectName("lessonRepeats");
    repeats_->setRange(1, kMaxRepeats);
    repeats_->setToolTip(tr("Repeats of every variant; repeat r uses the same seed for all of them (common random "
                            "numbers). The preset's own number is the one its lesson reports."));
    run_ = new QPushButton(tr("Run This Lesson"), this);
    run_->setObjectName("runLessonButton");
    run_->setDefault(true);
    stop_ = new QPushButton(tr("Stop"), this);
    stop_->setObjectName("stopLessonButton");
    progress_ = new QProgressBar(this);
    progress_->setObjectName("lessonProgress");
    progress_->setTextVisible(true);
    status_ = new QLabel(this);
    status_->setObjectName("lessonStatus");
    status_->setWordWrap(true);

    auto* variantRow = new QHBoxLayout;
    variantRow->addWidget(new QLabel(tr("Variant:"), this));
    variantRow->addWidget(variants_, 1);
    variantRow->addWidget(openVariant_);
    auto* runRow = new QHBoxLayout;
    runRow->addWidget(new QLabel(tr("Repeats:"), this));
    runRow->addWidget(repeats_);
    runRow->addStretch(1);
    runRow->addWidget(run_);
    runRow->addWidget(stop_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(split, 1);
    layout->addLayout(variantRow);
    layout->addLayout(runRow);
    layout->addWidget(progress_);
    layout->addWidget(status_);

    connect(list_, &QListWidget::currentRowChanged, this, &LessonsPanel::showLesson);
    connect(run_, &QPushButton::clicked, this, &LessonsPanel::runLesson);
    connect(stop_, &QPushButton::clicked, this, &LessonsPanel::stop);
    connect(openVariant_, &QPushButton::clicked, this, &LessonsPanel::openVariant);
    setBusy(false);
    progress_->setVisible(false);
}

LessonsPanel::~LessonsPanel() {
    if (thread_) { // the runs stop (cancelled runs stay stored as such) before the panel goes
        cancel_ = true;
        thread_->wait();
        delete thread_;
    }
}

void LessonsPanel::setDirectories(const QString& presetsDir, const QString& docsDir) {
    lessons_.clear();
    problems_.clear();
    if (!presetsDir.isEmpty()) lessons_ = presetLessons(presetsDir.toStdString(), &problems_);
    docsDir_ = docsDir;
    text_->setSearchPaths(docsDir.isEmpty() ? QStringList{} : QStringList{docsDir});
    list_->clear();
    for (const auto& l : lessons_) {
        auto* item = new QListWidgetItem(QString("%1. %2").arg(l.lesson.number).arg(QString::fromStdString(l.lesson.title)),
                                         list_);
        item->setToolTip(QString::fromStdString(lessonPlainText(l.lesson.question)));
    }
    if (lessons_.empty())
        text_->setPlainText(presetsDir.isEmpty() ? tr("No presets folder was found, so there are no lessons.")
                                                 : tr("No preset in %1 has a lesson.").arg(presetsDir));
    if (!problems_.empty()) {
        QStringList p;
        for (const auto& x : problems_) p << QString::fromStdString(x);
        status_->setText(tr("Presets that could not be read: %1").arg(p.join("; ")));
    }
    if (!lessons_.empty()) list_->setCurrentRow(0);
    setBusy(false);
}

void LessonsPanel::setStore(RunStore* store) {
    store_ = store;
    setBusy(running());
}

int LessonsPanel::currentIndex() const { return list_->currentRow(); }
void LessonsPanel::setCurrentIndex(int row) { list_->setCurrentRow(row); }

QString LessonsPanel::currentText() const {
    const int row = currentIndex();
    if (row < 0 || row >= static_cast<int>(lessons_.size())) return {};
    return QString::fromStdString(lessonsMarkdown({lessons_[static_cast<std::size_t>(row)]}));
}

void LessonsPanel::showLesson(int row) {
    variants_->clear();
    if (row < 0 || row >= static_cast<int>(lessons_.size())) {
        setBusy(running());
        return;
    }
    const PresetLesson& l = lessons_[static_cast<std::size_t>(row)];
    text_->setMarkdown(currentText());
    fitImages();
    // Again once laid out (a panel just shown has no size yet).
    QTimer::singleShot(0, this, [this, row] {
        if (QListWidgetItem* item = list_->item(row)) list_->scrollToItem(item);
        fitImages();
    });
    for (const auto& v : l.variants) variants_->addItem(QString::fromStdString(v));
    repeats_->setValue(std::max(1, l.repeats));
    setBusy(running());
}

void LessonsPanel::fitImages() {
    // The lessons' figures are 900 px wide: shown at the panel's width (the height follows),
    // so the text never needs a horizontal scroll bar.
    const int width = std::max(120, text_->viewport()->width() - 16);
    QTextCursor cursor(text_->document());
    for (QTextBlock b = text_->document()->begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            const QTextFragment f = it.fragment();
            if (!f.isValid() || !f.charFormat().isImageFormat()) continue;
            QTextImageFormat image = f.charFormat().toImageFormat();
            const QSize size = QImageReader(QDir(docsDir_).filePath(image.name())).size();
            image.setWidth(width);
            image.setHeight(size.isValid() && size.width() > 0 ? width * double(size.height()) / size.width()
                                                                : width * 0.56); // 1800x1000, most of them
            cursor.setPosition(f.position());
            cursor.setPosition(f.position() + f.length(), QTextCursor::KeepAnchor);
            cursor.setCharFormat(image);
        }
}

void LessonsPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitImages();
}

void LessonsPanel::setBusy(bool busy) {
    const int row = currentIndex();
    const bool have = row >= 0 && row < static_cast<int>(lessons_.size());
    const bool cluster = have && lessons_[static_cast<std::size_t>(row)].cluster;
    list_->setEnabled(!busy);
    run_->setEnabled(!busy && have && (store_ || cluster));
    run_->setToolTip(!store_ && !cluster ? tr("Runs cannot be stored, so lessons cannot run")
                     : cluster           ? tr("Opens the cluster preset in its own window")
                                         : tr("Opens the preset and runs every variant x repeat"));
    stop_->setEnabled(busy);
    variants_->setEnabled(!busy && variants_->count() > 0);
    openVariant_->setEnabled(!busy && variants_->count() > 0);
    repeats_->setEnabled(!busy && have && !cluster);
}

void LessonsPanel::openVariant() {
    const int row = currentIndex();
    if (row < 0 || row >= static_cast<int>(lessons_.size()) || variants_->currentIndex() < 0) return;
    Q_EMIT openVariantRequested(QString::fromStdString(lessons_[static_cast<std::size_t>(row)].path),
                                variants_->currentText());
}

void LessonsPanel::runLesson() {
    const int row = currentIndex();
    if (thread_ || row < 0 || row >= static_cast<int>(lessons_.size())) return;
    const PresetLesson l = lessons_[static_cast<std::size_t>(row)];
    const QString path = QString::fromStdString(l.path);
    Q_EMIT openPresetRequested(path);
    if (l.cluster) {
        status_->setText(tr("A cluster scenario: train and run its schedulers in the cluster window."));
        return;
    }
    if (!store_) {
        status_->setText(tr("Runs cannot be stored, so the lesson cannot run."));
        return;
    }
    SweepSpec spec;
    spec.file = l.path;
    spec.variants = true;
    spec.repeats = repeats_->value();
    spec.parallel = 1;
    spec.threadsPerRun = std::max(1, threads_ ? threads_() : QThread::idealThreadCount());
    spec.tags = {"lesson-" + std::to_string(l.lesson.number)};
    spec.name = "Lesson " + std::to_string(l.lesson.number) + ": " + l.lesson.title;
    SweepPlan plan;
    try {
        plan = planSweep(spec); // every variant checked before anything runs
    } catch (const ScenarioError& e) {
        status_->setText(tr("Cannot run the lesson:\n%1").arg(QString::fromStdString(e.what())));
        return;
    }
    cancel_ = false;
    progress_->setVisible(true);
    progress_->setRange(0, static_cast<int>(plan.items.size()));
    progress_->setValue(0);
    progress_->setFormat(tr("%v of %m runs"));
    status_->setText(tr("Running %n run(s): every variant x repeat, with common random numbers...", nullptr,
                        static_cast<int>(plan.items.size())));
    Q_EMIT message(tr("Lesson %1: running %2 runs").arg(l.lesson.number).arg(plan.items.size()));
    RunStore* store = store_;
    thread_ = QThread::create([this, spec, store] {
        QList<qint64> ids;
        bool cancelled = false;
        int failed = 0;
        QString error;
        try {
            const SweepResult r = runSweep(
                spec, *store,
                [this](const SweepProgress& p) {
                    const QString line = QString("%1 #%2: %3, accuracy %4%, %5 s, cost %6")
                                             .arg(QString::fromStdString(p.config))
                                             .arg(p.repeat)
                                             .arg(toString(p.summary.status))
                                             .arg(100 * p.summary.finalTestAccuracy, 0, 'f', 1)
                                             .arg(p.summary.virtualTime, 0, 'f', 1)
                                             .arg(p.summary.cost, 0, 'f', 4);
                    QMetaObject::invokeMethod(
                        this, [this, done = p.done, total = p.total, line] { onProgress(done, total, line); },
                        Qt::QueuedConnection);
                },
                &cancel_);
            for (auto id : r.runIds)
                if (id > 0) ids << id;
            cancelled = r.cancelled;
            failed = r.failed;
            if (!r.errors.empty()) error = QString::fromStdString(r.errors.front());
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        QMetaObject::invokeMethod(
            this, [this, ids, cancelled, failed, error] { onDone(ids, cancelled, failed, error); }, Qt::QueuedConnection);
    });
    setBusy(true);
    thread_->start();
}

void LessonsPanel::stop() {
    if (!thread_) return;
    cancel_ = true;
    status_->setText(tr("Stopping: the run under way ends, what ran stays stored..."));
}

void LessonsPanel::onProgress(int done, int total, const QString& line) {
    progress_->setRange(0, std::max(1, total));
    progress_->setValue(done);
    status_->setText(line);
    Q_EMIT runsChanged();
}

void LessonsPanel::onDone(const QList<qint64>& ids, bool cancelled, int failed, const QString& error) {
    if (thread_) {
        thread_->wait();
        delete thread_;
        thread_ = nullptr;
    }
    setBusy(false);
    QString text = cancelled ? tr("Stopped: %n run(s) stored.", nullptr, static_cast<int>(ids.size()))
                             : tr("Done: %n run(s) stored; the comparison view shows them.", nullptr,
                                  static_cast<int>(ids.size()));
    if (failed) text += " " + tr("%n failed.", nullptr, failed);
    if (!error.isEmpty()) text += "\n" + error;
    status_->setText(text);
    Q_EMIT runsChanged();
    Q_EMIT lessonFinished(ids, cancelled);
}

} // namespace fog
