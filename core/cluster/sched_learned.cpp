// The learned scheduler: builds each agent's observation from the scheduling view, asks the
// policy network (core/model/cluster_policy_net.cpp) for actions, and keeps the time line of
// actions and tasks-in-system from which training rewards are computed.

#include "core/cluster/learned_scheduler.h"
#include "core/util/portable_math.h"

#include "core/model/learner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace fog::cluster {

namespace {

float squash(double x, double scale) { return static_cast<float>(std::min(5.0, x / scale)); }

/// CPUs and GPUs for allocation level `level` between the type's minimum and what fits.
std::pair<int, int> levelAllocation(const TaskType& t, int maxC, int maxG, int level) {
    const double f = static_cast<double>(level) / (ClusterPolicy::kLevels - 1);
    return {t.min.cpus + static_cast<int>(std::lround(f * (maxC - t.min.cpus))),
            t.min.gpus + static_cast<int>(std::lround(f * (maxG - t.min.gpus)))};
}

} // namespace

LearnedScheduler::LearnedScheduler(std::shared_ptr<ClusterPolicy> policy, const ClusterScenario& s, bool training)
    : policy_(std::move(policy)), training_(training) {
    if (!policy_) throw std::invalid_argument("the learned scheduler needs a policy");
    if (policy_->agents() != static_cast<int>(s.clusters.size()))
        throw std::runtime_error("the policy was trained for " + std::to_string(policy_->agents()) +
                                 " clusters (one agent each), this scenario has " + std::to_string(s.clusters.size()));
}

void LearnedScheduler::beginEpisode(const ClusterScenario&, std::uint64_t seed) {
    rng_ = Rng(deriveSeed(seed, hashName("cluster.scheduler.learned")));
    if (stream_ != 0) rng_ = Rng(deriveSeed(deriveSeed(seed, hashName("cluster.scheduler.learned")), stream_));
    decisions_ = 0;
    actionTimes_.clear();
    points_.clear();
    // A training batch may span several episodes: the trainer clears the recording.
    if (!training_) policy_->clearRecording();
    policy_->setRecording(training_);
}

