#pragma once
// Which floating-point kernels a process computes with, and what follows for reproducibility
// (docs/reproducibility.md).
//
// Everything the virtual clock computes uses only FogStudio's own code (compiled for plain
// x86-64) and is bit-identical on every machine. Training goes through LibTorch's ATen kernels
// and the BLAS, both of which choose their code per CPU (AVX-512, AVX2, SSE): the same
// training on another CPU differs in the last digits. FogStudio therefore pins the kernels to a
// set every current x86-64 CPU runs (ATen AVX2 and OpenBLAS Haswell where the CPU has AVX2 and
// FMA), so that machines with the same kernel set train bit for bit alike; runs made with
// another kernel set are compared by the rule in trainingValuesAgree().

#include <string>

namespace fog {

/// The kernels this process trains with (LibTorch's path; the fast path's are fastKernels()).
struct KernelSet {
    std::string aten;          ///< ATen CPU capability: "default", "avx2", "avx512"
    std::string blas;          ///< OpenBLAS core ("Haswell", ...), or "not OpenBLAS"
    std::string blasConfig;    ///< openblas_get_config(): version and build options
    std::string torch;         ///< LibTorch version
    std::string mode;          ///< "portable" (FogStudio chose), "environment" (set by the user), "native"

    /// What two runs must share to train bit for bit alike: ATen capability, BLAS core and the
    /// library builds. The CPU model is not part of it.
    std::string key() const;
};

/// The kernel set of this process. The first call pins the kernels (pinKernels()).
const KernelSet& kernelSet();

/// The CPU model name (/proc/cpuinfo) and its vector level ("AVX-512", "AVX2+FMA", "AVX", "SSE").
std::string cpuModel();
std::string cpuVectorLevel();

/// The library and kernels of the fast training path (training.backend fast or auto:
/// core/model/fast_blas.h), e.g. "BLIS 0.9.0 (skx kernels)"; "none" in a program without it.
/// BLIS chooses its kernels per CPU and is not pinned: fast-path runs are bit-identical only
/// where this matches too.
std::string fastKernels();
/// Called by the fast path's library code (a static initializer) to say how to describe it.
void registerFastKernels(std::string (*describe)());

/// One line stored with every run:
/// "kernels=<key>; fast=<fastKernels()>; cpu=<model> (<level>); mode=<mode>".
std::string numericsRecord();

/// The kernel key inside a stored numericsRecord() line ("" for runs stored before it was
/// recorded: their kernels are unknown), and the fast path's ("" when not recorded).
std::string kernelKeyOf(const std::string& record);
std::string fastKernelsOf(const std::string& record);

/// Pins ATen's CPU capability and the OpenBLAS core (FOG_KERNELS=portable, the default) unless
/// the environment already chose them (ATEN_CPU_CAPABILITY, OPENBLAS_CORETYPE) or
/// FOG_KERNELS=native asks for the machine's own. Idempotent; runs before main() in every
/// program that links the engine, so no kernel has been used yet.
void pinKernels();

/// The rule for training values (losses, accuracies, model parameters) computed with another
/// kernel set: equal within kTrainingRelTolerance relative to the larger magnitude, or within
/// kAccuracyAbsTolerance for accuracies. Measured spread and the reasoning in
/// docs/reproducibility.md. NaN equals NaN.
constexpr double kTrainingRelTolerance = 0.02;
constexpr double kAccuracyAbsTolerance = 0.02;
bool trainingValuesAgree(double stored, double now, bool isAccuracy = false);

} // namespace fog
