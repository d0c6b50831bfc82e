// The k online trainers with the shortest expected round trip (straggler avoidance).

#include "core/policies/selection_estimates.h"
#include "core/policies/rank.h"
#include "core/policies/selection_factories.h"

#include <algorithm>

namespace fog {

namespace {
class SelectFastestK : public SelectionPolicy {
public:
    explicit SelectFastestK(std::size_t k) : k_(k) {}
    std::vector<int> select(const Engine& e, int, int, const std::vector<int>& candidates, Rng&) override {
        return smallestK(candidates, k_, [&e](int t) { return expectedRoundSeconds(e, t); });
    }

private:
    std::size_t k_;
};
} // namespace

std::unique_ptr<SelectionPolicy> makeSelectFastestK(const PolicySpec& spec, const Engine&) {
    return std::make_unique<SelectFastestK>(static_cast<std::size_t>(spec.get("k", 10)));
}

} // namespace fog
