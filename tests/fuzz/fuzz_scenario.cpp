// libFuzzer harness: the whole text of a scenario file through the loader and validator
// (loadScenarioText), and through the unchecked reader the editor's clipboard uses.
// See docs/testing.md and packaging/ci/20-fuzz.sh.

#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const fog::Scenario s = fog::loadScenarioText(text, "<fuzz>");
        fogfuzz::checkRoundTrip(s);
    } catch (const fog::ScenarioError& e) {
        fogfuzz::checkDiagnostics(e);
    }
    try {
        (void)fog::readScenarioTextUnchecked(text, "<fuzz>");
    } catch (const fog::ScenarioError& e) {
        fogfuzz::checkDiagnostics(e);
    }
    return 0;
}
