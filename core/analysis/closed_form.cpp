#include "core/analysis/closed_form.h"
#include "core/model/learner.h"
#include "core/model/torchscript_model.h"

#include "core/spec/device_classes.h"
#include "core/system/topology.h"

#include <cmath>
#include <cstdio>
#include <regex>

namespace fog {

double harmonicNumber(int n) {
    double h = 0.0;
    for (int i = n; i >= 1; --i) h += 1.0 / i; // smallest terms first: less rounding
    return h;
}

double expectedRoundTime(BarrierKind kind, int n, int k, double lambda, double shift) {
    if (n < 1 || !(lambda > 0) || shift < 0) return kNaN;
    switch (kind) {
    case BarrierKind::FullySync:
        return shift + harmonicNumber(n) / lambda;
    case BarrierKind::FirstK:
        if (k < 1 || k > n) return kNaN;
        return shift + (harmonicNumber(n) - harmonicNumber(n - k)) / lambda;
    case BarrierKind::FirstBatches:
        if (k < 1) return kNaN;
        return shift + k / (n * lambda);
    }
    return kNaN;
}

namespace {

ClosedFormRoundTime none(const std::string& why) {
    ClosedFormRoundTime c;
    c.why = why;
    return c;
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, fmt, a, b, c);
    return buf;
}

} // namespace

double wireBytesOf(const Scenario& s, const std::string& modelDescription) {
    if (s.model.wireBytes > 0) return s.model.wireBytes;
    if (s.model.kind == ModelSpec::Kind::None) return 0.0;
    static const std::regex count(R"(\((\d+) parameters\))");
    std::smatch m;
    if (std::regex_search(modelDescription, m, count)) return 4.0 * std::stod(m[1].str());
    return kNaN;
}

