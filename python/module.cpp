// The fogstudio Python module's native part (_fogstudio): the CLI's code paths (core/)
// bound with pybind11. The Python package (python/fogstudio/__init__.py) wraps it: pandas
// DataFrames, defaults, documentation. docs/python.md describes the API.
//
// Threads and the GIL: a run, sweep or fork goes on a thread of its own while the calling
// thread waits with the GIL released, waking every 50 ms to let Python handle signals
// (Ctrl-C cancels the run, which is stored as cancelled, then KeyboardInterrupt is raised).
// Progress callbacks and the Python selection policy are called from the engine's thread,
// each call taking the GIL. No Python exception crosses into the engine: a callback's
// exception cancels the run and is raised once it is stored; the selection policy's stops
// the run as failed with its traceback as the stop reason.

#include "core/analysis/analysis.h"
#include "core/analysis/tidy_export.h"
#include "core/engine/condition.h"
#include "core/engine/engine.h"
#include "core/fork/fork.h"
#include "core/policies/external_selection.h"
#include "core/policies/policy_info.h"
#include "core/scenario/events_io.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/schema.h"
#include "core/scenario/variants.h"
#include "core/store/run_store.h"
#include "core/sweep/sweep.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <yaml-cpp/yaml.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace py = pybind11;
using namespace fog;

namespace {

PyObject* g_scenarioError = nullptr;
PyObject* g_storeError = nullptr;
PyObject* g_forkError = nullptr;

// ------------------------------------------------------------------ YAML <-> Python

py::object scalarToPy(const YAML::Node& n) {
    const std::string& s = n.Scalar();
    if (n.Tag() == "!") return py::str(s); // quoted: text
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return py::none();
    if (s == "true" || s == "True" || s == "TRUE") return py::bool_(true);
    if (s == "false" || s == "False" || s == "FALSE") return py::bool_(false);
    {
        std::size_t pos = 0;
        try {
            const long long v = std::stoll(s, &pos, 10);
            if (pos == s.size()) return py::int_(v);
        } catch (const std::exception&) {
        }
        try {
            const unsigned long long v = std::stoull(s, &pos, 10);
            if (pos == s.size() && s[0] != '-') return py::int_(v);
        } catch (const std::exception&) {
        }
    }
    if (s == ".inf" || s == ".Inf" || s == "+.inf") return py::float_(INFINITY);
    if (s == "-.inf" || s == "-.Inf") return py::float_(-INFINITY);
    if (s == ".nan" || s == ".NaN") return py::float_(NAN);
    try {
        std::size_t pos = 0;
        const double v = std::stod(s, &pos);
        if (pos == s.size()) return py::float_(v);
    } catch (const std::exception&) {
    }
    return py::str(s);
}

py::object yamlToPy(const YAML::Node& n) {
    switch (n.Type()) {
    case YAML::NodeType::Map: {
        py::dict d;
        for (const auto& kv : n) d[yamlToPy(kv.first)] = yamlToPy(kv.second);
        return std::move(d);
    }
    case YAML::NodeType::Sequence: {
        py::list l;
        for (const auto& v : n) l.append(yamlToPy(v));
        return std::move(l);
    }
    case YAML::NodeType::Scalar: return scalarToPy(n);
    default: return py::none();
    }
}

void emitPy(YAML::Emitter& out, const py::handle& v, const std::string& where) {
    if (v.is_none()) {
        out << YAML::Null;
    } else if (py::isinstance<py::bool_>(v)) {
        out << (v.cast<bool>() ? "true" : "false");
    } else if (py::isinstance<py::int_>(v)) {
        out << py::str(v).cast<std::string>();
    } else if (py::isinstance<py::float_>(v)) {
        const double d = v.cast<double>();
        if (std::isnan(d)) out << ".nan";
        else if (std::isinf(d)) out << (d > 0 ? ".inf" : "-.inf");
        else out << py::repr(v).cast<std::string>(); // shortest text that reads back exactly
    } else if (py::isinstance<py::str>(v)) {
        out << YAML::DoubleQuoted << v.cast<std::string>();
    } else if (py::isinstance<py::dict>(v)) {
        out << YAML::BeginMap;
        for (const auto& kv : v.cast<py::dict>()) {
            if (!py::isinstance<py::str>(kv.first))
                throw py::type_error("scenario keys are text; " + where + " has key " +
                                     py::repr(kv.first).cast<std::string>());
            const std::string key = kv.first.cast<std::string>();
            out << YAML::Key << key << YAML::Value;
            emitPy(out, kv.second, where.empty() ? key : where + "." + key);
        }
        out << YAML::EndMap;
    } else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
        out << YAML::BeginSeq;
        int i = 0;
        for (const auto& x : v) emitPy(out, x, where + "[" + std::to_string(i++) + "]");
        out << YAML::EndSeq;
    } else if (py::hasattr(v, "item")) { // numpy scalars
        emitPy(out, v.attr("item")(), where);
    } else {
        throw py::type_error("cannot write " + py::repr(v).cast<std::string>() + " (at " + where +
                             ") into a scenario: use dict, list, str, int, float, bool or None");
    }
}

std::string pyToYaml(const py::handle& v) {
    YAML::Emitter out;
    emitPy(out, v, "");
    return std::string(out.c_str()) + "\n";
}

/// An override's value as the `--set` text: a scalar as written, anything else as flow YAML.
std::string overrideText(const py::handle& v) {
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "true" : "false";
    if (py::isinstance<py::int_>(v)) return py::str(v).cast<std::string>();
    if (py::isinstance<py::float_>(v)) return py::repr(v).cast<std::string>();
    YAML::Emitter out;
    out << YAML::Flow;
    emitPy(out, v, "");
    return out.c_str();
}

/// Overrides from None, a dict {path: value} or a list of "path=value" strings.
std::vector<Override> toOverrides(const py::object& o) {
    std::vector<Override> out;
    if (o.is_none()) return out;
    if (py::isinstance<py::dict>(o)) {
        for (const auto& kv : o.cast<py::dict>()) out.push_back({py::str(kv.first).cast<std::string>(), overrideText(kv.second)});
        return out;
    }
    if (py::isinstance<py::str>(o)) return {parseOverride(o.cast<std::string>())};
    for (const auto& x : o) out.push_back(parseOverride(py::str(x).cast<std::string>()));
    return out;
}

