#pragma once
// The matrix products of the fast training path (core/model/fast_net.h): a row-major sgemm
// from BLIS when it is installed, else from OpenBLAS (the library LibTorch already loads).
//
// Why BLIS first: on the products of a 10-sample batch (10x784 by 784x200 forward, 200x10 by
// 10x784 for the weight gradient) BLIS 0.9 ran at 38-55 GFLOP/s on one core of this project's
// build machine, Debian's OpenBLAS 0.3.21 at 12-17 GFLOP/s (it took that Xeon for a Prescott
// and used SSE3 kernels; forced to SkylakeX it reached 17-35) and libxsmm 1.17 at 13-15
// (it hands these sizes to the BLAS). `fogstudio-cli bench` measures both libraries again.
// BLIS is opened with dlopen(RTLD_LOCAL) and called through its own API (bli_sgemm), so its
// BLAS symbols (sgemm_, cblas_sgemm) never replace OpenBLAS's under LibTorch: the LibTorch
// path computes exactly what it did before.

#include <string>
#include <vector>

namespace fog::fastblas {

/// C (m x n) = alpha op(A) op(B) + beta C, all row-major; op(A) is m x k (A is k x m with
/// lda when transA), op(B) is k x n (B is n x k with ldb when transB).
using Sgemm = void (*)(bool transA, bool transB, int m, int n, int k, float alpha, const float* a, int lda,
                       const float* b, int ldb, float beta, float* c, int ldc);

struct Library {
    std::string name; ///< e.g. "BLIS 0.9.0", "OpenBLAS 0.3.21"
    Sgemm sgemm = nullptr;
};

/// The libraries found in this process, best first (BLIS, then OpenBLAS); each set to one
/// thread (FogStudio parallelises across trainers). Empty if neither is there.
const std::vector<Library>& libraries();
/// The library the fast path uses: FOGSTUDIO_FAST_BLAS=openblas|blis picks one (for
/// measurements), else the first of libraries(). Throws std::runtime_error if there is none.
const Library& chosen();

} // namespace fog::fastblas
