#pragma once
// The small drawings that tell tiers apart (a cloud, a server, a phone, a stack of phones),
// shared by the canvas items and the palette so both look the same.

#include "core/spec/scenario.h"
#include "widgets/topology/node_templates.h"

#include <QColor>
#include <QIcon>
#include <QPalette>

class QPainter;
class QRectF;

namespace fog {

/// Accent colour of a tier; mid-tone so that it reads on light and dark backgrounds.
QColor tierColor(Tier t);
/// Draws the tier glyph inside `r` with outline `pen` colour and the tier's accent fill.
void paintTierGlyph(QPainter* p, const QRectF& r, Tier t, bool group, const QColor& pen);
/// Draws a relay (a mast sending waves both ways: it forwards, it neither trains nor
/// aggregates) inside `r`, in the tier's accent colour.
void paintRelayGlyph(QPainter* p, const QRectF& r, Tier t, const QColor& pen);
/// Palette icon of a template, drawn for the given palette (light or dark).
QIcon templateIcon(NodeTemplate t, const QPalette& palette, qreal devicePixelRatio);

} // namespace fog
