// Partitions of a training set over clients: IID, label-Dirichlet (NIID-Bench "labeldir"),
// label shards (McMahan et al.), and quantity skew. All randomness comes from fog::Rng so a
// seed gives the same partition on every machine.

#include "core/data/dataset.h"

#include "core/util/random.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fog {

namespace {

using Parts = std::vector<std::vector<std::int64_t>>;

void checkClients(int clients, const char* what) {
    if (clients < 1)
        throw DataError(std::string(what) + " partition: need at least one client, got " +
                        std::to_string(clients));
}

std::vector<std::int64_t> iota(std::size_t n) {
    std::vector<std::int64_t> v(n);
    std::iota(v.begin(), v.end(), std::int64_t(0));
    return v;
}

/// Cuts `order` into consecutive pieces of the given sizes (which sum to order.size()).
Parts cut(const std::vector<std::int64_t>& order, const std::vector<std::size_t>& sizes) {
    Parts parts(sizes.size());
    std::size_t at = 0;
    for (std::size_t c = 0; c < sizes.size(); ++c) {
        parts[c].assign(order.begin() + at, order.begin() + at + sizes[c]);
        at += sizes[c];
    }
    return parts;
}

} // namespace

Parts partitionIid(std::size_t n, int clients, std::uint64_t seed) {
    checkClients(clients, "IID");
    Rng rng(seed);
    auto order = iota(n);
    rng.shuffle(order);
    // The first n % clients clients take one sample more, so sizes differ by at most one.
    std::vector<std::size_t> sizes(clients, n / clients);
    for (std::size_t c = 0; c < n % clients; ++c) ++sizes[c];
    return cut(order, sizes);
}

Parts partitionDirichlet(const std::vector<std::int64_t>& labels, int classes, int clients,
                         double alpha, int minPerClient, std::uint64_t seed) {
    checkClients(clients, "Dirichlet");
    if (!(alpha > 0.0) || !std::isfinite(alpha))
        throw DataError("Dirichlet partition: alpha must be a positive number, got " +
                        std::to_string(alpha));
    if (classes < 1) throw DataError("Dirichlet partition: need at least one class");
    const std::size_t n = labels.size();
    const std::size_t minSize = static_cast<std::size_t>(std::max(minPerClient, 0));
    if (minSize * static_cast<std::size_t>(clients) > n)
        throw DataError("Dirichlet partition: " + std::to_string(n) +
                        " samples cannot give each of " + std::to_string(clients) +
                        " clients at least " + std::to_string(minSize) +
                        " (lower data.partition.min_per_client or use fewer clients)");

    std::vector<std::vector<std::int64_t>> byClass(classes);
    for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t y = labels[i];
        if (y < 0 || y >= classes)
            throw DataError("Dirichlet partition: label " + std::to_string(y) + " of sample " +
                            std::to_string(i) + " is outside 0.." + std::to_string(classes - 1));
        byClass[y].push_back(static_cast<std::int64_t>(i));
    }

    Rng rng(seed);
    constexpr int kMaxTries = 1000;
    Parts parts(clients);
    std::vector<double> cum(clients);
    for (int attempt = 0; attempt < kMaxTries; ++attempt) {
        for (auto& p : parts) p.clear();
        for (auto& idx : byClass) {
            rng.shuffle(idx);
            std::vector<double> p = rng.dirichlet(clients, alpha);
            // Clients that already hold their fair share n / clients take no more, which
            // keeps one client from swallowing most of the set.
            double sum = 0.0;
            for (int c = 0; c < clients; ++c) {
                if (parts[c].size() * static_cast<std::size_t>(clients) >= n) p[c] = 0.0;
                sum += p[c];
            }
            if (!(sum > 0.0)) { // every share underflowed or was zeroed: spread evenly
                std::fill(p.begin(), p.end(), 1.0);
                sum = clients;
            }
            // Cut the class at the cumulative proportions (rounded down, as NIID-Bench).
            const std::size_t m = idx.size();
            double acc = 0.0;
            std::size_t from = 0;
            for (int c = 0; c < clients; ++c) {
                acc += p[c] / sum;
                std::size_t to = m;
                if (c + 1 < clients)
                    to = std::clamp(static_cast<std::size_t>(acc * static_cast<double>(m)), from, m);
                parts[c].insert(parts[c].end(), idx.begin() + from, idx.begin() + to);
                from = to;
            }
        }
        const bool enough = std::all_of(parts.begin(), parts.end(), [&](const auto& p) {
            return p.size() >= minSize;
        });
        if (enough) {
            for (auto& p : parts) rng.shuffle(p);
            return parts;
        }
    }
    throw DataError("Dirichlet partition: after " + std::to_string(kMaxTries) +
                    " draws some client still had fewer than " + std::to_string(minSize) +
                    " samples; alpha = " + std::to_string(alpha) + " is too small for " +
                    std::to_string(clients) + " clients and " + std::to_string(n) +
                    " samples (raise alpha, lower data.partition.min_per_client or use fewer clients)");
}

