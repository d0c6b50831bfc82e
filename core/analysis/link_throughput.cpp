#include "core/analysis/link_throughput.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace fog {

std::vector<double> bytesPerLink(const std::vector<LinkUsage>& spans, int linkCount) {
    int n = std::max(0, linkCount);
    for (const auto& s : spans) n = std::max(n, s.link + 1);
    std::vector<double> bytes(static_cast<std::size_t>(n), 0.0);
    for (const auto& s : spans)
        if (s.link >= 0 && s.to > s.from && std::isfinite(s.bytesPerS)) bytes[s.link] += s.bytesPerS * (s.to - s.from);
    return bytes;
}

std::vector<int> linksByTraffic(const std::vector<LinkUsage>& spans, int linkCount) {
    const std::vector<double> bytes = bytesPerLink(spans, linkCount);
    std::vector<int> order(bytes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return bytes[a] > bytes[b]; });
    return order;
}

std::vector<std::vector<double>> binnedThroughput(const std::vector<LinkUsage>& spans, const std::vector<int>& links,
                                                  double t0, double t1, int bins) {
    std::vector<std::vector<double>> out(links.size(), std::vector<double>(static_cast<std::size_t>(std::max(0, bins)), 0.0));
    if (bins <= 0 || !(t1 > t0) || links.empty()) return out;
    int maxLink = *std::max_element(links.begin(), links.end());
    std::vector<int> slot(static_cast<std::size_t>(std::max(0, maxLink) + 1), -1);
    for (std::size_t k = 0; k < links.size(); ++k)
        if (links[k] >= 0) slot[links[k]] = static_cast<int>(k);
    const double width = (t1 - t0) / bins;
    for (const auto& s : spans) {
        if (s.link < 0 || s.link > maxLink || slot[s.link] < 0) continue;
        const double a = std::max(s.from, t0), b = std::min(s.to, t1);
        if (!(b > a) || !std::isfinite(s.bytesPerS)) continue;
        std::vector<double>& row = out[slot[s.link]];
        int first = std::clamp(static_cast<int>(std::floor((a - t0) / width)), 0, bins - 1);
        const int last = std::clamp(static_cast<int>(std::floor((b - t0) / width)), 0, bins - 1);
        for (int i = first; i <= last; ++i) {
            const double lo = std::max(a, t0 + i * width), hi = std::min(b, t0 + (i + 1) * width);
            if (hi > lo) row[i] += s.bytesPerS * (hi - lo);
        }
    }
    for (auto& row : out)
        for (double& v : row) v /= width;
    return out;
}

std::vector<double> binnedThroughput(const std::vector<LinkUsage>& spans, int link, double t0, double t1, int bins) {
    return binnedThroughput(spans, std::vector<int>{link}, t0, t1, bins).front();
}

} // namespace fog
