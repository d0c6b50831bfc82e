#pragma once
// The scenario: everything a run needs, as a person writes it in YAML. Plain data, no
// behaviour; `scenario_io.h` reads, validates and writes it, `topology.h` expands it.

#include "core/spec/events.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fog {

inline constexpr int kScenarioSchemaVersion = 1;

enum class Tier { Cloud, Edge, Device };
/// Relay: forwards traffic between its children and its parent; neither trains nor aggregates.
enum class Role { Trainer, Aggregator, Both, Relay };
inline constexpr bool roleTrains(Role r) { return r == Role::Trainer || r == Role::Both; }
inline constexpr bool roleAggregates(Role r) { return r == Role::Aggregator || r == Role::Both; }

/// How the members of a group use the link to their parent: one link all members share (a
/// cell, an edge uplink) or a private copy of the link per member (a wired port each).
enum class LinkSharing { Shared, Private };

/// How a node is billed: per started second while held (a rented VM), or per second while it
/// computes plus a fee per invocation (serverless functions).
enum class Billing { Held, Serverless };

/// Per-step compute noise: a step of batch B takes B / throughput * draw.
struct NoiseSpec {
    enum class Kind { None, Exponential, ShiftedExponential, LogNormal };
    Kind kind = Kind::None;
    /// ShiftedExponential: draw = shift + Exp(mean 1 - shift); keeps the mean at 1.
    double shift = 0.0;
    /// LogNormal: sigma of the underlying normal; mu is set so the mean is 1.
    double sigma = 0.5;
};

/// A value given either exactly or as a uniform range (for groups of devices). A plain
/// number converts to an exact range, so `spec.pricePerHour = 3.6` reads as it should.
struct Range {
    double min = 0.0;
    double max = 0.0;
    constexpr Range() = default;
    constexpr Range(double v) : min(v), max(v) {} // NOLINT: a number is an exact range
    constexpr Range(double lo, double hi) : min(lo), max(hi) {}
    static constexpr Range exactly(double v) { return {v, v}; }
    constexpr bool isExact() const { return min == max; }
    friend constexpr bool operator==(const Range& a, const Range& b) {
        return a.min == b.min && a.max == b.max;
    }
    friend constexpr bool operator!=(const Range& a, const Range& b) { return !(a == b); }
};

struct ComputeSpec {
    Range throughput = Range::exactly(1000.0); ///< samples per second
    /// FLOP/s; > 0: the speed is flops / the model's training FLOPs per sample and
    /// `throughput` is not used (the topology holds FLOP/s until the engine divides).
    Range flops = Range::exactly(0.0);
    /// A device of core/spec/device_classes.h (`raspberry-pi-4`, ...): its FLOP/s stand for
    /// `flops` when that is not set, and its power and network interface fill the node's
    /// energy and nic_mbps where the node gives none (applyDeviceClass). Empty: none.
    std::string deviceClass;
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
    /// Trace: a CSV availability trace (1 online, 0 offline) instead of `offline`, relative
    /// to the scenario's folder (docs/scenario.md, "Events and traces"); empty: none.
    std::string file;
};

struct EnergySpec {
    double perSampleJ = 0.0; ///< joules per training sample computed
    double perByteJ = 0.0;   ///< joules per byte sent
    double perByteForwardedJ = 0.0; ///< joules per byte a node forwards (relays, hops on a path)
    double idleW = 0.0;              ///< watts while held and not computing (docs/emulator.md, "Energy")
    double perByteReceivedJ = 0.0;   ///< joules per byte received (per hop with contention)
    double perUpdateAggregatedJ = 0.0; ///< joules per model update an aggregator folds in
    /// joules per training FLOP: a sample costs this x the model's training FLOPs per sample
    /// on top of perSampleJ (a device class's power / FLOP/s)
    double perFlopJ = 0.0;
};

