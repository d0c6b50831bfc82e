#include "widgets/topology/node_templates.h"

#include <QObject>

namespace fog {

QString templateName(NodeTemplate t) {
    switch (t) {
    case NodeTemplate::CloudRegion:
        return QStringLiteral("cloud");
    case NodeTemplate::EdgeServer:
        return QStringLiteral("edge");
    case NodeTemplate::Device:
        return QStringLiteral("device");
    case NodeTemplate::DeviceGroup:
        return QStringLiteral("group");
    case NodeTemplate::Relay:
        return QStringLiteral("relay");
    }
    return {};
}

QString templateLabel(NodeTemplate t) {
    switch (t) {
    case NodeTemplate::CloudRegion:
        return QObject::tr("Cloud region");
    case NodeTemplate::EdgeServer:
        return QObject::tr("Edge server");
    case NodeTemplate::Device:
        return QObject::tr("Device");
    case NodeTemplate::DeviceGroup:
        return QObject::tr("Group of devices");
    case NodeTemplate::Relay:
        return QObject::tr("Relay");
    }
    return {};
}

bool templateFromName(const QString& name, NodeTemplate& out) {
    for (NodeTemplate t : {NodeTemplate::CloudRegion, NodeTemplate::EdgeServer,
                           NodeTemplate::Device, NodeTemplate::DeviceGroup, NodeTemplate::Relay})
        if (templateName(t) == name) {
            out = t;
            return true;
        }
    return false;
}

Tier templateTier(NodeTemplate t) {
    switch (t) {
    case NodeTemplate::CloudRegion:
        return Tier::Cloud;
    case NodeTemplate::EdgeServer:
    case NodeTemplate::Relay:
        return Tier::Edge;
    default:
        return Tier::Device;
    }
}

NodeSpec nodeFromTemplate(NodeTemplate t) {
    NodeSpec n;
    n.tier = templateTier(t);
    switch (t) {
    case NodeTemplate::CloudRegion:
        // A GPU instance as the parameter server: fast, billed, always on.
        n.id = "cloud";
        n.role = Role::Aggregator;
        n.region = "eu-west";
        n.compute.throughput = Range::exactly(20000);
        n.pricePerHour = 3.06;
        break;
    case NodeTemplate::EdgeServer:
        n.id = "edge";
        n.role = Role::Aggregator;
        n.compute.throughput = Range::exactly(5000);
        n.pricePerHour = 0.4;
        n.link = LinkParams{1000, 1000, 10, 0.02};
        break;
    case NodeTemplate::Relay:
        // A cell tower or WAN hop: forwards its children's traffic over a fibre backhaul,
        // always on (the loader's rule for relays), spending a little energy per byte.
        n.id = "relay";
        n.role = Role::Relay;
        n.energy.perByteForwardedJ = 5e-8;
        n.link = LinkParams{1000, 1000, 5, 0};
        break;
    case NodeTemplate::Device:
    case NodeTemplate::DeviceGroup:
        n.id = "device";
        n.role = Role::Trainer;
        n.compute.throughput = Range::exactly(200);
        n.compute.noise.kind = NoiseSpec::Kind::Exponential;
        n.energy.perSampleJ = 0.002;
        n.energy.perByteJ = 1e-7;
        n.link = LinkParams{20, 50, 30, 0};
        break;
    }
    return n;
}

NodeSpec groupFromTemplate(int count) {
    const NodeSpec d = nodeFromTemplate(NodeTemplate::Device);
    NodeSpec g;
    g.id = "phones";
    g.group = true;
    g.count = count;
    g.tier = Tier::Device;
    g.role = Role::Trainer;
    g.compute = d.compute;
    g.compute.throughput = {100, 300};
    g.energy = d.energy;
    g.link = d.link;
    g.availability.kind = AvailabilitySpec::Kind::Markov;
    g.availability.meanUpS = 1800;
    g.availability.meanDownS = 120;
    return g;
}

} // namespace fog
