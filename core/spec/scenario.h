#pragma once
// The scenario: everything a run needs, as a person writes it in YAML. Plain data, no
// behaviour; `scenario_io.h` reads, validates and writes it, `topology.h` expands it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fog {

inline constexpr int kScenarioSchemaVersion = 1;

enum class Tier { Cloud, Edge, Device };
enum class Role { Trainer, Aggregator, Both };

/// Per-step compute noise: a step of batch B takes B / throughput * draw.
struct NoiseSpec {
    enum class Kind { None, Exponential, ShiftedExponential, LogNormal };
    Kind kind = Kind::None;
    /// ShiftedExponential: draw = shift + Exp(mean 1 - shift); keeps the mean at 1.
    double shift = 0.0;
    /// LogNormal: sigma of the underlying normal; mu is set so the mean is 1.
    double sigma = 0.5;
};

/// A value given either exactly or as a uniform range (for groups of devices).
struct Range {
    double min = 0.0;
    double max = 0.0;
    static Range exactly(double v) { return {v, v}; }
    bool isExact() const { return min == max; }
};

struct ComputeSpec {
    Range throughput = Range::exactly(1000.0); ///< samples per second
    NoiseSpec noise;
};

/// Availability: always on, two-state Markov on/off, or an explicit list of offline spans.
struct AvailabilitySpec {
    enum class Kind { Always, Markov, Trace };
    Kind kind = Kind::Always;
    double meanUpS = 3600.0;   ///< Markov: mean time online (exponential)
    double meanDownS = 60.0;   ///< Markov: mean time offline (exponential)
    bool startOnline = true;   ///< Markov: state at t = 0 (false: drawn from stationarity)
    bool startStationary = false;
    struct Interval {
        double fromS = 0.0;
        double toS = 0.0;
    };
    std::vector<Interval> offline; ///< Trace: sorted, disjoint offline intervals
};

struct EnergySpec {
    double perSampleJ = 0.0; ///< joules per training sample computed
    double perByteJ = 0.0;   ///< joules per byte sent
};

struct LinkParams {
    double bandwidthUpMbps = 1000.0;   ///< child -> parent (or from -> to)
    double bandwidthDownMbps = 1000.0; ///< parent -> child (or to -> from)
    double latencyMs = 0.0;
    double pricePerGb = 0.0;
};

struct NodeSpec {
    std::string id;
    Tier tier = Tier::Device;
    Role role = Role::Trainer;
    std::string parent; ///< aggregator this node reports to; empty for a root
    std::string region; ///< optional label, used by placement and model averaging
    ComputeSpec compute;
    AvailabilitySpec availability;
    double pricePerHour = 0.0; ///< billed per second while held
    EnergySpec energy;
    double dataShare = 1.0; ///< relative amount of data (quantity-skew weighting)
    std::optional<LinkParams> link; ///< link to the parent; else the defaults apply
    bool hasPosition = false; ///< false: placed by the automatic layout (core/scenario/layout.h)
    double x = 0.0;           ///< position on the editor's canvas (scene units, item centre)
    double y = 0.0;
    int line = 0; ///< source line in the scenario file (0 if built in code)
};

/// Many similar nodes: ids `<id>-0` .. `<id>-<count-1>`, ranges drawn per node from the seed.
struct GroupSpec {
    std::string id;
    int count = 1;
    Tier tier = Tier::Device;
    Role role = Role::Trainer;
    std::string parent;
    std::string region;
    ComputeSpec compute;
    AvailabilitySpec availability;
    Range pricePerHour = Range::exactly(0.0);
    EnergySpec energy;
    Range dataShare = Range::exactly(1.0);
    std::optional<LinkParams> link;
    bool hasPosition = false; ///< as in NodeSpec
    double x = 0.0;
    double y = 0.0;
    int line = 0;
};

/// An explicit link between two nodes (overrides the parent link or joins two regions).
struct LinkSpec {
    std::string from;
    std::string to;
    LinkParams params;
    int line = 0;
};

struct TopologySpec {
    LinkParams defaultLink;          ///< used for a parent link nobody declared
    bool hasDefaultLink = false;     ///< false: undeclared links are instantaneous and free
    std::vector<NodeSpec> nodes;
    std::vector<GroupSpec> groups;
    std::vector<LinkSpec> links;
};

