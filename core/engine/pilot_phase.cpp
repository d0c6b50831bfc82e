// The pilot phase of the calibrated planners (core/planning/pilot.h, docs/policies.md):
// before the policies start, the planner's first `trainers` online candidates each run
// `steps` local steps from the initial model with the learner's probes on. They are
// ordinary dispatches (time, cost, energy, traffic and timelines counted as any work);
// their results do not touch the model. When every pilot dispatch has arrived the
// estimates are made, the pilot trainers are given back (billed again only if a policy
// uses them) and the selection and sync policies start at that virtual time.
//
// A timing-only run has no loss to measure: no pilot runs and pilot() stays null (the
// planners then use their documented fallback constants).

#include "core/engine/engine.h"
#include "core/policies/selection_policy.h"
#include "core/policies/sync_policy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace fog {

struct Engine::PilotState {
    PilotRequest request;
    std::size_t want = 0;
    std::map<std::uint64_t, int> inFlight; ///< job id -> trainer
    std::set<int> arrived;
    std::vector<PilotTrace> traces;
    double initialLoss = kNaN, initialAccuracy = kNaN;
    bool active = false;
    PilotEstimates estimates;
};

const PilotEstimates* Engine::pilot() const {
    return pilot_ && !pilot_->active ? &pilot_->estimates : nullptr;
}

bool Engine::pilotActive() const { return pilot_ && pilot_->active; }

bool Engine::pilotOwns(std::uint64_t jobId) const { return pilot_ && pilot_->inFlight.count(jobId) > 0; }

void Engine::startPolicies() {
    PilotRequest req = sync_->pilotRequest(*this);
    if (req.trainers <= 0) req = selection_->pilotRequest(*this);
    if (req.trainers <= 0 || !learner_) {
        selection_->start(*this); // may report a plan before the first round
        sync_->start(*this);
        return;
    }
    pilot_ = std::make_shared<PilotState>();
    pilot_->request = req;
    pilot_->active = true;
    std::vector<int> candidates;
    for (int t : req.candidates)
        if (std::find(candidates.begin(), candidates.end(), t) == candidates.end()) candidates.push_back(t);
    pilot_->request.candidates = candidates;
    pilot_->want = std::min<std::size_t>(static_cast<std::size_t>(req.trainers), candidates.size());
    if (pilot_->want == 0) throw EngineError(req.by + ": the pilot phase has no trainer to run on");
    const EvalResult e0 = learner_->evaluate(*initialModel_);
    pilot_->initialLoss = e0.samples > 0 ? e0.loss : kNaN;
    pilot_->initialAccuracy = e0.samples > 0 ? e0.accuracy : kNaN;
    pilotFill(); // trainers offline now are tried again when one comes online
}

void Engine::pilotFill() {
    if (!pilotActive()) return;
    PilotState& p = *pilot_;
    for (int t : p.request.candidates) {
        if (p.arrived.size() + p.inFlight.size() >= p.want) return;
        if (p.arrived.count(t) || !nodes_.online(t) || nodes_.job(t)) continue;
        DispatchRequest r;
        r.trainer = t;
        r.aggregator = p.request.aggregator >= 0 ? p.request.aggregator : serverOf(t);
        r.model = initialModel_;
        r.steps = std::max(1, p.request.steps);
        r.gradient = false;
        r.round = 0;
        r.options.probe = true;
        p.inFlight[dispatch(r)] = t;
    }
}

void Engine::pilotArrived(const Job& job, const LocalResult& result) {
    PilotState& p = *pilot_;
    p.inFlight.erase(job.id);
    p.arrived.insert(job.trainer);
    PilotTrace tr;
    tr.node = job.trainer;
    tr.id = topo_.id(job.trainer);
    tr.batch = job.batchSizes.empty() ? scenario_.training.batchSize : job.batchSizes.front();
    tr.nominalStepSeconds = tr.batch / topo_.throughput(job.trainer);
    double from = job.tReceived;
    for (double end : job.stepEnds) {
        tr.stepSeconds.push_back(end - from);
        from = end;
    }
    tr.commSeconds = (job.tReceived - job.tStart) + (job.tArrive - job.tComputed);
    tr.probes = result.probes;
    tr.firstGradient = result.firstGradient;
    if (learner_ && result.update.size() == initialModel_->size()) {
        Params end = *initialModel_;
        for (std::size_t i = 0; i < end.size(); ++i) end[i] += result.update[i];
        const EvalResult e = learner_->evaluate(end);
        if (e.samples > 0) {
            tr.testLoss = e.loss;
            tr.testAccuracy = e.accuracy;
        }
    }
    p.traces.push_back(std::move(tr));
    if (p.arrived.size() >= p.want) finishPilot();
}

void Engine::pilotLost(const Job& job) {
    pilot_->inFlight.erase(job.id);
    pilotFill(); // another online candidate, or this one when it is back
}

void Engine::finishPilot() {
    PilotState& p = *pilot_;
    // Traces in candidate order, whatever order they arrived in.
    std::vector<PilotTrace> ordered;
    for (int t : p.request.candidates)
        for (auto& tr : p.traces)
            if (tr.node == t) ordered.push_back(std::move(tr));
    p.estimates = estimatePilot(ordered, learningRate(), p.initialLoss, p.initialAccuracy);
    p.estimates.startTime = 0.0;
    p.estimates.endTime = now();
    for (int t : p.arrived) nodes_.giveBack(t, now());
    p.estimates.cost = costAt(now());
    p.active = false;
    emitEvent(RunEventKind::Plan, -1, p.estimates.describe());
    selection_->start(*this);
    sync_->start(*this);
}

} // namespace fog
