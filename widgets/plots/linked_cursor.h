#pragma once
// One cursor over every run plot: a mouse over the live plots, the node timeline or the
// link throughput plot shows the same virtual time on all of them.

namespace fog {

class LinkThroughputPlot;
class LivePlots;
class NodeTimeline;

/// Connects the three views' cursors (any may be null).
void linkCursors(LivePlots* plots, NodeTimeline* timeline, LinkThroughputPlot* links);

} // namespace fog
