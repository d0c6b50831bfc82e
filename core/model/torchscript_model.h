#pragma once
// Models of the user's own, as TorchScript files (`model: {kind: torchscript, path: net.pt}`),
// and what a model costs: its layers, parameters and FLOPs per sample. No LibTorch here: the
// JIT is included by torchscript_model.cpp only (docs/own-model.md).

#include "core/spec/scenario.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fog {

/// Largest TorchScript file read (64 MiB, 16 million float parameters); checked before
/// anything is read. The model's parameters are further bounded by the scenario limits.
inline constexpr std::uint64_t kMaxTorchScriptBytes = std::uint64_t(64) << 20;

/// model.path as the spec means it: relative paths resolve against spec.baseDir (the
/// scenario file's folder) when it is set; others are returned as given.
std::string resolveModelPath(const ModelSpec& spec);
/// The spec with an absolute path (against baseDir, else the working directory): for a
/// run's stored scenario, so that a re-run finds the same file from anywhere.
ModelSpec withAbsoluteModelPath(const ModelSpec& spec);

/// One layer of a model summary: a module holding parameters (a Linear, a Conv2d, ...).
struct ModelLayer {
    std::string name;               ///< e.g. "fc0", "features.0"
    std::string kind;               ///< e.g. "Linear", "Conv2d"
    std::vector<std::int64_t> weightShape;
    std::int64_t parameters = 0;
};

/// What a model is and costs, for the studio's summary, the validator and the compute model.
struct ModelSummary {
    std::string kind;                ///< "mlp", "torchscript", ...
    std::vector<ModelLayer> layers;
    std::int64_t parameters = 0;
    /// Floating-point operations of one sample's forward pass: 2 per multiply-add of the
    /// matrix products and convolutions (element-wise operations are not counted).
    double forwardFlopsPerSample = 0.0;
    /// Training cost of one sample: forward + backward, counted as 3 x the forward pass.
    double trainingFlopsPerSample() const { return 3.0 * forwardFlopsPerSample; }
};

/// Loads a TorchScript file and checks it against the data: a regular file of at most
/// kMaxTorchScriptBytes; it loads; float32 parameters and no buffers (BatchNorm's running
/// statistics would differ between the trainers' replicas); a forward pass on a batch of two
/// samples shaped [2, C, H, W] (images, height > 1) or [2, features] returns [2, classes]
/// (classes 0: any [2, k], when the labels are not known yet; width 0: the shape is not
/// known, only the file is checked and its parameters counted); two forward passes in training
/// mode give the same output (no dropout or other draws from LibTorch's global random stream,
/// which threads share). FLOPs are measured on one sample by counting the matrix products and
/// convolutions the forward pass runs. Throws ModelError naming the file and the shapes.
/// Results are cached per file (size and modification time) and shape.
ModelSummary inspectTorchScript(const std::string& path, int channels, int height, int width, int classes);

/// The summary of a built-in model (logreg, mlp, cnn) on data of this shape, counted from its
/// layer sizes (no LibTorch). Throws ModelError for kind none or a CNN on too small images.
ModelSummary builtinModelSummary(const ModelSpec& spec, int channels, int height, int width, int classes);

/// Either of the above by spec.kind (torchscript: spec's resolved path).
ModelSummary modelSummary(const ModelSpec& spec, int channels, int height, int width, int classes);

/// FLOPs per sample a trainer given in FLOP/s divides its speed by: spec.flopsPerSample when
/// set, else the summary's training FLOPs.
double trainingFlopsPerSample(const ModelSpec& spec, const ModelSummary& summary);

/// Training FLOPs per sample of `spec` on data shaped like `train` (spec.flopsPerSample when
/// set): what a node given in FLOP/s (compute.flops) divides its speed by. Throws ModelError
/// for model.kind none without model.flops_per_sample.
double modelTrainingFlops(const ModelSpec& spec, int channels, int height, int width, int classes);

/// The scenario's training FLOPs per sample from what validation knows of its data (probeData:
/// the shape of Fashion-MNIST, IDX, CSV, CIFAR-10 files; synthetic: its features and classes),
/// without loading it: for estimates before a run (closed forms). NaN when the data's shape or
/// classes are not known that way (IDX and CSV labels, LEAF) and model.flops_per_sample is 0.
double scenarioTrainingFlops(const Scenario& s);
/// The summary of the scenario's model on its data's shape as scenarioTrainingFlops finds it;
/// nothing when the shape is not known that way, the model is none, or does not fit the data.
std::optional<ModelSummary> scenarioModelSummary(const Scenario& s);
/// The scenario with every node given in FLOP/s (compute.flops or a device class) given in
/// samples/s instead (throughput = flops / scenarioTrainingFlops, energy per FLOP folded into
/// energy per sample, device classes applied and cleared); unchanged when no node needs the
/// model's FLOPs. Throws ModelError when the FLOPs per sample are not known.
Scenario withComputeInSamples(const Scenario& s);

/// Counts, while `fn` runs on this thread, the FLOPs of the matrix products (addmm, mm, bmm)
/// and convolutions LibTorch executes, as inspectTorchScript does; for tests that check the
/// built-in counts against what LibTorch runs, and for `calibrate`.
double countForwardFlops(const std::function<void()>& fn);

} // namespace fog
