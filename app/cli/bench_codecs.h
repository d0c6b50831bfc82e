#pragma once
// `fogstudio-cli bench codecs`: the update codecs' speed (core/policies/update_codec.h): the
// fast fp16 and quantize against the element-by-element reference they replaced, timed
// alternately over several passes (medians), their outputs compared bit for bit; top-k's
// throughput. A benchmark: it prints, it never fails on a number (it fails only when the
// fast and reference outputs differ).

#include <cstddef>
#include <ostream>

namespace fog::cli {

struct CodecBenchOptions {
    std::size_t elements = 1000000; ///< coordinates of the vector encoded
    int passes = 5;                 ///< alternated passes (reference, fast, reference, ...)
    int bits = 8;                   ///< quantize's b
    bool exhaustive = false;        ///< also compare fp16 on all 2^32 floats
};

int runCodecBench(const CodecBenchOptions& options, std::ostream& out);

} // namespace fog::cli
