#include "core/model/fast_net.h"

#include "core/model/fast_blas.h"
#include "core/model/fast_kernels.h"
#include "core/model/model_checks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <new>

namespace fog {

namespace {

/// SplitMix64: a cheap stream for dropout masks, seeded by the job (LocalJob::seed).
inline std::uint64_t nextRandom(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/// 64-byte aligned storage: the kernels' 32-byte loads of a row never straddle a cache line
/// when the row length is a multiple of 8 (a heap vector of this size starts 16 bytes past a
/// page, and split loads cost the dense kernels up to half their speed).
template <class T>
struct Aligned {
    using value_type = T;
    Aligned() = default;
    template <class U>
    Aligned(const Aligned<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
    template <class U>
    bool operator==(const Aligned<U>&) const { return true; }
    template <class U>
    bool operator!=(const Aligned<U>&) const { return false; }
};
using Floats = std::vector<float, Aligned<float>>;

} // namespace

/// Buffers of one call (a job or an evaluation), sized once for its largest batch.
struct FastNet::Work {
    const float* params = nullptr;
    Floats input;                          ///< batch x features: a copy of the batch where it is needed
    std::vector<const float*> inputRows;   ///< the batch's input rows (in the data set, or in `input`)
    std::vector<Floats> act;               ///< per layer: its output (after ReLU, dropout, pooling)
    std::vector<std::vector<const float*>> actRows; ///< per layer: pointers to the rows of act
    std::vector<Floats> scale;             ///< per hidden dense layer: d(out)/d(pre-activation)
    std::vector<std::vector<float>> col;   ///< per convolution: the unfolded input, per sample Q x P
    std::vector<std::vector<float>> conv;  ///< per convolution: its output after ReLU, before pooling
    std::vector<std::vector<int>> argmax;  ///< per convolution: where each pooled value came from
    Floats delta, deltaPrev;               ///< gradients of the loss w.r.t. a layer's output
    std::vector<float> dConv, dCol;        ///< a convolution's output and unfolded input gradients
    std::vector<std::uint32_t> draws;      ///< a dense layer's dropout draws (an even count)

    Work(const std::vector<Layer>& layers, int features, int batch) {
        const auto b = static_cast<std::size_t>(batch);
        input.resize(b * features);
        inputRows.resize(b);
        std::size_t widest = static_cast<std::size_t>(features), convWidest = 0, colWidest = 0;
        for (const auto& l : layers) {
            act.emplace_back(b * l.outSize());
            if (l.kind == Layer::Kind::Dense) draws.resize(std::max(draws.size(), (b * l.outSize() + 1) / 2 * 2));
            actRows.emplace_back(b);
            for (std::size_t r = 0; r < b; ++r) actRows.back()[r] = act.back().data() + r * l.outSize();
            const bool dense = l.kind == Layer::Kind::Dense;
            scale.emplace_back(l.hidden && dense ? b * l.outSize() : 0);
            const std::size_t q = static_cast<std::size_t>(l.in) * 25, p = static_cast<std::size_t>(l.outH) * l.outW;
            col.emplace_back(dense ? 0 : b * q * p);
            conv.emplace_back(dense ? 0 : b * l.out * p);
            argmax.emplace_back(dense ? 0 : b * l.outSize());
            widest = std::max({widest, l.outSize(), l.inSize()});
            if (!dense) {
                convWidest = std::max(convWidest, b * l.out * p);
                colWidest = std::max(colWidest, b * q * p);
            }
        }
        delta.resize(b * widest);
        deltaPrev.resize(delta.size());
        dConv.resize(convWidest);
        dCol.resize(colWidest);
    }
};

namespace {

constexpr int kKernel = 5; ///< the CNN's convolutions are 5x5, stride 1, no padding (net.cpp)

/// One image (C x H x W) unfolded into OH*OW columns of col (C*25 rows, `ld` apart): the
/// batch's images side by side make one product per layer instead of one per sample.
void im2col(const float* in, int c, int h, int w, int oh, int ow, float* col, std::size_t ld) {
    for (int ch = 0; ch < c; ++ch)
        for (int ky = 0; ky < kKernel; ++ky)
            for (int kx = 0; kx < kKernel; ++kx) {
                float* row = col + (static_cast<std::size_t>(ch) * 25 + ky * kKernel + kx) * ld;
                for (int y = 0; y < oh; ++y) {
                    const float* src = in + (static_cast<std::size_t>(ch) * h + y + ky) * w + kx;
                    std::memcpy(row + static_cast<std::size_t>(y) * ow, src, sizeof(float) * ow);
                }
            }
}

/// Adds one image's columns of col's gradient (C*25 rows, `ld` apart) back onto its
/// gradient (C x H x W).
void col2im(const float* col, int c, int h, int w, int oh, int ow, float* in, std::size_t ld) {
    for (int ch = 0; ch < c; ++ch)
        for (int ky = 0; ky < kKernel; ++ky)
            for (int kx = 0; kx < kKernel; ++kx) {
                const float* row = col + (static_cast<std::size_t>(ch) * 25 + ky * kKernel + kx) * ld;
                for (int y = 0; y < oh; ++y) {
                    float* dst = in + (static_cast<std::size_t>(ch) * h + y + ky) * w + kx;
                    const float* src = row + static_cast<std::size_t>(y) * ow;
                    for (int x = 0; x < ow; ++x) dst[x] += src[x];
                }
            }
}

} // namespace

std::string FastNet::unsupported(const ModelSpec& spec) { return fastPathUnsupported(spec); }

FastNet::FastNet(const ModelSpec& spec, const Dataset& train, const Dataset& test)
    : spec_(spec), train_(&train), test_(&test) {
    const std::string why = unsupported(spec);
    if (!why.empty()) throw ModelError("training.backend fast: " + why + " (use training.backend: libtorch)");
    if (train.size() == 0) throw ModelError("the training set is empty");
    if (train.features.size() != train.size() * static_cast<std::size_t>(train.featureCount()))
        throw ModelError("training features do not match the sample count");
    features_ = train.featureCount();
    classes_ = train.classes;
    std::size_t offset = 0;
    auto dense = [&](int in, int out, bool hidden) {
        Layer l;
        l.in = in;
        l.out = out;
        l.hidden = hidden;
        l.weight = offset;
        offset += static_cast<std::size_t>(in) * out;
        l.bias = offset;
        offset += static_cast<std::size_t>(out);
        layers_.push_back(l);
    };
    int in = features_;
    if (spec.kind == ModelSpec::Kind::Cnn) {
        const int h2 = ((train.height - 4) / 2 - 4) / 2, w2 = ((train.width - 4) / 2 - 4) / 2;
        if (train.height < 12 || train.width < 12 || h2 < 1 || w2 < 1)
            throw ModelError("model.kind cnn needs images of at least 12x12 pixels, the data have " +
                             std::to_string(train.height) + "x" + std::to_string(train.width));
        auto conv = [&](int c, int h, int w, int out) {
            Layer l;
            l.kind = Layer::Kind::Conv;
            l.in = c;
            l.out = out;
            l.inH = h;
            l.inW = w;
            l.outH = h - 4;
            l.outW = w - 4;
            l.poolH = l.outH / 2;
            l.poolW = l.outW / 2;
            l.hidden = true;
            l.weight = offset;
            offset += static_cast<std::size_t>(out) * c * 25;
            l.bias = offset;
            offset += static_cast<std::size_t>(out);
            layers_.push_back(l);
            return l;
        };
        const Layer c1 = conv(train.channels, train.height, train.width, 16);
        const Layer c2 = conv(16, c1.poolH, c1.poolW, 32);
        const int hidden = spec.hidden.empty() ? 128 : spec.hidden.front();
        dense(static_cast<int>(c2.outSize()), hidden, true);
        in = hidden;
    } else if (spec.kind == ModelSpec::Kind::Mlp) {
        for (int h : spec.hidden) {
            dense(in, h, true);
            in = h;
        }
    }
    dense(in, classes_, false);
    parameterCount_ = offset;
    fastblas::chosen(); // throws now rather than in a worker if no BLAS is there
    dense_ = fastkernels::dense();
}

namespace {
/// 2 x multiply-adds of one product of a layer for one sample (forward, weight gradient and
/// input gradient each cost this much).
double layerFlops(const FastNet::Layer& l) {
    if (l.kind == FastNet::Layer::Kind::Dense) return 2.0 * l.in * l.out;
    return 2.0 * l.out * (l.in * 25.0) * (static_cast<double>(l.outH) * l.outW);
}
} // namespace

double FastNet::evalFlopsPerSample() const {
    double f = 0.0;
    for (const auto& l : layers_) f += layerFlops(l);
    return f;
}

double FastNet::trainFlopsPerSample() const {
    // forward, weight gradient, and the input gradient of every layer but the first
    double f = 0.0;
    for (std::size_t i = 0; i < layers_.size(); ++i) f += layerFlops(layers_[i]) * (i == 0 ? 2 : 3);
    return f;
}

std::string FastNet::describe() const {
    std::string d = "fast (" + fastblas::chosen().name;
    if (dense_) d += std::string(", ") + dense_->name + " dense kernels";
    return d + ")";
}

float* FastNet::forward(Work& w, const float* const* rows, int b, bool training, std::uint64_t* rng) const {
    const auto sgemm = fastblas::chosen().sgemm;
    const bool small = dense_ && b <= fastkernels::kMaxBatch;
    const bool dropout = training && spec_.dropout > 0.0;
    const double keep = 1.0 - spec_.dropout;
    const float keepScale = static_cast<float>(1.0 / keep);
    const auto threshold = static_cast<std::uint32_t>(std::min(keep * 4294967296.0, 4294967295.0));
    for (std::size_t li = 0; li < layers_.size(); ++li) {
        const Layer& l = layers_[li];
        const float* bias = w.params + l.bias;
        float* z = w.act[li].data();
        const float* const* x = li == 0 ? rows : w.actRows[li - 1].data(); // the layer's input rows
        if (l.kind == Layer::Kind::Conv) {
            // The batch's images unfolded side by side (Q x b*P), one product with the bias
            // preloaded (OC x b*P), ReLU, then 2x2 max pooling per sample.
            const int q = l.in * 25, p = l.outH * l.outW, pooled = l.poolH * l.poolW;
            const std::size_t ld = static_cast<std::size_t>(b) * p;
            float* col = w.col[li].data();
            float* out = w.conv[li].data();
            for (int r = 0; r < b; ++r)
                im2col(x[r], l.in, l.inH, l.inW, l.outH, l.outW,
                       col + static_cast<std::size_t>(r) * p, ld);
            for (int oc = 0; oc < l.out; ++oc) std::fill(out + oc * ld, out + (oc + 1) * ld, bias[oc]);
            sgemm(false, false, l.out, static_cast<int>(ld), q, 1.0f, w.params + l.weight, q, col,
                  static_cast<int>(ld), 1.0f, out, static_cast<int>(ld));
            for (std::size_t i = 0; i < l.out * ld; ++i) out[i] = out[i] > 0.0f ? out[i] : 0.0f;
            for (int r = 0; r < b; ++r) {
                float* dst = z + static_cast<std::size_t>(r) * l.outSize();
                int* from = w.argmax[li].data() + static_cast<std::size_t>(r) * l.outSize();
                for (int oc = 0; oc < l.out; ++oc) {
                    const int base = static_cast<int>(oc * ld + static_cast<std::size_t>(r) * p);
                    const float* plane = out + base;
                    for (int py = 0; py < l.poolH; ++py)
                        for (int px = 0; px < l.poolW; ++px) {
                            int best = (2 * py) * l.outW + 2 * px;
                            for (int k : {best + 1, best + l.outW, best + l.outW + 1})
                                if (plane[k] > plane[best]) best = k;
                            const int o = oc * pooled + py * l.poolW + px;
                            dst[o] = plane[best];
                            from[o] = base + best;
                        }
                }
            }
            continue;
        }
        if (small) {
            dense_->forward(b, l.in, l.out, x, w.params + l.weight, z); // the bias included
        } else {
            // The BLAS code: the input rows are contiguous here (run() and evaluate() see to it).
            for (int r = 0; r < b; ++r)
                std::memcpy(z + static_cast<std::size_t>(r) * l.out, bias, sizeof(float) * l.out);
            sgemm(false, true, b, l.out, l.in, 1.0f, x[0], l.in, w.params + l.weight, l.in, 1.0f, z, l.out);
        }
        if (l.hidden) {
            // ReLU and dropout as one factor per unit: 0, or 1 (evaluation) or 1 / keep.
            float* d = w.scale[li].data();
            const std::size_t n = static_cast<std::size_t>(b) * l.out;
            if (dropout) {
                // The stream's draws first (two units per draw: the low half, then the high),
                // then one pass without branches: "z > 0" and "kept" are each about a coin
                // flip, and branches on them were mispredicted about once per unit.
                std::uint32_t* u = w.draws.data();
                for (std::size_t i = 0; i < n; i += 2) {
                    const std::uint64_t r = nextRandom(*rng);
                    u[i] = static_cast<std::uint32_t>(r);
                    u[i + 1] = static_cast<std::uint32_t>(r >> 32);
                }
                for (std::size_t i = 0; i < n; ++i)
                    d[i] = static_cast<float>((z[i] > 0.0f) & (u[i] < threshold)) * keepScale;
            } else {
                for (std::size_t i = 0; i < n; ++i) d[i] = z[i] > 0 ? 1.0f : 0.0f;
            }
            for (std::size_t i = 0; i < n; ++i) z[i] *= d[i];
        }
    }
    return w.act.back().data();
}

LocalResult FastNet::run(const LocalJob& job, const std::function<bool()>& shouldStop) const {
    LocalResult result;
    const auto sgemm = fastblas::chosen().sgemm;
    int maxBatch = 1;
    for (int bs : job.batchSizes) maxBatch = std::max(maxBatch, bs);
    Work w(layers_, features_, maxBatch);
    if (job.start->size() != parameterCount_) throw ModelError("the model has the wrong number of parameters");
    Floats params(job.start->begin(), job.start->end());
    w.params = params.data();
    Floats grad(parameterCount_, 0.0f); // momentum buffer, plain gradient, or the gradient sum
    std::uint64_t rng = job.seed;
    const float lr = static_cast<float>(job.learningRate), wd = static_cast<float>(job.weightDecay);
    const float momentum = static_cast<float>(job.momentum);

    double lossSum = 0.0;
    std::size_t offset = 0;
    const int C = classes_;
    for (int bs : job.batchSizes) {
        if (shouldStop && shouldStop()) {
            result.cancelled = true;
            return result;
        }
        const std::int64_t* rows = job.samples.data() + offset;
        offset += static_cast<std::size_t>(bs);
        // The kernels (and the convolutions' unfolding) read the batch's rows where they are;
        // the BLAS code of a dense first layer needs them side by side.
        const bool small = dense_ && bs <= fastkernels::kMaxBatch;
        const bool denseFirst = layers_.front().kind == Layer::Kind::Dense;
        bool copy = denseFirst && !small;
        for (int r = 0; r < bs && denseFirst && !copy; ++r) // the kernels read a misaligned row much slower
            copy = reinterpret_cast<std::uintptr_t>(train_->features.data() + static_cast<std::size_t>(rows[r]) *
                                                                                  features_) % 32 != 0;
        for (int r = 0; r < bs; ++r) {
            const float* src = train_->features.data() + static_cast<std::size_t>(rows[r]) * features_;
            float* dst = w.input.data() + static_cast<std::size_t>(r) * features_;
            if (copy) std::memcpy(dst, src, sizeof(float) * features_);
            w.inputRows[static_cast<std::size_t>(r)] = copy ? dst : src;
        }
        const float* logits = forward(w, w.inputRows.data(), bs, true, &rng);

        // Softmax and mean cross-entropy together; delta = (softmax - onehot) / batch.
        double loss = 0.0;
        float* delta = w.delta.data();
        const float inv = 1.0f / static_cast<float>(bs);
        for (int r = 0; r < bs; ++r) {
            const float* z = logits + static_cast<std::size_t>(r) * C;
            float* d = delta + static_cast<std::size_t>(r) * C;
            const float m = *std::max_element(z, z + C);
            float sum = 0.0f;
            for (int c = 0; c < C; ++c) sum += (d[c] = std::exp(z[c] - m));
            const auto y = static_cast<int>(train_->labels[static_cast<std::size_t>(rows[r])]);
            loss += std::log(static_cast<double>(sum)) + m - z[y];
            const float norm = inv / sum;
            for (int c = 0; c < C; ++c) d[c] *= norm;
            d[y] -= inv;
        }
        loss /= bs;
        if (!std::isfinite(loss))
            throw ModelError("training diverged: the loss became " + std::to_string(loss) +
                             " (lower training.learning_rate)");
        lossSum += loss;

        // Backward, layer by layer from the top: the input gradient with the weights as they
        // are, then the weight gradient into `grad` (the momentum buffer's decay as beta: no
        // separate pass), then that layer's update (weight decay and step in one pass).
        const bool accumulate = job.gradientOnly;
        const float alpha = accumulate ? static_cast<float>(bs) : 1.0f;
        const float beta = accumulate ? 1.0f : (momentum != 0.0f && result.steps > 0 ? momentum : 0.0f);
        for (std::size_t li = layers_.size(); li-- > 0;) {
            const Layer& l = layers_[li];
            const float* const* belowRows = li == 0 ? w.inputRows.data() : w.actRows[li - 1].data();
            const float* below = belowRows[0]; // contiguous unless the kernels run
            const float* W = params.data() + l.weight;
            float* gW = grad.data() + l.weight;
            float* gb = grad.data() + l.bias;
            float* dPrev = w.deltaPrev.data();
            if (l.kind == Layer::Kind::Dense && small) {
                // The kernels: the input gradient (times the layer below's ReLU and dropout
                // factors), then the weight gradient and the step in one pass.
                if (li > 0)
                    dense_->inputGradient(bs, l.in, l.out, delta, W,
                                          layers_[li - 1].kind == Layer::Kind::Dense ? w.scale[li - 1].data() : nullptr,
                                          dPrev);
                fastkernels::StepArgs a;
                a.b = bs;
                a.in = l.in;
                a.out = l.out;
                a.delta = delta;
                a.x = belowRows;
                a.alpha = alpha;
                a.beta = beta;
                a.w = params.data() + l.weight;
                a.buf = gW;
                a.update = !accumulate;
                a.keep = accumulate || momentum != 0.0f;
                a.lr = lr;
                a.wd = wd;
                dense_->step(a);
                std::swap(w.delta, w.deltaPrev);
                delta = w.delta.data();
                continue;
            }
            if (l.kind == Layer::Kind::Dense) {
                if (li > 0) {
                    sgemm(false, false, bs, l.in, l.out, 1.0f, delta, l.out, W, l.in, 0.0f, dPrev, l.in);
                    if (layers_[li - 1].kind == Layer::Kind::Dense) {
                        const float* s = w.scale[li - 1].data();
                        const std::size_t n = static_cast<std::size_t>(bs) * l.in;
                        for (std::size_t i = 0; i < n; ++i) dPrev[i] *= s[i];
                    }
                }
                sgemm(true, false, l.out, l.in, bs, alpha, delta, l.out, below, l.in, beta, gW, l.in);
                for (int j = 0; j < l.out; ++j) {
                    float s = 0.0f;
                    for (int r = 0; r < bs; ++r) s += delta[static_cast<std::size_t>(r) * l.out + j];
                    gb[j] = beta * gb[j] + alpha * s;
                }
            } else {
                // delta: the gradient w.r.t. the pooled output. Back through pooling and ReLU
                // to the convolution's output (OC x bs*P, the forward's layout), then one
                // product each for the weight gradient and the unfolded input's gradient.
                const int q = l.in * 25, p = l.outH * l.outW;
                const std::size_t ld = static_cast<std::size_t>(bs) * p, outSize = l.outSize();
                float* dConv = w.dConv.data();
                std::fill(dConv, dConv + l.out * ld, 0.0f);
                const float* conv = w.conv[li].data();
                for (int r = 0; r < bs; ++r) {
                    const int* from = w.argmax[li].data() + static_cast<std::size_t>(r) * outSize;
                    const float* d = delta + static_cast<std::size_t>(r) * outSize;
                    for (std::size_t o = 0; o < outSize; ++o)
                        if (conv[from[o]] > 0.0f) dConv[from[o]] += d[o];
                }
                if (li > 0) {
                    float* dCol = w.dCol.data();
                    sgemm(true, false, q, static_cast<int>(ld), l.out, 1.0f, W, q, dConv, static_cast<int>(ld), 0.0f,
                          dCol, static_cast<int>(ld));
                    std::fill(dPrev, dPrev + static_cast<std::size_t>(bs) * l.inSize(), 0.0f);
                    for (int r = 0; r < bs; ++r)
                        col2im(dCol + static_cast<std::size_t>(r) * p, l.in, l.inH, l.inW, l.outH, l.outW,
                               dPrev + static_cast<std::size_t>(r) * l.inSize(), ld);
                }
                sgemm(false, true, l.out, q, static_cast<int>(ld), alpha, dConv, static_cast<int>(ld), w.col[li].data(),
                      static_cast<int>(ld), beta, gW, q);
                for (int j = 0; j < l.out; ++j) {
                    float s = 0.0f;
                    for (std::size_t k = 0; k < ld; ++k) s += dConv[j * ld + k];
                    gb[j] = beta * gb[j] + alpha * s;
                }
            }
            if (!accumulate) {
                float* pw = params.data() + l.weight;
                const std::size_t n = l.bias - l.weight + static_cast<std::size_t>(l.out); // weight, then bias
                if (wd != 0.0f)
                    for (std::size_t i = 0; i < n; ++i) {
                        gW[i] += wd * pw[i];
                        pw[i] -= lr * gW[i];
                    }
                else
                    for (std::size_t i = 0; i < n; ++i) pw[i] -= lr * gW[i];
            }
            std::swap(w.delta, w.deltaPrev);
            delta = w.delta.data();
        }
        result.samples += bs;
        ++result.steps;
    }
    result.meanLoss = result.steps ? lossSum / result.steps : 0.0;
    if (job.gradientOnly) {
        const float s = result.samples ? 1.0f / static_cast<float>(result.samples) : 0.0f;
        for (float& g : grad) g *= s;
        result.update.assign(grad.begin(), grad.end());
    } else {
        const Params& start = *job.start;
        result.update.resize(params.size());
        for (std::size_t i = 0; i < params.size(); ++i) result.update[i] = params[i] - start[i];
    }
    return result;
}

EvalResult FastNet::evaluate(const Params& params) const {
    EvalResult r;
    const Dataset& test = *test_;
    if (test.size() == 0) return r;
    const int kChunk = spec_.kind == ModelSpec::Kind::Cnn ? 50 : 500;
    Work w(layers_, features_, kChunk);
    w.params = params.data();
    const auto n = static_cast<std::int64_t>(test.size());
    double lossSum = 0.0;
    std::int64_t correct = 0;
    for (std::int64_t from = 0; from < n; from += kChunk) {
        const int len = static_cast<int>(std::min<std::int64_t>(kChunk, n - from));
        for (int i = 0; i < len; ++i)
            w.inputRows[static_cast<std::size_t>(i)] = test.features.data() + static_cast<std::size_t>(from + i) * features_;
        const float* logits = forward(w, w.inputRows.data(), len, false, nullptr);
        for (int i = 0; i < len; ++i) {
            const float* z = logits + static_cast<std::size_t>(i) * classes_;
            const auto y = static_cast<int>(test.labels[static_cast<std::size_t>(from + i)]);
            const int best = static_cast<int>(std::max_element(z, z + classes_) - z);
            const float m = z[best];
            double sum = 0.0;
            for (int c = 0; c < classes_; ++c) sum += std::exp(static_cast<double>(z[c] - m));
            lossSum += std::log(sum) + m - z[y];
            if (best == y) ++correct;
        }
    }
    r.samples = n;
    r.loss = lossSum / static_cast<double>(n);
    r.accuracy = static_cast<double>(correct) / static_cast<double>(n);
    return r;
}

} // namespace fog
