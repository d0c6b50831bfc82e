#pragma once
// Run > Run on Testbed (docs/testbed.md): the current scenario played on real shaped links by
// `fogstudio-cli testbed`, which needs root; the studio starts it and shows what it printed.

#include <QString>

#include <functional>

class QWidget;

namespace fog {

struct Scenario;

/// Writes `scenario` to a temporary file and runs `fogstudio-cli testbed` on it in the
/// background (the program beside this one, else the one on PATH), storing both runs in
/// `dbPath` (empty: the default store). A dialog shows its progress and can stop it (the
/// testbed then removes everything it set up); when it ends, its output (the comparison, or
/// why it was refused, e.g. without root) is shown and `stored` is called.
void runOnTestbed(QWidget* parent, const Scenario& scenario, const QString& dbPath, std::function<void()> stored);

} // namespace fog
