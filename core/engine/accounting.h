#pragma once
// The run's accounting beside the nodes' billing: traffic (its price and bytes), the samples
// computed and the energy that transfers, computation and aggregation spend
// (docs/emulator.md, "Energy"), charged where they happen. Billing while held and the
// energy sums are NodeRuntime's; the cost of the run is both (costAt).
//
// Threads: engine thread only.

#include "core/engine/node_runtime.h"
#include "core/system/metrics.h"
#include "core/system/network.h"
#include "core/system/topology.h"

#include <cstdint>
#include <vector>

namespace fog {

class Accounting {
public:
    /// `flopsPerSample`: the model's training FLOPs per sample (for energy.per_flop_j);
    /// `regionServers`: the regional servers that fold every region's model at a level-0
    /// aggregation (sync shape Regions; empty otherwise).
    Accounting(const Topology& topo, NodeRuntime& nodes, double flopsPerSample, std::vector<int> regionServers);

    /// A transfer that does not contend, charged at once: its price, its bytes, the sender's
    /// energy per byte sent and the receiver's per byte received.
    void chargeTransfer(int from, int to, double bytes, double price);
    /// One hop of a transfer over the shared network (Network::Charge).
    void chargeHop(const Network::HopBytes& h);
    /// Energy per byte received (per hop with contention).
    void chargeReceived(int node, double bytes);
    /// `seconds` of computation on `node` at its compute power (nothing for 0).
    void chargeWork(int node, double seconds);
    /// `samples` steps' samples computed on `node`: counted, and their energy.
    void chargeSamples(int node, std::int64_t samples);
    /// Energy of the updates an aggregation folds in.
    void chargeAggregation(const AggregationRecord& record);

    /// Energy of one sample's step on a node (J): energy.per_sample_j, plus per_flop_j x the
    /// model's FLOPs per sample where a device class gives it.
    double energyPerSample(int node) const;
    /// Power a node draws computing: energyPerSample x its throughput (W).
    double computePower(int node) const;

    /// Cost so far: per-second billing of held nodes plus traffic prices.
    double costAt(double t) const { return nodes_.costAt(trafficCost_, t); }
    /// False when the cost at `t` is certainly below `threshold` (NodeRuntime::costMayReach).
    bool costMayReach(double t, double threshold) const { return nodes_.costMayReach(trafficCost_, t, threshold); }
    double bytes() const { return bytes_; }
    std::int64_t samplesComputed() const { return samplesComputed_; }

private:
    using Energy = NodeRuntime::EnergyKind;

    const Topology& topo_;
    NodeRuntime& nodes_;
    double flopsPerSample_;
    std::vector<int> regionServers_;
    bool anyAggregationEnergy_ = false; ///< some node spends energy per update aggregated
    double trafficCost_ = 0.0;
    double bytes_ = 0.0;
    std::int64_t samplesComputed_ = 0;
};

} // namespace fog
