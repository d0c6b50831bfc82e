#include "core/scenario/progress_check.h"

#include "core/policies/policy_descriptor.h"
#include "core/policies/tiered.h"
#include "core/scenario/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <unordered_map>

namespace fog {

namespace {

/// Most trainers named one by one; the rest are counted in one more problem.
constexpr int kMaxNamed = 20;

/// A node or a group as one vertex of the parent graph (group members share parent and role).
struct Vertex {
    std::string path;
    int line = 0;
    std::string id;
    bool group = false;
    int count = 1;
    Role role = Role::Trainer;
    std::string parent;
    int parentVertex = -1; ///< -1: a root; -2: the parent does not resolve
};

bool trains(Role r) {
    return roleTrains(r);
}
bool aggregates(Role r) {
    return roleAggregates(r);
}

/// Problems the validator already reported that make the shape meaningless to judge.
bool structureIsBroken(const std::vector<Diagnostic>& problems) {
    auto endsWith = [](const std::string& s, const char* tail) {
        const std::string t(tail);
        return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
    };
    for (const auto& d : problems) {
        const std::string& p = d.path;
        if (p == "topology" || p.rfind("sync", 0) == 0 || endsWith(p, ".parent") ||
            endsWith(p, ".role") || endsWith(p, ".id") || endsWith(p, ".count") || p.empty())
            return true;
    }
    return false;
}

class ShapeCheck {
  public:
    ShapeCheck(const Scenario& s, std::vector<Diagnostic>& out)
        : s_(s), out_(out), file_(s.sourcePath.empty() ? "<scenario>" : s.sourcePath) {}

    void run() {
        const PolicyInfo* info = findSyncPolicy(s_.sync.name);
        if (!info || isTiered(s_.topology)) return; // tiered trees: core/scenario/tier_check.h
        collect();
        if (!resolveAggregators()) return;

        std::vector<int> roots;
        int rootMembers = 0;
        for (std::size_t v = 0; v < vs_.size(); ++v)
            if (aggregates(vs_[v].role) && above_[v] == -1) {
                roots.push_back(static_cast<int>(v));
                rootMembers += static_cast<int>(members_[v]);
            }
        if (roots.empty()) return; // "has no aggregator": the validator's message

        const std::string policy = s_.sync.name;
        switch (info->shape) {
        case TreeShape::SingleServer: {
            // Every trainer reports to the one server; aggregators below it relay. Only a
            // selection that plans one level of workers (the ToN planner) uses just the
            // trainers right under the server.
            const SelectionPolicyDescriptor* sel = findSelectionDescriptor(s_.selection.name);
            if (rootMembers != 1 || !sel || sel->serverTrainersOnly.empty()) return;
            const int root = roots.front();
            const std::string server = memberName(root);
            for (std::size_t v = 0; v < vs_.size(); ++v) {
                if (!isTrainer(v) || above_[v] == root) continue;
                refuse(static_cast<int>(v),
                       std::string(vs_[v].group ? "members report" : "reports") + " to aggregator '" +
                           aggregatorName(static_cast<int>(v)) +
                           "', but selection policy " + s_.selection.name + " " + sel->serverTrainersOnly +
                           " '" + server + "', so " +
                           (vs_[v].group ? "these trainers" : "this trainer") +
                           " would never train. Set parent: " + server);
            }
            break;
        }
        case TreeShape::EdgeGroups: {
            if (rootMembers != 1) {
                std::vector<std::string> names;
                for (int r : roots)
                    names.push_back(memberName(r));
                error("sync.policy", s_.sync.line,
                      policy + " needs exactly one root aggregator (the cloud that averages "
                      "the edges), found " + std::to_string(rootMembers) + ": " +
                          joinNames(names) + "; use model-averaging for several regions");
                return;
            }
            const int root = roots.front();
            bool anyUsed = false;
            for (std::size_t v = 0; v < vs_.size(); ++v) {
                if (!isTrainer(v)) continue;
                const int a = above_[v];
                if (a == root || above_[static_cast<std::size_t>(a)] == root) {
                    anyUsed = true;
                    continue;
                }
                refuse(static_cast<int>(v),
                       std::string(vs_[v].group ? "members report" : "reports") +
                           " to aggregator '" + aggregatorName(static_cast<int>(v)) +
                           "', two or more levels below the cloud '" + memberName(root) +
                           "': sync policy " + policy + " aggregates devices at the edges right "
                           "under the cloud (and devices right under the cloud), so " +
                           (vs_[v].group ? "these trainers" : "this trainer") +
                           " would never train. Attach " + (vs_[v].group ? "them" : "it") +
                           " to an edge aggregator whose parent is '" + memberName(root) + "'");
            }
            if (!anyUsed && named_ == 0)
                error("sync.policy", s_.sync.line,
                      policy + " finds no trainer under the cloud or its edge aggregators");
            break;
        }
        case TreeShape::Regions:
            for (std::size_t v = 0; v < vs_.size(); ++v) {
                if (!isTrainer(v)) continue;
                const int a = above_[v];
                if (above_[static_cast<std::size_t>(a)] == -1) continue; // right under a region
                refuse(static_cast<int>(v),
                       std::string(vs_[v].group ? "members report" : "reports") +
                           " to aggregator '" + aggregatorName(static_cast<int>(v)) +
                           "', which is below another aggregator: sync policy " + policy +
                           " uses the trainers right under each regional server (a root "
                           "aggregator), so " + (vs_[v].group ? "these trainers" : "this trainer") +
                           " would never train. Attach " + (vs_[v].group ? "them" : "it") +
                           " to a regional server");
            }
            break;
        }
        if (unnamed_ > 0)
            error("sync.policy", s_.sync.line,
                  "and " + std::to_string(unnamed_) +
                      " more nodes or groups of trainers that sync policy " + policy +
                      " would never use (see docs/emulator.md, 'Which trainers a policy uses')");
    }

