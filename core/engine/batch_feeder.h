#pragma once
// Batch feeding: each trainer walks its local data in epochs, reshuffled from its own
// "data-order" stream at the start of every epoch; a batch never straddles two epochs (the
// last one of an epoch may be smaller). In a timing-only run (no model is trained) only the
// batch sizes matter, which do not depend on the order: no order is kept at all then.
// Otherwise a trainer's order and stream are created at its first batch.
//
// Threads: engine thread only.

#include "core/util/random.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace fog {

class BatchFeeder {
public:
    using Part = std::vector<std::int64_t>;
    /// `nodes` slots (indexed by node); `partSize(n)` is trainer n's sample count; `part(n)`
    /// its sample indices (called only when `trackSamples`); `streamSeed(n)` the seed of its
    /// data-order stream.
    BatchFeeder(int nodes, bool trackSamples, std::function<std::int64_t(int)> partSize,
                std::function<const Part&(int)> part, std::function<std::uint64_t(int)> streamSeed);

    /// Takes the next batch of at most `size` samples of `trainer`; appends their indices to
    /// `samples` when samples are tracked. Returns the batch's size.
    int take(int trainer, int size, std::vector<std::int64_t>* samples);
    /// Gives back the last batch taken (unused: the next one starts with it).
    void putBack(int trainer, int size) { cursor_[trainer] -= static_cast<std::uint64_t>(size); }
    /// Gives back an earlier batch after the later ones were given back; false (nothing
    /// changes) when it was taken before the current epoch began.
    bool putBackWithinEpoch(int trainer, int size) {
        auto& cursor = cursor_[trainer];
        if (cursor == kNotStarted || cursor < static_cast<std::uint64_t>(size)) return false;
        cursor -= static_cast<std::uint64_t>(size);
        return true;
    }

private:
    struct Order {
        Rng rng;
        Part order; ///< the current epoch's shuffled sample order
    };
    bool track_;
    std::function<std::int64_t(int)> partSize_;
    std::function<const Part&(int)> part_;
    std::function<std::uint64_t(int)> seed_;
    static constexpr std::uint64_t kNotStarted = UINT64_MAX;
    /// Position in the current epoch; an epoch starts when it reaches the part's size.
    std::vector<std::uint64_t> cursor_;
    std::vector<std::unique_ptr<Order>> orders_;
};

} // namespace fog