Decision LearnedScheduler::decide(const SchedulingView& v) {
    Decision d;
    points_.push_back({v.now, v.inSystem});
    const int agents = policy_->agents();
    const int m = static_cast<int>(v.servers.size());
    ResourcePool pool(v);
    std::vector<char> taken(v.queue.size(), 0);
    std::vector<int> runningOn(m, 0);
    for (const TaskState* k : v.running) ++runningOn[k->server];
    const int start = decisions_++ % agents;
    for (int step = 0; step < agents; ++step) {
        const int agent = (start + step) % agents;
        for (int guard = 0; guard < 64; ++guard) {
            PolicyObservation o;
            o.agent = agent;
            o.servers = m;
            std::vector<int> rows;
            for (std::size_t i = 0; i < v.queue.size(); ++i)
                if (!taken[i]) rows.push_back(static_cast<int>(i));
            if (rows.empty()) break;
            o.tasks = static_cast<int>(rows.size());
            bool any = false;
            for (int r : rows) {
                const TaskState& k = *v.queue[r];
                const TaskType& t = v.type(k);
                double bestMaxTime = k.remaining / taskSpeed(t, t.max.cpus, t.max.gpus);
                bool fitsHere = false;
                for (int j = 0; j < m; ++j) {
                    const bool own = pool.server(j).cluster == agent;
                    int c = 0, g = 0;
                    const bool fit = own && pool.maxFit(t, j, c, g);
                    o.placeMask.push_back(fit ? 1 : 0);
                    if (fit) {
                        if (!fitsHere) bestMaxTime = k.remaining / taskSpeed(t, c, g);
                        else bestMaxTime = std::min(bestMaxTime, k.remaining / taskSpeed(t, c, g));
                        fitsHere = true;
                    }
                }
                o.taskMask.push_back(fitsHere ? 1 : 0);
                any |= fitsHere;
                const float f[ClusterPolicy::kTaskFeatures] = {
                    squash(k.remaining, 20.0),
                    squash(v.now - k.arrival, 20.0),
                    squash(k.remaining / taskSpeed(t, t.min.cpus, t.min.gpus), 20.0),
                    squash(bestMaxTime, 20.0),
                    squash(t.min.cpus, 16.0),
                    squash(t.min.gpus, 8.0),
                    static_cast<float>(t.speed.cpuExponent),
                    static_cast<float>(t.speed.gpuExponent)};
                o.taskFeatures.insert(o.taskFeatures.end(), f, f + ClusterPolicy::kTaskFeatures);
            }
            if (!any) break;
            // Never leave a whole cluster idle while a task could start there: without this
            // an untrained policy can stall the run, and no schedule gains from it.
            bool ownBusy = false;
            for (int j = 0; j < m; ++j) ownBusy |= pool.server(j).cluster == agent && runningOn[j] > 0;
            o.stopAllowed = ownBusy;
            for (int j = 0; j < m; ++j) {
                const ServerState& s = pool.server(j);
                const float f[ClusterPolicy::kServerFeatures] = {
                    s.spec->cpus > 0 ? static_cast<float>(s.freeCpus) / s.spec->cpus : 0.0f,
                    s.spec->gpus > 0 ? static_cast<float>(s.freeGpus) / s.spec->gpus : 0.0f,
                    squash(s.spec->cpus, 16.0),
                    squash(s.spec->gpus, 8.0),
                    s.cluster == agent ? 1.0f : 0.0f,
                    squash(runningOn[j], 8.0)};
                o.serverFeatures.insert(o.serverFeatures.end(), f, f + ClusterPolicy::kServerFeatures);
            }
            o.globalFeatures = {static_cast<float>(v.queue.size()) / std::max(1, v.scenario->queueLimit),
                                squash(v.backlog, 20.0), squash(v.inSystem, 20.0),
                                squash(static_cast<double>(v.running.size()), 20.0)};
            const PolicyAction a = policy_->act(o, training_, rng_);
            if (training_) actionTimes_.push_back(v.now);
            if (a.stop) break;
            const int row = rows[a.task];
            const TaskState& k = *v.queue[row];
            const TaskType& t = v.type(k);
            int maxC = 0, maxG = 0;
            if (!pool.maxFit(t, a.server, maxC, maxG))
                throw std::logic_error("learned scheduler: the policy chose a masked server");
            const auto [c, g] = levelAllocation(t, maxC, maxG, a.level);
            pool.take(t, a.server, c, g);
            ++runningOn[a.server];
            taken[row] = 1;
            d.place.push_back({k.id, a.server, c, g});
        }
    }
    return d;
}

void LearnedScheduler::endEpisode(double time) {
    endTime_ = time;
    policy_->setRecording(false);
}

std::vector<double> LearnedScheduler::returns(double gamma, double scale) const {
    const std::size_t n = actionTimes_.size();
    std::vector<double> reward(n, 0.0);
    // Interval j (from decision point j to the next, or the end) is charged to the last action
    // taken at or before it starts.
    std::size_t k = 0;
    for (std::size_t j = 0; j < points_.size(); ++j) {
        const double from = points_[j].time;
        const double to = j + 1 < points_.size() ? points_[j + 1].time : endTime_;
        while (k < n && actionTimes_[k] <= from) ++k;
        if (k == 0) continue;
        reward[k - 1] -= points_[j].inSystem * (to - from) / scale;
    }
    std::vector<double> out(n, 0.0);
    double g = 0;
    for (std::size_t i = n; i-- > 0;) {
        const double dt = i + 1 < n ? actionTimes_[i + 1] - actionTimes_[i] : 0.0;
        g = reward[i] + pmath::pow(gamma, dt) * g;
        out[i] = g;
    }
    return out;
}

