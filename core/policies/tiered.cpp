// Tiered runs: one policy instance per aggregator, each treating its children's aggregated
// models as updates (core/policies/tiered.h).
//
// An aggregator's session starts when its parent's model reaches it (the root's at t = 0
// and for ever): it runs `rounds` rounds with its children, then sends the change of its
// model since the session began up to its parent. A round selects among the children that
// are online and idle (a child aggregator is busy while its session runs or its model is on
// the way up), sends the model down (a trainer's job does that itself, a child aggregator
// receives it through send), and ends at the policy's barrier: every child dispatched, the
// first n (n-sync), or the deadline (fedavg). Children still working then are abandoned, a
// child aggregator with its whole subtree.
//
// Codecs between aggregators (training.aggregator_codec_up / aggregator_codec_down,
// docs/learning.md): the model a child aggregator receives is the decoded one (its session's
// base, so the change it sends up is measured from what it got), and the change it sends up
// arrives decoded (top-k: the child keeps the residual for its next session). Each transfer
// carries the encoded size, modelBytes() x encoded / (4 P); with training.codec_elements_per_s
// r > 0 the sender encodes and the receiver decodes in P / r seconds each (charged as their
// compute). With both codecs none (the default) nothing changes.

#include "core/policies/tiered.h"

#include "core/policies/aggregation.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/selection_policy.h"
#include "core/policies/update_codec.h"
#include "core/util/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace fog {

bool isTiered(const TopologySpec& topology) {
    for (const auto& n : topology.nodes)
        if (n.aggregate) return true;
    return false;
}

LevelPlan resolveLevel(const Scenario& s, const NodeSpec& entry, std::vector<LevelProblem>* problems) {
    LevelPlan plan;
    plan.sync = s.sync;
    plan.selection = s.selection;
    plan.serverOptimizer = s.training.serverOptimizer;
    if (!entry.aggregate) return plan;
    const AggregateSpec& a = *entry.aggregate;
    auto problem = [&](const std::string& key, int line, const std::string& message) {
        if (problems) problems->push_back({key, line ? line : a.line, message});
    };
    // A policy named here starts from its own defaults, not from the scenario's parameters.
    if (!a.sync.empty() && a.sync != s.sync.name) plan.sync = PolicySpec{a.sync, {}, {}, a.line};
    if (!a.selection.empty() && a.selection != s.selection.name)
        plan.selection = PolicySpec{a.selection, {}, {}, a.line};
    plan.localSteps = a.localSteps;
    plan.rounds = a.rounds;
    if (!a.serverOptimizer.empty()) {
        bool known = false;
        std::string names;
        for (const auto& info : serverOptimizerInfos()) {
            known = known || info.name == a.serverOptimizer;
            names += (names.empty() ? "" : ", ") + info.name;
        }
        if (known)
            plan.serverOptimizer = a.serverOptimizer;
        else
            problem("aggregate.server_optimizer", a.line,
                    "unknown server optimizer '" + a.serverOptimizer + "'; known: " + names);
    }
    const SyncPolicyDescriptor* sd = findSyncDescriptor(plan.sync.name);
    const SelectionPolicyDescriptor* ld = findSelectionDescriptor(plan.selection.name);
    auto declares = [](const PolicyInfo& info, const std::string& key) {
        for (const auto& p : info.params)
            if (p.key == key) return true;
        return false;
    };
    for (const auto& [key, value] : a.params) {
        const auto lineIt = a.paramLines.find(key);
        const int line = lineIt == a.paramLines.end() ? a.line : lineIt->second;
        const bool bySync = sd && declares(sd->info, key);
        const bool bySelection = ld && declares(ld->info, key);
        if (bySync && bySelection) {
            problem("aggregate." + key, line,
                    "is a parameter of both sync policy " + plan.sync.name + " and selection policy " +
                        plan.selection.name + ": this map cannot tell which one it sets");
            continue;
        }
        if (bySync) {
            plan.sync.params[key] = value;
            plan.sync.paramLines[key] = line;
        } else if (bySelection) {
            plan.selection.params[key] = value;
            plan.selection.paramLines[key] = line;
        } else if (sd && ld) {
            std::string known;
            for (const auto* info : {&sd->info, &ld->info})
                for (const auto& p : info->params) known += (known.empty() ? "" : ", ") + p.key;
            problem("aggregate." + key, line,
                    "is not a parameter of sync policy " + plan.sync.name + " nor of selection policy " +
                        plan.selection.name + (known.empty() ? std::string(" (they have none)")
                                                             : " (known: " + known + ")"));
        }
    }
    return plan;
}

