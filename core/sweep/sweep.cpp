#include "core/sweep/sweep.h"

#include "core/engine/engine.h"
#include "core/util/random.h"

#include <mutex>
#include <sstream>
#include <thread>

namespace fog {

SweepAxis parseSweepAxis(const std::string& arg) {
    const Override o = parseOverride(arg);
    SweepAxis axis;
    axis.path = o.path;
    // Values are split on commas outside brackets, so lists can be varied too: a=[1,2],[3].
    int depth = 0;
    std::string cur;
    for (char c : o.value) {
        if (c == '[' || c == '{') ++depth;
        if (c == ']' || c == '}') --depth;
        if (c == ',' && depth == 0) {
            axis.values.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    axis.values.push_back(cur);
    for (const auto& v : axis.values)
        if (v.empty())
            throw ScenarioError({{"--vary", 0, 0, o.path, "has an empty value in '" + o.value + "'"}});
    return axis;
}

std::vector<std::vector<Override>> sweepConfigurations(const std::vector<SweepAxis>& axes) {
    std::vector<std::vector<Override>> configs{{}};
    for (const auto& axis : axes) {
        std::vector<std::vector<Override>> next;
        for (const auto& c : configs)
            for (const auto& v : axis.values) {
                auto n = c;
                n.push_back({axis.path, v});
                next.push_back(std::move(n));
            }
        configs = std::move(next);
    }
    return configs;
}

std::uint64_t repeatSeed(std::uint64_t scenarioSeed, int repeat) {
    return repeat == 0 ? scenarioSeed : deriveSeed(scenarioSeed, hashName("repeat"), static_cast<std::uint64_t>(repeat));
}

std::int64_t runAndStore(const Scenario& scenario, RunStore& store, NewRun meta, int threads,
                         RunObserver* extraObserver, RunSummary& summary, const std::atomic<bool>* cancel) {
    EngineOptions options;
    options.threads = threads;
    options.observer = extraObserver;
    options.cancelFlag = cancel;
    return runAndStore(scenario, store, std::move(meta), options, summary, {});
}

std::int64_t runAndStore(const Scenario& scenario, RunStore& store, NewRun meta,
                         const EngineOptions& engineOptions, RunSummary& summary,
                         const std::function<void(Engine*, std::int64_t)>& onEngine) {
    EngineOptions options = engineOptions;
    meta.scenarioYaml = saveScenarioText(scenario);
    meta.seed = scenario.seed;
    meta.threads = options.threads;
    if (meta.name.empty()) meta.name = scenario.name;
    const std::int64_t id = store.beginRun(meta);
    StoreRecorder recorder(store, id);
    ObserverList observers;
    observers.add(&recorder);
    if (options.observer) observers.add(options.observer);
    options.observer = &observers;
    try {
        Engine engine(scenario, options);
        if (onEngine) onEngine(&engine, id);
        struct Done { // tells the front-end before the engine goes, even on an exception
            const std::function<void(Engine*, std::int64_t)>& f;
            std::int64_t id;
            ~Done() { if (f) f(nullptr, id); }
        } done{onEngine, id};
        summary = engine.run();
    } catch (const std::exception& e) {
        // Set-up failed (data, model): keep the run, marked failed, with the reason.
        summary = RunSummary{};
        summary.status = RunStatus::Failed;
        summary.stopReason = e.what();
        recorder.onFinish(summary);
    }
    return id;
}

namespace {

std::string describe(const std::vector<Override>& config) {
    std::string s;
    for (const auto& o : config) s += (s.empty() ? "" : " ") + o.path + "=" + o.value;
    return s.empty() ? "(base)" : s;
}

} // namespace

SweepResult runSweep(const SweepSpec& spec, RunStore& store,
                     const std::function<void(const SweepProgress&)>& progress,
                     const std::atomic<bool>* cancel) {
    struct Item {
        Scenario scenario;
        std::string config;
        int repeat;
    };
    std::vector<Item> items;
    std::vector<Diagnostic> problems;
    for (const auto& config : sweepConfigurations(spec.axes)) {
        std::vector<Override> all = spec.base;
        all.insert(all.end(), config.begin(), config.end());
        try {
            const Scenario s = loadScenarioFile(spec.file, all);
            for (int r = 0; r < std::max(1, spec.repeats); ++r) {
                Item it{s, describe(config), r};
                it.scenario.seed = repeatSeed(s.seed, r);
                items.push_back(std::move(it));
            }
        } catch (const ScenarioError& e) {
            problems.insert(problems.end(), e.diagnostics.begin(), e.diagnostics.end());
        }
    }
    if (!problems.empty()) throw ScenarioError(problems);

    std::ostringstream specText;
    specText << spec.file;
    for (const auto& o : spec.base) specText << " --set " << o.path << "=" << o.value;
    for (const auto& a : spec.axes) {
        specText << " --vary " << a.path << "=";
        for (std::size_t i = 0; i < a.values.size(); ++i) specText << (i ? "," : "") << a.values[i];
    }
    specText << " --repeat " << spec.repeats;
    SweepResult result;
    result.sweepId = store.createSweep(spec.name.empty() ? items.front().scenario.name : spec.name, specText.str());
    result.runIds.assign(items.size(), 0);

    std::atomic<std::size_t> next{0};
    std::mutex progressMutex;
    int done = 0;
    auto worker = [&] {
        for (std::size_t i; (i = next++) < items.size();) {
            if (cancel && cancel->load()) return;
            const Item& it = items[i];
            NewRun meta;
            meta.name = it.scenario.name + " [" + it.config + "] #" + std::to_string(it.repeat);
            meta.tags = spec.tags;
            meta.sweepId = result.sweepId;
            meta.repeat = it.repeat;
            meta.sweepConfig = it.config;
            RunSummary summary;
            try {
                result.runIds[i] = runAndStore(it.scenario, store, meta, spec.threadsPerRun, nullptr, summary, cancel);
            } catch (const std::exception& e) { // the store failed (full disk, ...): not an abort
                summary = RunSummary{};
                summary.status = RunStatus::Failed;
                summary.stopReason = e.what();
                std::lock_guard lock(progressMutex);
                result.errors.push_back(e.what());
            }
            std::lock_guard lock(progressMutex);
            ++done;
            if (summary.status == RunStatus::Failed) ++result.failed;
            if (progress) progress({done, static_cast<int>(items.size()), it.config, it.repeat, summary});
        }
    };
    std::vector<std::thread> threads;
    for (int p = 0; p < std::max(1, spec.parallel); ++p) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    return result;
}

} // namespace fog
