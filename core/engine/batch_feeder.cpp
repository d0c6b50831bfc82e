#include "core/engine/batch_feeder.h"

#include <algorithm>

namespace fog {

BatchFeeder::BatchFeeder(int nodes, bool trackSamples, std::function<std::int64_t(int)> partSize,
                         std::function<const Part&(int)> part, std::function<std::uint64_t(int)> streamSeed)
    : track_(trackSamples), partSize_(std::move(partSize)), part_(std::move(part)), seed_(std::move(streamSeed)),
      cursor_(static_cast<std::size_t>(nodes), kNotStarted) {
    if (track_) orders_.resize(static_cast<std::size_t>(nodes));
}

int BatchFeeder::take(int trainer, int size, std::vector<std::int64_t>* samples) {
    auto& cursor = cursor_[trainer];
    const auto length = static_cast<std::uint64_t>(partSize_(trainer));
    // A new epoch (the first one too: kNotStarted is past every part's end).
    if (cursor >= length) {
        cursor = 0;
        if (track_) {
            auto& o = orders_[trainer];
            if (!o) o = std::make_unique<Order>(Order{Rng(seed_(trainer)), {}});
            o->order = part_(trainer);
            o->rng.shuffle(o->order);
        }
    }
    const std::uint64_t n = std::min<std::uint64_t>(static_cast<std::uint64_t>(size), length - cursor);
    if (track_ && samples) {
        const auto& order = orders_[trainer]->order;
        samples->insert(samples->end(), order.begin() + static_cast<long>(cursor),
                        order.begin() + static_cast<long>(cursor + n));
    }
    cursor += n;
    return static_cast<int>(n);
}

} // namespace fog
