#pragma once
// What race mode races (widgets/run/race_view.h): the variants of the scenario being edited
// (a preset's fully-sync / n-sync / n-batch-sync), or, for a scenario without variants (a
// topology a teacher drew), the same scenario under fully-sync and n-sync with n half the
// trainers; and the dialog that picks two or three of them.

#include "widgets/run/race_view.h"

#include <QStringList>

#include <vector>

class QWidget;

namespace fog {

/// The candidates, each a scenario ready to run (variant applied, variant sections gone).
/// Empty, with `why`, when there is nothing to race.
std::vector<RaceView::Entry> raceCandidates(const Scenario& scenario, QString* why = nullptr);

/// The candidates whose labels are `labels` (all of them in that order); the unknown ones
/// are named in `why`.
std::vector<RaceView::Entry> pickRacers(const std::vector<RaceView::Entry>& candidates, const QStringList& labels,
                                        QString* why = nullptr);

/// Asks which two or three candidates race (the first ones checked); empty when cancelled.
QStringList askRacers(QWidget* parent, const std::vector<RaceView::Entry>& candidates);

} // namespace fog