py::list overridesToPy(const std::vector<Override>& v) {
    py::list l;
    for (const auto& o : v) l.append(o.path + "=" + o.value);
    return l;
}

// ------------------------------------------------------------------ scenarios

/// A loaded, validated scenario and where it came from (so overrides and variants reload it
/// from its source, with file:line messages that point into that source).
struct PyScenario {
    Scenario scenario;
    std::string file;  ///< loaded from this file, or
    std::string text;  ///< from this YAML text
    std::string label; ///< what messages call the text
    std::vector<Override> overrides;

    Scenario reload(const std::vector<Override>& all) const {
        return file.empty() ? loadScenarioText(text, label, all) : loadScenarioFile(file, all);
    }
    PyScenario withOverrides(const std::vector<Override>& more) const {
        PyScenario s = *this;
        s.overrides.insert(s.overrides.end(), more.begin(), more.end());
        s.scenario = file.empty() ? loadScenarioText(text, label, s.overrides) : loadVariantBase(file, s.overrides);
        return s;
    }
};

PyScenario loadFile(const std::string& path, const std::vector<Override>& overrides) {
    PyScenario s;
    s.file = path;
    s.overrides = overrides;
    s.scenario = loadVariantBase(path, overrides); // as `run FILE` does (variant-only --set keys)
    return s;
}

PyScenario loadText(const std::string& text, const std::string& label, const std::vector<Override>& overrides) {
    PyScenario s;
    s.text = text;
    s.label = label;
    s.overrides = overrides;
    s.scenario = loadScenarioText(text, label, overrides);
    return s;
}

/// One run of `s`: the variant named (or the only configuration), variant sections removed.
/// Returns the run's scenario and its label ("" without variants).
std::pair<Scenario, std::string> oneRun(const PyScenario& s, const std::string& variant) {
    if (!hasVariants(s.scenario) && variant.empty()) return {s.scenario, ""};
    const auto configs = variantConfigurations(s.scenario, variant);
    if (configs.size() != 1) {
        std::string names;
        for (const auto& c : configs) names += (names.empty() ? "" : ", ") + c.label;
        throw py::value_error("the scenario has " + std::to_string(configs.size()) + " variant configurations (" + names +
                              "): run_variants() runs them all, run(..., variant=NAME) one of them");
    }
    std::vector<Override> all = configs.front().overrides;
    all.insert(all.end(), s.overrides.begin(), s.overrides.end());
    SuspendVariantChecks checked;
    Scenario one = withoutVariants(s.reload(all));
    return {one, configs.front().variant.empty() ? "" : configs.front().label};
}

// ------------------------------------------------------------------ running off the GIL

/// The first Python exception raised in a callback, kept (with the GIL) until it is raised.
struct PyErrorBox {
    std::mutex m;
    std::unique_ptr<py::error_already_set> error; // created and destroyed with the GIL held

    /// With the GIL held and a Python error set (or given).
    void keep(py::error_already_set&& e) {
        std::lock_guard<std::mutex> l(m);
        if (!error) error = std::make_unique<py::error_already_set>(std::move(e));
    }
    void raiseIfAny() {
        if (error) {
            py::error_already_set e = std::move(*error);
            error.reset();
            throw std::move(e);
        }
    }
};

/// Runs `work` on a thread of its own with the GIL released; every 50 ms the calling thread
/// takes the GIL to let Python run its signal handlers (Ctrl-C sets `cancel`).
template <typename R> R runOffGil(const std::function<R()>& work, std::atomic<bool>& cancel, PyErrorBox& box) {
    std::optional<R> result;
    std::exception_ptr failure;
    {
        std::mutex m;
        std::condition_variable cv;
        bool done = false;
        py::gil_scoped_release release;
        std::thread worker([&] {
            try {
                result.emplace(work());
            } catch (...) {
                failure = std::current_exception();
            }
            std::lock_guard<std::mutex> l(m);
            done = true;
            cv.notify_all();
        });
        for (;;) {
            {
                std::unique_lock<std::mutex> l(m);
                if (cv.wait_for(l, std::chrono::milliseconds(50), [&] { return done; })) break;
            }
            py::gil_scoped_acquire acquire;
            if (PyErr_CheckSignals() != 0) { // KeyboardInterrupt (or a handler's exception)
                box.keep(py::error_already_set());
                cancel.store(true);
            }
        }
        worker.join();
    }
    if (failure) std::rethrow_exception(failure);
    return std::move(*result);
}

/// Calls the Python progress callback on each global aggregation; False, an exception or
/// Ctrl-C cancels the run.
class ProgressObserver : public RunObserver {
public:
    ProgressObserver(py::object fn, std::atomic<bool>& cancel, PyErrorBox& box) : cancel_(cancel), box_(box) {
        if (fn && !fn.is_none()) fn_ = std::move(fn);
    }
    void onStart(const RunInfo& info) override { info_ = info; }
    void onAggregation(const AggregationRecord& r) override {
        records_.push_back(r);
        if (r.level != 0 || !fn_ || cancel_.load()) return;
        py::gil_scoped_acquire gil;
        try {
            py::dict d;
            d["round"] = r.round;
            d["virtual_time_s"] = r.time;
            d["train_loss"] = r.trainLoss;
            d["test_accuracy"] = r.testAccuracy;
            d["test_loss"] = r.testLoss;
            d["participants"] = r.participants;
            d["cost"] = r.cost;
            d["energy_j"] = r.energyJ;
            d["bytes"] = r.bytes;
            d["wall_s"] = r.wallSeconds;
            const py::object answer = (*fn_)(d);
            if (py::isinstance<py::bool_>(answer) && !answer.cast<bool>()) cancel_.store(true);
        } catch (py::error_already_set& e) {
            box_.keep(std::move(e));
            cancel_.store(true);
        }
    }
    void onEvent(const RunEvent& e) override { events_.push_back(e); }
    const std::vector<AggregationRecord>& records() const { return records_; }
    const std::vector<RunEvent>& events() const { return events_; }
    const RunInfo& info() const { return info_; }
    ~ProgressObserver() override {
        if (fn_) {
            py::gil_scoped_acquire gil;
            fn_.reset();
        }
    }

private:
    std::optional<py::object> fn_;
    std::atomic<bool>& cancel_;
    PyErrorBox& box_;
    RunInfo info_;
    std::vector<AggregationRecord> records_;
    std::vector<RunEvent> events_;
};

