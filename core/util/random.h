#pragma once
// Random streams that give the same numbers on every machine and standard library:
// the engine of std::mt19937_64 is fully specified, but std::*_distribution are not, so the
// draws are written out here.

#include "core/util/portable_math.h"
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace fog {

/// SplitMix64 finaliser: mixes a 64-bit value into a well-spread one.
inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// Derives the seed of an independent stream from a base seed and labels.
inline std::uint64_t deriveSeed(std::uint64_t base, std::uint64_t a, std::uint64_t b = 0) {
    return mix64(mix64(mix64(base) ^ (a * 0x632be59bd9b4e019ULL)) ^ (b + 0x85ebca6bULL));
}

/// Stable 64-bit hash of a string (FNV-1a), for naming streams.
inline std::uint64_t hashName(const std::string& s) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ULL;
    return h;
}

class Rng {
public:
    explicit Rng(std::uint64_t seed = 1) : engine_(seed) {}

    std::uint64_t next() { return engine_(); }
    /// Uniform in [0, 1) with 53 random bits.
    double uniform() { return (engine_() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Uniform integer in [0, n).
    std::uint64_t below(std::uint64_t n) {
        if (n == 0) return 0;
        const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
        std::uint64_t x;
        do x = engine_();
        while (x >= limit);
        return x % n;
    }
    double exponential(double mean) { return -mean * pmath::log1p(-uniform()); }
    /// Standard normal by Marsaglia's polar method.
    double normal() {
        if (hasSpare_) {
            hasSpare_ = false;
            return spare_;
        }
        double u, v, s;
        do {
            u = 2.0 * uniform() - 1.0;
            v = 2.0 * uniform() - 1.0;
            s = u * u + v * v;
        } while (s >= 1.0 || s == 0.0);
        const double f = std::sqrt(-2.0 * pmath::log(s) / s);
        spare_ = v * f;
        hasSpare_ = true;
        return u * f;
    }
    double normal(double mean, double sd) { return mean + sd * normal(); }
    double logNormal(double mu, double sigma) { return pmath::exp(normal(mu, sigma)); }
    /// Gamma(shape, 1) by Marsaglia and Tsang.
    double gamma(double shape) {
        if (shape < 1.0) return gamma(shape + 1.0) * pmath::pow(uniform(), 1.0 / shape);
        const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
        for (;;) {
            double x, v;
            do {
                x = normal();
                v = 1.0 + c * x;
            } while (v <= 0.0);
            v = v * v * v;
            const double u = uniform();
            if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
            if (pmath::log(u) < 0.5 * x * x + d * (1.0 - v + pmath::log(v))) return d * v;
        }
    }
    std::vector<double> dirichlet(int n, double alpha) {
        std::vector<double> p(n);
        double sum = 0.0;
        for (auto& x : p) sum += (x = gamma(alpha));
        for (auto& x : p) x = sum > 0 ? x / sum : 1.0 / n;
        return p;
    }
    template <class T> void shuffle(std::vector<T>& v) {
        for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
    }

private:
    std::mt19937_64 engine_;
    double spare_ = 0.0;
    bool hasSpare_ = false;
};

} // namespace fog
