#include "core/engine/dispatcher.h"

#include "core/engine/local_job_tap.h"
#include "core/engine/work_pool.h"
#include "core/policies/local_optimizers.h"
#include "core/util/engine_error.h"
#include "core/util/random.h"

#include <cmath>
#include <stdexcept>

namespace fog {

Dispatcher::Dispatcher(const Scenario& scenario, const Topology& topo, const Learner* learner, double modelBytes,
                       const std::atomic<bool>& cancelAll)
    : scenario_(scenario), topo_(topo), learner_(learner), cancelAll_(cancelAll) {
    const TrainingSpec& t = scenario_.training;
    // The encoded size over 4 bytes per parameter: a model.wire_bytes set by hand scales with it.
    const std::size_t params = learner_ ? learner_->parameterCount()
                                        : static_cast<std::size_t>(std::llround(modelBytes / 4.0));
    auto make = [&](const std::string& name, int bits, double fraction) {
        Codec c;
        try {
            c.config = codecConfig(name, bits, fraction);
        } catch (const std::invalid_argument& e) {
            throw EngineError(e.what());
        }
        if (params > 0) c.ratio = encodedBytes(c.config, params) / (4.0 * static_cast<double>(params));
        return c;
    };
    up_ = make(t.codecUp, t.codecUpBits, t.codecUpFraction);
    down_ = make(t.codecDown, t.codecDownBits, 1.0);
    const double rate = t.codecElementsPerSecond;
    if (rate > 0 && params > 0) {
        const double one = static_cast<double>(params) / rate;
        if (up_.config.kind != CodecConfig::Kind::None) upSeconds_ = one;
        if (down_.config.kind != CodecConfig::Kind::None) downSeconds_ = one;
    }
    if (down_.config.kind == CodecConfig::Kind::TopK)
        throw EngineError("training.codec_down topk: top-k needs the error feedback of a sender that keeps "
                          "a residual per receiver; use fp16 or quantize downlink");
}

Dispatcher::~Dispatcher() = default; // the pool joins its workers (WorkPool is complete here)

void Dispatcher::startPool(int threads) {
    pool_ = std::make_unique<WorkPool>(std::max(1, threads), [] { useSingleThreadedKernels(); });
}

int Dispatcher::threads() const { return pool_ ? pool_->threads() : 0; }

LocalJob Dispatcher::localJob(const Job& job, std::vector<std::int64_t> samples, const JobInput& input,
                              double learningRate) const {
    const TrainingSpec& t = scenario_.training;
    const ParamsPtr& model = input.model;
    LocalJob lj;
    lj.start = model;
    if (down_.config.kind != CodecConfig::Kind::None && model && !model->empty()) {
        // The trainer trains from the model as decoded (its own stream: the draw is the same
        // whichever thread runs the job).
        auto decoded = std::make_shared<Params>(*model);
        Rng rng(deriveSeed(deriveSeed(scenario_.seed, hashName("codec-down"), hashName(topo_.id(job.trainer))),
                           input.seedIndex));
        encodeDecode(down_.config, *decoded, rng, nullptr);
        lj.start = std::move(decoded);
    }
    lj.samples = std::move(samples);
    lj.batchSizes = job.batchSizes;
    lj.learningRate = learningRate;
    lj.momentum = t.momentum;
    lj.weightDecay = t.weightDecay;
    lj.optimizer = localOptimizerOf(t.optimizer);
    lj.beta1 = t.beta1;
    lj.beta2 = t.beta2;
    lj.epsilon = t.epsilon;
    lj.gradientOnly = job.gradient;
    lj.probe = input.probe;
    lj.seed = deriveSeed(scenario_.seed, hashName(topo_.id(job.trainer)), input.seedIndex);
    lj.proxMu = input.proxMu;
    lj.correction = input.correction;
    if (t.optimizerState == "keep" && !job.gradient) {
        lj.returnState = true;
        const auto it = optimizerStates_.find(job.trainer);
        if (it != optimizerStates_.end()) lj.optimizerState = it->second;
    }
    return lj;
}

void Dispatcher::submit(const Job& job, std::vector<std::int64_t> samples, const JobInput& input,
                        double learningRate, double priority) {
    LocalJob lj = localJob(job, std::move(samples), input, learningRate);
    if (LocalJobTap* tap = localJobTap()) tap->submitted(job, lj);
    auto result = std::make_shared<LocalResult>();
    const Learner* learner = learner_;
    const std::atomic<bool>* cancelAll = &cancelAll_;
    auto item = pool_->submit(priority, [learner, lj = std::move(lj), result,
                                         cancelAll](const std::atomic<bool>& cancelled) {
        *result = learner->run(lj, [&] { return cancelled.load() || cancelAll->load(); });
    });
    work_[job.id] = {std::move(item), std::move(result)};
}

LocalResult Dispatcher::collect(const Job& job) {
    LocalResult result;
    const auto it = work_.find(job.id);
    if (it == work_.end()) {
        result.samples = job.samples;
        result.steps = static_cast<int>(job.batchSizes.size());
        return result;
    }
    const Work work = std::move(it->second);
    work_.erase(it);
    work.item->wait();
    result = std::move(*work.result);
    if (result.optimizerState) optimizerStates_[job.trainer] = std::move(result.optimizerState);
    if (up_.config.kind != CodecConfig::Kind::None && !result.update.empty()) {
        // Encoded by the trainer, decoded by the aggregator: what arrives. The residual of
        // top-k stays with the trainer for its next upload.
        Rng rng(deriveSeed(deriveSeed(scenario_.seed, hashName("codec-up"), hashName(topo_.id(job.trainer))), job.id));
        encodeDecode(up_.config, result.update, rng, &residuals_[job.trainer]);
    }
    if (LocalJobTap* tap = localJobTap()) tap->collected(job, result);
    return result;
}

void Dispatcher::drop(std::uint64_t jobId) {
    const auto it = work_.find(jobId);
    if (it == work_.end()) return;
    it->second.item->cancel();
    work_.erase(it);
}

void Dispatcher::cancelAll() {
    for (auto& [id, work] : work_) work.item->cancel();
}

void Dispatcher::waitAll() {
    for (auto& [id, work] : work_) work.item->wait();
}

} // namespace fog