std::string formatPythonError(py::error_already_set& e) {
    try {
        const py::object tb = py::module_::import("traceback");
        const py::list lines = tb.attr("format_exception")(e.type(), e.value(), e.trace());
        std::string out;
        for (const auto& l : lines) out += l.cast<std::string>();
        while (!out.empty() && out.back() == '\n') out.pop_back();
        return out;
    } catch (const std::exception&) {
        return e.what();
    }
}

/// The Python selection policy for the duration of a call: the callable's choices, checked
/// and converted; its exceptions become the run's stop reason (with the traceback).
std::unique_ptr<ExternalSelectorLease> leaseSelection(const py::object& fn) {
    if (fn.is_none()) return nullptr;
    if (!PyCallable_Check(fn.ptr())) throw py::type_error("selection must be a callable: fn(candidates, ctx) -> ids");
    PyObject* raw = fn.ptr(); // kept alive by the caller for the whole call
    auto selector = std::make_shared<ExternalSelector>([raw](const SelectionQuery& q) -> std::vector<int> {
        py::gil_scoped_acquire gil;
        std::string error;
        std::vector<int> chosen;
        try {
            py::list cands;
            for (const auto& c : q.candidates) cands.append(py::cast(c));
            const py::object result = py::reinterpret_borrow<py::object>(raw)(cands, py::cast(q));
            if (result.is_none() || py::isinstance<py::str>(result))
                throw py::type_error("the selection policy must return a list of candidate ids (node ids, "
                                     "node indices or candidates), got " + py::repr(result).cast<std::string>());
            std::map<std::string, int> byId;
            for (const auto& c : q.candidates) byId[c.id] = c.index;
            for (const auto& x : result) {
                if (py::isinstance<SelectionCandidate>(x)) {
                    chosen.push_back(x.cast<const SelectionCandidate&>().index);
                } else if (py::isinstance<py::str>(x)) {
                    const auto it = byId.find(x.cast<std::string>());
                    if (it == byId.end())
                        throw py::value_error("the selection policy returned '" + x.cast<std::string>() +
                                              "', which is not a candidate of round " + std::to_string(q.round));
                    chosen.push_back(it->second);
                } else if (py::isinstance<py::bool_>(x) || !py::hasattr(x, "__index__")) {
                    throw py::type_error("the selection policy returned " + py::repr(x).cast<std::string>() +
                                         ": give node ids (str), node indices (int) or candidates");
                } else {
                    chosen.push_back(py::int_(py::reinterpret_borrow<py::object>(x)).cast<int>());
                }
            }
        } catch (py::error_already_set& e) {
            error = formatPythonError(e);
        } catch (const std::exception& e) { // pybind11's own type and cast errors
            error = e.what();
        }
        if (!error.empty())
            throw EngineError("selection policy 'python' raised in round " + std::to_string(q.round) + " (t = " +
                              std::to_string(q.time) + " s):\n" + error);
        return chosen;
    });
    return std::make_unique<ExternalSelectorLease>(raw, std::move(selector));
}

/// The scenario says selection.policy: python when a callable is given, and a callable is
/// given when it says so.
PyScenario withSelection(const PyScenario& s, const py::object& selection) {
    const bool wantsPython = s.scenario.selection.name == "python";
    if (selection.is_none()) {
        if (wantsPython)
            throw py::value_error("the scenario's selection.policy is 'python': pass the policy as selection=CALLABLE");
        return s;
    }
    if (wantsPython) return s;
    return s.withOverrides({{"selection.policy", "python"}});
}

// ------------------------------------------------------------------ results as columns

py::dict summaryDict(const RunSummary& r) {
    py::dict d;
    d["status"] = toString(r.status);
    d["stop_reason"] = r.stopReason;
    d["final_test_accuracy"] = r.finalTestAccuracy;
    d["best_test_accuracy"] = r.bestTestAccuracy;
    d["final_test_loss"] = r.finalTestLoss;
    d["final_train_loss"] = r.finalTrainLoss;
    d["rounds"] = r.rounds;
    d["aggregations"] = r.aggregations;
    d["virtual_time_s"] = r.virtualTime;
    d["cost"] = r.cost;
    d["energy_j"] = r.energyJ;
    d["energy_compute_j"] = r.energyComputeJ;
    d["energy_network_j"] = r.energyNetworkJ;
    d["energy_idle_j"] = r.energyIdleJ;
    d["bytes_moved"] = r.bytes;
    d["samples_computed"] = r.samplesComputed;
    d["lost_jobs"] = r.lostJobs;
    d["wall_clock_s"] = r.wallSeconds;
    return d;
}

/// Columns of metricsColumns() (tidy_export.h), the CSV export's, as lists.
py::dict metricsColumnsOf(const std::vector<std::pair<const StoredRun*, const AggregationRecord*>>& rows) {
    const auto& names = metricsColumns();
    std::vector<py::list> cols(names.size());
    for (const auto& [run, r] : rows) {
        std::size_t i = 0;
        cols[i++].append(run->id);
        cols[i++].append(run->name);
        cols[i++].append(run->sweepId);
        cols[i++].append(run->sweepConfig);
        cols[i++].append(run->repeat);
        cols[i++].append(run->seed);
        cols[i++].append(r->round);
        cols[i++].append(r->level);
        cols[i++].append(r->aggregator);
        cols[i++].append(r->time);
        cols[i++].append(r->wallSeconds);
        cols[i++].append(r->trainLoss);
        cols[i++].append(r->testLoss);
        cols[i++].append(r->testAccuracy);
        cols[i++].append(r->participants);
        cols[i++].append(r->learningRate);
        cols[i++].append(r->cost);
        cols[i++].append(r->energyJ);
        cols[i++].append(r->energyComputeJ);
        cols[i++].append(r->energyNetworkJ);
        cols[i++].append(r->energyIdleJ);
        cols[i++].append(r->bytes);
        cols[i++].append(r->meanStaleness);
        cols[i++].append(r->maxStaleness);
    }
    py::dict d;
    for (std::size_t i = 0; i < names.size(); ++i) d[py::str(names[i])] = cols[i];
    return d;
}

