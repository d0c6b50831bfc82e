#pragma once
// Which trainers take part in a round. One interface, one file per policy, each with its
// descriptor (core/policies/policy_descriptor.h).

#include "core/policies/param_table.h"
#include "core/policies/policy_context.h"
#include "core/util/random.h"

#include <memory>
#include <optional>
#include <vector>

namespace fog {

class SelectionPolicy {
public:
    virtual ~SelectionPolicy() = default;
    /// Chooses among `candidates` (online, idle trainers of `aggregator`, ascending). The
    /// result is used in the order given.
    virtual std::vector<int> select(const SystemView& e, int aggregator, int round,
                                    const std::vector<int>& candidates, Rng& rng) = 0;
    /// Called once when the run starts, before the first selection (planners report here);
    /// after the pilot phase if one of the policies asked for one.
    virtual void start(PolicyContext& e) { (void)e; }
    /// Prices, availability or throughput changed (timed events, trace rows, nodes going
    /// offline or online), once per instant after its events: a planner may re-plan here.
    virtual void onOffersChanged(PolicyContext& e) { (void)e; }
    /// A pilot phase to run before start() (calibrated planners; none by default).
    virtual PilotRequest pilotRequest(const SystemView& e) const {
        (void)e;
        return {};
    }
    /// What a trainer's last contribution showed (for utility-based policies).
    virtual void observe(int trainer, double loss, double seconds) {
        (void)trainer;
        (void)loss;
        (void)seconds;
    }
};

/// A selection policy's typed parameters read at each use (timed `policy` events change the
/// scenario's), from a tiered aggregator's own parameters when the policy was made with them
/// (PolicyParams::perAggregator), else from the run's (PolicyContext::selectionParams).
template <typename Settings> class SelectionSettings {
public:
    SelectionSettings(const ParamTable<Settings>& table, const PolicyParams& made) : live_(table) {
        if (made.perAggregator()) own_ = made;
    }
    const Settings& of(const SystemView& e) const { return live_.of(own_ ? *own_ : e.selectionParams()); }

private:
    std::optional<PolicyParams> own_;
    LiveParams<Settings> live_;
};

/// Builds the policy `spec` names, its parameters resolved by its descriptor. Throws
/// EngineError for an unknown name or a plan that cannot be made.
std::unique_ptr<SelectionPolicy> makeSelectionPolicy(const PolicySpec& spec, const SystemView& e);

} // namespace fog