LearnedScheduler::ReturnCurve LearnedScheduler::returnCurve(double gamma, double scale) const {
    ReturnCurve c;
    c.gamma = gamma;
    for (std::size_t j = 0; j < points_.size(); ++j) {
        const double from = points_[j].time;
        const double to = j + 1 < points_.size() ? points_[j + 1].time : endTime_;
        c.from.push_back(from);
        c.to.push_back(to);
        c.reward.push_back(-points_[j].inSystem * (to - from) / scale);
    }
    c.suffix.assign(c.from.size() + 1, 0.0);
    for (std::size_t j = c.from.size(); j-- > 0;) {
        const double next = j + 1 < c.from.size() ? pmath::pow(gamma, c.from[j + 1] - c.from[j]) * c.suffix[j + 1] : 0.0;
        c.suffix[j] = c.reward[j] + next;
    }
    return c;
}

double LearnedScheduler::ReturnCurve::at(double t) const {
    // The first interval starting at or after t, plus the part of the one running at t.
    const std::size_t k = static_cast<std::size_t>(std::lower_bound(from.begin(), from.end(), t) - from.begin());
    double partial = 0;
    if (k > 0 && t < to[k - 1] && to[k - 1] > from[k - 1])
        partial = reward[k - 1] * (to[k - 1] - t) / (to[k - 1] - from[k - 1]);
    return k < from.size() ? partial + pmath::pow(gamma, from[k] - t) * suffix[k] : partial;
}

std::shared_ptr<ClusterPolicy> loadScenarioPolicy(const ClusterScenario& s) {
    if (s.scheduler.policyResolved.empty())
        throw std::runtime_error("scheduler learned needs a trained policy: set scheduler.policy in the scenario or pass "
                                 "--policy FILE (train one with: fogstudio-cli cluster train FILE --out policy.pt)");
    return std::shared_ptr<ClusterPolicy>(ClusterPolicy::load(s.scheduler.policyResolved));
}

