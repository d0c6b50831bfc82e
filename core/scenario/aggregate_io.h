#pragma once
// `aggregate:` of a node or group entry (NodeSpec::aggregate, core/policies/tiered.h):
// {sync: name, selection: name, local_steps: n, rounds: n, <parameter>: number, ...}. The
// parameter keys depend on the policies, so they are only type-checked here; the validator
// resolves them (core/scenario/tier_check.h).

#include "core/scenario/yaml_reader.h"
#include "core/spec/scenario.h"

#include <string>

namespace fog {

void readAggregate(YamlContext& ctx, const YAML::Node& n, const std::string& path, NodeSpec& node);
/// Writes the map (key and value) in the order above, parameters by name.
void emitAggregate(YAML::Emitter& out, const AggregateSpec& a);

} // namespace fog