namespace {

class Tiered : public SyncPolicy {
public:
    Tiered(const Scenario& s, const SystemView& e) : seed_(s.seed) {
        const Topology& topo = e.topology();
        setUpCodecs(s.training, e);
        const auto roots = topo.rootAggregators();
        if (roots.size() != 1)
            throw EngineError("a tiered tree (a node declares aggregate:) needs exactly one root aggregator, the "
                              "topology has " + std::to_string(roots.size()));
        // Aggregators in tree order, parents before children; those with no trainer below
        // them have nothing to contribute and take no part.
        std::vector<int> order{roots.front()};
        for (std::size_t i = 0; i < order.size(); ++i)
            for (int c : topo.childAggregatorsOf(order[i])) order.push_back(c);
        std::map<int, std::size_t> index;
        for (int node : order) {
            Agg a;
            a.node = node;
            index[node] = aggs_.size();
            const int up = topo.aggregator(node);
            if (up >= 0) {
                a.parent = static_cast<int>(index.at(up));
                a.depth = aggs_[static_cast<std::size_t>(a.parent)].depth + 1;
            }
            aggs_.push_back(std::move(a));
        }
        for (std::size_t i = aggs_.size(); i-- > 0;) {
            Agg& a = aggs_[i];
            a.trainers = e.trainersOf(a.node);
            bool any = !a.trainers.empty();
            for (int c : topo.childAggregatorsOf(a.node)) {
                const std::size_t ci = index.at(c);
                if (aggs_[ci].hasTrainers) {
                    a.children.push_back(static_cast<int>(ci));
                    any = true;
                }
            }
            a.hasTrainers = any;
        }
        if (!aggs_.front().hasTrainers) throw EngineError("the tiered tree has no trainer under its root");
        for (std::size_t i = 0; i < aggs_.size(); ++i) {
            Agg& a = aggs_[i];
            if (!a.hasTrainers) continue;
            std::vector<LevelProblem> problems;
            const LevelPlan plan = resolveLevel(s, topo.entry(a.node), &problems);
            const std::string id = topo.id(a.node);
            if (!problems.empty())
                throw EngineError("aggregator '" + id + "': " + problems.front().key + " " + problems.front().message);
            const SyncPolicyDescriptor* d = findSyncDescriptor(plan.sync.name);
            if (!d || !d->level.usable)
                throw EngineError("aggregator '" + id + "': sync policy '" + plan.sync.name +
                                  "' cannot run as one aggregator's policy in a tiered tree");
            const PolicyParams p = resolveSyncParams(plan.sync);
            a.gradient = d->level.gradient;
            a.first = d->level.first ? static_cast<std::size_t>(d->level.first.read(p)) : 0;
            a.deadlineSeconds = d->level.deadlineSeconds ? d->level.deadlineSeconds.read(p) : 0.0;
            a.localSteps = plan.localSteps;
            a.rounds = std::max(1, plan.rounds);
            a.serverOptimizer = serverOptimizerConfig(s.training, plan.serverOptimizer);
            a.model = ServerModel({}, a.serverOptimizer);
            PolicyParams sp = resolveSelectionParams(plan.selection);
            sp.setPerAggregator(); // this aggregator's k, not the scenario's
            a.selection = findSelectionDescriptor(plan.selection.name)->make(sp, e);
            a.rng = Rng(deriveSeed(s.seed, hashName("tier-selection"), hashName(id)));
        }
    }

    void start(PolicyContext& e) override {
        for (auto& a : aggs_)
            if (a.selection) a.selection->start(e);
        Agg& root = aggs_.front();
        root.model = ServerModel(e.initialModel(), root.serverOptimizer);
        root.active = true;
        beginRound(e, 0);
    }

    void onArrival(PolicyContext& e, const Job& job, LocalResult& result) override {
        const auto ai = static_cast<std::size_t>(job.tag);
        Agg& a = aggs_[ai];
        if (!a.jobs.erase(job.id)) return;
        a.results.push_back({job.trainer, result.samples, result.meanLoss, a.model.version() - job.version,
                             std::move(result.update), static_cast<int>(job.batchSizes.size()), job.stepsRequested});
        if (a.selection) a.selection->observe(job.trainer, result.meanLoss, job.tArrive - job.tStart);
        afterDelivery(e, ai);
    }

    void onLost(PolicyContext& e, const Job& job) override {
        const auto ai = static_cast<std::size_t>(job.tag);
        Agg& a = aggs_[ai];
        if (!a.jobs.erase(job.id)) return;
        if (a.jobs.empty() && a.waitingFor.empty()) completeRound(e, ai);
    }