py::dict eventColumns(const std::vector<RunEvent>& events, const std::vector<std::string>& nodeIds, std::int64_t runId) {
    py::list run, time, kind, node, nodeId, detail;
    for (const auto& e : events) {
        run.append(runId);
        time.append(e.time);
        kind.append(e.kindName());
        node.append(e.node);
        nodeId.append(e.node >= 0 && static_cast<std::size_t>(e.node) < nodeIds.size() ? nodeIds[static_cast<std::size_t>(e.node)] : std::string());
        detail.append(e.detail);
    }
    py::dict d;
    d["run_id"] = run;
    d["virtual_time_s"] = time;
    d["kind"] = kind;
    d["node"] = node;
    d["node_id"] = nodeId;
    d["detail"] = detail;
    return d;
}

py::dict runRow(const StoredRun& r) {
    py::dict d = summaryDict(r.summary);
    d["status"] = r.status;
    d["run_id"] = r.id;
    d["name"] = r.name;
    py::list tags;
    for (const auto& t : r.tags) tags.append(t);
    d["tags"] = tags;
    d["notes"] = r.notes;
    d["seed"] = r.seed;
    d["program_version"] = r.programVersion;
    d["started_at"] = r.startedAt;
    d["ended_at"] = r.endedAt;
    d["sweep_id"] = r.sweepId;
    d["repeat"] = r.repeat;
    d["sweep_config"] = r.sweepConfig;
    d["summary_from_rows"] = r.summaryFromRows;
    return d;
}

/// A run's outcome as the Python side gets it.
py::dict runResult(const Scenario& s, const RunSummary& summary, std::int64_t runId, const std::string& db,
                   const ProgressObserver& obs, int threads) {
    py::dict d;
    d["run_id"] = runId;
    d["db"] = db;
    d["scenario"] = s.name;
    d["seed"] = s.seed;
    d["threads"] = threads;
    d["summary"] = summaryDict(summary);
    StoredRun pseudo;
    pseudo.id = runId;
    pseudo.name = s.name;
    pseudo.seed = s.seed;
    std::vector<std::pair<const StoredRun*, const AggregationRecord*>> rows;
    for (const auto& r : obs.records()) rows.emplace_back(&pseudo, &r);
    d["metrics"] = metricsColumnsOf(rows);
    std::vector<std::string> ids;
    for (const auto& n : obs.info().nodes) ids.push_back(n.id);
    d["events"] = eventColumns(obs.events(), ids, runId);
    return d;
}

std::string storePath(const py::object& db) {
    return db.is_none() ? RunStore::defaultPath() : py::str(db).cast<std::string>();
}

std::unique_ptr<RunStore> openWritable(const std::string& path) {
    std::signal(SIGXFSZ, SIG_IGN); // as the CLI: a write past ulimit -f fails, it does not kill
    auto store = std::make_unique<RunStore>(path);
    if (store->readOnly())
        throw StoreError(store->path() + ": the database is read-only for this program; nothing was started");
    return store;
}

// ------------------------------------------------------------------ run, variants, sweep, fork

py::dict runScenarioPy(const PyScenario& input, const std::string& variant, bool store, const py::object& db,
                       int threads, const py::object& progress, const py::object& selection, const std::string& until,
                       const std::string& name, const std::vector<std::string>& tags,
                       const std::vector<std::string>& events, double snapshotEvery) {
    const PyScenario withSel = withSelection(input, selection);
    auto [scenario, label] = oneRun(withSel, variant);
    for (const auto& e : events) addEventArgument(scenario, e);
    std::optional<Condition> condition;
    if (!until.empty()) condition = parseCondition(until, "until");
    if (threads < 1) throw py::value_error("threads must be >= 1");

    std::atomic<bool> cancel{false};
    PyErrorBox box;
    auto lease = leaseSelection(selection);
    ProgressObserver observer(progress.is_none() ? py::object() : progress, cancel, box);
    EngineOptions options;
    options.threads = threads;
    options.observer = &observer;
    options.cancelFlag = &cancel;
    options.snapshotEverySeconds = snapshotEvery;
    if (condition) {
        options.control = std::make_shared<RunControl>();
        options.control->runUntil(*condition, RunControl::OnCondition::Stop);
    }
    std::unique_ptr<RunStore> runStore;
    NewRun meta;
    if (store) {
        runStore = openWritable(storePath(db));
        meta.name = name.empty() ? (label.empty() ? scenario.name : scenario.name + " [" + label + "]") : name;
        meta.tags = tags;
    }
    struct Out {
        RunSummary summary;
        std::int64_t id = 0;
    };
    const Scenario& sc = scenario;
    const Out out = runOffGil<Out>(
        [&]() {
            Out o;
            if (runStore) {
                o.id = runAndStore(sc, *runStore, meta, options, o.summary, {});
            } else {
                try {
                    Engine engine(sc, options);
                    o.summary = engine.run();
                } catch (const std::exception& e) { // set-up failed (data, model): as a stored run says
                    o.summary = RunSummary{};
                    o.summary.status = RunStatus::Failed;
                    o.summary.stopReason = e.what();
                }
            }
            return o;
        },
        cancel, box);
    const std::string path = runStore ? runStore->path() : std::string();
    runStore.reset();
    lease.reset();
    box.raiseIfAny();
    return runResult(scenario, out.summary, out.id, path, observer, threads);
}

