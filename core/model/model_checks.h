#pragma once
// What validation (core/scenario) asks of the model code, without LibTorch: this header and
// its .cpp include no LibTorch, so the fuzz harnesses link the scenario code with them alone.

#include "core/spec/scenario.h"

#include <string>

namespace fog {

/// Why a model has no fast training path (core/model/fast_net.h), "" when it has one.
inline std::string fastPathUnsupported(const ModelSpec& spec) {
    switch (spec.kind) {
    case ModelSpec::Kind::LogReg:
    case ModelSpec::Kind::Mlp:
    case ModelSpec::Kind::Cnn:
        return {};
    case ModelSpec::Kind::None:
        return "model.kind none has no network";
    default:
        return "model.kind " + std::string(spec.kind == ModelSpec::Kind::TorchScript ? "torchscript" : "?") +
               " has no fast path (it runs on LibTorch)";
    }
}

/// Loads a TorchScript model and checks it against the data's shape, throwing
/// std::runtime_error with a message naming the file and the shapes. Registered by
/// core/model/torchscript_model.cpp at start-up in every program that can train; a program
/// without it (the fuzz harnesses) checks only that model.path is given.
using TorchScriptInspector = void (*)(const ModelSpec& spec, int channels, int height, int width, int classes);
void setTorchScriptInspector(TorchScriptInspector inspect);
TorchScriptInspector torchScriptInspector();

} // namespace fog