    void onNodeOnline(PolicyContext& e, int node) override {
        const int up = e.topology().aggregator(node);
        for (std::size_t ai = 0; ai < aggs_.size(); ++ai)
            if (aggs_[ai].node == up && aggs_[ai].waiting && aggs_[ai].active) beginRound(e, ai);
    }

    ParamsPtr globalModel() const override { return aggs_.front().model.params(); }

private:
    /// The codecs of the links between aggregators, their wire sizes and work.
    void setUpCodecs(const TrainingSpec& t, const SystemView& e) {
        auto make = [](const std::string& name, int bits, double fraction) {
            try {
                return codecConfig(name, bits, fraction);
            } catch (const std::invalid_argument& x) {
                throw EngineError(std::string("training.aggregator_codec: ") + x.what());
            }
        };
        up_ = make(t.aggregatorCodecUp, t.aggregatorCodecUpBits, t.aggregatorCodecUpFraction);
        down_ = make(t.aggregatorCodecDown, t.aggregatorCodecDownBits, 1.0);
        if (down_.kind == CodecConfig::Kind::TopK)
            throw EngineError("training.aggregator_codec_down topk: the model goes down whole; use fp16 or quantize");
        // P as the trainers' codecs count it: the model's parameters, or the wire size over 4
        // bytes in a timing-only run; the wire size scales by the encoded size over 4 P.
        const ParamsPtr model = e.initialModel();
        const std::size_t params = model && !model->empty()
                                       ? model->size()
                                       : static_cast<std::size_t>(std::llround(e.modelBytes() / 4.0));
        upBytes_ = downBytes_ = e.modelBytes();
        if (params > 0) {
            const double floats = 4.0 * static_cast<double>(params);
            upBytes_ = e.modelBytes() * (encodedBytes(up_, params) / floats);
            downBytes_ = e.modelBytes() * (encodedBytes(down_, params) / floats);
            const double rate = t.codecElementsPerSecond;
            if (rate > 0) {
                if (up_.kind != CodecConfig::Kind::None) upSeconds_ = static_cast<double>(params) / rate;
                if (down_.kind != CodecConfig::Kind::None) downSeconds_ = static_cast<double>(params) / rate;
            }
        }
    }

    /// `node` works `seconds` on a codec (charged as its compute), then `then` runs; without
    /// work `then` runs at once, in the same event.
    static void afterCodecWork(PolicyContext& e, int node, double seconds, std::function<void()> then) {
        if (seconds <= 0) {
            then();
            return;
        }
        e.chargeWork(node, seconds);
        e.at(e.now() + seconds, std::move(then));
    }

    struct Agg {
        int node = -1;
        int parent = -1; ///< index in aggs_ (-1: the root)
        int depth = 0;
        std::vector<int> trainers;
        std::vector<int> children; ///< child aggregators (indices in aggs_) with trainers below
        bool hasTrainers = false;
        // the policy
        bool gradient = false;
        std::size_t first = 0; ///< 0: every child dispatched
        double deadlineSeconds = 0.0;
        int localSteps = 0;
        int rounds = 1;
        ServerOptimizerConfig serverOptimizer; ///< steps with the changes its children send
        std::unique_ptr<SelectionPolicy> selection;
        Rng rng{1};
        // the state
        ServerModel model;
        ParamsPtr base;       ///< the model received at the session's start
        bool active = false;  ///< in a session (or its model on the way up)
        long session = 0;     ///< bumped when a session starts or is abandoned
        int round = 0;        ///< rounds begun
        int roundsInSession = 0;
        bool waiting = false; ///< no child could take part: begin when one comes back
        bool inRound = false;
        TimerId deadline = 0; ///< the round's deadline timer while it may fire
        std::size_t dispatched = 0;
        std::set<std::uint64_t> jobs;
        std::set<int> waitingFor; ///< child aggregators dispatched this round, not yet back
        std::vector<Contribution> results;
        double lossSum = 0.0, lossSamples = 0.0; ///< this session's, sample-weighted
        std::int64_t samples = 0;
        // the codecs of its links to its parent
        std::uint64_t uploads = 0; ///< changes sent up (the uplink codec's stream index)
        Params residual;           ///< top-k's error feedback, kept by this child
    };

    /// `a` is out of its round: the round's deadline, if still to come, is cancelled.
    static void leaveRound(PolicyContext& e, Agg& a) {
        a.inRound = false;
        e.cancelTimer(a.deadline);
        a.deadline = 0;
    }

