// Tier layout: a depth-first walk of the parent forest places leaves left to right, each
// parent at the middle of its children; the tier chooses the row, so an edge server that
// reports straight to nothing still sits on the edge row, except that a child always sits
// below its parent (cloud workers under their regional cloud server, not beside it, where
// the links between the regions' servers would pass behind them).

#include "core/scenario/layout.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace fog {

namespace {

struct Vertex {
    Tier tier = Tier::Device;
    std::string parent;
    int parentVertex = -1;
    std::vector<int> children;
    double x = 0.0;
    int subRow = 0; ///< > 0: a further line of a wrapped block of leaves
    int level = 0;  ///< the row: the tier's, or one below the parent's when that is lower
};

int row(Tier t) {
    switch (t) {
    case Tier::Cloud:
        return 0;
    case Tier::Edge:
        return 1;
    case Tier::Device:
        return 2;
    }
    return 2;
}

/// Resolves `parent` to a vertex: a node id, a group (nested groups), or a group member
/// `<group>-<k>` (nested: `<group>-<i>-<k>`).
int findParent(const std::string& parent, const std::unordered_map<std::string, int>& nodeIds,
               const std::unordered_map<std::string, int>& groupIds) {
    if (parent.empty()) return -1;
    if (auto it = nodeIds.find(parent); it != nodeIds.end()) return it->second;
    if (auto it = groupIds.find(parent); it != groupIds.end()) return it->second;
    for (auto dash = parent.rfind('-'); dash != std::string::npos && dash > 0;
         dash = parent.rfind('-', dash - 1))
        if (auto it = groupIds.find(parent.substr(0, dash)); it != groupIds.end()) return it->second;
    return -1;
}

} // namespace

