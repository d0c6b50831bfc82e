// `--set key.path=value` on a YAML tree, before it is read (core/scenario/yaml_set.h).

#include "core/scenario/yaml_set.h"

#include "core/scenario/yaml_reader.h"

#include <string>
#include <vector>

namespace fog {

std::string splitPath(const std::string& path, std::vector<PathStep>& steps) {
    steps.clear();
    std::size_t i = 0;
    while (i <= path.size()) {
        const std::size_t end = path.find_first_of(".[", i);
        const std::string key =
            path.substr(i, end == std::string::npos ? std::string::npos : end - i);
        if (key.empty() || key.find(']') != std::string::npos)
            return "'" + path + "' is not a key path like a.b.c or a.list[2].key";
        steps.push_back({key, -1});
        i = end;
        while (i != std::string::npos && path[i] == '[') {
            const std::size_t close = path.find(']', i);
            const std::string digits =
                close == std::string::npos ? "" : path.substr(i + 1, close - i - 1);
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
                digits.size() > 9)
                return "'" + path + "' has a bad list index; write a.list[2].key";
            steps.push_back({"", std::stol(digits)});
            i = close + 1;
            if (i == path.size()) i = std::string::npos;
        }
        if (i == std::string::npos) return {};
        if (path[i] != '.') return "'" + path + "' is not a key path like a.b.c or a.list[2].key";
        ++i;
    }
    return "'" + path + "' ends with '.'";
}

std::string stepsPath(const std::vector<PathStep>& steps, std::size_t count) {
    // Appended in place (childPath / itemPath spelling): linear in the path's length.
    std::string p;
    for (std::size_t i = 0; i < count; ++i) {
        if (steps[i].index >= 0) {
            p += "[" + std::to_string(steps[i].index) + "]";
        } else {
            if (!p.empty()) p += '.';
            p += steps[i].key;
        }
    }
    return p;
}

namespace {

/// Sets steps[i..] below `node` to `value`. Missing map keys are created; `created` gets the
/// path of the outermost node that did not exist before (or the whole path when replacing).
/// Nodes are passed by value: a YAML::Node copy shares the tree, whereas assigning one node to
/// another would overwrite the tree in place.
std::string setAt(YAML::Node node, const std::vector<PathStep>& steps, std::size_t i,
                  const YAML::Node& value, std::string& created, const SetOptions& options) {
    const PathStep& step = steps[i];
    const bool last = i + 1 == steps.size();
    // The path so far, only for a message: built at every level it made a long path
    // (10,000 parts) quadratic.
    const auto what = [&] {
        const std::string here = stepsPath(steps, i);
        return here.empty() ? std::string("the scenario") : "'" + here + "'";
    };
    if (step.index >= 0) {
        if (!node.IsSequence()) return what() + " is " + describeNode(node) + ", not a list";
        const std::size_t index = static_cast<std::size_t>(step.index);
        if (options.appendItems && index == node.size()) { // the next item: appended
            if (!last) return "'" + stepsPath(steps, i + 1) + "' does not exist; set the whole item first";
            node.push_back(value);
            created = stepsPath(steps, steps.size());
            return {};
        }
        if (index >= node.size())
            return options.appendItems
                       ? what() + " has " + std::to_string(node.size()) + " items (indexes from 0), so [" +
                             std::to_string(step.index) + "] cannot be set"
                       : what() + " has " + std::to_string(node.size()) + " entries; index " +
                             std::to_string(step.index) + " is out of range";
        if (last) {
            node[static_cast<std::size_t>(step.index)] = value;
            created = stepsPath(steps, steps.size());
            return {};
        }
        return setAt(node[static_cast<std::size_t>(step.index)], steps, i + 1, value, created, options);
    }
    if (!node.IsMap()) return what() + " is " + describeNode(node) + ", not a map";
    const YAML::Node& constNode = node; // const lookup: does not insert the key
    const YAML::Node child = constNode[step.key];
    if (last || !child.IsDefined() || child.IsNull()) {
        // Build what is missing below here as nested maps, outermost first: each new map
        // joins the chain's memory alone (yaml-cpp merges a node's whole memory into the
        // tree it is assigned to, so built innermost first every level merged the chain below
        // it again: a path of 10,000 parts took 40 s).
        for (std::size_t j = i + 1; j < steps.size(); ++j)
            if (steps[j].index >= 0)
                return "'" + stepsPath(steps, j) + "' does not exist, so it has no index " +
                       std::to_string(steps[j].index);
        if (last) {
            node[step.key] = value;
        } else {
            YAML::Node top(YAML::NodeType::Map);
            YAML::Node at = top;
            for (std::size_t j = i + 1; j + 1 < steps.size(); ++j) {
                YAML::Node next(YAML::NodeType::Map);
                at[steps[j].key] = next;
                at.reset(next); // rebind; `at = next` would overwrite the node `at` refers to
            }
            at[steps.back().key] = value;
            node[step.key] = top;
        }
        created = stepsPath(steps, i + 1);
        return {};
    }
    if (i == 0 && child.IsScalar()) {
        const auto shortForm = options.shortForms.find(step.key);
        if (shortForm != options.shortForms.end()) {
            // `scheduler: fifo` is short for `scheduler: {name: fifo}`: expanded, so that one of
            // the map's other keys can be set while the value is kept.
            YAML::Node map(YAML::NodeType::Map);
            map[shortForm->second] = child.Scalar();
            node[step.key] = map;
            YAML::Node expanded;
            expanded.reset(node[step.key]);
            return setAt(expanded, steps, i + 1, value, created, options);
        }
    }
    return setAt(child, steps, i + 1, value, created, options);
}

} // namespace

void applyOverride(YAML::Node& root, const Override& o, std::vector<Diagnostic>& errors,
                   std::vector<std::string>& touched, const SetOptions& options) {
    std::vector<PathStep> steps;
    if (std::string bad = splitPath(o.path, steps); !bad.empty()) {
        errors.push_back({kSetLabel, 0, 0, o.path, bad});
        return;
    }
    YAML::Node value;
    try {
        value = YAML::Load(o.value);
    } catch (const YAML::Exception& e) {
        errors.push_back(
            {kSetLabel, 0, 0, o.path, "value '" + o.value + "' is not valid YAML: " + e.msg});
        return;
    }
    if (!root.IsDefined() || root.IsNull()) root.reset(YAML::Node(YAML::NodeType::Map));
    std::string created;
    if (std::string bad = setAt(root, steps, 0, value, created, options); !bad.empty()) {
        errors.push_back({kSetLabel, 0, 0, o.path, "cannot be set: " + bad});
        return;
    }
    touched.push_back(created);
}

} // namespace fog
