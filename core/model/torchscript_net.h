#pragma once
// A trainer's replica of a TorchScript model, for NetImpl (core/model/net.h). Internal to
// core/model; the JIT headers stay in torchscript_model.cpp.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fog::detail {

struct ScriptReplica;

/// A fresh copy (own parameters) of the module in `path`, which inspectTorchScript has
/// accepted; loaded once per file version and cloned for every replica.
std::shared_ptr<ScriptReplica> makeScriptReplica(const std::string& path);
/// The replica's parameters in the module's order, with names ("fc1.weight").
std::vector<std::pair<std::string, torch::Tensor>> scriptParameters(ScriptReplica& r);
/// The module's forward on x in training or evaluation mode.
torch::Tensor scriptForward(ScriptReplica& r, const torch::Tensor& x, bool training);

} // namespace fog::detail
