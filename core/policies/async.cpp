// Asynchronous SGD with staleness-damped updates (FedAsync's s(tau) = (1 + tau)^(-b)).

#include "core/policies/async_policy.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/round_policy.h"

#include <cmath>
#include <limits>

namespace fog {

namespace {

const ParamTable<AsyncSettings>& asyncParams() {
    static const auto t = ParamTable<AsyncSettings>()
                              .real("staleness_exponent", &AsyncSettings::stalenessExponent, 0.0, 0.0, 10.0,
                                    "b in (1 + tau)^(-b); 0 = constant")
                              .real("mixing", &AsyncSettings::mixing, 1.0, 0.0, 1.0, "a: scale of every applied update");
    return t;
}

} // namespace

AsyncPolicy::AsyncPolicy(const AsyncSettings& s, const std::string& policy, const SystemView& e)
    : accumulate_(s.accumulate), exponent_(s.stalenessExponent), mixing_(s.mixing) {
    // async-ga with several roots: one regional server per root with trainers below it.
    const auto roots = e.topology().rootAggregators();
    if (accumulate_ > 0 && roots.size() > 1) {
        for (int r : roots) {
            if (e.trainersOf(r).empty()) continue; // nothing to serve: takes no part
            Region g;
            g.aggregator = r;
            regions_.push_back(std::move(g));
        }
        if (regions_.empty())
            throw EngineError("sync policy " + policy + " found no trainer below any of the " +
                              std::to_string(roots.size()) + " root aggregators (regional parameter servers)");
        multi_ = regions_.size() > 1;
        period_ = s.period;
        asyncAveraging_ = s.asyncAveraging;
    } else {
        Region g;
        g.aggregator = singleRootAggregator(e, policy);
        regions_.push_back(std::move(g));
    }
    // At most the selection's k trainers at work at once per server (its descriptor says
    // what k is).
    const auto* sel = findSelectionDescriptor(e.scenario().selection.name);
    const int k = sel && sel->perRound ? sel->perRound(e.selectionParams()) : 0;
    limit_ = k > 0 ? static_cast<std::size_t>(k) : std::numeric_limits<std::size_t>::max();
}

ParamsPtr AsyncPolicy::globalModel() const {
    return multi_ && global_ ? global_ : regions_.front().model.params();
}

void AsyncPolicy::start(PolicyContext& e) {
    for (auto& g : regions_) {
        g.model = ServerModel(e.initialModel());
        for (int t : e.trainersOf(g.aggregator)) g.weight += static_cast<double>(e.samplesOf(t));
    }
    if (multi_) {
        global_ = e.initialModel();
        std::vector<int> servers;
        std::vector<double> weights;
        for (const auto& g : regions_) {
            servers.push_back(g.aggregator);
            weights.push_back(g.weight);
        }
        if (asyncAveraging_) {
            mixer_.setup(servers, weights, exponent_);
        } else {
            exchange_.setup(servers, weights);
            exchange_.onReady = [this, &e](std::size_t r, const ParamsPtr& average) { goOn(e, r, average); };
            exchange_.onDone = [this, &e](const ParamsPtr& average) {
                // The global round: every region's model reached every other region.
                global_ = average;
                AggregationRecord rec;
                rec.level = 0;
                rec.aggregator = e.topology().node(regions_.front().aggregator).spec.id;
                rec.participants = static_cast<int>(regions_.size());
                double sum = 0.0, samples = 0.0;
                for (auto& g : regions_) {
                    sum += g.lossSum;
                    samples += g.lossSamples;
                    g.lossSum = g.lossSamples = 0.0;
                }
                if (samples > 0) rec.trainLoss = sum / samples;
                e.reportAggregation(rec, average);
            };
        }
    }
    for (std::size_t r = 0; r < regions_.size(); ++r) topUp(e, r);
}

void AsyncPolicy::topUp(PolicyContext& e, std::size_t ri) {
    Region& g = regions_[ri];
    if (e.stopped() || g.atBarrier || g.outstanding.size() >= limit_) return;
    for (int t : e.selectTrainers(g.aggregator, e.globalRound() + 1)) {
        if (g.outstanding.size() >= limit_) break;
        DispatchRequest r;
        r.trainer = t;
        r.aggregator = g.aggregator;
        r.model = g.model.params();
        r.version = g.model.version();
        r.steps = accumulate_ > 0 ? accumulate_ : 1;
        r.gradient = accumulate_ == 0;
        r.round = e.globalRound() + 1;
        r.options.tag = static_cast<int>(ri);
        g.outstanding.insert(e.dispatch(r));
    }
}

void AsyncPolicy::apply(PolicyContext& e, std::size_t ri, long version, double loss, std::int64_t samples,
                        const Params& update) {
    Region& g = regions_[ri];
    const long staleness = g.model.version() - version;
    const double scale = mixing_ * std::pow(1.0 + static_cast<double>(staleness), -exponent_);
    const auto& t = e.scenario().training;
    if (accumulate_ > 0)
        g.model.addDelta(update, scale);
    else
        g.model.applyGradient(update, e.learningRate(), t.momentum, t.weightDecay, scale);
    if (multi_ && !std::isnan(loss)) {
        g.lossSum += loss * static_cast<double>(samples);
        g.lossSamples += static_cast<double>(samples);
    }
    AggregationRecord r;
    r.level = multi_ ? 1 : 0; // several servers: the averaging is the global round
    r.aggregator = e.topology().node(g.aggregator).spec.id;
    r.participants = 1;
    r.trainLoss = loss;
    r.meanStaleness = static_cast<double>(staleness);
    r.maxStaleness = static_cast<int>(staleness);
    e.reportAggregation(r, g.model.params());
}

bool AsyncPolicy::countAndMaybeAverage(PolicyContext& e, std::size_t ri) {
    Region& g = regions_[ri];
    if (!multi_ || ++g.updates < period_) return true;
    g.updates = 0;
    if (!asyncAveraging_) {
        // Synchronous: the model goes to every region; the server waits for theirs.
        g.atBarrier = true;
        exchange_.arrive(e, ri, g.model.params());
        return false;
    }
    const RegionMix m = mixer_.mix(e, ri, g.model.params());
    if (m.participants > 1) g.model.set(m.model); // in-flight pushes see one more version
    global_ = g.model.params();
    e.reportAggregation(regionMixRecord(e, g.aggregator, m, g.lossSum, g.lossSamples), g.model.params());
    return true;
}

void AsyncPolicy::goOn(PolicyContext& e, std::size_t ri, const ParamsPtr& average) {
    Region& g = regions_[ri];
    g.model.set(average);
    g.atBarrier = false;
    // Pushes that arrived during the wait, in arrival order, against the averaged model.
    std::vector<Held> held;
    held.swap(g.held);
    std::size_t i = 0;
    for (; i < held.size(); ++i) {
        apply(e, ri, held[i].version, held[i].loss, held[i].samples, held[i].update);
        if (!countAndMaybeAverage(e, ri)) {
            ++i;
            break;
        }
    }
    for (; i < held.size(); ++i) g.held.push_back(std::move(held[i]));
    topUp(e, ri);
}

void AsyncPolicy::onArrival(PolicyContext& e, const Job& job, LocalResult& result) {
    const auto ri = static_cast<std::size_t>(job.tag);
    Region& g = regions_[ri];
    if (!g.outstanding.erase(job.id)) return;
    if (g.atBarrier) { // its trainer idles until the server goes on
        g.held.push_back({job.version, result.meanLoss, result.samples, std::move(result.update)});
        return;
    }
    apply(e, ri, job.version, result.meanLoss, result.samples, result.update);
    if (countAndMaybeAverage(e, ri)) topUp(e, ri);
}

void AsyncPolicy::onLost(PolicyContext& e, const Job& job) {
    const auto ri = static_cast<std::size_t>(job.tag);
    regions_[ri].outstanding.erase(job.id);
    topUp(e, ri);
}

void AsyncPolicy::onNodeOnline(PolicyContext& e, int) {
    for (std::size_t r = 0; r < regions_.size(); ++r) topUp(e, r);
}

FOG_SYNC_POLICY(asyncPolicy) {
    static const SyncPolicyDescriptor d = [] {
        SyncPolicyDescriptor d;
        d.info.name = "async";
        d.info.summary = "Asynchronous SGD: every trainer pulls the model, computes one gradient and "
                         "pushes it; the server applies each on arrival, scaled by s(tau) = (1 + "
                         "tau)^(-b) for staleness tau (server updates since the pull).";
        d.info.source = "Xie et al., Asynchronous federated optimization (FedAsync), 2019";
        d.info.params = asyncParams().infos();
        d.order = 40;
        d.make = [](const PolicyParams& p, const SystemView& e) -> std::unique_ptr<SyncPolicy> {
            return std::make_unique<AsyncPolicy>(asyncParams().read(p), p.policy(), e);
        };
        d.stepsPerDispatch = [](const PolicyParams&) { return 1; };
        return d;
    }();
    return d;
}

} // namespace fog
