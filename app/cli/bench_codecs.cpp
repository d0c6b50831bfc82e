// `fogstudio-cli bench codecs` (app/cli/bench_codecs.h): each codec encodes and decodes the
// same vector (normal draws of 0.01 standard deviation, as a model's change) once per pass,
// reference and fast alternated, a fresh copy each time; the table gives the median seconds
// per pass, the throughput in million coordinates per second and the speed-up (ratio of the
// medians). Quantize's two forms draw from streams of the same seed, so their outputs must be
// equal bit for bit, and so must fp16's; the comparison is printed.

#include "app/cli/bench_codecs.h"

#include "core/policies/update_codec.h"
#include "core/util/random.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <vector>

namespace fog::cli {

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

using Encode = void (*)(const CodecConfig&, Params&, Rng&, Params*);

struct Timing {
    std::vector<double> seconds;
    Params output;
};

/// One pass: a fresh copy of `input` encoded and decoded by `f` with a stream of seed 7.
double onePass(Encode f, const CodecConfig& c, const Params& input, Params& output, Params* residual) {
    output = input;
    Rng rng(7);
    const auto t0 = std::chrono::steady_clock::now();
    f(c, output, rng, residual);
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
}

bool sameBits(const Params& a, const Params& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

} // namespace

int runCodecBench(const CodecBenchOptions& o, std::ostream& out) {
    Params input(o.elements);
    Rng draw(1);
    for (float& x : input) x = static_cast<float>(0.01 * draw.normal());
    const double mega = static_cast<double>(o.elements) / 1e6;
    out << "bench codecs: " << o.elements << " coordinates, " << o.passes
        << " passes (reference and fast alternated; medians)\n\n";
    out << std::left << std::setw(16) << "codec" << std::right << std::setw(14) << "reference s" << std::setw(12)
        << "fast s" << std::setw(16) << "ref M coord/s" << std::setw(16) << "fast M coord/s" << std::setw(10)
        << "speed-up" << "  output\n";
    bool allSame = true;
    struct Row {
        const char* label;
        CodecConfig config;
    };
    const std::string quantizeLabel = "quantize " + std::to_string(o.bits) + " bit";
    const std::vector<Row> rows = {{"fp16", codecConfig("fp16", 8, 0.01)},
                                   {quantizeLabel.c_str(), codecConfig("quantize", o.bits, 0.01)}};
    for (const auto& row : rows) {
        Timing ref, fast;
        for (int p = 0; p < o.passes; ++p) {
            ref.seconds.push_back(onePass(&encodeDecodeReference, row.config, input, ref.output, nullptr));
            fast.seconds.push_back(onePass(&encodeDecode, row.config, input, fast.output, nullptr));
        }
        const double r = median(ref.seconds), f = median(fast.seconds);
        const bool same = sameBits(ref.output, fast.output);
        allSame = allSame && same;
        out << std::left << std::setw(16) << row.label << std::right << std::fixed << std::setprecision(5)
            << std::setw(14) << r << std::setw(12) << f << std::setprecision(1) << std::setw(16) << mega / r
            << std::setw(16) << mega / f << std::setprecision(2) << std::setw(9) << r / f << "x"
            << (same ? "  identical" : "  DIFFERENT") << "\n";
    }
    {
        // Top-k has one implementation (its selection is std::nth_element): its throughput,
        // with error feedback, at 1% of the coordinates.
        const CodecConfig c = codecConfig("topk", 8, 0.01);
        std::vector<double> seconds;
        Params output;
        for (int p = 0; p < o.passes; ++p) {
            Params residual;
            seconds.push_back(onePass(&encodeDecode, c, input, output, &residual));
        }
        const double t = median(seconds);
        out << std::left << std::setw(16) << "topk 1%" << std::right << std::setw(14) << "-" << std::fixed
            << std::setprecision(5) << std::setw(12) << t << std::setw(16) << "-" << std::setprecision(1)
            << std::setw(16) << mega / t << std::setw(10) << "-" << "\n";
    }
    if (o.exhaustive) {
        const auto t0 = std::chrono::steady_clock::now();
        std::uint64_t differ = 0;
        for (std::uint64_t u = 0; u <= 0xffffffffull; ++u) {
            const auto bits = static_cast<std::uint32_t>(u);
            float x;
            std::memcpy(&x, &bits, sizeof x);
            const float a = roundToHalf(x), b = roundToHalfReference(x);
            differ += std::memcmp(&a, &b, sizeof a) != 0;
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        allSame = allSame && differ == 0;
        out << "\nfp16 on all 2^32 floats: " << differ << " differ from the reference (" << std::setprecision(1)
            << s << " s)\n";
    }
    out << "\nA benchmark: the figures are this machine's; it fails only if fast and reference outputs differ.\n";
    return allSame ? 0 : 1;
}

} // namespace fog::cli
