#pragma once
// A policy's parameters as a run uses them: the values the scenario gives, the descriptor's
// defaults for the others. Resolved once, when the run is set up; policies never repeat a
// default.

#include "core/policies/policy_info.h"
#include "core/spec/scenario.h"

#include <cstdint>
#include <map>
#include <string>

namespace fog {

class PolicyParams {
public:
    PolicyParams() = default;
    /// Every parameter `info` declares, from `spec` where given, else its default. Keys
    /// `spec` holds that `info` does not declare are ignored (the validator reports them).
    PolicyParams(const PolicyInfo& info, const PolicySpec& spec);

    const std::string& policy() const { return policy_; }
    /// The value of a declared parameter; std::logic_error for a key the policy does not
    /// declare (a programming error: the descriptor and the code disagree).
    double get(const std::string& key) const;
    /// get(key) as an int (integer parameters are bounded by the validator).
    int integer(const std::string& key) const { return static_cast<int>(get(key)); }
    /// The scenario wrote this parameter (rather than leaving the default).
    bool given(const std::string& key) const { return given_.count(key) > 0; }
    bool declares(const std::string& key) const { return values_.count(key) > 0; }
    const std::map<std::string, double>& values() const { return values_; }
    /// A timed `policy` event (core/engine/timed_events.h): the parameter has a new value.
    /// One aggregator's own parameters in a tiered tree (core/policies/tiered.cpp): a policy
    /// made with them reads them, not the scenario's (PolicyContext::selectionParams), which
    /// timed `policy` events change.
    bool perAggregator() const { return perAggregator_; }
    void setPerAggregator() { perAggregator_ = true; }
    void set(const std::string& key, double value) {
        values_[key] = value;
        given_[key] = true;
        ++revision_;
    }
    /// Changes so far by set() (typed views re-read after one: core/policies/param_table.h).
    std::uint64_t revision() const { return revision_; }

private:
    bool perAggregator_ = false;
    std::uint64_t revision_ = 0;
    std::string policy_;
    std::map<std::string, double> values_;
    std::map<std::string, bool> given_;
};

} // namespace fog
