#pragma once
// Ranking helper shared by the selection policies that pick "the best k" by one key.

#include <algorithm>
#include <utility>
#include <vector>

namespace fog {

/// The k candidates with the smallest key(candidate), ties going to the lower index so the
/// choice is the same every run; returned in ascending index order.
template <typename KeyFn>
std::vector<int> smallestK(const std::vector<int>& candidates, std::size_t k, KeyFn key) {
    using Key = decltype(key(0));
    std::vector<std::pair<Key, int>> ranked;
    ranked.reserve(candidates.size());
    for (int c : candidates) ranked.emplace_back(key(c), c);
    std::sort(ranked.begin(), ranked.end());
    std::vector<int> out;
    for (std::size_t i = 0; i < std::min(k, ranked.size()); ++i) out.push_back(ranked[i].second);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace fog
