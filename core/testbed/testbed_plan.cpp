// The testbed's plan: boxes and links from the topology, rounds and jobs from the
// prediction (testbed_plan.h).

#include "core/testbed/testbed_plan.h"
#include "core/testbed/netns.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/tiered.h"
#include "core/system/topology.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>

namespace fog::testbed {

void PredictionRecorder::onMessage(const LinkMessage& m) {
    Message msg;
    msg.from = m.from;
    msg.to = m.to;
    msg.depart = m.depart;
    msg.bytes = m.bytes;
    msg.model = m.model;
    if (m.id != 0) byId_[m.id] = messages_.size();
    else msg.end = m.arrive;
    messages_.push_back(msg);
}

void PredictionRecorder::onMessageEnd(std::uint64_t id, double time, bool arrived) {
    const auto it = byId_.find(id);
    if (it == byId_.end()) return;
    messages_[it->second].end = arrived ? time : -1.0;
}

void PredictionRecorder::addOffline(int node, double from, double to) {
    auto& list = offline_[node];
    list.emplace_back(from, to);
    std::sort(list.begin(), list.end());
    std::vector<std::pair<double, double>> merged;
    for (const auto& span : list)
        if (!merged.empty() && span.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, span.second);
        else
            merged.push_back(span);
    list = std::move(merged);
}

void PredictionRecorder::onIntervals(const std::vector<NodeInterval>& intervals) {
    // The offline intervals (also a node offline from the start, which has no event).
    for (const NodeInterval& i : intervals)
        if (i.state == NodeState::Offline && i.to > i.from) addOffline(i.node, i.from, i.to);
}

void PredictionRecorder::onEvent(const RunEvent& e) {
    // Going offline opens a span (until the end, if it never comes back), coming back closes
    // it: a span still open when the run ends has no interval.
    if (e.kind == RunEventKind::Offline && e.node >= 0) {
        addOffline(e.node, e.time, std::numeric_limits<double>::infinity());
    } else if (e.kind == RunEventKind::Online && e.node >= 0) {
        auto& list = offline_[e.node];
        for (auto& span : list)
            if (span.first <= e.time && span.second > e.time) span.second = e.time;
    }
}

void PredictionRecorder::submitted(const Job& job, const LocalJob& work) {
    if (!firstStart_) firstStart_ = work.start;
    auto w = std::make_shared<LocalJob>(work);
    w->start.reset();
    w->optimizerState.reset();
    works_[job.id] = std::move(w);
}

void PredictionRecorder::collected(const Job& job, const LocalResult&) {
    collectOrder_.emplace(job.id, collectOrder_.size());
}

std::vector<int> TestbedPlan::pathToRoot(int box) const {
    std::vector<int> path;
    for (int b = box; b >= 0; b = boxes[static_cast<std::size_t>(b)].parent) path.push_back(b);
    return path;
}

double TestbedPlan::pathLatencyMs(int box) const {
    double ms = 0.0;
    for (int b : pathToRoot(box))
        if (boxes[static_cast<std::size_t>(b)].limited) ms += boxes[static_cast<std::size_t>(b)].latencyMs;
    return ms;
}

int TestbedPlan::aggregatorOf(int box) const {
    for (int b = boxes[static_cast<std::size_t>(box)].parent; b >= 0; b = boxes[static_cast<std::size_t>(b)].parent)
        if (boxes[static_cast<std::size_t>(b)].aggregates) return b;
    return 0;
}

std::vector<int> TestbedPlan::linksUp(int box) const {
    std::vector<int> path;
    const int top = aggregatorOf(box);
    for (int b = box; b >= 0 && b != top; b = boxes[static_cast<std::size_t>(b)].parent) path.push_back(b);
    return path;
}

namespace {

/// The training of the plan's processes, from the prediction's recorded data and work.
/// What an aggregator's processes train as: its sync policy (a tiered tree's level plan, or
/// the scenario's) must be one the testbed's aggregation replays.
/// Those are the policies a tiered tree's aggregator may run (LevelUse::usable): their rounds
/// aggregate as Tiered's do, and so as the testbed's processes do.
const SyncPolicyDescriptor& checkTrainedPolicy(const std::string& policy, const std::string& where) {
    const SyncPolicyDescriptor* d = findSyncDescriptor(policy);
    if (!d || !d->level.usable) {
        std::vector<std::string> trained;
        for (const SyncPolicyDescriptor* t : syncDescriptors())
            if (t->level.usable) trained.push_back(t->info.name);
        std::string names;
        for (std::size_t i = 0; i < trained.size(); ++i)
            names += (i == 0 ? "" : i + 1 == trained.size() ? " and " : ", ") + trained[i];
        throw TestbedError(where + "sync policy " + policy + ": the testbed's aggregator trains as " + names +
                           " do; other policies are played without training (--no-training)");
    }
    return *d;
}

/// A tiered tree's aggregator: whether its trainers send gradients, and its server optimiser
/// (as Tiered builds them from resolveLevel).
PlanTraining::Tier tierOf(const Scenario& scenario, const NodeSpec& entry, const std::string& id) {
    const LevelPlan level = resolveLevel(scenario, entry);
    const SyncPolicyDescriptor& d = checkTrainedPolicy(level.sync.name, "aggregator " + id + ": ");
    PlanTraining::Tier t;
    t.gradient = d.level.gradient;
    try {
        t.serverOptimizer = serverOptimizerConfig(scenario.training, level.serverOptimizer);
    } catch (const std::exception& e) {
        throw TestbedError("aggregator " + id + ": " + e.what());
    }
    return t;
}

std::shared_ptr<PlanTraining> planTraining(const Scenario& scenario, const PredictionRecorder& prediction,
                                           const NodeSpec* tieredRoot, const std::string& rootId, bool hierarchical) {
    const std::string& policy = scenario.sync.name;
    // Hierarchical's root averages its edges' models, its edges run FedAvg.
    const SyncPolicyDescriptor* flat = !tieredRoot && !hierarchical ? &checkTrainedPolicy(policy, "") : nullptr;
    const TrainingSpec& t = scenario.training;
    if (t.codecUp != "none" || t.codecDown != "none")
        throw TestbedError("training.codec_up / codec_down: the testbed's processes send the model and update as "
                           "4-byte floats, not encoded; play it without training (--no-training)");
    auto tr = std::make_shared<PlanTraining>();
    tr->data = prediction.data();
    try {
        tr->learner = std::make_shared<Learner>(scenario.model, tr->data->train, tr->data->test, t.backend);
        tr->serverOptimizer = serverOptimizerConfig(t);
    } catch (const std::exception& e) {
        throw TestbedError(std::string("the testbed's learner: ") + e.what());
    }
    tr->parameters = tr->learner->parameterCount();
    tr->initial = std::make_shared<Params>(tr->learner->initialParameters(scenario.seed));
    const ParamsPtr& first = prediction.firstStart();
    if (!first || first->size() != tr->initial->size() ||
        std::memcmp(first->data(), tr->initial->data(), first->size() * sizeof(float)) != 0)
        throw TestbedError("the testbed's initial model is not the one the prediction trained from (internal)");
    tr->gradient = flat && flat->level.gradient; // the same server step
    if (tieredRoot) {
        // The root of a tiered tree runs its own level plan (Tiered: resolveLevel).
        const PlanTraining::Tier root = tierOf(scenario, *tieredRoot, rootId);
        tr->gradient = root.gradient;
        tr->serverOptimizer = root.serverOptimizer;
    }
    tr->momentum = t.momentum;
    tr->weightDecay = t.weightDecay;
    return tr;
}

std::string stem(const std::string& id) {
    const auto dash = id.rfind('-');
    return dash == std::string::npos ? id : id.substr(0, dash + 1) + "*";
}

} // namespace

TestbedPlan buildPlan(const Scenario& scenario, const PredictionRecorder& prediction, int maxBoxes, bool training) {
    const TopologySpec& spec = scenario.topology;
    if (!spec.contention)
        throw TestbedError("the testbed holds the flow-level network model against a real network: set "
                           "topology.contention: true (--set topology.contention=true)");
    // Timed offline and online events (trainers only, as the validator holds) reach the plan as
    // the prediction's offline spans, like Markov and trace availability: stopped and resumed
    // processes. A node event's throughput reaches it as the compute times the prediction drew
    // (played when compute is paced); its price changes only the cost, which the testbed does
    // not measure. The other actions would change links, members or policies.
    std::string pacedOnly;
    for (std::size_t i = 0; i < scenario.events.list.size(); ++i) {
        const TimedEvent& ev = scenario.events.list[i];
        static const char* const kActions[] = {"link", "node", "offline", "online", "add", "remove", "policy"};
        const std::string where = "events[" + std::to_string(i) + "]." + kActions[static_cast<int>(ev.action)];
        if (ev.action == TimedEvent::Action::Node) {
            if (ev.throughput && pacedOnly.empty())
                pacedOnly = where + ": a throughput change is played by holding each job to the compute time the "
                                    "prediction drew (--compute paced); with --compute real the processes' own speed "
                                    "would be measured instead";
            continue;
        }
        if (ev.action != TimedEvent::Action::Offline && ev.action != TimedEvent::Action::Online)
            throw TestbedError(where + ": timed events other than offline, online and node are not played on the "
                                       "testbed yet");
    }
    const Topology topo(spec, scenario.seed);
    const std::vector<int> roots = topo.rootAggregators();
    if (roots.size() != 1)
        throw TestbedError("the testbed plays one root aggregator; this scenario has " + std::to_string(roots.size()));
    const int root = roots[0];
    // A tiered tree (aggregate: on an aggregator, core/policies/tiered.h): every aggregator
    // under the root is a process of its own that runs sessions with its children. Another
    // policy's aggregators under the root (hierarchical's edges, a single server's relaying
    // aggregators) are not played.
    const bool tiered = isTiered(spec);
    // Hierarchical FL (HierFAVG, core/policies/hierarchical.cpp): the edges run tau2 rounds
    // with their devices, then the cloud averages their models; played as sessions too.
    const bool hierarchical = !tiered && scenario.sync.name == "hierarchical";
    if (!tiered && !hierarchical && !topo.childAggregatorsOf(root).empty())
        throw TestbedError("aggregators under the root are played on the testbed as a tiered tree's (aggregate: on "
                           "an aggregator) or hierarchical's edges; sync policy " + scenario.sync.name +
                           " with aggregators under " + topo.id(root) + " is not played on the testbed yet");
    if (hierarchical && !topo.trainersOf(root).empty())
        throw TestbedError("sync policy hierarchical with devices right under " + topo.id(root) +
                           " (not under an edge) is not played on the testbed yet");
    const bool sessions = tiered || hierarchical;
    if (tiered) {
        const TrainingSpec& t = scenario.training;
        if (t.aggregatorCodecUp != "none" || t.aggregatorCodecDown != "none")
            throw TestbedError("training.aggregator_codec_up / aggregator_codec_down: codecs between aggregators are "
                               "not played on the testbed yet");
        if (!spec.links.empty())
            throw TestbedError("topology.links in a tiered tree (aggregate:) are not played on the testbed yet");
    }

    // Rounds from the prediction's global aggregations; a tiered tree's aggregators' own
    // (level > 0) are their sessions' sub-rounds, by aggregator in time order.
    std::vector<AggregationRecord> aggs;
    std::map<std::string, std::vector<const AggregationRecord*>> levelAggs;
    for (const auto& a : prediction.aggregations())
        if (a.level == 0) aggs.push_back(a);
        else if (sessions) levelAggs[a.aggregator].push_back(&a);
        else
            throw TestbedError("the prediction has regional aggregations (level " + std::to_string(a.level) +
                               "): not played on the testbed yet");
    if (aggs.empty()) throw TestbedError("the prediction ended before its first round: nothing to play");

    // Which nodes take part: the trainers dispatched, and every node on their way up. A
    // trainer with an explicit link to the root (topology.links) sends and receives over it
    // alone, as the emulator's path does (Topology::path): its tree parents are not on its way.
    std::set<int> used{root};
    std::map<int, int> explicitOf; // trainer -> its explicit link to the root
    for (const auto& d : prediction.dispatches()) {
        if (d.aggregator != root && !(sessions && d.aggregator >= 0 && topo.aggregates(d.aggregator)))
            throw TestbedError("a dispatch from " + topo.id(d.aggregator) + ", not the root");
        if (d.aggregator == root) {
            const auto hops = topo.path(root, d.trainer);
            if (hops.size() == 1 && hops[0].explicitLink >= 0) {
                explicitOf[d.trainer] = hops[0].explicitLink;
                used.insert(d.trainer);
                continue;
            }
        }
        for (int n = d.trainer; n >= 0; n = topo.parent(n)) used.insert(n);
    }
    for (const auto& [trainer, k] : explicitOf)
        for (int n : used)
            for (int a = topo.parent(n); a >= 0; a = topo.parent(a))
                if (a == trainer && !explicitOf.count(n))
                    throw TestbedError(topo.id(trainer) + " has an explicit link to " + topo.id(root) +
                                       " and nodes under it on their way to the root: not played on the testbed "
                                       "yet (a node has one link to the root's side)");
    for (int n : used) {
        const NodeSpec& e = topo.entry(n);
        if (!e.priceTrace.empty() || !e.linkTrace.empty() || !e.computeTrace.empty() || e.bidUsdPerHour > 0)
            throw TestbedError(topo.id(n) + ": price, link and compute traces and spot bids are not played on the "
                                            "testbed yet (availability changes are: markov or trace)");
        if (e.availability.kind != AvailabilitySpec::Kind::Always && !topo.trains(n))
            throw TestbedError(topo.id(n) + ": availability changes of a node that does not train (an aggregator "
                                            "or a relay) are not played on the testbed yet");
        if (sessions && n != root && topo.aggregates(n) && topo.trains(n))
            throw TestbedError(topo.id(n) + " trains as well as aggregates: not played on the testbed yet");
    }

    TestbedPlan plan;
    plan.scenarioName = scenario.name;
    plan.pacedOnly = pacedOnly;
    std::shared_ptr<PlanTraining> planned;
    if (training && prediction.data() && !prediction.works().empty())
        planned = planTraining(scenario, prediction, tiered ? &topo.entry(root) : nullptr, topo.id(root),
                               hierarchical);
    plan.training = planned;
    std::map<int, int> boxOfNode;
    std::map<std::pair<int, int>, int> cellOf; // (entry, parent node) -> box
    auto addBox = [&](PlanBox b) {
        plan.boxes.push_back(std::move(b));
        if (static_cast<int>(plan.boxes.size()) > maxBoxes)
            throw TestbedError("the testbed runs at most " + std::to_string(maxBoxes) +
                               " processes; this scenario needs more (use fewer trainers, e.g. "
                               "--set selection.k=..., or a smaller group count)");
        return static_cast<int>(plan.boxes.size()) - 1;
    };
    PlanBox rootBox;
    rootBox.label = topo.id(root);
    rootBox.node = root;
    rootBox.aggregates = true;
    boxOfNode[root] = addBox(rootBox);
    // Parents before children: by depth.
    std::vector<int> order(used.begin(), used.end());
    auto depth = [&](int n) {
        int d = 0;
        for (int p = topo.parent(n); p >= 0; p = topo.parent(p)) ++d;
        return d;
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return depth(a) < depth(b); });
    for (int n : order) {
        if (n == root) continue;
        if (const auto ex = explicitOf.find(n); ex != explicitOf.end()) {
            // Its explicit link, a veth pair to the root shaped in each direction as declared
            // (the link's up is from its `from` to its `to`).
            const auto [from, to] = topo.explicitLinkEnds(ex->second);
            const LinkParams& l = topo.explicitLinkParams(ex->second);
            PlanBox b;
            b.label = topo.id(n);
            b.node = n;
            b.trains = topo.trains(n);
            b.parent = boxOfNode.at(root);
            b.limited = b.modelLink = true;
            b.linkName = topo.id(from) + " <-> " + topo.id(to);
            b.upMbps = from == n ? l.bandwidthUpMbps : l.bandwidthDownMbps;
            b.downMbps = from == n ? l.bandwidthDownMbps : l.bandwidthUpMbps;
            b.latencyMs = l.latencyMs;
            boxOfNode[n] = addBox(b);
            continue;
        }
        const int p = topo.parent(n);
        const int parentBox = boxOfNode.at(p);
        const LinkParams* l = topo.uplink(n);
        const NodeSpec& e = topo.entry(n);
        const bool shared = l && e.group && e.linkSharing.value_or(spec.linkSharing) == LinkSharing::Shared;
        PlanBox b;
        b.label = topo.id(n);
        b.node = n;
        b.trains = topo.trains(n);
        b.aggregates = sessions && topo.aggregates(n);
        if (shared) {
            const auto key = std::make_pair(topo.entryIndex(n), p);
            auto it = cellOf.find(key);
            if (it == cellOf.end()) {
                PlanBox cell;
                cell.label = "cell " + stem(topo.id(n)) + " @ " + topo.id(p);
                cell.parent = parentBox;
                cell.limited = cell.modelLink = true;
                cell.linkName = stem(topo.id(n)) + " -> " + topo.id(p);
                cell.upMbps = l->bandwidthUpMbps;
                cell.downMbps = l->bandwidthDownMbps;
                cell.latencyMs = l->latencyMs;
                it = cellOf.emplace(key, addBox(cell)).first;
            }
            b.parent = it->second; // an unshaped port of the cell
        } else {
            b.parent = parentBox;
            if (l) {
                b.limited = b.modelLink = true;
                b.linkName = topo.id(n) + " -> " + topo.id(p);
                b.upMbps = l->bandwidthUpMbps;
                b.downMbps = l->bandwidthDownMbps;
                b.latencyMs = l->latencyMs;
            }
        }
        boxOfNode[n] = addBox(b);
    }
    // Interface limits: folded into the one link of a node that has one; refused elsewhere.
    for (int n : order) {
        const double nic = topo.entry(n).nicMbps;
        if (nic <= 0) continue;
        const int b = boxOfNode.at(n);
        std::vector<int> links;
        if (plan.boxes[static_cast<std::size_t>(b)].parent >= 0) links.push_back(b);
        for (std::size_t c = 0; c < plan.boxes.size(); ++c)
            if (plan.boxes[c].parent == b) links.push_back(static_cast<int>(c));
        if (links.size() != 1)
            throw TestbedError(topo.id(n) + ": nic_mbps on a node with " + std::to_string(links.size()) +
                               " links is not played on the testbed yet (only on a node with one link)");
        // Its one link carries all its traffic: each direction is capped by the interface.
        PlanBox& lb = plan.boxes[static_cast<std::size_t>(links[0])];
        if (!lb.limited) {
            lb.limited = true;
            lb.upMbps = lb.downMbps = 1e9;
        }
        lb.upMbps = std::min(lb.upMbps, nic);
        lb.downMbps = std::min(lb.downMbps, nic);
    }