struct LinkParams {
    double bandwidthUpMbps = 1000.0;   ///< child -> parent (or from -> to)
    double bandwidthDownMbps = 1000.0; ///< parent -> child (or to -> from)
    double latencyMs = 0.0;
    double pricePerGb = 0.0;
};

/// One entry of the topology: a node, or a group of `count` similar nodes (a node is a group
/// of one). Entries listed under `groups:` (group = true) name their members `<id>-<k>`, draw
/// the range-valued fields per member from the seed, and may name another group as their
/// parent: they are then placed under every member of that group (core/system/topology.h).
/// A node's own aggregation in a tiered tree (`aggregate:` on an aggregator; docs/policies.md,
/// "Per-level policies"): the sync and selection policy it runs with its children.
struct AggregateSpec {
    std::string sync;      ///< empty: the scenario's sync policy (and its parameters)
    std::string selection; ///< empty: the scenario's selection policy (and its parameters)
    /// Parameters of either policy, by key (each key declared by exactly one of them).
    std::map<std::string, double> params;
    std::map<std::string, int> paramLines;
    int localSteps = 0; ///< local steps per dispatch to a trainer child; 0: the policy's default
    int rounds = 1;     ///< rounds this aggregator runs each time its parent sends it the model
    /// Server optimiser of this aggregator (training.server_optimizer's names); empty: the
    /// scenario's training.server_optimizer.
    std::string serverOptimizer;
    int line = 0;
};

struct NodeSpec {
    std::string id;
    /// Listed under `groups:` in the file: members are `<id>-0` .. even when count is 1.
    /// False: a plain node under `nodes:` (count 1, exact values, id used as is).
    bool group = false;
    int count = 1; ///< members per parent member (a nested group: per member of its parent)
    Tier tier = Tier::Device;
    Role role = Role::Trainer;
    std::string parent; ///< aggregator (node, group member, or group) it reports to; empty: root
    std::string region; ///< optional label, used by placement and model averaging
    ComputeSpec compute;
    AvailabilitySpec availability;
    Range pricePerHour = Range::exactly(0.0); ///< billed per second while held
    Billing billing = Billing::Held; ///< Serverless: pricePerHour applies while computing
    double invocationFeeUsd = 0.0;   ///< Serverless: fee per dispatch (invocation)
    double nicMbps = 0.0; ///< the node's network interface, each direction; 0: unlimited
    EnergySpec energy;
    Range dataShare = Range::exactly(1.0); ///< relative amount of data (quantity-skew weighting)
    std::optional<LinkParams> link; ///< link to the parent; else the defaults apply
    /// Groups: whether members share one link to their parent (per parent member) or each has
    /// its own; unset: the topology's `link_sharing`.
    std::optional<LinkSharing> linkSharing;
    bool hasPosition = false; ///< false: placed by the automatic layout (core/scenario/layout.h)
    double x = 0.0;           ///< position on the editor's canvas (scene units, item centre)
    double y = 0.0;
    int line = 0; ///< source line in the scenario file (0 if built in code)
    /// A CSV price trace (currency/hour) overriding pricePerHour while it has values.
    std::string priceTrace;
    /// Spot bid: the node is reclaimed (offline) while the price trace is above it; 0: none.
    double bidUsdPerHour = 0.0;
    /// A CSV bandwidth trace (Mbit/s, both directions) of the link to the parent (`link.trace`),
    /// overriding its bandwidths over time; empty: none.
    std::string linkTrace;
    /// A CSV compute trace (`compute.trace`): the node's speed over time, in the unit its
    /// compute is given in (samples/s, or FLOP/s with compute.flops); empty: none.
    std::string computeTrace;
    /// Set: this aggregator runs its own policy with its children (a tiered run).
    std::optional<AggregateSpec> aggregate;
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
    /// True: concurrent transfers share link and interface capacity (max-min fair flows).
    /// False: every transfer gets its links' full bandwidth (the ideal network of old).
    bool contention = true;
    LinkSharing linkSharing = LinkSharing::Shared; ///< groups' default (NodeSpec::linkSharing)
    /// Nodes and groups in one list. The file keeps them in two sections (`nodes:` then
    /// `groups:`, each in list order); expansion follows the same order.
    std::vector<NodeSpec> nodes;
    std::vector<LinkSpec> links;

