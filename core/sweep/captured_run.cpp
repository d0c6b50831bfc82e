#include "core/sweep/captured_run.h"

#include "core/engine/engine.h"
#include "core/scenario/scenario_io.h"
#include "core/sweep/sweep.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace fog {

namespace {

struct Capture : RunObserver {
    CapturedRun& run;
    explicit Capture(CapturedRun& r) : run(r) {}
    void onStart(const RunInfo& i) override { run.nodes = i.nodes; }
    void onAggregation(const AggregationRecord& r) override { run.records.push_back(r); }
    void onIntervals(const std::vector<NodeInterval>& v) override {
        run.intervals.insert(run.intervals.end(), v.begin(), v.end());
    }
    void onEvent(const RunEvent& e) override { run.events.push_back(e); }
    void onFinish(const RunSummary& s) override { run.summary = s; }
};

constexpr std::uint32_t kMagic = 0x46524331; // "FRC1"

class Writer {
public:
    template <class T> void pod(T v) {
        static_assert(std::is_arithmetic_v<T>);
        char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        out.append(b, sizeof(T));
    }
    void str(const std::string& s) {
        pod<std::uint64_t>(s.size());
        out += s;
    }
    std::string out;
};

class Reader {
public:
    explicit Reader(const std::string& s) : in(s) {}
    template <class T> T pod() {
        if (pos + sizeof(T) > in.size()) throw std::runtime_error("captured run: truncated data");
        T v;
        std::memcpy(&v, in.data() + pos, sizeof(T));
        pos += sizeof(T);
        return v;
    }
    std::string str() {
        const auto n = pod<std::uint64_t>();
        if (n > in.size() - pos) throw std::runtime_error("captured run: truncated string");
        std::string s = in.substr(pos, n);
        pos += n;
        return s;
    }
    std::size_t count() {
        const auto n = pod<std::uint64_t>();
        if (n > in.size()) throw std::runtime_error("captured run: bad count");
        return static_cast<std::size_t>(n);
    }
    const std::string& in;
    std::size_t pos = 0;
};

} // namespace

CapturedRun captureRun(const Scenario& scenario, int threads, const std::atomic<bool>* cancel) {
    CapturedRun run;
    Capture capture(run);
    EngineOptions options;
    options.threads = threads;
    options.observer = &capture;
    options.cancelFlag = cancel;
    try {
        Engine engine(scenario, options);
        run.summary = engine.run();
    } catch (const std::exception& e) {
        run.summary = RunSummary{};
        run.summary.status = RunStatus::Failed;
        run.summary.stopReason = e.what();
    }
    return run;
}

std::int64_t storeCaptured(RunStore& store, NewRun meta, const Scenario& scenario, int threads,
                           const CapturedRun& run) {
    meta.scenarioYaml = storedScenarioText(scenario);
    meta.seed = scenario.seed;
    meta.threads = threads;
    if (meta.name.empty()) meta.name = scenario.name;
    const std::int64_t id = store.beginRun(meta);
    if (!run.nodes.empty()) store.setNodes(id, run.nodes);
    store.appendBatch(id, run.records, run.intervals, run.events);
    // What the run produced, as the recorder of a local run records it: `db check` then
    // verifies the rows of runs computed on other ranks too. (Link usage spans are not
    // captured, so none are produced here.)
    RowCounts produced;
    produced.metrics = static_cast<std::int64_t>(run.records.size());
    produced.intervals = static_cast<std::int64_t>(run.intervals.size());
    produced.events = static_cast<std::int64_t>(run.events.size());
    store.finishRun(id, run.summary, produced);
    return id;
}