struct PartitionSpec {
    enum class Kind { Iid, Dirichlet, Shards, QuantitySkew, Natural };
    Kind kind = Kind::Iid;
    double alpha = 0.5;        ///< Dirichlet concentration
    int shardsPerClient = 2;   ///< Shards
    double sigma = 1.0;        ///< QuantitySkew: log-normal sigma of client sizes
    int minPerClient = 10;     ///< Dirichlet: redraw until every client has this many
};

struct DataSpec {
    enum class Kind { FashionMnist, Synthetic, Idx, Csv, None };
    Kind kind = Kind::FashionMnist;
    std::string dir;         ///< FashionMnist / Idx: folder with the four IDX files
    std::string trainPath;   ///< Csv / Idx: explicit files (Idx: images; labels beside)
    std::string testPath;
    std::string trainLabelsPath; ///< Idx
    std::string testLabelsPath;  ///< Idx
    double syntheticAlpha = 1.0; ///< Synthetic(alpha, beta), FedProx
    double syntheticBeta = 1.0;
    bool syntheticIid = false;
    int syntheticFeatures = 60;
    int syntheticClasses = 10;
    int maxTrainSamples = 0; ///< 0 = all; else a seeded subset (for quick runs)
    int maxTestSamples = 0;
    int samplesPerTrainer = 600; ///< None (timing only): samples each trainer holds
    PartitionSpec partition;
    /// Folder that relative paths above resolve against: the scenario file's folder when it
    /// was read from a file, else empty (the working directory). Not saved.
    std::string baseDir;
};

struct ModelSpec {
    enum class Kind { LogReg, Mlp, Cnn, None };
    Kind kind = Kind::Mlp;
    std::vector<int> hidden{200};
    double dropout = 0.0;
    /// Bytes of one model / update on the wire; 0 = 4 bytes per parameter.
    double wireBytes = 0.0;
};

struct ScheduleSpec {
    enum class Kind { Constant, Step, InverseTime };
    Kind kind = Kind::Constant;
    double gamma = 0.5;     ///< Step: factor every `stepRounds`; InverseTime: lr / (1 + gamma t)
    int stepRounds = 10;
};

struct TrainingSpec {
    std::string optimizer = "sgd";
    double learningRate = 0.01;
    ScheduleSpec schedule;
    double momentum = 0.0;
    double weightDecay = 0.0;
    int batchSize = 10;
    int localSteps = 1;  ///< local steps per dispatch (used when localEpochs == 0)
    int localEpochs = 0; ///< > 0: local work is this many passes over the trainer's data
};

/// Policy choice and its parameters, kept as a name plus a key -> number map so that new
/// policies need no change here; each policy documents and validates its own keys.
struct PolicySpec {
    std::string name;
    std::map<std::string, double> params;
    std::map<std::string, int> paramLines; ///< source line of each parameter
    int line = 0;
    double get(const std::string& key, double fallback) const {
        auto it = params.find(key);
        return it == params.end() ? fallback : it->second;
    }
};

struct StopSpec {
    int rounds = 10;              ///< 0 = unlimited
    double virtualTimeS = 0.0;    ///< 0 = unlimited
    double targetAccuracy = 0.0;  ///< 0 = none; stop once test accuracy reaches it
    double budget = 0.0;          ///< 0 = none; stop once cumulative cost reaches it
};

struct EvaluationSpec {
    int everyRounds = 1;
};

struct Scenario {
    int schemaVersion = kScenarioSchemaVersion;
    std::string name = "untitled";
    std::string description;
    std::uint64_t seed = 1;
    TopologySpec topology;
    DataSpec data;
    ModelSpec model;
    TrainingSpec training;
    PolicySpec sync{"fedavg", {}, {}, 0};
    PolicySpec selection{"all", {}, {}, 0};
    StopSpec stop;
    EvaluationSpec evaluation;
    std::string sourcePath; ///< file it was read from, for messages; not saved
};

const char* toString(Tier t);
const char* toString(Role r);
const char* toString(NoiseSpec::Kind k);
const char* toString(AvailabilitySpec::Kind k);
const char* toString(PartitionSpec::Kind k);
const char* toString(DataSpec::Kind k);
const char* toString(ModelSpec::Kind k);
const char* toString(ScheduleSpec::Kind k);

} // namespace fog