TopologyLayout layoutByTier(const TopologySpec& t, const LayoutOptions& o) {
    std::vector<Vertex> v;
    std::unordered_map<std::string, int> nodeIds, groupIds;
    // Vertices: nodes first, then groups (the file's order), whatever the list's order.
    std::vector<int> vertexOf(t.nodes.size(), -1);
    for (const bool groups : {false, true})
        for (std::size_t i = 0; i < t.nodes.size(); ++i) {
            const NodeSpec& n = t.nodes[i];
            if (n.group != groups) continue;
            vertexOf[i] = static_cast<int>(v.size());
            (n.group ? groupIds : nodeIds).emplace(n.id, static_cast<int>(v.size()));
            v.push_back({n.tier, n.parent, -1, {}, 0.0});
        }
    const int count = static_cast<int>(v.size());
    for (int i = 0; i < count; ++i) {
        const int p = findParent(v[static_cast<std::size_t>(i)].parent, nodeIds, groupIds);
        if (p >= 0 && p != i) v[static_cast<std::size_t>(i)].parentVertex = p;
    }
    // Break parent cycles (an editor may hold an invalid scenario): a vertex whose chain
    // comes back to itself becomes a root.
    for (int i = 0; i < count; ++i) {
        int steps = 0;
        for (int x = v[static_cast<std::size_t>(i)].parentVertex; x >= 0 && steps <= count;
             x = v[static_cast<std::size_t>(x)].parentVertex, ++steps)
            if (x == i) {
                v[static_cast<std::size_t>(i)].parentVertex = -1;
                break;
            }
    }
    std::vector<int> roots;
    for (int i = 0; i < count; ++i) {
        const int p = v[static_cast<std::size_t>(i)].parentVertex;
        (p >= 0 ? v[static_cast<std::size_t>(p)].children : roots).push_back(i);
    }

    // Rows: a child's is its tier's, or the one below its parent's (parents first, so a
    // breadth-first walk from the roots).
    int levels = 3;
    {
        std::vector<int> queue = roots;
        for (int r : roots) v[static_cast<std::size_t>(r)].level = row(v[static_cast<std::size_t>(r)].tier);
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const Vertex& p = v[static_cast<std::size_t>(queue[q])];
            for (int c : p.children) {
                Vertex& cv = v[static_cast<std::size_t>(c)];
                cv.level = std::max(row(cv.tier), p.level + 1);
                levels = std::max(levels, cv.level + 1);
                queue.push_back(c);
            }
        }
    }

    // Iterative post-order walk (a chain of 1,000 nodes must not overflow the stack).
    double nextLeaf = 0.0;
    std::vector<char> visited(static_cast<std::size_t>(count), 0);
    for (int root : roots) {
        std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
        while (!stack.empty()) {
            auto& [x, next] = stack.back();
            Vertex& vx = v[static_cast<std::size_t>(x)];
            // Only device leaves wrap: lines of them below the device row hit nothing.
            const bool wrap = next == 0 && static_cast<int>(vx.children.size()) > o.wrapLeaves &&
                              std::all_of(vx.children.begin(), vx.children.end(), [&](int c) {
                                  const Vertex& cv = v[static_cast<std::size_t>(c)];
                                  return cv.children.empty() && cv.tier == Tier::Device;
                              });
            if (wrap) {
                // Many leaves under one parent (an edge server's devices): a block of lines
                // `wrapLeaves` wide instead of one very long row.
                const int cols = std::max(1, o.wrapLeaves);
                for (std::size_t k = 0; k < vx.children.size(); ++k) {
                    Vertex& c = v[static_cast<std::size_t>(vx.children[k])];
                    c.x = nextLeaf + static_cast<double>(static_cast<int>(k) % cols);
                    c.subRow = static_cast<int>(k) / cols;
                    visited[static_cast<std::size_t>(vx.children[k])] = 1;
                }
                vx.x = nextLeaf + (cols - 1) / 2.0;
                nextLeaf += cols;
                visited[static_cast<std::size_t>(x)] = 1;
                stack.pop_back();
                continue;
            }
            if (next < vx.children.size()) {
                const int c = vx.children[next++];
                if (!visited[static_cast<std::size_t>(c)]) stack.push_back({c, 0});
                continue;
            }
            visited[static_cast<std::size_t>(x)] = 1;
            if (vx.children.empty()) {
                vx.x = nextLeaf++;
            } else {
                vx.x = (v[static_cast<std::size_t>(vx.children.front())].x +
                        v[static_cast<std::size_t>(vx.children.back())].x) /
                       2.0;
            }
            stack.pop_back();
        }
    }

    // Within a row, keep neighbours at least one column apart (a parent and its child of the
    // same tier would otherwise share a spot).
    int lines = 1;
    for (const Vertex& vx : v)
        lines = std::max(lines, vx.subRow + 1);
    for (int r = 0; r < levels * lines; ++r) {
        std::vector<int> inRow;
        for (int i = 0; i < count; ++i)
            if (v[static_cast<std::size_t>(i)].level == r / lines &&
                v[static_cast<std::size_t>(i)].subRow == r % lines)
                inRow.push_back(i);
        std::stable_sort(inRow.begin(), inRow.end(), [&](int a, int b) {
            return v[static_cast<std::size_t>(a)].x < v[static_cast<std::size_t>(b)].x;
        });
        for (std::size_t k = 1; k < inRow.size(); ++k) {
            double& x = v[static_cast<std::size_t>(inRow[k])].x;
            x = std::max(x, v[static_cast<std::size_t>(inRow[k - 1])].x + 1.0);
        }
    }

    TopologyLayout out;
    for (int i : vertexOf) {
        const Vertex& vx = v[static_cast<std::size_t>(i)];
        out.nodes.push_back({vx.x * o.columnWidth, vx.level * o.rowHeight + vx.subRow * o.lineHeight});
    }
    return out;
}

void applyLayout(TopologySpec& t, bool all, const LayoutOptions& options) {
    const TopologyLayout l = layoutByTier(t, options);
    auto place = [&](auto& spec, const LayoutPoint& p) {
        if (spec.hasPosition && !all) return;
        spec.x = p.x;
        spec.y = p.y;
        spec.hasPosition = true;
    };
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
        place(t.nodes[i], l.nodes[i]);
}

} // namespace fog
