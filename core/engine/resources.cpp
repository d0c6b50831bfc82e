// The resources timed events change (resources.h).

#include "core/engine/resources.h"

#include "core/engine/node_runtime.h"
#include "core/system/network.h"

namespace fog {

void LinkChange::applyTo(LinkParams& l) const {
    if (bandwidthUpMbps) l.bandwidthUpMbps = *bandwidthUpMbps;
    if (bandwidthDownMbps) l.bandwidthDownMbps = *bandwidthDownMbps;
    if (latencyMs) l.latencyMs = *latencyMs;
}

void LinkResources::changeEntryLink(int entry, const LinkChange& c) {
    if (LinkParams* l = topo_.entryLink(entry)) c.applyTo(*l);
}

void LinkResources::changeEntryAndMembers(int entry, const LinkChange& c) {
    changeEntryLink(entry, c);
    for (auto& [n, l] : topo_.memberLinks())
        if (topo_.entryIndex(n) == entry) c.applyTo(l);
}

void LinkResources::changeMemberLink(int n, const LinkChange& c) {
    if (LinkParams* l = topo_.memberLink(n)) c.applyTo(*l);
}

bool LinkResources::changeExplicitLink(int from, int to, const LinkChange& c, int* index) {
    LinkParams* l = topo_.explicitLinkFromTo(from, to, index);
    if (!l) return false;
    c.applyTo(*l);
    return true;
}

void LinkResources::changed(const std::vector<int>& nodes, const std::vector<int>& explicitLinks, double now) {
    if (network_) network_->linksChanged(nodes, explicitLinks, now);
}

std::uint8_t NodeResources::forced(int n) const { return nodes_.forced(n); }

bool NodeResources::online(int n) const { return nodes_.online(n); }

void NodeResources::initForced(int n, std::uint8_t bits) { nodes_.setForced(n, bits); }

void NodeResources::force(int n, std::uint8_t bits) {
    const bool was = nodes_.online(n);
    nodes_.setForced(n, bits);
    const bool is = nodes_.online(n);
    if (was && !is)
        callbacks_.wentOffline(n);
    else if (!was && is)
        callbacks_.wentOnline(n);
}

void NodeResources::join(int n, std::uint8_t bits, double now) {
    nodes_.setForced(n, bits);
    nodes_.joinAvailability(n, now);
    callbacks_.joined(n);
}

void NodeResources::setThroughput(int n, double samplesPerSecond) { topo_.setThroughput(n, samplesPerSecond); }

void NodeResources::setTraceCompute(int n, double value) {
    topo_.setThroughput(n, topo_.entry(n).compute.flops.max > 0 ? value / flopsPerSample_ : value);
}

void PriceResources::set(int n, double pricePerHour, double now) {
    const bool held = nodes_.holding(n);
    if (held) nodes_.release(n, now);
    topo_.setPricePerHour(n, pricePerHour);
    if (held) nodes_.hold(n, now);
}

} // namespace fog
