#pragma once
// Which trainers take part in a round. One interface, one file per policy, a name-keyed
// registry (selection_registry.cpp).

#include "core/engine/engine.h"

#include <memory>
#include <vector>

namespace fog {

class SelectionPolicy {
public:
    virtual ~SelectionPolicy() = default;
    /// Chooses among `candidates` (online, idle trainers of `aggregator`, ascending). The
    /// result is used in the order given.
    virtual std::vector<int> select(const Engine& e, int aggregator, int round,
                                    const std::vector<int>& candidates, Rng& rng) = 0;
    /// Called once when the run starts, before the first selection (planners report here).
    virtual void start(Engine& e) { (void)e; }
    /// What a trainer's last contribution showed (for utility-based policies).
    virtual void observe(int trainer, double loss, double seconds) {
        (void)trainer;
        (void)loss;
        (void)seconds;
    }
};

std::unique_ptr<SelectionPolicy> makeSelectionPolicy(const PolicySpec& spec, const Engine& e);

} // namespace fog
