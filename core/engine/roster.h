#pragma once
// Who trains for whom, on which data: each trainer's part of the data (split over the
// trainers there from the start, in topology order, weighted by their data_share; a member
// that joins later brings its own sample, TimedEvents::addJoiningParts) and the aggregator
// its updates go to (serverOf), with the trainers each aggregator serves (trainersOf; a
// member that joins is added when it joins). A timing-only run holds only how many samples
// each trainer has until someone asks for the index lists (data()).
//
// Threads: engine thread only.

#include "core/data/dataset.h"
#include "core/spec/scenario.h"
#include "core/system/topology.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace fog {

class Roster {
public:
    /// Loads the run's data (or uses `given`, data loaded elsewhere) and splits it. `relay`:
    /// a single-server policy outside a tiered tree, whose updates go to the root aggregator
    /// above each trainer (the aggregators between relaying); else to the nearest one.
    /// Throws EngineError or DataError with a clear message.
    Roster(const Scenario& scenario, const Topology& topo, std::shared_ptr<const DataBundle> given, bool relay);

    /// The trainers there from the start (members that join during the run come after them).
    const std::vector<int>& starting() const { return starting_; }
    /// The run's data, complete: in a timing-only run the per-trainer index lists are built
    /// at the first call.
    const DataBundle& data() const;
    /// The data as loaded (a timing-only run: sizes only, no index lists).
    const std::shared_ptr<const DataBundle>& loaded() const { return data_; }
    std::int64_t samplesOf(int trainer) const;
    /// A trainer's sample indices (not in a timing-only run).
    const std::vector<std::int64_t>& part(int trainer) const;

    int serverOf(int node) const { return server_[static_cast<std::size_t>(node)]; }
    /// The trainers whose updates go to `aggregator` (empty: none).
    const std::vector<int>& trainersOf(int aggregator) const;
    bool serves(int aggregator) const { return trainersOf_.count(aggregator) > 0; }
    /// Member n joined the run: a trainer with an aggregator is served from now on.
    void join(int n);

private:
    const Scenario& scenario_;
    const Topology& topo_;
    std::vector<int> starting_;
    mutable std::shared_ptr<const DataBundle> data_;
    /// Timing-only data not yet expanded into index lists: every trainer holds this many
    /// samples (-1: data_ is complete).
    mutable std::int64_t uniformPart_ = -1;
    std::vector<int> trainerPart_;               ///< node index -> index into data_->parts (-1: none)
    std::vector<int> server_;                    ///< node index -> serverOf (-1: none)
    std::map<int, std::vector<int>> trainersOf_; ///< aggregator -> trainersOf
};

} // namespace fog
