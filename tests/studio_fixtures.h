#pragma once
// Shared by the studio's GUI tests (test_studio_*.cpp): a run stored as the CLI stores it.

#include "core/scenario/scenario_io.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"

#include <cstdint>
#include <string>

namespace fogtest {

/// Runs `s` (timing-only runs take milliseconds) and stores it under `name`.
inline std::int64_t storeRun(fog::RunStore& store, const fog::Scenario& s, const std::string& name) {
    fog::NewRun meta;
    meta.name = name;
    meta.scenarioYaml = fog::saveScenarioText(s);
    meta.seed = s.seed;
    fog::RunSummary summary;
    return fog::runAndStore(s, store, meta, 1, nullptr, summary);
}

} // namespace fogtest
