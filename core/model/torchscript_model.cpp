// TorchScript models of the user's own: loading (the one file that includes LibTorch's JIT),
// checking against the data, replicas for the trainers, and FLOPs counted from what LibTorch
// runs. Built-in models are counted from their layer sizes.

#include "core/model/torchscript_model.h"

#include "core/data/dataset.h"
#include "core/data/regular_file.h"
#include "core/model/learner.h"
#include "core/model/torchscript_net.h"
#include "core/model/model_checks.h"
#include "core/spec/device_classes.h"

#include <ATen/record_function.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <torch/script.h>

#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

namespace fog {

namespace {

/// The saved graph runs as it is, without the JIT's optimising passes: those apply after a
/// replica's first runs, and a replica's run count depends on which jobs its thread took, while
/// every replica must compute the same numbers at every run. The switch is per thread.
void plainGraphs() { torch::jit::setGraphExecutorOptimize(false); }

std::string shapeText(c10::IntArrayRef sizes) {
    std::string s = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
    return s + "]";
}

/// The first line of a LibTorch error, without its C++ backtrace, at most 300 characters.
std::string firstLine(const std::exception& e) {
    std::string what;
    if (const auto* c = dynamic_cast<const c10::Error*>(&e))
        what = c->what_without_backtrace();
    else
        what = e.what();
    const auto nl = what.find('\n');
    if (nl != std::string::npos) what.resize(nl);
    if (what.size() > 300) what = what.substr(0, 297) + "...";
    return what;
}

// ---- FLOPs: the matrix products and convolutions LibTorch runs on this thread ----

thread_local double tFlops = 0.0;

std::vector<std::int64_t> tensorShape(c10::ArrayRef<const c10::IValue> in, std::size_t i) {
    if (i < in.size() && in[i].isTensor()) return in[i].toTensor().sizes().vec();
    return {};
}

std::unique_ptr<at::ObserverContext> onOpStart(const at::RecordFunction&) { return nullptr; }

void onOpEnd(const at::RecordFunction& fn, at::ObserverContext*) {
    const std::string name = fn.name();
    const auto in = fn.inputs();
    if (name == "aten::addmm") { // self + mat1 [M, K] x mat2 [K, N]
        const auto a = tensorShape(in, 1), b = tensorShape(in, 2);
        if (a.size() == 2 && b.size() == 2) tFlops += 2.0 * a[0] * a[1] * b[1];
    } else if (name == "aten::mm") {
        const auto a = tensorShape(in, 0), b = tensorShape(in, 1);
        if (a.size() == 2 && b.size() == 2) tFlops += 2.0 * a[0] * a[1] * b[1];
    } else if (name == "aten::bmm") {
        const auto a = tensorShape(in, 0), b = tensorShape(in, 1);
        if (a.size() == 3 && b.size() == 3) tFlops += 2.0 * a[0] * a[1] * a[2] * b[2];
    } else if (name == "aten::convolution") {
        // Each output element is one multiply-add per weight of its group.
        const auto w = tensorShape(in, 1);
        const auto& out = fn.outputs();
        if (w.size() >= 3 && !out.empty() && out[0].isTensor()) {
            double perOutput = 1.0;
            for (std::size_t i = 1; i < w.size(); ++i) perOutput *= static_cast<double>(w[i]);
            tFlops += 2.0 * static_cast<double>(out[0].toTensor().numel()) * perOutput;
        }
    }
}

// ---- Loading, once per file version ----

struct Loaded {
    FileStamp stamp;
    std::shared_ptr<torch::jit::Module> module;
};

std::mutex& jitMutex() {
    static std::mutex m;
    return m;
}

std::string sizeText(std::uint64_t bytes) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return buf;
}

/// The module in `path` (the prototype every replica clones). Caller holds jitMutex().
std::shared_ptr<torch::jit::Module> loadLocked(const std::string& path) {
    static std::map<std::string, Loaded> loaded;
    const std::string label = "model.path " + path;
    if (path.empty()) throw ModelError("model.path is required with model.kind torchscript");
    FileStamp stamp;
    const std::string why = checkRegularFile(path, &stamp);
    if (!why.empty()) throw ModelError(label + ": " + why);
    if (stamp.size > kMaxTorchScriptBytes)
        throw ModelError(label + " is " + sizeText(stamp.size) + "; TorchScript models of at most " +
                         sizeText(kMaxTorchScriptBytes) + " are read");
    auto it = loaded.find(path);
    if (it != loaded.end() && it->second.stamp == stamp) return it->second.module;

    RegularFile file(path);
    if (!file.ok()) throw ModelError(label + ": " + file.error());
    if (file.size() > kMaxTorchScriptBytes)
        throw ModelError(label + " is " + sizeText(file.size()) + "; TorchScript models of at most " +
                         sizeText(kMaxTorchScriptBytes) + " are read");
    std::string bytes(static_cast<std::size_t>(file.size()), '\0');
    std::size_t got = 0;
    while (got < bytes.size()) {
        const long long n = file.read(bytes.data() + got, bytes.size() - got);
        if (n < 0) throw ModelError(label + ": read error");
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);
    auto module = std::make_shared<torch::jit::Module>();
    try {
        std::istringstream in(bytes);
        *module = torch::jit::load(in, torch::kCPU);
    } catch (const std::exception& e) {
        throw ModelError(label + " is not a TorchScript module LibTorch 1.13 can load (" + firstLine(e) +
                         "); save one in Python with torch.jit.save(torch.jit.script(model), path)");
    }
    if (!module->find_method("forward"))
        throw ModelError(label + ": the module has no forward method");
    for (const auto& p : module->named_parameters(true))
        if (p.value.scalar_type() != torch::kFloat)
            throw ModelError(label + ": parameter " + p.name + " is " +
                             std::string(c10::toString(p.value.scalar_type())) +
                             "; FogStudio trains float32 models (call model.float() before saving)");
    for (const auto& b : module->named_buffers(true))
        throw ModelError(label + ": the module has a buffer (" + b.name + " " + shapeText(b.value.sizes()) +
                         "), e.g. BatchNorm's running statistics, which would differ between the "
                         "trainers and are not averaged; use parameter-only layers (GroupNorm, "
                         "LayerNorm) or none");
    loaded[path] = {stamp, module};
    return module;
}

std::string inputText(const std::vector<std::int64_t>& shape) { return shapeText(shape); }

} // namespace

