#include "core/model/calibrate.h"

#include "core/model/learner.h"
#include "core/model/torchscript_model.h"
#include "core/util/random.h"

#include <chrono>

namespace fog {

CalibrationResult calibrateModel(const ModelSpec& spec, int channels, int height, int width, int classes,
                                 int batch, double seconds) {
    useSingleThreadedKernels();
    Dataset d;
    d.channels = channels;
    d.height = height;
    d.width = width;
    d.classes = classes;
    const std::size_t n = 1024;
    Rng rng(1);
    d.features.resize(n * static_cast<std::size_t>(d.featureCount()));
    for (auto& f : d.features) f = static_cast<float>(rng.uniform(-1.0, 1.0));
    for (std::size_t i = 0; i < n; ++i) d.labels.push_back(static_cast<std::int64_t>(i % static_cast<std::size_t>(classes)));
    Learner learner(spec, d, d);
    const ModelSummary summary = modelSummary(spec, channels, height, width, classes);

    LocalJob job;
    job.start = std::make_shared<Params>(learner.initialParameters(1));
    job.learningRate = 0.01;
    for (int s = 0; s < 10; ++s) {
        job.batchSizes.push_back(batch);
        for (int i = 0; i < batch; ++i) job.samples.push_back(static_cast<std::int64_t>(rng.uniform() * n) % static_cast<std::int64_t>(n));
    }
    learner.run(job); // warm-up: replicas, allocations

    CalibrationResult r;
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    double elapsed = 0.0;
    do {
        r.samples += learner.run(job).samples;
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (elapsed < seconds);
    r.seconds = elapsed;
    r.samplesPerSecond = static_cast<double>(r.samples) / elapsed;
    r.trainingFlopsPerSample = trainingFlopsPerSample(spec, summary);
    r.flopsPerSecond = r.samplesPerSecond * r.trainingFlopsPerSample;
    r.parameters = static_cast<std::int64_t>(learner.parameterCount());
    r.summary = summary;
    return r;
}

} // namespace fog