    // A tiered tree's intermediate aggregators train as their own level plans say.
    if (planned)
        for (std::size_t b = 1; b < plan.boxes.size(); ++b)
            if (plan.boxes[b].aggregates)
                // Hierarchical's edges run FedAvg without a server optimiser (TwoLevelPolicy).
                planned->tiers[static_cast<int>(b)] =
                    hierarchical ? PlanTraining::Tier{}
                                 : tierOf(scenario, topo.entry(plan.boxes[b].node), plan.boxes[b].label);

    // Messages by their two ends, in the order sent: the k-th model from an aggregator to a
    // trainer and the k-th update back belong to the trainer's k-th dispatch; in a tiered
    // tree the k-th model to a child aggregator and the k-th change back are its k-th session.
    std::map<std::pair<int, int>, std::vector<const PredictionRecorder::Message*>> between;
    for (const auto& m : prediction.messages()) between[{m.from, m.to}].push_back(&m);
    std::map<int, std::vector<const JobPlan*>> dispatchesOf; // aggregator -> its dispatches, in order
    for (const auto& d : prediction.dispatches()) dispatchesOf[d.aggregator].push_back(&d);
    std::map<int, std::size_t> nextDispatch, nextLevelAgg; // cursors per aggregator node
    std::map<std::pair<int, int>, std::size_t> sessionsSeen; // (parent, child aggregator)
    // A deadline (fedavg's, and FedProx's and SCAFFOLD's without training): a round ends at
    // it with the updates in by then (RoundPolicy::beginRound). (In a tiered tree a deadline
    // that cut a round shows as a cancelled job, refused below.)
    const std::string& policy = scenario.sync.name;
    const SyncPolicyDescriptor* syncD = findSyncDescriptor(policy);
    const double deadline =
        !tiered && syncD && syncD->roundDeadline ? syncD->roundDeadline.read(resolveSyncParams(scenario.sync)) : 0.0;
    // An update's bytes, for a job cancelled before its upload started (no message of its own).
    double anyUpdateBytes = -1.0;
    for (const auto& [ends, list] : between)
        if (ends.second == root && topo.trains(ends.first) && !list.empty() && anyUpdateBytes < 0)
            anyUpdateBytes = list.front()->bytes;
    std::map<int, std::size_t> seen, upSeen;

