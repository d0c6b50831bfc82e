#include "core/model/fast_kernels.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>

// Every function that uses AVX2 or FMA carries the target attribute itself (no pragma over the
// file, no std templates or lambdas inside them): nothing compiled for AVX2 can be picked by
// the linker for code that runs on a CPU without it. The rest of the program stays baseline
// x86-64, and dense() hands these functions out only where the CPU has both extensions.
#define FOG_AVX2 __attribute__((target("avx2,fma")))
#define FOG_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

namespace fog::fastkernels {

namespace {

// Lanes 0..n-1 set, for the last partial 8-float chunk of a row.
alignas(32) const std::int32_t kMaskBits[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

FOG_AVX2_INLINE __m256i tailMask(int n) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMaskBits + 8 - n));
}

template <bool Masked>
FOG_AVX2_INLINE __m256 load(const float* p, __m256i m) {
    if (Masked) return _mm256_maskload_ps(p, m);
    return _mm256_loadu_ps(p);
}

template <bool Masked>
FOG_AVX2_INLINE void store(float* p, __m256i m, __m256 v) {
    if (Masked)
        _mm256_maskstore_ps(p, m, v);
    else
        _mm256_storeu_ps(p, v);
}

/// The 8 lanes summed in a fixed order: (0+4, 1+5, 2+6, 3+7), then pairs, then the last two.
FOG_AVX2_INLINE float hsum(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// ---- forward: z = x W^T + bias ---------------------------------------------------------------

/// One chunk of 8 inputs for J weight rows and R batch rows: J x R accumulators in registers.
template <int J, int R, bool Masked>
FOG_AVX2_INLINE void dotChunk(__m256 (&acc)[J][R], const float* const* x, const float* w, int in, int k,
                              __m256i m) {
    __m256 wv[J];
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j) wv[j] = load<Masked>(w + static_cast<std::size_t>(j) * in + k, m);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        __m256 xv = load<Masked>(x[r] + k, m);
        if (J > 1) __asm__("" : "+x"(xv)); // one load for the J FMAs (GCC would fold it into each)
#pragma GCC unroll 4
        for (int j = 0; j < J; ++j) acc[j][r] = _mm256_fmadd_ps(wv[j], xv, acc[j][r]);
    }
}

template <int J, int R>
FOG_AVX2 void dotBlock(int in, const float* const* x, const float* w, const float* bias, float* z, int ldz) {
    __m256 acc[J][R];
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j)
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) acc[j][r] = _mm256_setzero_ps();
    const __m256i none = _mm256_setzero_si256();
    int k = 0;
    for (; k + 8 <= in; k += 8) dotChunk<J, R, false>(acc, x, w, in, k, none);
    if (k < in) dotChunk<J, R, true>(acc, x, w, in, k, tailMask(in - k));
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j)
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) z[static_cast<std::size_t>(r) * ldz + j] = hsum(acc[j][r]) + bias[j];
}

template <int R>
FOG_AVX2 void weightRows(int in, int out, const float* const* x, const float* w, float* z) {
    const float* bias = w + static_cast<std::size_t>(out) * in;
    int j = 0;
    for (; j + 2 <= out; j += 2) dotBlock<2, R>(in, x, w + static_cast<std::size_t>(j) * in, bias + j, z + j, out);
    if (j < out) dotBlock<1, R>(in, x, w + static_cast<std::size_t>(j) * in, bias + j, z + j, out);
}

/// Groups of 5 batch rows (their inputs stay in L1), each against all weight rows (2 x 5
/// accumulators fill the registers and keep the FMA units busy).
FOG_AVX2 void forwardAvx2(int b, int in, int out, const float* const* x, const float* w, float* z) {
    int r = 0;
    for (; r + 5 <= b; r += 5) weightRows<5>(in, out, x + r, w, z + static_cast<std::size_t>(r) * out);
    float* zr = z + static_cast<std::size_t>(r) * out;
    switch (b - r) {
    case 4: weightRows<4>(in, out, x + r, w, zr); break;
    case 3: weightRows<3>(in, out, x + r, w, zr); break;
    case 2: weightRows<2>(in, out, x + r, w, zr); break;
    case 1: weightRows<1>(in, out, x + r, w, zr); break;
    default: break;
    }
}

// ---- input gradient: dx = (delta W) * scale ----------------------------------------------------

