#include "core/spec/scenario.h"

// These spellings are the YAML spellings: the reader parses enums by comparing against them,
// so changing one here changes the file format.

namespace fog {

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

} // namespace fog
