#include "core/spec/device_classes.h"

namespace fog {

namespace {

const char* const kHpl = "measured: HPL (FP64 Linpack), average power at the wall";
const char* const kHplSource = "J. Geerling, top500-benchmark, results table (github.com/geerlingguy/top500-benchmark)";
const char* const kSheet = "data sheet: peak FP32, maximum board power";

std::vector<DeviceClass> buildTable() {
    // Keep docs/own-model.md, "Device classes", in step (test_compute_cost compares them).
    return {
        {"raspberry-pi-zero-2-w", "Raspberry Pi Zero 2 W (RP3A0, 4 x Cortex-A53, 1.0 GHz)", 0.370e9, 2.1, 0.0, kHpl,
         kHplSource},
        {"raspberry-pi-4", "Raspberry Pi 4 Model B (BCM2711, 4 x Cortex-A72, 1.8 GHz)", 11.889e9, 7.2, 1000.0, kHpl,
         std::string(kHplSource) + "; Gigabit Ethernet: Raspberry Pi 4 Model B product brief"},
        {"raspberry-pi-cm4", "Raspberry Pi Compute Module 4 (BCM2711, 1.5 GHz)", 11.433e9, 5.2, 1000.0, kHpl,
         std::string(kHplSource) + "; Gigabit Ethernet: Compute Module 4 product brief"},
        {"raspberry-pi-5", "Raspberry Pi 5 (BCM2712, 4 x Cortex-A76, 2.4 GHz)", 30.249e9, 11.0, 1000.0, kHpl,
         std::string(kHplSource) + "; Gigabit Ethernet: Raspberry Pi 5 product brief"},
        {"orange-pi-5", "Orange Pi 5 (RK3588S, 4 x Cortex-A76 + 4 x Cortex-A55)", 53.333e9, 11.5, 0.0, kHpl,
         kHplSource},
        {"intel-n100", "Radxa X4 (Intel N100, 4 cores, 3.4 GHz)", 37.224e9, 16.0, 0.0, kHpl, kHplSource},
        {"amd-ryzen-5-5600x", "AMD Ryzen 5 5600X desktop (6 cores, 3.7 GHz)", 229e9, 196.0, 0.0, kHpl, kHplSource},
        {"ampere-altra-q64-22", "Ampere Altra Q64-22 server (64 Arm cores, 2.2 GHz)", 655.90e9, 140.0, 0.0, kHpl,
         kHplSource},
        {"nvidia-jetson-nano", "NVIDIA Jetson Nano (128-core Maxwell GPU, 10 W mode)", 236e9, 10.0, 1000.0,
         "data sheet: 472 GFLOPS FP16, FP32 at half that rate; 10 W power mode",
         "NVIDIA Jetson Nano data sheet; Gigabit Ethernet: Jetson Nano Developer Kit"},
        {"nvidia-t4", "NVIDIA T4 (Turing, PCIe)", 8.1e12, 70.0, 0.0, kSheet, "NVIDIA T4 Tensor Core GPU data sheet"},
        {"nvidia-v100-sxm2", "NVIDIA V100 SXM2 (Volta)", 15.7e12, 300.0, 0.0, kSheet, "NVIDIA V100 Tensor Core GPU data sheet"},
        {"nvidia-a100-sxm", "NVIDIA A100 SXM (Ampere)", 19.5e12, 400.0, 0.0, kSheet,
         "NVIDIA A100 Tensor Core GPU data sheet"},
    };
}

} // namespace

const std::vector<DeviceClass>& deviceClasses() {
    static const std::vector<DeviceClass> table = buildTable();
    return table;
}

const DeviceClass* findDeviceClass(const std::string& name) {
    for (const auto& d : deviceClasses())
        if (d.name == name) return &d;
    return nullptr;
}

std::vector<std::string> deviceClassNames() {
    std::vector<std::string> out;
    for (const auto& d : deviceClasses()) out.push_back(d.name);
    return out;
}

bool computeInFlops(const ComputeSpec& c) {
    return c.flops.max > 0 || !c.deviceClass.empty();
}

bool needsModelFlops(const NodeSpec& n) {
    return computeInFlops(n.compute) || n.energy.perFlopJ > 0;
}

bool needsModelFlops(const TopologySpec& t) {
    for (const auto& n : t.nodes)
        if (needsModelFlops(n)) return true;
    return false;
}

void applyDeviceClass(NodeSpec& n) {
    const DeviceClass* d = n.compute.deviceClass.empty() ? nullptr : findDeviceClass(n.compute.deviceClass);
    if (!d) return;
    if (!(n.compute.flops.max > 0)) n.compute.flops = Range::exactly(d->flops);
    if (n.nicMbps <= 0 && d->nicMbps > 0) n.nicMbps = d->nicMbps;
    if (n.energy.perSampleJ <= 0 && n.energy.perFlopJ <= 0) n.energy.perFlopJ = d->joulesPerFlop();
}

void applyDeviceClasses(TopologySpec& t) {
    for (auto& n : t.nodes) applyDeviceClass(n);
}

} // namespace fog