    void beginRound(PolicyContext& e, std::size_t ai) {
        Agg& a = aggs_[ai];
        leaveRound(e, a);
        if (e.stopped()) return;
        a.results.clear();
        a.jobs.clear();
        a.waitingFor.clear();
        std::vector<int> candidates;
        // Candidates ascending by node index, as the engine gives them to selection policies.
        std::map<int, int> childOf; // node -> index in aggs_
        for (int c : a.children) childOf[aggs_[static_cast<std::size_t>(c)].node] = c;
        for (int t : e.trainersOf(a.node)) // live: members joining later (add events) too
            if (e.isOnline(t) && !e.isBusy(t)) candidates.push_back(t);
        for (const auto& [node, c] : childOf)
            if (e.isOnline(node) && !aggs_[static_cast<std::size_t>(c)].active) candidates.push_back(node);
        std::sort(candidates.begin(), candidates.end());
        std::vector<int> selected;
        if (!candidates.empty()) selected = a.selection->select(e, a.node, a.round + 1, candidates, a.rng);
        if (selected.empty()) {
            a.waiting = true;
            return;
        }
        a.waiting = false;
        a.inRound = true;
        ++a.round;
        a.dispatched = selected.size();
        for (int node : selected) {
            const auto it = childOf.find(node);
            if (it != childOf.end()) {
                sendDown(e, ai, static_cast<std::size_t>(it->second));
                continue;
            }
            DispatchRequest r;
            r.trainer = node;
            r.aggregator = a.node;
            r.model = a.model.params();
            r.version = a.model.version();
            r.steps = a.gradient ? 1 : a.localSteps > 0 ? a.localSteps : e.localStepsOf(node);
            r.gradient = a.gradient;
            r.round = e.globalRound() + 1;
            r.options.tag = static_cast<int>(ai);
            a.jobs.insert(e.dispatch(r));
        }
        if (a.deadlineSeconds > 0)
            a.deadline = e.at(e.now() + a.deadlineSeconds, [this, &e, ai] {
                aggs_[ai].deadline = 0;
                completeRound(e, ai);
            });
    }

    /// The parent's model goes to child aggregator `ci`, which starts a session on arrival.
    void sendDown(PolicyContext& e, std::size_t ai, std::size_t ci) {
        Agg& c = aggs_[ci];
        c.active = true;
        const long session = ++c.session;
        aggs_[ai].waitingFor.insert(static_cast<int>(ci));
        const ParamsPtr model = aggs_[ai].model.params();
        const int from = aggs_[ai].node;
        // The parent encodes, the model goes down at its encoded size, the child decodes.
        afterCodecWork(e, from, downSeconds_, [this, &e, ci, session, model, from] {
            if (aggs_[ci].session != session) return; // abandoned meanwhile
            e.send(from, aggs_[ci].node, downBytes_, [this, &e, ci, session, model] {
                if (aggs_[ci].session != session) return; // abandoned on the way
                afterCodecWork(e, aggs_[ci].node, downSeconds_, [this, &e, ci, session, model] {
                    Agg& x = aggs_[ci];
                    if (x.session != session) return;
                    ParamsPtr got = model;
                    if (down_.kind != CodecConfig::Kind::None && model && !model->empty()) {
                        // What the child decodes: its own stream per session.
                        auto decoded = std::make_shared<Params>(*model);
                        Rng rng(deriveSeed(deriveSeed(seed_, hashName("aggregator-codec-down"), hashName(e.topology().id(x.node))),
                                           static_cast<std::uint64_t>(session)));
                        encodeDecode(down_, *decoded, rng, nullptr);
                        got = std::move(decoded);
                    }
                    x.base = got;
                    x.model.set(got);
                    x.roundsInSession = 0;
                    x.lossSum = x.lossSamples = 0.0;
                    x.samples = 0;
                    beginRound(e, ci);
                });
            });
        });
    }

    void afterDelivery(PolicyContext& e, std::size_t ai) {
        Agg& a = aggs_[ai];
        const std::size_t needed = a.first > 0 ? std::min(a.first, a.dispatched) : a.dispatched;
        if (a.results.size() >= needed || (a.jobs.empty() && a.waitingFor.empty())) completeRound(e, ai);
    }

    /// Child aggregator `ci` is no longer waited for: its session and subtree stop.
    void abandon(PolicyContext& e, std::size_t ci) {
        Agg& c = aggs_[ci];
        ++c.session;
        c.active = false;
        leaveRound(e, c);
        c.waiting = false;
        for (auto id : c.jobs) e.cancelJob(id);
        c.jobs.clear();
        const auto below = c.waitingFor;
        c.waitingFor.clear();
        for (int g : below) abandon(e, static_cast<std::size_t>(g));
        c.results.clear();
    }