ClosedFormRoundTime closedFormRoundTime(const Scenario& given, double wireBytes) {
    // Nodes given in FLOP/s: their samples/s follow the model's FLOPs per sample.
    Scenario converted;
    bool flops = false;
    for (const auto& n : given.topology.nodes) flops = flops || needsModelFlops(n);
    if (flops) {
        try {
            converted = withComputeInSamples(given);
        } catch (const ModelError& e) {
            return none(std::string("no closed form: ") + e.what());
        }
    }
    const Scenario& s = flops ? converted : given;
    const SyncPolicyDescriptor* sync = findSyncDescriptor(s.sync.name);
    if (!sync || !sync->hasBarrier) return none("no closed form for the " + s.sync.name + " policy");
    const BarrierKind kind = sync->barrier.kind;

    const auto& topo = s.topology;
    bool anyLink = topo.hasDefaultLink || !topo.links.empty();
    std::string root;
    for (const auto& n : topo.nodes)
        if (!n.group && n.role == Role::Aggregator) {
            if (!root.empty()) return none("no closed form with more than one aggregator");
            root = n.id;
        }
    if (root.empty()) return none("no closed form without an aggregator");

    // All trainers alike: one throughput, one noise, always online, under the root.
    int n = 0;
    double throughput = kNaN;
    NoiseSpec noise;
    bool first = true;
    auto visit = [&](Role role, const std::string& parent, const ComputeSpec& c, const AvailabilitySpec& a,
                     bool link, int count) -> std::string {
        if (role == Role::Both) return "no closed form with nodes that both train and aggregate";
        if (role != Role::Trainer) return {};
        if (parent != root) return "no closed form for a hierarchy";
        anyLink = anyLink || link;
        if (a.kind != AvailabilitySpec::Kind::Always) return "no closed form with nodes going offline";
        if (!c.throughput.isExact()) return "no closed form with unequal trainers";
        if (first) {
            throughput = c.throughput.min;
            noise = c.noise;
            first = false;
        } else if (c.throughput.min != throughput || c.noise.kind != noise.kind || c.noise.shift != noise.shift) {
            return "no closed form with unequal trainers";
        }
        n += count;
        return {};
    };
    bool linked = topo.hasDefaultLink || !topo.links.empty();
    for (const auto& node : topo.nodes) linked = linked || node.link.has_value();
    for (const auto& node : topo.nodes) {
        if (auto why = visit(node.role, node.parent, node.compute, node.availability,
                             node.link.has_value(), node.group ? node.count : 1);
            !why.empty())
            return none(why);
        if (!topo.contention || (node.role != Role::Trainer && node.id != root)) continue;
        // With contention, transfers that meet on a capacity share it: the round time is
        // then random (uploads start at random times). Private links only.
        // (Without links every transfer is instantaneous: an interface has nothing to cap.)
        if (node.nicMbps > 0 && linked) return none("no closed form with a network interface cap (nic_mbps) and contention");
        if (node.role == Role::Trainer && node.group && node.count > 1 &&
            node.linkSharing.value_or(topo.linkSharing) == LinkSharing::Shared &&
            (node.link.has_value() || topo.hasDefaultLink))
            return none("no closed form with communication over a shared link (contention on)");
    }
    if (n < 1 || !(throughput > 0)) return none("no closed form without trainers");
    if (noise.kind != NoiseSpec::Kind::Exponential && noise.kind != NoiseSpec::Kind::ShiftedExponential)
        return none(std::string("no closed form for ") + toString(noise.kind) + " step times");
    if (kind != BarrierKind::FirstBatches && (s.training.localEpochs > 0 || s.training.localSteps != 1))
        return none("no closed form with more than one local step per round");

    // Participants per round.
    // Participants per round: a uniform selection of its k (all without one).
    const SelectionPolicyDescriptor* selection = findSelectionDescriptor(s.selection.name);
    if (!selection || !selection->uniform) return none("no closed form with the " + s.selection.name + " selection");
    if (selection->perRound) {
        const int k = selection->perRound(resolveSelectionParams(s.selection));
        if (k < n) n = std::max(1, k);
    }

    // A step of batch B takes B / throughput * (shift + Exp(mean 1 - shift)).
    const double b = s.training.batchSize;
    const double shiftFraction = noise.kind == NoiseSpec::Kind::ShiftedExponential ? noise.shift : 0.0;
    const double lambda = throughput / (b * (1.0 - shiftFraction));
    const double shift = b * shiftFraction / throughput;
    int k = 0;
    std::string formula;
    switch (kind) {
    case BarrierKind::FullySync:
        formula = format("H_%g / λ", n);
        break;
    case BarrierKind::FirstK:
        k = sync->barrier.count.read(resolveSyncParams(s.sync));
        if (k > n) return none(s.sync.name + " waits for more trainers than take part");
        formula = format("(H_%g − H_%g) / λ", n, n - k);
        break;
    case BarrierKind::FirstBatches:
        k = sync->barrier.count.read(resolveSyncParams(s.sync));
        formula = format("m / (n λ), m = %g, n = %g", k, n);
        break;
    }
    // Communication: the same deterministic time down and up for every trainer.
    double comm = 0.0;
    if (anyLink) {
        const double bytes = std::isnan(wireBytes) ? wireBytesOf(s, {}) : wireBytes;
        if (std::isnan(bytes) || bytes < 0) {
            ClosedFormRoundTime c = none("the closed form with links needs the model's size on the wire");
            c.needsWireBytes = true;
            return c;
        }
        try {
            const Topology t(topo, s.seed);
            const int r = t.indexOf(root);
            bool firstTrainer = true;
            for (int i : t.trainers()) {
                const double c = t.transfer(r, i, bytes).seconds + t.transfer(i, r, bytes).seconds;
                if (firstTrainer) comm = c;
                else if (std::abs(c - comm) > 1e-12 * std::max(1.0, comm))
                    return none("no closed form with unequal communication times");
                firstTrainer = false;
            }
        } catch (const std::exception& e) {
            return none(std::string("no closed form: ") + e.what());
        }
        if (comm > 0 && kind == BarrierKind::FirstBatches)
            return none("no closed form for " + s.sync.name + " with communication time");
    }

    ClosedFormRoundTime c;
    c.applies = true;
    c.seconds = expectedRoundTime(kind, n, k, lambda, shift);
    if (std::isnan(c.seconds)) return none("no closed form for these parameters");
    if (shift > 0) formula = format("%.4g s + ", shift) + formula;
    if (comm > 0) {
        c.seconds += comm;
        c.communicationSeconds = comm;
        formula = format("%.4g s (down + up) + ", comm) + formula;
    }
    c.formula = formula + format(", λ = %.4g/s: %.4g s", lambda, c.seconds);
    return c;
}

} // namespace fog
