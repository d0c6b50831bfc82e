// Largest data first: the k online trainers holding the most samples (the baseline of
// data-value recruitment).

#include "core/policies/rank.h"
#include "core/policies/selection_factories.h"

#include <algorithm>

namespace fog {

namespace {
class SelectLargestData : public SelectionPolicy {
public:
    explicit SelectLargestData(std::size_t k) : k_(k) {}
    std::vector<int> select(const Engine& e, int, int, const std::vector<int>& candidates, Rng&) override {
        return smallestK(candidates, k_, [&e](int t) { return -e.samplesOf(t); }); // most data first
    }

private:
    std::size_t k_;
};
} // namespace

std::unique_ptr<SelectionPolicy> makeSelectLargestData(const PolicySpec& spec, const Engine&) {
    return std::make_unique<SelectLargestData>(static_cast<std::size_t>(spec.get("k", 10)));
}

} // namespace fog