Parts partitionShards(const std::vector<std::int64_t>& labels, int clients, int shardsPerClient,
                      std::uint64_t seed) {
    checkClients(clients, "Shards");
    if (shardsPerClient < 1)
        throw DataError("Shards partition: shardsPerClient must be at least 1, got " +
                        std::to_string(shardsPerClient));
    const std::size_t n = labels.size();
    auto sorted = iota(n);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [&](std::int64_t a, std::int64_t b) { return labels[a] < labels[b]; });

    // Shard s covers sorted[s * n / S, (s + 1) * n / S): sizes differ by at most one.
    const std::size_t shards = static_cast<std::size_t>(clients) * shardsPerClient;
    auto shardIds = iota(shards);
    Rng rng(seed);
    rng.shuffle(shardIds);
    Parts parts(clients);
    for (std::size_t k = 0; k < shards; ++k) {
        const auto s = static_cast<std::size_t>(shardIds[k]);
        auto& part = parts[k / shardsPerClient];
        part.insert(part.end(), sorted.begin() + s * n / shards,
                    sorted.begin() + (s + 1) * n / shards);
    }
    for (auto& p : parts) rng.shuffle(p); // mix the labels within each client
    return parts;
}

Parts partitionQuantitySkew(std::size_t n, const std::vector<double>& weights, double sigma,
                            std::uint64_t seed) {
    const int clients = static_cast<int>(weights.size());
    checkClients(clients, "Quantity-skew");
    if (!(sigma >= 0.0) || !std::isfinite(sigma))
        throw DataError("Quantity-skew partition: sigma must be >= 0, got " +
                        std::to_string(sigma));
    Rng rng(seed);
    std::vector<double> q(clients);
    double total = 0.0;
    for (int c = 0; c < clients; ++c) {
        if (!(weights[c] >= 0.0) || !std::isfinite(weights[c]))
            throw DataError("Quantity-skew partition: weight " + std::to_string(c) +
                            " must be a finite number >= 0");
        q[c] = weights[c] * (sigma > 0.0 ? rng.logNormal(0.0, sigma) : 1.0);
        total += q[c];
    }
    if (!(total > 0.0)) { // all weights zero: nothing to go by but equality
        std::fill(q.begin(), q.end(), 1.0);
        total = clients;
    }

    // Largest-remainder rounding: sizes sum exactly to n and stay within one sample of
    // n * q / total.
    std::vector<std::size_t> sizes(clients);
    std::vector<double> rest(clients);
    std::size_t assigned = 0;
    for (int c = 0; c < clients; ++c) {
        const double exact = static_cast<double>(n) * (q[c] / total);
        sizes[c] = std::min(static_cast<std::size_t>(std::floor(exact)), n);
        rest[c] = exact - static_cast<double>(sizes[c]);
        assigned += sizes[c];
    }
    std::vector<int> byRest(clients);
    std::iota(byRest.begin(), byRest.end(), 0);
    std::stable_sort(byRest.begin(), byRest.end(), [&](int a, int b) { return rest[a] > rest[b]; });
    for (std::size_t k = 0; assigned < n; k = (k + 1) % clients, ++assigned) ++sizes[byRest[k]];
    while (assigned > n) { // floating-point excess (only in pathological cases)
        auto big = std::max_element(sizes.begin(), sizes.end());
        --*big;
        --assigned;
    }
    // A client with no data cannot take part, so when there is enough, each gets one
    // sample, taken from the currently largest client.
    if (n >= static_cast<std::size_t>(clients)) {
        for (int c = 0; c < clients; ++c) {
            if (sizes[c] > 0) continue;
            auto big = std::max_element(sizes.begin(), sizes.end());
            --*big;
            sizes[c] = 1;
        }
    }

    auto order = iota(n);
    rng.shuffle(order);
    return cut(order, sizes);
}

std::vector<double> labelHistogram(const Dataset& d, const std::vector<std::int64_t>& idx) {
    std::vector<double> h(std::max(d.classes, 0), 0.0);
    // Timing-only runs (DataSpec::None) hold indices but no labels: an all-zero histogram.
    if (d.labels.empty()) return h;
    for (const std::int64_t i : idx) {
        if (i < 0 || static_cast<std::size_t>(i) >= d.labels.size())
            throw DataError("label histogram: sample index " + std::to_string(i) +
                            " is outside the data set of " + std::to_string(d.labels.size()) +
                            " samples");
        const std::int64_t y = d.labels[static_cast<std::size_t>(i)];
        if (y >= 0 && y < d.classes) h[static_cast<std::size_t>(y)] += 1.0;
    }
    return h;
}

} // namespace fog
