#include "core/sweep/sweep.h"
#include "core/model/torchscript_model.h"

#include "core/engine/engine.h"
#include "core/scenario/variants.h"
#include "core/store/sqlite_db.h"
#include "core/scenario/events_io.h"
#include "core/util/random.h"

#include <algorithm>
#include <cstdlib>
#include <map>
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

std::string storedScenarioText(const Scenario& scenario) {
    // A run is one run: the file's variants and lesson are not part of what it ran.
    Scenario copy = withoutVariants(scenario);
    copy.data = withAbsoluteDataPaths(scenario.data);
    copy.model = withAbsoluteModelPath(scenario.model);
    makeTracePathsAbsolute(copy, scenario.data.baseDir);
    return saveScenarioText(copy);
}

std::int64_t runAndStore(const Scenario& scenario, RunStore& store, NewRun meta,
                         const EngineOptions& engineOptions, RunSummary& summary,
                         const std::function<void(Engine*, std::int64_t)>& onEngine) {
    EngineOptions options = engineOptions;
    meta.scenarioYaml = storedScenarioText(scenario);
    meta.seed = scenario.seed;
    meta.threads = options.threads;
    if (meta.name.empty()) meta.name = scenario.name;
    const std::int64_t id = store.beginRun(meta);
    StoreRecorder recorder(store, id);
    // Live interventions join the stored scenario's events (with their after_event place),
    // so that a re-run from the store reproduces the intervened run.
    struct Interventions : RunObserver {
        RunStore& store;
        std::int64_t id;
        Scenario scenario;
        Interventions(RunStore& s, std::int64_t i, const Scenario& sc) : store(s), id(i), scenario(sc) {}
        void onIntervention(const TimedEvent& e) override {
            scenario.events.list.push_back(e);
            sortEvents(scenario.events.list);
            store.setScenarioYaml(id, storedScenarioText(scenario));
        }
    } interventions(store, id, scenario);
    ObserverList observers;
    observers.add(&recorder);
    observers.add(&interventions);
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

/// Shell quoting, only where needed, so the stored spec reads like the command line.
std::string shellQuote(const std::string& v) {
    if (!v.empty() && v.find_first_of(" \t'\"{}[]*?|&;<>()$`\\#~") == std::string::npos) return v;
    std::string q = "'";
    for (char c : v) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

/// Splits shell words (single and double quotes, backslash escapes); false on an open quote.
bool shellSplit(const std::string& text, std::vector<std::string>& words) {
    std::string cur;
    bool inWord = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\'') {
            const auto end = text.find('\'', i + 1);
            if (end == std::string::npos) return false;
            cur += text.substr(i + 1, end - i - 1);
            i = end;
            inWord = true;
        } else if (c == '"') {
            std::size_t j = i + 1;
            for (; j < text.size() && text[j] != '"'; ++j) {
                if (text[j] == '\\' && j + 1 < text.size()) ++j;
                cur += text[j];
            }
            if (j >= text.size()) return false;
            i = j;
            inWord = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            cur += text[++i];
            inWord = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (inWord) words.push_back(cur);
            cur.clear();
            inWord = false;
        } else {
            cur += c;
            inWord = true;
        }
    }
    if (inWord) words.push_back(cur);
    return true;
}

} // namespace

