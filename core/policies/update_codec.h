#pragma once
// Update codecs on the wire (docs/learning.md, "Update codecs"): what a trainer sends up and
// what an aggregator sends down are encoded, so both the arithmetic (the receiver gets the
// decoded vector) and the bytes (the encoded size, priced by the clock) change.

#include "core/model/learner.h"
#include "core/policies/policy_info.h"
#include "core/util/random.h"

#include <cstddef>
#include <string>
#include <vector>

namespace fog {

struct CodecConfig {
    enum class Kind { None, Fp16, Quantize, TopK };
    Kind kind = Kind::None;
    int bits = 8;           ///< Quantize: bits per coordinate (sign included), 2..16
    double fraction = 0.01; ///< TopK: share of the coordinates sent
};

/// none, fp16, quantize, topk: formula, source and parameters.
const std::vector<PolicyInfo>& codecInfos();
/// The codec of a name; throws std::invalid_argument for an unknown one.
CodecConfig codecConfig(const std::string& name, int bits, double fraction);

/// Coordinates top-k sends of `params`: max(1, ceil(fraction * params)).
std::size_t topKCount(const CodecConfig& c, std::size_t params);
/// Bytes of one encoded vector of `params` floats: none 4 P; fp16 2 P; quantize
/// 4 + ceil(P bits / 8) (a float scale, then b bits per coordinate); topk 8 k (a 32-bit index
/// and a float per coordinate sent).
double encodedBytes(const CodecConfig& c, std::size_t params);

/// float -> IEEE half (round to nearest even, overflow to infinity, subnormals kept) -> float.
/// On the float's bits (no library call); equal bit for bit to roundToHalfReference for
/// every float (NaNs are returned as they are).
float roundToHalf(float x);
/// The same rounding written out with frexp / ldexp / nearbyint: the specification
/// roundToHalf is checked against (test_codec_links, `fogstudio-cli bench codecs`).
float roundToHalfReference(float x);

/// Encodes and decodes `v` in place: what the receiver gets. Quantize draws from `rng`
/// (unbiased: E[decode] = v). TopK adds `residual` (the error feedback, same size as v, or
/// empty: zeros) before selecting and leaves what it did not send in it.
void encodeDecode(const CodecConfig& c, Params& v, Rng& rng, Params* residual);
/// The element-by-element form encodeDecode had before it was made faster (docs/learning.md,
/// "Codec speed"): the same output bit for bit, from the same draws of `rng`. Kept as the
/// specification the fast one is tested against and the baseline `bench codecs` times.
void encodeDecodeReference(const CodecConfig& c, Params& v, Rng& rng, Params* residual);

} // namespace fog
