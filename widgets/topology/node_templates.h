#pragma once
// What the palette offers: a cloud region, an edge server, a device, a group of N devices and
// a relay (a cell tower, a WAN hop: edge tier, role relay), as ready scenario specs with plausible figures (the inspector edits them afterwards).

#include "core/spec/scenario.h"

#include <QString>

namespace fog {

enum class NodeTemplate { CloudRegion, EdgeServer, Device, DeviceGroup, Relay };

/// MIME type of a palette drag; the payload is "<template name> <count>".
inline constexpr const char* kNodeTemplateMime = "application/x-fogstudio-node-template";
/// MIME type of the editor's clipboard (scenario YAML; also offered as plain text).
inline constexpr const char* kTopologyMime = "application/x-fogstudio-topology";

QString templateName(NodeTemplate t);  ///< "cloud", "edge", "device", "group", "relay"
QString templateLabel(NodeTemplate t); ///< "Cloud region", ...
bool templateFromName(const QString& name, NodeTemplate& out);
Tier templateTier(NodeTemplate t);

NodeSpec nodeFromTemplate(NodeTemplate t);
NodeSpec groupFromTemplate(int count); ///< a group (`group` set) of `count` devices

} // namespace fog