SweepPlan planSweep(const SweepSpec& spec) {
    SweepPlan plan;
    std::vector<Diagnostic> problems;
    // The command line's counts get the caps of the file format (variants.h), before anything
    // is built: --repeat 1000000000 or nine --vary of ten values would hold gigabytes.
    if (spec.repeats > kMaxRepeats)
        throw ScenarioError({{"--repeat", 0, 0, "",
                              "must be <= " + std::to_string(kMaxRepeats) + " (the cap of repeats: in a scenario file), got " +
                                  std::to_string(spec.repeats)}});
    auto countText = [](double n) {
        return n < 1e18 ? std::to_string(static_cast<long long>(n)) : std::string("more than 10^18");
    };
    auto gridOf = [](const std::vector<SweepAxis>& axes, double from) {
        double n = from;
        std::string product;
        for (const auto& a : axes) {
            n *= static_cast<double>(a.values.size());
            product += (product.empty() ? "" : " x ") + std::to_string(a.values.size());
        }
        return std::make_pair(n, product);
    };
    if (const auto [n, product] = gridOf(spec.axes, 1.0); n > kMaxVariantConfigurations)
        throw ScenarioError({{"--vary", 0, 0, "",
                              "gives " + countText(n) + " configurations (" + product + " values), more than " +
                                  std::to_string(kMaxVariantConfigurations) +
                                  " (the cap of a scenario file's variants x vary grid)"}});
    // The file's variants (each with its point of the `vary:` grid), or just the base.
    std::vector<VariantConfig> variants{VariantConfig{}};
    int repeats = std::max(1, spec.repeats);
    if (spec.variants) {
        const Scenario base = loadVariantBase(spec.file, spec.base); // checks every variant
        variants = variantConfigurations(base, spec.variant);
        if (spec.repeats <= 0) repeats = base.repeats;
        if (const auto [n, product] = gridOf(spec.axes, static_cast<double>(variants.size()));
            n > kMaxVariantConfigurations)
            throw ScenarioError({{"--vary", 0, 0, "",
                                  "crossed with the file's " + std::to_string(variants.size()) + " configurations gives " +
                                      countText(n) + ", more than " + std::to_string(kMaxVariantConfigurations) +
                                      " (the cap of a scenario file's variants x vary grid)"}});
    }
    // Each configuration was checked as a variant above (or is not run): no need to check
    // all the file's variants again in every load.
    SuspendVariantChecks checked;
    for (const auto& variant : variants)
        for (const auto& config : sweepConfigurations(spec.axes)) {
            std::vector<Override> all = variant.overrides;
            all.insert(all.end(), spec.base.begin(), spec.base.end());
            all.insert(all.end(), config.begin(), config.end());
            std::string label = describe(config);
            if (spec.variants && (variant.label != "(base)" || config.empty()))
                label = config.empty() ? variant.label : variant.label + " " + label;
            try {
                const Scenario s = withoutVariants(loadScenarioFile(spec.file, all));
                for (int r = 0; r < repeats; ++r) {
                    SweepItem it{s, label, r};
                    it.scenario.seed = repeatSeed(s.seed, r);
                    plan.items.push_back(std::move(it));
                }
            } catch (const ScenarioError& e) {
                for (Diagnostic d : e.diagnostics) {
                    if (spec.variants && !variant.label.empty()) d.message += " (configuration " + label + ")";
                    problems.push_back(std::move(d));
                }
            }
        }
    if (!problems.empty()) throw ScenarioError(problems);

    std::ostringstream specText;
    specText << shellQuote(spec.file);
    if (spec.variants) specText << " --variants";
    if (spec.variants && !spec.variant.empty()) specText << " --variant " << shellQuote(spec.variant);
    for (const auto& o : spec.base) specText << " --set " << shellQuote(o.path + "=" + o.value);
    for (const auto& a : spec.axes) {
        std::string v = a.path + "=";
        for (std::size_t i = 0; i < a.values.size(); ++i) v += (i ? "," : "") + a.values[i];
        specText << " --vary " << shellQuote(v);
    }
    specText << " --repeat " << repeats;
    plan.specText = specText.str();
    plan.name = spec.name.empty() ? plan.items.front().scenario.name : spec.name;
    return plan;
}

SweepSpec parseSweepSpecText(const std::string& text) {
    std::vector<std::string> words;
    auto bad = [&](const std::string& why) {
        return ScenarioError({{"--resume", 0, 0, "", "cannot read the stored sweep spec '" + text + "': " + why +
                                                         "; give FILE and the same --vary options again"}});
    };
    if (!shellSplit(text, words) || words.empty()) throw bad("unbalanced quotes");
    SweepSpec spec;
    spec.file = words[0];
    for (std::size_t i = 1; i < words.size(); ++i) {
        const std::string& w = words[i];
        if (w == "--variants") {
            spec.variants = true;
            continue;
        }
        if (i + 1 >= words.size()) throw bad("'" + w + "' has no value");
        const std::string& v = words[++i];
        if (w == "--set") spec.base.push_back(parseOverride(v));
        else if (w == "--vary") spec.axes.push_back(parseSweepAxis(v));
        else if (w == "--repeat") spec.repeats = std::clamp(std::atoi(v.c_str()), 1, kMaxRepeats + 1); // over: refused by planSweep
        else if (w == "--variant") spec.variant = v;
        else throw bad("unknown word '" + w + "'");
    }
    if (spec.axes.empty() && !spec.variants) throw bad("no --vary");
    return spec;
}

std::optional<std::pair<std::string, std::string>> storedSweep(const RunStore& store, std::int64_t sweepId) {
    // A second, read-only connection: the run store keeps its statements to itself.
    SqliteDb db(store.path(), false);
    SqliteStmt s(db, "SELECT name, spec FROM sweeps WHERE id = ?1");
    s.bind(1, sweepId);
    if (!s.step()) return std::nullopt;
    return std::make_pair(s.text(0), s.text(1));
}

