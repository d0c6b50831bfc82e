// k trainers drawn uniformly without replacement among those online (FedAvg's C fraction).

#include "core/policies/selection_factories.h"

#include <algorithm>

namespace fog {

namespace {
class SelectRandomK : public SelectionPolicy {
public:
    explicit SelectRandomK(std::size_t k) : k_(k) {}
    std::vector<int> select(const Engine&, int, int, const std::vector<int>& candidates, Rng& rng) override {
        std::vector<int> pool = candidates;
        // Partial Fisher-Yates: the first k of a uniform permutation.
        const std::size_t k = std::min(k_, pool.size());
        for (std::size_t i = 0; i < k; ++i) std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
        pool.resize(k);
        std::sort(pool.begin(), pool.end());
        return pool;
    }

private:
    std::size_t k_;
};
} // namespace

std::unique_ptr<SelectionPolicy> makeSelectRandomK(const PolicySpec& spec, const Engine&) {
    return std::make_unique<SelectRandomK>(static_cast<std::size_t>(spec.get("k", 10)));
}

} // namespace fog
