// fogstudio-cli links no Qt Widgets and no QCustomPlot (issue 24): it runs headless and under
// mpirun, and loads its figures module (app/cli/figure_module.h) only for plots and reports.
// Checked twice: the libraries the executable itself needs (readelf -d: what its link line
// gave it), and every library the loader maps for it (ldd) for the studio's GUI stack (Qt 6
// Widgets, PrintSupport, QCustomPlot). Debian's LibTorch pulls Qt 5 Widgets in through
// OpenCV's highgui, which is LibTorch's packaging, not ours: the ldd check names Qt 6.

#include <QtTest>

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

namespace {

/// The shared libraries ldd lists for `file`, one name each (e.g. "libQt6Core.so.6").
QStringList sharedLibraries(const QString& file) {
    QProcess p;
    p.start("ldd", {file});
    if (!p.waitForFinished(30000) || p.exitCode() != 0) return {};
    QStringList names;
    for (const QString& line : QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts))
        names << line.trimmed().section(' ', 0, 0);
    return names;
}

/// The NEEDED entries of `file`'s dynamic section: what its own link line gave it.
QStringList neededLibraries(const QString& file) {
    QProcess p;
    p.start("readelf", {"-d", file});
    if (!p.waitForFinished(30000) || p.exitCode() != 0) return {};
    QStringList names;
    static const QRegularExpression needed("\\(NEEDED\\)\\s+Shared library: \\[([^\\]]+)\\]");
    auto it = needed.globalMatch(QString::fromUtf8(p.readAllStandardOutput()));
    while (it.hasNext()) names << it.next().captured(1);
    return names;
}

/// The names in `libs` that are Qt Widgets (or a library built on it).
QStringList widgetLibraries(const QStringList& libs) {
    QStringList bad;
    for (const QString& l : libs)
        if (l.startsWith("libQt6Widgets") || l.startsWith("libQt6PrintSupport") || l.contains("qcustomplot", Qt::CaseInsensitive) ||
            l.startsWith("libQt6SvgWidgets"))
            bad << l;
    return bad;
}

const char* kScenario = R"(schema_version: 1
name: links
topology:
  nodes:
    - {id: server, role: aggregator, price_per_hour: 3600}
  groups:
    - {id: w, count: 3, parent: server, compute: {throughput: 1}}
data: {dataset: none, samples_per_trainer: 10}
model: {kind: none}
training: {batch_size: 1}
sync: {policy: fully-sync}
stop: {rounds: 4}
)";

/// Runs the small scenario with `cli`, stored in `db` (a headless run: no module needed).
void storeOneRun(const QString& cli, const QTemporaryDir& dir, const QString& db) {
    QFile f(dir.filePath("s.yaml"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(kScenario);
    f.close();
    QProcess p;
    p.start(cli, {"run", f.fileName(), "--db", db, "--quiet"});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
}

} // namespace

class TestCliLinks : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void theCliLinksNoGuiLibrary() {
        const QStringList needed = neededLibraries(FOG_CLI);
        QVERIFY2(needed.filter("libQt6Core").size() == 1, qPrintable(needed.join(", ")));
        QStringList bad;
        for (const QString& l : needed)
            if (l.contains("Widgets") || l.contains("PrintSupport") || l.contains("Svg") || l.contains("Qt6Gui") ||
                l.contains("Qt5") || l.contains("qcustomplot", Qt::CaseInsensitive))
                bad << l;
        QVERIFY2(bad.isEmpty(), qPrintable("fogstudio-cli is linked with " + bad.join(", ") +
                                           ": plots belong in the figures module (app/figures)"));
    }

    void theCliLoadsNoWidgets() {
        const QStringList libs = sharedLibraries(FOG_CLI);
        QVERIFY2(libs.size() > 3, "ldd listed nothing for fogstudio-cli");
        QVERIFY2(libs.filter("libQt6Core").size() == 1, qPrintable(libs.join(", ")));
        const QStringList bad = widgetLibraries(libs);
        QVERIFY2(bad.isEmpty(), qPrintable("fogstudio-cli links " + bad.join(", ") +
                                           ": plots belong in the figures module (app/figures)"));
    }

    /// The check above would pass on a module that drew nothing: the module is what links them.
    void theModuleLinksTheFigures() {
        const QString module = QFileInfo(FOG_CLI).absolutePath() + "/" + FOG_FIGURES_MODULE;
        QVERIFY2(QFile::exists(module), qPrintable(module));
        const QStringList bad = widgetLibraries(sharedLibraries(module));
        QVERIFY2(bad.filter("libQt6Widgets").size() == 1, qPrintable(bad.join(", ")));
    }

    /// What a user does: a run, then its plots and a report, through the module.
    void plotsAndReportsStillWork() {
        QTemporaryDir dir;
        const QString db = dir.filePath("runs.db");
        storeOneRun(FOG_CLI, dir, db);
        if (QTest::currentTestFailed()) return;
        QProcess p;
        p.start(FOG_CLI, {"export", "plots", "--db", db, "--out", dir.filePath("plots"), "--format", "svg"});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        for (const char* name : {"accuracy", "loss", "cost", "energy", "timeline"})
            QVERIFY2(QFileInfo(dir.filePath(QString("plots/%1.svg").arg(name))).size() > 1000, name);
        p.start(FOG_CLI, {"export", "report", "--db", db, "--out", dir.filePath("r.html")});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        QVERIFY(QFileInfo(dir.filePath("r.html")).size() > 1000);
    }

    /// A CLI without its module (copied elsewhere): runs work, plots say what is missing.
    void withoutTheModulePlotsSayWhy() {
        QTemporaryDir dir;
        const QString cli = dir.filePath("fogstudio-cli");
        QVERIFY(QFile::copy(FOG_CLI, cli));
        const QString db = dir.filePath("runs.db");
        storeOneRun(cli, dir, db);
        if (QTest::currentTestFailed()) return;
        QProcess p;
        p.start(cli, {"export", "plots", "--db", db, "--out", dir.filePath("plots")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(err.contains("fogstudio-cli: plots and reports need the figures module " FOG_FIGURES_MODULE
                              ", which is not installed (looked for " + dir.path()),
                 qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestCliLinks)
#include "test_cli_links.moc"
