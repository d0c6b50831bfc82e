#include "core/util/numerics.h"

#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <fstream>
#include <mutex>

namespace fog {

namespace {

bool has(const char* feature) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    const std::string f = feature;
    if (f == "avx512") return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                              __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
    if (f == "avx2") return __builtin_cpu_supports("avx2");
    if (f == "fma") return __builtin_cpu_supports("fma");
    if (f == "avx") return __builtin_cpu_supports("avx");
#else
    (void)feature;
#endif
    return false;
}

std::string envOr(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : fallback;
}

/// ATen's own choice when nothing is set (ATen 1.13, ATen/native/DispatchStub.cpp): AVX2 with
/// FMA, else the plain build. AVX-512 is opt-in there (ATEN_CPU_CAPABILITY=avx512 only).
std::string atenNative() { return has("avx2") && has("fma") ? "avx2" : "default"; }

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// The capability ATen reads from ATEN_CPU_CAPABILITY (it ignores values it does not know,
/// and ones the CPU cannot run).
std::string atenFromEnvironment(const std::string& v) {
    const std::string l = lower(v);
    if (l == "avx512" && has("avx512")) return "avx512";
    if (l == "avx2" && atenNative() == "avx2") return "avx2";
    if (l == "default") return "default";
    return atenNative();
}

using CharFn = char* (*)();
using VoidFn = void (*)();

std::string blasCore() {
    if (auto fn = reinterpret_cast<CharFn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) return fn();
    return "not OpenBLAS";
}

std::string blasConfig() {
    if (auto fn = reinterpret_cast<CharFn>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
        std::string s = fn();
        while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
        return s;
    }
    return "";
}

/// Makes OpenBLAS choose its core again from OPENBLAS_CORETYPE (read at its start-up, before
/// main(); no BLAS call has been made yet). Only a dynamic-architecture OpenBLAS can.
bool reselectBlasCore() {
    auto quit = reinterpret_cast<VoidFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_quit"));
    auto init = reinterpret_cast<VoidFn>(dlsym(RTLD_DEFAULT, "gotoblas_dynamic_init"));
    if (!quit || !init) return false;
    quit();
    init();
    return true;
}

KernelSet& state() {
    static KernelSet k;
    return k;
}

std::once_flag pinned;

void pinOnce() {
    KernelSet& k = state();
    const std::string want = lower(envOr("FOG_KERNELS", "portable"));
    const char* atenEnv = std::getenv("ATEN_CPU_CAPABILITY");
    const char* blasEnv = std::getenv("OPENBLAS_CORETYPE");
    const bool userChose = (atenEnv && *atenEnv) || (blasEnv && *blasEnv);
    if (want == "native" || userChose) {
        k.mode = userChose ? "environment" : "native";
        k.aten = atenEnv && *atenEnv ? atenFromEnvironment(atenEnv) : atenNative();
    } else {
        // The portable set: what every x86-64 CPU since 2013 (Intel Haswell, AMD Excavator
        // and Zen) runs. ATen reads its variable at its first kernel call, OpenBLAS at start-up.
        const bool avx2 = has("avx2") && has("fma");
        k.mode = "portable";
        k.aten = avx2 ? "avx2" : "default";
        setenv("ATEN_CPU_CAPABILITY", k.aten.c_str(), 1);
        const char* core = avx2 ? "Haswell" : has("avx") ? "Sandybridge" : "Prescott";
        if (blasCore() != "not OpenBLAS") {
            setenv("OPENBLAS_CORETYPE", core, 1);
            reselectBlasCore();
        }
    }
    k.blas = blasCore();
    k.blasConfig = blasConfig();
    k.torch = TORCH_VERSION;
}

/// Before main(): every program that links the engine computes with the pinned kernels from
/// its first instruction on.
const bool kPinnedAtStart = (pinKernels(), true);

} // namespace

std::string KernelSet::key() const {
    return "aten=" + aten + " blas=" + blas + " (" + blasConfig + ") torch=" + torch;
}

void pinKernels() { std::call_once(pinned, pinOnce); }

const KernelSet& kernelSet() {
    pinKernels();
    return state();
}

std::string cpuModel() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon == std::string::npos) break;
            std::string m = line.substr(colon + 1);
            m.erase(0, m.find_first_not_of(" \t"));
            return m;
        }
    return "unknown CPU";
}

std::string cpuVectorLevel() {
    if (has("avx512")) return "AVX-512";
    if (has("avx2") && has("fma")) return "AVX2+FMA";
    if (has("avx")) return "AVX";
    return "SSE";
}

namespace {
std::string (*&fastDescriber())() {
    static std::string (*describe)() = nullptr;
    return describe;
}

/// The value of "NAME=" in a record: up to the next "; ".
std::string field(const std::string& record, const std::string& name) {
    const std::string tag = name + "=";
    std::size_t at = record.rfind(tag, 0) == 0 ? 0 : record.find("; " + tag);
    if (at == std::string::npos) return "";
    at += at == 0 ? tag.size() : tag.size() + 2;
    const auto end = record.find("; ", at);
    return record.substr(at, end == std::string::npos ? std::string::npos : end - at);
}
} // namespace

void registerFastKernels(std::string (*describe)()) { fastDescriber() = describe; }

std::string fastKernels() {
    static const std::string described = fastDescriber() ? fastDescriber()() : "none";
    return described;
}

std::string numericsRecord() {
    const KernelSet& k = kernelSet();
    return "kernels=" + k.key() + "; fast=" + fastKernels() + "; cpu=" + cpuModel() + " (" + cpuVectorLevel() +
           "); mode=" + k.mode;
}

std::string kernelKeyOf(const std::string& record) { return field(record, "kernels"); }
std::string fastKernelsOf(const std::string& record) { return field(record, "fast"); }

bool trainingValuesAgree(double stored, double now, bool isAccuracy) {
    if (std::isnan(stored) || std::isnan(now)) return std::isnan(stored) && std::isnan(now);
    if (stored == now) return true;
    if (isAccuracy) return std::fabs(stored - now) <= kAccuracyAbsTolerance;
    const double scale = std::max(std::fabs(stored), std::fabs(now));
    return std::fabs(stored - now) <= kTrainingRelTolerance * scale;
}

} // namespace fog
