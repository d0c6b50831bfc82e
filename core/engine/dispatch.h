#pragma once
// Dispatch: one job of work sent to a trainer (model down, local steps, update up), whose
// whole virtual timeline is planned when it starts; the real training runs on the work pool
// and is waited for only when the update arrives. The engine's dispatch, arrival,
// cancellation and loss of jobs are in dispatch.cpp.
//
// Threads: engine thread only (the work a job submits runs on pool threads and touches
// nothing here).

#include "core/model/learner.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace fog {

class WorkItem;

/// One dispatch of work to a trainer: model down, local steps, update up.
struct Job {
    std::uint64_t id = 0;
    int trainer = -1;
    int aggregator = -1;
    int round = 0;         ///< the policy's round when dispatched
    long version = 0;      ///< model version pulled (for staleness)
    bool gradient = false; ///< gradient of one step vs parameter change of local SGD
    int tag = 0;           ///< free for the policy
    double tStart = 0, tReceived = 0, tComputed = 0, tArrive = 0;
    std::vector<int> batchSizes;
    std::vector<double> stepEnds; ///< virtual time at which each step ends
    std::int64_t samples = 0;
    int stepsRequested = 0;
    bool partial = false;  ///< fewer steps than requested (compute deadline)
    bool doomed = false;   ///< the trainer goes offline before delivering
    std::shared_ptr<WorkItem> work;
    std::shared_ptr<LocalResult> result;
};

/// Optional settings of one dispatch.
struct DispatchOptions {
    int batchSize = 0;            ///< 0: training.batch_size (AdaCoOpt sets one per trainer)
    /// Steps that would end after this virtual time are not run: the trainer returns the
    /// work done by then (at least one step). Infinity: all steps.
    double computeDeadline = std::numeric_limits<double>::infinity();
    bool download = true;         ///< false: the trainer still holds this model
    int tag = 0;                  ///< free for the policy
};

} // namespace fog
