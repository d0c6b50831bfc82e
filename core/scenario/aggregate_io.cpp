#include "core/scenario/aggregate_io.h"

namespace fog {

namespace {
int lineAt(const YAML::Node& n) {
    return n.Mark().line >= 0 ? n.Mark().line + 1 : 0;
}
} // namespace

void readAggregate(YamlContext& ctx, const YAML::Node& n, const std::string& path, NodeSpec& node) {
    MapReader m(ctx, n, path);
    if (!m.valid()) return;
    AggregateSpec a;
    a.line = lineAt(n);
    m.get("sync", a.sync);
    m.get("selection", a.selection);
    m.get("local_steps", a.localSteps);
    m.get("rounds", a.rounds);
    m.get("server_optimizer", a.serverOptimizer);
    for (const auto& key : m.remainingKeys()) {
        double v = 0.0;
        const YAML::Node value = m.node(key);
        if (!readValue(ctx, value, m.pathOf(key), v)) continue;
        a.params[key] = v;
        a.paramLines[key] = lineAt(value);
    }
    node.aggregate = std::move(a);
}

void emitAggregate(YAML::Emitter& out, const AggregateSpec& a) {
    out << YAML::Key << "aggregate" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (!a.sync.empty()) out << YAML::Key << "sync" << YAML::Value << a.sync;
    if (!a.selection.empty()) out << YAML::Key << "selection" << YAML::Value << a.selection;
    for (const auto& [key, v] : a.params) out << YAML::Key << key << YAML::Value << formatNumber(v);
    if (a.localSteps != 0) out << YAML::Key << "local_steps" << YAML::Value << a.localSteps;
    if (a.rounds != 1) out << YAML::Key << "rounds" << YAML::Value << a.rounds;
    if (!a.serverOptimizer.empty()) out << YAML::Key << "server_optimizer" << YAML::Value << a.serverOptimizer;
    out << YAML::EndMap;
}

} // namespace fog
