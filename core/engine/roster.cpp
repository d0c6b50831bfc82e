// Who trains for whom, on which data (see roster.h).

#include "core/engine/roster.h"
#include "core/engine/timed_events.h"
#include "core/util/engine_error.h"

#include <string>

namespace fog {

namespace {

std::vector<double> dataShares(const Topology& topo, const std::vector<int>& trainers) {
    std::vector<double> weights;
    weights.reserve(trainers.size());
    for (int t : trainers) weights.push_back(topo.dataShare(t));
    return weights;
}

std::vector<int> startingTrainers(const Topology& topo) {
    std::vector<int> out;
    for (int t : topo.trainers())
        if (!topo.joinsLater(t)) out.push_back(t);
    return out;
}

/// The run's data as loadData splits them over the starting trainers, plus each member that
/// joins later its own sample (TimedEvents::addJoiningParts).
DataBundle loadRunData(const Scenario& s, const Topology& topo) {
    const std::vector<int> trainers = startingTrainers(topo);
    DataBundle b = loadData(s.data, dataShares(topo, trainers), s.seed);
    if (trainers.size() < topo.trainers().size()) TimedEvents::addJoiningParts(b, topo, trainers.size(), s.seed);
    return b;
}

} // namespace

Roster::Roster(const Scenario& scenario, const Topology& topo, std::shared_ptr<const DataBundle> given, bool relay)
    : scenario_(scenario), topo_(topo), starting_(startingTrainers(topo)), data_(std::move(given)) {
    // Members that join during the run (`add` events) are not there yet: the data are split
    // over the others exactly as without them, and each newcomer brings its own sample
    // (TimedEvents::addJoiningParts).
    const auto allTrainers = topo_.trainers();
    const std::vector<int>& trainers = starting_;
    if (trainers.empty()) throw EngineError("the topology has no trainer under an aggregator");

    // Data: parts follow the trainers in topology order, weighted by their data_share. A
    // timing-only run needs only how many samples each trainer holds.
    if (!data_ && scenario_.data.kind == DataSpec::Kind::None && scenario_.model.kind == ModelSpec::Kind::None) {
        if (scenario_.data.samplesPerTrainer < 0) throw DataError("data: samplesPerTrainer must be >= 0");
        auto b = std::make_shared<DataBundle>();
        b->train.width = b->test.width = 0;
        data_ = b;
        uniformPart_ = scenario_.data.samplesPerTrainer;
    } else if (!data_) {
        data_ = std::make_shared<DataBundle>(loadRunData(scenario_, topo_));
    } else if (uniformPart_ < 0 && allTrainers.size() > trainers.size() && data_->parts.size() == trainers.size()) {
        DataBundle b = *data_; // data shared with other runs: this run's copy gets the newcomers' parts
        TimedEvents::addJoiningParts(b, topo_, trainers.size(), scenario_.seed);
        data_ = std::make_shared<DataBundle>(std::move(b));
    }
    if (uniformPart_ < 0 && data_->parts.size() < allTrainers.size())
        throw EngineError("the data are split into " + std::to_string(data_->parts.size()) +
                          " parts but the topology has " + std::to_string(allTrainers.size()) +
                          " trainers");
    trainerPart_.assign(topo_.size(), -1);
    for (std::size_t i = 0; i < allTrainers.size(); ++i) {
        trainerPart_[allTrainers[i]] = static_cast<int>(i);
        if (uniformPart_ >= 0 ? uniformPart_ == 0 : data_->parts[i].empty())
            throw EngineError("trainer '" + topo_.node(allTrainers[i]).spec.id +
                              "' received no training samples: use fewer trainers, more data "
                              "or another partition");
    }

    server_.assign(topo_.size(), -1);
    for (int i = 0; i < topo_.size(); ++i) {
        int a = topo_.aggregator(i);
        while (relay && a >= 0 && topo_.aggregator(a) >= 0) a = topo_.aggregator(a);
        server_[i] = a;
    }
    for (int t : trainers) trainersOf_[server_[t]].push_back(t); // newcomers when they join
}

const DataBundle& Roster::data() const {
    if (uniformPart_ >= 0) {
        // What loadData gives a timing-only run: every trainer holds indices 0 .. n-1.
        data_ = std::make_shared<DataBundle>(loadRunData(scenario_, topo_));
        uniformPart_ = -1;
    }
    return *data_;
}

std::int64_t Roster::samplesOf(int trainer) const {
    const int p = trainerPart_.at(trainer);
    if (p < 0) return 0;
    return uniformPart_ >= 0 ? uniformPart_ : static_cast<std::int64_t>(data_->parts[p].size());
}

const std::vector<std::int64_t>& Roster::part(int trainer) const { return data_->parts[trainerPart_[trainer]]; }

const std::vector<int>& Roster::trainersOf(int aggregator) const {
    static const std::vector<int> none;
    const auto it = trainersOf_.find(aggregator);
    return it == trainersOf_.end() ? none : it->second;
}

void Roster::join(int n) {
    if (topo_.trains(n) && server_[static_cast<std::size_t>(n)] >= 0)
        trainersOf_[server_[static_cast<std::size_t>(n)]].push_back(n);
}

} // namespace fog
