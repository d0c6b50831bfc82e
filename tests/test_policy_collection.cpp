// Every policy of core/policies and every scheduler of core/cluster is collected into the
// build's lists (issue 24): the collecting script (core/util/descriptor_list.cmake) lists a
// FOG_SYNC_POLICY(fn), FOG_SELECTION_POLICY(fn) or FOG_CLUSTER_SCHEDULER(fn) line however it
// is indented, and stops the build on any other use of the macros, which would compile and
// be silently left out.

#include "core/cluster/cluster_scheduler.h"
#include "core/policies/policy_info.h"

#include <QtTest>

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

namespace {

struct Collected {
    int exitCode = -1;
    QStringList entries; ///< the list's lines, e.g. "FOG_LIST_SYNC(fedAvg)"
    QString errors;
};

/// Runs a collecting script of the build (policies by default) over `dir`.
Collected collect(const QString& dir, const QString& script = "core/policies/policy_list.cmake") {
    QTemporaryDir out;
    const QString list = out.filePath("policy_list.inc");
    QProcess p;
    p.start(FOG_CMAKE, {"-DDIR=" + dir, "-DOUT=" + list, "-P", QString(FOG_SOURCE_DIR) + "/" + script});
    Collected c;
    if (!p.waitForFinished(60000)) return c;
    c.exitCode = p.exitCode();
    c.errors = QString::fromUtf8(p.readAllStandardError());
    QFile f(list);
    if (f.open(QIODevice::ReadOnly))
        for (const QString& l : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts))
            if (!l.startsWith("//")) c.entries << l;
    return c;
}

void write(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class TestPolicyCollection : public QObject {
    Q_OBJECT

  private Q_SLOTS:
    void indentedLinesAreCollected() {
        QTemporaryDir dir;
        write(dir.filePath("a.cpp"), "FOG_SYNC_POLICY(plain) {\n}\n");
        write(dir.filePath("b.cpp"), "namespace fog {\n    FOG_SYNC_POLICY(indented) {\n    }\n\tFOG_SELECTION_POLICY ( tabbed ) {}\n}\n");
        write(dir.filePath("c.cpp"), "// FOG_SYNC_POLICY(inAComment) is how it is written\n"
                                     "#define FOG_LIST_SYNC(fn) FOG_SYNC_POLICY(fn);\n"
                                     "const char* s = \"FOG_SYNC_POLICY\";\n");
        const Collected c = collect(dir.path());
        QVERIFY2(c.exitCode == 0, qPrintable(c.errors));
        QCOMPARE(c.entries, (QStringList{"FOG_LIST_SYNC(plain)", "FOG_LIST_SYNC(indented)", "FOG_LIST_SELECTION(tabbed)"}));
    }

    void aUseItWouldMissStopsTheBuild_data() {
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("after other code") << QByteArray("static FOG_SYNC_POLICY(hidden) {}");
        QTest::newRow("in a namespace line") << QByteArray("namespace fog { FOG_SELECTION_POLICY(hidden) {} }");
        QTest::newRow("two on a line") << QByteArray("FOG_SYNC_POLICY(a) {} FOG_SYNC_POLICY(b) {}");
    }
    void aUseItWouldMissStopsTheBuild() {
        QFETCH(QByteArray, line);
        QTemporaryDir dir;
        write(dir.filePath("odd.cpp"), "// a policy\n" + line + "\n");
        const Collected c = collect(dir.path());
        QVERIFY2(c.exitCode != 0, qPrintable(c.entries.join(", ")));
        // CMake wraps the message: compared with its white space simplified.
        QVERIFY2(c.errors.contains("odd.cpp") && c.errors.simplified().contains("must begin their line"), qPrintable(c.errors));
    }

    /// The real folder: every file that builds a descriptor is listed, and the run-time list
    /// holds exactly what was collected.
    void everyPolicyFileIsCollected() {
        const QString dir = QString(FOG_SOURCE_DIR) + "/core/policies";
        const Collected c = collect(dir);
        QVERIFY2(c.exitCode == 0, qPrintable(c.errors));
        const QRegularExpression builds("\\b(Sync|Selection)PolicyDescriptor\\s+\\w+\\s*[;{=]");
        const QRegularExpression macro("^\\s*FOG_(SYNC|SELECTION)_POLICY\\s*\\(\\s*(\\w+)\\s*\\)",
                                       QRegularExpression::MultilineOption);
        int files = 0, sync = 0, selection = 0;
        QStringList missing;
        QDirIterator it(dir, {"*.cpp"});
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(f.readAll());
            if (!builds.match(text).hasMatch()) continue;
            ++files;
            auto m = macro.globalMatch(text);
            if (!m.hasNext()) missing << QFileInfo(path).fileName() + " (no FOG_*_POLICY line)";
            while (m.hasNext()) {
                const auto one = m.next();
                const QString entry = "FOG_LIST_" + one.captured(1) + "(" + one.captured(2) + ")";
                if (!c.entries.contains(entry)) missing << QFileInfo(path).fileName() + ": " + entry;
                (one.captured(1) == "SYNC" ? sync : selection)++;
            }
        }
        QVERIFY2(files > 20, "found too few policy files: is FOG_SOURCE_DIR right?");
        QVERIFY2(missing.isEmpty(), qPrintable("policy files the build does not list: " + missing.join("; ")));
        QCOMPARE(static_cast<int>(c.entries.size()), sync + selection);
        QCOMPARE(static_cast<int>(fog::syncPolicyInfos().size()), sync);
        QCOMPARE(static_cast<int>(fog::selectionPolicyInfos().size()), selection);
    }

    /// The cluster schedulers are collected the same way (core/cluster/scheduler_list.cmake).
    void everySchedulerFileIsCollected() {
        const QString dir = QString(FOG_SOURCE_DIR) + "/core/cluster";
        const Collected c = collect(dir, "core/cluster/scheduler_list.cmake");
        QVERIFY2(c.exitCode == 0, qPrintable(c.errors));
        QStringList missing;
        int files = 0;
        QDirIterator it(dir, {"sched_*.cpp"});
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            ++files;
            const auto m = QRegularExpression("^\\s*FOG_CLUSTER_SCHEDULER\\s*\\(\\s*(\\w+)\\s*\\)",
                                              QRegularExpression::MultilineOption)
                               .match(QString::fromUtf8(f.readAll()));
            if (!m.hasMatch() || !c.entries.contains("FOG_LIST_CLUSTER(" + m.captured(1) + ")"))
                missing << QFileInfo(path).fileName();
        }
        QVERIFY2(files >= 7, "found too few scheduler files: is FOG_SOURCE_DIR right?");
        QVERIFY2(missing.isEmpty(), qPrintable("scheduler files the build does not list: " + missing.join(", ")));
        QCOMPARE(static_cast<int>(c.entries.size()), files);
        QCOMPARE(static_cast<int>(fog::cluster::schedulerInfos().size()), files);
    }
};

QTEST_GUILESS_MAIN(TestPolicyCollection)
#include "test_policy_collection.moc"
