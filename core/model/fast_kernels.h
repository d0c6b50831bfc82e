#pragma once
// Hand-written kernels for the dense layers of the fast training path (core/model/fast_net.h)
// on small batches, where a general sgemm spends its time packing and dispatching: the
// reference workload's batch of 10 multiplies 10x784 by 784x200 (forward) and 200x10 by
// 10x784 (weight gradient), shapes on which BLIS ran at about half of one core's large-sgemm
// speed. These kernels compute each output as one dot product or one rank-b update in
// registers, fuse the weight gradient with the SGD step (momentum, weight decay, the update:
// one pass over the weights and the momentum buffer instead of three), add the bias in the
// forward, and read the batch's input rows where they are (no copy of the batch).
//
// The code is AVX2+FMA, chosen at run time (`__builtin_cpu_supports`); on a CPU without
// them, or with FOGSTUDIO_FAST_KERNELS=blas, dense() is null and the fast path uses its BLAS
// code for every product. The results depend only on the kernel set and the job (fixed
// order of every sum, no threads inside a kernel), so they are the same for any thread count;
// they differ in the last bits from the BLAS code's, which is why fastKernels() (the run
// record's "fast=" field) names the kernels too.

namespace fog::fastkernels {

/// The weight gradient and SGD step of one dense layer (out x in weights, row-major, then
/// `out` biases), as the fast path's BLAS code computes them:
///   g   = alpha * delta^T x + beta * buf      (per weight; the same for the biases)
///   update: g += wd * w; w -= lr * g          (else w is left alone)
///   buf = g                                   (when keep; else buf is neither read nor written)
struct StepArgs {
    int b = 0, in = 0, out = 0;
    const float* delta = nullptr;   ///< b x out: the gradient w.r.t. the layer's output
    const float* const* x = nullptr; ///< b rows of `in`: the layer's input
    float alpha = 1.0f, beta = 0.0f; ///< beta != 0 needs keep
    float* w = nullptr;             ///< weights, then biases at w + out * in
    float* buf = nullptr;           ///< the same layout: momentum buffer or gradient sum
    bool update = true, keep = true;
    float lr = 0.0f, wd = 0.0f;
};

struct Dense {
    const char* name; ///< e.g. "AVX2+FMA"
    /// z (b x out, row-major) = x W^T + bias; row r of x at x[r] (`in` floats), W out x in
    /// row-major, the biases right after W.
    void (*forward)(int b, int in, int out, const float* const* x, const float* w, float* z);
    /// dx (b x in) = (delta W), times `scale` (b x in) element by element unless it is null.
    void (*inputGradient)(int b, int in, int out, const float* delta, const float* w, const float* scale, float* dx);
    void (*step)(const StepArgs& a);
};

/// Batches of at most this many rows use the kernels; larger ones (the evaluation's chunks of
/// 500) the BLAS, which is faster there.
constexpr int kMaxBatch = 16;

enum class Mode { Auto, Blas };
/// The kernels nets built from now on use: those of this CPU (Auto), or none (Blas, the BLAS
/// code for every product). Default: FOGSTUDIO_FAST_KERNELS=blas picks Blas, else Auto. For
/// tests and measurements; the run record (fastKernels()) describes the default.
void setMode(Mode m);
/// The kernels for this CPU and mode, or null.
const Dense* dense();

} // namespace fog::fastkernels
