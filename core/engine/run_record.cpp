// What a run has produced so far (see run_record.h).

#include "core/engine/run_record.h"

namespace fog {

void RunRecord::stop(RunStatus status, const std::string& reason) {
    if (stopped_) return;
    stopped_ = true;
    summary_.status = status;
    summary_.stopReason = reason;
}

bool RunRecord::countAggregation(int level) {
    ++aggregations_;
    if (level != 0) return false;
    ++globalRound_;
    lastEvaluated_ = evaluation_.due(globalRound_);
    return lastEvaluated_;
}

} // namespace fog
