#pragma once
// `fogstudio-cli bench scale [--devices N] [--contention on|off|both]`: the engine's memory
// and time at scale, with the flow-level network off and on.

#include <QStringList>

#include <ostream>

namespace fog::cli {

/// `args`: the arguments after "scale" ("--devices", "N", "--contention", "on|off|both").
/// Prints the report to `out`; each setting runs in a child process (its own peak RSS).
int runScaleBench(const QStringList& args, std::ostream& out);

} // namespace fog::cli