/// C chunks of 8 inputs for R batch rows: the sum over the layer's outputs in registers.
template <int R, int C, bool Masked>
FOG_AVX2_INLINE void gradChunk(int in, int out, const float* delta, const float* w, const float* scale, float* dx,
                               int k, __m256i m) {
    __m256 acc[R][C];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
    for (int j = 0; j < out; ++j) {
        const float* wj = w + static_cast<std::size_t>(j) * in + k;
        __m256 wv[C];
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) wv[c] = load<Masked>(wj + 8 * c, m);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256 d = _mm256_broadcast_ss(delta + static_cast<std::size_t>(r) * out + j);
#pragma GCC unroll 8
            for (int c = 0; c < C; ++c) acc[r][c] = _mm256_fmadd_ps(d, wv[c], acc[r][c]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) {
            const std::size_t at = static_cast<std::size_t>(r) * in + k + 8 * c;
            __m256 v = acc[r][c];
            if (scale) v = _mm256_mul_ps(v, load<Masked>(scale + at, m));
            store<Masked>(dx + at, m, v);
        }
}

template <int R>
FOG_AVX2 void gradRows(int in, int out, const float* delta, const float* w, const float* scale, float* dx) {
    const __m256i none = _mm256_setzero_si256();
    int k = 0;
    for (; k + 16 <= in; k += 16) gradChunk<R, 2, false>(in, out, delta, w, scale, dx, k, none);
    for (; k + 8 <= in; k += 8) gradChunk<R, 1, false>(in, out, delta, w, scale, dx, k, none);
    if (k < in) gradChunk<R, 1, true>(in, out, delta, w, scale, dx, k, tailMask(in - k));
}

FOG_AVX2 void inputGradientAvx2(int b, int in, int out, const float* delta, const float* w, const float* scale,
                                float* dx) {
    int r = 0;
    for (; r + 5 <= b; r += 5) {
        const std::size_t at = static_cast<std::size_t>(r) * in;
        gradRows<5>(in, out, delta + static_cast<std::size_t>(r) * out, w, scale ? scale + at : nullptr, dx + at);
    }
    const std::size_t at = static_cast<std::size_t>(r) * in;
    const float* d = delta + static_cast<std::size_t>(r) * out;
    const float* s = scale ? scale + at : nullptr;
    switch (b - r) {
    case 4: gradRows<4>(in, out, d, w, s, dx + at); break;
    case 3: gradRows<3>(in, out, d, w, s, dx + at); break;
    case 2: gradRows<2>(in, out, d, w, s, dx + at); break;
    case 1: gradRows<1>(in, out, d, w, s, dx + at); break;
    default: break;
    }
}

// ---- weight gradient and SGD step --------------------------------------------------------------

/// The tile: 4 weight rows by 2 chunks (8 accumulators: two FMAs per cycle at four cycles'
/// latency). Measured against 2 x 4, 3 x 4, 4 x 3, 1 x 8, 5 x 2 and 6 x 2 on the reference
/// shape: 2 x 4 as fast, the others slower (1 x 8 by a third, 5 and 6 rows by half: spills).
constexpr int kStepJ = 4, kStepC = 2;

/// What a step reads, copied out of StepArgs into a local the compiler keeps in registers
/// (the stores to the weights could alias the caller's struct; a local's fields they cannot).
struct StepCtx {
    int b, in, out;
    const float* delta;
    const float* const* x;
    float* w;
    float* buf;
    bool scale;
    __m256 alpha, beta, lr, wd;
};

/// A tile of J weight rows by C chunks of 8 inputs: its J x C gradients summed over the
/// batch rows in registers (each row: C input loads, J broadcast gradients, J x C FMAs), then
/// the step on the tile. Every weight's sum runs over the batch rows in order.
template <bool ReadBuf, bool Finish, bool Decay, bool StoreBuf, int J, int C, bool Masked>
FOG_AVX2_INLINE void stepTile(const StepCtx& t, int j0, int k, __m256i m) {
    __m256 acc[J][C];
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j)
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[j][c] = _mm256_setzero_ps();
    const float* d = t.delta + j0;
    for (int r = 0; r < t.b; ++r, d += t.out) {
        const float* xr = t.x[r] + k;
        __m256 xv[C];
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) xv[c] = load<Masked>(xr + 8 * c, m);
#pragma GCC unroll 4
        for (int j = 0; j < J; ++j) {
            const __m256 dj = _mm256_broadcast_ss(d + j);
#pragma GCC unroll 8
            for (int c = 0; c < C; ++c) acc[j][c] = _mm256_fmadd_ps(dj, xv[c], acc[j][c]);
        }
    }
    float* w = t.w + static_cast<std::size_t>(j0) * t.in + k;
    float* buf = t.buf + static_cast<std::size_t>(j0) * t.in + k;
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j, w += t.in, buf += t.in) {
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) {
            __m256 g = t.scale ? _mm256_mul_ps(t.alpha, acc[j][c]) : acc[j][c];
            if (ReadBuf) g = _mm256_fmadd_ps(t.beta, load<Masked>(buf + 8 * c, m), g);
            if (Finish) {
                const __m256 wv = load<Masked>(w + 8 * c, m);
                if (Decay) g = _mm256_fmadd_ps(t.wd, wv, g);
                store<Masked>(w + 8 * c, m, _mm256_fnmadd_ps(t.lr, g, wv));
            }
            if (StoreBuf) store<Masked>(buf + 8 * c, m, g);
        }
    }
}

