// Every online trainer takes part.

#include "core/policies/selection_factories.h"

namespace fog {

namespace {
class SelectAll : public SelectionPolicy {
public:
    std::vector<int> select(const Engine&, int, int, const std::vector<int>& candidates, Rng&) override {
        return candidates;
    }
};
} // namespace

std::unique_ptr<SelectionPolicy> makeSelectAll(const PolicySpec&, const Engine&) {
    return std::make_unique<SelectAll>();
}

} // namespace fog
