#include "core/model/model_checks.h"

namespace fog {

namespace {
TorchScriptInspector& inspector() {
    static TorchScriptInspector f = nullptr;
    return f;
}
} // namespace

void setTorchScriptInspector(TorchScriptInspector inspect) { inspector() = inspect; }
TorchScriptInspector torchScriptInspector() { return inspector(); }

} // namespace fog
