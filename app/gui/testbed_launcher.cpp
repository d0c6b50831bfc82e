// Run > Run on Testbed: a fogstudio-cli child process and a dialog (testbed_launcher.h).

#include "app/gui/testbed_launcher.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"
#include "widgets/testbed/testbed_comparison_view.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <QVBoxLayout>

namespace fog {

void runOnTestbed(QWidget* parent, const Scenario& scenario, const QString& dbPath, std::function<void()> stored) {
    QString cli = QDir(QCoreApplication::applicationDirPath()).filePath("fogstudio-cli");
    if (!QFileInfo(cli).isExecutable()) cli = QStandardPaths::findExecutable("fogstudio-cli");
    if (cli.isEmpty()) {
        QMessageBox::warning(parent, QObject::tr("Run on Testbed"),
                             QObject::tr("fogstudio-cli was not found beside this program or on PATH."));
        return;
    }
    auto* file = new QTemporaryFile(QDir::temp().filePath("fogstudio-testbed-XXXXXX.yaml"));
    if (!file->open() || file->write(QByteArray::fromStdString(storedScenarioText(scenario))) < 0 || !file->flush()) {
        QMessageBox::warning(parent, QObject::tr("Run on Testbed"),
                             QObject::tr("Cannot write the scenario to %1.").arg(file->fileName()));
        delete file;
        return;
    }
    auto* dialog = new QDialog(parent);
    dialog->setObjectName("testbedDialog");
    dialog->setWindowTitle(QObject::tr("Run on Testbed"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // The dialog's first child, so the first deleted when the dialog goes (with its parent,
    // the main window, say, while the testbed still runs): it disconnects the process before
    // the labels and buttons its handlers touch are deleted, and stops it as Stop would.
    auto* lifeline = new QObject(dialog);
    auto* layout = new QVBoxLayout(dialog);
    auto* status = new QLabel(QObject::tr("Predicting, then playing the rounds on shaped links (needs root)..."), dialog);
    auto* text = new QPlainTextEdit(dialog);
    text->setReadOnly(true);
    text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text->setMinimumSize(760, 360);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QPushButton* stop = buttons->addButton(QObject::tr("Stop"), QDialogButtonBox::RejectRole);
    // Shown when the processes cannot train the scenario (the refusal names --no-training):
    // the same rounds again, times and bytes only.
    QPushButton* untrained = buttons->addButton(QObject::tr("Run without Training"), QDialogButtonBox::ActionRole);
    untrained->setObjectName("testbedWithoutTraining");
    untrained->hide();
    // After a run that was stored: its prediction and measurement side by side
    // (widgets/testbed), opened at once and again from here.
    QPushButton* comparison = buttons->addButton(QObject::tr("Show Comparison"), QDialogButtonBox::ActionRole);
    comparison->setObjectName("testbedShowComparison");
    comparison->hide();
    layout->addWidget(status);
    layout->addWidget(text);
    layout->addWidget(buttons);
    file->setParent(dialog); // removed with the dialog

    auto* process = new QProcess(dialog);
    process->setProcessChannelMode(QProcess::MergedChannels);
    QStringList args{"testbed", file->fileName()};
    if (!dbPath.isEmpty()) args << "--db" << dbPath;
    QObject::connect(process, &QProcess::readyRead, text, [process, text] {
        text->moveCursor(QTextCursor::End);
        text->insertPlainText(QString::fromUtf8(process->readAll()));
    });
    QObject::connect(untrained, &QPushButton::clicked, process, [=] {
        untrained->hide();
        stop->setEnabled(true);
        status->setText(QObject::tr("Predicting, then playing the rounds without training (needs root)..."));
        text->appendPlainText(QString());
        process->start(cli, args + QStringList{"--no-training"});
    });
    // The measured run named in the output ("stored as run N (testbed)"), in the store the
    // command wrote.
    auto openComparison = [dialog, text, dbPath]() -> bool {
        const auto m = QRegularExpression("stored as run (\\d+) \\(testbed\\)").match(text->toPlainText());
        if (!m.hasMatch()) return false;
        try {
            const RunStore store(dbPath.isEmpty() ? RunStore::defaultPath() : dbPath.toStdString(), true);
            return showTestbedComparison(dialog, store, m.captured(1).toLongLong()) != nullptr;
        } catch (const StoreError& e) {
            QMessageBox::warning(dialog, QObject::tr("Testbed Comparison"), QString::fromStdString(e.what()));
            return false;
        }
    };
    QObject::connect(comparison, &QPushButton::clicked, dialog, openComparison);
    // Stop: SIGTERM, which the testbed takes as Ctrl-C (it removes every namespace and process).
    QObject::connect(stop, &QPushButton::clicked, process, &QProcess::terminate);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, [dialog, process] {
        if (process->state() == QProcess::NotRunning) dialog->close();
    });
    QObject::connect(process, &QProcess::finished, dialog, [=](int code, QProcess::ExitStatus how) {
        stop->setEnabled(false);
        status->setText(how == QProcess::NormalExit && code == 0 ? QObject::tr("Done: both runs are in the runs list.")
                        : code == 130 ? QObject::tr("Stopped: everything the testbed set up was removed.")
                                      : QObject::tr("The testbed did not run (see its message)."));
        if (code == 1 && text->toPlainText().contains("(--no-training)") && !process->arguments().contains("--no-training"))
            untrained->show();
        if (stored) stored();
        if (how == QProcess::NormalExit && code == 0 && openComparison()) comparison->show();
    });
    QObject::connect(process, &QProcess::errorOccurred, dialog, [=](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) status->setText(QObject::tr("Cannot start %1.").arg(cli));
    });
    QObject::connect(dialog, &QDialog::finished, process, [process] {
        if (process->state() != QProcess::NotRunning) {
            process->terminate();
            process->waitForFinished(10000);
        }
    });
    QObject::connect(lifeline, &QObject::destroyed, process, [process] {
        QObject::disconnect(process, nullptr, nullptr, nullptr);
        if (process->state() == QProcess::NotRunning) return;
        process->terminate(); // the testbed takes SIGTERM as Ctrl-C and removes what it set up
        if (!process->waitForFinished(10000)) {
            process->kill();
            process->waitForFinished(2000);
        }
    });
    dialog->show();
    process->start(cli, args);
}

} // namespace fog
