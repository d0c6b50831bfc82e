#pragma once
// LibTorch modules for the models a scenario names. Internal to core/model: include only
// from .cpp files there (they are the only ones compiled with torch headers).

#include "core/data/dataset.h"
#include "core/spec/scenario.h"

#include <torch/torch.h>

namespace fog::detail {

struct ScriptReplica; // core/model/torchscript_net.h

/// Logistic regression, MLP, small CNN or a TorchScript file, chosen by ModelSpec. Dropout draws its masks from
/// a generator passed in, so that results do not depend on LibTorch's global RNG (shared by
/// every thread, hence non-deterministic under threads).
class NetImpl : public torch::nn::Module {
public:
    NetImpl(const ModelSpec& spec, int channels, int height, int width, int classes);
    torch::Tensor forward(torch::Tensor x, bool training, c10::optional<at::Generator> gen);

private:
    torch::Tensor dropout(torch::Tensor x, bool training, c10::optional<at::Generator>& gen);

    ModelSpec spec_;
    int channels_, height_, width_;
    std::vector<torch::nn::Linear> linears_;
    torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
    std::shared_ptr<ScriptReplica> script_; ///< model.kind torchscript: its parameters are this module's
};
TORCH_MODULE(Net);

/// Copies a flat vector into the module's parameters (in parameters() order).
void loadParameters(torch::nn::Module& net, const std::vector<float>& flat);
/// The module's parameters as one flat vector.
std::vector<float> flattenParameters(torch::nn::Module& net);

/// Input tensor of a data set: [N, C, H, W] for images, [N, F] otherwise; shares memory.
torch::Tensor featuresTensor(const fog::Dataset& d);
torch::Tensor labelsTensor(const fog::Dataset& d);

} // namespace fog::detail
