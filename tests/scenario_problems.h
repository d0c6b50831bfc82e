#pragma once
// Shared by tests that check a scenario's refusals (test_tiers.cpp, test_codec_links.cpp).

#include "core/scenario/scenario_io.h"

#include <QString>

#include <string>

namespace fogtest {

/// Every message of a scenario that must not load (named `fileName` in them), one per line;
/// empty when it loads.
inline QString problemsOf(const std::string& yaml, const std::string& fileName) {
    try {
        fog::loadScenarioText(yaml, fileName);
    } catch (const fog::ScenarioError& e) {
        QString all;
        for (const auto& d : e.diagnostics) all += QString::fromStdString(d.format()) + "\n";
        return all;
    }
    return {};
}

} // namespace fogtest
