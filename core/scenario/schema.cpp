// The scenario schema's table, and what is computed from it alone (bounds, applicability,
// equality, the Markdown key reference). Reading and writing YAML through it is in
// scenario_io.cpp, checking in scenario_validate.cpp.

#include "core/scenario/schema.h"
#include "core/scenario/policy_tables.h"
#include "core/scenario/schema_builder.h"
#include "core/spec/device_classes.h"

#include "core/policies/local_optimizers.h"
#include "core/policies/policy_descriptor.h"
#include "core/policies/policy_info.h"
#include "core/policies/server_optimizer.h"
#include "core/policies/update_codec.h"
#include "core/scenario/scenario_io.h"
#include "core/scenario/yaml_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace fog {

namespace {

/// "fully-sync, n-sync or fedavg": the sync policies an aggregator may run for its own
/// children (their descriptors' `level`), in list order.
std::string levelSyncNames() {
    std::vector<std::string> names;
    for (const auto* d : syncDescriptors())
        if (d->level.usable) names.push_back(d->info.name);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

} // namespace

namespace {

using namespace schema;
using L = ScenarioLimits;

template <class T, class Ref>
void addLinkFields(Builder<T>& b, const std::string& prefix, Ref link) {
    auto path = [&](const char* key) { return prefix.empty() ? std::string(key) : prefix + "." + key; };
    b.real(path("bandwidth_up_mbps"), [link](T& t) -> double& { return link(t).bandwidthUpMbps; },
           "Mbit/s", above(0), std::nullopt, "child to parent (or from to to)")
        .labelled("Bandwidth up (Mbit/s)");
    b.real(path("bandwidth_down_mbps"), [link](T& t) -> double& { return link(t).bandwidthDownMbps; },
           "Mbit/s", above(0), std::nullopt, "parent to child (or to to from)")
        .labelled("Bandwidth down (Mbit/s)");
    // Upper bounds on finite values: a latency of 1e305 ms or a price of 1e307 would give a
    // run that never ends or a cost of inf (issue 30).
    b.real(path("latency_ms"), [link](T& t) -> double& { return link(t).latencyMs; }, "ms", atLeast(0),
           atMost(3.6e6), "added to every transfer (at most an hour)")
        .labelled("Latency (ms)");
    b.real(path("price_per_gb"), [link](T& t) -> double& { return link(t).pricePerGb; },
           "currency per 10^9 bytes", atLeast(0), atMost(1e6), "charged for the traffic")
        .labelled("Traffic price ($/GB)");
}

std::vector<ScenarioField> buildScenarioSchema() {
    using DK = DataSpec::Kind;
    using PK = PartitionSpec::Kind;
    using MK = ModelSpec::Kind;
    using SK = ScheduleSpec::Kind;
    Builder<Scenario> b;

    auto& version = b.integer("schema_version", [](Scenario& s) -> int& { return s.schemaVersion; }, "",
                              atLeast(1), atMost(kScenarioSchemaVersion),
                              "version of this format; a file from a newer FogStudio is refused");
    version.custom = true;
    b.text("name", [](Scenario& s) -> std::string& { return s.name; }, "shown in the run list and reports");
    b.text("description", [](Scenario& s) -> std::string& { return s.description; },
           "free text; use | for several lines");
    {
        auto& f = b.add("seed", FieldType::Seed,
                        "every random draw of the run derives from it; same seed, same results");
        bind(f, [](Scenario& s) -> std::uint64_t& { return s.seed; });
    }

    b.section("topology", false, "machines and links (docs/scenario.md#topology)").custom = true;
    {
        auto& f = b.section("topology.default_link", true,
                            "link used for every parent link without its own; without it such "
                            "links are instantaneous and free");
        f.optional = true;
        f.present = [](const Scenario& s) { return s.topology.hasDefaultLink; };
        f.setPresent = [](Scenario& s, bool on) {
            s.topology.hasDefaultLink = on;
            if (!on) s.topology.defaultLink = LinkParams{};
        };
        addLinkFields(b, "topology.default_link",
                      [](Scenario& s) -> LinkParams& { return s.topology.defaultLink; });
    }
    b.boolean("topology.contention", [](Scenario& s) -> bool& { return s.topology.contention; },
              "concurrent transfers share the capacity of each link and network interface "
              "(max-min fair); false: each gets its links' full bandwidth (an ideal network)")
        .omitDefault = true;
    b.enumeration<LinkSharing>("topology.link_sharing",
                               [](Scenario& s) -> LinkSharing& { return s.topology.linkSharing; },
                               {LinkSharing::Shared, LinkSharing::Private},
                               "how a group's members use their link to the parent unless the group "
                               "says: one link they all share (a cell, an uplink) or a copy each")
        .omitDefault = true;

    const std::vector<std::string> files{"fashion-mnist", "idx", "csv", "cifar10"};
    b.section("data", false, "where the samples come from and how they are split");
    b.enumeration<DK>("data.dataset", [](Scenario& s) -> DK& { return s.data.kind; },
                      {DK::FashionMnist, DK::Synthetic, DK::Idx, DK::Csv, DK::Cifar10, DK::Leaf, DK::None},
                      "where the samples come from (docs/own-model.md for cifar10 and leaf)");
    {
        auto& f = b.text("data.dir", [](Scenario& s) -> std::string& { return s.data.dir; },
                         "folder with the four IDX files, or CIFAR-10's data_batch_*.bin and "
                         "test_batch.bin (relative to the scenario's folder)");
        f.when = when("data.dataset", {"fashion-mnist", "idx", "cifar10"});
        f.omitEmpty = true;
        f.defaultNote = "the Debian package's folder";
    }
    for (auto [key, ref, kinds, help] :
         {std::tuple{"data.train", +[](Scenario& s) -> std::string& { return s.data.trainPath; },
                     std::vector<std::string>{"idx", "csv", "cifar10", "leaf"},
                     "training file; required for csv and leaf, and for idx and cifar10 without dir"},
          std::tuple{"data.test", +[](Scenario& s) -> std::string& { return s.data.testPath; },
                     std::vector<std::string>{"idx", "csv", "cifar10", "leaf"},
                     "test file; required for csv and leaf, and for idx and cifar10 without dir"},
          std::tuple{"data.train_labels", +[](Scenario& s) -> std::string& { return s.data.trainLabelsPath; },
                     std::vector<std::string>{"idx"}, "IDX training labels, when not beside the images"},
          std::tuple{"data.test_labels", +[](Scenario& s) -> std::string& { return s.data.testLabelsPath; },
                     std::vector<std::string>{"idx"}, "IDX test labels, when not beside the images"}}) {
        auto& f = b.text(key, ref, help);
        f.when = when("data.dataset", kinds);
        f.omitEmpty = true;
    }
    {
        auto& f = b.integer("data.client_column", [](Scenario& s) -> int& { return s.data.clientColumn; }, "",
                            atLeast(0), atMost(1 << 20),
                            "column (1 = the first) naming each sample's writer; with partition natural each "
                            "writer is one trainer; 0 = none");
        f.when = when("data.dataset", {"csv"});
        f.omitDefault = true;
    }
    b.section("data.synthetic", true, "the FedProx Synthetic(alpha, beta) generator").when =
        when("data.dataset", {"synthetic"});
    b.real("data.synthetic.alpha", [](Scenario& s) -> double& { return s.data.syntheticAlpha; }, "",
           atLeast(0), std::nullopt, "how much the devices' models differ");
    b.real("data.synthetic.beta", [](Scenario& s) -> double& { return s.data.syntheticBeta; }, "",
           atLeast(0), std::nullopt, "how much the devices' inputs differ");
    b.boolean("data.synthetic.iid", [](Scenario& s) -> bool& { return s.data.syntheticIid; },
              "true gives all devices the same distribution");
    b.integer("data.synthetic.features", [](Scenario& s) -> int& { return s.data.syntheticFeatures; }, "",
              atLeast(1), atMost(L::maxSyntheticFeatures),
              "features per sample (trainers x 2000 x features at most 2.5 * 10^8)");
    b.integer("data.synthetic.classes", [](Scenario& s) -> int& { return s.data.syntheticClasses; }, "",
              atLeast(2), atMost(L::maxSyntheticClasses), "number of labels");
    b.integer("data.max_train_samples", [](Scenario& s) -> int& { return s.data.maxTrainSamples; },
              "samples", atLeast(0), std::nullopt,
              "keep a seeded random subset of this many training samples; 0 = all")
        .when = when("data.dataset", files);
    b.integer("data.max_test_samples", [](Scenario& s) -> int& { return s.data.maxTestSamples; },
              "samples", atLeast(0), std::nullopt, "the same for the test set; 0 = all")
        .when = when("data.dataset", files);
    b.integer("data.samples_per_trainer", [](Scenario& s) -> int& { return s.data.samplesPerTrainer; },
              "samples", atLeast(0), atMost(L::maxSamplesPerTrainer),
              "timing-only runs: samples each trainer pretends to hold (times the trainers at "
              "most 5 * 10^7)")
        .when = when("data.dataset", {"none"});
    b.section("data.partition", true, "how the training samples are split over the trainers").when =
        when("data.dataset", {"fashion-mnist", "synthetic", "idx", "csv", "cifar10", "leaf"});
    b.enumeration<PK>("data.partition.kind", [](Scenario& s) -> PK& { return s.data.partition.kind; },
                      {PK::Iid, PK::Dirichlet, PK::Shards, PK::QuantitySkew, PK::Natural},
                      "iid, label skew (dirichlet), shards per client, quantity skew, or each "
                      "writer's own samples (natural: synthetic devices, LEAF users, a CSV client column)")
        .defaultNote = "natural for synthetic and leaf data";
    b.real("data.partition.alpha", [](Scenario& s) -> double& { return s.data.partition.alpha; }, "",
           above(0), std::nullopt, "Dirichlet concentration; small = very skewed labels")
        .when = when("data.partition.kind", {"dirichlet"});
    b.integer("data.partition.min_per_client", [](Scenario& s) -> int& { return s.data.partition.minPerClient; },
              "samples", atLeast(0), std::nullopt, "redraw until every trainer has this many")
        .when = when("data.partition.kind", {"dirichlet"});
    b.integer("data.partition.per_client", [](Scenario& s) -> int& { return s.data.partition.shardsPerClient; },
              "shards", atLeast(1), std::nullopt, "shards of label-sorted samples per trainer")
        .when = when("data.partition.kind", {"shards"});
    b.real("data.partition.sigma", [](Scenario& s) -> double& { return s.data.partition.sigma; }, "",
           atLeast(0), std::nullopt, "log-normal sigma of the trainers' data sizes")
        .when = when("data.partition.kind", {"quantity-skew"});

    b.section("model", true, "what is trained");
    b.enumeration<MK>("model.kind", [](Scenario& s) -> MK& { return s.model.kind; },
                      {MK::LogReg, MK::Mlp, MK::Cnn, MK::TorchScript, MK::None},
                      "logistic regression, multi-layer perceptron, small CNN, a TorchScript file "
                      "of your own (docs/own-model.md), or none (timing only)");
    {
        auto& f = b.text("model.path", [](Scenario& s) -> std::string& { return s.model.path; },
                         "torchscript: the module file saved by torch.jit.save (relative to the "
                         "scenario's folder); it takes [batch, features] or [batch, C, H, W] and "
                         "returns [batch, classes]");
        f.when = when("model.kind", {"torchscript"});
        f.omitEmpty = true;
    }
    {
        auto& f = b.add("model.hidden", FieldType::IntList,
                        "mlp: hidden layer sizes; cnn: size of the dense layer (first entry)");
        bind(f, [](Scenario& s) -> std::vector<int>& { return s.model.hidden; });
        f.unit = "units";
        f.min = atLeast(1);
        f.max = atMost(L::maxHiddenUnits);
        f.maxItems = static_cast<std::size_t>(L::maxHiddenLayers);
        f.when = when("model.kind", {"mlp", "cnn"});
    }
    b.real("model.dropout", [](Scenario& s) -> double& { return s.model.dropout; }, "", atLeast(0),
           below(1), "dropout probability after each hidden layer")
        .when = when("model.kind", {"mlp", "cnn"});
    b.real("model.wire_bytes", [](Scenario& s) -> double& { return s.model.wireBytes; }, "bytes",
           atLeast(0), atMost(1e15), "size of a model or update on the network; 0 = 4 bytes per parameter");
    b.real("model.flops_per_sample", [](Scenario& s) -> double& { return s.model.flopsPerSample; }, "FLOP",
           atLeast(0), std::nullopt,
           "training cost of one sample (forward + backward) for nodes whose compute is given in "
           "FLOP/s; 0 = counted from the model (3 x the forward pass's multiply-adds x 2)")
        .omitDefault = true;

    b.section("training", false, "local training");
    {
        auto& f = b.add("training.optimizer", FieldType::Enum,
                        "the local optimizer (docs/learning.md): sgd, nesterov (SGD with Nesterov "
                        "momentum), adam or adamw, each as LibTorch's");
        bind(f, [](Scenario& s) -> std::string& { return s.training.optimizer; });
        for (const auto& info : localOptimizerInfos()) f.enumValues.push_back(info.name);
    }
    b.enumeration<TrainingBackend>("training.backend", [](Scenario& s) -> TrainingBackend& { return s.training.backend; },
                                   {TrainingBackend::LibTorch, TrainingBackend::Fast, TrainingBackend::Auto},
                                   "code that trains the model: libtorch (reference), fast (its own dense kernels or BLAS per layer, "
                                   "several times faster, not bit-identical), auto (fast when the model has it)")
        .omitDefault = true;
    b.real("training.learning_rate", [](Scenario& s) -> double& { return s.training.learningRate; }, "",
           above(0), std::nullopt, "SGD step size");
    b.section("training.schedule", true, "how the learning rate changes over rounds");
    b.enumeration<SK>("training.schedule.kind", [](Scenario& s) -> SK& { return s.training.schedule.kind; },
                      {SK::Constant, SK::Step, SK::InverseTime},
                      "constant lr; step: lr x gamma^floor(t / every_rounds); inverse-time: lr / (1 + gamma t)");
    {
        auto& f = b.real("training.schedule.gamma", [](Scenario& s) -> double& { return s.training.schedule.gamma; },
                         "", atLeast(0), std::nullopt, "decay factor (step) or rate (inverse-time)");
        f.when = when("training.schedule.kind", {"step", "inverse-time"});
        f.minWhen = {{when("training.schedule.kind", {"step"}), above(0)}};
    }
    b.integer("training.schedule.every_rounds", [](Scenario& s) -> int& { return s.training.schedule.stepRounds; },
              "rounds", atLeast(1), std::nullopt, "rounds between steps of the learning rate")
        .when = when("training.schedule.kind", {"step"});
    b.real("training.momentum", [](Scenario& s) -> double& { return s.training.momentum; }, "", atLeast(0),
           below(1), "SGD momentum");
    b.real("training.weight_decay", [](Scenario& s) -> double& { return s.training.weightDecay; }, "",
           atLeast(0), std::nullopt, "L2 penalty");
    // Keys that apply only to some optimizers (written only when their condition holds, so
    // files without the control keys save as before).
    auto only = [](ScenarioField& f, FieldCondition c) { f.when = std::move(c); };
    // Later enum keys bound to text: written only when not their default.
    auto laterEnum = [&](const char* path, std::string TrainingSpec::*member, std::vector<std::string> values,
                         const char* help) {
        auto& f = b.add(path, FieldType::Enum, help);
        bind(f, [member](Scenario& s) -> std::string& { return s.training.*member; });
        f.enumValues = std::move(values);
        f.omitDefault = true;
    };
    {
        const auto adam = when("training.optimizer", {"adam", "adamw"});
        only(b.real("training.beta1", [](Scenario& s) -> double& { return s.training.beta1; }, "", atLeast(0),
                    below(1), "adam, adamw: first-moment decay beta_1"),
             adam);
        only(b.real("training.beta2", [](Scenario& s) -> double& { return s.training.beta2; }, "", atLeast(0),
                    below(1), "adam, adamw: second-moment decay beta_2"),
             adam);
        only(b.real("training.epsilon", [](Scenario& s) -> double& { return s.training.epsilon; }, "", atLeast(0),
                    std::nullopt, "adam, adamw: added to the root of the second moment"),
             adam);
    }
    laterEnum("training.optimizer_state", &TrainingSpec::optimizerState, {"reset", "keep"},
              "reset: every dispatch starts a fresh optimizer (stateless clients, as Flower and Reddi et "
              "al.); keep: a trainer's next job starts from the momentum or Adam state its last "
              "delivered job ended with");
    {
        std::vector<std::string> names;
        for (const auto& info : serverOptimizerInfos()) names.push_back(info.name);
        laterEnum("training.server_optimizer", &TrainingSpec::serverOptimizer, names,
                  "how an aggregator applies the averaged local-SGD change Delta (docs/learning.md): "
                  "none (w += Delta), fedavgm, fedadagrad, fedadam or fedyogi");
    }
    {
        const auto all = when("training.server_optimizer", {"fedavgm", "fedadagrad", "fedadam", "fedyogi"});
        const auto adaptive = when("training.server_optimizer", {"fedadagrad", "fedadam", "fedyogi"});
        only(b.real("training.server_learning_rate",
                    [](Scenario& s) -> double& { return s.training.serverLearningRate; }, "", atLeast(0),
                    std::nullopt, "server step size eta; 0: fedavgm 1, fedadagrad and fedadam 0.1, fedyogi 0.01"),
             all);
        only(b.real("training.server_momentum", [](Scenario& s) -> double& { return s.training.serverMomentum; },
                    "", atLeast(0), below(1), "fedavgm: momentum beta"),
             when("training.server_optimizer", {"fedavgm"}));
        only(b.real("training.server_beta1", [](Scenario& s) -> double& { return s.training.serverBeta1; }, "",
                    atLeast(0), below(1), "first-moment decay beta_1"),
             adaptive);
        only(b.real("training.server_beta2", [](Scenario& s) -> double& { return s.training.serverBeta2; }, "",
                    atLeast(0), below(1), "fedadam, fedyogi: second-moment decay beta_2"),
             when("training.server_optimizer", {"fedadam", "fedyogi"}));
        only(b.real("training.server_tau", [](Scenario& s) -> double& { return s.training.serverTau; }, "",
                    above(0), std::nullopt, "adaptivity tau; v starts at tau^2"),
             adaptive);
    }
    {
        auto codec = [&](const char* key, std::string TrainingSpec::*member, bool up, const char* help) {
            std::vector<std::string> names;
            for (const auto& info : codecInfos())
                if (up || info.name != "topk") names.push_back(info.name);
            laterEnum(key, member, names, help);
        };
        codec("training.codec_up", &TrainingSpec::codecUp, true,
              "how a trainer's update is encoded on its way up (docs/learning.md): none, fp16, quantize "
              "(stochastic, unbiased) or topk (with error feedback); changes the arithmetic and the bytes");
        only(b.integer("training.codec_up_bits", [](Scenario& s) -> int& { return s.training.codecUpBits; }, "bits",
                       atLeast(2), atMost(16), "quantize: bits per coordinate, sign included"),
             when("training.codec_up", {"quantize"}));
        only(b.real("training.codec_up_fraction", [](Scenario& s) -> double& { return s.training.codecUpFraction; },
                    "", above(0), atMost(1), "topk: share of the coordinates sent"),
             when("training.codec_up", {"topk"}));
        codec("training.codec_down", &TrainingSpec::codecDown, false,
              "how the model is encoded on its way down to a trainer: none, fp16 or quantize (topk is "
              "uplink only)");
        only(b.integer("training.codec_down_bits", [](Scenario& s) -> int& { return s.training.codecDownBits; },
                       "bits", atLeast(2), atMost(16), "quantize: bits per coordinate, sign included"),
             when("training.codec_down", {"quantize"}));
        codec("training.aggregator_codec_up", &TrainingSpec::aggregatorCodecUp, true,
              "tiered trees: how a child aggregator's change is encoded on its way up to its parent "
              "aggregator (docs/learning.md, \"Codecs between aggregators\"): none, fp16, quantize or topk "
              "(error feedback kept by the child)");
        only(b.integer("training.aggregator_codec_up_bits",
                       [](Scenario& s) -> int& { return s.training.aggregatorCodecUpBits; }, "bits", atLeast(2),
                       atMost(16), "quantize: bits per coordinate, sign included"),
             when("training.aggregator_codec_up", {"quantize"}));
        only(b.real("training.aggregator_codec_up_fraction",
                    [](Scenario& s) -> double& { return s.training.aggregatorCodecUpFraction; }, "", above(0),
                    atMost(1), "topk: share of the coordinates sent"),
             when("training.aggregator_codec_up", {"topk"}));
        codec("training.aggregator_codec_down", &TrainingSpec::aggregatorCodecDown, false,
              "tiered trees: how an aggregator's model is encoded on its way down to a child aggregator: "
              "none, fp16 or quantize (topk is uplink only)");
        only(b.integer("training.aggregator_codec_down_bits",
                       [](Scenario& s) -> int& { return s.training.aggregatorCodecDownBits; }, "bits", atLeast(2),
                       atMost(16), "quantize: bits per coordinate, sign included"),
             when("training.aggregator_codec_down", {"quantize"}));
        b.real("training.codec_elements_per_s", [](Scenario& s) -> double& { return s.training.codecElementsPerSecond; },
               "elements/s", atLeast(0), std::nullopt,
               "speed at which every node encodes or decodes a codec's vector; the trainer's work is "
               "timed and charged as compute, the aggregator's delays the transfer; 0 = free");
    }
    b.integer("training.batch_size", [](Scenario& s) -> int& { return s.training.batchSize; }, "samples",
              atLeast(1), atMost(L::maxBatchSize), "samples per local step");
    b.integer("training.local_steps", [](Scenario& s) -> int& { return s.training.localSteps; }, "steps",
              atLeast(1), atMost(L::maxLocalSteps),
              "local steps per round or dispatch (when local_epochs is 0)");
    b.integer("training.local_epochs", [](Scenario& s) -> int& { return s.training.localEpochs; }, "epochs",
              atLeast(0), atMost(L::maxLocalEpochs),
              "when > 0: passes over the trainer's own data per round instead of local_steps");

    for (const char* which : {"sync", "selection"}) {
        const bool sync = std::string(which) == "sync";
        b.section(which, true,
                  sync ? "how updates are combined: {policy: name, parameter: value, ...}"
                       : "which trainers take part in a round: {policy: name, parameter: value, ...}")
            .custom = true;
        auto& f = b.add(std::string(which) + ".policy", FieldType::Enum,
                        sync ? "the sync policy; its parameters are listed under Sync policies"
                             : "the selection policy; its parameters are listed under Selection policies");
        f.custom = true;
        for (const auto& info : sync ? syncPolicyInfos() : selectionPolicyInfos())
            f.enumValues.push_back(info.name);
        if (sync) {
            f.get = [](const Scenario& s) -> FieldValue { return s.sync.name; };
            f.set = [](Scenario& s, const FieldValue& v) { s.sync.name = std::get<std::string>(v); };
        } else {
            f.get = [](const Scenario& s) -> FieldValue { return s.selection.name; };
            f.set = [](Scenario& s, const FieldValue& v) { s.selection.name = std::get<std::string>(v); };
        }
    }

    b.section("stop", true, "when the run ends (whichever limit comes first)");
    b.integer("stop.rounds", [](Scenario& s) -> int& { return s.stop.rounds; }, "rounds", atLeast(0),
              std::nullopt, "stop after this many (global) rounds; 0 = no limit")
        .defaultNote = "0 when a stop map is given";
    b.real("stop.virtual_time_s", [](Scenario& s) -> double& { return s.stop.virtualTimeS; }, "s",
           atLeast(0), std::nullopt, "stop at this virtual time; 0 = no limit");
    b.real("stop.target_accuracy", [](Scenario& s) -> double& { return s.stop.targetAccuracy; }, "",
           atLeast(0), atMost(1), "stop when the test accuracy reaches it; 0 = no target");
    b.real("stop.budget", [](Scenario& s) -> double& { return s.stop.budget; }, "currency", atLeast(0),
           std::nullopt, "stop when the cumulative cost reaches it; 0 = no limit");
    b.section("evaluation", true, "how often the test set is scored");
    b.integer("evaluation.every_rounds", [](Scenario& s) -> int& { return s.evaluation.everyRounds; },
              "rounds", atLeast(1), std::nullopt, "score the test set every this many rounds (and at the last)");
    {
        auto& f = b.add("events", FieldType::Section,
                        "timed events: at a virtual time or when round / accuracy / cost reaches a "
                        "value, change a link, a node, availability, group size or a policy "
                        "parameter (docs/scenario.md#events-and-traces)");
        f.custom = true;
        f.typeNote = "list of {at or when, action}";
    }
    return std::move(b.fields);
}

std::vector<LinkField> buildLinkSchema() {
    Builder<LinkParams> b;
    addLinkFields(b, "", [](LinkParams& l) -> LinkParams& { return l; });
    return std::move(b.fields);
}


/// Link keys of a node's optional `link`: read as the defaults while there is none; setting
/// one gives the node a link of its own.
/// Trace files and the spot bid (docs/scenario.md, "Events and traces").
void addNodeTraceFields(Builder<NodeSpec>& b) {
    b.text("availability.file", [](NodeSpec& n) -> std::string& { return n.availability.file; },
           "CSV availability trace (1 online, 0 offline; a group's `value` column: the share "
           "online) instead of `offline`, relative to the scenario's folder")
        .labelled("Availability trace (CSV file)")
        .when = when("availability.kind", {"trace"});
    b.fields.back().omitEmpty = true;
    b.text("price_trace", [](NodeSpec& n) -> std::string& { return n.priceTrace; },
           "CSV price trace (currency/hour) replacing price_per_hour from each row's time, "
           "relative to the scenario's folder")
        .labelled("Price trace (CSV file)")
        .omitEmpty = true;
    auto& f = b.real("bid_usd_per_hour", [](NodeSpec& n) -> double& { return n.bidUsdPerHour; },
                     "currency/hour", above(0), std::nullopt,
                     "spot bid: reclaimed (offline) while price_trace is above it; needs "
                     "price_trace");
    f.unsetValue = 0.0;
    f.omitDefault = true;
    f.defaultNote = "absent: no bid";
    f.label = "Spot bid ($/hour)";
    b.text("link.trace", [](NodeSpec& n) -> std::string& { return n.linkTrace; },
           "CSV bandwidth trace of the link to the parent (Mbit/s, both directions), relative to "
           "the scenario's folder (not in default_link or topology.links)")
        .labelled("Bandwidth trace (CSV file)")
        .omitEmpty = true;
}

void addNodeLinkFields(Builder<NodeSpec>& b) {
    Builder<LinkParams> link;
    addLinkFields(link, "", [](LinkParams& l) -> LinkParams& { return l; });
    for (auto& lf : link.fields) {
        NodeField f;
        static_cast<FieldInfo&>(f) = lf;
        f.path = "link." + lf.path;
        f.get = [get = lf.get](const NodeSpec& n) { return get(n.link ? *n.link : LinkParams{}); };
        f.set = [set = lf.set](NodeSpec& n, const FieldValue& v) {
            if (!n.link) n.link = LinkParams{};
            set(*n.link, v);
        };
        b.fields.push_back(std::move(f));
    }
}

/// `aggregate:` of a tiered tree (core/policies/tiered.h). The map is read and written by
/// core/scenario/aggregate_io.cpp (the policies' parameters are keys of it); its fixed keys
/// are listed here with accessors, for the studio's editors and the key reference.
void addNodeAggregateFields(Builder<NodeSpec>& b) {
    {
        auto& f = b.section("aggregate", true,
                            "aggregators: the sync and selection policy this aggregator runs with its "
                            "children, with their parameters, e.g. {sync: n-sync, n: 2, selection: random-k, "
                            "k: 5}; makes the run tiered (docs/policies.md, Per-level policies)");
        f.optional = true;
        f.custom = true;
        f.label = "&Aggregation";
        f.present = [](const NodeSpec& n) { return n.aggregate.has_value(); };
        f.setPresent = [](NodeSpec& n, bool on) {
            if (on && !n.aggregate) n.aggregate = AggregateSpec{};
            if (!on) n.aggregate.reset();
        };
    }
    auto text = [&](const char* path, std::string AggregateSpec::*member, const std::string& help) {
        auto& f = b.add(path, FieldType::Text, help);
        f.get = [member](const NodeSpec& n) -> FieldValue {
            return n.aggregate ? n.aggregate.value().*member : std::string();
        };
        f.set = [member](NodeSpec& n, const FieldValue& v) {
            if (!n.aggregate) n.aggregate = AggregateSpec{};
            n.aggregate.value().*member = std::get<std::string>(v);
        };
        f.omitEmpty = true;
        return &f;
    };
    text("aggregate.sync", &AggregateSpec::sync, "its sync policy (" + levelSyncNames() + "); absent: the scenario's sync, with its parameters")
        ->labelled("Sync policy")
        .defaultNote = "absent: the scenario's sync";
    text("aggregate.selection", &AggregateSpec::selection, "its selection policy; absent: the scenario's selection, with its parameters")
        ->labelled("Selection")
        .defaultNote = "absent: the scenario's selection";
    {
        auto* f = text("aggregate.server_optimizer", &AggregateSpec::serverOptimizer,
                       "its server optimizer (none, fedavgm, fedadagrad, fedadam, fedyogi: docs/learning.md), "
                       "stepping with the changes its children send, with a state of its own; absent: training.server_optimizer, "
                       "whose parameters every aggregator shares");
        f->defaultNote = "absent: training.server_optimizer";
        f->label = "Server optimizer";
        for (const auto& info : serverOptimizerInfos()) f->enumValues.push_back(info.name);
    }
    auto integer = [&](const char* path, int AggregateSpec::*member, int def, double min, const char* help) {
        auto& f = b.add(path, FieldType::Integer, help);
        f.min = atLeast(min);
        f.max = atMost(1000000);
        f.get = [member, def](const NodeSpec& n) -> FieldValue {
            return static_cast<double>(n.aggregate ? n.aggregate.value().*member : def);
        };
        f.set = [member](NodeSpec& n, const FieldValue& v) {
            if (!n.aggregate) n.aggregate = AggregateSpec{};
            n.aggregate.value().*member = static_cast<int>(std::get<double>(v));
        };
        return &f; // written by emitAggregate, only when not the default
    };
    integer("aggregate.local_steps", &AggregateSpec::localSteps, 0, 0,
            "fedavg: local steps per dispatch to a trainer child; 0: training.local_steps / "
            "local_epochs (fully-sync and n-sync take one mini-batch gradient and refuse it)")
        ->labelled("Local steps (0: default)")
        .unit = "steps";
    integer("aggregate.rounds", &AggregateSpec::rounds, 1, 1,
            "rounds it runs each time its parent sends it the model (tau2 of hierarchical FL, P of "
            "model averaging); the root runs rounds until a stop rule fires")
        ->labelled("Rounds per parent model")
        .unit = "rounds";
}

/// The keys of a node or group entry in the order the writer puts them in the file (and the
/// reader asks for them, so "expected one of" lists follow the file too).
std::vector<NodeField> buildNodeSchema() {
    using NK = NoiseSpec::Kind;
    using AK = AvailabilitySpec::Kind;
    Builder<NodeSpec> b;
    b.text("id", [](NodeSpec& n) -> std::string& { return n.id; },
           "unique name (required); a group's members are <id>-0, <id>-1, ...")
        .labelled("&Id")
        .custom = true;
    {
        auto& f = b.integer("count", [](NodeSpec& n) -> int& { return n.count; }, "members", atLeast(1),
                            atMost(1000000), "groups only (required): members, per member of the parent group when nested");
        f.custom = true;
        f.label = "&Count";
    }
    b.enumeration<Tier>("tier", [](NodeSpec& n) -> Tier& { return n.tier; }, {Tier::Cloud, Tier::Edge, Tier::Device},
                        "where it sits (for reports and placement)")
        .labelled("&Tier");
    b.enumeration<Role>("role", [](NodeSpec& n) -> Role& { return n.role; },
                        {Role::Trainer, Role::Aggregator, Role::Both, Role::Relay},
                        "trains, aggregates, both, or relay: forwards its children's traffic to its "
                        "parent and back, neither training nor aggregating")
        .labelled("&Role");
    b.text("parent", [](NodeSpec& n) -> std::string& { return n.parent; },
           "the node (or group member, or group, for a nested group) this one reports to; empty for a root")
        .labelled("&Parent")
        .omitEmpty = true;
    b.text("region", [](NodeSpec& n) -> std::string& { return n.region; },
           "label used by placement and model averaging")
        .labelled("Re&gion")
        .omitEmpty = true;
    {
        auto& f = b.add("position", FieldType::Section,
                        "where the studio draws the node (centre, canvas units); absent = "
                        "automatic layout; no effect on a run");
        f.custom = true;
        f.typeNote = "[x, y], two numbers";
    }
    b.section("compute", true, "speed");
    {
        auto& f = b.add("compute.throughput", FieldType::Range, "how fast the node trains (a range in groups)");
        bind(f, [](NodeSpec& n) -> Range& { return n.compute.throughput; });
        f.unit = "samples/s";
        f.min = above(0);
        f.label = "Throughput (samples/s)";
    }
    {
        auto& f = b.add("compute.flops", FieldType::Range,
                        "how fast the node computes, in floating-point operations per second (a range "
                        "in groups); when set, its speed in samples/s is this divided by the model's "
                        "training FLOPs per sample and throughput is not used; 0 = not set");
        bind(f, [](NodeSpec& n) -> Range& { return n.compute.flops; });
        f.unit = "FLOP/s";
        f.min = atLeast(0);
        f.label = "Speed (FLOP/s)";
        f.omitDefault = true;
    }
    {
        auto& f = b.add("compute.device_class", FieldType::Enum,
                        "a device from the table of docs/own-model.md (\"Device classes\"): its FLOP/s stand "
                        "for compute.flops when that is not set, its power gives energy.per_flop_j and its "
                        "network interface nic_mbps where the node sets neither");
        f.enumValues = deviceClassNames();
        f.get = [](const NodeSpec& n) -> FieldValue { return n.compute.deviceClass; };
        f.set = [](NodeSpec& n, const FieldValue& v) { n.compute.deviceClass = std::get<std::string>(v); };
        f.omitDefault = true;
        f.defaultNote = "absent: none";
        f.label = "Device class";
    }
    b.text("compute.trace", [](NodeSpec& n) -> std::string& { return n.computeTrace; },
           "CSV trace of the speed over time (time_s,value or one column per member), in the unit "
           "compute is given in: samples/s, or FLOP/s with compute.flops or a device class (docs/scenario.md, \"Events "
           "and traces\")")
        .labelled("Speed trace (CSV file)")
        .omitEmpty = true;
    b.section("compute.noise", true, "random slow-down of each step (mean 1)");
    b.enumeration<NK>("compute.noise.kind", [](NodeSpec& n) -> NK& { return n.compute.noise.kind; },
                      {NK::None, NK::Exponential, NK::ShiftedExponential, NK::LogNormal},
                      "the factor's distribution")
        .labelled("Step-time &noise");
    b.real("compute.noise.shift", [](NodeSpec& n) -> double& { return n.compute.noise.shift; }, "",
           atLeast(0), below(1), "factor = shift + exponential with mean 1 - shift")
        .labelled("Shift (fraction of mean, [0, 1))")
        .when = when("compute.noise.kind", {"shifted-exponential"});
    b.real("compute.noise.sigma", [](NodeSpec& n) -> double& { return n.compute.noise.sigma; }, "",
           above(0), std::nullopt, "sigma of the log-normal factor (mean 1)")
        .labelled("Sigma (log-normal)")
        .when = when("compute.noise.kind", {"lognormal"});
    b.section("availability", true, "when it is online (only trainers may go offline)");
    b.enumeration<AK>("availability.kind", [](NodeSpec& n) -> AK& { return n.availability.kind; },
                      {AK::Always, AK::Markov, AK::Trace},
                      "never offline, two-state Markov on/off, or listed offline intervals")
        .labelled("&Availability");
    b.real("availability.mean_up_s", [](NodeSpec& n) -> double& { return n.availability.meanUpS; }, "s",
           atLeast(L::minMarkovMeanS), std::nullopt, "mean time online (exponential)")
        .labelled("Mean time online (s)")
        .when = when("availability.kind", {"markov"});
    b.real("availability.mean_down_s", [](NodeSpec& n) -> double& { return n.availability.meanDownS; }, "s",
           atLeast(L::minMarkovMeanS), std::nullopt, "mean time offline (exponential)")
        .labelled("Mean time offline (s)")
        .when = when("availability.kind", {"markov"});
    {
        auto& f = b.add("availability.start", FieldType::Enum,
                        "state at t = 0; stationary draws it from the long-run proportions");
        f.enumValues = {"online", "offline", "stationary"};
        f.label = "State at t = 0";
        f.when = when("availability.kind", {"markov"});
        f.get = [](const NodeSpec& n) -> FieldValue {
            const auto& a = n.availability;
            return std::string(a.startStationary ? "stationary" : a.startOnline ? "online" : "offline");
        };
        f.set = [](NodeSpec& n, const FieldValue& v) {
            const auto& text = std::get<std::string>(v);
            n.availability.startStationary = text == "stationary";
            n.availability.startOnline = text != "offline";
        };
    }
    {
        auto& f = b.add("availability.offline", FieldType::Section,
                        "[[from_s, to_s], ...]: offline intervals of virtual time (from >= 0, "
                        "from < to, sorted, not overlapping)");
        f.custom = true;
        f.typeNote = "list of [from_s, to_s] pairs";
        f.label = "Offline intervals (s)";
        f.when = when("availability.kind", {"trace"});
        f.unit = "s";
    }
    {
        auto& f = b.add("price_per_hour", FieldType::Range,
                        "billed per started second while held and online (serverless: while computing)");
        bind(f, [](NodeSpec& n) -> Range& { return n.pricePerHour; });
        f.unit = "currency/hour";
        f.min = atLeast(0);
        f.max = atMost(1e6);
        f.label = "Price ($/hour)";
    }
    b.enumeration<Billing>("billing", [](NodeSpec& n) -> Billing& { return n.billing; },
                           {Billing::Held, Billing::Serverless},
                           "held: price_per_hour while held (a rented machine); serverless: while it "
                           "computes, plus invocation_fee_usd per dispatch (functions)")
        .labelled("&Billing")
        .omitDefault = true;
    {
        auto& f = b.real("invocation_fee_usd", [](NodeSpec& n) -> double& { return n.invocationFeeUsd; },
                         "currency/dispatch", atLeast(0), atMost(1e6),
                         "fee for every dispatch (invocation) of a serverless node");
        f.when = when("billing", {"serverless"});
        f.omitDefault = true;
        f.label = "Fee per invocation ($)";
    }
    {
        auto& f = b.add("data_share", FieldType::Range, "relative amount of data; weights the quantity-skew partition");
        bind(f, [](NodeSpec& n) -> Range& { return n.dataShare; });
        f.min = above(0);
        f.label = "Data share (relative)";
    }
    {
        auto& f = b.real("nic_mbps", [](NodeSpec& n) -> double& { return n.nicMbps; }, "Mbit/s", above(0),
                         std::nullopt,
                         "the node's network interface, each direction: caps all its transfers together");
        f.unsetValue = 0.0;
        f.omitDefault = true;
        f.defaultNote = "absent: unlimited";
        f.label = "Network interface (Mbit/s)";
    }
    {
        auto& f = b.add("link_sharing", FieldType::Enum,
                        "shared: the members share one link to their parent (per parent member); "
                        "private: each member has its own copy of the link");
        f.enumValues = {toString(LinkSharing::Shared), toString(LinkSharing::Private)};
        f.get = [](const NodeSpec& n) -> FieldValue {
            return std::string(n.linkSharing ? toString(*n.linkSharing) : "");
        };
        f.set = [](NodeSpec& n, const FieldValue& v) {
            const auto& text = std::get<std::string>(v);
            n.linkSharing.reset();
            for (LinkSharing s : {LinkSharing::Shared, LinkSharing::Private})
                if (text == toString(s)) n.linkSharing = s;
        };
        f.omitDefault = true;
        f.groupsOnly = true;
        f.defaultNote = "absent: topology.link_sharing";
        f.label = "Link &sharing";
    }
    b.section("energy", true, "energy use");
    b.real("energy.per_sample_j", [](NodeSpec& n) -> double& { return n.energy.perSampleJ; }, "J/sample",
           atLeast(0), std::nullopt, "spent for every training sample computed")
        .labelled("Energy per sample (J)");
    b.real("energy.per_flop_j", [](NodeSpec& n) -> double& { return n.energy.perFlopJ; }, "J/FLOP",
           atLeast(0), std::nullopt,
           "spent for every training FLOP: a sample costs this times the model's training FLOPs per "
           "sample, on top of per_sample_j")
        .labelled("Energy per FLOP (J)")
        .omitDefault = true;
    b.real("energy.per_byte_j", [](NodeSpec& n) -> double& { return n.energy.perByteJ; }, "J/byte",
           atLeast(0), std::nullopt, "spent by the sender for every byte sent")
        .labelled("Energy per byte sent (J)");
    b.real("energy.per_byte_forwarded_j", [](NodeSpec& n) -> double& { return n.energy.perByteForwardedJ; },
           "J/byte", atLeast(0), std::nullopt,
           "spent for every byte the node forwards between its children and its parent (relays)")
        .labelled("Energy per byte forwarded (J)")
        .omitDefault = true;
    b.real("energy.idle_w", [](NodeSpec& n) -> double& { return n.energy.idleW; }, "W", atLeast(0),
           std::nullopt,
           "drawn while the node is held (online and billed: from its first use, aggregators from t = 0) "
           "and not computing, i.e. idle, receiving or sending (the bytes cost their per-byte energy on "
           "top); never offline; serverless nodes and relays are never held")
        .labelled("Idle power (W)")
        .omitDefault = true;
    b.real("energy.per_byte_received_j", [](NodeSpec& n) -> double& { return n.energy.perByteReceivedJ; },
           "J/byte", atLeast(0), std::nullopt,
           "spent by the receiver for every byte received (per hop with topology.contention, as the "
           "sender's bytes)")
        .labelled("Energy per byte received (J)")
        .omitDefault = true;
    b.real("energy.per_update_aggregated_j", [](NodeSpec& n) -> double& { return n.energy.perUpdateAggregatedJ; },
           "J/update", atLeast(0), std::nullopt,
           "spent by an aggregator for every model update or gradient it folds into an aggregation "
           "(the participants of each aggregation record; discarded updates cost nothing)")
        .labelled("Energy per update aggregated (J)")
        .omitDefault = true;
    {
        auto& f = b.section("link", true, "the link to the parent (else topology.default_link)");
        f.optional = true;
        f.label = "&Link";
        f.present = [](const NodeSpec& n) { return n.link.has_value(); };
        f.setPresent = [](NodeSpec& n, bool on) {
            if (on && !n.link) n.link = LinkParams{};
            if (!on) n.link.reset();
        };
    }
    addNodeLinkFields(b);
    addNodeTraceFields(b);
    addNodeAggregateFields(b);
    return std::move(b.fields);
}

NumericBounds boundsFrom(const FieldInfo& f, const std::optional<FieldBound>& min) {
    NumericBounds b;
    b.integer = f.type == FieldType::Integer || f.type == FieldType::IntList;
    if (min) {
        b.min = min->value;
        b.minInclusive = min->inclusive;
    } else if (b.integer) {
        b.min = std::numeric_limits<int>::min();
    }
    if (f.max) {
        b.max = f.max->value;
        b.maxInclusive = f.max->inclusive;
        b.interval = !b.integer;
    } else if (b.integer) {
        b.max = std::numeric_limits<int>::max();
    }
    return b;
}

std::string num(double v) { return formatNumber(v); }

bool sameNumber(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

} // namespace

// --- FieldInfo ------------------------------------------------------------------------------

std::string FieldInfo::key() const {
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string FieldInfo::editorLabel() const {
    if (!label.empty()) return label;
    std::string out = key();
    std::replace(out.begin(), out.end(), '_', ' ');
    if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
    return unit.empty() ? out : out + " (" + unit + ")";
}

std::string FieldInfo::parent() const {
    const auto dot = path.rfind('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

const std::vector<ScenarioField>& scenarioSchema() {
    static const std::vector<ScenarioField> table = buildScenarioSchema();
    return table;
}

const std::vector<LinkField>& linkSchema() {
    static const std::vector<LinkField> table = buildLinkSchema();
    return table;
}

const std::vector<NodeField>& nodeSchema() {
    static const std::vector<NodeField> table = buildNodeSchema();
    return table;
}

const NodeField* findNodeField(const std::string& path) {
    return findIn(nodeSchema(), path);
}

bool fieldApplies(const NodeField& f, const NodeSpec& n) {
    return appliesIn(f, nodeSchema(), n);
}

const ScenarioField* findScenarioField(const std::string& path) {
    return findIn(scenarioSchema(), path);
}

bool fieldApplies(const ScenarioField& f, const Scenario& s) {
    return appliesIn(f, scenarioSchema(), s);
}

bool fieldApplies(const LinkField& f, const LinkParams& l) {
    return appliesIn(f, linkSchema(), l);
}

// --- bounds ---------------------------------------------------------------------------------

NumericBounds fieldBounds(const FieldInfo& f) {
    // The loosest: the field's own lower bound, or the loosest conditional one.
    std::optional<FieldBound> min = f.min;
    for (const auto& c : f.minWhen)
        if (min && (c.bound.value < min->value ||
                    (c.bound.value == min->value && c.bound.inclusive && !min->inclusive)))
            min = c.bound;
    return boundsFrom(f, min);
}

NumericBounds fieldBounds(const ScenarioField& f, const Scenario& s) {
    for (const auto& c : f.minWhen)
        if (conditionHolds(c.when, scenarioSchema(), s)) return boundsFrom(f, c.bound);
    return boundsFrom(f, f.min);
}

NumericBounds policyParamBounds(const PolicyParamInfo& p) {
    NumericBounds b;
    b.integer = p.integer;
    b.min = p.min;
    if (p.integer) {
        b.max = std::min(p.max, ScenarioLimits::maxPolicyInteger);
    } else if (p.max < 1e9) {
        // Open-ended real parameters carry a huge sentinel maximum: only a real one counts.
        b.max = p.max;
        b.interval = true;
    }
    return b;
}

std::string boundsProblem(const NumericBounds& b, double v) {
    if (!std::isfinite(v)) return "must be a finite number, got " + num(v);
    const bool lowOk = b.minInclusive ? v >= b.min : v > b.min;
    const bool highOk = b.maxInclusive ? v <= b.max : v < b.max;
    if (b.interval) {
        if (lowOk && highOk) return {};
        return std::string("must be in ") + (b.minInclusive ? "[" : "(") + num(b.min) + ", " +
               num(b.max) + (b.maxInclusive ? "]" : ")") + ", got " + num(v);
    }
    if (!lowOk) return std::string("must be ") + (b.minInclusive ? ">= " : "> ") + num(b.min) + ", got " + num(v);
    if (!highOk) return std::string("must be ") + (b.maxInclusive ? "<= " : "< ") + num(b.max) + ", got " + num(v);
    return {};
}

SpinRange spinRange(const NumericBounds& b, int decimals) {
    const double step = b.integer ? 1.0 : 1.0 / std::pow(10.0, decimals);
    const double lowest = b.integer ? std::numeric_limits<int>::min() : -std::numeric_limits<double>::max();
    const double highest = b.integer ? std::numeric_limits<int>::max() : std::numeric_limits<double>::max();
    SpinRange r;
    r.min = std::isfinite(b.min) ? (b.minInclusive ? b.min : b.min + step) : lowest;
    r.max = std::isfinite(b.max) ? (b.maxInclusive ? b.max : b.max - step) : highest;
    r.min = std::max(r.min, lowest);
    r.max = std::min(r.max, highest);
    return r;
}

// --- values and equality ----------------------------------------------------------------------

bool isUnset(const FieldInfo& f, const FieldValue& v) {
    const auto* d = std::get_if<double>(&v);
    return f.unsetValue && d && sameNumber(*d, *f.unsetValue);
}

std::string formatFieldValue(const FieldValue& v) {
    if (const auto* d = std::get_if<double>(&v)) return num(*d);
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    if (const auto* s = std::get_if<std::string>(&v)) return *s;
    if (const auto* u = std::get_if<std::uint64_t>(&v)) return std::to_string(*u);
    if (const auto* r = std::get_if<Range>(&v))
        return r->isExact() ? num(r->min) : "{min: " + num(r->min) + ", max: " + num(r->max) + "}";
    std::string out = "[";
    for (int x : std::get<std::vector<int>>(v))
        out += (out.size() > 1 ? ", " : "") + std::to_string(x);
    return out + "]";
}

bool sameFieldValue(const FieldValue& a, const FieldValue& b) {
    if (a.index() != b.index()) return false;
    if (const auto* d = std::get_if<double>(&a)) return sameNumber(*d, std::get<double>(b));
    if (const auto* r = std::get_if<Range>(&a))
        return sameNumber(r->min, std::get<Range>(b).min) && sameNumber(r->max, std::get<Range>(b).max);
    if (const auto* x = std::get_if<bool>(&a)) return *x == std::get<bool>(b);
    if (const auto* x = std::get_if<std::string>(&a)) return *x == std::get<std::string>(b);
    if (const auto* x = std::get_if<std::uint64_t>(&a)) return *x == std::get<std::uint64_t>(b);
    return std::get<std::vector<int>>(a) == std::get<std::vector<int>>(b);
}

namespace {

template <class T>
bool sameFields(const std::vector<SchemaField<T>>& table, const T& a, const T& b) {
    for (const auto& f : table) {
        if (f.custom) continue;
        const bool inA = appliesIn(f, table, a), inB = appliesIn(f, table, b);
        if (inA != inB) return false;
        if (!inA || !f.get) continue;
        if (!sameFieldValue(f.get(a), f.get(b))) return false;
    }
    return true;
}

/// Every stored value of the table's keys, applicable or not (for "did this edit change
/// anything"), or only those the file would hold (for "would the file differ").
template <class T>
bool sameStored(const std::vector<SchemaField<T>>& table, const T& a, const T& b) {
    for (const auto& f : table) {
        if (f.optional && f.present && f.present(a) != f.present(b)) return false;
        if (f.custom || !f.get) continue;
        if (!sameFieldValue(f.get(a), f.get(b))) return false;
    }
    return true;
}

/// The keys the table leaves to code of its own: id, count, the trace, the position.
bool sameCustomParts(const NodeSpec& a, const NodeSpec& b, bool asWritten) {
    if (a.id != b.id || a.group != b.group) return false;
    if ((a.group || !asWritten) && a.count != b.count) return false;
    const bool trace = a.availability.kind == AvailabilitySpec::Kind::Trace;
    if (!asWritten || trace) {
        const auto& x = a.availability.offline;
        const auto& y = b.availability.offline;
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (!sameNumber(x[i].fromS, y[i].fromS) || !sameNumber(x[i].toS, y[i].toS)) return false;
    }
    if (a.aggregate && b.aggregate && a.aggregate->params != b.aggregate->params) return false; // aggregate_io.h
    if (a.hasPosition != b.hasPosition) return false;
    if ((a.hasPosition || !asWritten) && (!sameNumber(a.x, b.x) || !sameNumber(a.y, b.y))) return false;
    return true;
}

} // namespace

bool samePolicy(const PolicySpec& a, const PolicySpec& b, const std::vector<PolicyInfo>& catalogue) {
    if (a.name != b.name) return false;
    // As written: the policy's parameters with defaults filled in, then any other keys given.
    const PolicyInfo* info = nullptr;
    for (const auto& i : catalogue)
        if (i.name == a.name) info = &i;
    auto listed = [&](const std::string& key) {
        if (!info) return false;
        for (const auto& p : info->params)
            if (p.key == key) return true;
        return false;
    };
    if (info)
        for (const auto& p : info->params)
            if (!sameNumber(a.get(p.key, p.defaultValue), b.get(p.key, p.defaultValue))) return false;
    auto extras = [&](const PolicySpec& p) {
        std::vector<std::pair<std::string, double>> out;
        for (const auto& kv : p.params)
            if (!listed(kv.first)) out.push_back(kv);
        return out;
    };
    const auto ea = extras(a), eb = extras(b);
    if (ea.size() != eb.size()) return false;
    for (std::size_t i = 0; i < ea.size(); ++i)
        if (ea[i].first != eb[i].first || !sameNumber(ea[i].second, eb[i].second)) return false;
    return true;
}

bool sameTopology(const TopologySpec& a, const TopologySpec& b) {
    if (a.hasDefaultLink != b.hasDefaultLink) return false;
    if (a.contention != b.contention || a.linkSharing != b.linkSharing) return false;
    if (a.hasDefaultLink && !sameFields(linkSchema(), a.defaultLink, b.defaultLink)) return false;
    if (a.links.size() != b.links.size()) return false;
    for (std::size_t i = 0; i < a.links.size(); ++i)
        if (a.links[i].from != b.links[i].from || a.links[i].to != b.links[i].to ||
            !sameFields(linkSchema(), a.links[i].params, b.links[i].params))
            return false;
    if (a.nodes.size() != b.nodes.size()) return false;
    for (std::size_t i = 0; i < a.nodes.size(); ++i)
        if (!sameFields(nodeSchema(), a.nodes[i], b.nodes[i]) || !sameCustomParts(a.nodes[i], b.nodes[i], true))
            return false;
    return true;
}

bool sameNodeSpec(const NodeSpec& a, const NodeSpec& b) {
    return sameStored(nodeSchema(), a, b) && sameCustomParts(a, b, false);
}

bool sameLinkSpec(const LinkSpec& a, const LinkSpec& b) {
    return a.from == b.from && a.to == b.to && sameStored(linkSchema(), a.params, b.params);
}

bool sameScenario(const Scenario& a, const Scenario& b) {
    return sameFields(scenarioSchema(), a, b) && sameTopology(a.topology, b.topology) &&
           samePolicy(a.sync, b.sync, syncPolicyInfos()) &&
           samePolicy(a.selection, b.selection, selectionPolicyInfos());
}

// --- the key reference ------------------------------------------------------------------------

namespace {

std::string typeText(const FieldInfo& f) {
    if (!f.typeNote.empty()) return f.typeNote;
    switch (f.type) {
    case FieldType::Section:
        return "map";
    case FieldType::Real:
        return "number";
    case FieldType::Integer:
        return "integer";
    case FieldType::Bool:
        return "true | false";
    case FieldType::Text:
        if (!f.enumValues.empty()) {
            std::string out;
            for (const auto& v : f.enumValues)
                out += (out.empty() ? "`" : " | `") + v + "`";
            return out;
        }
        return "text";
    case FieldType::Enum: {
        std::string out;
        for (const auto& v : f.enumValues)
            out += (out.empty() ? "`" : " | `") + v + "`";
        return out;
    }
    case FieldType::Seed:
        return "integer 0 .. 2^64-1";
    case FieldType::Range:
        return "number, or {min, max} in a group";
    case FieldType::IntList:
        return "list of integers" +
               (f.maxItems ? " (at most " + std::to_string(f.maxItems) + ")" : std::string());
    }
    return {};
}

std::string boundsText(const NumericBounds& b, bool integerType) {
    const bool lowSet = std::isfinite(b.min) && !(integerType && b.min == std::numeric_limits<int>::min());
    const bool highSet = std::isfinite(b.max) && !(integerType && b.max == std::numeric_limits<int>::max());
    if (b.interval && lowSet && highSet)
        return std::string(b.minInclusive ? "[" : "(") + num(b.min) + ", " + num(b.max) +
               (b.maxInclusive ? "]" : ")");
    std::string out;
    if (lowSet) out = std::string(b.minInclusive ? ">= " : "> ") + num(b.min);
    if (highSet) out += (out.empty() ? "" : ", ") + std::string(b.maxInclusive ? "<= " : "< ") + num(b.max);
    return out;
}

std::string cell(std::string s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else out += c;
    }
    return out;
}

} // namespace

std::string schema::markdownRow(const FieldInfo& f, const std::optional<FieldValue>& byDefault,
                                const std::string& prefix) {
    std::string bounds;
    if (f.isBounded()) {
        bounds = boundsText(fieldBounds(f), true);
        for (const auto& c : f.minWhen) {
            NumericBounds nb = fieldBounds(f);
            nb.min = c.bound.value;
            nb.minInclusive = c.bound.inclusive;
            bounds += "; " + boundsText(nb, true) + " with " + c.when.path.substr(c.when.path.rfind('.') + 1) +
                      " " + joinNames(c.when.values);
        }
    }
    std::string def;
    const bool emptyDefault = byDefault && (f.type == FieldType::Text || f.type == FieldType::Enum) &&
                              formatFieldValue(*byDefault).empty();
    if (byDefault && !(emptyDefault && (f.omitEmpty || f.omitDefault)) && !isUnset(f, *byDefault))
        def = "`" + formatFieldValue(*byDefault) + "`";
    if (f.type == FieldType::Text && def == "``") def = f.defaultNote.empty() ? "empty" : ""; // the note says it
    if (!f.defaultNote.empty()) def += (def.empty() ? "" : " (") + f.defaultNote + (def.empty() ? "" : ")");
    std::string applies;
    if (f.when)
        applies = f.when->path.substr(f.when->path.rfind('.') + 1) + ": " + joinNames(f.when->values);
    else if (f.optional)
        applies = "when given";
    else if (f.groupsOnly)
        applies = "groups";
    return "| `" + prefix + f.path + "` | " + cell(typeText(f)) + " | " + cell(f.unit) + " | " + def + " | " +
           cell(bounds) + " | " + cell(applies) + " | " + cell(f.help) + " |\n";
}

namespace {

using schema::markdownRows;

std::string policyRows(const char* which, const std::vector<PolicyInfo>& infos) {
    std::string out;
    for (const auto& info : infos)
        for (const auto& p : info.params)
            out += "| `" + info.name + "` | `" + std::string(which) + "." + p.key + "` | " +
                   (p.integer ? "integer" : "number") + " | `" + num(p.defaultValue) + "` | " +
                   cell(boundsText(policyParamBounds(p), true)) + " | " + cell(p.help) + " |\n";
    return out;
}

/// One table row per policy: its name, its parameters with default and bounds, its summary.
std::string policyTable(const char* which, const std::vector<PolicyInfo>& infos) {
    std::string out = std::string("| ") + which + " `policy` | parameters (default, bounds) | what it does |\n|---|---|---|\n";
    for (const auto& info : infos) {
        std::string params;
        for (const auto& p : info.params) {
            const std::string bounds = boundsText(policyParamBounds(p), true);
            params += (params.empty() ? "`" : ", `") + p.key + "` (" + num(p.defaultValue) +
                      (p.integer ? ", integer" : "") + (bounds.empty() ? "" : ", " + bounds) + ")";
        }
        out += "| `" + info.name + "` | " + cell(params) + " | " + cell(info.summary) + " |\n";
    }
    return out;
}

} // namespace

std::string policyTreesMarkdown() {
    std::string out = "| policy | a round ends | closed form (exponential steps, no communication) |\n|---|---|---|\n";
    std::string none;
    for (const auto* d : syncDescriptors()) {
        const std::string name = "`" + d->info.name + "`";
        if (!d->hasBarrier) {
            none += (none.empty() ? "" : ", ") + name;
            continue;
        }
        const std::string k = d->barrier.count ? d->barrier.count.key : "k";
        switch (d->barrier.kind) {
        case BarrierKind::FullySync:
            out += "| " + name + " | when every selected trainer has delivered | E[round] = H_y / λ |\n";
            break;
        case BarrierKind::FirstK:
            out += "| " + name + " | at the first *" + k + "* deliveries | E[round] = (H_y − H_{y−" + k + "}) / λ |\n";
            break;
        case BarrierKind::FirstBatches:
            out += "| " + name + " | at the first *" + k + "* mini-batches from any trainers | E[round] = " + k +
                   " / (y λ) |\n";
            break;
        }
    }
    out += "| " + none + " | by rules of their own | none (the studio estimates it by Monte Carlo) |\n";

    // The trees each shape uses (the shapes' rules: core/policies/policy_registry.cpp).
    struct Shape {
        TreeShape shape;
        const char* servers;
        const char* trainers;
    };
    const Shape shapes[] = {
        {TreeShape::SingleServer, "the single root aggregator (the parameter server)",
         "every trainer of the tree; aggregators between a trainer and the server **relay**"},
        {TreeShape::EdgeGroups, "the single root aggregator (the cloud) and the aggregators right under it (the edges)",
         "those right under an edge, and those right under the cloud (one more group)"},
        {TreeShape::Regions, "every root aggregator (one per region)",
         "those right under a regional server; a region without trainers takes no part"},
    };
    out += "\n| policy | its server(s) | the trainers it uses |\n|---|---|---|\n";
    for (const Shape& sh : shapes) {
        std::string names, perRoot;
        for (const auto* d : syncDescriptors()) {
            if (d->info.shape != sh.shape) continue;
            names += (names.empty() ? "`" : ", `") + d->info.name + "`";
            if (d->serverPerRoot) perRoot += (perRoot.empty() ? "`" : ", `") + d->info.name + "`";
        }
        if (names.empty()) continue;
        out += "| " + names + " | " + sh.servers + " | " + sh.trainers + " |\n";
        if (!perRoot.empty())
            out += "| " + perRoot + " with several root aggregators | every root aggregator with trainers below it "
                   "(one per region) | every trainer below a regional server; aggregators in between relay |\n";
    }
    return out;
}

std::string policiesMarkdown() {
    return policyTable("sync", syncPolicyInfos()) + "\n" + policyTable("selection", selectionPolicyInfos());
}

std::string schemaMarkdown() {
    const std::string head = "| key | type | unit | default | bounds | only with | meaning |\n"
                             "|---|---|---|---|---|---|---|\n";
    std::string out;
    out += "### Scenario keys\n\n";
    out += "Every key outside the topology's nodes and groups. *only with* names the kind a key "
           "needs (given with any other kind it is an error); bounds are inclusive unless "
           "marked `>`/`<`, and every number must be finite.\n\n";
    out += head + markdownRows(scenarioSchema(), Scenario{}, "");
    out += "\n### Node and group keys\n\n";
    out += "Each entry of `topology.nodes` and `topology.groups` (paths relative to the entry; "
           "a group also has `count`, see [groups](#groups)).\n\n";
    out += head + markdownRows(nodeSchema(), NodeSpec{}, "");
    out += "\n### Link keys\n\n";
    out += "In `topology.default_link`, a node's or group's `link`, and each entry of "
           "`topology.links` (which also has `from` and `to`, node ids).\n\n";
    out += head + markdownRows(linkSchema(), LinkParams{}, "");
    const std::string policyHead = "| policy | key | type | default | bounds | meaning |\n"
                                   "|---|---|---|---|---|---|\n";
    out += "\n### Sync policy parameters\n\n";
    out += policyHead + policyRows("sync", syncPolicyInfos());
    out += "\n### Selection policy parameters\n\n";
    out += policyHead + policyRows("selection", selectionPolicyInfos());
    return out;
}

} // namespace fog
