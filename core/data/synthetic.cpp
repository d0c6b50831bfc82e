// FedProx Synthetic(alpha, beta) (Li et al., "Federated Optimization in Heterogeneous
// Networks", 2020), one device per trainer.
//
// alpha controls how much the devices' models differ, beta how much their inputs differ.
// Every device draws from its own random stream (derived from the seed and its index), so
// device k's data do not change when trainers are added or removed.

#include "core/data/dataset.h"

#include "core/util/random.h"

#include <algorithm>
#include <cmath>

namespace fog {

namespace {

// Devices hold int(lognormal(4, 2)) + 50 samples as in FedProx, but that draw has a heavy
// tail (e^(4 + 2*3) is about 22,000); the cap keeps memory and round times bounded.
constexpr int kMinDeviceSamples = 50;
constexpr int kMaxDeviceSamples = 2000;

constexpr std::uint64_t kStreamDevice = 0x5359'4e44'4556ULL; // "SYNDEV"
constexpr std::uint64_t kStreamShared = 0x5359'4e53'4852ULL; // "SYNSHR"

struct Linear {
    std::vector<double> w; // classes x dim, row-major
    std::vector<double> b; // classes
};

Linear drawLinear(Rng& rng, int classes, int dim, double mean) {
    Linear m;
    m.w.resize(static_cast<std::size_t>(classes) * dim);
    m.b.resize(classes);
    for (auto& x : m.w) x = rng.normal(mean, 1.0);
    for (auto& x : m.b) x = rng.normal(mean, 1.0);
    return m;
}

} // namespace

DataBundle makeSynthetic(const DataSpec& spec, int trainers, std::uint64_t seed) {
    if (trainers < 1) throw DataError("synthetic data: need at least one trainer");
    const int dim = spec.syntheticFeatures;
    const int classes = spec.syntheticClasses;
    if (dim < 1) throw DataError("synthetic data: the feature count must be at least 1");
    if (classes < 2) throw DataError("synthetic data: the class count must be at least 2");
    if (!(spec.syntheticAlpha >= 0.0) || !(spec.syntheticBeta >= 0.0))
        throw DataError("synthetic data: alpha and beta must be >= 0");

    // Diagonal input covariance Sigma_jj = (j + 1)^-1.2, stored as standard deviations.
    std::vector<double> sd(dim);
    for (int j = 0; j < dim; ++j) sd[j] = std::sqrt(std::pow(j + 1.0, -1.2));

    Linear shared;
    if (spec.syntheticIid) {
        Rng rng(deriveSeed(seed, kStreamShared));
        shared = drawLinear(rng, classes, dim, 0.0);
    }

    DataBundle bundle;
    bundle.natural = true;
    for (Dataset* d : {&bundle.train, &bundle.test}) {
        d->channels = 1;
        d->height = 1;
        d->width = dim;
        d->classes = classes;
    }
    bundle.parts.resize(trainers);

    std::vector<double> x(dim);
    for (int k = 0; k < trainers; ++k) {
        Rng rng(deriveSeed(seed, kStreamDevice, static_cast<std::uint64_t>(k)));
        // Cap in floating point first: the log-normal draw can exceed the range of int.
        const double draw = std::floor(rng.logNormal(4.0, 2.0));
        const int n = static_cast<int>(
            std::min(draw, double(kMaxDeviceSamples - kMinDeviceSamples)) + kMinDeviceSamples);

        const double u = rng.normal(0.0, spec.syntheticAlpha); // mean of this device's model
        const double bMean = rng.normal(0.0, spec.syntheticBeta); // mean of its input mean
        Linear local;
        std::vector<double> v(dim, 0.0);
        if (!spec.syntheticIid) {
            local = drawLinear(rng, classes, dim, u);
            for (auto& vj : v) vj = rng.normal(bMean, 1.0);
        }
        const Linear& m = spec.syntheticIid ? shared : local;

        const int nTrain = n * 9 / 10; // first 90% train, the rest test (as FedProx)
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < dim; ++j) x[j] = v[j] + sd[j] * rng.normal();
            int best = 0;
            double bestScore = 0.0;
            for (int c = 0; c < classes; ++c) {
                const double* w = &m.w[static_cast<std::size_t>(c) * dim];
                double s = m.b[c];
                for (int j = 0; j < dim; ++j) s += w[j] * x[j];
                if (c == 0 || s > bestScore) {
                    best = c;
                    bestScore = s;
                }
            }
            Dataset& d = i < nTrain ? bundle.train : bundle.test;
            if (i < nTrain) bundle.parts[k].push_back(static_cast<std::int64_t>(d.size()));
            for (int j = 0; j < dim; ++j) d.features.push_back(static_cast<float>(x[j]));
            d.labels.push_back(best);
        }
    }
    return bundle;
}

} // namespace fog