std::string resolveModelPath(const ModelSpec& spec) {
    if (spec.path.empty() || spec.baseDir.empty()) return spec.path;
    const std::filesystem::path p(spec.path);
    if (p.is_absolute()) return spec.path;
    return (std::filesystem::path(spec.baseDir) / p).lexically_normal().string();
}

ModelSpec withAbsoluteModelPath(const ModelSpec& spec) {
    ModelSpec r = spec;
    if (r.path.empty()) return r;
    r.path = resolveModelPath(spec);
    std::error_code ec;
    const auto abs = std::filesystem::absolute(r.path, ec);
    if (!ec) r.path = abs.lexically_normal().string();
    r.baseDir.clear();
    return r;
}

double countForwardFlops(const std::function<void()>& fn) {
    const bool wasEnabled = at::isRecordFunctionEnabled();
    at::enableRecordFunction(true);
    const auto handle = at::addThreadLocalCallback(
        at::RecordFunctionCallback(&onOpStart, &onOpEnd).needsInputs(true).needsOutputs(true));
    tFlops = 0.0;
    try {
        fn();
    } catch (...) {
        at::removeCallback(handle);
        at::enableRecordFunction(wasEnabled);
        throw;
    }
    at::removeCallback(handle);
    at::enableRecordFunction(wasEnabled);
    return tFlops;
}

