#include "core/analysis/theory.h"

#include "core/data/dataset.h"
#include "core/engine/engine.h"
#include "core/model/learner.h"
#include "core/model/torchscript_model.h"
#include "core/spec/device_classes.h"
#include "core/system/topology.h"

#include <cmath>
#include <cstdio>

namespace fog {

namespace {

/// Collects the global rounds' times of a run.
struct RoundTimes : RunObserver {
    std::vector<double> ends;
    void onAggregation(const AggregationRecord& r) override {
        if (r.level == 0) ends.push_back(r.time);
    }
};

ExpectedRoundTime none(const std::string& why) {
    ExpectedRoundTime e;
    e.detail = why;
    return e;
}

} // namespace

Scenario timingOnlyScenario(const Scenario& s, double wireBytes, int samplesPerTrainer, int rounds) {
    Scenario t = s;
    t.model = ModelSpec{};
    t.model.kind = ModelSpec::Kind::None;
    t.model.wireBytes = wireBytes > 0 ? wireBytes : 0.0;
    const DataSpec keep = s.data;
    t.data = DataSpec{};
    t.data.kind = DataSpec::Kind::None;
    t.data.baseDir = keep.baseDir;
    t.data.samplesPerTrainer = samplesPerTrainer > 0 ? samplesPerTrainer : keep.samplesPerTrainer;
    t.stop = StopSpec{};
    t.stop.rounds = rounds;
    // Nodes given in FLOP/s (or with energy per FLOP) keep them: the twin divides by the
    // model's FLOPs per sample as the run would.
    if (needsModelFlops(s.topology)) {
        const double f = s.model.flopsPerSample > 0 ? s.model.flopsPerSample : scenarioTrainingFlops(s);
        if (f > 0) t.model.flopsPerSample = f;
    }
    return t;
}

ExpectedRoundTime monteCarloRoundTime(const Scenario& timingOnly, const std::atomic<bool>* cancel) {
    RoundTimes times;
    RunSummary summary;
    try {
        EngineOptions o;
        o.threads = 1;
        o.observer = &times;
        o.cancelFlag = cancel;
        Engine engine(timingOnly, o);
        summary = engine.run();
    } catch (const std::exception& e) {
        return none(std::string("the timing-only run failed: ") + e.what());
    }
    if (cancel && cancel->load()) return none("cancelled");
    const int n = static_cast<int>(times.ends.size());
    if (n < 2) return none("the timing-only run made " + std::to_string(n) + " rounds (" + summary.stopReason + ")");
    // Round durations; the mean is the last round's end over the rounds.
    double sq = 0.0, prev = 0.0;
    for (double t : times.ends) {
        const double d = t - prev;
        prev = t;
        sq += d * d;
    }
    const double mean = times.ends.back() / n; // exactly the run's time per round
    const double var = std::max(0.0, (sq - n * mean * mean) / (n - 1));
    ExpectedRoundTime e;
    e.source = ExpectedRoundTime::Source::MonteCarlo;
    e.seconds = mean;
    e.standardError = std::sqrt(var / n);
    e.rounds = n;
    e.label = "Monte Carlo estimate (" + std::to_string(n) + " rounds)";
    char buf[160];
    std::snprintf(buf, sizeof buf, "timing-only run of %d rounds: %.4g s ± %.2g s (standard error)", n, mean,
                  e.standardError);
    e.detail = buf;
    return e;
}

ExpectedRoundTime expectedRoundTimeOf(const Scenario& given, const TheoryOptions& options,
                                      const std::atomic<bool>* cancel) {
    // `s`: the scenario with the model's training FLOPs per sample filled in when nodes given
    // in FLOP/s need them and they are known only from the loaded data (IDX, CSV, LEAF).
    Scenario s = given;
    double bytes = std::isnan(options.wireBytes) ? wireBytesOf(s, {}) : options.wireBytes;
    int samples = options.samplesPerTrainer;
    const bool realData = s.data.kind != DataSpec::Kind::None;
    const bool flopsUnknown = needsModelFlops(s.topology) && !(s.model.flopsPerSample > 0) &&
                              !(scenarioTrainingFlops(s) > 0);
    if ((std::isnan(bytes) || (realData && samples <= 0) || flopsUnknown) && s.model.kind != ModelSpec::Kind::None) {
        // Size the model (and the trainers' shares) on the scenario's data, as the engine would.
        try {
            int trainers = 1;
            try {
                trainers = std::max<int>(1, static_cast<int>(Topology(s.topology, s.seed).trainers().size()));
            } catch (const std::exception&) {
            }
            DataSpec one = s.data;
            one.partition.kind = PartitionSpec::Kind::Iid;
            const DataBundle data = loadData(one, 1, s.seed);
            if (cancel && cancel->load()) return none("cancelled");
            if (std::isnan(bytes)) bytes = 4.0 * static_cast<double>(Learner(s.model, data.train, data.test).parameterCount());
            if (samples <= 0) samples = std::max(1, static_cast<int>(data.train.size() / static_cast<std::size_t>(trainers)));
            if (flopsUnknown)
                s.model.flopsPerSample = modelTrainingFlops(s.model, data.train.channels, data.train.height,
                                                            data.train.width, data.train.classes);
        } catch (const std::exception& e) {
            return none(std::string("could not size the model: ") + e.what());
        }
    }
    ExpectedRoundTime out;
    out.closedForm = closedFormRoundTime(s, bytes);
    if (out.closedForm.applies && !options.forceMonteCarlo) {
        out.source = ExpectedRoundTime::Source::ClosedForm;
        out.seconds = out.closedForm.seconds;
        out.label = "closed form";
        out.detail = out.closedForm.formula;
        return out;
    }
    if (cancel && cancel->load()) return none("cancelled");
    ExpectedRoundTime mc = monteCarloRoundTime(
        timingOnlyScenario(s, std::isnan(bytes) ? 0.0 : bytes, samples, std::max(2, options.monteCarloRounds)), cancel);
    mc.closedForm = out.closedForm;
    return mc;
}

} // namespace fog
