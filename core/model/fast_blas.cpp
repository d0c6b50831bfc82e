#include "core/model/fast_blas.h"
#include "core/model/fast_kernels.h"
#include "core/util/numerics.h"

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace fog::fastblas {

namespace {

// BLIS's typed API (blis.h, BLIS 0.9): dim_t and inc_t are 64-bit on x86-64, trans_t an enum
// whose no-transpose value is 0; transposes are expressed by strides instead.
using BliSgemm = void (*)(int transa, int transb, std::int64_t m, std::int64_t n, std::int64_t k, float* alpha,
                          float* a, std::int64_t rsa, std::int64_t csa, float* b, std::int64_t rsb,
                          std::int64_t csb, float* beta, float* c, std::int64_t rsc, std::int64_t csc);
BliSgemm bliSgemm = nullptr;

void blisSgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
               int ldb, float beta, float* c, int ldc) {
    // Row-major op(A)(i, p): A[i * lda + p], or A[p * lda + i] when transposed.
    const std::int64_t rsa = transA ? 1 : lda, csa = transA ? lda : 1;
    const std::int64_t rsb = transB ? 1 : ldb, csb = transB ? ldb : 1;
    bliSgemm(0, 0, m, n, k, &alpha, const_cast<float*>(a), rsa, csa, const_cast<float*>(b), rsb, csb, &beta, c, ldc,
             1);
}

// CBLAS (OpenBLAS): the enum values of cblas.h.
using CblasSgemm = void (*)(int order, int transa, int transb, int m, int n, int k, float alpha, const float* a,
                            int lda, const float* b, int ldb, float beta, float* c, int ldc);
CblasSgemm cblasSgemm = nullptr;

void openblasSgemm(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda,
                   const float* b, int ldb, float beta, float* c, int ldc) {
    constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
    cblasSgemm(kRowMajor, transA ? kTrans : kNoTrans, transB ? kTrans : kNoTrans, m, n, k, alpha, a, lda, b, ldb,
               beta, c, ldc);
}

std::vector<Library> findLibraries() {
    std::vector<Library> libs;
    // The serial or pthread builds first (no OpenMP runtime); the alternative's choice last.
    for (const char* path : {"/usr/lib/x86_64-linux-gnu/blis-serial/libblis.so.4",
                             "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4", "libblis.so.4"}) {
        void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) continue;
        bliSgemm = reinterpret_cast<BliSgemm>(dlsym(h, "bli_sgemm"));
        if (!bliSgemm) continue;
        using SetThreads = void (*)(std::int64_t);
        if (auto set = reinterpret_cast<SetThreads>(dlsym(h, "bli_thread_set_num_threads"))) set(1);
        std::string name = "BLIS";
        using Version = char* (*)();
        if (auto v = reinterpret_cast<Version>(dlsym(h, "bli_info_get_version_str"))) name += std::string(" ") + v();
        // BLIS chooses its kernels per CPU (skx, haswell, zen3, ...): part of what a run's
        // training values depend on (core/util/numerics.h fastKernels()).
        using ArchId = int (*)();
        using ArchName = const char* (*)(int);
        auto id = reinterpret_cast<ArchId>(dlsym(h, "bli_arch_query_id"));
        auto arch = reinterpret_cast<ArchName>(dlsym(h, "bli_arch_string"));
        if (id && arch) name += std::string(" (") + arch(id()) + " kernels)";
        libs.push_back({name, &blisSgemm});
        break;
    }
    // OpenBLAS is in the process already (LibTorch's BLAS); its thread count is set by
    // useSingleThreadedKernels().
    cblasSgemm = reinterpret_cast<CblasSgemm>(dlsym(RTLD_DEFAULT, "cblas_sgemm"));
    if (cblasSgemm) {
        std::string name = "OpenBLAS";
        using Config = char* (*)();
        if (auto cfg = reinterpret_cast<Config>(dlsym(RTLD_DEFAULT, "openblas_get_config"))) {
            std::istringstream words(cfg());
            std::string w1, w2;
            if (words >> w1 >> w2 && w1 == "OpenBLAS") name += " " + w2;
        }
        if (auto core = reinterpret_cast<Config>(dlsym(RTLD_DEFAULT, "openblas_get_corename")))
            name += std::string(" (") + core() + " kernels)";
        using SetThreads = void (*)(int);
        if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
        libs.push_back({name, &openblasSgemm});
    }
    return libs;
}

} // namespace

const std::vector<Library>& libraries() {
    static const std::vector<Library> libs = findLibraries();
    return libs;
}

namespace {
const Library* pick() {
    const auto& libs = libraries();
    if (libs.empty()) return nullptr;
    if (const char* want = std::getenv("FOGSTUDIO_FAST_BLAS")) {
        const std::string w = want;
        for (const auto& l : libs)
            if ((w == "blis" && l.name.rfind("BLIS", 0) == 0) || (w == "openblas" && l.name.rfind("OpenBLAS", 0) == 0))
                return &l;
    }
    return &libs.front();
}
} // namespace

namespace {
/// Before main(): the run store records which library and kernels the fast path uses.
const bool kDescribed = (registerFastKernels([]() -> std::string {
                             try {
                                 // The dense layers' own kernels on small batches, where the CPU has them.
                                 const fastkernels::Dense* k = fastkernels::dense();
                                 return chosen().name + (k ? std::string(" + ") + k->name + " dense kernels" : "");
                             } catch (const std::exception&) {
                                 return "none";
                             }
                         }),
                         true);
} // namespace

const Library& chosen() {
    static const Library* const choice = pick();
    if (!choice)
        throw std::runtime_error("training.backend fast needs a BLAS: neither BLIS (libblis4-serial) nor OpenBLAS "
                                 "was found in this process");
    return *choice;
}

} // namespace fog::fastblas
