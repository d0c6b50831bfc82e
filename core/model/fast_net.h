#pragma once
// The fast training path of the built-in models (training.backend: fast): logistic
// regression, MLP and the small CNN trained with preallocated buffers and a few BLAS calls
// per layer, without LibTorch's per-operation overhead (dispatch, autograd, allocator); on
// batches of at most fastkernels::kMaxBatch rows the dense layers use the AVX2+FMA kernels
// of core/model/fast_kernels.h instead where the CPU has them.
//
// It computes what the LibTorch path (core/model/net.cpp, learner.cpp) computes for these
// models, in another order of floating-point operations: the same parameter layout (so the
// same initialisation, Learner::initialParameters), forward (linear / 5x5 convolution, ReLU,
// 2x2 max pooling, dropout after each hidden dense layer), mean cross-entropy, SGD with
// momentum and weight decay as torch::optim::SGD (d = g + wd w; buf = d on the first step of
// a job, then m buf + d; w -= lr buf), batches in the job's order, evaluation on the whole
// test set. Dropout keeps each unit with probability 1 - p and scales it by 1 / (1 - p), as
// LibTorch does, with masks drawn from the job's own stream (LocalJob::seed), so results do
// not depend on the thread that runs the job. Not bit-identical to the LibTorch path.
// No torch headers: the engine, `bench` and tests may include this file.

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/spec/scenario.h"

#include <functional>
#include <string>
#include <vector>

namespace fog {

namespace fastkernels {
struct Dense;
}

class FastNet {
public:
    /// Empty if `spec` has a fast path, else the reason it has none.
    static std::string unsupported(const ModelSpec& spec);

    /// `train` and `test` must outlive the net. Throws ModelError as Learner does.
    FastNet(const ModelSpec& spec, const Dataset& train, const Dataset& test);

    std::size_t parameterCount() const { return parameterCount_; }
    /// Thread-safe: all state of a job lives in the call.
    LocalResult run(const LocalJob& job, const std::function<bool()>& shouldStop = {}) const;
    EvalResult evaluate(const Params& params) const;
    /// Floating-point operations of the matrix products (2 per multiply-add) for one sample:
    /// forward and backward of a training step (the first layer's input gradient is never
    /// computed), or forward only (evaluation).
    double trainFlopsPerSample() const;
    double evalFlopsPerSample() const;
    /// e.g. "fast (BLIS 0.9.0)".
    std::string describe() const;

    struct Layer {
        enum class Kind { Dense, Conv } kind = Kind::Dense;
        int in = 0, out = 0;           ///< dense: features; conv: channels
        int inH = 0, inW = 0;          ///< conv: input image size
        int outH = 0, outW = 0;        ///< conv: output of the convolution (before pooling)
        int poolH = 0, poolW = 0;      ///< conv: after 2x2 max pooling
        bool hidden = false;           ///< ReLU (and for dense, dropout) after it
        std::size_t weight = 0, bias = 0; ///< offsets in the flat parameter vector
        std::size_t inSize() const { return kind == Kind::Dense ? std::size_t(in) : std::size_t(in) * inH * inW; }
        std::size_t outSize() const { return kind == Kind::Dense ? std::size_t(out) : std::size_t(out) * poolH * poolW; }
    };

private:
    struct Work;
    /// Forward of the `b` input rows (inSize of the first layer each; side by side in memory
    /// unless the dense kernels take the batch); training: dropout masks from `rng`. Leaves
    /// activations in `w`; returns the logits (b x classes).
    float* forward(Work& w, const float* const* rows, int b, bool training, std::uint64_t* rng) const;

    ModelSpec spec_;
    const Dataset* train_;
    const Dataset* test_;
    std::vector<Layer> layers_;
    std::size_t parameterCount_ = 0;
    int classes_ = 0;
    int features_ = 0;
    const fastkernels::Dense* dense_ = nullptr; ///< the dense layers' kernels on small batches, or none
};

} // namespace fog