py::dict sweepResultDict(const SweepResult& r, const std::string& path) {
    py::dict d;
    d["sweep_id"] = r.sweepId;
    d["run_ids"] = r.runIds;
    d["failed"] = r.failed;
    d["skipped"] = r.skipped;
    d["replaced"] = r.replaced;
    d["cancelled"] = r.cancelled;
    d["errors"] = r.errors;
    d["db"] = path;
    return d;
}

py::dict runSweepPy(SweepSpec spec, const py::object& db, const py::object& progress, const py::object& selection) {
    std::atomic<bool> cancel{false};
    PyErrorBox box;
    if (!selection.is_none()) {
        // The base scenario runs the callable: selection.policy is python (as run() sets it).
        const Scenario base = loadVariantBase(spec.file, spec.base);
        if (base.selection.name != "python") spec.base.push_back({"selection.policy", "python"});
    }
    (void)planSweep(spec); // every configuration checked before the store is touched
    auto lease = leaseSelection(selection);
    auto store = openWritable(storePath(db));
    std::optional<py::object> fn;
    if (!progress.is_none()) fn = progress;
    auto onRun = [&](const SweepProgress& p) {
        if (!fn || cancel.load()) return;
        py::gil_scoped_acquire gil;
        try {
            py::dict d = summaryDict(p.summary);
            d["done"] = p.done;
            d["total"] = p.total;
            d["config"] = p.config;
            d["repeat"] = p.repeat;
            const py::object answer = (*fn)(d);
            if (py::isinstance<py::bool_>(answer) && !answer.cast<bool>()) cancel.store(true);
        } catch (py::error_already_set& e) {
            box.keep(std::move(e));
            cancel.store(true);
        }
    };
    const SweepResult r = runOffGil<SweepResult>([&]() { return runSweep(spec, *store, onRun, &cancel); }, cancel, box);
    const std::string path = store->path();
    store.reset();
    lease.reset();
    fn.reset();
    box.raiseIfAny();
    return sweepResultDict(r, path);
}

py::dict forkPy(std::int64_t parent, double at, const std::vector<std::string>& sets,
                const std::vector<std::string>& events, const py::object& db, int threads, const py::object& progress,
                const py::object& selection) {
    auto store = openWritable(storePath(db));
    ForkChanges changes;
    changes.sets = sets;
    changes.events = events;
    ForkPlan plan = planFork(*store, parent, at, changes);
    if (plan.scenario.selection.name == "python" && selection.is_none())
        throw py::value_error("run " + std::to_string(parent) +
                              " used selection policy 'python': pass the same callable as selection=CALLABLE");
    std::atomic<bool> cancel{false};
    PyErrorBox box;
    auto lease = leaseSelection(selection);
    ProgressObserver observer(progress.is_none() ? py::object() : progress, cancel, box);
    EngineOptions options;
    options.threads = threads;
    options.observer = &observer;
    options.cancelFlag = &cancel;
    struct Out {
        RunSummary summary;
        std::int64_t id = 0;
    };
    const Out out = runOffGil<Out>(
        [&]() {
            Out o;
            o.id = runFork(*store, plan, options, o.summary);
            return o;
        },
        cancel, box);
    const std::string path = store->path();
    store.reset();
    lease.reset();
    box.raiseIfAny();
    py::dict d = runResult(plan.scenario, out.summary, out.id, path, observer, threads);
    d["label"] = plan.label;
    d["parent_id"] = parent;
    d["at_s"] = plan.atSeconds;
    return d;
}

// ------------------------------------------------------------------ the run database

struct PyStore {
    std::unique_ptr<RunStore> store;
    explicit PyStore(const py::object& path, bool readOnly)
        : store(std::make_unique<RunStore>(storePath(path), readOnly)) {}
    RunStore& s() {
        if (!store) throw py::value_error("the database is closed");
        return *store;
    }
};

std::vector<StoredRun> selectRuns(RunStore& store, const py::object& ids, std::int64_t sweep, const std::string& tag) {
    std::vector<StoredRun> runs;
    if (!ids.is_none()) {
        std::vector<std::int64_t> list;
        if (py::isinstance<py::int_>(ids)) list.push_back(ids.cast<std::int64_t>());
        else
            for (const auto& x : ids) list.push_back(py::int_(py::reinterpret_borrow<py::object>(x)).cast<std::int64_t>());
        for (const auto id : list) {
            auto r = store.run(id);
            if (!r) throw py::key_error("no run " + std::to_string(id) + " in " + store.path());
            runs.push_back(std::move(*r));
        }
        return runs;
    }
    runs = store.listRuns({tag, "", sweep, 0});
    std::reverse(runs.begin(), runs.end()); // oldest first, as the CLI's export
    return runs;
}

py::dict summaryColumns(RunStore& store, const std::vector<StoredRun>& runs, double target) {
    static const std::vector<std::string> names = {
        "run_id", "run_name", "sweep_id", "sweep_config", "repeat", "seed", "status", "rounds", "virtual_time_s", "cost",
        "energy_j", "energy_compute_j", "energy_network_j", "energy_idle_j", "bytes", "final_test_accuracy",
        "best_test_accuracy", "final_test_loss", "target_accuracy", "time_to_target_s", "cost_to_target",
        "energy_to_target_j"};
    std::vector<py::list> c(names.size());
    for (const auto& r : runs) {
        const auto& s = r.summary;
        const auto reach = reachTarget(store.metrics(r.id), target);
        std::size_t i = 0;
        c[i++].append(r.id);
        c[i++].append(r.name);
        c[i++].append(r.sweepId);
        c[i++].append(r.sweepConfig);
        c[i++].append(r.repeat);
        c[i++].append(r.seed);
        c[i++].append(r.status);
        c[i++].append(s.rounds);
        c[i++].append(s.virtualTime);
        c[i++].append(s.cost);
        c[i++].append(s.energyJ);
        c[i++].append(s.energyComputeJ);
        c[i++].append(s.energyNetworkJ);
        c[i++].append(s.energyIdleJ);
        c[i++].append(s.bytes);
        c[i++].append(s.finalTestAccuracy);
        c[i++].append(s.bestTestAccuracy);
        c[i++].append(s.finalTestLoss);
        c[i++].append(target);
        c[i++].append(reach ? reach->time : kNaN);
        c[i++].append(reach ? reach->cost : kNaN);
        c[i++].append(reach ? reach->energyJ : kNaN);
    }
    py::dict d;
    for (std::size_t i = 0; i < names.size(); ++i) d[py::str(names[i])] = c[i];
    return d;
}

