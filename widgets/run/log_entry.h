#pragma once
// One line of the studio's event log (widgets/run/event_log.h): what happened in a run at
// one virtual instant, kept compact (numbers, not text) because a fast run produces them by
// the hundred thousand; the log's model formats them only when a row is drawn. The run
// controller collects them from the run's stream on the engine's thread.

#include "core/system/run_event.h"

#include <QMetaType>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fog {

enum class LogKind : std::uint8_t {
    Dispatch,    ///< node: trainer; peer: its aggregator; a, b, c: model in, computed, update due
    Send,        ///< node: sender; peer: receiver; a: arrival time; b: bytes
    Arrival,     ///< node: trainer whose update arrived; peer: the aggregator
    Received,    ///< node: receiver of a message; peer: its sender; b: bytes
    CutOff,      ///< node: receiver of a message cut off (its sender went away); peer; b
    Discarded,   ///< node: trainer whose job ended before its update arrived
    Aggregation, ///< node: aggregator; round, level; a: train loss; b: test accuracy; c: participants
    Event,       ///< a RunEvent: node (or -1), event, text
    Note,        ///< the studio's own line (run started, finished, an error): text
};

struct LogEntry {
    double time = 0.0;
    LogKind kind = LogKind::Note;
    RunEventKind event = RunEventKind::Other; ///< LogKind::Event only
    int node = -1; ///< index in RunInfo::nodes, -1: the run as a whole
    int peer = -1;
    int round = 0;
    int level = 0;
    double a = std::numeric_limits<double>::quiet_NaN();
    double b = std::numeric_limits<double>::quiet_NaN();
    double c = std::numeric_limits<double>::quiet_NaN();
    std::uint64_t job = 0;
    std::string text;
};

} // namespace fog

Q_DECLARE_METATYPE(std::vector<fog::LogEntry>)
