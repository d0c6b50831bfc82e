#pragma once
// What the scenario fuzz harnesses check beyond "no crash, no leak, no hang": every refusal
// is a ScenarioError with located, non-empty messages, and a scenario that validates writes
// out as YAML that loads back and writes out again to the same text (the writer's promise in
// scenario_io.h). A broken property aborts, which libFuzzer reports as a crash with the input.

#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fogfuzz {

[[noreturn]] inline void fail(const char* what, const std::string& detail) {
    std::fprintf(stderr, "fuzz check failed: %s\n%s\n", what, detail.c_str());
    std::abort();
}

/// Every diagnostic must say something and carry a sane position.
inline void checkDiagnostics(const fog::ScenarioError& e) {
    if (e.diagnostics.empty()) fail("ScenarioError without diagnostics", e.what());
    for (const auto& d : e.diagnostics) {
        if (d.message.empty()) fail("diagnostic without a message", d.format());
        if (d.line < 0 || d.column < 0) fail("diagnostic with a negative position", d.format());
        (void)d.format();
    }
}

/// A validated scenario survives save -> load -> save unchanged. The text is saved as a run
/// stores it: relative trace references made absolute, since "<saved>" has no folder.
inline void checkRoundTrip(const fog::Scenario& loaded) {
    fog::Scenario s = loaded;
    fog::makeTracePathsAbsolute(s, loaded.data.baseDir);
    const std::string first = fog::saveScenarioText(s);
    fog::Scenario again;
    try {
        again = fog::loadScenarioText(first, "<saved>");
    } catch (const fog::ScenarioError& e) {
        std::string why;
        for (const auto& d : e.diagnostics) why += d.format() + "\n";
        fail("a validated scenario, once saved, does not load back", why + "--- saved text:\n" + first);
    }
    const std::string second = fog::saveScenarioText(again);
    if (second != first)
        fail("save(load(save(s))) differs from save(s)",
             "--- first:\n" + first + "--- second:\n" + second);
    if (!fog::validateScenario(again).empty())
        fail("validateScenario refuses a scenario the loader accepted", first);
}

} // namespace fogfuzz