    // One trainer's job, dispatched by `agg` in a round that started at `roundStart`.
    auto trainerJob = [&](const JobPlan& d, int agg, double roundStart, int roundNo) {
        const std::string round = "round " + std::to_string(roundNo);
        if (d.trainer == agg)
            throw TestbedError(topo.id(agg) + " trains as well as aggregates: not played on the testbed yet");
        const std::size_t k = seen[d.trainer]++;
        const auto& dm = between[{agg, d.trainer}];
        const auto& um = between[{d.trainer, agg}];
        // A job that ended without arriving: its trainer went offline (lost), or the
        // policy cancelled it when its round ended without it (n-sync's late updates).
        const auto endedAt = prediction.ended().find(d.id);
        const bool ended = endedAt != prediction.ended().end();
        if (ended && sessions)
            throw TestbedError(round + ": " + topo.id(d.trainer) + "'s job from " + topo.id(agg) +
                               " was lost or cancelled; in a tiered tree (aggregate:) or hierarchical's edges that "
                               "is not played on the testbed yet (every job's update must arrive)");
        // Lost: its trainer went offline then; else the policy cancelled it.
        bool offlineThen = false;
        if (ended)
            if (const auto off = prediction.offline().find(d.trainer); off != prediction.offline().end())
                for (const auto& span : off->second)
                    offlineThen = offlineThen || std::fabs(span.first - endedAt->second) < 1e-9;
        const bool lost = ended && offlineThen;
        const bool cancelled = ended && !offlineThen;
        std::size_t& ku = upSeen[d.trainer];
        // A lost job's upload, if it had started, was cut (it never arrived).
        const bool hasUpload = ku < um.size() && (!ended || (um[ku]->end < 0 && um[ku]->depart <= endedAt->second));
        if (k >= dm.size() || (!ended && !hasUpload))
            throw TestbedError(round + ": the prediction has no model or update message for " + topo.id(d.trainer) +
                               "'s job");
        PlanJob j;
        j.trainerBox = boxOfNode.at(d.trainer);
        j.offsetS = d.start - roundStart;
        j.downBytes = dm[k]->bytes;
        j.predictedReceivedS = dm[k]->end;
        if (lost) {
            j.lost = true;
            j.lostS = endedAt->second;
            // The emulator cut the model's transfer when the trainer went offline (unless
            // it was in already): only what the path's slowest link carried by then goes
            // down, so that the rest does not hold up the trainer's next model when it
            // is back. (Under contention the emulator's share was smaller, if anything.)
            if (!(dm[k]->end >= 0 && dm[k]->end <= j.lostS)) {
                double mbps = 1e300;
                for (int b : plan.pathToRoot(j.trainerBox)) {
                    const PlanBox& pb = plan.boxes[static_cast<std::size_t>(b)];
                    if (pb.limited) mbps = std::min(mbps, pb.downMbps);
                }
                const double seconds = j.lostS - d.start - plan.pathLatencyMs(j.trainerBox) / 1000.0;
                if (mbps < 1e300) j.downBytes = std::clamp(std::floor(seconds * mbps * 1e6 / 8.0), 0.0, j.downBytes);
            }
            j.upBytes = 0.0; // no update comes back
            j.computeS = 0.0;
            j.predictedArriveS = j.lostS;
            if (hasUpload) ++ku;
        } else if (cancelled) {
            // n-sync's late updates, or a deadline's (the round ended at it).
            const bool atDeadline = deadline > 0 && std::fabs(endedAt->second - (roundStart + deadline)) < 1e-6;
            // A first-k barrier's late updates (n-sync's), or a deadline's.
            const bool firstK = syncD && syncD->hasBarrier && syncD->barrier.kind == BarrierKind::FirstK;
            if (!firstK && !atDeadline)
                throw TestbedError(round + ": " + policy + " cancels " + topo.id(d.trainer) +
                                   "'s job when the round ends without it: not played on "
                                   "the testbed yet (n-sync's late updates and a deadline's are)");
            // It trains and sends; the aggregator discards it if it comes late. Its
            // update's bytes: its cut upload's, else those of a delivered update of the
            // round (finishRound).
            j.cancelled = true;
            j.lostS = endedAt->second;
            j.upBytes = hasUpload ? um[ku]->bytes : -1.0;
            j.predictedUpBytes = hasUpload ? um[ku++]->bytes : 0.0;
            j.computeS = d.computed - d.received;
            j.predictedArriveS = j.lostS;
        } else {
            const auto* u = um[ku++];
            j.upBytes = j.predictedUpBytes = u->bytes;
            j.computeS = d.computed - d.received;
            j.predictedArriveS = u->end;
        }
        if (plan.training && !lost && !(cancelled && prediction.works().count(d.id) == 0)) {
            const auto w = prediction.works().find(d.id);
            const auto order = prediction.collectOrder().find(d.id);
            if (w == prediction.works().end() || (!cancelled && order == prediction.collectOrder().end()))
                throw TestbedError(round + ": the prediction has no local work for " + topo.id(d.trainer) +
                                   "'s job (internal)");
            const LocalJob& lw = *w->second;
            if (lw.probe || lw.proxMu != 0.0 || lw.correction)
                throw TestbedError(round + ": " + topo.id(d.trainer) +
                                   "'s job probes its steps or has a client algorithm's terms: not trained on "
                                   "the testbed (--no-training)");
            const double floats = 4.0 * static_cast<double>(plan.training->parameters);
            // (A cancelled job's update size unknown yet (-1) is a delivered one's, checked.)
            if (std::llround(j.downBytes) < floats || (j.upBytes >= 0 && std::llround(j.upBytes) < floats))
                throw TestbedError(round + ": the model moves " + std::to_string(std::llround(j.downBytes)) +
                                   " bytes down and " + std::to_string(std::llround(j.upBytes)) + " up, less than its " +
                                   std::to_string(plan.training->parameters) +
                                   " parameters as 4-byte floats (model.wire_bytes): the processes cannot "
                                   "send it in the emulator's byte count; play it without training "
                                   "(--no-training)");
            j.work = w->second;
            // A cancelled job was never collected: it comes after the others if taken.
            j.aggregationRank = order != prediction.collectOrder().end() ? order->second : SIZE_MAX;
        }
        return j;
    };

