#pragma once
// The tiered tree that test_tiers and test_codec_links time by hand, and their comparison of
// aggregation times.
//
// Model 1 MB (8e6 bits; P = 250,000 in a timing-only run). Cloud -> edge links: 80 Mbit/s,
// 10 ms (0.11 s per model alone). Edge -> phone links: 40 Mbit/s, 50 ms (0.25 s alone).
// Batch 10: a phone of group pa (20 samples/s) takes 0.5 s a step, one of pb (10 samples/s)
// 1 s. Two edges, edge-0 over pa and edge-1 over pb, under the cloud or under a region.

#include "core/system/metrics.h"

#include <QString>
#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

namespace fogtest {

struct TierTree {
    std::string name = "tiers";
    std::string cloudAggregate;  ///< the cloud's aggregate: map (empty: none)
    std::string regionAggregate; ///< non-empty: a region between the cloud and the edges
    std::string edgeAggregate;   ///< the edges' aggregate: map (empty: none)
    /// More fields of the cloud's and the edges' flow maps, each starting with ", ".
    std::string cloudExtra, edgeExtra;
    std::string training; ///< more training fields, starting with ", "
    bool contention = false;
    int rounds = 4;
};

inline std::string tierTree(const TierTree& t) {
    const bool region = !t.regionAggregate.empty();
    const std::string edgeParent = region ? "region" : "cloud";
    std::string y = "schema_version: 1\nname: " + t.name + "\nseed: 11\ntopology:\n";
    y += std::string("  contention: ") + (t.contention ? "true" : "false") + "\n";
    y += "  nodes:\n";
    y += "    - {id: cloud, tier: cloud, role: aggregator" +
         (t.cloudAggregate.empty() ? std::string() : ", aggregate: " + t.cloudAggregate) + t.cloudExtra + "}\n";
    if (region)
        y += "    - {id: region, tier: cloud, role: aggregator, parent: cloud, aggregate: " + t.regionAggregate +
             ",\n       link: {bandwidth_up_mbps: 80, bandwidth_down_mbps: 80, latency_ms: 10}}\n";
    y += "  groups:\n";
    y += "    - {id: edge, count: 2, tier: edge, role: aggregator, parent: " + edgeParent +
         (t.edgeAggregate.empty() ? std::string() : ", aggregate: " + t.edgeAggregate) + t.edgeExtra +
         ",\n       link: {bandwidth_up_mbps: 80, bandwidth_down_mbps: 80, latency_ms: 10}}\n";
    y += "    - {id: pa, count: 2, role: trainer, parent: edge-0, compute: {throughput: 20},\n"
         "       link: {bandwidth_up_mbps: 40, bandwidth_down_mbps: 40, latency_ms: 50}}\n";
    y += "    - {id: pb, count: 2, role: trainer, parent: edge-1, compute: {throughput: 10},\n"
         "       link: {bandwidth_up_mbps: 40, bandwidth_down_mbps: 40, latency_ms: 50}}\n";
    y += "data: {dataset: none, samples_per_trainer: 100}\n";
    y += "model: {kind: none, wire_bytes: 1000000}\n";
    y += "training: {batch_size: 10, local_steps: 1" + t.training + "}\n";
    y += "sync: {policy: fedavg}\nselection: {policy: all}\n";
    y += "stop: {rounds: " + std::to_string(t.rounds) + "}\n";
    return y;
}

/// The records' times, each within 1e-9 s of its wanted value (QFAIL names the first that is not).
inline void compareTimes(const std::vector<fog::AggregationRecord>& got, const std::vector<double>& want) {
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        if (std::abs(got[i].time - want[i]) > 1e-9)
            QFAIL(qPrintable(QString("record %1 (%2): time %3, want %4")
                                 .arg(i)
                                 .arg(QString::fromStdString(got[i].aggregator))
                                 .arg(got[i].time, 0, 'g', 12)
                                 .arg(want[i], 0, 'g', 12)));
}

} // namespace fogtest
