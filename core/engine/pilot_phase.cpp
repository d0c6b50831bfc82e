// The pilot phase (see pilot_phase.h).

#include "core/engine/pilot_phase.h"

#include <algorithm>
#include <cmath>

namespace fog {

PilotPhase::PilotPhase(const PilotRequest& request, SystemView& system, WorkDispatch& work, Host& host,
                       const Learner& learner)
    : system_(system), work_(work), host_(host), learner_(learner), request_(request) {
    std::vector<int> candidates;
    for (int t : request.candidates)
        if (std::find(candidates.begin(), candidates.end(), t) == candidates.end()) candidates.push_back(t);
    request_.candidates = candidates;
    want_ = std::min<std::size_t>(static_cast<std::size_t>(request.trainers), candidates.size());
    if (want_ == 0) throw EngineError(request.by + ": the pilot phase has no trainer to run on");
}

void PilotPhase::start() {
    const EvalResult e0 = learner_.evaluate(*system_.initialModel());
    initialLoss_ = e0.samples > 0 ? e0.loss : kNaN;
    initialAccuracy_ = e0.samples > 0 ? e0.accuracy : kNaN;
    fill(); // trainers offline now are tried again when one comes online
}

void PilotPhase::fill() {
    if (!active_) return;
    for (int t : request_.candidates) {
        if (arrived_.size() + inFlight_.size() >= want_) return;
        if (arrived_.count(t) || !system_.isOnline(t) || system_.isBusy(t)) continue;
        DispatchRequest r;
        r.trainer = t;
        r.aggregator = request_.aggregator >= 0 ? request_.aggregator : system_.serverOf(t);
        r.model = system_.initialModel();
        r.steps = std::max(1, request_.steps);
        r.gradient = false;
        r.round = 0;
        r.options.probe = true;
        inFlight_[work_.dispatch(r)] = t;
    }
}

void PilotPhase::arrived(const Job& job, const LocalResult& result) {
    inFlight_.erase(job.id);
    arrived_.insert(job.trainer);
    const Topology& topo = system_.topology();
    PilotTrace tr;
    tr.node = job.trainer;
    tr.id = topo.id(job.trainer);
    tr.batch = job.batchSizes.empty() ? system_.scenario().training.batchSize : job.batchSizes.front();
    tr.nominalStepSeconds = tr.batch / topo.throughput(job.trainer);
    double from = job.tReceived;
    for (double end : job.stepEnds) {
        tr.stepSeconds.push_back(end - from);
        from = end;
    }
    tr.commSeconds = (job.tReceived - job.tStart) + (job.tArrive - job.tComputed);
    tr.probes = result.probes;
    tr.firstGradient = result.firstGradient;
    const Params& initial = *system_.initialModel();
    if (result.update.size() == initial.size()) {
        Params end = initial;
        for (std::size_t i = 0; i < end.size(); ++i) end[i] += result.update[i];
        const EvalResult e = learner_.evaluate(end);
        if (e.samples > 0) {
            tr.testLoss = e.loss;
            tr.testAccuracy = e.accuracy;
        }
    }
    traces_.push_back(std::move(tr));
    if (arrived_.size() >= want_) finish();
}

void PilotPhase::lost(const Job& job) {
    inFlight_.erase(job.id);
    fill(); // another online candidate, or this one when it is back
}

void PilotPhase::finish() {
    // Traces in candidate order, whatever order they arrived in.
    std::vector<PilotTrace> ordered;
    for (int t : request_.candidates)
        for (auto& tr : traces_)
            if (tr.node == t) ordered.push_back(std::move(tr));
    estimates_ = estimatePilot(ordered, system_.learningRate(), initialLoss_, initialAccuracy_);
    estimates_.startTime = 0.0;
    estimates_.endTime = system_.now();
    for (int t : arrived_) host_.giveBack(t);
    estimates_.cost = host_.costNow();
    active_ = false;
    host_.pilotFinished(estimates_);
}

} // namespace fog
