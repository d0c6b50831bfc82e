#pragma once
// A static drawing of a scenario's topology for reports: tiers as rows (cloud, edge,
// devices), groups as one box with their count, parent links and explicit links.

#include "core/spec/scenario.h"

#include <QImage>

namespace fog {

QImage topologyFigure(const Scenario& scenario, int width, int height);

} // namespace fog
