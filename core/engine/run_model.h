#pragma once
// The model a run trains: the learner (none in a timing-only run: updates are empty), its
// seeded initial parameters, its size on the wire and its training FLOPs per sample (for
// nodes given in FLOP/s and energy per FLOP).
//
// Threads: engine thread only (the learner itself is used by the pool's workers too, as
// core/model/learner.h allows).

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/spec/scenario.h"

#include <memory>

namespace fog {

class RunModel {
public:
    /// Builds the learner on `data` (a timing-only scenario: none). Throws ModelError with a
    /// clear message.
    RunModel(const Scenario& scenario, const std::shared_ptr<const DataBundle>& data);

    /// Null in a timing-only run.
    Learner* learner() const { return learner_.get(); }
    const ParamsPtr& initial() const { return initial_; }
    /// Bytes of one model (or update) on the wire: model.wire_bytes, else 4 per parameter.
    double wireBytes() const { return wireBytes_; }
    /// Training FLOPs per sample, computed at the first call (only some nodes need it).
    double flopsPerSample() const;
    /// What flopsPerSample() gave so far (0: never asked).
    double knownFlopsPerSample() const { return flopsPerSample_; }

private:
    const ModelSpec& spec_;
    int channels_, height_, width_, classes_; ///< the training set's shape
    std::unique_ptr<Learner> learner_;
    ParamsPtr initial_;
    double wireBytes_ = 0.0;
    mutable double flopsPerSample_ = 0.0;
};

} // namespace fog
