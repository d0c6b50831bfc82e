#pragma once
// Device classes: named devices whose speed, power and network interface a node may take
// instead of numbers (`compute: {device_class: raspberry-pi-4}`). Every figure has its
// source in the table (core/spec/device_classes.cpp) and in docs/own-model.md, "Device
// classes": measured benchmarks where there are some, vendor data sheets otherwise.

#include "core/spec/scenario.h"

#include <string>
#include <vector>

namespace fog {

struct DeviceClass {
    std::string name;        ///< the YAML spelling: "raspberry-pi-4"
    std::string device;      ///< what it is: "Raspberry Pi 4 Model B (BCM2711, 4 x Cortex-A72, 1.8 GHz)"
    double flops = 0.0;      ///< FLOP/s
    /// Watts drawn at that speed (0: not known): the average measured over the benchmark, or
    /// the data sheet's maximum board power.
    double powerW = 0.0;
    double nicMbps = 0.0;    ///< the network interface, Mbit/s each direction (0: not known)
    std::string basis;       ///< how the FLOP/s were obtained: "measured: HPL, FP64" / "data sheet: peak FP32"
    std::string source;      ///< where the figures come from (document or address)

    /// Joules per FLOP at that speed: powerW / flops (0 when the power is not known).
    double joulesPerFlop() const { return powerW > 0 && flops > 0 ? powerW / flops : 0.0; }
};

/// The table, in the order the documentation lists it.
const std::vector<DeviceClass>& deviceClasses();
/// The class called `name`, or nullptr.
const DeviceClass* findDeviceClass(const std::string& name);
std::vector<std::string> deviceClassNames();

/// True when the node's speed is given in FLOP/s: compute.flops, or a device class.
bool computeInFlops(const ComputeSpec& c);

/// True when the node's times or energy depend on the model's training FLOPs per sample:
/// compute in FLOP/s, or energy.per_flop_j.
bool needsModelFlops(const NodeSpec& n);
bool needsModelFlops(const TopologySpec& t);

/// The node with its device class's figures where it gives none of its own: compute.flops
/// (when 0), nic_mbps (when unlimited and the class knows its interface), energy.per_flop_j
/// (when neither per_sample_j nor per_flop_j is set and the class knows its power). The
/// class name stays, so that applying twice changes nothing. Unknown names are left alone
/// (the reader refuses them).
void applyDeviceClass(NodeSpec& n);
/// applyDeviceClass on every entry.
void applyDeviceClasses(TopologySpec& t);

} // namespace fog
