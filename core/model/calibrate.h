#pragma once
// `fogstudio-cli calibrate MODEL`: how fast this machine trains a model, in samples/s and
// FLOP/s, for writing compute.throughput or compute.flops of a node like it (docs/own-model.md).

#include "core/model/torchscript_model.h"
#include "core/spec/scenario.h"

#include <cstdint>

namespace fog {

struct CalibrationResult {
    double samplesPerSecond = 0.0;
    double trainingFlopsPerSample = 0.0; ///< counted (core/model/torchscript_model.h)
    double flopsPerSecond = 0.0;         ///< samplesPerSecond x trainingFlopsPerSample
    std::int64_t parameters = 0;
    ModelSummary summary; ///< layers, parameters, FLOPs
    std::int64_t samples = 0; ///< samples trained while measuring
    double seconds = 0.0;     ///< wall time measured
};

/// Trains `spec` with local SGD steps of `batch` random samples shaped channels x height x
/// width (height 1: feature vectors) with `classes` labels, on this thread with one intra-op
/// thread (as a trainer of the emulator does), for about `seconds` after one warm-up step, and
/// measures the rate. A wall-clock measurement: it varies from run to run and machine to machine.
CalibrationResult calibrateModel(const ModelSpec& spec, int channels, int height, int width, int classes,
                                 int batch, double seconds);

} // namespace fog