    /// The k-th entry listed under `groups:` (throws std::out_of_range if there is none).
    NodeSpec& group(std::size_t k);
    const NodeSpec& group(std::size_t k) const;
    std::size_t groupCount() const;
    /// Where entry i of `nodes` is in the file: "topology.nodes[k]" or "topology.groups[k]".
    std::string pathOf(std::size_t i) const;
    /// Index in `nodes` of the entry with this id (a node's or a group's own id), or -1.
    int find(const std::string& id) const;
    /// Index of the group that group i is nested under (its parent names that group), or -1.
    int nestedParent(std::size_t i) const;
};

/// Nodes each entry stands for: 1 for a node, count for a group, times the parent group's
/// members for a nested group (saturating at 2^40; a cycle counts its own count only).
std::vector<long long> memberCounts(const TopologySpec& t);

struct PartitionSpec {
    enum class Kind { Iid, Dirichlet, Shards, QuantitySkew, Natural };
    Kind kind = Kind::Iid;
    double alpha = 0.5;        ///< Dirichlet concentration
    int shardsPerClient = 2;   ///< Shards
    double sigma = 1.0;        ///< QuantitySkew: log-normal sigma of client sizes
    int minPerClient = 10;     ///< Dirichlet: redraw until every client has this many
};

struct DataSpec {
    enum class Kind { FashionMnist, Synthetic, Idx, Csv, Cifar10, Leaf, None };
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
    /// Csv: the column (1 = the first) naming each sample's writer (client); 0 = none. With
    /// it the training file's writers are the natural partition (one trainer each).
    int clientColumn = 0;
    PartitionSpec partition;
    /// Folder that relative paths above resolve against: the scenario file's folder when it
    /// was read from a file, else empty (the working directory). Not saved.
    std::string baseDir;
};

struct ModelSpec {
    enum class Kind { LogReg, Mlp, Cnn, TorchScript, None };
    Kind kind = Kind::Mlp;
    std::vector<int> hidden{200};
    double dropout = 0.0;
    /// TorchScript: the module file (torch.jit.save), relative to baseDir (docs/own-model.md).
    std::string path;
    /// Bytes of one model / update on the wire; 0 = 4 bytes per parameter.
    double wireBytes = 0.0;
    /// Training FLOPs per sample (forward + backward) that nodes given in FLOP/s divide
    /// their speed by; 0 = counted from the model (modelTrainingFlops, core/model/torchscript_model.h).
    double flopsPerSample = 0.0;
    /// Folder that a relative `path` resolves against (the scenario file's folder). Not saved.
    std::string baseDir;
};

struct ScheduleSpec {
    enum class Kind { Constant, Step, InverseTime };
    Kind kind = Kind::Constant;
    double gamma = 0.5;     ///< Step: factor every `stepRounds`; InverseTime: lr / (1 + gamma t)
    int stepRounds = 10;
};

/// Which code trains the built-in models (docs/emulator.md, "Training backends").
/// LibTorch: the reference, bit-identical to earlier releases. Fast: preallocated buffers and
/// BLAS calls per layer (core/model/fast_net.h), same model and optimiser, not bit-identical
/// to LibTorch. Auto: fast when the model has a fast path, else LibTorch.
enum class TrainingBackend { LibTorch, Fast, Auto };