void translate(std::exception_ptr p) {
    try {
        if (p) std::rethrow_exception(p);
    } catch (const ScenarioError& e) {
        py::list diags;
        for (const auto& d : e.diagnostics) {
            py::dict x;
            x["file"] = d.file;
            x["line"] = d.line;
            x["column"] = d.column;
            x["path"] = d.path;
            x["message"] = d.message;
            x["text"] = d.format();
            diags.append(x);
        }
        py::object exc = py::reinterpret_borrow<py::object>(g_scenarioError)(py::str(e.what()));
        exc.attr("diagnostics") = diags;
        PyErr_SetObject(g_scenarioError, exc.ptr());
    } catch (const StoreError& e) {
        PyErr_SetString(g_storeError, e.what());
    } catch (const ForkError& e) {
        PyErr_SetString(g_forkError, e.what());
    } catch (const ConditionError& e) {
        PyErr_SetString(PyExc_ValueError, e.what());
    }
}

} // namespace

PYBIND11_MODULE(_fogstudio, m) {
    m.doc() = "FogStudio's emulator from Python (native part; use the fogstudio package)";
    m.attr("__version__") = FOGSTUDIO_VERSION;
    g_scenarioError = PyErr_NewExceptionWithDoc(
        "fogstudio.ScenarioError",
        "A scenario has problems: str() lists every one as file:line:col: path message; .diagnostics "
        "holds them as dicts (file, line, column, path, message, text).",
        PyExc_ValueError, nullptr);
    g_storeError = PyErr_NewExceptionWithDoc("fogstudio.StoreError", "The run database cannot be read or written.",
                                             PyExc_RuntimeError, nullptr);
    g_forkError = PyErr_NewExceptionWithDoc("fogstudio.ForkError", "A fork cannot be made (the message says why).",
                                            PyExc_ValueError, nullptr);
    m.add_object("ScenarioError", py::handle(g_scenarioError));
    m.add_object("StoreError", py::handle(g_storeError));
    m.add_object("ForkError", py::handle(g_forkError));
    py::register_exception_translator(&translate);

    py::class_<SelectionCandidate>(m, "Candidate",
                                   "A trainer the Python selection policy may choose (online and idle).")
        .def_readonly("index", &SelectionCandidate::index, "node index")
        .def_readonly("id", &SelectionCandidate::id, "node id")
        .def_readonly("tier", &SelectionCandidate::tier)
        .def_readonly("throughput", &SelectionCandidate::throughput, "samples per second")
        .def_readonly("price_per_hour", &SelectionCandidate::pricePerHour)
        .def_readonly("samples", &SelectionCandidate::samples, "samples in its local data")
        .def_readonly("expected_round_s", &SelectionCandidate::expectedRoundSeconds,
                      "expected seconds of a dispatch: model down, local steps at mean speed, update up")
        .def_readonly("expected_round_cost", &SelectionCandidate::expectedRoundCost)
        .def_readonly("availability", &SelectionCandidate::availability, "long-run fraction of time online")
        .def_readonly("last_loss", &SelectionCandidate::lastLoss, "loss of its last delivered update (nan: none)")
        .def_readonly("last_round_s", &SelectionCandidate::lastRoundSeconds,
                      "seconds its last delivered dispatch took (nan: none)")
        .def_readonly("times_selected", &SelectionCandidate::timesSelected)
        .def("__repr__", [](const SelectionCandidate& c) {
            std::ostringstream s;
            s << "Candidate(" << c.id << ", throughput=" << c.throughput << ", samples=" << c.samples
              << ", expected_round_s=" << c.expectedRoundSeconds << ")";
            return s.str();
        });
    py::class_<SelectionQuery>(m, "SelectionContext", "What the Python selection policy is asked in a round.")
        .def_readonly("aggregator", &SelectionQuery::aggregator)
        .def_readonly("round", &SelectionQuery::round)
        .def_readonly("time", &SelectionQuery::time, "virtual seconds")
        .def_readonly("k", &SelectionQuery::k, "selection.k (0: the policy decides how many)");

    py::class_<PyScenario>(m, "Scenario", "A validated scenario (fogstudio.load).")
        .def_property_readonly("name", [](const PyScenario& s) { return s.scenario.name; })
        .def_property_readonly("seed", [](const PyScenario& s) { return s.scenario.seed; })
        .def_property_readonly("file", [](const PyScenario& s) { return s.file.empty() ? py::object(py::none()) : py::object(py::str(s.file)); })
        .def_property_readonly("overrides", [](const PyScenario& s) { return overridesToPy(s.overrides); })
        .def_property_readonly("selection_policy", [](const PyScenario& s) { return s.scenario.selection.name; })
        .def_property_readonly("sync_policy", [](const PyScenario& s) { return s.scenario.sync.name; })
        .def("yaml", [](const PyScenario& s) { return saveScenarioText(s.scenario); }, "The scenario as YAML (what a run stores).")
        .def("to_dict", [](const PyScenario& s) { return yamlToPy(YAML::Load(saveScenarioText(s.scenario))); })
        .def("with_overrides", [](const PyScenario& s, const py::object& o) { return s.withOverrides(toOverrides(o)); },
             py::arg("overrides"), "A copy with more overrides ({'sync.policy': 'n-sync'} or ['sync.n=3']), revalidated.")
        .def("save", [](const PyScenario& s, const std::string& path) { saveScenarioFile(s.scenario, path); }, py::arg("path"))
        .def_property_readonly("has_variants", [](const PyScenario& s) { return hasVariants(s.scenario); })
        .def("variants", [](const PyScenario& s) {
            py::list l;
            if (!hasVariants(s.scenario)) return l;
            for (const auto& c : variantConfigurations(s.scenario)) {
                py::dict d;
                d["label"] = c.label;
                d["variant"] = c.variant;
                d["overrides"] = overridesToPy(c.overrides);
                l.append(d);
            }
            return l;
        }, "The variant configurations (variants x vary grid) of the file.")
        .def_property_readonly("repeats", [](const PyScenario& s) { return s.scenario.repeats; })
        .def("__repr__", [](const PyScenario& s) {
            return "<fogstudio.Scenario '" + s.scenario.name + "' seed " + std::to_string(s.scenario.seed) +
                   (s.file.empty() ? std::string() : " from " + s.file) + ">";
        });

    m.def("load_file", [](const std::string& path, const py::object& overrides) { return loadFile(path, toOverrides(overrides)); },
          py::arg("path"), py::arg("overrides") = py::none());
    m.def("load_text", [](const std::string& text, const std::string& label, const py::object& overrides) {
              return loadText(text, label, toOverrides(overrides));
          }, py::arg("text"), py::arg("label") = "<string>", py::arg("overrides") = py::none());
    m.def("load_dict", [](const py::dict& d, const std::string& label, const py::object& overrides) {
              return loadText(pyToYaml(d), label, toOverrides(overrides));
          }, py::arg("scenario"), py::arg("label") = "<dict>", py::arg("overrides") = py::none());
    m.def("dict_to_yaml", [](const py::object& d) { return pyToYaml(d); });
    m.def("override_text", [](const py::object& v) { return overrideText(v); },
          "A value as --set takes it: scalars as written, lists and maps as flow YAML.");

    m.def("run", &runScenarioPy, py::arg("scenario"), py::arg("variant") = "", py::arg("store") = true,
          py::arg("db") = py::none(), py::arg("threads") = 1, py::arg("progress") = py::none(),
          py::arg("selection") = py::none(), py::arg("until") = "", py::arg("name") = "",
          py::arg("tags") = std::vector<std::string>{}, py::arg("events") = std::vector<std::string>{},
          py::arg("snapshot_every") = 0.0);

    m.def("sweep", [](const std::string& file, const py::object& overrides, const std::vector<std::pair<std::string, std::vector<std::string>>>& axes,
                      int repeats, bool variants, const std::string& variant, int parallel, int threads,
                      const std::string& name, const std::vector<std::string>& tags, std::int64_t resume,
                      const py::object& db, const py::object& progress, const py::object& selection) {
              SweepSpec spec;
              spec.file = file;
              spec.base = toOverrides(overrides);
              for (const auto& [k, v] : axes) spec.axes.push_back({k, v});
              spec.repeats = repeats;
              spec.variants = variants;
              spec.variant = variant;
              spec.parallel = std::max(1, parallel);
              spec.threadsPerRun = std::max(1, threads);
              spec.name = name;
              spec.tags = tags;
              spec.resume = resume;
              return runSweepPy(spec, db, progress, selection);
          },
          py::arg("file"), py::arg("overrides"), py::arg("axes"), py::arg("repeats"), py::arg("variants"),
          py::arg("variant"), py::arg("parallel"), py::arg("threads"), py::arg("name"), py::arg("tags"),
          py::arg("resume"), py::arg("db"), py::arg("progress"), py::arg("selection"));

    m.def("fork", &forkPy, py::arg("run_id"), py::arg("at"), py::arg("sets"), py::arg("events"), py::arg("db"),
          py::arg("threads"), py::arg("progress"), py::arg("selection"));
    m.def("fork_settable_keys", &forkSettableKeys);

    m.def("policies", []() {
        py::list out;
        for (const char* kind : {"sync", "selection"}) {
            const auto& infos = std::string(kind) == "sync" ? syncPolicyInfos() : selectionPolicyInfos();
            for (const auto& p : infos) {
                py::dict d;
                d["name"] = p.name;
                d["kind"] = kind;
                d["summary"] = p.summary;
                d["source"] = p.source;
                py::list params;
                for (const auto& k : p.params) {
                    py::dict x;
                    x["key"] = k.key;
                    x["default"] = k.defaultValue;
                    x["min"] = k.min;
                    x["max"] = k.max;
                    x["integer"] = k.integer;
                    x["live"] = k.live;
                    x["help"] = k.help;
                    params.append(x);
                }
                d["params"] = params;
                out.append(d);
            }
        }
        return out;
    });
    m.def("schema", []() {
        static const char* types[] = {"section", "real", "integer", "bool", "text", "enum", "seed", "int-list", "range"};
        py::list out;
        const Scenario defaults;
        auto row = [&](const FieldInfo& f, const std::string& def, const std::string& group) {
            const NumericBounds b = fieldBounds(f);
            py::dict d;
            d["path"] = f.path;
            d["group"] = group;
            d["type"] = types[static_cast<int>(f.type)];
            d["unit"] = f.unit;
            d["default"] = def;
            d["min"] = f.isBounded() && std::isfinite(b.min) ? py::object(py::float_(b.min)) : py::object(py::none());
            d["max"] = f.isBounded() && std::isfinite(b.max) ? py::object(py::float_(b.max)) : py::object(py::none());
            d["values"] = f.enumValues;
            d["only_with"] = f.when ? f.when->path + ": " + [&] {
                std::string v;
                for (const auto& x : f.when->values) v += (v.empty() ? "" : " | ") + x;
                return v;
            }() : std::string();
            d["help"] = f.help;
            out.append(d);
        };
        for (const auto& f : scenarioSchema())
            if (f.type != FieldType::Section) row(f, f.get ? formatFieldValue(f.get(defaults)) : std::string(), "scenario");
        for (const auto& f : linkSchema()) row(f, formatFieldValue(f.get(LinkParams{})), "link");
        return out;
    });
    m.def("schema_markdown", &schemaMarkdown);
    m.def("default_db_path", &RunStore::defaultPath);

    py::class_<PyStore>(m, "RunStore")
        .def(py::init<const py::object&, bool>(), py::arg("path") = py::none(), py::arg("read_only") = false)
        .def_property_readonly("path", [](PyStore& s) { return s.s().path(); })
        .def_property_readonly("read_only", [](PyStore& s) { return s.s().readOnly(); })
        .def("close", [](PyStore& s) { s.store.reset(); })
        .def("runs", [](PyStore& s, const std::string& tag, const std::string& name, std::int64_t sweep, int limit) {
            py::list l;
            for (const auto& r : s.s().listRuns({tag, name, sweep, limit})) l.append(runRow(r));
            return l;
        }, py::arg("tag") = "", py::arg("name") = "", py::arg("sweep") = 0, py::arg("limit") = 0)
        .def("run", [](PyStore& s, std::int64_t id) -> py::object {
            const auto r = s.s().run(id);
            if (!r) return py::none();
            py::dict d = runRow(*r);
            d["scenario_yaml"] = r->scenarioYaml;
            if (r->produced) {
                d["produced_metric_rows"] = r->produced->metrics;
                d["produced_event_rows"] = r->produced->events;
                d["produced_interval_rows"] = r->produced->intervals;
            }
            const RowCounts stored = s.s().storedRows(id);
            d["metric_rows"] = stored.metrics;
            d["event_rows"] = stored.events;
            d["interval_rows"] = stored.intervals;
            return std::move(d);
        }, py::arg("run_id"))
        .def("metrics", [](PyStore& s, const py::object& ids, std::int64_t sweep, const std::string& tag) {
            const auto runs = selectRuns(s.s(), ids, sweep, tag);
            std::vector<std::vector<AggregationRecord>> metrics;
            for (const auto& r : runs) metrics.push_back(s.s().metrics(r.id));
            std::vector<std::pair<const StoredRun*, const AggregationRecord*>> rows;
            for (std::size_t i = 0; i < runs.size(); ++i)
                for (const auto& m : metrics[i]) rows.emplace_back(&runs[i], &m);
            return metricsColumnsOf(rows);
        }, py::arg("ids") = py::none(), py::arg("sweep") = 0, py::arg("tag") = "")
        .def("summary", [](PyStore& s, const py::object& ids, std::int64_t sweep, const std::string& tag, double target) {
            return summaryColumns(s.s(), selectRuns(s.s(), ids, sweep, tag), target);
        }, py::arg("ids") = py::none(), py::arg("sweep") = 0, py::arg("tag") = "", py::arg("target") = 0.8)
        .def("events", [](PyStore& s, std::int64_t id) {
            std::vector<std::string> ids;
            for (const auto& n : s.s().nodes(id)) ids.push_back(n.id);
            return eventColumns(s.s().events(id), ids, id);
        }, py::arg("run_id"))
        .def("intervals", [](PyStore& s, std::int64_t id) {
            std::vector<std::string> ids;
            for (const auto& n : s.s().nodes(id)) ids.push_back(n.id);
            py::list run, node, nodeId, state, from, to;
            for (const auto& i : s.s().intervals(id)) {
                run.append(id);
                node.append(i.node);
                nodeId.append(i.node >= 0 && static_cast<std::size_t>(i.node) < ids.size() ? ids[static_cast<std::size_t>(i.node)] : std::string());
                state.append(toString(i.state));
                from.append(i.from);
                to.append(i.to);
            }
            py::dict d;
            d["run_id"] = run;
            d["node"] = node;
            d["node_id"] = nodeId;
            d["state"] = state;
            d["from_s"] = from;
            d["to_s"] = to;
            return d;
        }, py::arg("run_id"))
        .def("nodes", [](PyStore& s, std::int64_t id) {
            py::list l;
            int i = 0;
            for (const auto& n : s.s().nodes(id)) {
                py::dict d;
                d["node"] = i++;
                d["id"] = n.id;
                d["tier"] = n.tier;
                d["role"] = n.role;
                d["parent"] = n.parent;
                d["throughput"] = n.throughput;
                d["price_per_hour"] = n.pricePerHour;
                l.append(d);
            }
            return l;
        }, py::arg("run_id"))
        .def("scenario", [](PyStore& s, std::int64_t id) {
            const auto r = s.s().run(id);
            if (!r) throw py::key_error("no run " + std::to_string(id) + " in " + s.s().path());
            return loadText(r->scenarioYaml, "run " + std::to_string(id), {});
        }, py::arg("run_id"))
        .def("snapshots", [](PyStore& s, std::int64_t id) {
            py::list l;
            for (const auto& x : s.s().snapshots(id)) {
                py::dict d;
                d["snapshot_id"] = x.id;
                d["reason"] = x.reason;
                d["virtual_time_s"] = x.time;
                d["round"] = x.round;
                d["cost"] = x.cost;
                d["energy_j"] = x.energyJ;
                d["compressed_bytes"] = x.compressedBytes;
                l.append(d);
            }
            return l;
        }, py::arg("run_id"))
        .def("fork_of", [](PyStore& s, std::int64_t id) -> py::object {
            const auto f = forkInfo(s.s(), id);
            if (!f) return py::none();
            py::dict d;
            d["parent_id"] = f->parentId;
            d["at_s"] = f->atSeconds;
            d["changes"] = f->changes;
            d["label"] = f->label;
            return std::move(d);
        }, py::arg("run_id"))
        .def("delete", [](PyStore& s, std::int64_t id) { return s.s().deleteRun(id); }, py::arg("run_id"))
        .def("set_tags", [](PyStore& s, std::int64_t id, const std::vector<std::string>& t) { s.s().setTags(id, t); })
        .def("set_notes", [](PyStore& s, std::int64_t id, const std::string& n) { s.s().setNotes(id, n); })
        .def_static("check", [](const std::string& path) {
            const DbCheck c = checkDatabase(path);
            py::dict d;
            d["ok"] = c.ok;
            d["lines"] = c.lines;
            return d;
        });
}