ModelSummary inspectTorchScript(const std::string& path, int channels, int height, int width, int classes) {
    using Key = std::tuple<std::string, std::uint64_t, std::int64_t, int, int, int, int>;
    static std::map<Key, ModelSummary> cache;
    std::lock_guard lock(jitMutex());
    auto proto = loadLocked(path);
    FileStamp stamp;
    checkRegularFile(path, &stamp);
    const Key key{path, stamp.size, stamp.mtimeNs, channels, height, width, classes};
    if (auto it = cache.find(key); it != cache.end()) return it->second;

    const std::string label = "model.path " + path;
    plainGraphs();
    torch::jit::Module m = proto->clone();
    ModelSummary s;
    s.kind = "torchscript";
    for (const auto& p : m.named_parameters(true)) s.parameters += p.value.numel();
    if (s.parameters == 0) throw ModelError(label + ": the module has no parameters to train");
    if (width <= 0) { // the data's shape is not known yet: the file loads, that is all
        cache[key] = s;
        return s;
    }
    std::vector<std::int64_t> shape = height > 1 ? std::vector<std::int64_t>{2, channels, height, width}
                                                 : std::vector<std::int64_t>{2, std::int64_t(channels) * width};
    auto gen = at::make_generator<at::CPUGeneratorImpl>(1);
    const torch::Tensor x = torch::randn(shape, gen);
    auto forward = [&](const torch::Tensor& input, bool training) {
        m.train(training);
        try {
            c10::IValue out = m.forward({input});
            if (!out.isTensor())
                throw ModelError(label + ": the forward pass on input of shape " + shapeText(input.sizes()) +
                                 " returns a " + out.tagKind() + ", not a tensor [batch, classes]");
            return out.toTensor();
        } catch (const ModelError&) {
            throw;
        } catch (const std::exception& e) {
            throw ModelError(label + ": the forward pass fails on input of shape " + shapeText(input.sizes()) +
                             " (the data's shape: " + (height > 1 ? "[batch, channels, height, width]" : "[batch, features]") +
                             "): " + firstLine(e));
        }
    };
    torch::Tensor out;
    {
        torch::NoGradGuard guard;
        out = forward(x, false);
    }
    const std::string want = classes > 0 ? "[2, " + std::to_string(classes) + "]" : "[2, classes]";
    if (out.dim() != 2 || out.size(0) != 2 || (classes > 0 && out.size(1) != classes) || out.size(1) < 1)
        throw ModelError(label + ": a batch of input shape " + inputText(shape) + " gives an output of shape " +
                         shapeText(out.sizes()) + "; the data need " + want +
                         (classes > 0 ? " (" + std::to_string(classes) + " classes)" : std::string()));
    if (out.scalar_type() != torch::kFloat)
        throw ModelError(label + ": the output is " + std::string(c10::toString(out.scalar_type())) +
                         ", not float32");
    {
        torch::NoGradGuard guard;
        const torch::Tensor a = forward(x, true), b = forward(x, true);
        if (!torch::equal(a, b))
            throw ModelError(label + ": two forward passes in training mode on the same input give different "
                                     "outputs (dropout or another random draw from LibTorch's global stream, "
                                     "which the trainers' threads share, so runs would not be reproducible); "
                                     "remove it, or use a built-in model with model.dropout");
    }

    for (const auto& sub : m.named_modules()) {
        ModelLayer layer;
        layer.name = sub.name.empty() ? "(top)" : sub.name;
        std::string type = sub.value.type()->name() ? sub.value.type()->name()->name() : "Module";
        layer.kind = type;
        for (const auto& p : sub.value.named_parameters(false)) {
            layer.parameters += p.value.numel();
            if (p.name == "weight") layer.weightShape = p.value.sizes().vec();
        }
        if (layer.parameters > 0) s.layers.push_back(layer);
    }
    {
        torch::NoGradGuard guard;
        m.train(false);
        const torch::Tensor one = x.narrow(0, 0, 1).contiguous();
        s.forwardFlopsPerSample = countForwardFlops([&] { m.forward({one}); });
    }
    if (cache.size() > 64) cache.clear();
    cache[key] = s;
    return s;
}

