#pragma once
// One dispatch of work to a trainer as the engine planned it and the sync policy sees it at
// its arrival or loss: model down, local steps, update up. Plain data: the engine keeps what
// the training itself needs (the work on the pool, the client algorithm's terms) on its side
// (core/engine/dispatcher.h).

#include <cstdint>
#include <vector>

namespace fog {

struct Job {
    std::uint64_t id = 0;
    int trainer = -1;
    int aggregator = -1;
    int round = 0;         ///< the policy's round when dispatched
    long version = 0;      ///< model version pulled (for staleness)
    bool gradient = false; ///< gradient of one step vs parameter change of local SGD
    int tag = 0;           ///< free for the policy
    /// The job's timeline. With network contention (docs/network.md) the times after tStart
    /// are +infinity until they happen (transfers end when the network says); policies see
    /// a job only at arrival or loss.
    double tStart = 0, tReceived = 0, tComputed = 0, tArrive = 0;
    std::vector<int> batchSizes;
    std::vector<double> stepEnds; ///< virtual time at which each step ends
    std::int64_t samples = 0;
    int stepsRequested = 0;
    double downBytes = 0.0, upBytes = 0.0; ///< bytes of the model down and of the update up
    /// Extra work of the client algorithm and the codecs (docs/learning.md, "What each
    /// algorithm costs"): the trainer's seconds before its first step (decoding the model,
    /// SecAgg's masks) and after its last (encoding the update, DP clipping and noise), inside
    /// [tReceived, tComputed]; the aggregator's seconds encoding the model before it goes down
    /// and decoding the update after it arrived.
    double workBefore = 0.0, workAfter = 0.0, serverBefore = 0.0, serverAfter = 0.0;
    bool partial = false;  ///< fewer steps than requested (compute deadline)
    bool doomed = false;   ///< the trainer goes offline before delivering
};

} // namespace fog
