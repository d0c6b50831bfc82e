// libFuzzer harness: the `--set KEY=VALUE` path of fogstudio-cli applied to a valid scenario.
// Input: the first byte picks the base scenario (a preset or a test scenario, loaded from the
// source tree at start-up, the way the CLI loads them); every following line is one --set
// argument, parsed with parseOverride (a refused argument must be a ScenarioError, and the
// CLI would stop there, so it is skipped) and applied by loadScenarioFile.
// See docs/testing.md and packaging/ci/20-fuzz.sh.

#include "fuzz_check.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace {

std::vector<std::string> g_bases;

std::vector<std::string> candidateBases() {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    const fs::path src(FOG_SOURCE_DIR);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(src / "presets", ec))
        if (entry.path().extension() == ".yaml") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end()); // the first byte must pick the same file every run
    for (const char* name : {"minimal.yaml", "full.yaml"})
        files.push_back((src / "tests/data/scenarios" / name).string());
    return files;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    for (const auto& file : candidateBases()) {
        try {
            (void)fog::loadScenarioFile(file);
            g_bases.push_back(file);
        } catch (const fog::ScenarioError& e) {
            // A base that does not validate tests nothing of --set; say so and go on.
            std::fprintf(stderr, "fuzz_set: skipping base %s: %s\n", file.c_str(),
                         e.diagnostics.empty() ? "?" : e.diagnostics.front().format().c_str());
        }
    }
    if (g_bases.empty()) {
        std::fprintf(stderr, "fuzz_set: no valid base scenario under %s\n", FOG_SOURCE_DIR);
        std::abort();
    }
    std::fprintf(stderr, "fuzz_set: %zu base scenarios\n", g_bases.size());
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string& base = g_bases[data[0] % g_bases.size()];
    const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);

    std::vector<fog::Override> overrides;
    std::size_t start = 0;
    while (start <= rest.size()) {
        std::size_t end = rest.find('\n', start);
        if (end == std::string::npos) end = rest.size();
        const std::string arg = rest.substr(start, end - start);
        start = end + 1;
        if (arg.empty()) continue;
        try {
            overrides.push_back(fog::parseOverride(arg));
        } catch (const fog::ScenarioError& e) {
            fogfuzz::checkDiagnostics(e);
        }
    }

    try {
        const fog::Scenario s = fog::loadScenarioFile(base, overrides);
        fogfuzz::checkRoundTrip(s);
    } catch (const fog::ScenarioError& e) {
        fogfuzz::checkDiagnostics(e);
    }
    return 0;
}
