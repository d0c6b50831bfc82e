#include "app/gui/presets.h"

#include "core/cluster/cluster_io.h"
#include "core/scenario/scenario_io.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace fog {

namespace {

bool hasPresets(const QString& dir) {
    return !dir.isEmpty() && QFileInfo::exists(dir + "/quickstart.yaml");
}

/// Copies the compiled-in quickstart to a real file (the loader reads files, and a file
/// path lets error messages name it).
QString extractBuiltInQuickstart() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::TempLocation) + "/fogstudio";
    QDir().mkpath(dir);
    const QString path = dir + "/quickstart.yaml";
    QFile in(":/presets/quickstart.yaml");
    QFile out(path);
    if (in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly | QIODevice::Truncate)) out.write(in.readAll());
    return path;
}

} // namespace

QString presetsDirectory() {
    const QString env = qEnvironmentVariable("FOGSTUDIO_PRESETS");
    if (hasPresets(env)) return QDir(env).absolutePath();
    const QString app = QCoreApplication::applicationDirPath();
    for (const QString& candidate : {app + "/../share/fogstudio/presets", app + "/../../presets",
                                     QStringLiteral(FOG_SOURCE_DIR "/presets")}) {
        if (hasPresets(candidate)) return QDir(candidate).canonicalPath();
    }
    return {};
}

QVector<PresetEntry> listPresets(const QString& directory, QStringList* problems) {
    QVector<PresetEntry> out;
    if (directory.isEmpty()) return out;
    const QStringList files = QDir(directory).entryList({"*.yaml", "*.yml"}, QDir::Files, QDir::Name);
    for (const QString& f : files) {
        const QString path = QDir(directory).filePath(f);
        try {
            if (cluster::isClusterScenarioFile(path.toStdString())) { // opens in the cluster view
                const auto c = cluster::loadClusterScenarioFile(path.toStdString());
                out.push_back({path, QString::fromStdString(c.name), QString::fromStdString(c.description).trimmed()});
                continue;
            }
            const Scenario s = loadScenarioFile(path.toStdString());
            out.push_back({path, QString::fromStdString(s.name), QString::fromStdString(s.description).trimmed()});
        } catch (const std::exception& e) {
            if (problems) *problems << f + ": " + QString::fromUtf8(e.what()).section('\n', 0, 0);
        }
    }
    return out;
}

QString defaultScenarioPath() {
    const QString dir = presetsDirectory();
    if (!dir.isEmpty()) return dir + "/quickstart.yaml";
    return extractBuiltInQuickstart();
}

} // namespace fog
