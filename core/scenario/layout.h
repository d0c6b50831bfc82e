#pragma once
// Automatic layout of a topology for the editor's canvas: one row per tier (cloud on top,
// then edge, then devices), children centred under their parent, subtrees side by side; a
// parent with many leaf children gets them in a block of short lines.
// Pure: the editor uses it for nodes without a `position` and for "auto layout".

#include "core/spec/scenario.h"

#include <vector>

namespace fog {

struct LayoutOptions {
    double columnWidth = 180.0; ///< horizontal distance between neighbouring leaves
    double rowHeight = 180.0;   ///< vertical distance between tiers
    double lineHeight = 80.0;   ///< between the lines of a wrapped block of leaves
    /// A parent with more leaf children than this gets them in lines of this many.
    int wrapLeaves = 8;
};

struct LayoutPoint {
    double x = 0.0;
    double y = 0.0;
};

/// Positions of every node and group, in the order of `t.nodes`, ignoring the positions
/// they have. A group is one vertex, a nested group one vertex under its parent group's.
struct TopologyLayout {
    std::vector<LayoutPoint> nodes;
};

TopologyLayout layoutByTier(const TopologySpec& t, const LayoutOptions& options = {});

/// Gives a position to every node and group without one (or to all when `all`).
void applyLayout(TopologySpec& t, bool all, const LayoutOptions& options = {});

} // namespace fog
