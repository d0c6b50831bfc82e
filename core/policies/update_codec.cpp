// Update codecs: each an encode-decode pair on flat vectors and its exact encoded size.

#include "core/policies/update_codec.h"
#include "core/policies/policy_descriptor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>

namespace fog {

const std::vector<PolicyInfo>& codecInfos() {
    static const std::vector<PolicyInfo> infos = [] {
        std::vector<PolicyInfo> v;
        v.push_back({"none", "32-bit floats: 4 P bytes for P parameters.", "", {}});
        v.push_back({"fp16",
                     "Each coordinate rounded to IEEE half precision (round to nearest even): 2 P bytes.",
                     "IEEE 754-2008 binary16; Micikevicius et al., Mixed precision training, ICLR 2018",
                     {}});
        v.push_back({"quantize",
                     "Stochastic uniform quantisation to b bits: s = max_i |v_i|, L = 2^(b-1) - 1 levels per "
                     "sign; v_i goes to s sign(v_i) (l + B) / L with l = floor(L |v_i| / s) and B ~ "
                     "Bernoulli(L |v_i| / s - l), so E[decoded] = v (unbiased). 4 + ceil(P b / 8) bytes.",
                     "Alistarh et al., QSGD, NeurIPS 2017 (stochastic rounding; scale max |v_i| instead of "
                     "the L2 norm)",
                     {intParam("training.codec_up_bits / codec_down_bits", 8, 2, "bits b per coordinate", 16)}});
        v.push_back({"topk",
                     "Top-k sparsification with error feedback: a = v + e (e the trainer's residual), the "
                     "k = max(1, ceil(f P)) coordinates of largest |a_i| (ties: lower index) are sent, "
                     "e = a - sent. 8 k bytes (32-bit index and float each). Uplink only.",
                     "Stich et al., Sparsified SGD with memory, NeurIPS 2018; Aji and Heafield, EMNLP 2017",
                     {realParam("training.codec_up_fraction", 0.01, 1e-9, 1, "share f of the coordinates sent")}});
        return v;
    }();
    return infos;
}

CodecConfig codecConfig(const std::string& name, int bits, double fraction) {
    CodecConfig c;
    c.bits = bits;
    c.fraction = fraction;
    if (name == "none")
        c.kind = CodecConfig::Kind::None;
    else if (name == "fp16")
        c.kind = CodecConfig::Kind::Fp16;
    else if (name == "quantize")
        c.kind = CodecConfig::Kind::Quantize;
    else if (name == "topk")
        c.kind = CodecConfig::Kind::TopK;
    else
        throw std::invalid_argument("unknown codec '" + name + "'");
    return c;
}

std::size_t topKCount(const CodecConfig& c, std::size_t params) {
    const double k = std::ceil(c.fraction * static_cast<double>(params));
    return std::min(params, std::max<std::size_t>(1, static_cast<std::size_t>(k)));
}

double encodedBytes(const CodecConfig& c, std::size_t params) {
    const double p = static_cast<double>(params);
    switch (c.kind) {
    case CodecConfig::Kind::None:
        return 4 * p;
    case CodecConfig::Kind::Fp16:
        return 2 * p;
    case CodecConfig::Kind::Quantize:
        return 4 + std::ceil(p * c.bits / 8.0);
    case CodecConfig::Kind::TopK:
        return 8 * static_cast<double>(topKCount(c, params));
    }
    return 4 * p;
}

float roundToHalfReference(float x) {
    if (!std::isfinite(x) || x == 0.0f) return x;
    const float a = std::fabs(x);
    constexpr float kMaxHalf = 65504.0f;
    // Halfway between 65504 and the next (65536, not representable) rounds to infinity.
    if (a >= 65520.0f) return std::copysign(INFINITY, x);
    int e = 0;
    std::frexp(a, &e); // a = m 2^e, m in [0.5, 1)
    // Half has 11 significant bits for normal numbers (exponent >= -14, i.e. e >= -13);
    // below that the spacing is fixed at 2^-24.
    const int exp = std::max(e, -13);
    const float quantum = std::ldexp(1.0f, exp - 11);
    const float r = std::nearbyint(a / quantum) * quantum; // a / quantum is exact; ties to even
    return std::copysign(std::min(r, kMaxHalf), x);
}

namespace {

std::uint32_t bitsOf(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}
float floatOf(std::uint32_t u) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

} // namespace

float roundToHalf(float x) {
    const std::uint32_t u = bitsOf(x);
    const std::uint32_t sign = u & 0x80000000u;
    std::uint32_t a = u & 0x7fffffffu;
    if (a >= 0x7f800000u) return x;                    // infinity, NaN
    if (a >= 0x477ff000u) return floatOf(sign | 0x7f800000u); // >= 65520: infinity
    if (a >= 0x38800000u) {
        // >= 2^-14, a normal half: keep 10 of the 23 fraction bits, to nearest, ties to even
        // (a carry into the exponent is the next binade's 1.0, as it should be).
        a = (a + 0x0fffu + ((a >> 13) & 1u)) & ~0x1fffu;
    } else {
        // A subnormal half (or zero): multiples of 2^-24. a 2^24 < 1024 is exact, and adding
        // and taking away 1.5 2^23 rounds it to an integer, ties to even (float spacing 1 there).
        const float scaled = floatOf(a) * 0x1p24f;
        const float r = (scaled + 0x1.8p23f) - 0x1.8p23f;
        a = bitsOf(r * 0x1p-24f);
    }
    return floatOf(sign | a);
}

namespace {

void topK(const CodecConfig& c, Params& v, Params* residual) {
    const std::size_t n = v.size();
    Params a = v;
    if (residual && residual->size() == n)
        for (std::size_t i = 0; i < n; ++i) a[i] += (*residual)[i];
    const std::size_t k = topKCount(c, n);
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::nth_element(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(k - 1), idx.end(),
                     [&](std::size_t i, std::size_t j) {
                         const float ai = std::fabs(a[i]), aj = std::fabs(a[j]);
                         return ai != aj ? ai > aj : i < j;
                     });
    std::fill(v.begin(), v.end(), 0.0f);
    for (std::size_t t = 0; t < k; ++t) v[idx[t]] = a[idx[t]];
    if (residual) {
        residual->assign(n, 0.0f);
        for (std::size_t i = 0; i < n; ++i) (*residual)[i] = a[i] - v[i];
    }
}

float maxAbs(const Params& v) {
    float s = 0.0f;
    for (float x : v) s = std::max(s, std::fabs(x));
    return s;
}

} // namespace

void encodeDecodeReference(const CodecConfig& c, Params& v, Rng& rng, Params* residual) {
    switch (c.kind) {
    case CodecConfig::Kind::None:
        return;
    case CodecConfig::Kind::Fp16:
        for (float& x : v) x = roundToHalfReference(x);
        return;
    case CodecConfig::Kind::Quantize: {
        const float s = maxAbs(v);
        if (s == 0.0f || !std::isfinite(s)) return;
        const double levels = std::ldexp(1.0, c.bits - 1) - 1;
        for (float& x : v) {
            const double r = levels * std::fabs(x) / s;
            double l = std::floor(r);
            if (rng.uniform() < r - l) l += 1;
            x = static_cast<float>(std::copysign(static_cast<double>(s) * l / levels, x));
        }
        return;
    }
    case CodecConfig::Kind::TopK:
        topK(c, v, residual);
        return;
    }
}

void encodeDecode(const CodecConfig& c, Params& v, Rng& rng, Params* residual) {
    switch (c.kind) {
    case CodecConfig::Kind::None:
        return;
    case CodecConfig::Kind::Fp16:
        for (float& x : v) x = roundToHalf(x);
        return;
    case CodecConfig::Kind::Quantize: {
        // encodeDecodeReference's arithmetic, without its library calls: r = L |x| / s is the
        // same double (L |x| is exact, one division); floor(r) is its truncation (0 <= r <= L
        // < 2^15); the decoded values s l / L, l = 0..L, are computed once each in a table when
        // the vector is longer than the table. The same draw per coordinate, in order.
        if (c.bits < 2 || c.bits > 16) { // outside the schema's bounds: the plain form
            encodeDecodeReference(c, v, rng, residual);
            return;
        }
        const float s = maxAbs(v);
        if (s == 0.0f || !std::isfinite(s)) return;
        const int levelCount = (1 << (c.bits - 1)) - 1;
        const double levels = static_cast<double>(levelCount);
        const double sd = static_cast<double>(s);
        const bool table = v.size() > static_cast<std::size_t>(levelCount) + 1;
        std::vector<float> value;
        if (table) {
            value.resize(static_cast<std::size_t>(levelCount) + 1);
            for (int l = 0; l <= levelCount; ++l) value[static_cast<std::size_t>(l)] = static_cast<float>(sd * l / levels);
        }
        for (float& x : v) {
            const double r = levels * std::fabs(x) / s;
            if (!(r <= levels)) { // a NaN coordinate: the reference's own steps
                double l = std::floor(r);
                if (rng.uniform() < r - l) l += 1;
                x = static_cast<float>(std::copysign(sd * l / levels, x));
                continue;
            }
            int l = static_cast<int>(r);
            if (rng.uniform() < r - l) ++l;
            const float m = table ? value[static_cast<std::size_t>(l)] : static_cast<float>(sd * l / levels);
            x = std::copysign(m, x);
        }
        return;
    }
    case CodecConfig::Kind::TopK:
        topK(c, v, residual);
        return;
    }
}

} // namespace fog
