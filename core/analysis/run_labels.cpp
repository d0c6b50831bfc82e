#include "core/analysis/run_labels.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <set>

namespace fog {

namespace {

void flatten(const YAML::Node& n, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
    if (n.IsMap()) {
        for (const auto& kv : n) {
            const std::string key = kv.first.as<std::string>("?");
            if (path.empty() && (key == "name" || key == "description" || key == "schema_version")) continue;
            flatten(kv.second, path.empty() ? key : path + "." + key, out);
        }
    } else if (n.IsSequence()) {
        // Short lists of scalars (hidden layer sizes) read best as one value.
        bool scalars = n.size() <= 8;
        for (const auto& item : n) scalars = scalars && item.IsScalar();
        if (scalars) {
            std::string v = "[";
            for (std::size_t i = 0; i < n.size(); ++i) v += (i ? "," : "") + n[i].as<std::string>("");
            out.emplace_back(path, v + "]");
            return;
        }
        for (std::size_t i = 0; i < n.size(); ++i) flatten(n[i], path + "[" + std::to_string(i) + "]", out);
    } else if (n.IsScalar()) {
        out.emplace_back(path, n.Scalar());
    } else {
        out.emplace_back(path, "null");
    }
}

std::string leafOf(const std::string& path) {
    const auto dot = path.find_last_of('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

} // namespace

std::vector<std::pair<std::string, std::string>> scenarioLeaves(const std::string& yaml) {
    std::vector<std::pair<std::string, std::string>> out;
    try {
        flatten(YAML::Load(yaml), "", out);
    } catch (const YAML::Exception&) {
        out.clear();
    }
    return out;
}

std::vector<std::string> differingLabels(const std::vector<std::string>& yamls, std::size_t maxParts) {
    std::vector<std::map<std::string, std::string>> values;
    std::vector<std::string> order; // keys in first-seen order (the file's order)
    std::set<std::string> seen;
    for (const auto& y : yamls) {
        std::map<std::string, std::string> m;
        for (auto& [k, v] : scenarioLeaves(y)) {
            if (seen.insert(k).second) order.push_back(k);
            m[k] = v;
        }
        values.push_back(std::move(m));
    }
    std::vector<std::string> differing;
    for (const auto& k : order) {
        const auto first = values.front().find(k);
        const bool hasA = first != values.front().end();
        bool same = true;
        for (const auto& m : values) {
            const auto it = m.find(k);
            const bool hasB = it != m.end();
            if (hasA != hasB || (hasA && it->second != first->second)) {
                same = false;
                break;
            }
        }
        if (!same) differing.push_back(k);
    }
    std::map<std::string, int> leafCount;
    for (const auto& k : differing) ++leafCount[leafOf(k)];
    std::vector<std::string> labels;
    for (const auto& m : values) {
        // Keys this scenario does not set are left out ("fully-sync", not "fully-sync
        // n=default"), unless nothing else would tell it apart.
        bool setsAny = false;
        for (const auto& k : differing) setsAny = setsAny || m.count(k) > 0;
        std::string label;
        std::size_t parts = 0;
        for (const auto& k : differing) {
            if (setsAny && !m.count(k)) continue;
            if (parts == maxParts) {
                label += " …";
                break;
            }
            const auto it = m.find(k);
            const std::string v = it == m.end() ? "default" : it->second;
            const std::string leaf = leafOf(k);
            const std::string name = leafCount[leaf] > 1 ? k : leaf;
            label += (parts ? " " : "") + (leaf == "policy" && it != m.end() ? v : name + "=" + v);
            ++parts;
        }
        labels.push_back(label);
    }
    return labels;
}

std::string scenarioNameOf(const std::string& yaml) {
    try {
        const YAML::Node root = YAML::Load(yaml);
        if (root.IsMap() && root["name"] && root["name"].IsScalar()) return root["name"].Scalar();
    } catch (const YAML::Exception&) {
    }
    return {};
}

std::vector<std::string> runLabels(const std::vector<RunLabelInput>& runs) {
    std::vector<std::string> yamls;
    for (const auto& r : runs) yamls.push_back(r.scenarioYaml);
    const std::vector<std::string> auto_ = differingLabels(yamls);
    std::vector<std::string> out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunLabelInput& r = runs[i];
        const std::string scenarioName = scenarioNameOf(r.scenarioYaml);
        // Names the programs give by themselves: the scenario's, and a sweep run's
        // "scenario [config] #repeat" (core/sweep).
        const bool sweepName = !r.sweepConfig.empty() &&
                               r.name == scenarioName + " [" + r.sweepConfig + "] #" + std::to_string(r.repeat);
        const bool renamed = !r.name.empty() && r.name != scenarioName && !sweepName;
        if (renamed) out.push_back(r.name);
        else if (!r.sweepConfig.empty()) out.push_back(r.sweepConfig + " r" + std::to_string(r.repeat));
        else if (!auto_[i].empty()) out.push_back(auto_[i]);
        else out.push_back(r.name);
    }
    return out;
}

} // namespace fog
