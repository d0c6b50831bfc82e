#include "core/analysis/run_labels.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
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

/// A long decimal as a label shows it: 4 significant digits (19.20613249937777 -> 19.21).
std::string shortNumber(const std::string& v) {
    if (v.size() <= 7 || v.find_first_not_of("0123456789.-+eE") != std::string::npos) return v;
    if (v.find('.') == std::string::npos && v.find_first_of("eE") == std::string::npos) return v; // an integer
    try {
        std::size_t used = 0;
        const double x = std::stod(v, &used);
        if (used != v.size()) return v;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.4g", x);
        return buf;
    } catch (const std::exception&) {
        return v;
    }
}

/// The leaves of an `events` list as one leaf "events" whose value reads as the events do
/// ("link edge up=2 at 19.21 s; offline phones fraction=0.5 at 30 s"); the others as they are.
std::vector<std::pair<std::string, std::string>> withEventsSummarised(
    const std::vector<std::pair<std::string, std::string>>& leaves) {
    std::vector<std::pair<std::string, std::string>> out;
    std::map<int, std::vector<std::pair<std::string, std::string>>> events;
    bool any = false;
    for (const auto& [k, v] : leaves) {
        if (k.rfind("events[", 0) != 0) {
            out.emplace_back(k, v);
            continue;
        }
        const auto close = k.find(']');
        if (close == std::string::npos) continue;
        const int i = std::atoi(k.c_str() + 7);
        const std::string rest = close + 2 <= k.size() ? k.substr(close + 2) : std::string();
        if (!any) out.emplace_back("events", ""); // keeps the list's place in the file's order
        any = true;
        events[i].emplace_back(rest, v);
    }
    if (!any) return out;
    std::string text;
    for (const auto& [i, fields] : events) {
        std::string when, what;
        for (const auto& [k, v] : fields) {
            if (k == "after_event") continue;
            if (k == "at") {
                when = " at " + shortNumber(v) + " s";
                continue;
            }
            if (k.rfind("when.", 0) == 0) {
                when += " when " + k.substr(5) + "=" + shortNumber(v);
                continue;
            }
            const auto dot = k.find('.');
            const std::string action = dot == std::string::npos ? k : k.substr(0, dot);
            const std::string field = dot == std::string::npos ? std::string() : k.substr(dot + 1);
            if (what.empty() || what.rfind(action, 0) != 0) what += (what.empty() ? "" : " ") + action;
            if (field == "id" || field == "from" || field == "group" || field.empty()) what += " " + shortNumber(v);
            else if (field == "to") what += "->" + v;
            else what += " " + field + "=" + shortNumber(v);
        }
        text += (text.empty() ? "" : "; ") + what + when;
    }
    for (auto& [k, v] : out)
        if (k == "events") v = text;
    return out;
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
        for (auto& [k, v] : withEventsSummarised(scenarioLeaves(y))) {
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
            const std::string leaf = leafOf(k);
            if (k == "events") { // the events themselves, or that there are none
                label += (parts ? " " : "") + (it == m.end() ? std::string("no events") : it->second);
                ++parts;
                continue;
            }
            const std::string v = it == m.end() ? "default" : shortNumber(it->second);
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
        // The studio names a run "title #n" (studioRunName): automatic too.
        const bool studioName = isStudioRunName(r.name, scenarioName);
        const bool renamed = !r.name.empty() && r.name != scenarioName && !sweepName && !studioName;
        if (renamed) out.push_back(r.name);
        else if (!r.sweepConfig.empty()) out.push_back(shortConfigLabel(r.sweepConfig) + " r" + std::to_string(r.repeat));
        else if (!auto_[i].empty()) out.push_back(auto_[i]);
        else out.push_back(r.name);
    }
    return out;
}

std::string shortConfigLabel(const std::string& config) {
    std::vector<std::string> words;
    std::string word;
    for (char c : config) {
        if (c == ' ') {
            if (!word.empty()) words.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) words.push_back(word);
    std::map<std::string, int> leafCount;
    for (const auto& w : words)
        if (const auto eq = w.find('='); eq != std::string::npos && eq > 0) ++leafCount[leafOf(w.substr(0, eq))];
    std::string out;
    for (const auto& w : words) {
        std::string part = w;
        if (const auto eq = w.find('='); eq != std::string::npos && eq > 0) {
            const std::string path = w.substr(0, eq), value = shortNumber(w.substr(eq + 1)), leaf = leafOf(path);
            part = leaf == "policy" ? value : (leafCount[leaf] > 1 ? path : leaf) + "=" + value;
        }
        out += (out.empty() ? "" : " ") + part;
    }
    return out;
}

std::vector<std::vector<std::size_t>> configurationGroups(const std::vector<RunLabelInput>& runs) {
    std::vector<std::vector<std::size_t>> groups;
    std::map<std::pair<std::int64_t, std::string>, std::size_t> index;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunLabelInput& r = runs[i];
        if (r.sweepId > 0 && !r.sweepConfig.empty()) {
            const auto key = std::make_pair(r.sweepId, r.sweepConfig);
            const auto it = index.find(key);
            if (it != index.end()) {
                groups[it->second].push_back(i);
                continue;
            }
            index[key] = groups.size();
        }
        groups.push_back({i});
    }
    return groups;
}

namespace {

/// "title #12" -> ("title", 12); false for other names.
bool splitNumbered(const std::string& name, std::string& title, long& number) {
    const auto hash = name.rfind(" #");
    if (hash == std::string::npos || hash == 0 || hash + 2 >= name.size()) return false;
    const std::string digits = name.substr(hash + 2);
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    title = name.substr(0, hash);
    number = std::atol(digits.c_str());
    return true;
}

bool untitled(const std::string& scenarioName) { return scenarioName.empty() || scenarioName == "untitled"; }

} // namespace

std::string runTitle(const std::string& scenarioName, const std::string& fileStem) {
    return !untitled(scenarioName) ? scenarioName : !fileStem.empty() ? fileStem : "scenario";
}

std::string studioRunName(const std::string& scenarioName, const std::string& fileStem,
                          const std::vector<std::string>& storedNames) {
    const std::string title = runTitle(scenarioName, fileStem);
    long highest = 0;
    for (const auto& n : storedNames) {
        std::string t;
        long k = 0;
        if (splitNumbered(n, t, k) && t == title) highest = std::max(highest, k);
    }
    return title + " #" + std::to_string(highest + 1);
}

bool isStudioRunName(const std::string& name, const std::string& scenarioName) {
    std::string title;
    long k = 0;
    if (!splitNumbered(name, title, k)) return false;
    return title == scenarioName || untitled(scenarioName);
}

} // namespace fog
