#include "widgets/run/run_status_line.h"

#include "core/engine/condition.h"

namespace fog {

namespace {

/// "Paused after round 7 (t = 12.5 s)" for the control's own sentences, "Paused: accuracy
/// 78.4% >= 78% at round 7" for what a condition saw.
QString pausedText(const QString& why) {
    if (why.isEmpty()) return QObject::tr("Paused");
    if (why.startsWith("paused ")) return "P" + why.mid(1);
    return QObject::tr("Paused: %1").arg(why);
}

} // namespace

RunStatusLine::RunStatusLine(RunController* controller, QWidget* parent) : QLabel(parent), controller_(controller) {
    setObjectName("runWhy");
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(controller_, &RunController::stateChanged, this, &RunStatusLine::onState);
    connect(controller_, &RunController::pausedBecause, this,
            [this](const QString& why) { setText(pausedText(why)); });
    connect(controller_, &RunController::stepping, this, [this](const QString& what) {
        if (controller_->state() == RunController::State::Running) setText(what + QStringLiteral("…"));
    });
    connect(controller_, &RunController::finished, this, [this](const RunSummary& s, qint64) {
        ended_ = endText(s);
        setText(ended_);
    });
}

QString RunStatusLine::roundsText(long long rounds) {
    return rounds == 1 ? tr("1 round") : tr("%1 rounds").arg(rounds);
}

QString RunStatusLine::endText(const RunSummary& s) {
    const QString reason = QString::fromStdString(s.stopReason);
    switch (s.status) {
    case RunStatus::Cancelled: return tr("Stopped by you at round %1").arg(s.rounds);
    case RunStatus::Failed: return tr("Failed: %1").arg(reason);
    case RunStatus::Finished:
    case RunStatus::Running: break;
    }
    return reason.isEmpty() ? tr("Finished after %1").arg(roundsText(s.rounds))
                            : tr("Finished: %1 (round %2)").arg(reason).arg(s.rounds);
}

void RunStatusLine::onState(RunController::State state) {
    switch (state) {
    case RunController::State::Running: {
        const auto c = controller_->runUntilCondition();
        setText(c ? tr("Running until %1").arg(QString::fromStdString(c->describe())) : tr("Running"));
        break;
    }
    case RunController::State::Paused: {
        setText(pausedText(controller_->pauseReason()));
        break;
    }
    case RunController::State::Idle: setText(QString()); break;
    case RunController::State::Finished:
    case RunController::State::Cancelled:
    case RunController::State::Failed:
        if (!ended_.isEmpty()) setText(ended_);
        break;
    }
}

} // namespace fog
