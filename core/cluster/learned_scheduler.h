#pragma once
// The learned scheduler (TapFinger-style multi-agent actor-critic, cluster_policy_net.h) as a
// ClusterScheduler, and its training on generated episodes.

#include "core/cluster/cluster_emulator.h"
#include "core/model/cluster_policy_net.h"

#include <atomic>
#include <functional>
#include <memory>

namespace fog::cluster {

class LearnedScheduler : public ClusterScheduler {
public:
    /// `training`: sample actions and record them for an update; else act greedily.
    LearnedScheduler(std::shared_ptr<ClusterPolicy> policy, const ClusterScenario& s, bool training);
    std::string name() const override { return "learned"; }
    void beginEpisode(const ClusterScenario& s, std::uint64_t seed) override;
    Decision decide(const SchedulingView& v) override;
    void endEpisode(double time) override;

    /// After a training episode: the discounted return of each recorded action, where the
    /// reward is minus the number of tasks in the system integrated over time (so the
    /// undiscounted sum is minus the total completion time), divided by `scale`, and the
    /// discount is gamma per step of virtual time.
    std::vector<double> returns(double gamma, double scale) const;
    /// The discounted return from any virtual time to the end of the last episode, with the
    /// reward and scale of returns() (discounted from each interval's start): what rollouts
    /// of the same arrivals are compared against at an instant (the input-driven baseline).
    struct ReturnCurve {
        std::vector<double> from, to, reward, suffix;
        double gamma = 1;
        double at(double t) const;
    };
    ReturnCurve returnCurve(double gamma, double scale) const;
    /// Training: a different sampling stream for rollouts of the same seed (0: the default).
    void setSamplingStream(std::uint64_t stream) { stream_ = stream; }
    /// Virtual times of the actions recorded in the last training episode.
    const std::vector<double>& actionTimes() const { return actionTimes_; }
    ClusterPolicy& policy() { return *policy_; }

private:
    std::shared_ptr<ClusterPolicy> policy_;
    bool training_;
    Rng rng_{1};
    std::uint64_t stream_ = 0;
    int decisions_ = 0;
    double endTime_ = 0;
    std::vector<double> actionTimes_;
    struct Point {
        double time;
        int inSystem;
    };
    std::vector<Point> points_;
};

struct TrainProgress {
    int episode = 0;
    double meanCompletion = 0; ///< of this (sampled) training episode
    double episodeReward = 0;  ///< minus total completion time / tasks
    PolicyUpdateStats stats;
    double wallSeconds = 0;    ///< since training started
    double validation = -1;    ///< greedy mean completion on the validation seeds, when measured (< 0: not this episode)
};

struct TrainOptions {
    int episodes = 50; ///< training episodes (rollouts) in all
    /// Rollouts of one generated arrival sequence per update. With more than one, each
    /// action's advantage is its return minus the mean return of the other rollouts at the
    /// same virtual time (an input-driven baseline, after Mao et al., Decima, SIGCOMM 2019):
    /// the arrivals' randomness, which dwarfs the effect of one action, cancels out. With 1,
    /// the critic's value is the baseline (plain advantage actor-critic).
    int rolloutsPerUpdate = 4;
    std::uint64_t seed = 1;
    double learningRate = 2e-3;
    double entropyWeight = 0.01;
    double gamma = 0.95;
    double rewardScale = 20.0;
    int embed = 32;
    /// Stop early after this many wall seconds (0: no limit); the curve says how far it got.
    double maxWallSeconds = 0;
    /// Every this many episodes (and after the last), the greedy policy runs on
    /// `validationEpisodes` seeds of its own; the best policy so far is what training returns
    /// (actor-critic training can collapse after a good start). 0: keep the last.
    int validateEvery = 10;
    int validationEpisodes = 3;
    /// Return the best policy by validation (true) or the last one (false).
    bool keepBest = true;
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const TrainProgress&)> onEpisode;
};

struct TrainResult {
    std::shared_ptr<ClusterPolicy> policy; ///< the best by validation (or the last)
    std::string lastPolicyBytes;           ///< the policy after the last update
    int bestEpisode = 0;
    double bestValidation = -1;
    std::vector<TrainProgress> curve;
    double wallSeconds = 0;
};

/// Trains a fresh policy (or continues `start`) on episodes of `s` drawn from seeds derived
/// from options.seed (never the evaluation seeds s.seed + r). One intra-op thread.
TrainResult trainClusterPolicy(const ClusterScenario& s, const TrainOptions& options,
                               std::shared_ptr<ClusterPolicy> start = nullptr);

/// The policy a learned-scheduler run uses: scheduler.policy of the scenario (resolved),
/// loaded; throws std::runtime_error with a clear message when absent or unreadable.
std::shared_ptr<ClusterPolicy> loadScenarioPolicy(const ClusterScenario& s);

} // namespace fog::cluster