    // The checks and sums of a round whose jobs are in.
    auto finishRound = [&](PlanRound& r, double roundDeadline) {
        const std::string round = "round " + std::to_string(r.round);
        int delivered = 0;
        double updateBytes = -1.0;
        for (const PlanJob& j : r.jobs)
            if (!j.lost && !j.cancelled) {
                ++delivered;
                if (!j.session()) updateBytes = j.upBytes;
            }
        if (updateBytes < 0) updateBytes = anyUpdateBytes;
        // Without codecs an update is as large as the model (the engine's wire size both ways).
        const bool noCodecs = scenario.training.codecUp == "none" && scenario.training.codecDown == "none";
        for (PlanJob& j : r.jobs)
            if (j.cancelled && j.upBytes < 0) {
                if (updateBytes < 0 && noCodecs) {
                    j.upBytes = j.downBytes;
                    continue;
                }
                if (updateBytes < 0)
                    throw TestbedError(round + ": a cancelled job's update size is not "
                                       "known (no update of the round arrived): not played on the testbed yet");
                j.upBytes = updateBytes;
            }
        r.needed = r.participants;
        r.deadlineS = roundDeadline;
        // A deadline's round waits for every update still coming, until the deadline.
        if (roundDeadline > 0) {
            r.needed = 0;
            for (const PlanJob& j : r.jobs) r.needed += j.lost ? 0 : 1;
        }
        if (delivered != r.participants)
            throw TestbedError(round + (r.aggregatorBox != 0 ? " (" + plan.boxes[static_cast<std::size_t>(r.aggregatorBox)].label + "'s sub-round)" : std::string()) +
                               " aggregates " + std::to_string(r.participants) + " of the " +
                               std::to_string(delivered) +
                               " updates that arrived in it: the testbed plays round-based policies that "
                               "aggregate the updates that arrive (fedavg, fully-sync, n-sync; not asynchronous "
                               "policies yet)");
        // With a child aggregator's change among them, the updates are summed in the order the
        // tiered policy had them: as they arrived (a change arrives with its message).
        bool anySession = false;
        for (const PlanJob& j : r.jobs) anySession = anySession || j.session();
        if (anySession && !r.averages) {
            std::vector<std::size_t> order(r.jobs.size());
            for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
                const PlanJob &a = r.jobs[x], &b = r.jobs[y];
                return a.predictedArriveS != b.predictedArriveS ? a.predictedArriveS < b.predictedArriveS
                                                                : a.aggregationRank < b.aggregationRank;
            });
            for (std::size_t k = 0; k < order.size(); ++k) r.jobs[order[k]].aggregationRank = k;
        }
        for (const PlanJob& j : r.jobs)
            for (int b : plan.linksUp(j.trainerBox)) {
                PlanBox& pb = plan.boxes[static_cast<std::size_t>(b)];
                if (!pb.modelLink) continue;
                pb.predictedDownBytes += j.downBytes;
                pb.predictedUpBytes += j.predictedUpBytes;
            }
    };

    // A round's jobs: the dispatches of its aggregator `agg` before `end`, and in a tiered
    // tree the sessions of its child aggregators whose model left before `end`.
    std::function<PlanJob(int, int, double, int, std::size_t)> sessionJob;
    auto fillRound = [&](PlanRound& r, int agg, double end) {
        std::set<int> trainersThisRound;
        const auto& list = dispatchesOf[agg];
        std::size_t& next = nextDispatch[agg];
        while (next < list.size() && list[next]->start < end) {
            const JobPlan& d = *list[next++];
            if (!trainersThisRound.insert(d.trainer).second)
                throw TestbedError("round " + std::to_string(r.round) + " gives " + topo.id(d.trainer) +
                                   " more than one job: not played on the testbed yet");
            r.jobs.push_back(trainerJob(d, agg, r.startS, r.round));
        }
        if (hierarchical && agg == root) {
            // Every edge with devices is a group: one session each global round, in the
            // order of the groups (TwoLevelPolicy averages them in that order).
            std::size_t rank = 0;
            for (int child : topo.childAggregatorsOf(root)) {
                if (topo.trainersOf(child).empty()) continue;
                r.jobs.push_back(sessionJob(agg, child, r.startS, r.round, r.rootRound));
                r.jobs.back().aggregationRank = rank++;
            }
            r.averages = true;
            return;
        }
        if (!tiered) return;
        for (int child : topo.childAggregatorsOf(agg)) {
            const auto& dm = between[{agg, child}];
            while (sessionsSeen[{agg, child}] < dm.size() && dm[sessionsSeen[{agg, child}]]->depart < end) {
                if (!used.count(child))
                    throw TestbedError("round " + std::to_string(r.round) + ": " + topo.id(child) +
                                       " received a model but dispatched no job: not played on the testbed yet");
                r.jobs.push_back(sessionJob(agg, child, r.startS, r.round, r.rootRound));
            }
        }
    };

    // A child aggregator's session: the model goes down, its sub-rounds (its own level
    // aggregations, aggregate.rounds of them), the change goes up.
    sessionJob = [&](int parentNode, int child, double roundStart, int roundNo, std::size_t rootRound) {
        const std::string round = "round " + std::to_string(roundNo);
        const std::string& id = topo.id(child);
        const std::size_t k = sessionsSeen[{parentNode, child}]++;
        const auto& dm = between[{parentNode, child}];
        const auto& um = between[{child, parentNode}];
        // Hierarchical's edges start their first session at t = 0 from the initial model:
        // their k-th model from the cloud starts their (k+1)-th session.
        const bool fromInitial = hierarchical && k == 0;
        const std::size_t kd = hierarchical ? k - 1 : k;
        if (!fromInitial && (kd >= dm.size() || dm[kd]->end < 0))
            throw TestbedError(round + ": " + id + "'s model from " + topo.id(parentNode) + " did not arrive; an "
                               "abandoned session is not played on the testbed yet");
        if (k >= um.size() || um[k]->end < 0)
            throw TestbedError(round + ": " + id + "'s session was abandoned (its parent's round ended without its "
                               "change) or its change did not arrive: not played on the testbed yet");
        PlanJob j;
        j.trainerBox = boxOfNode.at(child);
        j.fromInitial = fromInitial;
        j.offsetS = fromInitial ? 0.0 : dm[kd]->depart - roundStart;
        j.downBytes = fromInitial ? 0.0 : dm[kd]->bytes;
        j.predictedReceivedS = fromInitial ? roundStart : dm[kd]->end;
        j.upBytes = j.predictedUpBytes = um[k]->bytes;
        j.predictedArriveS = um[k]->end;
        if (hierarchical) {
            // The group's weight: the samples its trainers hold (TwoLevelPolicy::start), each
            // trainer's part of the data in topology order (Engine::samplesOf).
            const std::vector<int> all = topo.trainers();
            for (int t : topo.trainersOf(child)) {
                const auto at = std::find(all.begin(), all.end(), t) - all.begin();
                if (plan.training && static_cast<std::size_t>(at) < plan.training->data->parts.size())
                    j.averageWeight += static_cast<double>(plan.training->data->parts[static_cast<std::size_t>(at)].size());
            }
        }
        if (plan.training) {
            const double floats = 4.0 * static_cast<double>(plan.training->parameters);
            if ((!fromInitial && std::llround(j.downBytes) < floats) || std::llround(j.upBytes) < floats)
                throw TestbedError(round + ": " + id + "'s model moves fewer bytes than its parameters as 4-byte "
                                   "floats (model.wire_bytes); play it without training (--no-training)");
        }
        const int count = hierarchical ? std::max(1, static_cast<int>(scenario.sync.get("tau2", 2.0)))
                                       : std::max(1, resolveLevel(scenario, topo.entry(child)).rounds);
        const auto& mine = levelAggs[id];
        std::size_t& cursor = nextLevelAgg[child];
        if (cursor + static_cast<std::size_t>(count) > mine.size())
            throw TestbedError(round + ": the prediction has fewer aggregations of " + id + " than its session " +
                               "plays (internal)");
        j.sessionFirst = plan.subRounds.size();
        j.sessionRounds = count;
        plan.subRounds.resize(plan.subRounds.size() + static_cast<std::size_t>(count));
        double start = j.predictedReceivedS; // the session starts when the model is in (no codec work)
        for (int s = 0; s < count; ++s) {
            const AggregationRecord& a = *mine[cursor++];
            PlanRound r;
            r.round = roundNo;
            r.startS = start;
            r.endS = a.time;
            r.participants = a.participants;
            r.learningRate = a.learningRate;
            r.aggregatorBox = j.trainerBox;
            r.rootRound = rootRound;
            fillRound(r, child, a.time);
            finishRound(r, 0.0);
            plan.subRounds[j.sessionFirst + static_cast<std::size_t>(s)] = std::move(r);
            start = a.time;
        }
        if (std::fabs(um[k]->depart - start) > 1e-9)
            throw TestbedError(round + ": " + id + "'s change left at " + std::to_string(um[k]->depart) +
                               " s, not at its session's last aggregation (internal)");
        return j;
    };

    double previous = 0.0;
    for (const auto& a : aggs) {
        PlanRound r;
        r.round = a.round;
        r.startS = previous;
        r.endS = a.time;
        r.participants = a.participants;
        r.learningRate = a.learningRate;
        r.evaluate = !std::isnan(a.testLoss);
        r.rootRound = plan.rounds.size();
        fillRound(r, root, a.time);
        finishRound(r, deadline);
        plan.rounds.push_back(std::move(r));
        previous = a.time;
    }

    // Availability: each node's offline spans within the rounds played, and the changes
    // anchored to the round each happens in.
    const double lastEnd = plan.rounds.back().endS;
    auto roundAt = [&](double t) {
        std::size_t ri = 0;
        while (ri + 1 < plan.rounds.size() && t >= plan.rounds[ri].endS) ++ri;
        return ri;
    };
    for (std::size_t b = 0; b < plan.boxes.size(); ++b) {
        PlanBox& pb = plan.boxes[b];
        if (pb.node < 0) continue;
        const auto it = prediction.offline().find(pb.node);
        if (it == prediction.offline().end()) continue;
        for (const auto& [from, to] : it->second) {
            if (from >= lastEnd) break;
            pb.offline.emplace_back(std::max(from, 0.0), std::min(to, lastEnd));
            for (const auto& [t, online] : {std::make_pair(std::max(from, 0.0), false), std::make_pair(to, true)}) {
                if (t >= lastEnd) continue;
                const std::size_t ri = roundAt(t);
                plan.availability.push_back({static_cast<int>(b), ri, t - plan.rounds[ri].startS, online});
            }
        }
    }
    std::stable_sort(plan.availability.begin(), plan.availability.end(),
                     [](const TestbedPlan::Transition& x, const TestbedPlan::Transition& y) {
                         return x.round != y.round ? x.round < y.round : x.offsetS < y.offsetS;
                     });
    return plan;
}

} // namespace fog::testbed