  private:
    void error(const std::string& path, int line, const std::string& message) {
        out_.push_back({file_, line, 0, path, message});
    }
    void refuse(int v, const std::string& message) {
        if (named_ >= kMaxNamed) {
            ++unnamed_;
            return;
        }
        ++named_;
        const Vertex& x = vs_[static_cast<std::size_t>(v)];
        error(x.path + ".parent", x.line, message);
    }
    bool isTrainer(std::size_t v) const { return trains(vs_[v].role) && above_[v] >= 0; }
    std::string memberName(int v) const {
        const Vertex& x = vs_[static_cast<std::size_t>(v)];
        const bool nested = x.group && groups_.count(x.parent) > 0;
        return x.group ? (x.count == 1 && !nested ? x.id + "-0" : "group " + x.id) : x.id;
    }
    /// The aggregator a trainer vertex reports to, named as the file names it where possible.
    std::string aggregatorName(int v) const {
        const Vertex& x = vs_[static_cast<std::size_t>(v)];
        const int a = above_[static_cast<std::size_t>(v)];
        if (x.parentVertex == a) return x.parent;
        return memberName(a);
    }

    void collect() {
        const TopologySpec& t = s_.topology;
        // Nodes first, then groups, as the file lists them.
        for (const bool groups : {false, true})
            for (std::size_t i = 0; i < t.nodes.size(); ++i) {
                const NodeSpec& n = t.nodes[i];
                if (n.group != groups) continue;
                vs_.push_back(
                    {t.pathOf(i), n.line, n.id, n.group, n.group ? n.count : 1, n.role, n.parent});
                (n.group ? groups_ : nodes_).emplace(n.id, static_cast<int>(vs_.size() - 1));
            }
        // A group under a group sits under each of its members: a vertex of count x members.
        for (auto& v : vs_) {
            if (v.parent.empty()) {
                v.parentVertex = -1;
            } else if (auto g = groups_.find(v.parent); v.group && g != groups_.end()) {
                v.parentVertex = g->second;
            } else {
                v.parentVertex = resolve(v.parent);
            }
        }
        for (std::size_t i = 0; i < vs_.size(); ++i) {
            // Along a chain of nested groups (cycles were refused by the validator; the step
            // limit only guards against them).
            long long members = vs_[i].count;
            const Vertex* v = &vs_[i];
            for (std::size_t steps = 0; v->group && groups_.count(v->parent) && steps < vs_.size();
                 ++steps) {
                v = &vs_[static_cast<std::size_t>(v->parentVertex)];
                members = std::min(members * v->count, 1LL << 40);
            }
            members_.push_back(members);
        }
    }

    /// The vertex holding node `id`: a node, or a group member `<group>-<k>` (nested:
    /// `<group>-<i>-<k>`, one index per level).
    int resolve(const std::string& id) const {
        if (auto it = nodes_.find(id); it != nodes_.end()) return it->second;
        for (std::size_t dash = id.rfind('-'); dash != std::string::npos && dash > 0;
             dash = id.rfind('-', dash - 1)) {
            const std::string tail = id.substr(dash + 1, id.find('-', dash + 1) - dash - 1);
            if (tail.empty() || tail.size() > 9 ||
                !std::all_of(tail.begin(), tail.end(),
                             [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
                break;
            auto it = groups_.find(id.substr(0, dash));
            if (it != groups_.end()) return it->second;
        }
        return -2;
    }

    /// above_[v]: nearest aggregating ancestor vertex, -1 none. False when a chain breaks
    /// (an unknown parent or a cycle, which the validator reports). Relays (and trainers with
    /// children) are passed through: a trainer under a relay reports to the aggregator above.
    bool resolveAggregators() {
        const std::size_t n = vs_.size();
        above_.assign(n, -3); // -3: not computed yet
        std::vector<char> onWalk(n, 0);
        for (std::size_t start = 0; start < n; ++start) {
            std::vector<int> chain;
            int x = static_cast<int>(start);
            int result = -1;
            while (true) {
                if (above_[static_cast<std::size_t>(x)] != -3) {
                    result = above_[static_cast<std::size_t>(x)];
                    break;
                }
                if (onWalk[static_cast<std::size_t>(x)]) return false; // a cycle
                onWalk[static_cast<std::size_t>(x)] = 1;
                chain.push_back(x);
                const int p = vs_[static_cast<std::size_t>(x)].parentVertex;
                if (p == -2) return false;
                if (p == -1) {
                    result = -1;
                    break;
                }
                if (aggregates(vs_[static_cast<std::size_t>(p)].role)) {
                    result = p;
                    break;
                }
                x = p;
            }
            // Every vertex of the walk has the same nearest aggregating ancestor.
            for (int m : chain) {
                above_[static_cast<std::size_t>(m)] = result;
                onWalk[static_cast<std::size_t>(m)] = 0;
            }
        }
        return true;
    }

    const Scenario& s_;
    std::vector<Diagnostic>& out_;
    std::string file_;
    std::vector<Vertex> vs_;
    std::unordered_map<std::string, int> nodes_, groups_;
    std::vector<long long> members_; ///< per vertex: nodes it stands for
    std::vector<int> above_;
    int named_ = 0;
    int unnamed_ = 0;
};

} // namespace

std::vector<Diagnostic> addProgressProblems(const Scenario& s, std::vector<Diagnostic> problems) {
    if (structureIsBroken(problems)) return problems;
    ShapeCheck(s, problems).run();
    return problems;
}

} // namespace fog
