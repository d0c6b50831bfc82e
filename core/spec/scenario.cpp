#include "core/spec/scenario.h"

// These spellings are the YAML spellings: the reader parses enums by comparing against them,
// so changing one here changes the file format.

#include <algorithm>
#include <stdexcept>

namespace fog {

NodeSpec& TopologySpec::group(std::size_t k) {
    return const_cast<NodeSpec&>(static_cast<const TopologySpec&>(*this).group(k));
}

const NodeSpec& TopologySpec::group(std::size_t k) const {
    std::size_t left = k;
    for (const auto& n : nodes)
        if (n.group && left-- == 0) return n;
    throw std::out_of_range("topology has no group " + std::to_string(k));
}

std::size_t TopologySpec::groupCount() const {
    std::size_t c = 0;
    for (const auto& n : nodes)
        c += n.group ? 1 : 0;
    return c;
}

std::string TopologySpec::pathOf(std::size_t i) const {
    std::size_t k = 0;
    for (std::size_t j = 0; j < i && j < nodes.size(); ++j)
        if (nodes[j].group == nodes[i].group) ++k;
    return std::string(nodes[i].group ? "topology.groups[" : "topology.nodes[") +
           std::to_string(k) + "]";
}

int TopologySpec::find(const std::string& id) const {
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].id == id) return static_cast<int>(i);
    return -1;
}

int TopologySpec::nestedParent(std::size_t i) const {
    const NodeSpec& n = nodes[i];
    if (!n.group || n.parent.empty()) return -1;
    for (std::size_t j = 0; j < nodes.size(); ++j)
        if (nodes[j].group && nodes[j].id == n.parent) return static_cast<int>(j);
    return -1;
}

std::vector<long long> memberCounts(const TopologySpec& t) {
    constexpr long long kCap = 1LL << 40;
    const std::size_t n = t.nodes.size();
    std::vector<int> up(n);
    for (std::size_t i = 0; i < n; ++i)
        up[i] = t.nestedParent(i);
    std::vector<long long> out(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        long long m = t.nodes[i].group ? std::max(0, t.nodes[i].count) : 1;
        std::size_t steps = 0;
        for (int p = up[i]; p >= 0 && steps < n && p != static_cast<int>(i);
             p = up[static_cast<std::size_t>(p)], ++steps) {
            const long long c = std::max(0, t.nodes[static_cast<std::size_t>(p)].count);
            m = c > 0 && m > kCap / c ? kCap : m * c;
        }
        out[i] = m;
    }
    return out;
}

const char* toString(Tier t) {
    switch (t) {
    case Tier::Cloud:
        return "cloud";
    case Tier::Edge:
        return "edge";
    case Tier::Device:
        return "device";
    }
    return "?";
}

const char* toString(Role r) {
    switch (r) {
    case Role::Trainer:
        return "trainer";
    case Role::Aggregator:
        return "aggregator";
    case Role::Both:
        return "both";
    case Role::Relay:
        return "relay";
    }
    return "?";
}

const char* toString(LinkSharing s) {
    switch (s) {
    case LinkSharing::Shared:
        return "shared";
    case LinkSharing::Private:
        return "private";
    }
    return "?";
}

const char* toString(Billing b) {
    switch (b) {
    case Billing::Held:
        return "held";
    case Billing::Serverless:
        return "serverless";
    }
    return "?";
}

const char* toString(NoiseSpec::Kind k) {
    switch (k) {
    case NoiseSpec::Kind::None:
        return "none";
    case NoiseSpec::Kind::Exponential:
        return "exponential";
    case NoiseSpec::Kind::ShiftedExponential:
        return "shifted-exponential";
    case NoiseSpec::Kind::LogNormal:
        return "lognormal";
    }
    return "?";
}

const char* toString(AvailabilitySpec::Kind k) {
    switch (k) {
    case AvailabilitySpec::Kind::Always:
        return "always";
    case AvailabilitySpec::Kind::Markov:
        return "markov";
    case AvailabilitySpec::Kind::Trace:
        return "trace";
    }
    return "?";
}

const char* toString(PartitionSpec::Kind k) {
    switch (k) {
    case PartitionSpec::Kind::Iid:
        return "iid";
    case PartitionSpec::Kind::Dirichlet:
        return "dirichlet";
    case PartitionSpec::Kind::Shards:
        return "shards";
    case PartitionSpec::Kind::QuantitySkew:
        return "quantity-skew";
    case PartitionSpec::Kind::Natural:
        return "natural";
    }
    return "?";
}

const char* toString(DataSpec::Kind k) {
    switch (k) {
    case DataSpec::Kind::FashionMnist:
        return "fashion-mnist";
    case DataSpec::Kind::Synthetic:
        return "synthetic";
    case DataSpec::Kind::Idx:
        return "idx";
    case DataSpec::Kind::Csv:
        return "csv";
    case DataSpec::Kind::Cifar10:
        return "cifar10";
    case DataSpec::Kind::Leaf:
        return "leaf";
    case DataSpec::Kind::None:
        return "none";
    }
    return "?";
}

const char* toString(ModelSpec::Kind k) {
    switch (k) {
    case ModelSpec::Kind::LogReg:
        return "logreg";
    case ModelSpec::Kind::Mlp:
        return "mlp";
    case ModelSpec::Kind::Cnn:
        return "cnn";
    case ModelSpec::Kind::TorchScript:
        return "torchscript";
    case ModelSpec::Kind::None:
        return "none";
    }
    return "?";
}

const char* toString(ScheduleSpec::Kind k) {
    switch (k) {
    case ScheduleSpec::Kind::Constant:
        return "constant";
    case ScheduleSpec::Kind::Step:
        return "step";
    case ScheduleSpec::Kind::InverseTime:
        return "inverse-time";
    }
    return "?";
}

const char* toString(TrainingBackend b) {
    switch (b) {
    case TrainingBackend::LibTorch:
        return "libtorch";
    case TrainingBackend::Fast:
        return "fast";
    case TrainingBackend::Auto:
        return "auto";
    }
    return "?";
}

} // namespace fog