struct TrainingSpec {
    std::string optimizer = "sgd"; ///< local optimiser: sgd, nesterov, adam, adamw (docs/learning.md)
    /// The default stays LibTorch so that stored runs, presets and golden files keep their numbers.
    TrainingBackend backend = TrainingBackend::LibTorch;
    double learningRate = 0.01;
    ScheduleSpec schedule;
    double momentum = 0.0;
    double weightDecay = 0.0;
    double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8; ///< adam, adamw
    /// reset: every job starts a fresh optimiser (stateless clients); keep: a trainer's next
    /// job starts from the state its last delivered job ended with.
    std::string optimizerState = "reset";
    /// Server optimiser at every aggregator that averages local-SGD changes (Reddi et al.,
    /// ICLR 2021): none (w += Delta, today's FedAvg), fedavgm, fedadagrad, fedadam, fedyogi.
    std::string serverOptimizer = "none";
    double serverLearningRate = 0.0; ///< eta; 0: the optimiser's own default
    double serverMomentum = 0.9;     ///< fedavgm's beta
    double serverBeta1 = 0.9, serverBeta2 = 0.99, serverTau = 1e-3;
    /// Update codecs per direction (docs/learning.md): none, fp16, quantize, topk (up only).
    std::string codecUp = "none";
    int codecUpBits = 8;
    double codecUpFraction = 0.01;
    std::string codecDown = "none";
    int codecDownBits = 8;
    /// Codecs on the links between the aggregators of a tiered tree (docs/learning.md,
    /// "Codecs between aggregators"): up, a child aggregator's change to its parent (none,
    /// fp16, quantize, topk); down, the parent's model to a child aggregator (no topk).
    std::string aggregatorCodecUp = "none";
    int aggregatorCodecUpBits = 8;
    double aggregatorCodecUpFraction = 0.01;
    std::string aggregatorCodecDown = "none";
    int aggregatorCodecDownBits = 8;
    /// Elements a node encodes or decodes per second (docs/learning.md, "What each algorithm
    /// costs"); 0: the codecs take no time (and no energy).
    double codecElementsPerSecond = 0.0;
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

/// One named variant of a scenario: overrides in `--set` form (key path, YAML value text),
/// applied to the file before it is read (core/scenario/variants.h).
struct VariantSpec {
    struct Setting {
        std::string path;  ///< e.g. sync, sync.n, topology.groups[1].parent
        std::string value; ///< YAML text, in one canonical (flow) form
        int line = 0;      ///< where the key is in the file (0 if built in code)
        int column = 0;
    };
    std::string name;
    std::vector<Setting> set;
    int line = 0;
    int column = 0;
};

/// `vary:` one key of a grid: every value is run (crossed with the other keys and variants).
struct VarySpec {
    std::string path;
    std::vector<std::string> values; ///< YAML texts, canonical form
    int line = 0;
    int column = 0;
};

/// A preset's lesson: the text the studio's Lessons panel and docs/lessons.md show.
struct LessonSpec {
    int number = 0;            ///< order in docs/lessons.md; 0: no lesson
    std::string title;
    std::string source;        ///< the paper or setting it reproduces (Markdown)
    std::string question;      ///< Markdown
    std::string lookFor;       ///< what to look for (Markdown)
    std::vector<std::string> steps; ///< Markdown, one step each
    std::string body;          ///< the rest: set-up, commands, figures, agreement (Markdown)
    bool empty() const { return number == 0 && title.empty() && question.empty() && body.empty(); }
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
    /// Named variants to run together (`variants:`), a grid (`vary:`) crossed with them, and
    /// repeats of each (core/scenario/variants.h). Empty: the scenario is one run.
    std::vector<VariantSpec> variants;
    std::vector<VarySpec> vary;
    int repeats = 1;
    LessonSpec lesson; ///< presets that teach something (docs/lessons.md)
    EventsSpec events; ///< timed events and the loaded trace files (core/spec/events.h)
};

const char* toString(Tier t);
const char* toString(Role r);
const char* toString(LinkSharing s);
const char* toString(Billing b);
const char* toString(NoiseSpec::Kind k);
const char* toString(AvailabilitySpec::Kind k);
const char* toString(PartitionSpec::Kind k);
const char* toString(DataSpec::Kind k);
const char* toString(ModelSpec::Kind k);
const char* toString(ScheduleSpec::Kind k);
const char* toString(TrainingBackend b);

} // namespace fog