std::string encodeCaptured(const CapturedRun& run) {
    Writer w;
    w.pod(kMagic);
    w.pod<std::uint64_t>(run.nodes.size());
    for (const auto& n : run.nodes) {
        w.str(n.id), w.str(n.tier), w.str(n.role), w.str(n.parent);
        w.pod(n.throughput), w.pod(n.pricePerHour);
    }
    w.pod<std::uint64_t>(run.records.size());
    for (const auto& r : run.records) {
        w.pod<std::int32_t>(r.round), w.pod<std::int32_t>(r.level), w.str(r.aggregator);
        w.pod(r.time), w.pod(r.wallSeconds), w.pod(r.trainLoss), w.pod<std::int32_t>(r.participants);
        w.pod(r.learningRate), w.pod(r.cost), w.pod(r.energyJ), w.pod(r.bytes), w.pod(r.meanStaleness);
        w.pod(r.energyComputeJ), w.pod(r.energyNetworkJ), w.pod(r.energyIdleJ);
        w.pod<std::int32_t>(r.maxStaleness), w.pod(r.testLoss), w.pod(r.testAccuracy);
    }
    w.pod<std::uint64_t>(run.intervals.size());
    for (const auto& i : run.intervals)
        w.pod<std::int32_t>(i.node), w.pod<std::int32_t>(static_cast<int>(i.state)), w.pod(i.from), w.pod(i.to);
    w.pod<std::uint64_t>(run.events.size());
    for (const auto& e : run.events) w.pod(e.time), w.str(e.kindName()), w.pod<std::int32_t>(e.node), w.str(e.detail);
    const auto& s = run.summary;
    w.pod<std::int32_t>(static_cast<int>(s.status)), w.str(s.stopReason), w.pod<std::int32_t>(s.rounds);
    w.pod<std::int32_t>(s.aggregations), w.pod(s.virtualTime), w.pod(s.wallSeconds), w.pod(s.cost), w.pod(s.energyJ);
    w.pod(s.energyComputeJ), w.pod(s.energyNetworkJ), w.pod(s.energyIdleJ);
    w.pod(s.bytes), w.pod(s.finalTestLoss), w.pod(s.finalTestAccuracy), w.pod(s.bestTestAccuracy);
    w.pod(s.finalTrainLoss), w.pod<std::int64_t>(s.samplesComputed), w.pod<std::int32_t>(s.lostJobs);
    w.pod(kMagic);
    return std::move(w.out);
}

CapturedRun decodeCaptured(const std::string& bytes) {
    Reader r(bytes);
    if (r.pod<std::uint32_t>() != kMagic) throw std::runtime_error("captured run: not a FogStudio run message");
    CapturedRun run;
    run.nodes.resize(r.count());
    for (auto& n : run.nodes) {
        n.id = r.str(), n.tier = r.str(), n.role = r.str(), n.parent = r.str();
        n.throughput = r.pod<double>(), n.pricePerHour = r.pod<double>();
    }
    run.records.resize(r.count());
    for (auto& a : run.records) {
        a.round = r.pod<std::int32_t>(), a.level = r.pod<std::int32_t>(), a.aggregator = r.str();
        a.time = r.pod<double>(), a.wallSeconds = r.pod<double>(), a.trainLoss = r.pod<double>();
        a.participants = r.pod<std::int32_t>(), a.learningRate = r.pod<double>(), a.cost = r.pod<double>();
        a.energyJ = r.pod<double>(), a.bytes = r.pod<double>(), a.meanStaleness = r.pod<double>();
        a.energyComputeJ = r.pod<double>(), a.energyNetworkJ = r.pod<double>(), a.energyIdleJ = r.pod<double>();
        a.maxStaleness = r.pod<std::int32_t>(), a.testLoss = r.pod<double>(), a.testAccuracy = r.pod<double>();
    }
    run.intervals.resize(r.count());
    for (auto& i : run.intervals) {
        i.node = r.pod<std::int32_t>();
        const int st = r.pod<std::int32_t>();
        if (st < 0 || st > static_cast<int>(NodeState::Offline)) throw std::runtime_error("captured run: bad state");
        i.state = static_cast<NodeState>(st);
        i.from = r.pod<double>(), i.to = r.pod<double>();
    }
    run.events.resize(r.count());
    for (auto& e : run.events) {
        const double time = r.pod<double>();
        const std::string kind = r.str();
        const int node = r.pod<std::int32_t>();
        e = RunEvent::fromStored(time, kind, node, r.str());
    }
    auto& s = run.summary;
    const int status = r.pod<std::int32_t>();
    if (status < 0 || status > static_cast<int>(RunStatus::Failed)) throw std::runtime_error("captured run: bad status");
    s.status = static_cast<RunStatus>(status);
    s.stopReason = r.str(), s.rounds = r.pod<std::int32_t>(), s.aggregations = r.pod<std::int32_t>();
    s.virtualTime = r.pod<double>(), s.wallSeconds = r.pod<double>(), s.cost = r.pod<double>();
    s.energyJ = r.pod<double>();
    s.energyComputeJ = r.pod<double>(), s.energyNetworkJ = r.pod<double>(), s.energyIdleJ = r.pod<double>();
    s.bytes = r.pod<double>(), s.finalTestLoss = r.pod<double>();
    s.finalTestAccuracy = r.pod<double>(), s.bestTestAccuracy = r.pod<double>(), s.finalTrainLoss = r.pod<double>();
    s.samplesComputed = r.pod<std::int64_t>(), s.lostJobs = r.pod<std::int32_t>();
    if (r.pod<std::uint32_t>() != kMagic || r.pos != bytes.size()) throw std::runtime_error("captured run: trailing data");
    return run;
}

} // namespace fog