    void completeRound(PolicyContext& e, std::size_t ai) {
        Agg& a = aggs_[ai];
        leaveRound(e, a);
        for (auto id : a.jobs) e.cancelJob(id);
        a.jobs.clear();
        const auto late = a.waitingFor;
        a.waitingFor.clear();
        for (int c : late) abandon(e, static_cast<std::size_t>(c));

        AggregationRecord r;
        r.level = a.depth;
        r.aggregator = e.topology().id(a.node);
        r.participants = static_cast<int>(a.results.size());
        r.trainLoss = meanLoss(a.results);
        std::vector<Contribution> gradients, changes;
        for (auto& c : a.results) {
            a.samples += c.samples;
            if (!std::isnan(c.loss)) {
                a.lossSum += c.loss * static_cast<double>(c.samples);
                a.lossSamples += static_cast<double>(c.samples);
            }
            const bool fromTrainer = e.topology().trains(c.trainer);
            (a.gradient && fromTrainer ? gradients : changes).push_back(std::move(c));
        }
        a.results.clear();
        if (!gradients.empty()) {
            const auto& t = e.scenario().training;
            a.model.applyGradient(meanUpdate(gradients), e.learningRate(), t.momentum, t.weightDecay);
        }
        if (!changes.empty()) a.model.addDelta(sampleWeightedUpdate(changes));
        e.reportAggregation(r, a.model.params());

        if (a.parent < 0 || ++a.roundsInSession < a.rounds) {
            beginRound(e, ai);
            return;
        }
        sendUp(e, ai);
    }

    /// The session is over: the change of the model since it began goes to the parent.
    void sendUp(PolicyContext& e, std::size_t ai) {
        Agg& a = aggs_[ai];
        Contribution c;
        c.trainer = a.node;
        c.samples = a.samples;
        c.loss = a.lossSamples > 0 ? a.lossSum / a.lossSamples : std::numeric_limits<double>::quiet_NaN();
        const Params& now = *a.model.params();
        if (a.base && now.size() == a.base->size()) {
            c.update.resize(now.size());
            for (std::size_t i = 0; i < now.size(); ++i) c.update[i] = now[i] - (*a.base)[i];
        }
        const long session = a.session;
        const auto pi = static_cast<std::size_t>(a.parent);
        const std::uint64_t upload = ++a.uploads;
        auto delivered = std::make_shared<Contribution>(std::move(c));
        // The child encodes, the change goes up at its encoded size, the parent decodes.
        afterCodecWork(e, a.node, upSeconds_, [this, &e, ai, pi, session, upload, delivered] {
            if (aggs_[ai].session != session) return; // the parent stopped waiting for it
            e.send(aggs_[ai].node, aggs_[pi].node, upBytes_, [this, &e, ai, pi, session, upload, delivered] {
                if (aggs_[ai].session != session) return;
                afterCodecWork(e, aggs_[pi].node, upSeconds_, [this, &e, ai, pi, session, upload, delivered] {
                    Agg& x = aggs_[ai];
                    if (x.session != session) return;
                    x.active = false;
                    Agg& p = aggs_[pi];
                    if (!p.waitingFor.erase(static_cast<int>(ai))) return;
                    if (up_.kind != CodecConfig::Kind::None && !delivered->update.empty()) {
                        // What the parent decodes; top-k's residual stays with the child.
                        Rng rng(deriveSeed(deriveSeed(seed_, hashName("aggregator-codec-up"), hashName(e.topology().id(x.node))),
                                           upload));
                        encodeDecode(up_, delivered->update, rng, &x.residual);
                    }
                    p.results.push_back(std::move(*delivered));
                    afterDelivery(e, pi);
                });
            });
        });
    }

    std::vector<Agg> aggs_; ///< [0] is the root
    std::uint64_t seed_;
    CodecConfig up_, down_;        ///< training.aggregator_codec_up / _down
    double upBytes_ = 0.0, downBytes_ = 0.0;   ///< a change up, a model down, encoded
    double upSeconds_ = 0.0, downSeconds_ = 0.0; ///< encoding (and decoding) one vector
};

} // namespace

std::unique_ptr<SyncPolicy> makeTieredPolicy(const Scenario& s, const SystemView& e) {
    return std::make_unique<Tiered>(s, e);
}

} // namespace fog