ModelSummary builtinModelSummary(const ModelSpec& spec, int channels, int height, int width, int classes) {
    ModelSummary s;
    s.kind = toString(spec.kind);
    const std::int64_t features = std::int64_t(channels) * height * width;
    auto linear = [&](std::int64_t in, std::int64_t out) {
        ModelLayer l;
        l.name = "fc" + std::to_string(s.layers.size() - (spec.kind == ModelSpec::Kind::Cnn ? 2 : 0));
        l.kind = "Linear";
        l.weightShape = {out, in};
        l.parameters = out * in + out;
        s.layers.push_back(l);
        s.parameters += l.parameters;
        s.forwardFlopsPerSample += 2.0 * static_cast<double>(in) * static_cast<double>(out);
    };
    switch (spec.kind) {
    case ModelSpec::Kind::LogReg:
        linear(features, classes);
        break;
    case ModelSpec::Kind::Mlp: {
        std::int64_t in = features;
        for (int h : spec.hidden) {
            linear(in, h);
            in = h;
        }
        linear(in, classes);
        break;
    }
    case ModelSpec::Kind::Cnn: {
        // net.cpp: conv 5x5 (16), pool 2, conv 5x5 (32), pool 2, dense hidden, dense classes.
        const int h1 = height - 4, w1 = width - 4;
        const int h2 = (h1 / 2 - 4) / 2, w2 = (w1 / 2 - 4) / 2;
        if (height < 12 || width < 12 || h2 < 1 || w2 < 1)
            throw ModelError("model.kind cnn needs images of at least 12x12 pixels, the data have " +
                             std::to_string(height) + "x" + std::to_string(width));
        auto conv = [&](const char* name, int in, int out, int oh, int ow) {
            ModelLayer l;
            l.name = name;
            l.kind = "Conv2d";
            l.weightShape = {out, in, 5, 5};
            l.parameters = std::int64_t(out) * in * 25 + out;
            s.layers.push_back(l);
            s.parameters += l.parameters;
            s.forwardFlopsPerSample += 2.0 * out * oh * ow * in * 25.0;
        };
        conv("conv1", channels, 16, h1, w1);
        conv("conv2", 16, 32, h1 / 2 - 4, w1 / 2 - 4);
        const int hidden = spec.hidden.empty() ? 128 : spec.hidden.front();
        linear(std::int64_t(32) * h2 * w2, hidden);
        linear(hidden, classes);
        break;
    }
    case ModelSpec::Kind::TorchScript:
        return inspectTorchScript(resolveModelPath(spec), channels, height, width, classes);
    case ModelSpec::Kind::None:
        throw ModelError("model.kind none has no network (timing-only run)");
    }
    return s;
}

ModelSummary modelSummary(const ModelSpec& spec, int channels, int height, int width, int classes) {
    if (spec.kind == ModelSpec::Kind::TorchScript)
        return inspectTorchScript(resolveModelPath(spec), channels, height, width, classes);
    return builtinModelSummary(spec, channels, height, width, classes);
}

double trainingFlopsPerSample(const ModelSpec& spec, const ModelSummary& summary) {
    return spec.flopsPerSample > 0 ? spec.flopsPerSample : summary.trainingFlopsPerSample();
}

double modelTrainingFlops(const ModelSpec& spec, int channels, int height, int width, int classes) {
    if (spec.flopsPerSample > 0) return spec.flopsPerSample;
    if (spec.kind == ModelSpec::Kind::None)
        throw ModelError("compute.flops needs model.flops_per_sample when model.kind is none (a timing-only "
                         "run has no model to count)");
    return modelSummary(spec, channels, height, width, classes).trainingFlopsPerSample();
}

