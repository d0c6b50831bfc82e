#pragma once
// The shipped scenarios the Presets menu offers: found next to the installed program, in the
// source tree, or in $FOGSTUDIO_PRESETS; the quickstart is also compiled in, so the studio
// always opens with a scenario ready to run.

#include <QString>
#include <QVector>

namespace fog {

struct PresetEntry {
    QString path;        ///< file to open
    QString title;       ///< the scenario's name
    QString description; ///< what it shows, from the scenario's description
};

/// The folder the presets are read from (empty when none is found).
QString presetsDirectory();
/// Every loadable preset, sorted by file name; files that fail to load are skipped and named
/// in `problems` ("file: message").
QVector<PresetEntry> listPresets(const QString& directory, QStringList* problems = nullptr);
/// The quickstart scenario's path: the file in the presets folder, else the compiled-in copy.
QString defaultScenarioPath();

} // namespace fog
