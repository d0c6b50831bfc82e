#include "core/engine/accounting.h"

namespace fog {

Accounting::Accounting(const Topology& topo, NodeRuntime& nodes, double flopsPerSample, std::vector<int> regionServers)
    : topo_(topo), nodes_(nodes), flopsPerSample_(flopsPerSample), regionServers_(std::move(regionServers)) {
    for (int i = 0; i < topo_.size(); ++i)
        anyAggregationEnergy_ = anyAggregationEnergy_ || topo_.entry(i).energy.perUpdateAggregatedJ > 0;
}

void Accounting::chargeTransfer(int from, int to, double bytes, double price) {
    trafficCost_ += price;
    bytes_ += bytes;
    nodes_.addEnergy(from, bytes * topo_.entry(from).energy.perByteJ, Energy::Network);
    chargeReceived(to, bytes);
}

void Accounting::chargeHop(const Network::HopBytes& h) {
    if (h.link) trafficCost_ += h.link->pricePerGb * h.bytes / 1e9;
    bytes_ += h.bytes;
    // The source pays its energy per byte on the bytes its own hop sent; every node that
    // forwards bytes (a relay, any intermediate hop) pays its energy per byte forwarded.
    // The hop's receiver spends its energy per byte received on the same bytes.
    if (h.hop == 0) nodes_.addEnergy(h.source, h.bytes * topo_.entry(h.source).energy.perByteJ, Energy::Network);
    if (h.sender != h.source)
        nodes_.addEnergy(h.sender, h.bytes * topo_.entry(h.sender).energy.perByteForwardedJ, Energy::Network);
    if (h.receiver >= 0) chargeReceived(h.receiver, h.bytes);
}

void Accounting::chargeReceived(int node, double bytes) {
    // Only when spent: a node that receives for free is not touched.
    if (const double j = topo_.entry(node).energy.perByteReceivedJ; j > 0)
        nodes_.addEnergy(node, bytes * j, Energy::Network);
}

void Accounting::chargeWork(int node, double seconds) {
    if (seconds > 0) nodes_.addEnergy(node, seconds * computePower(node), Energy::Compute);
}

void Accounting::chargeSamples(int node, std::int64_t samples) {
    samplesComputed_ += samples;
    nodes_.addEnergy(node, static_cast<double>(samples) * energyPerSample(node), Energy::Compute);
}

void Accounting::chargeAggregation(const AggregationRecord& record) {
    if (record.participants <= 0 || !anyAggregationEnergy_ || record.aggregator.empty()) return;
    const double updates = static_cast<double>(record.participants);
    auto fold = [&](int node) {
        if (const double j = topo_.entry(node).energy.perUpdateAggregatedJ; j > 0)
            nodes_.addEnergy(node, updates * j, Energy::Compute);
    };
    // Model averaging (regions): every regional server folds in every region's model.
    if (record.level == 0 && !regionServers_.empty()) {
        for (int r : regionServers_) fold(r);
        return;
    }
    fold(topo_.indexOf(record.aggregator));
}

double Accounting::energyPerSample(int node) const {
    // A device class gives its energy per FLOP (energy.per_flop_j): per sample, times the
    // model's FLOPs per sample.
    const EnergySpec& energy = topo_.entry(node).energy;
    return energy.perFlopJ > 0 ? energy.perSampleJ + energy.perFlopJ * flopsPerSample_ : energy.perSampleJ;
}

double Accounting::computePower(int node) const {
    const double j = energyPerSample(node);
    return j > 0 ? j * topo_.throughput(node) : 0.0;
}

} // namespace fog