namespace {

/// The shape of the scenario's samples as validation knows it; false when not known so.
bool scenarioDataShape(const Scenario& s, int& channels, int& height, int& width, int& classes) {
    channels = height = 1;
    width = classes = 0;
    using K = DataSpec::Kind;
    switch (s.data.kind) {
    case K::FashionMnist:
        height = width = 28;
        classes = 10;
        break;
    case K::Synthetic:
        width = s.data.syntheticFeatures;
        classes = s.data.syntheticClasses;
        break;
    case K::Cifar10:
    case K::Idx:
    case K::Csv: {
        const DataFacts f = probeData(s.data);
        if (!f.known) return false;
        channels = f.channels;
        height = f.height;
        width = f.width;
        classes = s.data.kind == K::Cifar10 ? 10 : 0;
        break;
    }
    case K::Leaf:
    case K::None:
        return false;
    }
    return classes > 0 && width > 0;
}

} // namespace

double scenarioTrainingFlops(const Scenario& s) {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    if (s.model.flopsPerSample > 0) return s.model.flopsPerSample;
    const auto summary = scenarioModelSummary(s);
    return summary ? summary->trainingFlopsPerSample() : kNaN;
}

std::optional<ModelSummary> scenarioModelSummary(const Scenario& s) {
    int channels = 1, height = 1, width = 0, classes = 0;
    if (s.model.kind == ModelSpec::Kind::None || !scenarioDataShape(s, channels, height, width, classes))
        return std::nullopt;
    try {
        return modelSummary(s.model, channels, height, width, classes);
    } catch (const ModelError&) {
        return std::nullopt;
    }
}

Scenario withComputeInSamples(const Scenario& s) {
    bool any = false;
    for (const auto& n : s.topology.nodes) any = any || needsModelFlops(n);
    if (!any) return s;
    const double f = scenarioTrainingFlops(s);
    if (!(f > 0))
        throw ModelError("compute in FLOP/s: the model's FLOPs per sample are not known before the data are "
                         "read (give model.flops_per_sample)");
    Scenario out = s;
    for (auto& n : out.topology.nodes) {
        applyDeviceClass(n);
        n.compute.deviceClass.clear(); // its figures are in the fields now
        if (n.compute.flops.max > 0) {
            n.compute.throughput = Range(n.compute.flops.min / f, n.compute.flops.max / f);
            n.compute.flops = Range::exactly(0.0);
        }
        if (n.energy.perFlopJ > 0) {
            n.energy.perSampleJ += n.energy.perFlopJ * f;
            n.energy.perFlopJ = 0.0;
        }
    }
    return out;
}

} // namespace fog

namespace fog::detail {

struct ScriptReplica {
    torch::jit::Module module;
    bool training = true;
};

std::shared_ptr<ScriptReplica> makeScriptReplica(const std::string& path) {
    std::lock_guard lock(jitMutex()); // cloning registers types in the shared compilation unit
    auto proto = loadLocked(path);
    auto r = std::make_shared<ScriptReplica>();
    {
        // A deep copy clones each tensor; without autograd, so that the replica's parameters
        // are leaves of their own (else gradients would flow back into the prototype's).
        torch::NoGradGuard guard;
        r->module = proto->clone();
    }
    const auto from = proto->named_parameters(true);
    auto to = r->module.named_parameters(true);
    auto p = from.begin();
    for (auto q = to.begin(); q != to.end() && p != from.end(); ++q, ++p) {
        torch::Tensor t = (*q).value;
        t.set_requires_grad((*p).value.requires_grad());
    }
    r->module.train(true);
    return r;
}

std::vector<std::pair<std::string, torch::Tensor>> scriptParameters(ScriptReplica& r) {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& p : r.module.named_parameters(true)) out.emplace_back(p.name, p.value);
    return out;
}

torch::Tensor scriptForward(ScriptReplica& r, const torch::Tensor& x, bool training) {
    plainGraphs();
    if (r.training != training) {
        r.module.train(training);
        r.training = training;
    }
    return r.module.forward({x}).toTensor();
}

namespace {
/// Before main(): validation (core/scenario) loads TorchScript models through this.
const bool kInspectorRegistered = (setTorchScriptInspector([](const ModelSpec& spec, int channels, int height,
                                                               int width, int classes) {
                                       inspectTorchScript(resolveModelPath(spec), channels, height, width, classes);
                                   }),
                                   true);
} // namespace

} // namespace fog::detail