SweepState sweepState(const RunStore& store, std::int64_t sweepId, const SweepPlan& plan) {
    SweepState st;
    st.done.assign(plan.items.size(), 0);
    std::map<std::pair<std::string, int>, std::size_t> index;
    for (std::size_t i = 0; i < plan.items.size(); ++i) index[{plan.items[i].config, plan.items[i].repeat}] = i;
    RunFilter f;
    f.sweepId = sweepId;
    for (const auto& r : store.listRuns(f)) {
        auto it = index.find({r.sweepConfig, r.repeat});
        if (it == index.end()) {
            st.foreign.push_back(r.sweepConfig + " #" + std::to_string(r.repeat));
            continue;
        }
        if (r.status == "finished" || r.status == "failed") st.done[it->second] = 1;
        else if (r.status != "running") st.incomplete.push_back(r.id);
    }
    return st;
}

NewRun sweepRunMeta(const SweepSpec& spec, std::int64_t sweepId, const SweepItem& it) {
    NewRun meta;
    meta.name = it.scenario.name + " [" + it.config + "] #" + std::to_string(it.repeat);
    meta.tags = spec.tags;
    meta.sweepId = sweepId;
    meta.repeat = it.repeat;
    meta.sweepConfig = it.config;
    return meta;
}

SweepResult runSweep(const SweepSpec& spec, RunStore& store,
                     const std::function<void(const SweepProgress&)>& progress,
                     const std::atomic<bool>* cancel) {
    const SweepPlan plan = planSweep(spec);
    const auto& items = plan.items;
    SweepResult result;
    std::vector<char> skip(items.size(), 0);
    std::vector<std::int64_t> incomplete;
    if (spec.resume) {
        if (!storedSweep(store, spec.resume))
            throw ScenarioError({{"--resume", 0, 0, "", "there is no sweep " + std::to_string(spec.resume) + " in " +
                                                            store.path()}});
        const SweepState st = sweepState(store, spec.resume, plan);
        if (!st.foreign.empty())
            throw ScenarioError({{"--resume", 0, 0, "",
                                  "sweep " + std::to_string(spec.resume) + " holds runs this command would not make (" +
                                      st.foreign.front() + "): resume it with the options it was started with"}});
        skip = st.done;
        incomplete = st.incomplete;
        result.sweepId = spec.resume;
    } else {
        result.sweepId = store.createSweep(plan.name, plan.specText);
    }
    result.runIds.assign(items.size(), 0);
    int todo = 0;
    for (char s : skip) todo += !s;
    result.skipped = static_cast<int>(items.size()) - todo;

    std::atomic<std::size_t> next{0};
    std::mutex progressMutex;
    int done = 0;
    auto worker = [&] {
        for (std::size_t i; (i = next++) < items.size();) {
            if (skip[i]) continue;
            if (cancel && cancel->load()) return;
            const SweepItem& it = items[i];
            RunSummary summary;
            std::int64_t id = 0;
            try {
                id = runAndStore(it.scenario, store, sweepRunMeta(spec, result.sweepId, it), spec.threadsPerRun,
                                 nullptr, summary, cancel);
            } catch (const std::exception& e) { // the store failed (full disk, ...): not an abort
                summary = RunSummary{};
                summary.status = RunStatus::Failed;
                summary.stopReason = e.what();
                std::lock_guard lock(progressMutex);
                result.errors.push_back(e.what());
            }
            std::lock_guard lock(progressMutex);
            if (summary.status == RunStatus::Cancelled) {
                result.cancelled = true;
                continue;
            }
            result.runIds[i] = id;
            ++done;
            if (summary.status == RunStatus::Failed) ++result.failed;
            if (progress) progress({done, todo, it.config, it.repeat, summary});
        }
    };
    std::vector<std::thread> threads;
    // No more threads than runs to do (--parallel is capped by the CLI, kMaxParallelRuns).
    const int workers = std::clamp(spec.parallel, 1, std::max(1, std::min(todo, kMaxParallelRuns)));
    for (int p = 0; p < workers; ++p) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
    if (cancel && cancel->load()) result.cancelled = true;
    // Runs cut short earlier are superseded by complete ones with the same seed.
    if (!result.cancelled)
        for (auto id : incomplete)
            if (store.deleteRun(id)) ++result.replaced;
    return result;
}

} // namespace fog
