#pragma once
// The learned cluster scheduler's network (after TapFinger, Li et al., INFOCOM 2023), behind a
// header without LibTorch: callers pass plain feature arrays and get actions back.
//
// One agent per edge cluster. At a decision point each agent in turn, repeatedly:
//   1. encodes the waiting tasks and every server (two MLPs), lets each task attend over all
//      tasks and servers (multi-head attention, one layer),
//   2. points at one waiting task or at "stop" (additive pointer attention, query = the
//      agent's context: its own servers, its learned agent embedding, global counters),
//   3. picks a server of its cluster for that task and an allocation level (the fraction of
//      the CPUs and GPUs between the task's minimum and what fits that it takes).
// Infeasible choices are masked out (tasks that fit none of the agent's servers, tasks another
// agent already took, servers without room). A centralised critic values the global state.
// Trained with advantage actor-critic on whole episodes (cluster_training.h).

#include "core/util/random.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fog::cluster {

struct PolicyObservation {
    int agent = 0;
    int tasks = 0;   ///< rows of taskFeatures
    int servers = 0; ///< rows of serverFeatures (all servers, own cluster flagged)
    std::vector<float> taskFeatures;   ///< tasks x kTaskFeatures
    std::vector<float> serverFeatures; ///< servers x kServerFeatures
    std::vector<float> globalFeatures; ///< kGlobalFeatures
    std::vector<std::uint8_t> taskMask;  ///< tasks: the agent may choose it
    std::vector<std::uint8_t> placeMask; ///< tasks x servers: the task's minimum fits there (own cluster only)
    bool stopAllowed = true; ///< false: the agent must start a task (its cluster would stay idle)
};

struct PolicyAction {
    bool stop = true;
    int task = -1;   ///< row in the observation
    int server = -1; ///< index among all servers
    int level = 0;   ///< 0 .. kLevels-1
};

struct PolicyUpdateStats {
    double policyLoss = 0, valueLoss = 0, entropy = 0;
    int actions = 0;
    bool skipped = false; ///< the loss was not finite: no step taken
};

class ClusterPolicy {
public:
    static constexpr int kTaskFeatures = 8;
    static constexpr int kServerFeatures = 6;
    static constexpr int kGlobalFeatures = 4;
    static constexpr int kLevels = 4;

    /// A fresh policy with weights drawn from `seed` (LibTorch's global generator is seeded:
    /// build policies on one thread).
    ClusterPolicy(int agents, std::uint64_t seed, int embed = 32);
    ~ClusterPolicy();
    ClusterPolicy(const ClusterPolicy&) = delete;
    ClusterPolicy& operator=(const ClusterPolicy&) = delete;

    int agents() const;
    int embed() const;

    /// Chooses an action: sampled with `rng` when `sample`, else the most likely one. While
    /// recording, keeps what the update needs (log-probability, entropy, value).
    PolicyAction act(const PolicyObservation& o, bool sample, Rng& rng);
    void setRecording(bool on);
    void clearRecording();
    /// One actor-critic step over the recorded actions with their discounted returns
    /// (same order and count); clears the recording.
    PolicyUpdateStats update(const std::vector<double>& returns, double learningRate, double entropyWeight);
    /// The same with a baseline per action (e.g. the mean return of other rollouts of the same
    /// arrivals at that instant): advantage = return - baseline, normalised over the batch;
    /// the critic is still fitted to the returns. Empty `baselines`: the critic's values.
    PolicyUpdateStats update(const std::vector<double>& returns, const std::vector<double>& baselines,
                             double learningRate, double entropyWeight);

    /// The weights and shape as bytes (LibTorch archive) and back; load throws
    /// std::runtime_error naming the problem.
    std::string serialize() const;
    static std::unique_ptr<ClusterPolicy> deserialize(const std::string& bytes, const std::string& label);
    /// Atomic: written beside `path` and renamed over it (the old file stays whole on a kill).
    void save(const std::string& path) const;
    /// Only a regular file of at most kMaxPolicyBytes; its agents and width within limits.
    static std::unique_ptr<ClusterPolicy> load(const std::string& path);
    /// "" when save(path) can write there (checked before a training spends its time), else why.
    static std::string checkWritable(const std::string& path);
    static constexpr std::uint64_t kMaxPolicyBytes = std::uint64_t(64) << 20;
    static constexpr std::int64_t kMaxPolicyAgents = 10000;
    static constexpr std::int64_t kMaxPolicyEmbed = 4096;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace fog::cluster
