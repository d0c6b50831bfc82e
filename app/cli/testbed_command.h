#pragma once
// fogstudio-cli testbed (app/cli/testbed_command.cpp, docs/testbed.md).

#include <QStringList>

namespace fog::cli {

/// testbed FILE | testbed compare RUN | testbed cleanup, with their own options.
int cmdTestbed(const QStringList& arguments);

} // namespace fog::cli