/// J weight rows, all inputs: tiles of 8 x kStepC, then of 8, then the masked rest.
template <bool ReadBuf, bool Finish, bool Decay, bool StoreBuf, int J>
FOG_AVX2_INLINE void stepRows(const StepCtx& t, int j0) {
    const __m256i none = _mm256_setzero_si256();
    int k = 0;
    for (; k + 8 * kStepC <= t.in; k += 8 * kStepC)
        stepTile<ReadBuf, Finish, Decay, StoreBuf, J, kStepC, false>(t, j0, k, none);
    for (; k + 8 <= t.in; k += 8) stepTile<ReadBuf, Finish, Decay, StoreBuf, J, 1, false>(t, j0, k, none);
    if (k < t.in) stepTile<ReadBuf, Finish, Decay, StoreBuf, J, 1, true>(t, j0, k, tailMask(t.in - k));
}

template <bool ReadBuf, bool Finish, bool Decay, bool StoreBuf>
FOG_AVX2 void stepWeights(const StepArgs& a) {
    const StepCtx t{a.b,
                    a.in,
                    a.out,
                    a.delta,
                    a.x,
                    a.w,
                    a.buf,
                    a.alpha != 1.0f,
                    _mm256_set1_ps(a.alpha),
                    _mm256_set1_ps(a.beta),
                    _mm256_set1_ps(a.lr),
                    _mm256_set1_ps(a.wd)};
    int j = 0;
    for (; j + kStepJ <= t.out; j += kStepJ) stepRows<ReadBuf, Finish, Decay, StoreBuf, kStepJ>(t, j);
    switch (t.out - j) {
    case 3: stepRows<ReadBuf, Finish, Decay, StoreBuf, 3>(t, j); break;
    case 2: stepRows<ReadBuf, Finish, Decay, StoreBuf, 2>(t, j); break;
    case 1: stepRows<ReadBuf, Finish, Decay, StoreBuf, 1>(t, j); break;
    default: break;
    }
}

/// The biases: the same arithmetic on one number per output.
void stepBiases(const StepArgs& a, bool readBuf, bool finish, bool decay, bool storeBuf) {
    float* wb = a.w + static_cast<std::size_t>(a.out) * a.in;
    float* bb = a.buf + static_cast<std::size_t>(a.out) * a.in;
    for (int j = 0; j < a.out; ++j) {
        float s = 0.0f;
        for (int r = 0; r < a.b; ++r) s += a.delta[static_cast<std::size_t>(r) * a.out + j];
        float g = a.alpha * s;
        if (readBuf) g += a.beta * bb[j];
        if (finish) {
            if (decay) g += a.wd * wb[j];
            wb[j] -= a.lr * g;
        }
        if (storeBuf) bb[j] = g;
    }
}

using StepFn = void (*)(const StepArgs&);
template <bool ReadBuf, bool Finish, bool Decay>
StepFn stepFor(bool storeBuf) {
    return storeBuf ? &stepWeights<ReadBuf, Finish, Decay, true> : &stepWeights<ReadBuf, Finish, Decay, false>;
}

void stepAvx2(const StepArgs& a) {
    const bool readBuf = a.beta != 0.0f, finish = a.update, decay = finish && a.wd != 0.0f, storeBuf = a.keep;
    StepFn f = nullptr;
    if (readBuf)
        f = finish ? (decay ? stepFor<true, true, true>(storeBuf) : stepFor<true, true, false>(storeBuf))
                   : stepFor<true, false, false>(storeBuf);
    else
        f = finish ? (decay ? stepFor<false, true, true>(storeBuf) : stepFor<false, true, false>(storeBuf))
                   : stepFor<false, false, false>(storeBuf);
    f(a);
    stepBiases(a, readBuf, finish, decay, storeBuf);
}

const Dense kAvx2{"AVX2+FMA", &forwardAvx2, &inputGradientAvx2, &stepAvx2};

bool cpuHasAvx2Fma() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

Mode initialMode() {
    const char* v = std::getenv("FOGSTUDIO_FAST_KERNELS");
    return v && std::strcmp(v, "blas") == 0 ? Mode::Blas : Mode::Auto;
}

std::atomic<Mode>& mode() {
    static std::atomic<Mode> m{initialMode()};
    return m;
}

} // namespace

void setMode(Mode m) { mode().store(m); }

const Dense* dense() {
    static const bool supported = cpuHasAvx2Fma();
    return supported && mode().load() == Mode::Auto ? &kAvx2 : nullptr;
}

} // namespace fog::fastkernels
