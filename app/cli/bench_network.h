#pragma once
// `fogstudio-cli bench network`: speed of the flow-level network model (contention on vs off).

#include <QStringList>

#include <ostream>

namespace fog::cli {

/// `args`: the arguments after "network" (none, or "--presets" [DIR]). Prints the report to
/// `out`; 0 on success.
int runNetworkBench(const QStringList& args, std::ostream& out);

} // namespace fog::cli
