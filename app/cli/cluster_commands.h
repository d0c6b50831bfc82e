#pragma once
// fogstudio-cli cluster ...: the cluster scheduling experiment (docs/cluster.md).

#include <QStringList>

namespace fog::cli {

/// `arguments`: everything after the word "cluster" (sub-command, files, options).
int cmdCluster(const QStringList& arguments);

} // namespace fog::cli
