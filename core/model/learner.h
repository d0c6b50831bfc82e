#pragma once
// The one door to LibTorch: models are flat parameter vectors outside this module, so the
// engine, policies and tests never include torch headers.

#include "core/data/dataset.h"
#include "core/spec/scenario.h"

#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace fog {

using Params = std::vector<float>;
using ParamsPtr = std::shared_ptr<const Params>;

/// The optimiser of the local steps (training.optimizer; docs/learning.md): each one does the
/// tensor operations of its LibTorch 1.13 counterpart in the same order (test_training holds
/// them to torch::optim's numbers bit for bit).
enum class LocalOptimizer {
    Sgd,      ///< torch::optim::SGD (momentum, weight decay)
    Nesterov, ///< torch::optim::SGD with nesterov(true): d = g + m buf
    Adam,     ///< torch::optim::Adam: L2 weight decay added to the gradient
    AdamW,    ///< torch::optim::AdamW: decoupled weight decay, w *= 1 - lr wd
};

/// A client's optimiser state between two jobs (training.optimizer_state: keep): SGD's
/// momentum buffer, or Adam's step count and moments, flat in the model's layout.
struct OptimizerState {
    std::int64_t step = 0; ///< Adam/AdamW: steps taken
    Params first;          ///< momentum buffer or exp_avg (empty: not yet defined)
    Params second;         ///< exp_avg_sq (Adam/AdamW)
};
using OptimizerStatePtr = std::shared_ptr<const OptimizerState>;

/// Local work handed to a worker thread: a pure function of its fields, so results do not
/// depend on which thread runs it or when.
struct LocalJob {
    ParamsPtr start;                   ///< model to start from
    std::vector<std::int64_t> samples; ///< training-set indices, consumed batch by batch
    std::vector<int> batchSizes;       ///< one entry per step; they sum to samples.size()
    double learningRate = 0.01;
    double momentum = 0.0;
    double weightDecay = 0.0;
    LocalOptimizer optimizer = LocalOptimizer::Sgd;
    double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8; ///< Adam/AdamW
    /// The client's optimiser state to start from (null: fresh, as torch::optim starts);
    /// returnState: hand the state after the last step back in LocalResult::optimizerState.
    OptimizerStatePtr optimizerState;
    bool returnState = false;
    /// FedProx (Li et al., MLSys 2020): mu (w - w_start) is added to every step's gradient,
    /// the gradient of the proximal term mu/2 ||w - w_start||^2.
    double proxMu = 0.0;
    /// SCAFFOLD (Karimireddy et al., ICML 2020): c - c_i added to every step's gradient
    /// (same layout as the model); null: none.
    ParamsPtr correction;
    /// true: return the mean gradient of the batches at `start` (no local update);
    /// false: run local SGD and return the change of the parameters (w_end - w_start).
    bool gradientOnly = false;
    std::uint64_t seed = 0; ///< dropout stream
    /// Pilot phase (core/planning/pilot.h): before each step, measure the batch loss, the
    /// gradient, the loss after a plain gradient step and the per-sample gradient variance
    /// (StepProbe); the training itself is unchanged.
    bool probe = false;
};

/// What a probed step measured, at the parameters w the step starts from, on its batch, with
/// the network in evaluation mode (no dropout): F the batch loss, g its gradient.
struct StepProbe {
    double loss = 0.0;                  ///< F(w)
    double lossAfterGradientStep = 0.0; ///< F(w - lr g): the loss decrease of a plain step
    double lossAfterAscentStep = 0.0;   ///< F(w + lr g): with the above, the curvature along g
    double gradNormSq = 0.0;            ///< ||g||^2
    /// Per-sample gradients g_j of the first probeSamples samples of the batch:
    /// sum ||g_j - mean_j g_j||^2 / (probeSamples - 1) (0 with one sample).
    double sampleVariance = 0.0;
    int batch = 0;
    int probeSamples = 0;
    double learningRate = 0.0;
};

struct LocalResult {
    Params update;         ///< gradient or parameter change, same layout as the model
    double meanLoss = 0.0; ///< mean training loss over the steps
    std::int64_t samples = 0;
    int steps = 0;
    bool cancelled = false;
    std::vector<StepProbe> probes; ///< one per step when LocalJob::probe
    Params firstGradient;          ///< g of the first probed step (same layout as the model)
    OptimizerStatePtr optimizerState; ///< after the last step, when LocalJob::returnState
};

struct EvalResult {
    double loss = 0.0;
    double accuracy = 0.0;
    std::int64_t samples = 0;
};

struct ModelError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Sets LibTorch and OpenBLAS to one intra-op thread each: FogStudio parallelises across
/// trainers, and nested BLAS threads on 2 cores make two workers slower than one.
void useSingleThreadedKernels();

class Learner {
public:
    /// `train` and `test` must outlive the learner. Throws ModelError if the model does not
    /// fit the data (e.g. a CNN on non-image features), or if `backend` is Fast and the model
    /// has no fast path. Auto takes the fast path when the model has one (core/model/fast_net.h).
    Learner(const ModelSpec& spec, const Dataset& train, const Dataset& test,
            TrainingBackend backend = TrainingBackend::LibTorch);
    ~Learner();
    Learner(const Learner&) = delete;
    Learner& operator=(const Learner&) = delete;

    std::size_t parameterCount() const;
    /// PyTorch-style uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) initialisation from `seed`.
    Params initialParameters(std::uint64_t seed) const;
    /// Thread-safe; asks `shouldStop` between steps and returns early (cancelled) if true.
    LocalResult run(const LocalJob& job, const std::function<bool()>& shouldStop = {}) const;
    /// The same local work through LibTorch's own optimiser (torch::optim::SGD, zero_grad),
    /// slower: run() must give the same numbers bit for bit, and tests hold it to that.
    LocalResult runWithLibTorchOptimiser(const LocalJob& job) const;
    /// Loss and accuracy on the whole test set (thread-safe).
    EvalResult evaluate(const Params& params) const;
    /// e.g. "mlp (159010 parameters, fast (BLIS 0.9.0))".
    std::string describe() const;
    /// The path that trains: "libtorch" or "fast (LIBRARY)". Jobs of the pilot phase
    /// (LocalJob::probe) always run on LibTorch.
    std::string backend() const;
    bool fast() const;

private:
    LocalResult runSteps(const LocalJob& job, const std::function<bool()>& shouldStop, bool libTorchOptimiser) const;

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// The same FedAvg workload written as a plain LibTorch loop (no engine), for `bench`:
/// rounds of `clientsPerRound` clients drawn by `seed`, each running `epochs` local epochs,
/// spread over `threads` threads. Returns the final test accuracy.
struct PlainFedAvgConfig {
    ModelSpec model;
    int clients = 100;
    int clientsPerRound = 10;
    int rounds = 10;
    int epochs = 5;
    int batchSize = 10;
    double learningRate = 0.01;
    double momentum = 0.5;
    int threads = 1;
    std::uint64_t seed = 1;
};
EvalResult runPlainFedAvg(const PlainFedAvgConfig& cfg, const Dataset& train, const Dataset& test,
                          const std::vector<std::vector<std::int64_t>>& parts);

} // namespace fog
