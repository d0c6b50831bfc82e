#pragma once
// Interventions and fork pictures without a mouse, for demonstrations and the pictures of
// docs/studio.md (taken under xvfb-run): `fogstudio --run --intervene 'T: ACTION'` pauses
// the run at virtual time T, sends ACTION ("link edge.up=2", the `--event` action form) to
// it exactly as the canvas's right-click menu does, and lets it run on (an `add` action, like
// the menu's Add devices…, forks the run at T: the run goes on to its end, then the fork
// runs); `--shot-menu ID`
// draws the canvas's context menu on node, group or link ID into the `--screenshot`
// picture.
//
// Threads: GUI thread.

#include <QObject>
#include <QPixmap>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace fog {

class MainWindow;

class ScriptedInterventions : public QObject {
    Q_OBJECT
public:
    /// `specs`: "T: ACTION" each. Throws std::invalid_argument naming a malformed one.
    ScriptedInterventions(MainWindow* window, const QStringList& specs);
    /// Arms the first pause; call before the run starts.
    void arm();

private:
    void paused();

    MainWindow* window_;
    struct Step {
        double at;
        std::string action;
    };
    std::vector<Step> steps_;
    std::size_t next_ = 0;
};

/// `shot` with the canvas's context menu for `target` drawn where a right click on it opens
/// it: a node or group id, a member "group-k", or "CHILD->PARENT" for a parent link. The
/// picture is returned unchanged when the canvas has no such item.
QPixmap withCanvasMenu(MainWindow& window, const QPixmap& shot, const QString& target);

} // namespace fog
