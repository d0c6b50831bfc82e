#include "core/policies/policy_params.h"

#include <stdexcept>

namespace fog {

PolicyParams::PolicyParams(const PolicyInfo& info, const PolicySpec& spec) : policy_(info.name) {
    for (const auto& p : info.params) {
        auto it = spec.params.find(p.key);
        if (it != spec.params.end()) {
            values_[p.key] = it->second;
            given_[p.key] = true;
        } else {
            values_[p.key] = p.defaultValue;
        }
    }
}

double PolicyParams::get(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end())
        throw std::logic_error("policy '" + policy_ + "' declares no parameter '" + key +
                               "' (add it to the policy's descriptor)");
    return it->second;
}

} // namespace fog
