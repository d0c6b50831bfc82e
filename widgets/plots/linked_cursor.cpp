#include "widgets/plots/linked_cursor.h"

#include "widgets/plots/link_plot.h"
#include "widgets/plots/live_plots.h"
#include "widgets/plots/node_timeline.h"

namespace fog {

void linkCursors(LivePlots* plots, NodeTimeline* timeline, LinkThroughputPlot* links) {
    if (plots && timeline) {
        QObject::connect(plots, &LivePlots::cursorMoved, timeline, &NodeTimeline::setCursorTime);
        QObject::connect(timeline, &NodeTimeline::cursorMoved, plots, &LivePlots::setCursorTime);
    }
    if (plots && links) {
        QObject::connect(plots, &LivePlots::cursorMoved, links, &LinkThroughputPlot::setCursorTime);
        QObject::connect(links, &LinkThroughputPlot::cursorMoved, plots, &LivePlots::setCursorTime);
    }
    if (timeline && links) {
        QObject::connect(timeline, &NodeTimeline::cursorMoved, links, &LinkThroughputPlot::setCursorTime);
        QObject::connect(links, &LinkThroughputPlot::cursorMoved, timeline, &NodeTimeline::setCursorTime);
    }
}

} // namespace fog
