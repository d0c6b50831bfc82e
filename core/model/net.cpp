#include "core/model/net.h"

#include "core/data/dataset.h"
#include "core/model/learner.h"
#include "core/util/numerics.h"
#include "core/model/torchscript_model.h"
#include "core/model/torchscript_net.h"

#include <dlfcn.h>

namespace fog::detail {

NetImpl::NetImpl(const ModelSpec& spec, int channels, int height, int width, int classes)
    : spec_(spec), channels_(channels), height_(height), width_(width) {
    const int features = channels * height * width;
    auto addLinear = [this](int in, int out) {
        linears_.push_back(register_module("fc" + std::to_string(linears_.size()),
                                           torch::nn::Linear(in, out)));
    };
    switch (spec.kind) {
    case ModelSpec::Kind::LogReg:
        addLinear(features, classes);
        break;
    case ModelSpec::Kind::Mlp: {
        int in = features;
        for (int h : spec.hidden) {
            addLinear(in, h);
            in = h;
        }
        addLinear(in, classes);
        break;
    }
    case ModelSpec::Kind::Cnn: {
        // Two 5x5 convolutions with 2x2 pooling, then two dense layers: small enough to train
        // on a laptop CPU, large enough to beat the MLP on images.
        const int h2 = ((height - 4) / 2 - 4) / 2, w2 = ((width - 4) / 2 - 4) / 2;
        if (height < 12 || width < 12 || h2 < 1 || w2 < 1)
            throw ModelError("model.kind cnn needs images of at least 12x12 pixels, the data have " +
                             std::to_string(height) + "x" + std::to_string(width));
        conv1_ = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, 16, 5)));
        conv2_ = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 5)));
        const int hidden = spec.hidden.empty() ? 128 : spec.hidden.front();
        addLinear(32 * h2 * w2, hidden);
        addLinear(hidden, classes);
        break;
    }
    case ModelSpec::Kind::TorchScript: {
        // Checked against the data's shape first (cached), then a replica of its own.
        const std::string path = resolveModelPath(spec);
        inspectTorchScript(path, channels, height, width, classes);
        script_ = makeScriptReplica(path);
        int k = 0;
        for (auto& [name, tensor] : scriptParameters(*script_))
            register_parameter("p" + std::to_string(k++), tensor, tensor.requires_grad());
        break;
    }
    case ModelSpec::Kind::None:
        throw ModelError("model.kind none has no network (timing-only run)");
    }
}

torch::Tensor NetImpl::dropout(torch::Tensor x, bool training, c10::optional<at::Generator>& gen) {
    if (!training || spec_.dropout <= 0.0) return x;
    const double keep = 1.0 - spec_.dropout;
    auto mask = torch::empty_like(x).bernoulli_(keep, gen);
    return x * mask / keep;
}

torch::Tensor NetImpl::forward(torch::Tensor x, bool training, c10::optional<at::Generator> gen) {
    if (script_) return scriptForward(*script_, x, training);
    if (conv1_) {
        x = x.view({-1, channels_, height_, width_});
        x = torch::max_pool2d(torch::relu(conv1_->forward(x)), 2);
        x = torch::max_pool2d(torch::relu(conv2_->forward(x)), 2);
        x = x.flatten(1);
    } else {
        x = x.view({x.size(0), -1});
    }
    for (std::size_t i = 0; i + 1 < linears_.size(); ++i)
        x = dropout(torch::relu(linears_[i]->forward(x)), training, gen);
    return linears_.back()->forward(x);
}

void loadParameters(torch::nn::Module& net, const std::vector<float>& flat) {
    torch::NoGradGuard guard;
    std::size_t offset = 0;
    for (auto& p : net.parameters()) {
        const auto n = static_cast<std::size_t>(p.numel());
        std::memcpy(p.data_ptr<float>(), flat.data() + offset, n * sizeof(float));
        offset += n;
    }
}

std::vector<float> flattenParameters(torch::nn::Module& net) {
    std::vector<float> flat;
    for (auto& p : net.parameters()) {
        auto c = p.detach().contiguous();
        flat.insert(flat.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
    }
    return flat;
}

torch::Tensor featuresTensor(const Dataset& d) {
    auto* data = const_cast<float*>(d.features.data());
    const auto n = static_cast<std::int64_t>(d.size());
    if (d.isImage()) return torch::from_blob(data, {n, d.channels, d.height, d.width});
    return torch::from_blob(data, {n, static_cast<std::int64_t>(d.featureCount())});
}

torch::Tensor labelsTensor(const Dataset& d) {
    return torch::from_blob(const_cast<std::int64_t*>(d.labels.data()),
                            {static_cast<std::int64_t>(d.size())}, torch::kLong);
}

} // namespace fog::detail

namespace fog {

void useSingleThreadedKernels() {
    pinKernels(); // done before main() already; kept here so no trainer can miss it
    torch::set_num_threads(1);
    // OpenBLAS keeps its own pool; its setter exists only when OpenBLAS is the BLAS in use.
    using SetThreads = void (*)(int);
    if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        fn(1);
}

} // namespace fog
