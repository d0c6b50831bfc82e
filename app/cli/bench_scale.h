#pragma once
// `fogstudio-cli bench scale [--devices N]`: the engine's memory and set-up time at scale.

#include <QStringList>

#include <ostream>

namespace fog::cli {

/// `args`: the arguments after "scale" ("--devices", "N"). Prints the report to `out`.
int runScaleBench(const QStringList& args, std::ostream& out);

} // namespace fog::cli
