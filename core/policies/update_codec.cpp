// Update codecs: each an encode-decode pair on flat vectors and its exact encoded size.

#include "core/policies/update_codec.h"
#include "core/policies/policy_descriptor.h"

#include <algorithm>
#include <cmath>
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

float roundToHalf(float x) {
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

void encodeDecode(const CodecConfig& c, Params& v, Rng& rng, Params* residual) {
    switch (c.kind) {
    case CodecConfig::Kind::None:
        return;
    case CodecConfig::Kind::Fp16:
        for (float& x : v) x = roundToHalf(x);
        return;
    case CodecConfig::Kind::Quantize: {
        float s = 0.0f;
        for (float x : v) s = std::max(s, std::fabs(x));
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
    case CodecConfig::Kind::TopK: {
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
        return;
    }
    }
}

} // namespace fog