TrainResult trainClusterPolicy(const ClusterScenario& s, const TrainOptions& o, std::shared_ptr<ClusterPolicy> start) {
    useSingleThreadedKernels();
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    TrainResult result;
    result.policy = start ? std::move(start)
                          : std::make_shared<ClusterPolicy>(static_cast<int>(s.clusters.size()), o.seed, o.embed);
    LearnedScheduler sched(result.policy, s, true);
    const std::uint64_t base = deriveSeed(o.seed, hashName("cluster.training"));
    const std::uint64_t validationBase = deriveSeed(o.seed, hashName("cluster.validation"));
    const int rollouts = std::max(1, o.rolloutsPerUpdate);
    std::string bestBytes;
    auto validate = [&]() {
        LearnedScheduler greedy(result.policy, s, false);
        double sum = 0;
        for (int v = 0; v < o.validationEpisodes; ++v)
            sum += runCluster(s, greedy, deriveSeed(validationBase, static_cast<std::uint64_t>(v))).summary.meanCompletion;
        return sum / std::max(1, o.validationEpisodes);
    };
    auto stopping = [&] {
        return (o.cancel && o.cancel->load()) || (o.maxWallSeconds > 0 && elapsed() >= o.maxWallSeconds);
    };
    int done = 0;
    for (std::uint64_t update = 0; done < o.episodes; ++update) {
        if (o.cancel && o.cancel->load()) break;
        // One arrival sequence per update, played `k` times with different sampling streams
        // (with one rollout, every episode has arrivals of its own, as before).
        const int k = std::min(rollouts, o.episodes - done);
        result.policy->clearRecording();
        std::vector<TrainProgress> batch;
        std::vector<LearnedScheduler::ReturnCurve> curves;
        std::vector<std::vector<double>> times;
        std::vector<double> singleReturns;
        bool cancelled = false;
        for (int r = 0; r < k; ++r) {
            const std::uint64_t seed = rollouts == 1 ? deriveSeed(base, static_cast<std::uint64_t>(done + r))
                                                     : deriveSeed(base, update);
            sched.setSamplingStream(rollouts == 1 ? 0 : static_cast<std::uint64_t>(r + 1));
            ClusterRunOptions ro;
            ro.cancel = o.cancel;
            const ClusterResult run = runCluster(s, sched, seed, ro);
            if (!run.summary.complete && o.cancel && o.cancel->load()) {
                cancelled = true;
                break;
            }
            TrainProgress p;
            p.meanCompletion = run.summary.meanCompletion;
            p.episodeReward = -run.summary.meanCompletion;
            batch.push_back(p);
            if (rollouts == 1) singleReturns = sched.returns(o.gamma, o.rewardScale);
            curves.push_back(sched.returnCurve(o.gamma, o.rewardScale));
            times.push_back(sched.actionTimes());
        }
        if (cancelled) {
            result.policy->clearRecording();
            break;
        }
        PolicyUpdateStats stats;
        if (k == 1 && rollouts == 1) {
            stats = result.policy->update(singleReturns, o.learningRate, o.entropyWeight);
        } else {
            std::vector<double> returns, baselines;
            for (int r = 0; r < k; ++r)
                for (double t : times[r]) {
                    returns.push_back(curves[r].at(t));
                    double b = 0;
                    for (int j = 0; j < k; ++j)
                        if (j != r) b += curves[j].at(t);
                    baselines.push_back(k > 1 ? b / (k - 1) : 0.0);
                }
            // A lone rollout (the remainder of the episode budget) has no other to compare
            // with: the critic is its baseline.
            stats = k > 1 ? result.policy->update(returns, baselines, o.learningRate, o.entropyWeight)
                          : result.policy->update(returns, o.learningRate, o.entropyWeight);
        }
        const int before = done;
        done += k;
        const bool last = done >= o.episodes || stopping();
        double validation = -1;
        if (o.validateEvery > 0 && o.validationEpisodes > 0 && (done / o.validateEvery > before / o.validateEvery || last)) {
            validation = validate();
            if (result.bestValidation < 0 || validation < result.bestValidation) {
                result.bestValidation = validation;
                result.bestEpisode = done;
                bestBytes = result.policy->serialize();
            }
        }
        for (int r = 0; r < k; ++r) {
            TrainProgress& p = batch[r];
            p.episode = before + r + 1;
            p.stats = stats;
            if (r + 1 == k) p.validation = validation;
            p.wallSeconds = elapsed();
            result.curve.push_back(p);
            if (o.onEpisode) o.onEpisode(p);
        }
        if (last) break;
    }
    result.lastPolicyBytes = result.policy->serialize();
    if (o.keepBest && !bestBytes.empty())
        result.policy = std::shared_ptr<ClusterPolicy>(ClusterPolicy::deserialize(bestBytes, "best policy"));
    result.wallSeconds = elapsed();
    return result;
}

FOG_CLUSTER_SCHEDULER(learnedScheduler) {
    static const SchedulerInfo d = [] {
        SchedulerInfo d;
        d.name = "learned";
        d.summary = "Multi-agent actor-critic (one agent per cluster): attention over tasks and servers, pointer task selection, "
            "masked actions; needs a trained policy (scheduler.policy).";
        d.source = "after Li et al., TapFinger, INFOCOM 2023";
        d.rule = "the multi-agent actor-critic described below; needs a trained policy (`scheduler.policy` "
                 "or `--policy`)";
        d.order = 70;
        d.make = [](const ClusterScenario& s) -> std::unique_ptr<ClusterScheduler> {
            return std::make_unique<LearnedScheduler>(loadScenarioPolicy(s), s, false);
        };
        d.keys = {"policy"};
        d.withPolicy = [](std::shared_ptr<ClusterPolicy> p, const ClusterScenario& sc) -> std::unique_ptr<ClusterScheduler> {
            return std::make_unique<LearnedScheduler>(std::move(p), sc, false);
        };
        return d;
    }();
    return d;
}

} // namespace fog::cluster
